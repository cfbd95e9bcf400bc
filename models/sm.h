/* sm.h: one streaming multiprocessor running a compiled pipeline program.
 *
 * sm_new assembles the units of models/ (schedulers, warps, shared memory,
 * copy engines, memory path, barrier units, pipelines) for the program's
 * resident blocks; sm_run drives them with the engine until every thread
 * has exited, the program breaks a rule, or it deadlocks. */
#pragma once

#include "models/arch.h"
#include "sim/core/engine.h"
#include "sim/lang/program.h"
#include "sim/out/stats.h"
#include "sim/out/timeline.h"

typedef struct {
    SimEngineKind engine;
    SimCycle max_cycles;     /* watchdog, 0 = none */
    uint64_t max_ops;        /* operations interpreted, 0 = none */
    bool race_check;         /* the pipeline race detector */
    bool functional;         /* track data values (for CUDA reference outputs); a
                              * program with expect statements always does */
    bool by_line;            /* warp-cycles per trace line and state (SimStats.line_state) */
    bool check_invariants;   /* assert the SIMT invariants (simt_check) after every issue
                              * and the event queue's after every timer operation:
                              * the test suites do; it costs time */
    SimTimeline *timeline;   /* may be NULL; not owned */
} SmOptions;

typedef struct Sm Sm;

/* The clock the SM runs prog at: a kernel that issues tensor-core
 * instructions (a compute statement of class hmma) runs at
 * arch.clock_mhz x arch.mma_clock_ratio when that is set, so that a clock
 * set with --set moves both (arch_at_clock converts *a; measured by
 * docs/validation/campaign/microbench/mmaclock_h100.txt).  Call before
 * sm_new and before *a is reported. */
void sm_arch_for_program(const Program *prog, ArchParams *a);

/* Checks that the program fits the SM (threads, warps, shared memory,
 * registers, blocks) and builds the SM.  Returns NULL with *error set
 * (SIM_ERROR_INPUT naming the limit) when it does not. */
Sm *sm_new(const Program *prog, const ArchParams *arch, const SmOptions *opt, GError **error);
void sm_free(Sm *sm);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Sm, sm_free)

/* Simulates to the end.  On failure (SIM_ERROR_PROGRAM: a rule broken or a
 * deadlock; SIM_ERROR_LIMIT: the watchdog) *error names the cycle, warps,
 * lanes, trace line and rule. */
bool sm_run(Sm *sm, GError **error);

/* The statistics (valid after sm_run; partial after a failure). */
const SimStats *sm_stats(const Sm *sm);

/* The most global-array bytes a run of a program with expect statements
 * holds for the functional model (1 GiB). */
#define SM_FUNCTIONAL_MAX_GLOBAL (INT64_C(1) << 30)

/* Functional model (opt.functional): bytes of a global buffer after the run. */
const uint8_t *sm_global_data(const Sm *sm, int32_t buffer, int64_t *bytes);

/* The fill pattern of global memory before the run: word i of buffer b. */
uint32_t sm_initial_word(int32_t buffer, int64_t word);

/* Constants of compute(x, n): each step is x = x * COMPUTE_A + COMPUTE_B. */
#define SM_COMPUTE_A 1664525u
#define SM_COMPUTE_B 1013904223u

/* Shared memory the program needs per block, the system reserve included. */
int64_t sm_smem_per_block(const Program *prog, const ArchParams *arch);
