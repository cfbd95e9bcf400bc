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
