/* sm.c: assembles one SM for a program and drives it: occupancy limits,
 * warp-to-scheduler assignment, the ready/arbitration events, the stall
 * accounting (every warp-cycle in exactly one state), async barrier
 * actions, and the deadlock report.  Numbers: arch/NAME.ini. */
#include "models/sm_internal.h"

#include "models/arch_features.h"
#include "models/cl_exec.h"
#include "models/compiler.h"
#include "models/compute.h"
#include "models/ldst.h"
#include "models/pipe_exec.h"
#include "models/race.h"
#include "models/simt.h"
#include "models/sync.h"
#include "models/warp.h"

#include <math.h>
#include <stdio.h>

/* ------------------------------------------------------------ accounting */

SimRole sm_split_role(Sm *sm, Warp *w, Split *s)
{
    if (s->status == SPLIT_FREE || s->mask == 0) {
        return ROLE_NONE;
    }
    if (s->role >= 0) {
        return (SimRole) s->role;
    }
    const Block *b = &sm->blocks[w->block];
    int bits = -1;
    bool mixed = false;
    bool uniform = false;
    if (s->mask == 0xffffffffu) {
        /* A converged warp (every path merges back into one, once a loop
         * iteration): its 32 threads' role bytes compared 8 at a time with
         * the first one's; only a warp whose threads differ goes lane by
         * lane below, which finds it mixed. */
        const uint8_t *r = &b->thread_role[w->tid0];
        uint64_t same = UINT64_C(0x0101010101010101) * r[0];
        uint64_t word[4];
        memcpy(word, r, sizeof word);
        if (word[0] == same && word[1] == same && word[2] == same && word[3] == same) {
            bits = r[0];
            uniform = true;
        }
    }
    for (int l = 0; l < SIM_WARP_SIZE && !uniform; l++) {
        if (s->mask & (1u << l)) {
            int r = b->thread_role[w->tid0 + l];
            if (bits < 0) {
                bits = r;
            } else if (bits != r) {
                mixed = true;
            }
        }
    }
    SimRole role = mixed ? ROLE_MIXED
                   : bits == (ROLEBIT_PRODUCER | ROLEBIT_CONSUMER) ? ROLE_BOTH
                   : bits == ROLEBIT_PRODUCER ? ROLE_PRODUCER
                   : bits == ROLEBIT_CONSUMER ? ROLE_CONSUMER
                                              : ROLE_NONE;
    s->role = (int8_t) role;
    return role;
}

/* sm_split_role with its usual answer, the cached role, settled inline:
 * sm_account asks it twice per issued instruction. */
static inline SimRole split_role(Sm *sm, Warp *w, Split *s)
{
    if (s->status != SPLIT_FREE && s->mask != 0 && s->role >= 0) {
        return (SimRole) s->role;
    }
    return sm_split_role(sm, w, s);
}

/* Adds [since, at) to the warp's current state. */
void sm_account_flush(Warp *w, SimCycle at)
{
    Sm *sm = w->sm;
    if (at > w->since) {
        uint64_t d = at - w->since;
        w->state_cycles[w->acct] += d;
        if (sm->stats.line_state != NULL) {
            sm->stats.line_state[(size_t) w->line * WS__COUNT + warp_acct_state(w)] += d;
            if (w->stage >= 0 && w->stage < sm->stats.line_stage_slots) {
                uint64_t **row = &sm->stats.line_stage[w->line];
                if (*row == NULL) {
                    *row = g_new0(uint64_t, (size_t) sm->stats.line_stage_slots * WS__COUNT);
                }
                (*row)[(size_t) w->stage * WS__COUNT + warp_acct_state(w)] += d;
            }
        }
        if (sm->tl != NULL) {
            SimSliceArgs args = SIM_SLICE_ARGS_INIT;
            args.line = (uint32_t) w->line;
            args.stage = w->stage;
            args.barrier = w->barrier;
            sim_timeline_warp_slice(sm->tl, w->timeline_track, warp_acct_state(w), warp_acct_role(w), w->since, at,
                                    &args);
        }
        w->since = at;
    }
}

void sm_account_place(Warp *w, SimWarpState st, SimCycle at)
{
    Sm *sm = w->sm;
    if (at < w->since) {
        at = w->since;
    }
    SimRole role = w->live ? split_role(sm, w, &w->split[w->focus]) : ROLE_NONE;
    /* --by line: the line of the operation the warp is at (issuing it, or
     * waiting to); a new line starts a new stretch. */
    int32_t line = 0;
    int32_t stage = -1;
    const char *barrier = NULL;
    int32_t pc = w->split[w->focus].pc;
    if ((sm->stats.line_state != NULL || sm->tl != NULL) && w->live && pc >= 0 && (guint) pc < sm->prog->ops->len) {
        line = (int32_t) g_array_index(sm->prog->ops, Op, pc).loc.line;
        warp_op_place(sm, w, pc, &stage, &barrier);
    }
    if (warp_acct_key(role, st) == w->acct && line == w->line && stage == w->stage && barrier == w->barrier) {
        return;
    }
    sm_account_flush(w, at);
    w->since = at;
    w->acct = warp_acct_key(role, st);
    w->line = line;
    w->stage = stage;
    w->barrier = barrier;
}

/* --------------------------------------------------------------- events */


/* request_arbitration for the sub-partition whose decision runs, at a
 * cycle `at` no earlier than now or its next_free (the decision's own
 * requests, which know both): the request is held, and the earliest
 * stands. */
static inline void hold_request(Sm *sm, SimCycle at)
{
    /* decision_at is SIM_CYCLE_NEVER while no request is held. */
    if (at < sm->decision_at || !sm->decision_armed) {
        if (sm->decision_armed) {
            sim_engine_count_superseded(&sm->engine, sm->decision_at);
        }
        sm->decision_armed = true;
        sm->decision_at = at;
        sm->decision_seq = sim_engine_reserve_seq(&sm->engine);
    }
}

/* Asks for an arbitration of sub-partition smsp at cycle `at` unless one is
 * already due no later; an arbitration due later is moved to `at`.  While
 * smsp's decision runs, its timer is idle and the request is held
 * (decision_*) as the arming it would be, sequence number included, until
 * end_decision arms the one that stands: the warp the decision issues asks
 * first, and the decision's end usually moves that request earlier. */
static inline void request_arbitration(Sm *sm, int32_t smsp, SimCycle at)
{
    if (G_UNLIKELY(sm->opt.check_invariants) && sim_engine_timer_chained(&sm->engine, &sm->arbitration[smsp])) {
        /* sm_batch.c's premise: nothing asks a closed sub-partition. */
        g_error("sub-partition %d asked to decide while its batch replays", smsp);
    }
    at = MAX(at, MAX(sm->smsp[smsp].next_free, sm->engine.now));
    if (smsp == sm->deciding) {
        hold_request(sm, at);
        return;
    }
    SimTimer *t = &sm->arbitration[smsp];
    if (sim_timer_cycle(t) <= at) {
        return;
    }
    if (sim_timer_is_armed(t)) {
        /* Counted as the skipped event it used to leave behind. */
        sim_engine_count_superseded(&sm->engine, sim_timer_cycle(t));
    }
    sim_engine_timer_arm(&sm->engine, t, at, sm_ev_arbitrate, sm, (uint64_t) smsp);
}

/* The cycle a queued warp could issue: after its wait, its last issue and
 * its next instruction's pipe and operands, or its path to shared memory. */
static SimCycle ready_time_of(Sm *sm, Warp *w, SimCycle now)
{
    const Split *s = &w->split[w->focus];
    SimCycle issue = warp_issue_time(sm, w, now);
    return MAX(MAX(s->ready_at, w->busy_until), issue);
}

/* Caches the parts of a warp's ready time that only its own issue changes
 * (ready_base, ready_cls, and in mask mode their copies by bit, whose bit
 * is *slot); cached_ready_time adds its sub-partition's pipe.  It mirrors
 * warp_issue_time.  Returns the warp's issue time without the clock,
 * MAX(ready_base, pipe_free[ready_cls]). */
G_ALWAYS_INLINE static inline SimCycle cache_ready(Sm *sm, Scheduler *sched, Warp *w, int32_t *slot)
{
    const Split *s = &w->split[w->focus];
    const Op *op = sm_op(sm, s->pc);
    SimCycle base = MAX(s->ready_at, w->busy_until);
    int32_t cls = sm->arch.nclasses;
    if ((sm->op_flags[s->pc] & SM_OP_COMPUTE) && s->status == SPLIT_RUNNABLE) {
        if (s->step == 0) {
            cls = sm->class_map[op->value];
        } else {
            cls = s->cls;
            base = MAX(base, w->chain[s->chain_next]);
        }
    } else if (s->status == SPLIT_RUNNABLE) {
        base = ldst_issue_floor(sm, w, op, base);
    }
    sm->ready_base[w->id] = base;
    sm->ready_cls[w->id] = cls;
    if (sched->by_mask) {
        *slot = scheduler_slot(sched, w->id);
        sched->slot_base[*slot] = base;
        scheduler_slot_class(sched, *slot, cls);
    }
    return MAX(base, sched->pipe_free[cls]);
}

/* Under check_invariants: the cached ready time t of warp w, if queued,
 * is the one its state gives (arbitration may ask about a warp it took
 * off the list before it looks at `queued`, and ignores the answer). */
G_GNUC_NO_INLINE void sm_check_ready_cache(Sm *sm, Warp *w, SimCycle now, SimCycle t)
{
    if (w->queued && t != ready_time_of(sm, w, now)) {
        g_error("warp %d's cached ready time is stale at cycle %" G_GUINT64_FORMAT, w->id, now);
    }
}

/* ready_time_of from the cache, for queued warp `id` of scheduler s; it
 * reads no Warp, whose fields lie on cache lines kilobytes apart.  Under
 * check_invariants (the tests) it checks that nothing changed the warp
 * behind the cache's back. */
static inline SimCycle cached_ready_time(Sm *sm, const Scheduler *s, int32_t id, SimCycle now)
{
    SimCycle t = MAX(now, MAX(sm->ready_base[id], s->pipe_free[sm->ready_cls[id]]));
    if (G_UNLIKELY(sm->opt.check_invariants)) {
        sm_check_ready_cache(sm, &sm->warps[id], now, t);
    }
    return t;
}

/* Under check_invariants: queued warp w's issue time from cycle
 * `eligible` on, as the cache gives it, is t. */
G_GNUC_NO_INLINE void sm_check_issue_cache(Sm *sm, Warp *w, SimCycle eligible, SimCycle t)
{
    if (t != warp_issue_time(sm, w, eligible)) {
        g_error("warp %d's cached issue time is stale at cycle %" G_GUINT64_FORMAT, w->id, sm->engine.now);
    }
}

/* Ends sub-partition smsp's decision: its timer is armed for the request
 * that stands, if any, as request_arbitration would have armed it.
 * Inlined in arbitrate: called, once a decision, it costs more. */
G_ALWAYS_INLINE static inline void end_decision(Sm *sm, int32_t smsp)
{
    sm->deciding = -1;
    if (sm->decision_armed) {
        SimCycle at = sm->decision_at;
        sm->decision_armed = false;
        sm->decision_at = SIM_CYCLE_NEVER;
        sim_engine_timer_rearm_reserved(&sm->engine, &sm->arbitration[smsp], at, sm->decision_seq,
                                        sm_ev_arbitrate, sm, (uint64_t) smsp);
    }
}

static inline void warp_schedule(Sm *sm, Warp *w, bool deciding);

/* Issues visited warp w, already taken from s's ready warps: 1 when it
 * issued (s is busy until then), 0 when it issued nothing (the decision
 * tries the next warp), -1 when the run stopped. */
G_ALWAYS_INLINE static inline int issue_taken(Sm *sm, Scheduler *s, Warp *w, SimCycle now)
{
    w->queued = false;
    int64_t k = warp_issue(sm, w, now);
    if (k >= 0) {
        /* Back to its scheduler (inline here, once a decision). */
        warp_schedule(sm, w, true);
    }
    if (sm->engine.stop) {
        return -1;
    }
    if (k > 0) {
        SimCycle free = now + (SimCycle) k;
        /* Greedy holds the slot for a warp's math only: one whose next
         * operation is a control statement, a library call or a memory
         * operation takes its turn (scripts/calib/pipedrift.cu); control
         * the compiler folded away issues nothing to yield at. */
        int32_t pc = w->split[w->focus].pc;
        scheduler_set_issued(s, free,
                             w->live != 0 && (sm->op_flags[pc] & SM_OP_KEEPS_SLOT) ? free : SIM_CYCLE_NEVER);
        return 1;
    }
    return 0;
}

/* The visits of a decision over a ready list (list mode, scheduler.h):
 * the ready warps in policy order (scheduler_order), the first that can
 * issue now issues; one that issues nothing lets the next in that order
 * try.  Returns false when the run stopped. */
G_ALWAYS_INLINE static inline bool visit_list(Sm *sm, Scheduler *s, SimCycle now, bool checks)
{
    /* Sorting them is not needed: between issues nothing changes, so the
     * next visit that issues is the lowest-ranked warp that can issue now
     * among those ranked after the last visited. */
    int32_t n = s->nready;
    int32_t last = s->last;
    bool keep = scheduler_keeps_last(s, sm->arch.policy, now);
    /* The list as read: the list itself until a visit that took a warp out
     * issues nothing, then a copy in sm->order (only that visit removed a
     * warp, and the list grows only at its end). */
    const int32_t *order = s->ready;
    int64_t visited = INT64_MIN;
    for (;;) {
        int64_t best_rank = INT64_MAX;
        Warp *w = NULL;
        int32_t best_pos = -1;
        for (int32_t i = 0; i < n; i++) {
            int32_t id = order[i];
            int64_t rank = scheduler_block_rank(s, id) + scheduler_rank(sm->arch.policy, last, keep, id, i);
            /* Both tests are pure: the Warp is read last, for a candidate. */
            if (rank <= visited || rank >= best_rank || cached_ready_time(sm, s, id, now) > now ||
                !sm->warps[id].queued) {
                continue;
            }
            best_rank = rank;
            best_pos = i;
            w = &sm->warps[id];
        }
        if (w == NULL) {
            return true;
        }
        visited = best_rank;
        sm_catch_up(sm, w, now, MAX(sm->ready_base[w->id], s->pipe_free[sm->ready_cls[w->id]]), sm_warp_role(w), checks,
                 SM_ACCOUNT_ANY);
        /* On the first visit the list is as it was read: no search. */
        scheduler_take_at(s, w->id, best_pos);
        int issued = issue_taken(sm, s, w, now);
        if (issued != 0) {
            return issued > 0;
        }
        if (order == s->ready) {
            memcpy(sm->order, s->ready, (size_t) best_pos * sizeof *sm->order);
            sm->order[best_pos] = w->id;
            memcpy(&sm->order[best_pos + 1], &s->ready[best_pos], (size_t) (n - best_pos - 1) * sizeof *sm->order);
            order = sm->order;
        }
    }
}

/* visit_mask's visits over `bits`, ascending: 1 when a warp issued, -1
 * when the run stopped, 0 when none issued.  Called for each part of the
 * policy order, the bits stay in a register (a loop over an array of the
 * two parts kept them in memory). */
G_ALWAYS_INLINE static inline int visit_bits(Sm *sm, Scheduler *s, uint64_t bits, SimCycle now, bool checks)
{
    while (bits != 0) {
        int32_t slot = __builtin_ctzll(bits);
        bits &= bits - 1;
        /* cached_ready_time(sm, s, id, now) > now, without the clock,
         * from the bit's copy of the cache. */
        SimCycle pipe = MAX(s->slot_base[slot], s->pipe_free[s->slot_cls[slot]]);
        if (pipe > now) {
            continue;
        }
        Warp *w = &sm->warps[scheduler_slot_warp(s, slot)];
        sm_catch_up(sm, w, now, pipe, sm_warp_role(w), checks, SM_ACCOUNT_ANY);
        scheduler_take_slot(s, slot);
        int issued = issue_taken(sm, s, w, now);
        if (issued != 0) {
            return issued;
        }
    }
    return 0;
}

/* visit_list's visits over a ready mask (LRR, mask mode): the policy
 * order is the bits above the last warp's, then the bits up to it, each
 * part in ascending order (under older blocks first, so within each
 * block's bits, the oldest block's first).  A visit that issues nothing lets the next bit
 * in that order try: the warps still to try are the ones the decision read
 * and has not tried (the visited warp may have returned to the mask; it is
 * not tried again, and no other warp joins or leaves while a warp issues).
 * Returns false when the run stopped. */
G_ALWAYS_INLINE static inline bool visit_mask(Sm *sm, Scheduler *s, SimCycle now, bool checks)
{
    if (G_UNLIKELY(checks)) {
        for (uint64_t m = s->mask; m != 0; m &= m - 1) {
            (void) cached_ready_time(sm, s, scheduler_slot_warp(s, __builtin_ctzll(m)), now);
        }
    }
    uint64_t above = scheduler_first_bits(sm->arch.policy, s->last_slot, s->last_end, now);
    /* Both parts as read now: a visited warp may return to the mask. */
    uint64_t ready = s->mask;
    if (s->ngroups > 1) {
        /* Older blocks first: each block's warps in the policy order. */
        for (int32_t g = 0; g < s->ngroups; g++) {
            uint64_t bits = ready & s->groups[g];
            if (bits == 0) {
                continue;
            }
            int issued = visit_bits(sm, s, bits & above, now, checks);
            if (issued == 0) {
                issued = visit_bits(sm, s, bits & ~above, now, checks);
            }
            if (issued != 0) {
                return issued > 0;
            }
        }
        return true;
    }
    int issued = visit_bits(sm, s, ready & above, now, checks);
    if (issued == 0) {
        issued = visit_bits(sm, s, ready & ~above, now, checks);
    }
    return issued >= 0;
}

/* One issue decision of a sub-partition's scheduler at cycle now, among
 * the warps whose next instruction can issue now, in policy order; a warp
 * whose pipe is busy is skipped, as the hardware's dispatch does.
 * `checks` is opt.check_invariants, a constant in each of sm_ev_arbitrate's
 * two copies: asked from opt after every warp_issue call (which could have
 * changed it, for all the compiler knows), it cost a load and a test a
 * check, several a decision. */
G_ALWAYS_INLINE static inline void arbitrate(Sm *sm, int32_t smsp, SimCycle now, bool checks)
{
    Scheduler *s = &sm->smsp[smsp];
    if (now < s->next_free) {
        request_arbitration(sm, smsp, s->next_free);
        return;
    }
    /* The timer that fired is idle until end_decision. */
    sm->deciding = smsp;
    if (!(s->by_mask ? visit_mask(sm, s, now, checks) : visit_list(sm, s, now, checks))) {
        end_decision(sm, smsp);
        return;
    }
    /* The next decision: when the scheduler is free and a warp can issue.
     * It is never before `floor` (the next cycle, or when the scheduler is
     * free again; no earlier than now), so the scan stops at the first warp
     * ready by then: with many warps ready, the usual case, that spares
     * asking the others.  A warp's ready time is cached_ready_time's
     * without the clock: max(now, x) only matters below floor. */
    SimCycle floor = MAX(now + (s->next_free > now ? 0 : 1), s->next_free);
    const SimCycle *base = sm->ready_base;
    const int32_t *cls = sm->ready_cls;
    const SimCycle *pipe_free = s->pipe_free;
    SimCycle next = SIM_CYCLE_NEVER;
    /* A request held for floor or earlier (the issued warp's, or a woken
     * one's) stands whatever the scan finds (decision_at is
     * SIM_CYCLE_NEVER, after any floor, while none is held). */
    bool scan = sm->decision_at > floor;
    if (s->by_mask) {
        if (G_UNLIKELY(checks)) {
            for (uint64_t m = s->mask; m != 0; m &= m - 1) {
                int32_t slot = __builtin_ctzll(m);
                int32_t id = scheduler_slot_warp(s, slot);
                g_assert(sm->warps[id].queued);
                g_assert(s->slot_base[slot] == base[id] && s->slot_cls[slot] == cls[id]);
                g_assert(s->class_slots[cls[id]] & (UINT64_C(1) << slot));
                g_assert(s->classes & (UINT32_C(1) << cls[id]));
                (void) cached_ready_time(sm, s, id, now);
            }
        }
        next = scheduler_next_ready(s, scan, floor);
    } else {
        if (G_UNLIKELY(checks)) {
            for (int32_t i = 0; i < s->nready; i++) {
                (void) cached_ready_time(sm, s, s->ready[i], now);
            }
        }
        int32_t nscan = scan ? s->nready : 0;
        for (int32_t i = 0; i < nscan; i++) {
            int32_t id = s->ready[i];
            SimCycle t = MAX(base[id], pipe_free[cls[id]]);
            if (t < next) {
                next = t;
                if (next <= floor) {
                    break;
                }
            }
        }
    }
    if (next != SIM_CYCLE_NEVER) {
        /* floor is no earlier than now or next_free. */
        hold_request(sm, MAX(next, floor));
    }
    /* The next decision's cycle, if a request stands (else
     * SIM_CYCLE_NEVER): end_decision arms the timer for it. */
    SimCycle first = sm->decision_at;
    end_decision(sm, smsp);
    /* A batch ahead of the clock (sm_batch.c), tried only where at most one
     * queued warp is at another statement than a compute chain and that one
     * is not ready within SM_BATCH_GAP cycles of the next decision: a batch
     * ends before a decision would pick it, and a shorter one does not repay
     * the attempt (tested here, the failed attempt's call is spared).  With
     * two or more such warps the batches are short: fewer host instructions
     * (bench.trace at 32 warps -5.5%) but more wall time (the guide kernel
     * +4.6%: mispredicted branches and cache misses of their set-up and
     * their chained steps; docs/performance.md, item 40).  Warps not queued
     * bound it too (sm_batch.c). */
    if (s->nready >= 2 && first != SIM_CYCLE_NEVER && sm->batch_ok) {
        uint64_t other = s->class_slots[sm->arch.nclasses] & s->mask;
        if ((other & (other - 1)) == 0 &&
            (other == 0 || s->slot_base[__builtin_ctzll(other)] >= first + SM_BATCH_GAP)) {
            if (G_UNLIKELY(checks)) {
                sm_batch_closed_checked(sm, s, smsp);
            } else {
                sm_batch_closed(sm, s, smsp);
            }
        }
    }
}

/* Decisions in a row: smsp's at cycle now, then, while the next event
 * the engine would dispatch is a bound timer's (sim_engine_take_bound),
 * that one, which is nearly always another sub-partition's decision, run
 * here without a return to the engine's loop (a closed batch's replayed
 * decisions are its timer's chain, which the queue steps on its own).
 * The events, their order and the clock are the loop's. */
G_ALWAYS_INLINE static inline void arbitrate_run(Sm *sm, int32_t smsp, SimCycle now, bool checks)
{
    for (;;) {
        arbitrate(sm, smsp, now, checks);
        const SimEvent *ev = sim_engine_take_bound(&sm->engine);
        if (ev == NULL) {
            return;
        }
        /* The engine is this Sm's own (Sm.engine), so an event of its
         * handlers is for it: the handler says whose it is. */
        if (G_UNLIKELY(ev->fn != sm_ev_arbitrate)) {
            /* Read before the handler runs: it may arm the timer again. */
            SimEventFn fn = ev->fn;
            void *target = ev->target;
            uint64_t arg = ev->arg;
            fn(target, arg, sm->engine.now);
            return;
        }
        smsp = (int32_t) ev->arg;
        now = sm->engine.now;
    }
}

/* The sub-partition's arbitration timer fired (it is idle again). */
void sm_ev_arbitrate(void *target, uint64_t smsp, SimCycle now)
{
    Sm *sm = target;
    if (sm->engine.stop) {
        return;
    }
    if (G_UNLIKELY(sm->opt.check_invariants)) {
        arbitrate_run(sm, (int32_t) smsp, now, true);
    } else {
        arbitrate_run(sm, (int32_t) smsp, now, false);
    }
}

/* sm_warp_schedule's body, inline in the decision that issued w, where
 * `deciding` (a constant) says so: its sub-partition's decision runs, at
 * the clock, with next_free no later. */
G_ALWAYS_INLINE static inline void warp_schedule(Sm *sm, Warp *w, bool deciding)
{
    if (w->queued || w->live == 0) {
        return;
    }
    Split *s = &w->split[w->focus];
    if (s->status != SPLIT_RUNNABLE) {
        return;
    }
    w->queued = true;
    Scheduler *sched = &sm->smsp[w->smsp];
    int32_t slot = -1;
    SimCycle ready = cache_ready(sm, sched, w, &slot);
    if (sched->by_mask) {
        /* scheduler_enqueue, with the bit cache_ready found. */
        scheduler_enqueue_slot(sched, slot);
    } else {
        scheduler_enqueue_list(sched, w->id);
    }
    /* cached_ready_time(sm, sched, w->id, now), from the parts just
     * cached. */
    SimCycle now = sm->engine.now;
    SimCycle t = MAX(now, ready);
    if (G_UNLIKELY(sm->opt.check_invariants)) {
        sm_check_ready_cache(sm, w, now, t);
    }
    if (deciding) {
        hold_request(sm, t);
    } else {
        request_arbitration(sm, w->smsp, t);
    }
}

/* A warp whose focus path can run joins its scheduler's list (it stays
 * there through short waits; arbitration knows when it can issue). */
void sm_warp_schedule(Sm *sm, Warp *w)
{
    warp_schedule(sm, w, false);
}

/* A blocked split's wake timer fired: it runs again. */
static void ev_wake(void *target, uint64_t split, SimCycle now)
{
    Warp *w = target;
    Sm *sm = w->sm;
    int32_t idx = (int32_t) split;
    Split *s = &w->split[idx];
    if (sm->engine.stop) {
        return;
    }
    g_assert(s->status == SPLIT_BLOCKED);
    /* Woken before its wait_for's deadline: the time-out is moot. */
    sim_engine_timer_cancel(&sm->engine, &s->deadline);
    s->status = SPLIT_RUNNABLE;
    s->ready_at = now;
    s->wait = WAIT_NONE;
    if (w->focus != idx && w->split[w->focus].status != SPLIT_RUNNABLE) {
        w->focus = idx;
    }
    if (w->focus == idx) {
        sm_warp_schedule(sm, w);
    }
}

void sm_split_wake(Sm *sm, Warp *w, int32_t split, SimCycle at)
{
    Split *s = &w->split[split];
    g_assert(s->status == SPLIT_BLOCKED);
    at = MAX(at, sm->engine.now);
    if (sim_timer_is_armed(&s->wake)) {
        /* The earlier request wakes it (the one asked first, in a tie);
         * the other counts as the skipped event it used to be. */
        SimCycle due = sim_timer_cycle(&s->wake);
        sim_engine_count_superseded(&sm->engine, MAX(due, at));
        if (due <= at) {
            return;
        }
    }
    sim_engine_timer_arm(&sm->engine, &s->wake, at, ev_wake, w, (uint64_t) split);
}

static void ev_action(void *target, uint64_t idx, SimCycle now);

void sm_schedule_action(Sm *sm, SimCycle at, ActionKind kind, int32_t block, int32_t mbar, int64_t amount,
                        SrcLoc loc, int32_t warp, LaneMask lanes)
{
    int32_t i;
    if (sm->free_action >= 0) {
        i = sm->free_action;
        sm->free_action = g_array_index(sm->actions, Action, i).next_free;
    } else {
        Action a;
        memset(&a, 0, sizeof a);
        g_array_append_val(sm->actions, a);
        i = (int32_t) sm->actions->len - 1;
    }
    Action *a = &g_array_index(sm->actions, Action, i);
    a->kind = kind;
    a->block = block;
    a->mbar = mbar;
    a->amount = amount;
    a->loc = loc;
    a->warp = warp;
    a->lanes = lanes;
    a->next_free = -1;
    sm->pending_actions++;
    sim_engine_schedule(&sm->engine, MAX(at, sm->engine.now), ev_action, sm, (uint64_t) i);
}

/* An async arrival or tx completion lands (sync_apply_action). */
static void ev_action(void *target, uint64_t idx, SimCycle now)
{
    Sm *sm = target;
    Action a = g_array_index(sm->actions, Action, idx);
    g_array_index(sm->actions, Action, idx).next_free = sm->free_action;
    sm->free_action = (int32_t) idx;
    sm->pending_actions--;
    if (sm->engine.stop) {
        return;
    }
    sync_apply_action(sm, &a, now);
}

void sm_fail(Sm *sm, GError *err)
{
    sim_engine_fail(&sm->engine, err);
}

/* g_ptr_array_sort passes pointers to the elements: char **, not char *.
 * (g_strcmp0 itself would compare the bytes of the pointers, an order that
 * changes from run to run with the heap's layout.) */
static gint compare_strings(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* ------------------------------------------------------------ assembly */

int64_t sm_smem_per_block(const Program *prog, const ArchParams *arch)
{
    return prog->smem_bytes + arch->smem_reserved;
}

/* The operations' pre-decoded flags (SmOpFlag) for prog on arch, op_divs
 * being prog's divisions by operation.  Returns a new array (g_free), one
 * byte an operation and one for the end of the program (a join may name
 * it). */
static uint8_t *op_flags_new(const Program *prog, const ArchParams *arch, const int32_t *op_divs,
                             const bool *op_unrolled)
{
    guint n = prog->ops->len;
    uint8_t *flags = g_new0(uint8_t, n + 1);
    for (guint i = 0; i < n; i++) {
        const Op *op = &g_array_index(prog->ops, Op, i);
        bool pipe_call = op->code == OP_PIPE_ACQUIRE || op->code == OP_PIPE_COMMIT || op->code == OP_PIPE_WAIT ||
                         op->code == OP_PIPE_RELEASE;
        if (((op->code == OP_RETURN || op->code == OP_EXIT) || (pipe_call && arch->block_calls_drain)) &&
            arch->chain_overlap) {
            flags[i] |= SM_OP_DRAINS;
        }
        if (op->code == OP_ASSIGN || op->code == OP_JUMP || op->code == OP_BRANCH || op->code == OP_LOOP ||
            op->code == OP_ASSERT) {
            flags[i] |= SM_OP_CONTROL | SM_OP_SHADOWED;
        }
        if (pipe_call) {
            flags[i] |= SM_OP_SHADOWED;
        }
        /* warp.c's library_issue is 0 for any other operation. */
        if (op_divs[i] > 0 || pipe_call || (op->code == OP_MEMCPY && (GroupKind) op->sub != GROUP_THREAD)) {
            flags[i] |= SM_OP_START_COST;
        }
        if (op->code == OP_COMPUTE) {
            flags[i] |= SM_OP_COMPUTE | SM_OP_KEEPS_SLOT;
        }
        if (op_unrolled[i]) {
            flags[i] |= SM_OP_KEEPS_SLOT;
        }
    }
    for (guint i = 0; i < n; i++) {
        const Op *op = &g_array_index(prog->ops, Op, i);
        if ((op->code == OP_BRANCH || op->code == OP_LOOP_ENTER) && op->join >= 0 && (guint) op->join <= n) {
            flags[op->join] |= SM_OP_JOIN;
        }
    }
    return flags;
}

static bool check_fit(const Program *p, const ArchParams *a, GError **error)
{
    int64_t blocks = a->blocks;
    int64_t threads = p->block_threads * blocks;
    int64_t warps = p->warps * blocks;
    int64_t smem = sm_smem_per_block(p, a);
    int64_t granule = arch_register_granule(a);
    int64_t regs_per_warp = (a->regs_per_thread * SIM_WARP_SIZE + granule - 1) / granule * granule;
    int64_t regs = regs_per_warp * warps;
    const char *what = NULL;
    int64_t need = 0, have = 0;
    if (blocks > a->max_blocks) {
        what = "resident blocks", need = blocks, have = a->max_blocks;
    } else if (threads > a->max_threads) {
        what = "threads", need = threads, have = a->max_threads;
    } else if (warps > a->max_warps) {
        what = "warps", need = warps, have = a->max_warps;
    } else if (smem > a->smem_per_block) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT,
                    "%s: a block needs %" G_GINT64_FORMAT " bytes of shared memory (%" G_GINT64_FORMAT
                    " declared + %" G_GINT64_FORMAT " reserved), but a block may have at most %" G_GINT64_FORMAT
                    " on %s", p->trace->path, smem, p->smem_bytes, a->smem_reserved, a->smem_per_block, a->name);
        return false;
    } else if (smem * blocks > a->smem_bytes) {
        what = "bytes of shared memory", need = smem * blocks, have = a->smem_bytes;
    } else if (regs > a->registers) {
        what = "registers", need = regs, have = a->registers;
    }
    if (what != NULL) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT,
                    "%s: sm.blocks=%" G_GINT64_FORMAT " blocks of %" G_GINT64_FORMAT " threads need %" G_GINT64_FORMAT
                    " %s, but the SM of %s holds %" G_GINT64_FORMAT, p->trace->path, blocks, p->block_threads, need,
                    what, a->name, have);
        return false;
    }
    return true;
}

uint32_t sm_initial_word(int32_t buffer, int64_t word)
{
    /* A reproducible, non-trivial pattern (splitmix-style hash). */
    uint64_t x = ((uint64_t) (buffer + 1) << 40) ^ (uint64_t) word;
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return (uint32_t) (x ^ (x >> 31));
}

void sm_arch_for_program(const Program *prog, ArchParams *a)
{
    if (a->mma_clock_ratio <= 0.0 || a->mma_clock_ratio == 1.0) {
        return;
    }
    for (guint i = 0; i < prog->ops->len; i++) {
        const Op *op = &g_array_index(prog->ops, Op, i);
        bool classed = op->code == OP_COMPUTE && (op->obj < 0 || op->sub == COMPUTE_OPERANDS);
        if (classed && strcmp(g_ptr_array_index(prog->classes, op->value), "hmma") == 0) {
            arch_at_clock(a, a->clock_mhz * a->mma_clock_ratio);
            return;
        }
    }
}

Sm *sm_new(const Program *prog, const ArchParams *arch, const SmOptions *opt, GError **error)
{
    if (!check_fit(prog, arch, error)) {
        return NULL;
    }
    /* expect statements are checked on the functional model, which holds
     * every global array in memory. */
    if (prog->uses_expect && prog->global_bytes > SM_FUNCTIONAL_MAX_GLOBAL) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: expect checks values on the functional model, which holds"
                    " every global array: %" G_GINT64_FORMAT " bytes of global arrays are more than its %"
                    G_GINT64_FORMAT, prog->trace->path, prog->global_bytes, (int64_t) SM_FUNCTIONAL_MAX_GLOBAL);
        return NULL;
    }
    g_autoptr(Sm) sm = g_new0(Sm, 1);
    sm->prog = prog;
    sm->ops = (const Op *) prog->ops->data;
    sm->arch = *arch;
    sm->opt = *opt;
    sm->opt.functional = opt->functional || prog->uses_expect;
    sm->tl = opt->timeline;
    sm->account_place = opt->timeline != NULL || opt->by_line;
    sim_engine_init(&sm->engine, opt->engine);
    sm->engine.max_cycles = opt->max_cycles;
    sm->engine.check_invariants = opt->check_invariants;
    sm->nblocks = (int32_t) arch->blocks;
    sm->nwarps = (int32_t) (prog->warps * sm->nblocks);
    sim_stats_init(&sm->stats, sm->nwarps);
    if (opt->by_line) {
        /* One row per trace line an operation comes from, and row 0. */
        int64_t lines = 0;
        for (guint i = 0; i < prog->ops->len; i++) {
            lines = MAX(lines, (int64_t) g_array_index(prog->ops, Op, i).loc.line);
        }
        sm->stats.lines = lines;
        sm->stats.line_state = g_new0(uint64_t, (size_t) (lines + 1) * WS__COUNT);
        /* Per stage: rows made for the lines of pipeline calls as used. */
        int64_t slots = 0;
        for (guint i = 0; i < prog->pstates->len; i++) {
            slots = MAX(slots, g_array_index(prog->pstates, ProgPState, i).stages);
        }
        sm->stats.line_stage_slots = slots;
        sm->stats.line_stage = g_new0(uint64_t *, lines + 1);
    }
    sm->stats.blocks = sm->nblocks;
    sm->stats.threads_per_block = prog->block_threads;
    sm->actions = g_array_new(FALSE, TRUE, sizeof(Action));
    sm->copy_closed = g_array_new(FALSE, FALSE, sizeof(SimCycle));
    sm->compute_marks = g_new0(CycleQueue, arch->subpartitions);
    sm->mark_head = g_new0(guint, arch->subpartitions);
    sm->marks_fast = opt->check_invariants ? 0 : SM_MARKS_PENDING_MAX;
    sm->ops_limit = opt->max_ops != 0 ? opt->max_ops : UINT64_MAX;
    sm->smsp_live = g_new0(int32_t, arch->subpartitions);
    sm->free_action = -1;
    sm->warned = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    smem_init(&sm->smem, arch->smem_banks, arch->smem_bank_bytes, arch->smem_wavefront_bytes);
    smem_init_warps(&sm->smem, sm->nwarps, arch->smem_latency, arch->smem_warp_interval, arch->smem_warp_wave_cycles);
    smem_init_fill_port(&sm->smem, arch->smem_fill_port);
    /* The global arrays are the launch's (gridDim counts every block); the
     * SM's blocks compete for L2 with their share of them. */
    int64_t launch_blocks = arch->grid > 0 ? arch->grid : arch->blocks;
    mem_path_init(&sm->mem, arch, (int64_t) ((double) prog->global_bytes * (double) arch->blocks / (double) launch_blocks));
    copy_engine_init(&sm->cpa, arch);
    bulk_engine_init(&sm->bulk, arch);

    /* Instruction classes the program uses must exist. */
    sm->class_map = g_new0(int32_t, MAX(prog->classes->len, 1u));
    for (guint i = 0; i < prog->classes->len; i++) {
        const char *name = g_ptr_array_index(prog->classes, i);
        int c = arch_class_index(arch, name);
        if (c < 0) {
            GString *names = g_string_new(NULL);
            for (int k = 0; k < arch->nclasses; k++) {
                g_string_append_printf(names, "%s%s", k ? ", " : "", arch->classes[k].name);
            }
            /* Find the first use for the location. */
            SrcLoc loc = { 1, 1 };
            for (guint k = 0; k < prog->ops->len; k++) {
                const Op *op = &g_array_index(prog->ops, Op, k);
                if (op->code == OP_COMPUTE && op->value == (int64_t) i) {
                    loc = op->loc;
                    break;
                }
            }
            trace_set_error(error, SIM_ERROR_INPUT, prog->trace, loc, "unknown instruction class '%s' (%s has: %s)",
                            name, arch->name, names->str);
            g_string_free(names, TRUE);
            return NULL;
        }
        sm->class_map[i] = c;
    }
    sm->shadow_cls = arch->mma_shadow ? arch_class_index(arch, "hmma") : -1;

    /* Integer divisions and modulos an operation's expressions evaluate,
     * except by constant powers of two (a shift or a mask): the hardware
     * has no divider, so each costs sched.div_cycles issue slots; a loop's
     * invariant ones run once at its entry (compiler.c; the SASS of
     * `smpipe cuda traces/cutlass_multistage.trace --set stages=3`,
     * docs/validation/campaign/microbench/cutlass_multistage_s3.sass, has two
     * multiply-high sequences by 3 where the trace writes nine a batch). */
    for (int alone = 0; alone < 2; alone++) {
        double cpi = alone ? arch->int_cpi_alone : arch->int_cpi;
        sm->control_cycles[alone] = (int64_t) llround((double) arch->control_issue * cpi);
        sm->addr_cycles[alone] = (int64_t) llround((double) arch->addr_issue * cpi);
        sm->int_cycles[alone][0] = 0;
        for (int n = 1; n < SM_INT_CYCLES; n++) {
            sm->int_cycles[alone][n] = (int64_t) llround((double) n * cpi);
        }
    }
    sm->op_divs = compiler_divisions_by_op(prog);
    sm->op_unrolled = compiler_unrolled_ops(prog, arch->unroll_max);
    sm->op_rt_unrolled = compiler_runtime_unrolled(prog, arch->unroll_max);

    sm->op_fuse = compiler_fusable_computes(prog, sm->op_divs);
    sm->op_flags = op_flags_new(prog, arch, sm->op_divs, sm->op_unrolled);

    /* A pipeline object per make_pipeline operation. */
    sm->pipe_slot = g_new(int32_t, MAX(prog->ops->len, 1u));
    for (guint i = 0; i < prog->ops->len; i++) {
        const Op *op = &g_array_index(prog->ops, Op, i);
        sm->pipe_slot[i] = (op->code == OP_MAKE_PIPE_THREAD || op->code == OP_MAKE_PIPE_BLOCK) ? sm->npipes++ : -1;
    }

    sm->order = g_new0(int32_t, MAX(sm->nwarps, 1));
    sm->replay = g_new0(DecisionReplay, arch->subpartitions);
    sm->ready_base = g_new0(SimCycle, MAX(sm->nwarps, 1));
    sm->ready_cls = g_new0(int32_t, MAX(sm->nwarps, 1));
    sm->smsp = g_new0(Scheduler, arch->subpartitions);
    sm->arbitration = g_new0(SimTimer, arch->subpartitions);
    /* A busy sub-partition re-arms its decision every cycle or two. */
    for (int64_t i = 0; i < arch->subpartitions; i++) {
        sim_engine_timer_bind_slot(&sm->engine, &sm->arbitration[i]);
    }
    sm->deciding = -1;
    sm->decision_at = SIM_CYCLE_NEVER;
    for (int64_t i = 0; i < arch->subpartitions; i++) {
        scheduler_init(&sm->smsp[i], sm->nwarps, arch->nclasses);
        /* Warp w goes to sub-partition w mod subpartitions (below). */
        int32_t count = (int32_t) ((sm->nwarps - i + arch->subpartitions - 1) / arch->subpartitions);
        /* Every policy but GTO ranks by warp id (scheduler.h): a mask serves. */
        if (arch->policy != SCHED_GTO && count <= 64) {
            scheduler_use_mask(&sm->smsp[i], (int32_t) i, (int32_t) arch->subpartitions, count);
        }
        if (arch->older_blocks_first && sm->nblocks > 1) {
            scheduler_set_blocks(&sm->smsp[i], (int32_t) prog->warps);
        }
    }

    int32_t nmbars = (int32_t) prog->barriers->len;
    for (guint i = 0; i < prog->pstates->len; i++) {
        nmbars += (int32_t) (2 * g_array_index(prog->pstates, ProgPState, i).stages);
    }
    sm->blocks = g_new0(Block, sm->nblocks);
    for (int32_t b = 0; b < sm->nblocks; b++) {
        Block *blk = &sm->blocks[b];
        blk->id = b;
        blk->first_warp = (int32_t) (b * prog->warps);
        blk->threads = prog->block_threads;
        blk->live_threads = prog->block_threads;
        blk->nmbars = nmbars;
        blk->mbars = g_new0(MBarrier, MAX(nmbars, 1));
        for (int32_t k = 0; k < nmbars; k++) {
            mbar_init_storage(&blk->mbars[k]);
        }
        blk->pstate_base = g_new0(int32_t, MAX(prog->pstates->len, 1u));
        int32_t next = (int32_t) prog->barriers->len;
        for (guint i = 0; i < prog->pstates->len; i++) {
            blk->pstate_base[i] = next;
            next += (int32_t) (2 * g_array_index(prog->pstates, ProgPState, i).stages);
        }
        block_barrier_init(&blk->bar, prog->block_threads);
        blk->pipes = g_new0(Pipe, MAX(sm->npipes, 1));
        for (guint i = 0; i < prog->ops->len; i++) {
            if (sm->pipe_slot[i] >= 0) {
                const Op *op = &g_array_index(prog->ops, Op, i);
                pipe_init(&blk->pipes[sm->pipe_slot[i]], op->code == OP_MAKE_PIPE_BLOCK, (int32_t) i,
                          prog->block_threads);
            }
        }
        blk->pending_make = -1;
        blk->cl_pc = -1;
        blk->cl_arg_tid = -1;
        blk->cl_dir = g_new0(uint8_t, MAX(prog->pipes->len, 1u));
        blk->cl_dir_line = g_new0(uint32_t, MAX(prog->pipes->len, 1u));
        blk->thread_role = g_new0(uint8_t, prog->block_threads);
        if (sm->opt.functional) {
            blk->data_smem = g_new0(uint8_t, MAX(prog->smem_bytes, 1));
        }
    }
    if (sm->opt.functional) {
        sm->data_global_bytes = prog->global_bytes;
        sm->data_global = g_new0(uint8_t, MAX(prog->global_bytes, 1));
        for (guint i = 0; i < prog->buffers->len; i++) {
            const ProgBuffer *buf = &g_array_index(prog->buffers, ProgBuffer, i);
            if (buf->space != SPACE_GLOBAL) {
                continue;
            }
            uint8_t *base = sm->data_global + (buf->base - (INT64_C(1) << 32));
            for (int64_t wd = 0; wd * 4 < buf->bytes; wd++) {
                uint32_t v = sm_initial_word((int32_t) i, wd);
                memcpy(base + wd * 4, &v, (size_t) MIN((int64_t) 4, buf->bytes - wd * 4));
            }
        }
    }

    sm->nclpipes = (int32_t) prog->pipes->len;
    sm->clpipes = g_new0(ClPipe, MAX(sm->nclpipes, 1));
    for (int32_t i = 0; i < sm->nclpipes; i++) {
        const ProgPipe *pp = &g_array_index(prog->pipes, ProgPipe, i);
        cl_pipe_init(&sm->clpipes[i], pp->name, pp->capacity, pp->elem.size, sm->nblocks, prog->block_threads);
    }
    sm->cl_next_rid = 1;

    sm->warps = g_new0(Warp, sm->nwarps);
    for (int32_t i = 0; i < sm->nwarps; i++) {
        Warp *w = &sm->warps[i];
        w->sm = sm;
        w->wait_yields = arch->wait_yields;
        w->id = i;
        w->block = (int32_t) (i / prog->warps);
        w->index = (int32_t) (i % prog->warps);
        w->smsp = (int32_t) (i % arch->subpartitions);
        sm->smsp_live[w->smsp]++;
        w->tid0 = (int64_t) w->index * SIM_WARP_SIZE;
        int64_t n = MIN((int64_t) SIM_WARP_SIZE, prog->block_threads - w->tid0);
        w->exists = n >= 32 ? 0xffffffffu : ((1u << n) - 1);
        w->live = w->exists;
        w->vals = g_new0(int64_t, MAX(prog->value_slots, 1));
        if (sm->opt.functional) {
            w->data = g_new0(uint32_t, (size_t) MAX(prog->vars->len, 1u) * SIM_WARP_SIZE * 4);
        }
        w->groups = g_array_new(FALSE, FALSE, sizeof(CpGroup));
        w->frames = NULL;
        w->nframes = 0;
        for (int k = 0; k < MAX_SPLITS; k++) {
            w->split[k].status = SPLIT_FREE;
        }
        w->nsplits = 1;
        Split *s = &w->split[0];
        s->status = SPLIT_RUNNABLE;
        s->pc = 0;
        s->mask = w->live;
        s->frame = -1;
        s->role = -1;
        w->focus = 0;
        w->acct = warp_acct_key(ROLE_NONE, WS_NOT_SELECTED);
        w->stage = -1;
        if (sm->tl != NULL) {
            char name[96];
            g_snprintf(name, sizeof name, "warp %d (block %d, threads %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT ")",
                       w->index, w->block, w->tid0, w->tid0 + n - 1);
            w->timeline_track = sim_timeline_track(sm->tl, TRACK_WARP, name, i);
        }
    }
    sm->live_warps = sm->nwarps;
    if (opt->race_check) {
        sm->race = race_new(prog->block_threads, prog->smem_bytes, sm->nblocks, sm->npipes, nmbars);
    }
    return g_steal_pointer(&sm);
}

void sm_free(Sm *sm)
{
    if (sm == NULL) {
        return;
    }
    if (sm->blocks != NULL) {
        for (int32_t b = 0; b < sm->nblocks; b++) {
            Block *blk = &sm->blocks[b];
            for (int32_t k = 0; k < blk->nmbars; k++) {
                mbar_clear_storage(&blk->mbars[k]);
            }
            g_free(blk->mbars);
            g_free(blk->pstate_base);
            block_barrier_clear(&blk->bar);
            for (int32_t k = 0; k < sm->npipes; k++) {
                pipe_clear(&blk->pipes[k]);
            }
            g_free(blk->pipes);
            g_free(blk->thread_role);
            g_free(blk->data_smem);
            g_free(blk->cl_dir);
            g_free(blk->cl_dir_line);
        }
        g_free(sm->blocks);
    }
    if (sm->warps != NULL) {
        for (int32_t i = 0; i < sm->nwarps; i++) {
            g_free(sm->warps[i].vals);
            g_free(sm->warps[i].data);
            g_free(sm->warps[i].frames);
            if (sm->warps[i].groups) {
                g_array_free(sm->warps[i].groups, TRUE);
            }
        }
        g_free(sm->warps);
    }
    if (sm->smsp != NULL) {
        for (int64_t i = 0; i < sm->arch.subpartitions; i++) {
            scheduler_clear(&sm->smsp[i]);
        }
        g_free(sm->smsp);
    }
    g_free(sm->arbitration);
    g_free(sm->replay);
    if (sm->race != NULL) {
        race_free(sm->race);
    }
    for (int32_t i = 0; sm->clpipes != NULL && i < sm->nclpipes; i++) {
        cl_pipe_clear(&sm->clpipes[i]);
    }
    g_free(sm->clpipes);
    g_free(sm->class_map);
    g_free(sm->order);
    g_free(sm->ready_base);
    g_free(sm->ready_cls);
    g_free(sm->pipe_slot);
    g_free(sm->op_divs);
    g_free(sm->op_unrolled);
    g_free(sm->op_rt_unrolled);
    g_free(sm->op_fuse);
    g_free(sm->op_flags);
    g_free(sm->copy_tracks);
    g_free(sm->copy_track_free);
    g_free(sm->data_global);
    if (sm->actions) {
        g_array_free(sm->actions, TRUE);
    }
    if (sm->copy_closed) {
        g_array_free(sm->copy_closed, TRUE);
    }
    for (int64_t k = 0; sm->compute_marks && k < sm->arch.subpartitions; k++) {
        g_free(sm->compute_marks[k].v);
    }
    g_free(sm->compute_marks);
    g_free(sm->mark_head);
    g_free(sm->smsp_live);
    if (sm->warned) {
        g_hash_table_unref(sm->warned);
    }
    smem_clear(&sm->smem);
    mem_path_clear(&sm->mem);
    copy_engine_clear(&sm->cpa);
    sim_stats_clear(&sm->stats);
    sim_engine_clear(&sm->engine);
    g_free(sm);
}

/* --------------------------------------------------------------- running */

/* Closes every warp's accounting at cycle end: its cycles by role and
 * state reach the statistics. */
static void close_accounting(Sm *sm, SimCycle end)
{
    for (int32_t i = 0; i < sm->nwarps; i++) {
        Warp *w = &sm->warps[i];
        sm_account_flush(w, end);
        uint64_t *row = &sm->stats.warp_state[(size_t) i * WS__COUNT];
        for (int r = 0; r < ROLE__COUNT; r++) {
            for (int k = 0; k < WS__COUNT; k++) {
                uint64_t cycles = w->state_cycles[warp_acct_key((SimRole) r, (SimWarpState) k)];
                row[k] += cycles;
                sm->stats.role_state[r][k] += cycles;
            }
        }
    }
    for (int32_t i = 0; i < sm->nwarps; i++) {
        uint64_t *row = &sm->stats.warp_state[(size_t) i * WS__COUNT];
        for (int k = 0; k < WS__COUNT; k++) {
            sm->stats.state_total[k] += row[k];
        }
    }
}

/* The one place where the units' statistics reach the run's: each unit
 * merges the counters it keeps (the copy engines, the memory path, shared
 * memory, the OpenCL pipes), and the pipelines' stage records are summed
 * per pipeline_shared_state, over blocks and the pipelines made on it. */
static void merge_unit_stats(Sm *sm, SimCycle end)
{
    SimStats *st = &sm->stats;
    copy_engine_stats_merge(&sm->cpa, st);
    bulk_engine_stats_merge(&sm->bulk, st);
    mem_path_stats_merge(&sm->mem, st);
    smem_stats_merge(&sm->smem, st);
    const Program *p = sm->prog;
    for (guint ps = 0; ps < p->pstates->len; ps++) {
        const ProgPState *pst = &g_array_index(p->pstates, ProgPState, ps);
        SimStageStats *agg = NULL;
        for (int32_t b = 0; b < sm->nblocks; b++) {
            for (int32_t k = 0; k < sm->npipes; k++) {
                Pipe *pp = &sm->blocks[b].pipes[k];
                if (!pp->block_scope || pp->pstate != (int32_t) ps || pp->stats == NULL) {
                    continue;
                }
                if (agg == NULL) {
                    agg = sim_stage_stats_new(pst->name, pst->stages);
                }
                pipe_stats_merge(pp, end, agg);
            }
        }
        if (agg != NULL) {
            g_ptr_array_add(st->stages, agg);
        }
    }
    /* OpenCL pipes, in declaration order. */
    for (int32_t i = 0; i < sm->nclpipes; i++) {
        cl_pipe_stats_merge(&sm->clpipes[i], end, st);
    }
}

static void finish_stats(Sm *sm, SimCycle end)
{
    SimStats *st = &sm->stats;
    st->cycles = end;
    close_accounting(sm, end);
    sm_finalize_overlap(sm, SIM_CYCLE_NEVER);
    st->copy_busy += sm->copy_to - sm->copy_from;
    sm->copy_from = sm->copy_to = 0;
    /* A superseded request counts as the event it once was. */
    st->events = sim_engine_dispatched(&sm->engine) + sm->engine.superseded;
    st->peak_bytes_per_clk = sm->arch.l2_bytes_per_clk_sm;
    merge_unit_stats(sm, end);
    cl_pipes_finish(sm);
    /* Sorted by text, so that the order does not depend on which engine
     * or warp met a problem first. */
    g_ptr_array_sort(st->warnings, compare_strings);
}

bool sm_run(Sm *sm, GError **error)
{
    /* What a batch ahead of the clock must not reorder or skip: the
     * stepped engine's list (it proves the event engine's results), the
     * timeline's slices, per-line accounting, and an OpenCL pipe's roles
     * (cl_exec.c changes a thread's role bits); sm_batch.c keeps the
     * --max-ops count clear of its limit. */
    sm->batch_ok = sm->engine.kind == SIM_ENGINE_EVENT && sm->tl == NULL && !sm->account_place &&
                   sm->nclpipes == 0;
    /* The replays are the arbitration timer's chain, which a slot keeps. */
    /* A batch also reads the ready warps by bit (mask mode, fixed by
     * sm_new). */
    for (int64_t i = 0; i < sm->arch.subpartitions; i++) {
        sm->batch_ok = sm->batch_ok && sm->arbitration[i].in_slot && sm->smsp[i].by_mask;
    }
    for (int32_t i = 0; i < sm->nwarps; i++) {
        sm_warp_schedule(sm, &sm->warps[i]);
    }
    GError *err = NULL;
    bool ok = sim_engine_run(&sm->engine, &err);
    if (ok && sm->live_warps > 0) {
        sm_deadlock_error(sm, &err);
        ok = false;
    }
    SimCycle end = ok ? sm->end_cycle : sm->engine.now;
    for (int32_t i = 0; i < sm->nwarps && ok; i++) {
        end = MAX(end, sm->warps[i].exit_cycle);
    }
    finish_stats(sm, end);
    if (!ok) {
        g_propagate_error(error, err);
        return false;
    }
    return true;
}

const SimStats *sm_stats(const Sm *sm)
{
    return &sm->stats;
}

const uint8_t *sm_global_data(const Sm *sm, int32_t buffer, int64_t *bytes)
{
    if (sm->data_global == NULL || buffer < 0 || buffer >= (int32_t) sm->prog->buffers->len) {
        return NULL;
    }
    const ProgBuffer *b = &g_array_index(sm->prog->buffers, ProgBuffer, buffer);
    if (b->space != SPACE_GLOBAL) {
        return NULL;
    }
    *bytes = b->bytes;
    return sm->data_global + (b->base - (INT64_C(1) << 32));
}
