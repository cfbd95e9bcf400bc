/* sync.c: a warp's synchronisation operations (see sync.h).
 *
 * Hardware behaviour: mbarrier operations go through the SM's mbarrier unit
 * (barrier.h's MBarUnit); a thread waiting on a phase resumes when the
 * phase completes (sm_90 try_wait suspends; sm_80 libcudacxx polls
 * test_wait); __syncthreads is bar.sync 0 (BlockBarrier); __syncwarp and
 * the cooperative-groups waits block their lanes until the group arrives.
 *
 * Numbers: arch/NAME.ini [barrier] (syncthreads_base, syncthreads_per_warp,
 * mbarrier_arrive, mbarrier_*_interval, mbarrier_wake, mbarrier_poll,
 * wait_call, wait_call_copies) and [cp_async] wait_cycles, measured by
 * scripts/calib/sync.cu and mbarrier.cuh (docs/validation.md). */
#include "models/sync.h"

#include "models/arch_features.h"
#include "models/async_copy.h"
#include "models/pipe_exec.h"
#include "models/race.h"
#include "models/simt.h"

SimCycle sync_mbar_op_at(Sm *sm, SimCycle t)
{
    return mbar_unit_take(&sm->mbar_unit, t, sm->arch.mbar_arrive_interval);
}

SimCycle sync_mbar_wait_at(Sm *sm, SimCycle t)
{
    return mbar_unit_take(&sm->mbar_unit, t, sm->arch.mbar_wait_interval);
}

/* A path whose warp holds another path suspended in a try_wait resumes
 * barrier.mbarrier_wake_diverged later: the warp notices it when that
 * try_wait gives the warp up (scripts/calib/divwait.cu). */
static SimCycle diverged_wake(const Sm *sm, const Warp *w, int32_t si)
{
    /* Paths from nsplits on are free (simt_check): the pass stops there,
     * and reads a few cache lines of the warp instead of all its paths. */
    for (int32_t j = 0; j < w->nsplits; j++) {
        if (j != si && simt_waits_on_mbarrier(&w->split[j])) {
            return (SimCycle) sm->arch.mbar_wake_diverged;
        }
    }
    return 0;
}

void sync_barrier_wake(void *ctx, const BarrierWaiter *waiter, SimCycle now)
{
    Sm *sm = ctx;
    Warp *w = &sm->warps[waiter->warp];
    Split *s = &w->split[waiter->split];
    if (s->status != SPLIT_BLOCKED) {
        return;
    }
    SimCycle at;
    if (s->wait == WAIT_BLOCK_BAR) {
        at = now + block_barrier_cost(&sm->arch, sm->prog->warps);
    } else if (s->wait == WAIT_MBAR) {
        at = mbar_resume_at(&sm->arch, s->blocked_since, now);
        if (arch_mbar_wait_suspends(&sm->arch)) {
            at += mbar_unit_wake(&sm->mbar_unit, now, sm->arch.mbar_wake_per_waiter) + diverged_wake(sm, w, waiter->split);
        } else {
            sm->stats.poll_instructions += (at - s->blocked_since) / (SimCycle) sm->arch.mbar_poll;
        }
    } else {
        at = now;
    }
    sm_split_wake(sm, w, waiter->split, at);
}

void sync_apply_action(Sm *sm, const Action *a, SimCycle now)
{
    Block *b = &sm->blocks[a->block];
    MBarrier *m = &b->mbars[a->mbar];
    uint64_t before = m->phase;
    MBarStatus st = a->kind == ACT_ARRIVE ? mbar_arrive(m, a->amount, now, NULL, sync_barrier_wake, sm)
                                          : mbar_complete_tx(m, a->amount, now, sync_barrier_wake, sm);
    if (st != MBAR_OK) {
        g_autofree char *what = sm_describe_mbar(sm, a->block, a->mbar);
        warp_fail(sm, &sm->warps[a->warp], a->lanes, a->loc, SIM_ERROR_PROGRAM, "%s: %s (when its async copies completed)",
                  what, mbar_status_message(st));
        return;
    }
    pipe_note_phase(sm, b, a->mbar, before, now);
}
SimCycle sync_wait_call_cost(const Sm *sm, const Warp *w, LaneMask m, SimCycle t)
{
    /* A lane's copies complete at MAX(lane_copies[l], copies_all) (warp.h);
     * copies_max bounds every lane's and is one's. */
    if (m == 0 || w->copies_max <= t) {
        return (SimCycle) sm->arch.mbar_test;
    }
    if (m == 0xffffffffu || w->copies_all > t) {
        return (SimCycle) sm->arch.mbar_test_copies;
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if ((m & (1u << l)) && w->lane_copies[l] > t) {
            return (SimCycle) sm->arch.mbar_test_copies;
        }
    }
    return (SimCycle) sm->arch.mbar_test;
}

/* ------------------------------------------------------------- barriers */

static StepResult wait_mbar(Sm *sm, Warp *w, int32_t si, const Op *op, int32_t mbar, bool token, uint64_t value,
                            SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    MBarrier *mb = &sm->blocks[w->block].mbars[mbar];
    if (!mb->valid) {
        return RULE(sm, w, s->mask, op, "%s: %s", op_code_name(op->code), mbar_status_message(MBAR_UNINITIALIZED));
    }
    bool done = token ? mbar_token_done(mb, value) : mbar_parity_done(mb, value);
    /* Step 2: blocked in this wait, so stepped again only once woken
     * (sync_barrier_wake), whose resume time already holds the wake-up or
     * the polls and the call's cost: the call is not paid twice. */
    bool woken = s->step == 2;
    *cost = 1;
    if (done && sm->tl != NULL && mb->phase > 0) {
        /* The copies of the phase waited for (the token's, or for a parity
         * the last one completed). */
        sim_timeline_flow_end(sm->tl, FLOW_BARRIER, w->block, mbar, token ? value : mb->phase - 1, w->timeline_track,
                              t);
    }
    if (done) {
        if (sm->race) {
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if (s->mask & (1u << l)) {
                    race_barrier_observed(sm->race, w->block, w->tid0 + l, mbar, mb->phase);
                }
            }
        }
        s->step = 0;
        s->pc++;
        s->ready_at = woken ? t + 1 : sync_mbar_wait_at(sm, t) + sync_wait_call_cost(sm, w, s->mask, t);
        s->wait_state = WS_MBARRIER;
        return STEP_ISSUED;
    }
    BarrierWaiter wt = { w->id, si, token, value };
    mbar_add_waiter(mb, wt);
    s->step = 2;
    simt_block(w, s, WAIT_MBAR, WS_MBARRIER, mbar, value, token, t + 1);
    sm->stats.mbar_waits++;
    return STEP_ISSUED;
}

StepResult sync_exec_mbarrier(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    Block *b = &sm->blocks[w->block];
    LaneMask m = s->mask;
    int32_t mi = op->obj;
    MBarrier *mb = &b->mbars[mi];
    uint64_t before = mb->phase;
    MBarStatus st = MBAR_OK;
    uint64_t token = 0;
    switch (op->code) {
    case OP_BAR_INIT: {
        int64_t count;
        if (!warp_eval_same(sm, w, m, op, op->e[0], "init's count", &count)) {
            return STEP_STOP;
        }
        st = mbar_init(mb, count, t);
        if (st != MBAR_OK) {
            return RULE(sm, w, m, op, "init(barrier, %" G_GINT64_FORMAT "): %s", count, mbar_status_message(st));
        }
        s->pc++;
        *cost = 1;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    }
    case OP_BAR_ARRIVE:
    case OP_BAR_ARRIVE_TX:
    case OP_BAR_ARRIVE_WAIT: {
        if (s->step != 0) {
            /* arrive_and_wait's second half (step 1; 2 once it blocked). */
            return wait_mbar(sm, w, si, op, mi, true, (uint64_t) s->aux, t, cost);
        }
        int64_t count = 1;
        if (op->code != OP_BAR_ARRIVE_WAIT && !warp_eval_same(sm, w, m, op, op->e[0], "the arrival count", &count)) {
            return STEP_STOP;
        }
        if (op->code == OP_BAR_ARRIVE_TX) {
            int64_t bytes;
            if (!warp_eval_same(sm, w, m, op, op->e[1], "the transaction bytes", &bytes)) {
                return STEP_STOP;
            }
            if (!arch_has_mbar_tx(&sm->arch)) {
                return RULE(sm, w, m, op, "barrier_arrive_tx needs sm_90 (transaction counts)");
            }
            /* Range checks before multiplying by the lanes: a trace's
             * numbers can be anything (int64 overflow, fuzz review). */
            st = bytes < 0 || bytes > (int64_t) MBAR_MAX_COUNT
                     ? MBAR_BAD_TX : mbar_expect_tx(mb, bytes * lane_count(m), t, sync_barrier_wake, sm);
        }
        if (st == MBAR_OK) {
            st = count < 1 ? MBAR_BAD_COUNT
                 : count > (int64_t) MBAR_MAX_COUNT ? MBAR_OVER_ARRIVAL
                                                    : mbar_arrive(mb, count * lane_count(m), sync_mbar_op_at(sm, t), &token,
                                                                  sync_barrier_wake, sm);
        }
        if (st != MBAR_OK) {
            return RULE(sm, w, m, op, "%s: %s", op_code_name(op->code), mbar_status_message(st));
        }
        pipe_note_phase(sm, b, mi, before, t);
        if (op->var >= 0) {
            warp_store_lanes(w, sm_var(sm, op->var), m, (int64_t) token);
        }
        *cost = 1;
        if (op->code == OP_BAR_ARRIVE_WAIT) {
            s->step = 1;
            s->aux = (int64_t) token;
            s->ready_at = t + (SimCycle) sm->arch.mbar_arrive;
            s->wait_state = WS_MBARRIER;
            return STEP_ISSUED;
        }
        s->pc++;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    }
    case OP_BAR_EXPECT_TX: {
        int64_t bytes;
        if (!warp_eval_same(sm, w, m, op, op->e[0], "the transaction bytes", &bytes)) {
            return STEP_STOP;
        }
        if (!arch_has_mbar_tx(&sm->arch)) {
            return RULE(sm, w, m, op, "barrier_expect_tx needs sm_90 (transaction counts)");
        }
        st = bytes < 0 || bytes > (int64_t) MBAR_MAX_COUNT
                 ? MBAR_BAD_TX : mbar_expect_tx(mb, bytes * lane_count(m), t, sync_barrier_wake, sm);
        if (st != MBAR_OK) {
            return RULE(sm, w, m, op, "barrier_expect_tx: %s", mbar_status_message(st));
        }
        pipe_note_phase(sm, b, mi, before, t);
        s->pc++;
        *cost = 1;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    }
    case OP_BAR_WAIT:
    case OP_BAR_WAIT_PARITY: {
        int64_t v;
        if (!warp_eval_same(sm, w, m, op, op->e[0], op->code == OP_BAR_WAIT ? "the token" : "the parity", &v)) {
            return STEP_STOP;
        }
        return wait_mbar(sm, w, si, op, mi, op->code == OP_BAR_WAIT, (uint64_t) v, t, cost);
    }
    case OP_BAR_ARRIVE_DROP:
        st = mbar_arrive_drop(mb, lane_count(m), t, sync_barrier_wake, sm);
        if (st != MBAR_OK) {
            return RULE(sm, w, m, op, "arrive_and_drop: %s", mbar_status_message(st));
        }
        pipe_note_phase(sm, b, mi, before, t);
        s->pc++;
        *cost = 1;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    default:
        g_assert_not_reached();
    }
}

void sync_block_barrier_done(Sm *sm, int32_t block, uint64_t gen, SimCycle t)
{
    sm->stats.syncthreads++;
    if (sm->tl != NULL) {
        SimSliceArgs args = SIM_SLICE_ARGS_INIT;
        args.barrier = "__syncthreads";
        args.phase = (int64_t) gen;
        sim_timeline_instant(sm->tl, warp_barrier_track(sm, block), "__syncthreads: every thread arrived", t, &args);
    }
    sync_race_block_complete(sm, block);
}

void sync_race_block_complete(Sm *sm, int32_t block)
{
    if (sm->race == NULL) {
        return;
    }
    Block *b = &sm->blocks[block];
    uint64_t *phases = g_new(uint64_t, MAX(b->nmbars, 1));
    for (int32_t k = 0; k < b->nmbars; k++) {
        phases[k] = b->mbars[k].phase;
    }
    race_block_complete(sm->race, block, b->bar.generation, phases, b->nmbars);
    g_free(phases);
}

/* __syncthreads, first half: the lanes arrive and the split blocks. */
static StepResult block_sync_arrive(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    Block *b = &sm->blocks[w->block];
    if (sm->race) {
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (s->mask & (1u << l)) {
                race_block_arrive(sm->race, w->block, w->tid0 + l);
            }
        }
    }
    BarrierWaiter wt = { w->id, si, false, 0 };
    g_array_append_val(b->bar.waiters, wt);
    simt_block(w, s, WAIT_BLOCK_BAR, WS_BLOCK_BARRIER, 0, 0, false, t + 1);
    uint64_t gen = b->bar.generation;
    block_barrier_arrive(&b->bar, lane_count(s->mask), t, sync_barrier_wake, sm);
    if (b->bar.generation != gen) {
        sync_block_barrier_done(sm, w->block, gen, t);
    }
    *cost = 1;
    return STEP_ISSUED;
}

/* __syncthreads, second half: released by the barrier's completion. */
static void block_sync_pass(Sm *sm, Warp *w, int32_t si)
{
    Split *s = &w->split[si];
    if (sm->race) {
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (s->mask & (1u << l)) {
                race_block_pass(sm->race, w->block, w->tid0 + l, sm->blocks[w->block].bar.generation);
            }
        }
    }
}

StepResult sync_exec_syncthreads(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    if (s->step == 1) {
        block_sync_pass(sm, w, si);
        s->step = 0;
        s->pc++;
        return STEP_CONTINUE;
    }
    s->step = 1;
    return block_sync_arrive(sm, w, si, t, cost);
}

/* ----------------------------------------------- warp and tile syncs */

/* Whether lanes m, syncing over tiles of `lanes` threads (32: the warp),
 * may pass: every live lane of their tiles has arrived. */
static bool syncwarp_done(const Warp *w, LaneMask m, int64_t lanes)
{
    LaneMask need = lane_tiles(m, lanes) & w->live;
    return (w->syncwarp_arrived & need) == need;
}

/* Wakes, at cycle t, the splits blocked in a __syncwarp or a tile's sync
 * whose tiles have all arrived, and clears their lanes' arrivals; lanes
 * `also` (the caller's, syncing tiles of `lanes`) pass with them.  For the
 * race detector each tile's lanes passed one sync together. */
static void syncwarp_wake(Sm *sm, Warp *w, LaneMask also, int64_t lanes, SimCycle t)
{
    LaneMask passed = 0;
    for (int32_t i = 0; i < w->nsplits; i++) {
        Split *o = &w->split[i];
        if (o->status == SPLIT_BLOCKED && o->wait == WAIT_SYNCWARP && syncwarp_done(w, o->mask, (int64_t) o->wait_value)) {
            passed |= o->mask;
            lanes = also == 0 ? (int64_t) o->wait_value : lanes;
            sm_split_wake(sm, w, i, t);
        }
    }
    passed |= also;
    w->syncwarp_arrived &= ~passed;
    if (sm->race && passed != 0) {
        race_warp_sync(sm->race, w->block, w->tid0, passed, (int) lanes);
    }
}

void sync_lanes_exit(Sm *sm, Warp *w, SimCycle now)
{
    if (w->live != 0 && w->syncwarp_arrived != 0) {
        syncwarp_wake(sm, w, 0, SIM_WARP_SIZE, now);
    }
}

/* __syncwarp (op->value 0) or tiled_partition<N>'s sync (op->value N): the
 * split waits until every live lane of its tiles has arrived. */
StepResult sync_exec_syncwarp(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    if (s->step == 1) {
        s->step = 0;
        s->pc++;
        return STEP_CONTINUE;
    }
    int64_t lanes = op->value > 0 ? op->value : SIM_WARP_SIZE;
    w->syncwarp_arrived |= s->mask;
    *cost = 1;
    if (syncwarp_done(w, s->mask, lanes)) {
        syncwarp_wake(sm, w, s->mask, lanes, t + 1);
        s->pc++;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    }
    s->step = 1;
    simt_block(w, s, WAIT_SYNCWARP, WS_BLOCK_BARRIER, 0, (uint64_t) lanes, false, t + 1);
    return STEP_ISSUED;
}

StepResult sync_exec_cg_wait(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    switch (s->step) {
    case 0: {
        /* cp.async.wait_group N, then group.sync(). */
        SimCycle ready = async_wait_group_at(w, s->mask, op->value, async_wait_prior_call(&sm->arch, op->value), t);
        async_wait_group_done(sm, w, s->mask, op->value, MAX(ready, t + 1));
        s->step = op->sub == GROUP_BLOCK ? 1 : 3;
        *cost = 1;
        s->ready_at = MAX(ready, t + 1);
        s->wait_state = WS_ASYNC_WAIT;
        return STEP_ISSUED;
    }
    case 1:
        s->step = 2;
        return block_sync_arrive(sm, w, si, t, cost);
    case 2:
        block_sync_pass(sm, w, si);
        break;
    default:
        break;
    }
    s->step = 0;
    s->pc++;
    return STEP_CONTINUE;
}

