/* warp.h: a warp of the SM and the SIMT interpreter that runs it.
 *
 * A Warp holds its lanes' variables, its paths (Split: lanes executing the
 * same operation) and reconvergence frames, its accounting state and its
 * cp.async bookkeeping.  The interpreter is split by operation family, each
 * in its own file pair:
 *   warp.c        issue loop and dispatch, control flow, thread exit, the
 *                 helpers every family uses (errors, operands, variables)
 *   simt.c        divergence and reconvergence (splits and frames)
 *   sync.c        mbarrier operations, __syncthreads, __syncwarp, cg waits
 *   pipe_exec.c   cuda::pipeline's protocol (make_pipeline, acquire, ...)
 *   async_copy.c  memcpy_async dispatch and cp.async commit groups
 *   ldst.c        loads, stores and expect with the functional memory
 *   compute.c     compute chains
 *   cl_exec.c     OpenCL pipe built-ins
 * The SM (sm.c, sm_internal.h) owns the warps and schedules them; a warp's
 * fields are written only by the interpreter, except the accounting fields
 * (state, role, line, since), which sm_account() keeps (sm_internal.h, its
 * general path sm_account_place in sm.c). */
#pragma once

#include "sim/core/engine.h"
#include "sim/lang/expr_eval.h"
#include "sim/lang/program.h"
#include "sim/out/stats.h"

typedef struct Sm Sm;
typedef struct Block Block;
typedef struct Warp Warp;

#define MAX_SPLITS 40
#define MAX_CHAINS 64
/* A warp's accounting key (warp_acct_key): the state in the low bits, the
 * role above; state_cycles has WARP_ACCT_STATES cells a role. */
#define WARP_ACCT_SHIFT 4
#define WARP_ACCT_STATES (1 << WARP_ACCT_SHIFT)
G_STATIC_ASSERT(WS__COUNT <= WARP_ACCT_STATES);
/* The operations one warp_issue interprets at most (a run of control
 * statements that issue nothing): the --max-ops count grows by no more
 * a call (sm_batch.c bounds it so). */
#define WARP_MAX_CONTROL_RUN 512

typedef enum {
    SPLIT_FREE,
    SPLIT_RUNNABLE,  /* may issue from ready_at on */
    SPLIT_BLOCKED,   /* waits on a barrier or a collective; woken by its timers */
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
 * has one; divergence creates more, which merge at reconvergence points.
 * Its timers are armed only while it is BLOCKED (simt_check): the first to
 * fire makes it runnable and cancels the other. */
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
    SimTimer wake;           /* its wake-up, the earliest asked for (sm_split_wake) */
    SimTimer deadline;       /* a wait_for's time-out (pipe_exec.c) */
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

struct Warp {
    Sm *sm;
    int32_t id;              /* SM-wide */
    int32_t block;
    int32_t index;           /* warp index within the block */
    int32_t smsp;
    int64_t tid0;            /* thread index of lane 0 */
    LaneMask exists;         /* lanes that are threads of the block */
    LaneMask live;           /* not exited */
    int64_t *vals;           /* variable slots */
    /* The fields every issue reads (scheduling and accounting) come before
     * the splits, so that they share cache lines with split[0], the focus
     * of a converged warp: a Warp is about 6 KB. */
    int32_t focus;           /* the split the warp runs */
    bool queued;             /* in its scheduler's ready list */
    bool roles_fixed;        /* every thread of the warp has its role byte
                              * (sm_batch.c's warp_roles_fixed, once true) */
    SimCycle busy_until;     /* end of its last issue */
    SimCycle smem_next;      /* its path to shared memory takes its next access from here: a copy of
                              * smem_warp_next's, kept here for ldst_issue_floor, which every ready
                              * time asks (read from Smem, the guide kernel took 0.25% more host
                              * instructions) */
    int64_t smem_addr;       /* the address arithmetic's cycles at that access (ldst_issue_floor) */
    int32_t acct;            /* accounting: the role and state charged since `since`,
                              * warp_acct_key's (read with warp_acct_state and
                              * warp_acct_role) */
    int32_t line;            /* accounting with by_line or a timeline: the trace line charged since `since` */
    int32_t stage;           /* ... and the pipeline stage of that operation, or -1 (warp_op_place) */
    const char *barrier;     /* ... and the barrier it names, or NULL (borrowed from the program) */
    SimCycle since;
    Split split[MAX_SPLITS];
    int32_t nsplits;         /* splits from nsplits on are free (simt_split_new takes the
                              * lowest free one and raises it): the passes over the
                              * splits stop there */
    Frame *frames;
    int32_t nframes;
    SimCycle exit_cycle;
    /* Accounting: the warp-cycles charged so far to each role and state
     * (sm_account), one add a change at index warp_acct_key(role, state);
     * sm.c's close_accounting adds them to SimStats' warp_state and
     * role_state when the run ends. */
    uint64_t state_cycles[ROLE__COUNT * WARP_ACCT_STATES];
    /* A lane's uncommitted cp.async completion is MAX(lane_open[l],
     * open_all), and every cp.async of the lane completed by MAX(
     * lane_copies[l], copies_all): a copy of every lane raises the warp's
     * floor, not 32 entries (async_copy.c).  copies_max is the largest
     * cycle either ever held, so every lane's copies are done by then
     * (lane_copies only grow). */
    SimCycle lane_open[SIM_WARP_SIZE];
    SimCycle lane_copies[SIM_WARP_SIZE];
    SimCycle open_all, copies_all, copies_max;
    /* sched.mma_shadow: issue slots its last hmma chains left between
     * their links, which its following control statements and library
     * calls take instead of their own (warp_issue). */
    int64_t mma_free;
    /* Stores into vals so far: what was computed from them holds while
     * this has not changed.  copy_memo: memcpy_async's operands, uniform,
     * as split `split` evaluated them for the operation at `pc` when
     * vals_writes was `writes` (async_copy.c: a copy's later steps read
     * them instead of evaluating again). */
    uint64_t vals_writes;
    struct {
        bool valid;
        int32_t split, pc;
        uint64_t writes;
        int64_t dst, src, size;
    } copy_memo;
    GArray *groups;          /* CpGroup: committed cp.async groups, oldest first */
    uint64_t group_commits;  /* cp.async groups committed so far (numbers them for the timeline) */
    SimCycle chain[MAX_CHAINS];
    SimCycle chains_done;    /* sched.chain_overlap: when the warp's compute chains in flight complete */
    uint32_t *data;          /* functional model: [var][lane][4] words, or NULL */
    LaneMask syncwarp_arrived;
    int timeline_track;
    bool wait_yields;        /* sched.wait_yields (simt.c's try_merge) */
};

/* How one interpreted step ended.  Every family's exec function (name_exec*)
 * runs one step of the operation split `si` of warp w is at, at cycle t: it
 * returns how the step ended and sets *cost to the issue slots it used. */
typedef enum {
    STEP_CONTINUE,  /* a control operation ran; go on with the warp's focus */
    STEP_ISSUED,    /* an instruction issued; the split's next state is set */
    STEP_WAIT,      /* nothing issued: the split waits (ready_at or blocked) */
    STEP_STOP       /* the run failed */
} StepResult;

/* A warp's accounting key: its role and state in one number, so that
 * sm_account's test for a change is one compare and its add one index
 * (docs/performance.md, item 27): the state in the low WARP_ACCT_SHIFT
 * bits, the role above. */
static inline int32_t warp_acct_key(SimRole role, SimWarpState st)
{
    return (int32_t) role << WARP_ACCT_SHIFT | (int32_t) st;
}

/* The state and the role a warp's cycles are charged to since `since`. */
static inline SimWarpState warp_acct_state(const Warp *w)
{
    return (SimWarpState) (w->acct & (WARP_ACCT_STATES - 1));
}

static inline SimRole warp_acct_role(const Warp *w)
{
    return (SimRole) (w->acct >> WARP_ACCT_SHIFT);
}

static inline int lane_count(LaneMask m)
{
    /* A converged warp's mask, the usual one, without the popcount:
     * without a popcnt instruction in the default target it is a call
     * into libgcc. */
    return m == ~(LaneMask) 0 ? SIM_WARP_SIZE : __builtin_popcount(m);
}

/* The lowest lane of m (0 for an empty mask). */
static inline int lane_lowest(LaneMask m)
{
    return m ? __builtin_ctz(m) : 0;
}

/* The lanes of the tiles of `lanes` threads (a power of two up to 32) that
 * mask m touches. */
static inline LaneMask lane_tiles(LaneMask m, int64_t lanes)
{
    LaneMask one = lanes >= SIM_WARP_SIZE ? ~(LaneMask) 0 : ((LaneMask) 1 << lanes) - 1;
    LaneMask out = 0;
    for (int64_t l = 0; l < SIM_WARP_SIZE; l += lanes) {
        if (m & (one << l)) {
            out |= one << l;
        }
    }
    return out;
}

/* ------------------------------------------------- for sm.c (warp.c) */

/* The earliest cycle >= now at which the warp's next instruction could
 * issue, given its pipe and dependencies (now when nothing holds it). */
SimCycle warp_issue_time(Sm *sm, Warp *w, SimCycle now);
/* Where the operation at pc of warp w's focus path works: the stage slot
 * of a block-scope pipeline call (-1 otherwise) and the name of the barrier
 * it names (NULL otherwise; borrowed from the program or static). */
void warp_op_place(Sm *sm, const Warp *w, int32_t pc, int32_t *stage, const char **barrier);
/* The name of user barrier mbar (borrowed from the program), or NULL for a
 * pipeline's. */
const char *warp_barrier_name(const Sm *sm, int32_t mbar);
/* The timeline track of block b's barrier phases (instant events). */
int warp_barrier_track(Sm *sm, int32_t block);
/* Runs the warp's focus split from cycle now; returns the issue cycles
 * used, having charged the warp's state from then on, or -1 when the run
 * failed on the way (the cycles used then no longer matter).  The caller
 * has charged the warp's cycles up to now and set it issuing
 * (sm_account(w, WS_ISSUING, now)), and on a return of 0 or more returns
 * the warp to its scheduler (sm_warp_schedule), where arbitration inlines
 * it. */
int64_t warp_issue(Sm *sm, Warp *w, SimCycle now);
/* Threads of mask leave: barriers, pipelines, merges. */
void warp_lanes_exit(Sm *sm, Warp *w, int32_t split, LaneMask mask, SimCycle now);

/* ------------------------------- for the operation families (warp.c) */

/* Fails the run with a rule violation by lanes of w at loc (SM-owned error,
 * sm_fail).  Always returns STEP_STOP. */
StepResult warp_fail(Sm *sm, Warp *w, LaneMask lanes, SrcLoc loc, int code, const char *fmt, ...)
    G_GNUC_PRINTF(6, 7);
#define RULE(sm, w, m, op, ...) warp_fail((sm), (w), (m), (op)->loc, SIM_ERROR_PROGRAM, __VA_ARGS__)
/* Evaluates n for lanes m into *out; false (run failed) on an arithmetic error. */
bool warp_eval(Sm *sm, Warp *w, LaneMask m, const Op *op, const ExprNode *n, SimLaneValue *out);
/* n's value for every lane of m when n is uniform (!n->varying), m is not
 * empty and the evaluation does not fail, without a lane vector; false
 * otherwise (nothing reported: warp_eval then evaluates and reports). */
static inline bool warp_eval_uniform(const Warp *w, LaneMask m, const ExprNode *n, int64_t *out)
{
    if (n->varying || m == 0) {
        return false;
    }
    SimEvalEnv env = { w->vals, w->tid0, w->index, w->block };
    return sim_eval_uniform(n, &env, out);
}
/* The value of a uniform-per-warp operand: all lanes of m must agree. */
bool warp_eval_same(Sm *sm, Warp *w, LaneMask m, const Op *op, const ExprNode *n, const char *what, int64_t *out);
/* Stores lanes m of val (or one value) into variable v. */
void warp_store_var(Warp *w, const ProgVar *v, LaneMask m, const SimLaneValue *val);
void warp_store_lanes(Warp *w, const ProgVar *v, LaneMask m, int64_t value);
