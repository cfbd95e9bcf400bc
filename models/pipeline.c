/* pipeline.c: cuda::pipeline's objects (see pipeline.h): make_pipeline's
 * rules, each thread's protocol state, stage life and occupancy, and the
 * stage statistics the pipeline owns.  pipe_exec.c runs the protocol as
 * warps execute it.
 *
 * Hardware behaviour: what libcudacxx's implementation keeps, on the
 * mbarriers of barrier.c (block scope) or cp.async commit groups (thread
 * scope).  It has no timing of its own: the costs are pipe_exec.c's. */
#include "models/pipeline.h"

#include "sim/out/stats.h"

#include <string.h>

void pipe_init(Pipe *p, bool block_scope, int32_t make_op, int64_t threads)
{
    memset(p, 0, sizeof *p);
    p->block_scope = block_scope;
    p->make_op = make_op;
    p->pstate = -1;
    p->threads = threads;
    p->arg_first_tid = -1;
    p->head = g_new0(uint8_t, threads);
    p->tail = g_new0(uint8_t, threads);
    p->flags = g_new0(uint8_t, threads);
    p->role = g_new0(uint8_t, threads);
    p->commits = g_new0(uint32_t, threads);
    p->releases = g_new0(uint32_t, threads);
    p->waits = g_new0(uint32_t, threads);
    /* Every thread starts all zero: each warp agrees. */
    int64_t warps = (threads + PIPE_WARP_LANES - 1) / PIPE_WARP_LANES;
    p->agree = g_new(uint8_t, MAX(warps, 1));
    memset(p->agree, 1, (size_t) MAX(warps, 1));
}

void pipe_clear(Pipe *p)
{
    if (p->stats != NULL) {
        sim_stage_stats_free(p->stats);
    }
    g_free(p->head);
    g_free(p->tail);
    g_free(p->flags);
    g_free(p->role);
    g_free(p->commits);
    g_free(p->releases);
    g_free(p->waits);
    g_free(p->agree);
    g_free(p->life);
    g_free(p->occupancy_time);
    memset(p, 0, sizeof *p);
}

static void occupancy_move(Pipe *p, int64_t delta, SimCycle now)
{
    if (p->occupancy_time == NULL) {
        return;
    }
    if (now > p->occupancy_since) {
        p->occupancy_time[MIN(p->open_stages, p->stages)] += now - p->occupancy_since;
    }
    p->occupancy_since = MAX(now, p->occupancy_since);
    p->open_stages += delta;
}

const char *pipe_block_make(Pipe *p, MBarrier *mbars, int32_t pstate, int64_t stages, int32_t mbar_base,
                            PipeMode mode, int64_t producers, SimCycle now)
{
    int64_t size = p->threads;
    /* SPEC make-pipeline-3: producer_count must be strictly below the group
     * size, otherwise the behaviour is undefined. */
    if (mode == PIPE_MODE_PRODUCER_COUNT && producers >= size) {
        return "make_pipeline: producer_count must be below the group size (SPEC make-pipeline-3)";
    }
    /* An mbarrier expects 1 .. 2^20-1 arrivals: a partitioned pipeline
     * needs at least one producer and one consumer. */
    if (mode != PIPE_MODE_UNIFIED && producers < 1) {
        return "make_pipeline: a partitioned pipeline needs at least one producer (its produced barriers would"
               " expect 0 arrivals)";
    }
    if (mode == PIPE_MODE_ROLE && producers >= size) {
        return "make_pipeline: every thread is a producer, so the consumed barriers would expect 0 arrivals";
    }
    p->pstate = pstate;
    p->stages = stages;
    p->mbar_base = mbar_base;
    p->mode = mode;
    p->producers = mode == PIPE_MODE_UNIFIED ? size : producers;
    p->consumers = mode == PIPE_MODE_UNIFIED ? size : size - producers;
    for (int64_t s = 0; s < stages; s++) {
        mbar_init(pipe_consumed(p, mbars, s), p->consumers, now);
        mbar_init(pipe_produced(p, mbars, s), p->producers, now);
    }
    p->refcount = size;
    p->live = true;
    g_free(p->life);
    p->life = g_new0(StageLife, stages);
    /* Occupancy runs from the first make to the end of the run: a remake
     * (the same operation again, so the same stages) adds to it. */
    if (p->occupancy_time == NULL) {
        p->occupancy_time = g_new0(uint64_t, stages + 1);
    } else {
        occupancy_move(p, 0, now);
    }
    p->open_stages = 0;
    p->occupancy_since = now;
    return NULL;
}

/* ------------------------------------------------------ warp agreement */

/* Threads of the warp whose first thread is tid0 (the block's last warp
 * may have fewer than 32). */
static inline int64_t warp_threads(const Pipe *p, int64_t tid0)
{
    return MIN((int64_t) PIPE_WARP_LANES, p->threads - tid0);
}

/* The lanes of that warp, as a mask. */
static inline uint32_t warp_mask(const Pipe *p, int64_t tid0)
{
    int64_t n = warp_threads(p, tid0);
    return n >= 32 ? 0xffffffffu : n <= 0 ? 0 : (1u << n) - 1;
}

/* Whether the n threads from tid0 on have one protocol state: a pass
 * without a branch per thread. */
static bool threads_agree(const Pipe *p, int64_t tid0, int64_t n)
{
    unsigned diff = 0;
    for (int64_t i = 1; i < n; i++) {
        int64_t t = tid0 + i;
        diff |= (unsigned) (p->head[t] ^ p->head[tid0]) | (unsigned) (p->tail[t] ^ p->tail[tid0]) |
                (unsigned) (p->flags[t] ^ p->flags[tid0]) | (unsigned) (p->role[t] ^ p->role[tid0]) |
                (p->commits[t] ^ p->commits[tid0]) | (p->releases[t] ^ p->releases[tid0]) |
                (p->waits[t] ^ p->waits[tid0]);
    }
    return diff == 0;
}

void pipe_warp_recheck(Pipe *p, int64_t tid)
{
    int64_t tid0 = tid - tid % PIPE_WARP_LANES;
    p->agree[tid0 / PIPE_WARP_LANES] = threads_agree(p, tid0, warp_threads(p, tid0));
}

const char *pipe_check_agreement(const Pipe *p, int64_t tid0)
{
    bool agree = threads_agree(p, tid0, warp_threads(p, tid0));
    if (agree != pipe_warp_agrees(p, tid0)) {
        return agree ? "a warp's threads agree but the pipeline keeps them apart"
                     : "a warp's threads disagree but the pipeline says they agree";
    }
    return NULL;
}

/* True when a step for lanes `mask` can move the warp at tid0 as one: it
 * agrees and every thread of it takes the step. */
static inline bool whole_warp(const Pipe *p, int64_t tid0, uint32_t mask)
{
    uint32_t all = warp_mask(p, tid0);
    return pipe_warp_agrees(p, tid0) && (mask & all) == all;
}

/* A thread's protocol state, its role aside (no step changes it). */
typedef struct {
    uint8_t head, tail, flags;
    uint32_t commits, releases, waits;
} ThreadState;

static inline ThreadState thread_state(const Pipe *p, int64_t tid)
{
    ThreadState s = { p->head[tid], p->tail[tid], p->flags[tid], p->commits[tid], p->releases[tid], p->waits[tid] };
    return s;
}

static inline void thread_store(Pipe *p, int64_t tid, ThreadState s)
{
    p->head[tid] = s.head;
    p->tail[tid] = s.tail;
    p->flags[tid] = s.flags;
    p->commits[tid] = s.commits;
    p->releases[tid] = s.releases;
    p->waits[tid] = s.waits;
}

G_ALWAYS_INLINE static inline void fill_u32(uint32_t *a, int64_t n, uint32_t v)
{
    for (int64_t i = 0; i < n; i++) {
        a[i] = v;
    }
}

/* Writes state s into the n threads from tid0 on, which agree on state
 * `was`: only the fields that changed.  (Inlined, so that a full warp's
 * constant n gives fixed-size stores.) */
G_ALWAYS_INLINE static inline void fill_warp(Pipe *p, int64_t tid0, int64_t n, ThreadState was, ThreadState s)
{
    if (s.head != was.head) {
        memset(p->head + tid0, s.head, (size_t) n);
    }
    if (s.tail != was.tail) {
        memset(p->tail + tid0, s.tail, (size_t) n);
    }
    if (s.flags != was.flags) {
        memset(p->flags + tid0, s.flags, (size_t) n);
    }
    if (s.commits != was.commits) {
        fill_u32(p->commits + tid0, n, s.commits);
    }
    if (s.releases != was.releases) {
        fill_u32(p->releases + tid0, n, s.releases);
    }
    if (s.waits != was.waits) {
        fill_u32(p->waits + tid0, n, s.waits);
    }
}

/* The steps of pipe_lanes_* (pipeline.h says what each does). */
typedef enum {
    STEP_FLAGS,
    STEP_COMMIT,
    STEP_WAITED,
    STEP_RELEASE,
    STEP_WAIT_PRIOR
} LaneStep;

/* Moves stage index *idx to the next stage; wrapping past the last flips
 * the parity bit for that barrier set. */
static inline void next_stage(const Pipe *p, uint8_t *idx, uint8_t *flags, uint8_t parity_bit)
{
    if (++*idx == p->stages) {
        *idx = 0;
        *flags ^= parity_bit;
    }
}

/* The state a thread in state s moves to by `step` (set and clear: the
 * flags of STEP_FLAGS; prior: wait_prior's count). */
static ThreadState step_thread(const Pipe *p, ThreadState s, LaneStep step, uint8_t set, uint8_t clear, int64_t prior)
{
    switch (step) {
    case STEP_FLAGS:
        s.flags = (uint8_t) ((s.flags | set) & ~clear);
        break;
    case STEP_COMMIT:
        s.flags &= (uint8_t) ~PT_ACQUIRED;
        s.commits++;
        if (p->block_scope) {
            next_stage(p, &s.head, &s.flags, PT_CPARITY);
        } else {
            s.head++;
        }
        break;
    case STEP_WAITED:
        if (!p->block_scope) {
            s.tail++;
        }
        s.flags |= PT_WAITED;
        s.waits++;
        break;
    case STEP_RELEASE:
        s.flags &= (uint8_t) ~PT_WAITED;
        s.releases++;
        if (p->block_scope) {
            next_stage(p, &s.tail, &s.flags, PT_PPARITY);
        }
        break;
    case STEP_WAIT_PRIOR:
        s.tail = (uint8_t) (s.head - prior);
        s.flags |= PT_WAITED;
        break;
    }
    return s;
}

/* Applies a step to lanes `mask` of the warp at tid0: once for an agreeing
 * warp that takes it whole, else thread by thread and the warp looked at
 * again. */
static void lanes_step(Pipe *p, int64_t tid0, uint32_t mask, LaneStep step, uint8_t set, uint8_t clear,
                       int64_t prior)
{
    mask &= warp_mask(p, tid0);
    if (mask == 0) {
        return;
    }
    if (whole_warp(p, tid0, mask)) {
        ThreadState was = thread_state(p, tid0);
        ThreadState now = step_thread(p, was, step, set, clear, prior);
        int64_t n = warp_threads(p, tid0);
        if (n == PIPE_WARP_LANES) {
            /* A full warp (the usual case): the same fill, of a constant
             * size. */
            fill_warp(p, tid0, PIPE_WARP_LANES, was, now);
        } else {
            fill_warp(p, tid0, n, was, now);
        }
        return;
    }
    for (uint32_t m = mask; m != 0; m &= m - 1) {
        int64_t tid = tid0 + __builtin_ctz(m);
        thread_store(p, tid, step_thread(p, thread_state(p, tid), step, set, clear, prior));
    }
    pipe_warp_recheck(p, tid0);
}

void pipe_lanes_flags(Pipe *p, int64_t tid0, uint32_t mask, uint8_t set, uint8_t clear)
{
    lanes_step(p, tid0, mask, STEP_FLAGS, set, clear, 0);
}

void pipe_lanes_commit(Pipe *p, int64_t tid0, uint32_t mask)
{
    lanes_step(p, tid0, mask, STEP_COMMIT, 0, 0, 0);
}

void pipe_lanes_waited(Pipe *p, int64_t tid0, uint32_t mask)
{
    lanes_step(p, tid0, mask, STEP_WAITED, 0, 0, 0);
}

void pipe_lanes_release(Pipe *p, int64_t tid0, uint32_t mask)
{
    lanes_step(p, tid0, mask, STEP_RELEASE, 0, 0, 0);
}

void pipe_lanes_wait_prior(Pipe *p, int64_t tid0, uint32_t mask, int64_t prior)
{
    lanes_step(p, tid0, mask, STEP_WAIT_PRIOR, 0, 0, prior);
}

/* ------------------------------------------------------ thread protocol */

void pipe_thread_made(Pipe *p, int64_t tid, uint8_t role_bits)
{
    p->head[tid] = 0;
    p->tail[tid] = 0;
    p->commits[tid] = 0;
    p->releases[tid] = 0;
    p->waits[tid] = 0;
    /* consumed_phase_parity starts true, produced_phase_parity false. */
    p->flags[tid] = PT_MADE | PT_ACTIVE | PT_CPARITY;
    p->role[tid] = role_bits;
    pipe_warp_recheck(p, tid);
}

const char *pipe_check_role(Pipe *p, int64_t tid, uint8_t role_bits)
{
    uint8_t f = p->flags[tid];
    if (!(f & PT_MADE)) {
        return "the pipeline is used before make_pipeline returned for this thread";
    }
    if (!(f & PT_ACTIVE)) {
        /* SPEC pipeline-quit-2: after quit() the thread no longer takes part. */
        return "the pipeline is used after this thread called quit() (SPEC pipeline-quit-2)";
    }
    if (!p->block_scope) {
        return NULL;
    }
    if (p->role[tid] == 0) {
        /* Partitioned by count: the first operation fixes the role. */
        p->role[tid] = role_bits;
        pipe_warp_recheck(p, tid);
        return NULL;
    }
    if (!(p->role[tid] & role_bits)) {
        /* SPEC pipeline-role-1: a thread's role cannot change during the
         * lifetime of the pipeline object. */
        return role_bits == ROLEBIT_PRODUCER
                   ? "a consumer thread performs a producer operation: a thread's role cannot change"
                     " (SPEC pipeline-role-1)"
                   : "a producer thread performs a consumer operation: a thread's role cannot change"
                     " (SPEC pipeline-role-1)";
    }
    return NULL;
}

void pipe_stage_open(Pipe *p, int64_t slot, SimCycle now)
{
    StageLife *l = &p->life[slot];
    if (l->open) {
        return;
    }
    memset(l, 0, sizeof *l);
    l->open = true;
    l->acquired = now;
    occupancy_move(p, +1, now);
}

void pipe_stage_close(Pipe *p, int64_t slot, SimCycle now)
{
    StageLife *l = &p->life[slot];
    if (!l->open) {
        return;
    }
    l->open = false;
    l->released = now;
    occupancy_move(p, -1, now);
}

void pipe_finish(Pipe *p, SimCycle end)
{
    occupancy_move(p, 0, end);
    if (p->stats != NULL) {
        for (int64_t k = 0; k <= p->stages; k++) {
            p->stats->occupancy[k] += p->occupancy_time[k];
        }
    }
}

void pipe_stats_merge(Pipe *p, SimCycle end, SimStageStats *into)
{
    pipe_finish(p, end);
    sim_stage_stats_merge(into, p->stats);
}
