/* stats.h: what a run measured.  Models fill a SimStats; report.c prints it
 * as text, JSON and CSV.  The warp states are the vocabulary of the stall
 * accounting: every cycle of every resident warp is in exactly one. */
#pragma once

#include "sim/core/simtypes.h"

typedef enum {
    WS_ISSUING,          /* issued an instruction this cycle */
    WS_NOT_SELECTED,     /* ready, but the scheduler issued another warp */
    WS_DEPENDENCY,       /* waiting for an earlier instruction's result */
    WS_MATH_THROTTLE,    /* the instruction's pipe is busy */
    WS_MIO_THROTTLE,     /* the warp's path to shared memory is busy (its last load or store) */
    WS_BANK_CONFLICT,    /* shared-memory access replaying (bank conflict) */
    WS_COPY_THROTTLE,    /* async-copy path full: too many requests in flight */
    WS_MEMORY,           /* waiting for global memory (loads, synchronous copies) */
    WS_CONSUMER_WAIT,    /* pipeline consumer_wait: stage not ready */
    WS_PRODUCER_ACQUIRE, /* pipeline producer_acquire: no free stage */
    WS_BLOCK_BARRIER,    /* __syncthreads, block.sync, make_pipeline's sync, __syncwarp */
    WS_MBARRIER,         /* cuda::barrier / mbarrier wait */
    WS_ASYNC_WAIT,       /* cp.async.wait_group (cooperative_groups::wait) */
    WS_DIVERGENT,        /* this path waits at reconvergence while the other path runs or waits */
    WS_EXITED,           /* all threads of the warp have exited */
    WS__COUNT
} SimWarpState;

/* Stable names (JSON keys, CSV columns, timeline slices). */
const char *sim_warp_state_name(SimWarpState s);
/* What the state means, with the Nsight Compute warp-state counterpart. */
const char *sim_warp_state_help(SimWarpState s);
const char *sim_warp_state_nsight(SimWarpState s);

/* Roles for --by role: the role of the threads a warp is running. */
typedef enum {
    ROLE_NONE,       /* not in any block-scope pipeline */
    ROLE_PRODUCER,
    ROLE_CONSUMER,
    ROLE_BOTH,       /* unified pipeline: producer and consumer */
    ROLE_MIXED,      /* the running path holds threads of different roles */
    ROLE__COUNT
} SimRole;

const char *sim_role_name(SimRole r);

/* Directions of memcpy_async: source memory to destination memory. */
typedef enum {
    SIM_DIR_GLOBAL_TO_SHARED,
    SIM_DIR_SHARED_TO_SHARED,
    SIM_DIR_SHARED_TO_GLOBAL,
    SIM_DIR_GLOBAL_TO_GLOBAL,
    SIM_DIR__COUNT
} SimCopyDir;

/* Stable names (JSON keys): "global_to_shared", ... */
const char *sim_copy_dir_name(SimCopyDir d);

/* A log2-bucketed distribution of cycle counts. */
typedef struct {
    uint64_t count;
    uint64_t sum;
    uint64_t min, max;
    uint64_t bucket[65];  /* bucket[k]: values v with bit length k (0 for v == 0) */
} SimDist;

void sim_dist_add(SimDist *d, uint64_t v);
double sim_dist_mean(const SimDist *d);
/* The value below which a fraction q of the samples lie (upper bound of the
 * bucket holding that quantile, clamped to max). */
uint64_t sim_dist_quantile(const SimDist *d, double q);

/* Step life of block-scope pipeline stages. */
enum {
    STAGE_STEP_FILL,     /* first producer's acquire passed -> last producer committed */
    STAGE_STEP_LAND,     /* last commit -> stage ready (copies landed) */
    STAGE_STEP_IDLE,     /* ready -> first consumer passed consumer_wait */
    STAGE_STEP_CONSUME,  /* first consumer wait passed -> last release */
    STAGE_STEP__COUNT
};

const char *sim_stage_step_name(int step);

typedef struct SimStageStats {
    char *name;              /* pipeline (its shared state) */
    int64_t stages;
    uint64_t instances;      /* stage instances completed */
    SimDist step[STAGE_STEP__COUNT];
    SimDist exposed;         /* per instance: cycles consumers waited in consumer_wait */
    uint64_t *occupancy;     /* cycles with k stages in flight, k = 0..stages */
} SimStageStats;

/* An OpenCL pipe (models/cl_pipe.c).  Arrays indexed [0] read, [1] write.
 * Occupancy is the number of slots in use: reserved for writing, holding
 * committed packets, or reserved for reading and not yet freed. */
typedef struct SimClPipeStats {
    char *name;
    int64_t capacity;          /* packets */
    int64_t packet_bytes;
    uint64_t reservations[2];  /* successful; plain read_pipe/write_pipe(p, ptr) count as one packet each */
    uint64_t failures[2];      /* not enough room (write) or data (read): the invalid reservation id */
    uint64_t retries[2];       /* attempts whose owner's previous attempt in that direction failed */
    uint64_t packets[2];       /* packets committed out of (read) / into (write) the pipe */
    uint64_t atomics;          /* operations on the pipe header (L2 atomics) */
    uint64_t unwritten_reads;  /* reserved packets read that no write_pipe had written */
    int64_t peak;              /* most slots in use at once */
    uint64_t total_cycles;     /* cycles observed (the run) */
    uint64_t empty_cycles;     /* cycles with no slot in use */
    uint64_t full_cycles;      /* cycles with every slot in use */
    uint64_t occupancy_sum;    /* slot-cycles */
    int64_t nbins;             /* histogram bins: min(capacity, 32) + 1 */
    uint64_t *bins;            /* cycles per bin; occupancy o is in bin o * (nbins - 1) / capacity */
} SimClPipeStats;

/* Named so that a unit's header can declare its merge function without
 * including this file (models/ headers include only sim/core). */
typedef struct SimStats {
    SimCycle cycles;         /* total simulated cycles (last warp exit) */
    int64_t warps;           /* resident warps, all blocks */
    int64_t blocks;
    int64_t threads_per_block;
    uint64_t *warp_state;    /* [warps][WS__COUNT] warp-cycles */
    uint64_t role_state[ROLE__COUNT][WS__COUNT];
    /* With SmOptions.by_line: [lines + 1][WS__COUNT] warp-cycles charged to
     * the trace line of the operation each warp was at (row 0: none, an
     * exited warp); else NULL.  Owned. */
    uint64_t *line_state;
    int64_t lines;
    /* With SmOptions.by_line: the same per stage for the lines of
     * block-scope pipeline calls (producer_acquire/commit, consumer_wait/
     * release, memcpy_async into a pipeline): [lines + 1] rows, each NULL
     * or [line_stage_slots][WS__COUNT] warp-cycles charged while the warp
     * was at that line's call on that stage slot.  A line's stage rows add
     * up to its line_state row (every warp-cycle at such a call has a
     * stage once the pipeline is made).  Owned, rows included. */
    uint64_t **line_stage;
    int64_t line_stage_slots;  /* the most stages of any pipeline_shared_state */
    uint64_t state_total[WS__COUNT];

    uint64_t instructions;   /* warp instructions issued */
    uint64_t compute_instructions;
    uint64_t control_instructions;
    uint64_t poll_instructions; /* mbarrier test_wait polls (sm_80), not issued on a scheduler */
    uint64_t events;         /* engine events handled */

    /* Overlap. */
    uint64_t copy_busy;      /* cycles at least one async copy was in flight */
    uint64_t compute_busy;   /* cycles at least one compute instruction issued */
    uint64_t both_busy;      /* cycles with both */

    /* Copies by engine. */
    uint64_t cp_async_instructions, cp_async_bytes, cp_async_lines, cp_async_sectors;
    uint64_t bulk_copies, bulk_bytes;
    uint64_t sync_copies, sync_bytes;  /* memcpy_async that fell back to synchronous copies */
    /* By direction: calls (a group's call counts once) and bytes copied on
     * any path; sync bytes are those of the synchronous fallback. */
    uint64_t dir_calls[SIM_DIR__COUNT], dir_bytes[SIM_DIR__COUNT], dir_sync_bytes[SIM_DIR__COUNT];
    uint64_t throttled_cycles;
    double peak_bytes_per_clk;         /* SM-to-L2 link rate */

    /* Memory path. */
    uint64_t l1_hits, l2_hits, l2_misses, merged;
    uint64_t bytes_l2, bytes_dram, bytes_written, bytes_written_back;
    double link_busy, dram_busy;

    /* Shared memory. */
    uint64_t smem_accesses, smem_wavefronts, smem_ideal_wavefronts, smem_conflict_accesses, smem_fill_wavefronts;
    uint64_t smem_max_degree;
    uint64_t smem_degree_hist[33];

    /* Barriers. */
    uint64_t syncthreads;    /* block barriers completed */
    uint64_t mbar_phases, mbar_waits;

    /* Pipelines (block scope), one per pipeline_shared_state used. */
    GPtrArray *stages;       /* SimStageStats* (owned) */

    /* OpenCL pipes, in declaration order (empty when the trace has none). */
    GPtrArray *cl_pipes;     /* SimClPipeStats* (owned) */

    /* Warnings about the program (race detector, slow paths), sorted. */
    GPtrArray *warnings;     /* char* (owned) */
    uint64_t race_warnings;
} SimStats;

void sim_stats_init(SimStats *s, int64_t warps);
void sim_stats_clear(SimStats *s);
SimStageStats *sim_stage_stats_new(const char *name, int64_t stages);
void sim_stage_stats_free(SimStageStats *st);
/* Adds from's instances, step and exposed distributions and occupancy to
 * into's (into->stages may be fewer: deeper occupancy is dropped). */
void sim_stage_stats_merge(SimStageStats *into, const SimStageStats *from);
/* A zeroed pipe record with its histogram.  Returns a new record. */
SimClPipeStats *sim_cl_pipe_stats_new(const char *name, int64_t capacity, int64_t packet_bytes);
void sim_cl_pipe_stats_free(SimClPipeStats *st);
