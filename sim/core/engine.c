/* engine.c: the two dispatch loops of SimEngine. */
#include "sim/core/engine.h"

void sim_engine_init(SimEngine *e, SimEngineKind kind)
{
    memset(e, 0, sizeof *e);
    e->kind = kind;
    sim_event_queue_init(&e->queue);
    if (kind == SIM_ENGINE_STEPPED) {
        e->stepped = g_array_new(FALSE, FALSE, sizeof(SimEvent));
    }
}

void sim_engine_clear(SimEngine *e)
{
    sim_event_queue_clear(&e->queue);
    if (e->stepped) {
        g_array_free(e->stepped, TRUE);
        e->stepped = NULL;
    }
    g_clear_error(&e->error);
}

/* Appends an entry to the stepped engine's list and tells its timer, if
 * any, where it is. */
static void stepped_append(SimEngine *e, SimEvent ev)
{
    if (ev.timer != NULL) {
        ev.timer->pos = e->stepped->len;
    }
    g_array_append_val(e->stepped, ev);
    e->stepped_live++;
}

void sim_engine_schedule(SimEngine *e, SimCycle cycle, SimEventFn fn,
                         void *target, uint64_t arg)
{
    g_assert(cycle >= e->now);
    if (e->kind == SIM_ENGINE_EVENT) {
        sim_event_queue_push(&e->queue, cycle, fn, target, arg);
    } else {
        SimEvent ev = { cycle, e->queue.next_seq++, fn, target, arg, NULL };
        stepped_append(e, ev);
    }
}

/* Takes a stepped entry out (handled or withdrawn): its handler no longer
 * runs, and its timer, if any, is idle. */
static void stepped_drop(SimEngine *e, SimEvent *ev)
{
    if (ev->timer != NULL) {
        ev->timer->armed = false;
    }
    ev->fn = NULL;
    ev->timer = NULL;
    e->stepped_live--;
}

/* Under check_invariants: the pending events and their timers agree (the
 * heap's invariant, event_queue.h; the stepped list's timers know their
 * entries). */
static void check_pending(const SimEngine *e)
{
    if (!e->check_invariants) {
        return;
    }
    const char *broken = NULL;
    if (e->kind == SIM_ENGINE_EVENT) {
        broken = sim_event_queue_check(&e->queue);
    }
    for (guint i = 0; e->stepped != NULL && i < e->stepped->len && broken == NULL; i++) {
        const SimEvent *ev = &g_array_index(e->stepped, SimEvent, i);
        const SimTimer *t = ev->timer;
        if (t != NULL && (ev->fn == NULL || !t->armed || t->pos != i || t->cycle != ev->cycle)) {
            broken = "a timer's entry is not where its timer says";
        }
    }
    if (broken != NULL) {
        g_error("event queue invariant broken at cycle %" G_GUINT64_FORMAT ": %s", e->now, broken);
    }
}

void sim_engine_timer_cancel(SimEngine *e, SimTimer *t)
{
    if (e->kind == SIM_ENGINE_EVENT) {
        sim_event_queue_cancel(&e->queue, t);
    } else if (t->armed) {
        stepped_drop(e, &g_array_index(e->stepped, SimEvent, t->pos));
    }
    check_pending(e);
}

void sim_engine_timer_retarget(SimEngine *e, SimTimer *t, SimEventFn fn)
{
    g_assert(t->armed);
    if (e->kind == SIM_ENGINE_EVENT) {
        sim_event_queue_retarget(&e->queue, t, fn);
    } else {
        g_array_index(e->stepped, SimEvent, t->pos).fn = fn;
    }
    check_pending(e);
}

void sim_engine_timer_chain(SimEngine *e, SimTimer *t, const SimCycle *at, uint32_t n)
{
    g_assert(e->kind == SIM_ENGINE_EVENT && t->armed && t->in_slot);
    g_assert(n == 0 || at[0] > t->cycle);
    sim_event_queue_slot_chain(&e->queue, t, at, n);
}

void sim_engine_timer_bind_slot(SimEngine *e, SimTimer *t)
{
    if (e->kind == SIM_ENGINE_EVENT) {
        (void) sim_event_queue_bind_slot(&e->queue, t);
    }
}

void sim_engine_timer_arm(SimEngine *e, SimTimer *t, SimCycle cycle,
                          SimEventFn fn, void *target, uint64_t arg)
{
    g_assert(cycle >= e->now);
    if (e->kind == SIM_ENGINE_EVENT) {
        sim_event_queue_arm(&e->queue, t, cycle, fn, target, arg);
        check_pending(e);
        return;
    }
    /* The reference list stays in queueing order: a move is a cancel and
     * an append. */
    sim_engine_timer_cancel(e, t);
    SimEvent ev = { cycle, e->queue.next_seq++, fn, target, arg, t };
    t->cycle = cycle;
    t->armed = true;
    stepped_append(e, ev);
    check_pending(e);
}

/* sim_engine_timer_arm_reserved's general case (the stepped engine, the
 * invariant checks, the assertion on cycle). */
void sim_engine_timer_arm_reserved_any(SimEngine *e, SimTimer *t, SimCycle cycle, uint64_t seq,
                                       SimEventFn fn, void *target, uint64_t arg)
{
    g_assert(cycle >= e->now);
    if (e->kind == SIM_ENGINE_EVENT) {
        sim_event_queue_arm_seq(&e->queue, t, cycle, seq, fn, target, arg);
        check_pending(e);
        return;
    }
    /* The reference list is in queueing (sequence) order: the entry goes
     * before the newer ones at its end. */
    g_assert(!t->armed && seq < e->queue.next_seq);
    guint at = e->stepped->len;
    while (at > 0 && g_array_index(e->stepped, SimEvent, at - 1).seq > seq) {
        at--;
    }
    SimEvent ev = { cycle, seq, fn, target, arg, t };
    t->cycle = cycle;
    t->armed = true;
    g_array_insert_val(e->stepped, at, ev);
    e->stepped_live++;
    for (guint i = at; i < e->stepped->len; i++) {
        SimEvent *later = &g_array_index(e->stepped, SimEvent, i);
        if (later->timer != NULL) {
            later->timer->pos = i;
        }
    }
    check_pending(e);
}

void sim_engine_fail(SimEngine *e, GError *err)
{
    if (e->error == NULL) {
        e->error = err;
    } else {
        g_error_free(err);
    }
    e->stop = true;
}

static bool watchdog(SimEngine *e, SimCycle next, GError **error)
{
    if (e->max_cycles != 0 && next > e->max_cycles) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_LIMIT,
                    "watchdog: the program is still running at cycle %" G_GUINT64_FORMAT
                    " (--max-cycles=%" G_GUINT64_FORMAT "); raise --max-cycles if it is"
                    " just long, or look for a loop that never ends",
                    e->max_cycles, e->max_cycles);
        e->now = e->max_cycles;
        return false;
    }
    return true;
}

/* The events ran out: the clock goes on to the latest superseded request,
 * as it did to the skipped event that each once was
 * (sim_engine_count_superseded). */
static bool run_out(SimEngine *e, GError **error)
{
    if (e->stop || e->superseded_until <= e->now) {
        return true;
    }
    if (!watchdog(e, e->superseded_until, error)) {
        return false;
    }
    e->now = e->superseded_until;
    return true;
}

static bool run_event(SimEngine *e, GError **error)
{
    SimEvent ev;
    /* The watchdog's limit: an event due later is left in the queue. */
    SimCycle limit = e->max_cycles != 0 ? e->max_cycles : SIM_CYCLE_NEVER;
    e->limit = limit;
    e->inline_arm = !e->check_invariants;
    while (!e->stop && sim_event_queue_len(&e->queue) > 0) {
        /* A bound timer's (a scheduler's next decision), nearly every time:
         * no copy, no call. */
        const SimEvent *next = sim_event_queue_pop_slot(&e->queue, limit);
        if (next == NULL) {
            if (!sim_event_queue_pop_later(&e->queue, limit, &ev)) {
                return watchdog(e, sim_event_queue_peek_cycle(&e->queue), error);
            }
            next = &ev;
        }
        /* Read before the handler runs: it may arm a slot's timer again. */
        SimEventFn fn = next->fn;
        void *target = next->target;
        uint64_t arg = next->arg;
        e->now = next->cycle;
        e->dispatched++;
        fn(target, arg, e->now);
    }
    return run_out(e, error);
}

/* Reference loop: one cycle per iteration; at each cycle, every event due
 * now is handled in queueing order, including events that handlers add for
 * the same cycle (they are appended, so the scan reaches them). */
static bool run_stepped(SimEngine *e, GError **error)
{
    while (!e->stop && e->stepped_live > 0) {
        if (!watchdog(e, e->now, error)) {
            return false;
        }
        for (guint i = 0; i < e->stepped->len && !e->stop; i++) {
            SimEvent *ev = &g_array_index(e->stepped, SimEvent, i);
            if (ev->fn == NULL || ev->cycle != e->now) {
                continue;
            }
            SimEvent copy = *ev;
            /* Removed before its handler runs, which may re-arm its timer. */
            stepped_drop(e, ev);
            e->dispatched++;
            copy.fn(copy.target, copy.arg, e->now);
        }
        /* Compact: drop handled entries, keeping queueing order. */
        guint w = 0;
        for (guint i = 0; i < e->stepped->len; i++) {
            SimEvent *ev = &g_array_index(e->stepped, SimEvent, i);
            if (ev->fn != NULL) {
                if (ev->timer != NULL) {
                    ev->timer->pos = w;
                }
                g_array_index(e->stepped, SimEvent, w++) = *ev;
            }
        }
        g_array_set_size(e->stepped, w);
        if (!e->stop && e->stepped_live > 0) {
            e->now++;
        }
    }
    return run_out(e, error);
}

bool sim_engine_run(SimEngine *e, GError **error)
{
    bool ok = e->kind == SIM_ENGINE_EVENT ? run_event(e, error) : run_stepped(e, error);
    if (!ok) {
        return false;
    }
    if (e->error != NULL) {
        g_propagate_error(error, e->error);
        e->error = NULL;
        return false;
    }
    return true;
}

bool sim_engine_pending_at(const SimEngine *e, SimCycle at)
{
    if (e->kind == SIM_ENGINE_EVENT) {
        return sim_event_queue_peek_cycle(&e->queue) == at;
    }
    for (guint i = 0; i < e->stepped->len; i++) {
        const SimEvent *ev = &g_array_index(e->stepped, SimEvent, i);
        if (ev->fn != NULL && ev->cycle == at) {
            return true;
        }
    }
    return false;
}

bool sim_engine_kind_parse(const char *s, SimEngineKind *out)
{
    if (g_strcmp0(s, "event") == 0) {
        *out = SIM_ENGINE_EVENT;
        return true;
    }
    if (g_strcmp0(s, "stepped") == 0) {
        *out = SIM_ENGINE_STEPPED;
        return true;
    }
    return false;
}
