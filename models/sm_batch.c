/* sm_batch.c: a closed sub-partition's issue decisions taken ahead of the
 * clock, with their events replayed.
 *
 * No hardware behaviour of its own: the decisions are the ones sm.c's
 * arbitrate would take, one an event, at the same cycles, with the same
 * statistics and the same order of events.  Why: a sub-partition whose
 * warps all sit in compute chains issues a chain step a cycle and nothing
 * else reads those steps until the chain ends, so taking a run of them in
 * one loop spares each its event and decision (docs/performance.md, items
 * 24, 25 and 30).  sm.c's arbitrate calls sm_batch_closed after a
 * decision; the decisions' events replay as the sub-partition's timer's
 * chain (sim_engine_timer_chain) until the batch's last hands back to
 * sm_ev_arbitrate.  A batch that settles into a period of decisions takes
 * its further periods whole (period_jump; docs/performance.md, item 42). */
#include "models/sm_internal.h"

#include "models/arch_features.h"
#include "models/barrier.h"
#include "models/compute.h"
#include "models/simt.h"
#include "models/warp.h"

/* Whether every thread of w's warp has a role byte already (a converged
 * warp of 32 threads): the roles only grow from 0 (pipe_exec.c), so its
 * role cannot change, even where an event clears the cached one.  Once
 * true it stays true (batches run without OpenCL pipes, whose cl_exec.c
 * ORs role bits in), so w remembers it (Warp.roles_fixed): every attempt
 * at a batch asks it of every warp. */
static bool warp_roles_fixed(const Sm *sm, Warp *w)
{
    if (w->roles_fixed) {
        return true;
    }
    const uint8_t *r = sm->blocks[w->block].thread_role;
    if (r == NULL) {
        return false;
    }
    uint64_t word[4];
    memcpy(word, &r[w->tid0], sizeof word);
    for (int k = 0; k < 4; k++) {
        /* A zero byte sets its top bit here. */
        if (((word[k] - UINT64_C(0x0101010101010101)) & ~word[k] & UINT64_C(0x8080808080808080)) != 0) {
            return false;
        }
    }
    w->roles_fixed = true;
    return true;
}

/* The earliest cycle at which a warp of sub-partition smsp (s) that is not
 * queued could join it again, SIM_CYCLE_NEVER when every warp with live
 * threads is queued, or 0 when that cannot be bounded.  A warp with live
 * threads that is not queued has its focus path blocked (warp_schedule
 * queues a runnable one); a converged one, blocked on an mbarrier or at the
 * block barrier, runs again only when its wake or deadline timer fires
 * (sm_split_wake, pipe_exec.c's time-out).  Those already armed give their
 * cycles; one armed later is asked for by an event at the clock or after
 * it, for a barrier's completion no earlier than that event (every caller
 * of sync_barrier_wake passes its own cycle or a later one), and
 * sync_barrier_wake adds at least the barrier's resume cost: for an
 * mbarrier barrier.mbarrier_wake where the wait suspends (mbar_resume_at,
 * the wake-up's rank and a diverged warp's delay only add) and
 * barrier.mbarrier_test where it polls (the polls end no earlier than the
 * completion), for the block barrier block_barrier_cost.  Any other wait
 * (a collective, __syncwarp, OpenCL's), or a diverged warp, gives 0. */
static SimCycle batch_wake_bound(const Sm *sm, const Scheduler *s)
{
    const ArchParams *a = &sm->arch;
    SimCycle now = sm->engine.now;
    SimCycle bound = SIM_CYCLE_NEVER;
    for (int32_t j = 0; j < 64; j++) {
        int32_t id = scheduler_slot_warp(s, j);
        if (id >= sm->nwarps) {
            break;
        }
        const Warp *w = &sm->warps[id];
        if ((s->mask & (UINT64_C(1) << j)) != 0 || w->live == 0) {
            continue;
        }
        const Split *f = &w->split[w->focus];
        if (w->nsplits != 1 || f->status != SPLIT_BLOCKED) {
            return 0;
        }
        SimCycle resume;
        if (f->wait == WAIT_MBAR) {
            resume = (SimCycle) (arch_mbar_wait_suspends(a) ? a->mbar_wake : a->mbar_test);
        } else if (f->wait == WAIT_BLOCK_BAR) {
            resume = block_barrier_cost(a, sm->prog->warps);
        } else {
            return 0;
        }
        bound = MIN(bound, now + resume);
        bound = MIN(bound, MIN(sim_timer_cycle(&f->wake), sim_timer_cycle(&f->deadline)));
    }
    return bound;
}

/* The bits of `mask` from the first in policy order (those in `above`,
 * ascending, then the others) whose warp's own ready time is by t on:
 * its lowest bit is the one a decision at t picks; 0 if none. */
G_ALWAYS_INLINE static inline uint64_t first_ready(uint64_t mask, uint64_t above, const SimCycle *slot_base, SimCycle t)
{
    uint64_t bits = mask & above;
    if (bits == 0 || slot_base[__builtin_ctzll(bits)] > t) {
        for (bits &= bits - 1; bits != 0 && slot_base[__builtin_ctzll(bits)] > t; bits &= bits - 1) {
        }
        if (bits == 0) {
            for (bits = mask & ~above; bits != 0 && slot_base[__builtin_ctzll(bits)] > t; bits &= bits - 1) {
            }
        }
    }
    return bits;
}

/* ------------------------------------------------------ steady state
 *
 * A closed batch whose chain warps all issue on one pipe soon settles into
 * a period: after P decisions over D cycles every chain warp's cycles
 * (its ready time, busy-until, accounting `since` and chains' results),
 * its accounting key, wait and next chain, the pipe and the scheduler's
 * last warp are those of P decisions before plus D, so each further
 * period takes the same decisions at cycles D later, with the same
 * accounting adds, issues and superseded requests (a decision reads only
 * differences of those cycles: sm.c's arbitrate and batch_closed_run
 * below).  Such periods are taken at once (period_jump), as many as
 * end before anything that breaks the period could: a chain warp's count
 * left reaching its last step, the batch's limit, another warp's ready
 * time, the replay's room.  Why: with long chains (compute_iters 32 and
 * more) these decisions are most of a run's host instructions. */

/* The decisions after the batch's first before its first snapshot: the
 * batch's warps have settled by then, most often. */
#define PERIOD_WARMUP 8
/* Snapshots taken again after a mismatch, at most, before the batch gives
 * its period up. */
#define PERIOD_TRIES 6

/* The index of split f's i-th chain from its next one on. */
static inline int32_t chain_at(const Split *f, int64_t i)
{
    return (int32_t) ((f->chain_next + i) % f->aux);
}

/* Takes the batch's snapshot before decision n at cycle t (every warp of
 * `chains`); false when the batch has too many chain warps or chains, or
 * when a chain warp has too few steps left for a period to be seen and
 * three more taken (a period is most often one decision a chain warp:
 * their chains are compared from the next one on). */
static bool period_take(Sm *sm, const Scheduler *s, uint64_t chains, BatchPeriod *b, int32_t n, SimCycle t,
                        int32_t last_slot, SimCycle last_end, SimCycle pf, SimCycle horizon, int64_t interval)
{
    /* The cheap tests first, with one chain a warp (the least it has). */
    int32_t nwarps = __builtin_popcountll(chains);
    SimCycle step = (SimCycle) MAX(interval, 1);
    if (nwarps > SM_PERIOD_WARPS || n + 4 * nwarps > SM_REPLAY_MAX || horizon <= t ||
        horizon - t < (SimCycle) (4 * nwarps) * step) {
        return false;
    }
    b->n = n;
    b->t = t;
    b->last_slot = last_slot;
    b->last_end_rel = last_end - t;
    b->pf_rel = pf - t;
    b->superseded = sm->engine.superseded;
    int32_t k = 0;
    for (uint64_t m = chains; m != 0; m &= m - 1, k++) {
        int32_t j = __builtin_ctzll(m);
        const Warp *w = &sm->warps[scheduler_slot_warp(s, j)];
        const Split *f = &w->split[w->focus];
        if (f->aux > SM_PERIOD_CHAINS || f->aux < 1 || f->remaining < 6) {
            return false;
        }
        PeriodWarp *p = &b->w[k];
        p->rel[0] = s->slot_base[j] - t;
        p->rel[1] = f->ready_at - t;
        p->rel[2] = w->busy_until - t;
        p->rel[3] = w->since - t;
        /* The chains from the next one on: a decision reads and writes
         * them only in that order (compute_issue_link_bare,
         * compute_next_ready), so states whose chains match so are the
         * same, whichever chain is next. */
        for (int64_t i = 0; i < f->aux; i++) {
            p->rel[4 + i] = w->chain[chain_at(f, i)] - t;
        }
        p->acct = w->acct;
        p->wait_state = (int32_t) f->wait_state;
        p->remaining = f->remaining;
        memcpy(p->cycles, &w->state_cycles[warp_acct_key((SimRole) f->role, 0)], sizeof p->cycles);
    }
    b->nwarps = k;
    b->span = k;
    /* Room for four such periods, in the replay and before the horizon
     * (the batch's limit or another warp's ready time), a decision each
     * pipe interval at best: one to see the period, the others to repay
     * the snapshot. */
    return n + 4 * b->span <= SM_REPLAY_MAX && horizon - t >= (SimCycle) (4 * b->span) * step;
}

/* Whether the batch's state before a decision at cycle t is the
 * snapshot's, a period later (cycles compared less their clocks). */
static bool period_same(const Sm *sm, const Scheduler *s, uint64_t chains, const BatchPeriod *b, SimCycle t,
                        int32_t last_slot, SimCycle last_end, SimCycle pf)
{
    if (last_slot != b->last_slot || last_end - t != b->last_end_rel || pf - t != b->pf_rel) {
        return false;
    }
    int32_t k = 0;
    for (uint64_t m = chains; m != 0; m &= m - 1, k++) {
        int32_t j = __builtin_ctzll(m);
        const Warp *w = &sm->warps[scheduler_slot_warp(s, j)];
        const Split *f = &w->split[w->focus];
        const PeriodWarp *p = &b->w[k];
        if (s->slot_base[j] - t != p->rel[0] || f->ready_at - t != p->rel[1] || w->busy_until - t != p->rel[2] ||
            w->since - t != p->rel[3] || w->acct != p->acct || (int32_t) f->wait_state != p->wait_state) {
            return false;
        }
        for (int64_t i = 0; i < f->aux; i++) {
            if (w->chain[chain_at(f, i)] - t != p->rel[4 + i]) {
                return false;
            }
        }
    }
    return true;
}

/* The state before decision n at cycle *t is snapshot b's a period later:
 * takes as many more periods at once as the batch would take anyway (see
 * above), writing their decisions' compute marks and replay cycles and
 * their accounting, issues and superseded requests, and moves the chain
 * warps, the pipe (*pf), the last warp's end (*last_end), the clock (*t)
 * and the count (*n) past them.  The engine's superseded_until holds the
 * latest superseded request of the period (0 if none: batch_closed_run
 * keeps the earlier ones). */
static void period_jump(Sm *sm, Scheduler *s, uint64_t chains, const BatchPeriod *b, DecisionReplay *r,
                        SimCycle *marks, int32_t *n, SimCycle *t, SimCycle *pf, SimCycle *last_end, SimCycle limit,
                        SimCycle other_ready)
{
    int32_t p = *n - b->n;
    SimCycle d = *t - b->t;
    /* Room in the replay; the last decision of the periods taken (a
     * period's before its end, plus d each) within the limit; the first
     * after them before another warp is ready. */
    int64_t m = (SM_REPLAY_MAX - *n) / p;
    SimCycle last = marks[*n - 1];
    if (limit != SIM_CYCLE_NEVER) {
        m = limit < last ? 0 : MIN(m, (int64_t) ((limit - last) / d));
    }
    if (other_ready != SIM_CYCLE_NEVER) {
        m = other_ready <= *t ? 0 : MIN(m, (int64_t) ((other_ready - 1 - *t) / d));
    }
    /* Each chain warp's picks keep more than its last step left. */
    int32_t k = 0;
    for (uint64_t bits = chains; bits != 0; bits &= bits - 1, k++) {
        const Warp *w = &sm->warps[scheduler_slot_warp(s, __builtin_ctzll(bits))];
        int64_t issued = b->w[k].remaining - w->split[w->focus].remaining;
        if (issued > 0) {
            m = MIN(m, (w->split[w->focus].remaining - 1) / issued);
        }
    }
    if (m <= 0) {
        return;
    }
    for (int64_t i = 1; i <= m; i++) {
        SimCycle shift = (SimCycle) i * d;
        int32_t to = *n + (int32_t) (i - 1) * p;
        for (int32_t q = 0; q < p; q++) {
            marks[to + q] = marks[b->n + q] + shift;
            r->at[to + q] = r->at[b->n + q] + shift;
        }
    }
    SimCycle total = (SimCycle) m * d;
    uint64_t superseded = sm->engine.superseded - b->superseded;
    if (superseded > 0) {
        sm->engine.superseded += (uint64_t) m * superseded;
        sm->engine.superseded_until += total;
    }
    k = 0;
    for (uint64_t bits = chains; bits != 0; bits &= bits - 1, k++) {
        int32_t j = __builtin_ctzll(bits);
        Warp *w = &sm->warps[scheduler_slot_warp(s, j)];
        Split *f = &w->split[w->focus];
        const PeriodWarp *pw = &b->w[k];
        s->slot_base[j] += total;
        sm->ready_base[w->id] = s->slot_base[j];
        f->ready_at += total;
        w->busy_until += total;
        w->since += total;
        /* Each issue moves the next chain on by one: after the periods'
         * issues the chains from the next one on are the period's, later
         * by total. */
        int64_t issued = m * (pw->remaining - f->remaining);
        SimCycle chain[SM_PERIOD_CHAINS];
        for (int64_t i = 0; i < f->aux; i++) {
            chain[i] = w->chain[chain_at(f, i)] + total;
        }
        f->chain_next = (int32_t) ((f->chain_next + issued) % f->aux);
        for (int64_t i = 0; i < f->aux; i++) {
            w->chain[chain_at(f, i)] = chain[i];
        }
        f->remaining -= issued;
        uint64_t *cycles = &w->state_cycles[warp_acct_key((SimRole) f->role, 0)];
        for (int32_t st = 0; st < WARP_ACCT_STATES; st++) {
            cycles[st] += (uint64_t) m * (cycles[st] - pw->cycles[st]);
        }
    }
    *pf += total;
    *last_end += total;
    *t += total;
    *n += (int32_t) m * p;
}

/* Sub-partition smsp's decisions ahead of the clock, while it is closed:
 * every warp of it with live threads is queued and converged (one path, so
 * no timer armed), or a warp not queued cannot join before a known cycle
 * (batch_wake_bound), before which the decisions stay.  Nothing another
 * unit does then reaches it: a wake-up needs a warp that is not queued,
 * and a queued warp changes only when it issues.  A decision that issues a compute chain's step (under way, not
 * its last) touches nothing another event reads (its warp, pipe and marks,
 * their accounting; the statistics are sums), so such decisions are taken
 * now, each as sm.c's arbitrate would take it at its cycle (below), until a
 * decision would pick a warp at another statement or at its chain's last
 * step.  The warps at a chain must be on one instruction class, with their
 * roles cached and fixed (an event that clears a cached role leaves the
 * same one to find again).  What the order of events still needs is
 * replayed: each decision's event is due at its cycle (the one the
 * decision before it armed: `n` counts them) and arms the next with the
 * sequence number that decision would have reserved then, which is what
 * the timer's chain does in the event queue without a handler (the timer
 * stays armed with sm_ev_arbitrate), so the first decision after the
 * batch, taken as usual, orders among its cycle's events as before and
 * each replayed one counts as an event.  The timer is armed for the first
 * (the decision that just ended armed it).
 *
 * Every warp stays queued (each issue returns it, with its class and bit).
 * The warps at a chain wait for the one pipe, the others for none (their
 * own ready time, slot_base, holds a load's or store's path), and no
 * decision is taken before the pipe is free, so a decision at t picks the
 * first warp in policy order whose own ready time (slot_base) is by t, and
 * the next is at arbitrate's scan from floor t + 1 (the earliest chain's
 * ready time and the pipe, or another warp's, if before the issued warp's
 * own request, which it then supersedes). */
G_ALWAYS_INLINE static inline void batch_closed_run(Sm *sm, Scheduler *s, int32_t smsp, bool checks,
                                                     SchedPolicy policy)
{
    SimTimer *timer = &sm->arbitration[smsp];
    /* The next decision must find the scheduler free (else it only asks
     * for one when it is: a visit that issued nothing can hold a request
     * before the issue that followed it ends). */
    if (!sim_timer_is_armed(timer) || sim_timer_cycle(timer) < s->next_free) {
        return;
    }
    uint64_t mask = s->mask;
    SimCycle *slot_base = s->slot_base;
    /* The warps at another statement than a chain (they wait for no
     * pipe): the batch ends before a decision would pick one. */
    uint64_t other = mask & s->class_slots[sm->arch.nclasses];
    uint64_t chains = mask & ~other;
    int32_t last_slot = s->last_slot;
    SimCycle last_end = s->last_end;
    SimCycle t = sim_timer_cycle(timer);
    SimCycle limit = SIM_CYCLE_NEVER;
    SimCycle other_ready = SIM_CYCLE_NEVER;
    /* The class and its pipe's next free cycle, in locals for the batch
     * (the pipe written back at its end, and at each step with the
     * checks, which read it): kept in memory, each would be loaded again
     * after every store to a cycle, which may alias them. */
    InstClass icl = { 0 };
    SimCycle *pipe_free = NULL;
    SimCycle pf = 0;
    DecisionReplay *r = &sm->replay[smsp];
    uint64_t max_ops = sm->opt.max_ops;
    SimCycle *marks = NULL;
    int32_t n = 0;
    /* The steady state (period_jump): the snapshot, taken at decision
     * `take_at` (-1: none to take), compared where the last warp is
     * `watch` again (-2 before it is taken or once given up); snapshots
     * left to take.  In locals: two compares a step. */
    BatchPeriod *period = &r->period;
    int32_t take_at = checks ? -1 : PERIOD_WARMUP;
    int32_t watch = -2;
    int32_t tries = PERIOD_TRIES;
    /* While a snapshot stands, SimEngine.superseded_until holds only the
     * latest superseded request since it (a period's, for period_jump),
     * the one before it being kept here (no test a step). */
    SimCycle superseded_until = 0;
    bool superseded_held = false;
    while (n < SM_REPLAY_MAX) {
        /* visit_mask's order at t (scheduler_keeps_last: greedy keeps
         * the last warp while it issues back to back); a warp at a chain
         * waits for the one pipe too, free by t (checked below). */
        uint64_t above = scheduler_first_bits(policy, last_slot, last_end, t);
        uint64_t bits = 0;
        if (s->ngroups > 1) {
            /* Older blocks first: each block's bits in the policy order. */
            for (int32_t g = 0; g < s->ngroups && bits == 0; g++) {
                bits = first_ready(mask & s->groups[g], above, slot_base, t);
            }
        } else {
            bits = first_ready(mask, above, slot_base, t);
        }
        if (bits == 0) {
            break;
        }
        int32_t slot = __builtin_ctzll(bits);
        Warp *w = &sm->warps[scheduler_slot_warp(s, slot)];
        Split *f = &w->split[w->focus];
        /* Another statement, or a step that ends the chain
         * (compute_exec's): the next decision takes it as usual. */
        if ((other & (UINT64_C(1) << slot)) != 0 || f->remaining <= 1) {
            break;
        }
        if (n == 0) {
            /* The batch has a decision to take: is the sub-partition
             * closed, each chain on the one class, and the other warps
             * not ready soon (else the batch is too short for its
             * set-up)? */
            for (uint64_t m = other; m != 0; m &= m - 1) {
                other_ready = MIN(other_ready, slot_base[__builtin_ctzll(m)]);
            }
            if (other_ready < t + SM_BATCH_GAP) {
                return;
            }
            /* Warps not queued: decisions only before any of them could
             * join (batch_wake_bound), so that nothing asks the
             * sub-partition while its batch replays. */
            SimCycle wake = s->nready == sm->smsp_live[smsp] ? SIM_CYCLE_NEVER : batch_wake_bound(sm, s);
            if (wake < t + SM_BATCH_GAP) {
                return;
            }
            int32_t cls = s->slot_cls[slot];
            for (uint64_t m = mask; m != 0; m &= m - 1) {
                int32_t j = __builtin_ctzll(m);
                Warp *o = &sm->warps[scheduler_slot_warp(s, j)];
                const Split *of = &o->split[o->focus];
                if (o->nsplits != 1) {
                    return;
                }
                if ((other & (UINT64_C(1) << j)) == 0 &&
                    (s->slot_cls[j] != cls || of->step == 0 || of->role < 0 || of->mask != ~(LaneMask) 0 ||
                     sm->class_map[sm_op(sm, of->pc)->value] != cls || !warp_roles_fixed(sm, o))) {
                    return;
                }
            }
            icl = sm->arch.classes[cls];
            pipe_free = &s->pipe_free[cls];
            pf = *pipe_free;
            /* Nothing past the watchdog's limit: the run stops there. */
            limit = MIN(sm->engine.max_cycles != 0 ? sm->engine.max_cycles : SIM_CYCLE_NEVER, wake - 1);
            /* --max-ops: the batch's steps count now, ahead of the other
             * warps' operations until its last cycle, so it stops while
             * even the most those could run meanwhile (every warp's
             * longest run, each cycle) and its own steps keep the count
             * below the limit, where no operation fails. */
            if (max_ops != 0) {
                uint64_t per_cycle = (uint64_t) sm->nwarps * WARP_MAX_CONTROL_RUN;
                uint64_t mine = SM_REPLAY_MAX + 1;
                if (sm->ops_executed >= max_ops || max_ops - sm->ops_executed <= mine + per_cycle) {
                    return;
                }
                SimCycle cycles = (max_ops - sm->ops_executed - mine) / per_cycle;
                limit = MIN(limit, sm->engine.now + cycles - 1);
            }
            /* The steps' compute marks, written as they issue and noted
             * together at the end (sm_note_compute_many). */
            if (!checks) {
                marks = sm_note_compute_room(sm, smsp, SM_REPLAY_MAX);
            }
        }
        if (t > limit || pf > t) {
            break;
        }
        /* The visit's catch_up, with the issue time it read, and the
         * role the warp keeps (without account_place, batch_ok). */
        SimRole role = (SimRole) f->role;
        sm_catch_up(sm, w, t, MAX(slot_base[slot], pf), role, checks, SM_ACCOUNT_CHAIN);
        /* warp_issue's chain step (compute_exec_chain) and issue_end: the
         * focus stays runnable, so simt_refocus has nothing to do.  Its
         * statistics are counted at the end, its mark noted then too
         * (checked, now). */
        compute_issue_link_bare(w, f, &icl, &pf, t);
        if (G_UNLIKELY(checks)) {
            *pipe_free = pf;
            sm_note_compute(sm, smsp, t);
        } else {
            marks[n] = t;
        }
        compute_next_ready(sm, w, f, pf, t);
        /* Read once, before the accounting's stores (which may alias
         * them): the split's ready time (at least t + 1), its wait and
         * its next link's input. */
        SimCycle ready = f->ready_at;
        SimWarpState wait = f->wait_state;
        SimCycle input = w->chain[f->chain_next];
        if (G_UNLIKELY(checks)) {
            simt_require(w, t);
        }
        w->busy_until = t + 1;
        sm_account_form(w, ready > t + 1 ? wait : WS_NOT_SELECTED, t + 1, role, SM_ACCOUNT_PLAIN);
        /* Back to the scheduler (warp_schedule, cache_ready): its class
         * and bit stay. */
        SimCycle base = MAX(ready, input);
        sm->ready_base[w->id] = base;
        slot_base[slot] = base;
        if (G_UNLIKELY(checks)) {
            scheduler_set_last_slot(s, slot);
            sm_check_ready_cache(sm, w, t, MAX(t, MAX(base, pf)));
        }
        /* issue_taken: one cycle, and the next operation is math. */
        last_slot = slot;
        last_end = t + 1;
        /* The warp's request, and the scan's from floor t + 1: the
         * earliest chain's (its pipe's) or other warp's. */
        SimCycle held = MAX(base, pf);
        SimCycle bound = MAX(pf, t + 1);
        SimCycle next = held;
        for (uint64_t m = chains; m != 0 && next > bound; m &= m - 1) {
            next = MIN(next, slot_base[__builtin_ctzll(m)]);
        }
        next = MAX(MIN(MAX(next, bound), other_ready), t + 1);
        if (next < held) {
            sim_engine_count_superseded(&sm->engine, held);
        }
        r->at[n++] = next;
        t = next;
        /* The steady state: a snapshot after the warm-up, compared with
         * the state each time the same warp was the last again, and taken
         * again where no period of the likely length came (without the
         * checks, which follow each step). */
        if (G_UNLIKELY(last_slot == watch || n == take_at)) {
            if (watch >= 0 && period_same(sm, s, chains, period, t, last_slot, last_end, pf)) {
                period_jump(sm, s, chains, period, r, marks, &n, &t, &pf, &last_end, limit, other_ready);
                watch = -2;
            } else if (watch >= 0 && n - period->n < 2 * period->span) {
                /* Not yet: the period may be longer. */
            } else if (tries > 0 && period_take(sm, s, chains, period, n, t, last_slot, last_end, pf,
                                                MIN(limit, other_ready), icl.interval)) {
                watch = last_slot;
                superseded_until = MAX(superseded_until, sm->engine.superseded_until);
                sm->engine.superseded_until = 0;
                superseded_held = true;
                tries--;
            } else {
                watch = -2;
            }
            take_at = -1;
        }
    }
    if (superseded_held) {
        sm->engine.superseded_until = MAX(sm->engine.superseded_until, superseded_until);
    }
    if (n > 0) {
        *pipe_free = pf;
        if (max_ops != 0) {
            sm->ops_executed += (uint64_t) n;
        }
        sm->stats.instructions += (uint64_t) n;
        sm->stats.compute_instructions += (uint64_t) n;
        if (!checks) {
            sm_note_compute_many(sm, smsp, (guint) n);
        }
        /* The armed decision is the batch's first: it replays, and so do
         * the others but the last, whose next decision is sm.c's. */
        sim_engine_timer_chain(&sm->engine, timer, r->at, (uint32_t) n);
        scheduler_set_last_slot(s, last_slot);
        scheduler_set_issued(s, last_end, last_end);
    }
}

/* batch_closed_run with `checks` a constant in each copy, as in
 * sm_ev_arbitrate's two (sm.c's arbitrate), and, without the checks, the
 * policy too for the two the bundled architectures use (greedy on h100 and
 * h200, lrr on a100): asked at run time, their tests in each step cost
 * about 16 and 8 host instructions a batched decision. */
G_GNUC_NO_INLINE void sm_batch_closed_checked(Sm *sm, Scheduler *s, int32_t smsp)
{
    batch_closed_run(sm, s, smsp, true, sm->arch.policy);
}

G_GNUC_NO_INLINE void sm_batch_closed(Sm *sm, Scheduler *s, int32_t smsp)
{
    switch (sm->arch.policy) {
    case SCHED_GREEDY:
        batch_closed_run(sm, s, smsp, false, SCHED_GREEDY);
        break;
    case SCHED_LRR:
        batch_closed_run(sm, s, smsp, false, SCHED_LRR);
        break;
    default:
        batch_closed_run(sm, s, smsp, false, sm->arch.policy);
        break;
    }
}
