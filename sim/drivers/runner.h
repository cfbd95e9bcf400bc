/* runner.h: one simulation of a trace, as `smpipe run`, `sweep` and
 * `validate` need it: split --set assignments between trace parameters
 * and architecture keys, load the architecture, instantiate the program,
 * build the SM and run it. */
#pragma once

#include "models/arch.h"
#include "models/sm.h"
#include "sim/lang/program.h"
#include "sim/lang/trace_ast.h"
#include "sim/out/report.h"

/* Default limits of a run (`smpipe run --max-cycles`, `--max-ops`): far
 * above any real kernel's (the bundled traces need about 1e4 cycles and
 * 1e4 operations), low enough that a trace that never ends stops with a
 * clear error within about a minute (the interpreter runs some 2e7
 * operations a second).  0 means no limit. */
#define SIM_DEFAULT_MAX_CYCLES UINT64_C(2000000000)
#define SIM_DEFAULT_MAX_OPS UINT64_C(1000000000)

/* The architecture of a run that names none (--arch). */
#define SIM_DEFAULT_ARCH "h100"

typedef struct {
    const char *arch;        /* name or path; NULL = SIM_DEFAULT_ARCH */
    const GPtrArray *sets;   /* char* "name=value" (trace parameter or section.key) */
    SmOptions sm;            /* engine, limits, timeline... */
} SimRunOptions;

typedef struct {
    ArchParams arch;
    Program *prog;           /* owned */
    Sm *sm;                  /* owned; its statistics stay valid */
    GPtrArray *arch_sets;    /* char*: the architecture assignments applied (owned) */
} SimRun;

/* Splits sets into trace overrides (ProgParamOverride, names borrowed from
 * sets) and architecture assignments (char*, borrowed). */
bool sim_split_sets(const GPtrArray *sets, GArray *params, GPtrArray *arch_sets, GError **error);

/* Blocks in the launch: launch.grid, or the simulated SM's resident
 * blocks (sm.blocks) when it is 0. */
int64_t sim_grid_blocks(const ArchParams *a);

/* Checks launch.grid against sm.blocks and, for a grid larger than the
 * simulated SM's blocks, sets mem.active_sms to the SMs the grid keeps
 * busy (at most gpu.sms) unless arch_sets (char*, owned by the caller's
 * array, which gains the derived assignment) set it explicitly. */
bool sim_resolve_launch(ArchParams *a, GPtrArray *arch_sets, GError **error);

/* Loads the architecture (o->arch with the architecture keys of o->sets,
 * and as many resident blocks as the trace's `param blocks` asks for) and
 * builds the program, without an SM: out->sm stays NULL.  Clear out with
 * sim_run_clear, also on failure. */
bool sim_run_program(const Trace *t, const SimRunOptions *o, SimRun *out, GError **error);
/* Loads and builds without running (smpipe check). */
bool sim_run_prepare(const Trace *t, const SimRunOptions *o, SimRun *out, GError **error);
/* Prepares and runs.  On a simulation failure *error is set and out still
 * holds the partial statistics. */
bool sim_run_trace(const Trace *t, const SimRunOptions *o, SimRun *out, GError **error);
void sim_run_clear(SimRun *r);

/* The whole-launch estimate (SimLaunch, sim/report.h) of a finished run:
 * nothing (out->grid = 0) without launch.grid; with a partial last wave,
 * that wave is simulated too, with the same options (o) but its own blocks
 * per SM (the blocks spread one per SM first; a trace that fixes its
 * blocks with `param blocks` keeps them) and launch.grid. */
bool sim_launch_estimate(const Trace *t, const SimRunOptions *o, const SimRun *run, SimLaunch *out, GError **error);
