/* sm_internal.h: the state of a simulated SM, shared by sm.c (assembly,
 * scheduling, accounting), warp.c (the SIMT interpreter) and race.c.  Not
 * a public interface: sm.h is. */
#pragma once

#include "models/arch.h"
#include "models/barrier.h"
#include "models/bulk_copy.h"
#include "models/cl_pipe.h"
#include "models/copy_engine.h"
#include "models/mem_path.h"
#include "models/pipeline.h"
#include "models/scheduler.h"
#include "models/sm.h"
#include "models/smem.h"
#include "sim/engine.h"
#include "sim/expr_eval.h"
#include "sim/program.h"
#include "sim/stats.h"
#include "sim/timeline.h"

#define MAX_SPLITS 40
#define MAX_CHAINS 64

typedef enum {
    SPLIT_FREE,
    SPLIT_RUNNABLE,  /* may issue from ready_at on */
    SPLIT_BLOCKED,   /* waits on a barrier or a collective; woken by an event */
    SPLIT_PARKED     /* reached its reconvergence point; waits for its siblings */
} SplitStatus;

typedef enum {
    WAIT_NONE,
    WAIT_MBAR,       /* obj = block mbarrier index, value = parity or token */
    WAIT_BLOCK_BAR,
    WAIT_COLLECTIVE, /* make_pipeline's group sync: obj = pipe slot */
    WAIT_SYNCWARP,
    WAIT_CL_GROUP    /* an OpenCL work-group pipe built-in: the block's cl_pc */
} WaitKind;

/* A path of a warp: lanes executing the same operation.  A converged warp
 * has one; divergence creates more, which merge at reconvergence points. */
typedef struct {
    SplitStatus status;
    int32_t pc;              /* current operation */
    LaneMask mask;           /* its lanes */
    int32_t frame;           /* innermost reconvergence frame, or -1 */
    SimCycle ready_at;       /* RUNNABLE: earliest cycle to issue */
    SimWarpState wait_state; /* why it is not issuing (before ready_at, or blocked) */
    WaitKind wait;
    int32_t wait_obj;
    uint64_t wait_value;
    bool wait_token;
    SimCycle blocked_since;
    uint32_t gen;            /* bumped when blocked or woken: drops stale events */
    int8_t role;             /* cached SimRole of its lanes, -1 = unknown */
    /* Progress through a multi-instruction operation. */
    int32_t step;            /* 0 = not started */
    int64_t remaining;
    int64_t count;
    int64_t aux;
    int64_t aux2;            /* compute: the interleaved operations after pc */
    int32_t chain_next;      /* compute: the chain of the next instruction */
    int32_t cls;             /* compute: the arch instruction class */
} Split;

/* A reconvergence frame: lanes `mask` entered the construct ending at join. */
typedef struct {
    int32_t join;
    LaneMask mask;
    int32_t parent;
    bool used;
} Frame;

typedef struct {
    LaneMask mask;
    SimCycle done;
} CpGroup;

typedef struct Sm Sm;

typedef struct {
    Sm *sm;
    int32_t id;              /* SM-wide */
    int32_t block;
    int32_t index;           /* warp index within the block */
    int32_t smsp;
    int64_t tid0;            /* thread index of lane 0 */
    LaneMask exists;         /* lanes that are threads of the block */
    LaneMask live;           /* not exited */
    int64_t *vals;           /* variable slots */
    Split split[MAX_SPLITS];
    int32_t focus;           /* the split the warp runs */
    Frame *frames;
    int32_t nframes;
    bool queued;             /* in its scheduler's ready list */
    SimCycle busy_until;     /* end of its last issue */
    SimWarpState state;      /* accounting: current state and since when */
    SimRole role;
    int32_t line;            /* accounting with by_line or a timeline: the trace line charged since `since` */
    int32_t stage;           /* ... and the pipeline stage of that operation, or -1 (warp_op_place) */
    const char *barrier;     /* ... and the barrier it names, or NULL (borrowed from the program) */
    SimCycle since;
    SimCycle exit_cycle;
    SimCycle lane_open[SIM_WARP_SIZE];   /* uncommitted cp.async completion per lane */
    SimCycle lane_copies[SIM_WARP_SIZE]; /* every cp.async of the lane completed by then */
    GArray *groups;          /* CpGroup: committed cp.async groups, oldest first */
    SimCycle chain[MAX_CHAINS];
    SimCycle chains_done;    /* sched.chain_overlap: when the warp's compute chains in flight complete */
    uint32_t *data;          /* functional model: [var][lane][4] words, or NULL */
    LaneMask syncwarp_arrived;
    int timeline_track;
} Warp;


typedef struct {
    int32_t id;
    int32_t first_warp;
    int64_t threads;
    int64_t live_threads;
    MBarrier *mbars;         /* user barriers, then each pipeline_shared_state's */
    int32_t nmbars;
    int32_t *pstate_base;    /* first mbarrier of each pipeline_shared_state */
    BlockBarrier bar;
    Pipe *pipes;             /* one per make_pipeline operation */
    int32_t pending_make;    /* make_pipeline op whose group sync is open, or -1 */
    uint8_t *thread_role;    /* ROLEBIT_* of each thread (first block pipeline) */
    uint32_t role_version;
    uint8_t *data_smem;      /* functional model: shared-memory bytes, or NULL */
    /* The OpenCL work-group pipe built-in work-items are gathering in. */
    int32_t cl_pc;           /* its operation, or -1 */
    int64_t cl_arrived;      /* work-items arrived */
    int64_t cl_arg;          /* num_packets or reservation id of the first arrival */
    int64_t cl_arg_tid;      /* the first arrival, or -1 */
    uint8_t *cl_dir;         /* per OpenCL pipe: 0 unused, 1 read, 2 written by this work-group */
    uint32_t *cl_dir_line;   /* per OpenCL pipe: the line that fixed cl_dir */
} Block;

/* Work for an event that acts on a barrier later (async arrive, complete_tx). */
typedef enum {
    ACT_ARRIVE,              /* cp.async.mbarrier.arrive fires: arrive(count) */
    ACT_COMPLETE_TX          /* a bulk copy landed: complete_tx(bytes) */
} ActionKind;

typedef struct {
    ActionKind kind;
    int32_t block;
    int32_t mbar;
    int64_t amount;
    int32_t next_free;       /* free-list link */
    SrcLoc loc;
    int32_t warp;
    LaneMask lanes;          /* the threads whose copies these are (for messages) */
} Action;

struct Sm {
    const Program *prog;
    ArchParams arch;
    SmOptions opt;
    SimEngine engine;
    SimStats stats;
    Scheduler *smsp;
    int32_t *order;          /* scratch: ready warps in policy order */
    Warp *warps;
    int32_t nwarps;
    Block *blocks;
    int32_t nblocks;
    Smem smem;
    MemPath mem;
    CopyEngine cpa;
    BulkEngine bulk;
    int32_t *class_map;      /* Program.classes index -> arch class */
    int32_t *pipe_slot;      /* op index -> pipe slot, or -1 */
    int32_t *op_divs;        /* op index -> emulated divisions in its expressions */
    int32_t *op_fuse;        /* op index -> following compute ops it interleaves with */
    int32_t npipes;
    int64_t live_warps;
    SimCycle end_cycle;
    /* Overlap.  Copies are noted in issue order: the merged interval still
     * growing, and the closed ones not yet needed by finalisation. */
    SimCycle copy_from, copy_to;
    GArray *copy_closed;     /* SimCycle pairs [from, to), oldest first */
    guint copy_head;
    /* Cycles in which compute instructions issued, possibly ahead of the
     * engine's clock (batched chains), finalised once the engine has passed
     * them.  Each sub-partition issues in cycle order, so one queue each,
     * merged at finalisation. */
    GArray **compute_marks;  /* [subpartition] SimCycle queue */
    guint *mark_head;        /* [subpartition] first unfinalised entry */
    guint marks_pending;
    SimCycle last_mark;      /* last finalised compute cycle + 1 */
    int32_t *smsp_live;      /* warps with live threads per sub-partition */
    GArray *actions;
    MBarUnit mbar_unit;      /* arrivals and wake-ups every mbarrier shares */
    int32_t free_action;
    int64_t pending_actions;
    uint64_t ops_executed;
    GHashTable *warned;      /* warning keys already given */
    SimTimeline *tl;
    int *copy_tracks;        /* timeline tracks of copy lanes */
    SimCycle *copy_track_free;
    int ncopy_tracks;
    /* Race detector (race.c), or NULL. */
    struct RaceState *race;
    /* Functional model: global memory bytes, or NULL. */
    uint8_t *data_global;
    int64_t data_global_bytes;
    /* OpenCL pipes (cl_pipe.c), one per Program.pipes entry. */
    ClPipe *clpipes;
    int32_t nclpipes;
    int64_t cl_next_rid;     /* the next reservation id (ids start at 1; 0 is invalid) */
};

/* sm.c */
void sm_account(Warp *w, SimWarpState st, SimCycle at);
void sm_account_flush(Warp *w, SimCycle at);
void sm_warp_schedule(Sm *sm, Warp *w);
void sm_split_wake(Sm *sm, Warp *w, int32_t split, SimCycle at);
void sm_fail(Sm *sm, GError *err);
void sm_note_compute(Sm *sm, int32_t smsp, SimCycle at);
/* An asynchronous copy in flight over [from, to): overlap statistics and
 * the timeline's copy slice (args->bytes is its size).  Returns the slice's
 * timeline track (for sim_timeline_flow_start), or 0 when none. */
int sm_note_copy(Sm *sm, SimCycle from, SimCycle to, const char *what, const SimSliceArgs *args);
/* A shared-memory access at cycle `at` replayed `replays` wavefronts (timeline counter). */
void sm_note_smem_replays(Sm *sm, SimCycle at, int64_t replays);
void sm_schedule_action(Sm *sm, SimCycle at, ActionKind kind, int32_t block, int32_t mbar, int64_t amount,
                        SrcLoc loc, int32_t warp, LaneMask lanes);
void sm_warn(Sm *sm, const char *key, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
char *sm_describe_lanes(const Warp *w, LaneMask m);
char *sm_describe_mbar(const Sm *sm, int32_t block, int32_t mbar);
SimRole sm_split_role(Sm *sm, Warp *w, Split *s);

/* warp.c */
typedef enum {
    ISSUE_NOTHING,           /* nothing issued (waits, or its path parked/exited) */
    ISSUE_DONE               /* issued; the split's next state is set */
} IssueResult;

/* The earliest cycle >= now at which the warp's next instruction could
 * issue, given its pipe and dependencies (now when nothing holds it). */
SimCycle warp_issue_time(Sm *sm, Warp *w, SimCycle now);
/* Runs the warp's focus split from cycle now; returns the issue cycles used. */
int64_t warp_issue(Sm *sm, Warp *w, SimCycle now);
/* SimEngine.live: false for the time-out of a wait that has ended. */
bool warp_event_live(const SimEvent *ev);
/* Where the operation at pc of warp w's focus path works: the stage slot
 * of a block-scope pipeline call (-1 otherwise) and the name of the barrier
 * it names (NULL otherwise; borrowed from the program or static). */
void warp_op_place(Sm *sm, const Warp *w, int32_t pc, int32_t *stage, const char **barrier);
/* The barrier wake callback (BarrierWakeFn). */
void warp_barrier_wake(void *ctx, const BarrierWaiter *waiter, SimCycle now);
/* Picks the split the warp should run (after its focus stopped). */
void warp_refocus(Warp *w);
/* Threads of mask leave: barriers, pipelines, merges. */
void warp_lanes_exit(Sm *sm, Warp *w, int32_t split, LaneMask mask, SimCycle now);
/* End of run: warnings about OpenCL reservations never committed. */
void warp_cl_finish(Sm *sm);
