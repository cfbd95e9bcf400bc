/* pipe_exec.c: cuda::pipeline's protocol as warps run it (see pipe_exec.h):
 * make_pipeline and its group sync, acquire, commit, wait, release, quit,
 * the destructor at a scope's end, wait_for's time-outs, and what each does
 * to the pipeline's stage statistics (pipeline.c keeps the objects).
 *
 * Hardware behaviour: what libcudacxx's implementation executes, on the
 * mbarriers of barrier.c (block scope) or cp.async commit groups (thread
 * scope).  Numbers: barrier.mbarrier_arrive (make_pipeline's barrier
 * initialisation), barrier.wait_call / wait_call_copies (a wait call),
 * cp_async.wait_cycles (wait_group) and the block barrier's cost, from
 * arch/NAME.ini, measured by scripts/calib/sync.cu and cpasync.cu. */
#include "models/pipe_exec.h"

#include "models/async_copy.h"
#include "models/race.h"
#include "models/simt.h"
#include "models/sm_internal.h"
#include "models/sync.h"

static void warp_schedule_timeout(Sm *sm, Warp *w, int32_t si, SimCycle deadline);

/* ------------------------------------------------------- stage statistics */

static SimStageStats *pipe_stats(Sm *sm, Pipe *p)
{
    if (p->stats == NULL) {
        const ProgPState *ps = &g_array_index(sm->prog->pstates, ProgPState, p->pstate);
        p->stats = sim_stage_stats_new(ps->name, ps->stages);
    }
    return p->stats;
}

/* A block pipeline whose barriers include mbarrier `mbar`, or NULL. */
static Pipe *pipe_of_mbar(Sm *sm, Block *b, int32_t mbar, int64_t *slot, bool *produced)
{
    for (int32_t k = 0; k < sm->npipes; k++) {
        Pipe *p = &b->pipes[k];
        if (p->block_scope && p->live && mbar >= p->mbar_base && mbar < p->mbar_base + 2 * p->stages) {
            *slot = (mbar - p->mbar_base) / 2;
            *produced = (mbar - p->mbar_base) % 2 == 0;
            return p;
        }
    }
    return NULL;
}

void pipe_note_phase(Sm *sm, Block *b, int32_t mbar, uint64_t before, SimCycle now)
{
    if (b->mbars[mbar].phase == before) {
        return;
    }
    sm->stats.mbar_phases++;
    int64_t slot;
    bool produced;
    Pipe *p = pipe_of_mbar(sm, b, mbar, &slot, &produced);
    if (sm->tl != NULL) {
        /* An instant event per completed phase. */
        SimSliceArgs args = SIM_SLICE_ARGS_INIT;
        args.barrier = warp_barrier_name(sm, mbar);
        args.stage = p != NULL ? slot : -1;
        args.phase = (int64_t) b->mbars[mbar].phase - 1;
        g_autofree char *what = sm_describe_mbar(sm, b->id, mbar);
        g_autofree char *name = g_strdup_printf("%s: phase completed", what);
        sim_timeline_instant(sm->tl, warp_barrier_track(sm, b->id), name, now, &args);
    }
    if (p == NULL) {
        return;
    }
    StageLife *l = &p->life[slot];
    if (produced) {
        l->ready = now;
        l->has_ready = true;
        return;
    }
    /* Consumed phase: every consumer released the stage. */
    SimStageStats *st = pipe_stats(sm, p);
    if (l->open) {
        if (l->has_commit) {
            sim_dist_add(&st->step[STAGE_STEP_FILL], l->committed - l->acquired);
        }
        if (l->has_commit && l->has_ready) {
            sim_dist_add(&st->step[STAGE_STEP_LAND], l->ready > l->committed ? l->ready - l->committed : 0);
        }
        if (l->has_ready && l->has_wait) {
            sim_dist_add(&st->step[STAGE_STEP_IDLE], l->waited > l->ready ? l->waited - l->ready : 0);
        }
        if (l->has_wait) {
            sim_dist_add(&st->step[STAGE_STEP_CONSUME], now - l->waited);
        }
        sim_dist_add(&st->exposed, l->exposed);
        st->instances++;
        if (sm->tl != NULL) {
            char name[64];
            g_snprintf(name, sizeof name, "%s stage %" G_GINT64_FORMAT " (block %d)", p->stats->name, slot, b->id);
            int track = sim_timeline_track(sm->tl, TRACK_STAGE, name,
                                           50000 + b->id * 1024 + (int) (p->mbar_base + slot));
            SimCycle a = l->acquired;
            SimCycle c = l->has_commit ? MAX(l->committed, a) : a;
            SimCycle r = l->has_ready ? MAX(l->ready, c) : c;
            SimCycle wt = l->has_wait ? MAX(l->waited, r) : r;
            SimSliceArgs args = SIM_SLICE_ARGS_INIT;
            args.stage = slot;
            sim_timeline_slice(sm->tl, track, "acquired", a, c, &args);
            sim_timeline_slice(sm->tl, track, "in flight", c, r, &args);
            sim_timeline_slice(sm->tl, track, "ready", r, wt, &args);
            sim_timeline_slice(sm->tl, track, "consumed", wt, MAX(now, wt), &args);
            sim_timeline_counter_add(sm->tl, "stages occupied", sm->engine.now, now, -1);
        }
    }
    pipe_stage_close(p, slot, now);
}

/* ---------------------------------------------------------- thread exit */

void pipe_lanes_exit(Sm *sm, Warp *w, LaneMask m, SimCycle now)
{
    Block *b = &sm->blocks[w->block];
    for (int32_t k = 0; k < sm->npipes; k++) {
        Pipe *p = &b->pipes[k];
        if (!p->block_scope || !p->live) {
            continue;
        }
        /* The pipeline's destructor quits for threads still active. */
        LaneMask active = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if ((m & (1u << l)) && (p->flags[w->tid0 + l] & PT_ACTIVE)) {
                active |= 1u << l;
            }
        }
        int64_t n = lane_count(active);
        pipe_lanes_flags(p, w->tid0, active, 0, PT_ACTIVE);
        if (n > 0) {
            p->refcount -= n;
            if (p->refcount == 0) {
                for (int64_t s = 0; s < p->stages; s++) {
                    mbar_invalidate(pipe_produced(p, b->mbars, s));
                    mbar_invalidate(pipe_consumed(p, b->mbars, s));
                }
                p->live = false;
            }
        }
    }
    (void) now;
}
/* ------------------------------------------------------- make_pipeline */

void pipe_collective_check(Sm *sm, Block *b, SimCycle now)
{
    if (b->pending_make < 0) {
        return;
    }
    int32_t slot = sm->pipe_slot[b->pending_make];
    Pipe *p = &b->pipes[slot];
    if (p->arrived < b->live_threads) {
        return;
    }
    const Op *op = sm_op(sm, b->pending_make);
    const ProgPState *ps = &g_array_index(sm->prog->pstates, ProgPState, op->obj);
    int64_t producers = op->sub == PIPE_MODE_ROLE ? p->producer_votes : p->arg;
    /* The group must be the whole block (make_pipeline(block, ...)). */
    if (p->arrived != b->threads && b->live_threads != b->threads) {
        /* Exited threads are not in the group's count; libcudacxx would
         * still init the barriers for group.size(). */
    }
    for (int32_t k = 0; k < sm->npipes; k++) {
        Pipe *o = &b->pipes[k];
        /* A live pipeline on the state (this call's own, made in an
         * earlier pass, is destroyed at the end of its block first). */
        if (o->block_scope && o->live && o->pstate == op->obj) {
            Warp *w0 = &sm->warps[b->first_warp];
            warp_fail(sm, w0, w0->live, op->loc, SIM_ERROR_PROGRAM,
                      "make_pipeline on pipeline_shared_state '%s', which the pipeline made at line %u still uses",
                      ps->name, sm_op(sm, o->make_op)->loc.line);
            return;
        }
    }
    const char *err = pipe_block_make(p, b->mbars, op->obj, ps->stages, b->pstate_base[op->obj], (PipeMode) op->sub,
                                      producers, now);
    if (err != NULL) {
        Warp *w0 = &sm->warps[b->first_warp];
        warp_fail(sm, w0, w0->live, op->loc, SIM_ERROR_PROGRAM, "%s", err);
        return;
    }
    /* A make_pipeline run again (in a loop body, after the destructor)
     * adds to the statistics of its earlier passes. */
    pipe_stats(sm, p);
    /* Role bits for the statistics. */
    for (int64_t tid = 0; tid < b->threads; tid++) {
        /* Roles partitioned by count are fixed by each thread's first
         * operation (check_lanes records them then). */
        if ((p->flags[tid] & PT_MADE) && b->thread_role[tid] == 0) {
            b->thread_role[tid] = p->role[tid];
        }
    }
    b->role_version++;
    /* libcudacxx: rank 0 initialises 2 x stages barriers between group
     * syncs (one sync, or three for the role form). */
    int64_t syncs = op->sub == PIPE_MODE_ROLE ? 3 : 1;
    SimCycle at = now + (SimCycle) syncs * block_barrier_cost(&sm->arch, sm->prog->warps) +
                  (SimCycle) (2 * ps->stages * sm->arch.mbar_arrive);
    b->pending_make = -1;
    p->arrived = 0;
    /* The group's sync orders what the threads did before it (a barrier
     * generation for the race detector). */
    b->bar.generation++;
    sync_race_block_complete(sm, (int32_t) (b - sm->blocks));
    p->producer_votes = 0;
    p->arg_first_tid = -1;
    for (int32_t wi = 0; wi < (int32_t) sm->prog->warps; wi++) {
        Warp *w = &sm->warps[b->first_warp + wi];
        for (int32_t i = 0; i < MAX_SPLITS; i++) {
            Split *s = &w->split[i];
            s->role = -1;
            if (s->status == SPLIT_BLOCKED && s->wait == WAIT_COLLECTIVE && s->wait_obj == slot) {
                for (int l = 0; sm->race && l < SIM_WARP_SIZE; l++) {
                    if (s->mask & (1u << l)) {
                        race_block_pass(sm->race, w->block, w->tid0 + l, b->bar.generation);
                    }
                }
                sm_split_wake(sm, w, i, at);
            }
        }
    }
}

StepResult pipe_exec_make_block(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t)
{
    Split *s = &w->split[si];
    Block *b = &sm->blocks[w->block];
    int32_t pc = (int32_t) (op - sm_op(sm, 0));
    int32_t slot = sm->pipe_slot[pc];
    Pipe *p = &b->pipes[slot];
    if (b->pending_make >= 0 && b->pending_make != pc) {
        const Op *other = sm_op(sm, b->pending_make);
        return RULE(sm, w, s->mask, op,
                    "make_pipeline is collective: threads of the group call it at line %u and at line %u (with"
                    " different shared states or at different points); every thread of the group must make the same"
                    " call (SPEC make-pipeline-2)", other->loc.line, op->loc.line);
    }
    int64_t arg = 0;
    uint8_t roles[SIM_WARP_SIZE] = { 0 };
    if (op->sub == PIPE_MODE_PRODUCER_COUNT) {
        if (!warp_eval_same(sm, w, s->mask, op, op->e[0], "make_pipeline's producer_count", &arg)) {
            return STEP_STOP;
        }
        if (p->arg_first_tid >= 0 && arg != p->arg) {
            /* SPEC make-pipeline-2: producer_count must be the same across
             * all threads of the group. */
            return RULE(sm, w, s->mask, op,
                        "make_pipeline's producer_count differs across the group (%" G_GINT64_FORMAT " in thread %"
                        G_GINT64_FORMAT ", %" G_GINT64_FORMAT " here): undefined behaviour (SPEC make-pipeline-2)",
                        p->arg, p->arg_first_tid, arg);
        }
        if (arg < 0) {
            return RULE(sm, w, s->mask, op, "make_pipeline's producer_count is negative (%" G_GINT64_FORMAT ")", arg);
        }
    } else if (op->sub == PIPE_MODE_ROLE) {
        SimLaneValue v;
        if (!warp_eval(sm, w, s->mask, op, op->e[0], &v)) {
            return STEP_STOP;
        }
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (s->mask & (1u << l)) {
                roles[l] = sim_lane_value(&v, l) == 0 ? ROLEBIT_PRODUCER : ROLEBIT_CONSUMER;
                p->producer_votes += roles[l] == ROLEBIT_PRODUCER;
            }
        }
    }
    if (p->arg_first_tid < 0) {
        p->arg = arg;
        p->arg_first_tid = w->tid0 + lane_lowest(s->mask);
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (s->mask & (1u << l)) {
            uint8_t role = op->sub == PIPE_MODE_UNIFIED ? (ROLEBIT_PRODUCER | ROLEBIT_CONSUMER)
                           : op->sub == PIPE_MODE_ROLE  ? roles[l]
                                                        : 0; /* fixed by its first operation */
            pipe_thread_made(p, w->tid0 + l, role);
        }
    }
    p->arrived += lane_count(s->mask);
    for (int l = 0; sm->race && l < SIM_WARP_SIZE; l++) {
        if (s->mask & (1u << l)) {
            /* make_pipeline's group.sync() is the block's barrier. */
            race_block_arrive(sm->race, w->block, w->tid0 + l);
        }
    }
    b->pending_make = pc;
    simt_block(w, s, WAIT_COLLECTIVE, WS_BLOCK_BARRIER, slot, 0, false, t);
    s->pc = pc + 1;
    s->step = 0;
    pipe_collective_check(sm, b, t);
    return STEP_ISSUED;
}

/* ------------------------------------------------------------ pipelines */

/* The lanes of m whose protocol state a check must read: the lowest
 * alone when the warp's threads agree (it answers for the others, and is
 * the lane a failing check names either way), else all of them. */
static inline LaneMask lanes_to_read(const Pipe *p, const Warp *w, LaneMask m)
{
    return pipe_warp_agrees(p, w->tid0) ? m & (~m + 1) : m;
}

/* Checks each lane's protocol state; returns false (run failed) on misuse. */
static bool check_lanes(Sm *sm, Warp *w, Split *s, const Op *op, Pipe *p, uint8_t role_bits)
{
    for (LaneMask m = s->mask; m != 0; m &= m - 1) {
        int l = __builtin_ctz(m);
        int64_t tid = w->tid0 + l;
        uint8_t before = p->role[tid];
        /* The usual case, settled without a call: a made, active thread
         * whose role is fixed and allows the operation (pipe_check_role
         * would return NULL and change nothing). */
        if ((p->flags[tid] & (PT_MADE | PT_ACTIVE)) == (PT_MADE | PT_ACTIVE) &&
            (!p->block_scope || (before & role_bits) != 0)) {
            if (pipe_warp_agrees(p, w->tid0)) {
                /* The other lanes are in the same state. */
                return true;
            }
            continue;
        }
        const char *err = pipe_check_role(p, tid, role_bits);
        if (err != NULL) {
            RULE(sm, w, 1u << l, op, "%s: %s", op_code_name(op->code), err);
            return false;
        }
        if (before == 0 && p->role[tid] != 0) {
            /* Partitioned by count: the first operation fixed the role. */
            Block *b = &sm->blocks[w->block];
            if (b->thread_role[tid] == 0) {
                b->thread_role[tid] = p->role[tid];
                s->role = -1;
            }
        }
    }
    return true;
}

/* Block scope: the lanes of `left` whose stage index idx[tid] (the
 * pipeline's head or tail) is that of the lowest lane, stored in *slot.
 * Converged threads form one group; diverged stage positions several. */
static LaneMask lanes_at_slot(const Pipe *p, const Warp *w, LaneMask left, const uint8_t *idx, int64_t *slot)
{
    *slot = idx[w->tid0 + lane_lowest(left)];
    if (pipe_warp_agrees(p, w->tid0)) {
        return left;
    }
    LaneMask grp = 0;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if ((left & (1u << l)) && idx[w->tid0 + l] == *slot) {
            grp |= 1u << l;
        }
    }
    return grp;
}

/* Acquire / consumer_wait on a block pipeline: wait until, for every lane,
 * the barrier phase it names has completed. */
static StepResult pipe_block_wait(Sm *sm, Warp *w, int32_t si, const Op *op, Pipe *p, bool acquire, SimCycle t)
{
    Split *s = &w->split[si];
    Block *b = &sm->blocks[w->block];
    for (LaneMask lanes = lanes_to_read(p, w, s->mask); lanes != 0; lanes &= lanes - 1) {
        int l = __builtin_ctz(lanes);
        int64_t tid = w->tid0 + l;
        int64_t slot = acquire ? p->head[tid] : p->tail[tid];
        MBarrier *m = acquire ? pipe_consumed(p, b->mbars, slot) : pipe_produced(p, b->mbars, slot);
        bool parity = acquire ? (p->flags[tid] & PT_CPARITY) != 0 : (p->flags[tid] & PT_PPARITY) != 0;
        if (!m->valid) {
            RULE(sm, w, 1u << l, op, "%s: %s", op_code_name(op->code), mbar_status_message(MBAR_UNINITIALIZED));
            return STEP_STOP;
        }
        if (!mbar_parity_done(m, parity)) {
            int32_t mi = (int32_t) (m - b->mbars);
            BarrierWaiter wt = { w->id, si, false, parity };
            mbar_add_waiter(m, wt);
            simt_block(w, s, WAIT_MBAR, acquire ? WS_PRODUCER_ACQUIRE : WS_CONSUMER_WAIT, mi, parity, false, t + 1);
            sm->stats.mbar_waits++;
            return STEP_ISSUED;
        }
    }
    return STEP_CONTINUE;
}
/* Step 0 of a thread-scope wait, cp.async.wait_group prior (the library's
 * switch over the count, then DEPBAR): true when the split blocks until
 * the groups land, its step and prior (aux) recorded either way. */
static bool thread_wait_begin(Warp *w, Split *s, LaneMask m, int64_t prior, int64_t call, SimCycle t,
                              int64_t *cost)
{
    SimCycle ready = async_wait_group_at(w, m, prior, call, t);
    s->step = 1;
    s->aux = prior;
    if (ready <= t + 1) {
        return false;
    }
    s->ready_at = ready;
    s->wait_state = WS_CONSUMER_WAIT;
    *cost = 1;
    return true;
}

static StepResult exec_op(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    Block *b = &sm->blocks[w->block];
    Pipe *p = pipe_of_op(sm, w, op);
    LaneMask m = s->mask;
    bool producer_op = op->code == OP_PIPE_ACQUIRE || op->code == OP_PIPE_COMMIT || op->code == OP_PIPE_COMMIT_BAR;
    if (op->code != OP_PIPE_QUIT &&
        !check_lanes(sm, w, s, op, p, producer_op ? ROLEBIT_PRODUCER : ROLEBIT_CONSUMER)) {
        return STEP_STOP;
    }
    switch (op->code) {
    case OP_PIPE_ACQUIRE:
        if (p->block_scope) {
            if (s->step == 0) {
                /* The wait_parity call: clock read, first try_wait
                 * (through the SM's mbarrier unit). */
                s->step = 1;
                s->ready_at = sync_mbar_wait_at(sm, t) + sync_wait_call_cost(sm, w, m, t);
                s->wait_state = WS_PRODUCER_ACQUIRE;
                *cost = 1;
                return STEP_ISSUED;
            }
            StepResult r = pipe_block_wait(sm, w, si, op, p, true, t);
            if (r != STEP_CONTINUE) {
                *cost = 1;
                return r;
            }
            /* Each lane opens its head stage (once: the others find it open). */
            for (LaneMask opening = lanes_to_read(p, w, m); opening != 0; opening &= opening - 1) {
                int64_t tid = w->tid0 + __builtin_ctz(opening);
                if (sm->tl && p->life && !p->life[p->head[tid]].open) {
                    sim_timeline_counter_add(sm->tl, "stages occupied", sm->engine.now, t, +1);
                }
                pipe_stage_open(p, p->head[tid], t);
            }
        }
        pipe_lanes_flags(p, w->tid0, m, PT_ACQUIRED, 0);
        s->step = 0;
        s->pc++;
        return STEP_CONTINUE;
    case OP_PIPE_COMMIT:
    case OP_PIPE_COMMIT_BAR:
        for (LaneMask c = lanes_to_read(p, w, m); c != 0; c &= c - 1) {
            int l = __builtin_ctz(c);
            if (op->code == OP_PIPE_COMMIT && !(p->flags[w->tid0 + l] & PT_ACQUIRED)) {
                /* SPEC pipeline-commit-1: a producer commits the stage it
                 * acquired: producer_acquire comes first. */
                return RULE(sm, w, 1u << l, op, "producer_commit without producer_acquire: a producer acquires the"
                            " head stage before committing to it (SPEC pipeline-commit-1)");
            }
        }
        if (op->code == OP_PIPE_COMMIT_BAR) {
            /* pipeline_producer_commit(pipe, bar): the thread's copies so far
             * arrive on bar when complete (cp.async.mbarrier.arrive). */
            MBarStatus st = async_copies_arrive(sm, w, m, (int32_t) op->value, t, op->loc);
            if (st != MBAR_OK) {
                return RULE(sm, w, m, op, "pipeline_producer_commit: %s", mbar_status_message(st));
            }
            s->pc++;
            *cost = 1;
            s->ready_at = t + 1;
            s->wait_state = WS_DEPENDENCY;
            return STEP_ISSUED;
        }
        if (!p->block_scope) {
            /* cp.async.commit_group; ++head (uint8_t). */
            async_commit_group(sm, w, m);
            pipe_lanes_commit(p, w->tid0, m);
            s->pc++;
            *cost = 1;
            s->ready_at = t + 1;
            s->wait_state = WS_DEPENDENCY;
            return STEP_ISSUED;
        }
        {
            /* Lanes are grouped by their head stage (one group when converged). */
            LaneMask left = m;
            while (left) {
                int64_t slot;
                LaneMask grp = lanes_at_slot(p, w, left, p->head, &slot);
                left &= ~grp;
                MBarrier *pm = pipe_produced(p, b->mbars, slot);
                int32_t mi = (int32_t) (pm - b->mbars);
                int64_t n = lane_count(grp);
                /* producer_commit: cp.async.mbarrier.arrive, then arrive,
                 * two operations of the SM's mbarrier unit. */
                MBarStatus st = async_copies_arrive(sm, w, grp, mi, sync_mbar_op_at(sm, t), op->loc);
                uint64_t before = pm->phase;
                if (st == MBAR_OK) {
                    st = mbar_arrive(pm, n, sync_mbar_op_at(sm, t), NULL, sync_barrier_wake, sm);
                }
                if (st != MBAR_OK) {
                    return RULE(sm, w, grp, op, "producer_commit: %s: more producers committed to this stage than the"
                                " pipeline counts (%" G_GINT64_FORMAT ")", mbar_status_message(st), p->producers);
                }
                pipe_note_phase(sm, b, mi, before, t);
                StageLife *life = &p->life[slot];
                life->committed = t;
                life->has_commit = true;
                pipe_lanes_commit(p, w->tid0, grp);
            }
        }
        s->pc++;
        *cost = 2;
        s->ready_at = t + 2;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    case OP_PIPE_WAIT:
    case OP_PIPE_WAIT_FOR:
        /* Only lanes of m: the others may not exist (a block of 28 threads). */
        for (LaneMask c = lanes_to_read(p, w, m); c != 0; c &= c - 1) {
            int l = __builtin_ctz(c);
            int64_t tid = w->tid0 + l;
            /* Thread scope: libcudacxx returns at once when head == tail
             * (every commit already waited for), without advancing tail. */
            bool empty = p->block_scope ? p->commits[tid] == p->releases[tid] && (p->role[tid] & ROLEBIT_PRODUCER)
                                        : p->head[tid] == p->tail[tid];
            if (empty) {
                /* SPEC pipeline-wait-1: consumer_wait waits for the oldest
                 * committed stage; a thread that is also the producer and
                 * committed nothing unreleased waits on an empty pipeline. */
                return RULE(sm, w, 1u << l, op, "consumer_wait on an empty pipeline: this thread has no committed"
                            " stage left to wait for (SPEC pipeline-wait-1)");
            }
        }
        if (!p->block_scope) {
            /* libcudacxx: if head == tail return; else wait_group
             * min(head - tail - 1, PIPE_WAIT_GROUP_MAX); ++tail.  consumer_wait_for ignores
             * its time-out and returns true. */
            if (s->step == 0) {
                int64_t prior = (uint8_t) (p->head[w->tid0 + lane_lowest(m)] - p->tail[w->tid0 + lane_lowest(m)] - 1);
                if (thread_wait_begin(w, s, m, MIN(prior, (int64_t) PIPE_WAIT_GROUP_MAX), sm->arch.cp_async_wait, t,
                                      cost)) {
                    return STEP_ISSUED;
                }
            }
            async_wait_group_done(sm, w, m, s->aux, t);
            pipe_lanes_waited(p, w->tid0, m);
            if (op->var >= 0) {
                warp_store_lanes(w, sm_var(sm, op->var), m, 1);
            }
            s->step = 0;
            s->pc++;
            return STEP_CONTINUE;
        }
        if (s->step == 0) {
            s->step = 1;
            s->blocked_since = 0;
            if (op->code == OP_PIPE_WAIT_FOR) {
                int64_t d;
                if (!warp_eval_same(sm, w, m, op, op->e[1], "the time-out", &d)) {
                    return STEP_STOP;
                }
                /* wait_until takes an absolute cycle; wait_for a duration. */
                /* A duration is capped at INT64_MAX in all (no overflow). */
                s->aux2 = op->sub ? d : (int64_t) t + MIN(MAX(d, (int64_t) 0), INT64_MAX - (int64_t) t);
            }
            s->ready_at = (p->block_scope ? sync_mbar_wait_at(sm, t) : t) + sync_wait_call_cost(sm, w, m, t);
            s->wait_state = WS_CONSUMER_WAIT;
            *cost = 1;
            return STEP_ISSUED;
        }
        if (s->step == 2) {
            /* The deadline passed first: consumer_wait_for returns false. */
            if (op->var >= 0) {
                warp_store_lanes(w, sm_var(sm, op->var), m, 0);
            }
            s->step = 0;
            s->pc++;
            return STEP_CONTINUE;
        }
        {
            StepResult r = pipe_block_wait(sm, w, si, op, p, false, t);
            if (r != STEP_CONTINUE) {
                if (r == STEP_ISSUED && op->code == OP_PIPE_WAIT_FOR) {
                    warp_schedule_timeout(sm, w, si, (SimCycle) MAX(s->aux2, (int64_t) t + 1));
                }
                *cost = 1;
                return r;
            }
        }
        {
            /* The stage is ready for every lane. */
            int64_t slot0 = p->tail[w->tid0 + lane_lowest(m)];
            if (sm->tl != NULL) {
                sim_timeline_flow_end(sm->tl, FLOW_STAGE, w->block, sm->pipe_slot[op->obj],
                                      p->waits[w->tid0 + lane_lowest(m)], w->timeline_track, t);
            }
            for (LaneMask waiting = lanes_to_read(p, w, m); waiting != 0; waiting &= waiting - 1) {
                StageLife *life = &p->life[p->tail[w->tid0 + __builtin_ctz(waiting)]];
                if (!life->has_wait) {
                    life->has_wait = true;
                    life->waited = t;
                }
            }
            if (sm->race) {
                race_stage_waited_lanes(sm->race, w->block, w->tid0, m, sm->pipe_slot[op->obj], p->waits + w->tid0);
            }
            pipe_lanes_waited(p, w->tid0, m);
            /* Exposed copy latency: how long this warp was blocked. */
            if (s->blocked_since > 0 && t > s->blocked_since) {
                p->life[slot0].exposed += t - s->blocked_since;
            }
            s->blocked_since = 0;
        }
        if (op->var >= 0) {
            warp_store_lanes(w, sm_var(sm, op->var), m, 1);
        }
        s->step = 0;
        s->pc++;
        return STEP_CONTINUE;
    case OP_PIPE_RELEASE:
        for (LaneMask c = lanes_to_read(p, w, m); c != 0; c &= c - 1) {
            int l = __builtin_ctz(c);
            if (!(p->flags[w->tid0 + l] & PT_WAITED)) {
                /* SPEC pipeline-release-1: a consumer releases the stage it
                 * waited for. */
                return RULE(sm, w, 1u << l, op, "consumer_release without consumer_wait: a consumer waits for the"
                            " tail stage before releasing it (SPEC pipeline-release-1)");
            }
        }
        if (!p->block_scope) {
            pipe_lanes_release(p, w->tid0, m);
            s->pc++;
            return STEP_CONTINUE;
        }
        {
            LaneMask left = m;
            while (left) {
                int64_t slot;
                LaneMask grp = lanes_at_slot(p, w, left, p->tail, &slot);
                left &= ~grp;
                MBarrier *cm = pipe_consumed(p, b->mbars, slot);
                int32_t mi = (int32_t) (cm - b->mbars);
                uint64_t before = cm->phase;
                MBarStatus st = mbar_arrive(cm, lane_count(grp), sync_mbar_op_at(sm, t), NULL, sync_barrier_wake, sm);
                if (st != MBAR_OK) {
                    return RULE(sm, w, grp, op, "consumer_release: %s: more consumers released this stage than the"
                                " pipeline counts (%" G_GINT64_FORMAT ")", mbar_status_message(st), p->consumers);
                }
                pipe_note_phase(sm, b, mi, before, t);
                if (sm->race) {
                    race_stage_released_lanes(sm->race, w->block, w->tid0, grp, sm->pipe_slot[op->obj]);
                }
                pipe_lanes_release(p, w->tid0, grp);
            }
        }
        s->pc++;
        *cost = 1;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    case OP_PIPE_QUIT: {
        int64_t n = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            int64_t tid = w->tid0 + l;
            if ((m & (1u << l)) && (p->flags[tid] & PT_ACTIVE)) {
                n++;
            } else if ((m & (1u << l)) && op->sub == 1) {
                /* SPEC pipeline-scope-1: ~pipeline() quits only a thread
                 * that has not quit. */
                m &= ~(1u << l);
            } else if (m & (1u << l)) {
                return RULE(sm, w, 1u << l, op, "quit() on a pipeline this thread has already quit");
            }
        }
        bool released = false;
        if (p->block_scope && n > 0) {
            /* Warp-aggregated: the lowest active lane subtracts the count;
             * the last thread destroys the barriers and gets true. */
            p->refcount -= n;
            if (p->refcount == 0) {
                for (int64_t k = 0; k < p->stages; k++) {
                    mbar_invalidate(pipe_produced(p, b->mbars, k));
                    mbar_invalidate(pipe_consumed(p, b->mbars, k));
                }
                p->live = false;
                released = true;
            }
        }
        pipe_lanes_flags(p, w->tid0, m, 0, PT_ACTIVE);
        if (op->var >= 0) {
            const ProgVar *v = sm_var(sm, op->var);
            /* thread scope: quit() returns true. */
            warp_store_lanes(w, v, m, p->block_scope ? 0 : 1);
            if (released) {
                warp_store_lanes(w, v, 1u << lane_lowest(m), 1);
            }
        }
        s->pc++;
        *cost = 1;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    }
    case OP_PIPE_WAIT_PRIOR: {
        if (p->block_scope) {
            return RULE(sm, w, m, op, "pipeline_consumer_wait_prior takes a pipeline<thread_scope_thread>");
        }
        /* The count is a template argument: one wait_group, no switch. */
        if (s->step == 0 && thread_wait_begin(w, s, m, MIN(op->value, (int64_t) PIPE_WAIT_GROUP_MAX),
                                              async_wait_prior_call(&sm->arch, op->value), t, cost)) {
            return STEP_ISSUED;
        }
        async_wait_group_done(sm, w, m, op->value, t);
        pipe_lanes_wait_prior(p, w->tid0, m, op->value);
        s->step = 0;
        s->pc++;
        return STEP_CONTINUE;
    }
    default:
        g_assert_not_reached();
    }
}

StepResult pipe_exec(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    StepResult r = exec_op(sm, w, si, op, t, cost);
    if (G_UNLIKELY(sm->opt.check_invariants)) {
        const char *broken = pipe_check_agreement(pipe_of_op(sm, w, op), w->tid0);
        if (broken != NULL) {
            g_error("pipeline invariant broken in warp %d at cycle %" G_GUINT64_FORMAT ": %s", w->id, t, broken);
        }
    }
    return r;
}

/* A wait_for's deadline timer fired: the split is still blocked (a
 * wake-up cancels the timer), so the wait returns false. */
static void ev_timeout(void *target, uint64_t split, SimCycle now)
{
    Warp *w = target;
    Sm *sm = w->sm;
    int32_t si = (int32_t) split;
    Split *s = &w->split[si];
    if (sm->engine.stop) {
        return;
    }
    g_assert(s->status == SPLIT_BLOCKED);
    if (sim_timer_is_armed(&s->wake)) {
        /* A wake-up due later (or queued later this cycle) comes too late;
         * it counts as the skipped event it used to be. */
        sim_engine_count_superseded(&sm->engine, sim_timer_cycle(&s->wake));
        sim_engine_timer_cancel(&sm->engine, &s->wake);
    }
    mbar_remove_waiter(&sm->blocks[w->block].mbars[s->wait_obj], w->id, si);
    s->step = 2;
    s->status = SPLIT_RUNNABLE;
    s->ready_at = now;
    s->wait = WAIT_NONE;
    if (w->split[w->focus].status != SPLIT_RUNNABLE) {
        w->focus = si;
    }
    if (w->focus == si) {
        sm_warp_schedule(sm, w);
    }
}

/* Arms the deadline of a wait_for whose split has just blocked. */
static void warp_schedule_timeout(Sm *sm, Warp *w, int32_t si, SimCycle deadline)
{
    g_assert(w->split[si].status == SPLIT_BLOCKED);
    sim_engine_timer_arm(&sm->engine, &w->split[si].deadline, MAX(deadline, sm->engine.now), ev_timeout, w,
                         (uint64_t) si);
}
