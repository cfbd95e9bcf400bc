/* cuda_gen.h: the CUDA backend.  Turns instantiated trace programs into one
 * self-contained CUDA C++ program that runs each of them ("points") on a
 * real GPU with the libcudacxx primitives the trace names (cuda::pipeline,
 * cuda::memcpy_async, cuda::barrier, cooperative groups), checks every
 * global buffer the kernel writes against the simulator's functional model,
 * and times it: SM cycles from clock64() per block, the kernel in CUDA
 * events.  The generated program prints one JSON document; its fields are
 * described in docs/cuda-backend.md.
 *
 * The code is generated from the compiled Program, not from the syntax
 * tree: parameters, def functions, sizes and pointer arithmetic are already
 * resolved there, so the C++ computes exactly what the simulator does.
 * Control flow is rebuilt from the Program's structured branches and loops;
 * each statement carries the trace line it comes from as a comment. */
#pragma once

#include "models/arch.h"
#include "sim/drivers/runner.h"
#include "sim/lang/program.h"

/* The expected contents of one global buffer after the kernel. */
typedef struct {
    int32_t buffer;    /* index into Program.buffers */
    int64_t bytes;
    uint64_t hash;     /* FNV-1a 64 of the bytes */
    GBytes *data;      /* the bytes (owned) */
} CudaGenCheck;

/* One instantiation of the trace: a kernel in the generated program. */
typedef struct {
    char *label;            /* "stages=4 elem_bytes=16", or "" (owned) */
    GPtrArray *sets;        /* char*: the --set assignments of the point (owned) */
    SimRun run;             /* the functional simulation: program, arch, SM (owned) */
    GArray *checks;         /* CudaGenCheck (owned) */
    bool unchecked;         /* a whole-GPU launch (launch.grid): no reference, no checks */
} CudaGenPoint;

/* Options compiled into the generated program (its command line can
 * override the run-time ones). */
typedef struct {
    const char *trace_path;  /* the trace(s) as given, for comments and the JSON */
    const char *out_name;    /* the .cu file name, for the build comment */
    bool flush_l2;           /* default: flush L2 before each timed launch */
    int repeats;             /* timed launches per point */
    int warmup;              /* untimed launches first */
} CudaGenOptions;

/* Simulates a point of trace t (which must outlive the point) with the
 * functional model (SmOptions.functional) under the architecture arch (NULL:
 * h100) and sets (char* "name=value"), and records the bytes of
 * every global buffer the program writes.  Returns a new point (free with
 * cuda_gen_point_free) or NULL with *error set: SIM_ERROR_INPUT for bad
 * input, a program the CUDA backend cannot express (OpenCL pipes, unknown
 * instruction classes) included; the simulation's own error otherwise. */
CudaGenPoint *cuda_gen_point_new(const Trace *t, const char *arch, const GPtrArray *sets, const char *label,
                                 GError **error);
void cuda_gen_point_free(CudaGenPoint *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CudaGenPoint, cuda_gen_point_free)

/* Checks that prog can be written in CUDA C++ for arch.  Returns FALSE with
 * *error set (SIM_ERROR_INPUT, "file:line:col: ...") when it cannot. */
bool cuda_gen_supported(const Program *prog, const ArchParams *arch, GError **error);

/* Appends the whole program for n points (n >= 1; they may come from
 * different traces) to out.  Returns FALSE with *error set if a point
 * cannot be expressed. */
bool cuda_gen_program(CudaGenPoint *const *points, guint n, const CudaGenOptions *opt, GString *out, GError **error);

/* The reference file written next to the program (FILE.cu.ref): every
 * point's expected buffers, for element-by-element diagnostics.  Appends
 * the bytes to out. */
void cuda_gen_reference(CudaGenPoint *const *points, guint n, GByteArray *out);

/* FNV-1a 64 of bytes, the hash the generated program checks. */
uint64_t cuda_gen_hash(const uint8_t *bytes, gsize len);
