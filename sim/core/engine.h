/* engine.h: the simulation clock and event dispatch loop.
 *
 * The engine knows nothing of hardware: models schedule handlers at future
 * cycles, one-shot (sim_engine_schedule) or through a SimTimer they own and
 * may cancel or move (sim_engine_timer_arm), and the engine calls them in
 * (cycle, sequence) order.  An event is removed before its handler runs, so
 * a handler may schedule new events, itself included, and may re-arm the
 * timer that fired.  Two interchangeable loops exist:
 *   SIM_ENGINE_EVENT   jumps the clock straight to the next event (cost grows
 *                      with the number of events, not of cycles);
 *   SIM_ENGINE_STEPPED a deliberately simple reference that advances one
 *                      cycle at a time and scans an unsorted list; it must
 *                      give byte-identical results and exists to prove it. */
#pragma once

#include "sim/core/event_queue.h"

typedef enum {
    SIM_ENGINE_EVENT,
    SIM_ENGINE_STEPPED
} SimEngineKind;

typedef struct {
    SimEngineKind kind;
    SimCycle now;            /* current cycle */
    SimCycle max_cycles;     /* watchdog: stop with an error past it; 0 = none */
    SimCycle limit;          /* while the event loop runs, the latest cycle it
                              * dispatches: max_cycles, or SIM_CYCLE_NEVER for
                              * none (set once, read by sim_engine_take_bound) */
    SimEventQueue queue;     /* pending events (event engine); its sequence
                              * counter numbers the stepped engine's events too,
                              * so that sim_engine_reserve_seq needs no test */
    GArray *stepped;         /* pending SimEvent in queueing order (stepped); an
                              * entry with fn == NULL was handled or withdrawn */
    size_t stepped_live;     /* entries of stepped with a handler */
    uint64_t dispatched;     /* events handled so far by a handler
                              * (sim_engine_dispatched adds a chain's steps) */
    uint64_t superseded;     /* requests counted by sim_engine_count_superseded */
    SimCycle superseded_until; /* the latest cycle among them, 0 if none */
    bool check_invariants;   /* check the pending events and their timers
                              * (sim_event_queue_check) after every arming and
                              * cancelling: O(n) each, for the tests */
    bool inline_arm;         /* the event loop runs without check_invariants:
                              * sim_engine_timer_arm_reserved's inline case
                              * needs one test of the two (set by run_event) */
    bool stop;               /* set by a handler to end the run early */
    GError *error;           /* first error raised by a handler, owned */
} SimEngine;

void sim_engine_init(SimEngine *e, SimEngineKind kind);
void sim_engine_clear(SimEngine *e);

/* Schedules fn(target, arg) at cycle (>= now), once; it cannot be taken
 * back. */
void sim_engine_schedule(SimEngine *e, SimCycle cycle, SimEventFn fn,
                         void *target, uint64_t arg);

/* Arms t (owned by the caller, which keeps it until it fires or is
 * cancelled) to call fn(target, arg) at cycle (>= now).  It takes the next
 * sequence number, as sim_engine_schedule would at this point, so it fires
 * after the events already queued for that cycle.  An armed t is moved: the
 * earlier arming is withdrawn.  When it fires, t is idle before fn runs. */
void sim_engine_timer_arm(SimEngine *e, SimTimer *t, SimCycle cycle,
                          SimEventFn fn, void *target, uint64_t arg);
/* Withdraws t's arming; nothing happens when t is idle. */
void sim_engine_timer_cancel(SimEngine *e, SimTimer *t);
/* Asks for idle t (owned by the caller, which keeps it for the run) to
 * have a slot of the event queue to itself (sim_event_queue_bind_slot): for
 * a timer re-armed nearly every cycle.  Nothing changes but the cost: the
 * stepped engine keeps t in its list, and so does the event engine once
 * its slots are taken. */
void sim_engine_timer_bind_slot(SimEngine *e, SimTimer *t);

/* Gives armed t (owned by the caller) the handler fn: its event keeps its
 * cycle and its order among the pending events.  For an owner whose next
 * event, already armed, turns out to need other work. */
void sim_engine_timer_retarget(SimEngine *e, SimTimer *t, SimEventFn fn);

/* Chains armed t (owned by the caller), bound to a slot of the event queue
 * (sim_engine_timer_bind_slot; t->in_slot): when its event is due, in its
 * place among the pending events, t is armed again at at[0] with the next
 * sequence number, as a handler of its that only re-armed it there would
 * have done, and without a handler running; then at at[1], and so on.
 * Each of these n steps counts as an event handled
 * (sim_engine_dispatched).  After them t fires as armed, with its handler,
 * at at[n - 1].  at (not owned) must stay as it is until then, each cycle
 * no earlier than the one before it and after t's; t must not be armed or
 * cancelled meanwhile (sim_engine_timer_chained says whether it is still
 * chained).  For an owner whose next n events would only re-arm t: a
 * closed batch's decisions taken ahead of the clock (sm_batch.c). */
void sim_engine_timer_chain(SimEngine *e, SimTimer *t, const SimCycle *at, uint32_t n);

/* Whether t still has steps of a chain (sim_engine_timer_chain) to take. */
static inline bool sim_engine_timer_chained(const SimEngine *e, const SimTimer *t)
{
    return t->armed && t->in_slot && e->queue.slot_chain_len[t->pos] > 0;
}

/* Events handled so far, a chain's steps included. */
static inline uint64_t sim_engine_dispatched(const SimEngine *e)
{
    return e->dispatched + sim_event_queue_chain_steps(&e->queue);
}

/* Takes the sequence number that a schedule or an arming would take at
 * this point, for sim_engine_timer_arm_reserved: an owner that may move
 * its timer several times before it settles arms it once, in the order
 * its first request had. */
static inline uint64_t sim_engine_reserve_seq(SimEngine *e)
{
    return sim_event_queue_reserve(&e->queue);
}
/* Arms idle t (owned by the caller) to call fn(target, arg) at cycle
 * (>= now) with sequence number seq, which sim_engine_reserve_seq gave
 * and no arming used: t fires where an arming at the reservation would
 * have put it among the events of that cycle. */
void sim_engine_timer_arm_reserved_any(SimEngine *e, SimTimer *t, SimCycle cycle, uint64_t seq,
                                       SimEventFn fn, void *target, uint64_t arg);
static inline void sim_engine_timer_arm_reserved(SimEngine *e, SimTimer *t, SimCycle cycle, uint64_t seq,
                                                 SimEventFn fn, void *target, uint64_t arg)
{
    if (e->inline_arm && cycle >= e->now) {
        if (t->in_slot && !t->armed) {
            sim_event_queue_slot_arm(&e->queue, t, cycle, seq, fn, target, arg);
        } else {
            sim_event_queue_arm_seq(&e->queue, t, cycle, seq, fn, target, arg);
        }
        return;
    }
    sim_engine_timer_arm_reserved_any(e, t, cycle, seq, fn, target, arg);
}
/* sim_engine_timer_arm_reserved for a timer its owner arms for the same
 * call every time (target and arg those of every arming of t): inline, a
 * bound timer's slot keeps them from its last arming (t is idle, so its
 * entry is the one that last fired), and only the cycle, the sequence
 * number and the handler are written (a scheduler's next decision, and a
 * closed batch's replayed ones). */
static inline void sim_engine_timer_rearm_reserved(SimEngine *e, SimTimer *t, SimCycle cycle, uint64_t seq,
                                                   SimEventFn fn, void *target, uint64_t arg)
{
    if (e->inline_arm && t->in_slot) {
        sim_event_queue_slot_rearm(&e->queue, t, cycle, seq, fn);
        return;
    }
    /* The tests check the premises (t idle, cycle no earlier than now)
     * here, where check_invariants sends every arming. */
    g_assert(!e->check_invariants || !t->armed);
    sim_engine_timer_arm_reserved_any(e, t, cycle, seq, fn, target, arg);
}

/* Counts a request that the owner of a timer superseded (moved the timer
 * earlier, dropped the request as later than the arming that stands, or
 * cancelled the timer because something else came first) as one event
 * handled at `cycle`: `superseded` grows by one, and a run that ends for
 * want of events ends no earlier than `cycle`, under the watchdog like any
 * event.  Owners whose requests were each queued as an event before timers
 * could be cancelled (a superseded one was skipped when it fired) call it,
 * so that the events statistic and the cycle of a deadlock report stay
 * what they were (tests/golden). */
static inline void sim_engine_count_superseded(SimEngine *e, SimCycle cycle)
{
    e->superseded++;
    e->superseded_until = MAX(e->superseded_until, cycle);
}

/* The event loop's next step, for a handler that ends where the loop
 * would dispatch a bound timer's event next (sim_engine_timer_bind_slot):
 * when the run goes on and the earliest pending event is a bound timer's,
 * due within the watchdog's limit, takes it out (its timer idle), moves
 * the clock to it and counts it as handled, as the loop would before
 * calling its handler, and returns it, readable until its timer is armed
 * again; otherwise returns NULL and leaves everything as it was.  The
 * caller must then run the event's handler at once: a scheduler's next
 * decision is taken without the return to the loop and the call.  The
 * stepped engine binds no timer, so its queue has no slot armed and this
 * returns NULL there (without a test of the kind: one a decision). */
static inline const SimEvent *sim_engine_take_bound(SimEngine *e)
{
    if (e->stop) {
        return NULL;
    }
    const SimEvent *ev = sim_event_queue_pop_slot(&e->queue, e->limit);
    if (ev != NULL) {
        e->now = ev->cycle;
        e->dispatched++;
    }
    return ev;
}

/* Records err (taking ownership) as the run's error unless one is already
 * recorded, and stops the run. */
void sim_engine_fail(SimEngine *e, GError *err);

/* Runs until no event is left, a handler stops the run, or the watchdog
 * fires.  A run that runs out of events leaves now at the last event's
 * cycle or the latest superseded request's, whichever is later.  Returns
 * false with *error set on failure. */
bool sim_engine_run(SimEngine *e, GError **error);

/* True when an event is pending for cycle `at` (both loops answer alike,
 * so models may use it without making the engines diverge). */
bool sim_engine_pending_at(const SimEngine *e, SimCycle at);

/* Parses "event" or "stepped". */
bool sim_engine_kind_parse(const char *s, SimEngineKind *out);
