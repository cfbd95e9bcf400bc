/* validate.h: `smpipe validate`, the comparison of the simulator with a real
 * GPU, in three steps that may run on different machines:
 *  1. emit: the points (the cartesian product of --vary lists) of a trace
 *     become one CUDA program (sim/drivers/cuda_gen.h) in a directory, with its
 *     reference file, a manifest (manifest.json: trace, architecture, mode,
 *     each point's --set assignments) and run.sh;
 *  2. run.sh, on the GPU machine: builds the program for the GPU's compute
 *     capability and writes results.json;
 *  3. collect: reads the manifest and the results back, simulates every
 *     point (with the architecture and --set overrides given then, so a
 *     refitted architecture can be compared without the GPU), and writes
 *     validation.csv, validation.gp and validation.png and a summary with
 *     the mean absolute percentage error. */
#pragma once

#include "sim/lang/trace_ast.h"

/* Parses a value list: comma-separated items, each N, A..B or A..B:STEP
 * (A to B inclusive).  Appends int64_t values to out.  Returns FALSE with
 * *error set (SIM_ERROR_INPUT) on malformed text or more than 100000 values. */
bool validate_parse_list(const char *text, GArray *out, GError **error);

/* Parses NAME=LIST.  Returns the name (newly allocated) and appends the
 * values to out, or NULL with *error set. */
char *validate_parse_vary(const char *arg, GArray *out, GError **error);

typedef struct {
    const char *trace_path;      /* as given */
    const char *arch;            /* NULL: h100 */
    const GPtrArray *sets;       /* char*: base --set assignments */
    GPtrArray *vary_names;       /* char* (owned) */
    GPtrArray *vary_values;      /* GArray* of int64_t, one per name (owned) */
    bool warm;                   /* measure L2-resident (no flush), simulate mem.source=l2 */
    int repeats;
} ValidatePlan;

void validate_plan_init(ValidatePlan *plan);
void validate_plan_clear(ValidatePlan *plan);

/* Writes dir/NAME.cu, dir/NAME.cu.ref, dir/manifest.json and dir/run.sh
 * for every point of the plan (NAME: the trace's base name), creating dir.
 * Each point is simulated functionally for its reference output.  Returns
 * FALSE with *error set. */
bool validate_emit(const Trace *t, const ValidatePlan *plan, const char *dir, GError **error);

/* Reads dir/manifest.json and dir/results.json, simulates each point of t
 * (arch, if not NULL, replaces the manifest's; sets are added to each
 * point's), and writes out_dir/validation.csv, validation.gp and
 * validation.png (when gnuplot is there) and summary.txt.  Appends the
 * summary (MAPE, best stage counts) to summary.  Returns FALSE with *error
 * set. */
bool validate_collect(const Trace *t, const char *dir, const char *arch, const GPtrArray *sets, const char *out_dir,
                      GString *summary, GError **error);

/* Whether this machine has an NVIDIA GPU: runs `nvidia-smi -L` (the program
 * named by $SMPIPE_NVIDIA_SMI, if set).  On FALSE, *why says why (newly
 * allocated). */
bool validate_have_gpu(char **why);

/* The nvcc to use: $NVCC, nvcc on PATH, or /usr/local/cuda/bin/nvcc.
 * Returns a newly allocated path or NULL. */
char *validate_find_nvcc(void);
