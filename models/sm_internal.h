/* sm_internal.h: the state of a simulated SM, shared by sm.c (assembly,
 * scheduling, accounting), sm_batch.c, sm_messages.c, sm_overlap.c and the
 * interpreter's files (warp.h lists them).
 * Not a public interface: sm.h is.  sm.c builds and frees everything here;
 * the services below are the SM's, which the interpreter calls. */
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
#include "sim/core/engine.h"
#include "sim/lang/expr_eval.h"
#include "sim/lang/program.h"
#include "sim/out/stats.h"
#include "sim/out/timeline.h"

#include "models/warp.h"

struct Block {
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
};

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

/* The SM.  Who writes what (everything is built by sm_new and freed by
 * sm_free, in sm.c):
 *  - prog, arch, opt and the per-operation tables (class_map, pipe_slot,
 *    op_divs, op_fuse, npipes): fixed after sm_new.
 *  - engine: driven by sm_run; the interpreter arms its own timers (a
 *    wait_for's time-out, pipe_exec.c) and asks the SM for events
 *    (sm_schedule_action) and wake-ups (sm_split_wake).
 *  - smsp, arbitration, deciding and decision_*, order, ready_base, ready_cls: sm.c's arbitration; each Scheduler's pipe_free belongs to
 *    compute.c, which issues the instruction classes; replay and, while a
 *    closed batch runs, its sub-partition's arbitration timer, scheduler
 *    and warps: sm_batch.c.
 *  - warps, blocks: the interpreter (warp.h lists its files), except each
 *    warp's accounting fields (sm_account) and `queued` (sm.c).
 *  - smem, mem, cpa, bulk, mbar_unit: the units of models/, called by the
 *    interpreter; clpipes and cl_next_rid: cl_exec.c; race: race.c.
 *  - live_warps, smsp_live, end_cycle, ops_executed: warp.c (thread exit,
 *    issue).
 *  - the overlap intervals (copy_*, compute_marks, mark_head, marks_pending,
 *    last_mark), actions, warned and the timeline tracks: sm.c, through
 *    the services declared below.
 *  - stats: counters incremented by every file; sm.c finalises them.
 *  - data_global: the functional model's bytes (ldst.c, async_copy.c,
 *    cl_exec.c). */
/* A growable array of cycles, appended inline: a compute mark is noted
 * per issued compute instruction, and g_array_append_val's call cost 5%
 * of the host time of small programs. */
/* Words of the window sm_finalize_overlap merges the compute marks in. */
#define SM_OVERLAP_WORDS 64

/* Compute marks pending finalisation beyond which sm_note_compute_slow
 * finalises them, so the queues stay short between copies. */
#define SM_MARKS_PENDING_MAX 4096

typedef struct {
    SimCycle *v;   /* owned */
    guint len;
    guint cap;
} CycleQueue;

/* Decisions a closed sub-partition's batch may take ahead of the clock
 * (sm_batch.c): room for many periods of a steady state (period_jump),
 * 8 KB of replay cycles a sub-partition (256 before: a batch's length
 * changes no decision, only where one batch ends and the next starts). */
#define SM_REPLAY_MAX 1024

/* The cycles after a batch's first decision before which no warp at
 * another statement than a chain may be ready, and no warp not queued may
 * join, for the batch to be tried (sm.c's arbitrate and sm_batch.c): a
 * batch ends there, and a shorter one does not repay its set-up.  Tried 0
 * to 8 and 16 (docs/performance.md, items 24, 39 and 40): 2 fewest host
 * instructions, 8 least wall time. */
#define SM_BATCH_GAP 8

/* The chain warps and the chains a warp a closed batch's steady state
 * (sm_batch.c's batch_period) is looked for with, at most. */
#define SM_PERIOD_WARPS 16
#define SM_PERIOD_CHAINS 8

/* One chain warp's state in a closed batch's snapshot (sm_batch.c's
 * BatchPeriod): its cycles less the snapshot's clock, so that two
 * snapshots a period apart compare equal. */
typedef struct {
    SimCycle rel[4 + SM_PERIOD_CHAINS]; /* slot_base, ready_at, busy_until, since, then its
                              * chains' results from Split.chain_next on */
    int32_t acct;            /* Warp.acct */
    int32_t wait_state;      /* Split.wait_state */
    int64_t remaining;       /* Split.remaining (not compared: it only falls) */
    uint64_t cycles[WARP_ACCT_STATES]; /* state_cycles of its role (the period's adds are the difference) */
} PeriodWarp;

/* A closed batch's snapshot, taken before decision n at cycle t, for
 * finding its steady state (sm_batch.c's batch_period). */
typedef struct {
    int32_t n;
    SimCycle t;
    int32_t last_slot;
    SimCycle last_end_rel;   /* last_end - t */
    SimCycle pf_rel;         /* the pipe's next free cycle - t */
    uint64_t superseded;     /* SimEngine.superseded then */
    int32_t nwarps;
    int32_t span;            /* the chain warps: a period's likely length in decisions */
    PeriodWarp w[SM_PERIOD_WARPS];
} BatchPeriod;

/* A sub-partition's decisions taken ahead of the clock whose events are
 * still to come: at[0 .. n) are the cycles of the decisions after each of
 * them, in order, its arbitration timer's chain (sim_engine_timer_chain)
 * while they replay; `period` is the batch's scratch. */
typedef struct {
    SimCycle at[SM_REPLAY_MAX];
    BatchPeriod period;
} DecisionReplay;

/* An operation pre-decoded once for the issue loop (Sm.op_flags, set by
 * sm_new from the program and the architecture, fixed after it): what
 * warp.c's every step asked of the operation by switching over its code
 * (docs/performance.md, item 34).  Each bit is a fact about the operation
 * alone; a clear bit means the test it stands for can only fail. */
typedef enum {
    /* sched.chain_overlap is on and the operation is a thread's exit, which
     * waits for the warp's compute chains in flight (warp.c's chains_drain). */
    SM_OP_DRAINS = 1 << 0,
    /* A control statement, charged sched.control_issue, whose dependent chain
     * the next operation waits for (warp.c's warp_issue). */
    SM_OP_CONTROL = 1 << 1,
    /* Starting it may pay issue slots beyond its own: divisions
     * (op_divs > 0) or library code (warp.c's library_issue). */
    SM_OP_START_COST = 1 << 2,
    /* The join of a branch or a loop: the only operations a reconvergence
     * frame's join can name (warp.c makes every frame, from one of them). */
    SM_OP_JOIN = 1 << 3,
    /* A compute operation (OP_COMPUTE). */
    SM_OP_COMPUTE = 1 << 4,
    /* A compute operation or control the compiler folded away
     * (op_unrolled): greedy keeps its slot for a warp whose next
     * operation is one (sm.c's issue_taken). */
    SM_OP_KEEPS_SLOT = 1 << 5,
    /* A control statement or a pipeline call: under sched.mma_shadow it
     * takes the slots the warp's last hmma chains left (warp.c's
     * take_mma_free). */
    SM_OP_SHADOWED = 1 << 6
} SmOpFlag;

/* Instruction counts whose issue cycles Sm.int_cycles holds. */
#define SM_INT_CYCLES 64

struct Sm {
    const Program *prog;
    const Op *ops;           /* prog->ops' elements (borrowed; the program's ops do not change after sm_new) */
    ArchParams arch;
    SmOptions opt;
    SimEngine engine;
    SimStats stats;
    Scheduler *smsp;
    SimTimer *arbitration;   /* [subpartition] its next issue decision (sm.c) */
    /* The sub-partition whose issue decision is running, or -1: requests for
     * its next decision are gathered here and its timer is armed once, when
     * the decision ends (decision_armed: a request stands, due at
     * decision_at with the sequence number its arming reserved). */
    int32_t deciding;
    bool decision_armed;
    SimCycle decision_at;
    uint64_t decision_seq;
    int32_t *order;          /* scratch: the ready list as a decision read it, once a visit changed it */
    /* [subpartition] the decisions a closed batch took ahead of the clock
     * (sm_batch.c), replayed in cycle order as its arbitration timer's
     * chain; batch_ok: the run allows such batches (the event engine, no
     * timeline, no per-line accounting, no OpenCL pipes, every arbitration
     * timer bound to a slot and every scheduler in mask mode: set by
     * sm_run). */
    DecisionReplay *replay;
    bool batch_ok;
    /* [warp id] while the warp is queued: the part of its ready time that
     * only its own issue changes (its split's ready_at, its busy_until and
     * a started chain's input) and the instruction class whose pipe it
     * waits for, or arch.nclasses (the scheduler's pipe_free slot that
     * stays 0) when none; set when it joins its list (sm_warp_schedule), so
     * that arbitration reads two compact arrays instead of each warp. */
    SimCycle *ready_base;
    int32_t *ready_cls;
    Warp *warps;
    int32_t nwarps;
    Block *blocks;
    int32_t nblocks;
    Smem smem;
    MemPath mem;
    CopyEngine cpa;
    BulkEngine bulk;
    int32_t *class_map;      /* Program.classes index -> arch class */
    int32_t shadow_cls;      /* sched.mma_shadow: the arch class of hmma, else -1 */
    int32_t *pipe_slot;      /* op index -> pipe slot, or -1 */
    int32_t *op_divs;        /* op index -> emulated divisions it runs (a loop entry: its invariant ones) */
    /* A control statement's issue cycles (sched.control_issue x int_cpi) and
     * a load's or store's address arithmetic (sched.addr_issue x int_cpi);
     * [1]: for a warp alone on its sub-partition (x int_cpi_alone). */
    int64_t control_cycles[2];
    int64_t addr_cycles[2];
    /* The issue cycles of n integer instructions (n x int_cpi, rounded),
     * for n < SM_INT_CYCLES: the library code around a call (warp.c's
     * int_issue), without a rounding call each time. */
    int64_t int_cycles[2][SM_INT_CYCLES];
    int32_t *op_fuse;        /* op index -> following compute ops it interleaves with */
    bool *op_rt_unrolled;    /* op index -> OP_LOOP_ENTER of a loop unrolled with a computed trip count */
    bool *op_unrolled;       /* op index -> control folded away (a constant-trip loop unrolled, a branch on a constant) */
    uint8_t *op_flags;       /* op index -> what every step asks of the operation, pre-decoded (SmOpFlag) */
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
    CycleQueue *compute_marks; /* [subpartition] */
    guint *mark_head;        /* [subpartition] first unfinalised entry */
    guint marks_pending;
    guint marks_fast;        /* sm_note_compute takes its fast path while
                              * marks_pending is below it: SM_MARKS_PENDING_MAX,
                              * or 0 under check_invariants (one test, not two) */
    SimCycle last_mark;      /* last finalised compute cycle + 1 */
    uint64_t overlap_bits[SM_OVERLAP_WORDS]; /* sm_finalize_overlap's window; 0 between calls */
    int32_t *smsp_live;      /* warps with live threads per sub-partition */
    GArray *actions;
    MBarUnit mbar_unit;      /* arrivals and wake-ups every mbarrier shares */
    int32_t free_action;
    int64_t pending_actions;
    uint64_t ops_executed;
    uint64_t ops_limit;      /* opt.max_ops, or UINT64_MAX for none: warp.c's
                              * count and test in one */
    GHashTable *warned;      /* warning keys already given */
    SimTimeline *tl;
    bool account_place;      /* accounting follows line, stage and barrier
                              * (--by line or a timeline): sm_account's
                              * general path (set by sm_new) */
    int *copy_tracks;        /* timeline tracks of copy lanes */
    SimCycle *copy_track_free;
    int ncopy_tracks;
    /* Race detector (race.c), or NULL. */
    struct RaceState *race;
    /* Functional model: global memory bytes, or NULL. */
    uint8_t *data_global;
    int64_t data_global_bytes;
    /* OpenCL pipes (cl_pipe.c, run by cl_exec.c), one per Program.pipes entry. */
    ClPipe *clpipes;
    int32_t nclpipes;
    int64_t cl_next_rid;     /* the next reservation id (ids start at 1; 0 is invalid) */
};

/* sm.c */
/* Charges [since, at) to the warp's current state and enters state st at
 * cycle `at` (no earlier than since) with its focus path's role, and with
 * account_place its operation's line, stage and barrier; nothing happens
 * while all of them stay the same.  sm_account is its inline fast path. */
void sm_account_place(Warp *w, SimWarpState st, SimCycle at);
void sm_account_flush(Warp *w, SimCycle at);
void sm_warp_schedule(Sm *sm, Warp *w);
/* Wakes w's blocked path `split` at cycle `at` (no earlier than now), on
 * its wake timer: of several requests, the earliest stands. */
void sm_split_wake(Sm *sm, Warp *w, int32_t split, SimCycle at);
void sm_fail(Sm *sm, GError *err);
/* Counts the compute marks and copy intervals before cycle upto (all of
 * them at SIM_CYCLE_NEVER, when the run ends) into the overlap statistics
 * (sm_overlap.c). */
void sm_finalize_overlap(Sm *sm, SimCycle upto);
/* Notes a compute instruction issued by sub-partition smsp at cycle `at`
 * (no earlier than its last), for the overlap statistics.
 * sm_note_compute is its inline fast path: one per compute instruction. */
void sm_note_compute_slow(Sm *sm, int32_t smsp, SimCycle at);
static inline void sm_note_compute(Sm *sm, int32_t smsp, SimCycle at)
{
    CycleQueue *q = &sm->compute_marks[smsp];
    if (G_UNLIKELY(q->len == q->cap || sm->marks_pending >= sm->marks_fast)) {
        sm_note_compute_slow(sm, smsp, at);
        return;
    }
    q->v[q->len++] = at;
    sm->marks_pending++;
}
/* Room for n more marks in sub-partition smsp's queue, growing it if need
 * be (the queue's capacity changes nothing else).  Returns where the next
 * mark goes (owned by the queue, valid until the queue next changes); the
 * caller writes up to n marks there, in cycle order and none before the
 * clock, and then hands their count to sm_note_compute_many. */
void sm_note_compute_grow(Sm *sm, int32_t smsp, guint n);
static inline SimCycle *sm_note_compute_room(Sm *sm, int32_t smsp, guint n)
{
    CycleQueue *q = &sm->compute_marks[smsp];
    if (G_UNLIKELY(q->cap - q->len < n)) {
        sm_note_compute_grow(sm, smsp, n);
    }
    return &q->v[q->len];
}
/* Notes the n marks written at sm_note_compute_room's answer, as n calls
 * of sm_note_compute would: the finalisation those would start once more
 * than SM_MARKS_PENDING_MAX are pending counts only marks before the
 * clock (sm_finalize_overlap at engine.now), so none of these, and a later
 * call finds nothing more to count; one call at the end counts the same.
 * Not under check_invariants, whose sm_note_compute checks each mark. */
static inline void sm_note_compute_many(Sm *sm, int32_t smsp, guint n)
{
    sm->compute_marks[smsp].len += n;
    sm->marks_pending += n;
    if (G_UNLIKELY(sm->marks_pending > SM_MARKS_PENDING_MAX)) {
        sm_finalize_overlap(sm, sm->engine.now);
    }
}
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
/* Sets *error to the deadlock at the clock: every path of the warps still
 * live, where it is and what it waits for (the first 24). */
void sm_deadlock_error(Sm *sm, GError **error);
SimRole sm_split_role(Sm *sm, Warp *w, Split *s);
/* Sub-partition smsp's arbitration timer fired: its issue decision, and
 * those due after it without a return to the engine's loop (the timer is
 * idle again; sm_batch.c arms it with this handler and compares events'
 * handlers with it). */
void sm_ev_arbitrate(void *target, uint64_t smsp, SimCycle now);
/* Under check_invariants (g_error if it fails): the cached ready time t of
 * warp w at cycle now, if queued, is the one its state gives; queued warp
 * w's issue time from cycle `eligible` on, as the cache gives it, is t. */
void sm_check_ready_cache(Sm *sm, Warp *w, SimCycle now, SimCycle t);
void sm_check_issue_cache(Sm *sm, Warp *w, SimCycle eligible, SimCycle t);

/* The role sm_account charges w's cycles to: its focus path's, the
 * split's cached one when it has it, ROLE_NONE once the warp exited. */
static inline SimRole sm_warp_role(Warp *w)
{
    if (!w->live) {
        return ROLE_NONE;
    }
    Split *s = &w->split[w->focus];
    return s->status != SPLIT_FREE && s->mask != 0 && s->role >= 0 ? (SimRole) s->role
                                                                 : sm_split_role(w->sm, w, s);
}

/* The forms of sm_account_form, a constant at each call so that each is
 * its own code: SM_ACCOUNT_ANY asks account_place (sm_account_place's
 * general path when set); SM_ACCOUNT_PLAIN is for a caller that knows it
 * unset (a closed batch's, batch_ok), and asks nothing; SM_ACCOUNT_CHAIN
 * is SM_ACCOUNT_PLAIN for a warp that sm_catch_up knows to be at a compute
 * chain, whose wait for its pipe is a math throttle (a closed batch's
 * steps), so that it need not read the warp's cached class. */
typedef enum {
    SM_ACCOUNT_ANY,
    SM_ACCOUNT_PLAIN,
    SM_ACCOUNT_CHAIN
} SmAccountForm;

/* Charges [since, at) to the warp's current state and enters state st
 * with role `role` (sm_warp_role(w), asked since the last change of w's
 * focus path or its lanes: a caller that accounts several states in a
 * row asks once); nothing happens while both stay the same.  `form`:
 * see SmAccountForm.  Inlined by the compiler's choice, not forced:
 * forced, sm.c's catch_up cost 0.2% more host instructions (callgrind). */
static inline void sm_account_form(Warp *w, SimWarpState st, SimCycle at, SimRole role,
                                   SmAccountForm form)
{
    if (G_UNLIKELY(form == SM_ACCOUNT_ANY && w->sm->account_place)) {
        sm_account_place(w, st, at);
        return;
    }
    int32_t key = warp_acct_key(role, st);
    if (key == w->acct) {
        return;
    }
    SimCycle since = w->since;
    if (at > since) {
        w->state_cycles[w->acct] += at - since;
        w->since = at;
    }
    w->acct = key;
}

/* sm_account with the role already known (see sm_account_form). */
static inline void sm_account_as(Warp *w, SimWarpState st, SimCycle at, SimRole role)
{
    sm_account_form(w, st, at, role, SM_ACCOUNT_ANY);
}

/* sm_account_place without line, stage and barrier, which stay 0, -1 and
 * NULL without account_place, inline: every issue changes a warp's state
 * two or three times.  The role is the split's cached one when it has
 * it. */
static inline void sm_account(Warp *w, SimWarpState st, SimCycle at)
{
    if (G_UNLIKELY(w->sm->account_place)) {
        sm_account_place(w, st, at);
        return;
    }
    sm_account_as(w, st, at, sm_warp_role(w));
}

/* Brings a queued warp's accounting up to cycle now, where it issues:
 * after its own wait (ready_at) it was throttled by its pipe, then not
 * selected; from now on it is issuing (warp_issue goes on from there).
 * Nothing changes the warp's path meanwhile: its role, `role`, is asked
 * once.  Inlined in each decision's visit (sm.c's, and a closed batch's
 * in sm_batch.c): called, it costs more than it does.  `pipe` is the
 * warp's cached issue time without the clock, MAX(ready_base,
 * pipe_free[ready_cls]), which the visit has read; `checks` is
 * opt.check_invariants (see sm.c's arbitrate) and `form`
 * sm_account_form's, both constants at each call. */
G_ALWAYS_INLINE static inline void sm_catch_up(Sm *sm, Warp *w, SimCycle now, SimCycle pipe, SimRole role, bool checks,
                                               SmAccountForm form)
{
    const Split *s = &w->split[w->focus];
    SimCycle eligible = MAX(s->ready_at, w->busy_until);
    if (eligible < now) {
        /* pipe is warp_issue_time(sm, w, eligible), from the cache:
         * ready_base is eligible or, for a started chain, the chain's
         * input if later, or for a shared-memory load or store its path's
         * floor (ldst_issue_floor) if later. */
        if (G_UNLIKELY(checks)) {
            g_assert(form != SM_ACCOUNT_CHAIN || sm->ready_cls[w->id] < sm->arch.nclasses);
            sm_check_issue_cache(sm, w, eligible, pipe);
        }
        if (pipe > eligible) {
            /* A compute statement's pipe, or a load's or store's path
             * (ldst_issue_floor: the only wait of another statement). */
            sm_account_form(w,
                            form == SM_ACCOUNT_CHAIN || sm->ready_cls[w->id] < sm->arch.nclasses
                                ? WS_MATH_THROTTLE
                                : WS_MIO_THROTTLE,
                            eligible, role, form);
            eligible = pipe;
        }
        if (eligible < now) {
            sm_account_form(w, WS_NOT_SELECTED, eligible, role, form);
        }
    }
    sm_account_form(w, WS_ISSUING, now, role, form);
}

/* sm_batch.c */
/* A closed sub-partition's decisions taken ahead of the clock, after
 * sm.c's arbitrate took smsp's decision at the clock (s is
 * &sm->smsp[smsp]): see sm_batch.c.  _checked is the copy for
 * check_invariants' runs. */
void sm_batch_closed(Sm *sm, Scheduler *s, int32_t smsp);
void sm_batch_closed_checked(Sm *sm, Scheduler *s, int32_t smsp);

/* The program's operation pc and variable i. */
static inline const Op *sm_op(const Sm *sm, int32_t pc)
{
    return &sm->ops[pc];
}

static inline const ProgVar *sm_var(const Sm *sm, int32_t i)
{
    return &g_array_index(sm->prog->vars, ProgVar, i);
}

/* 1 when w is the only warp with live threads on its sub-partition (the
 * index of control_cycles and addr_cycles): nothing else fills its gaps. */
static inline int sm_warp_alone(const Sm *sm, const Warp *w)
{
    return sm->smsp_live[w->smsp] == 1;
}
