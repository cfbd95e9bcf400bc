/* test_event_queue.c: the event queue's ordering (its wheel of near cycles,
 * its heap and its slots), its timers (arm, cancel, move, the invariant) and the two
 * engine loops. */
#include "test_util.h"

#include "sim/core/engine.h"

/* A log of (cycle, tag) for handlers. */
typedef struct {
    GArray *log;
    SimEngine *e;
    int reschedule;   /* times the self-rescheduling handler re-arms */
} Log;

static void record(void *target, uint64_t arg, SimCycle now)
{
    Log *l = target;
    uint64_t entry[2] = { now, arg };
    g_array_append_vals(l->log, entry, 1);
}

/* Starts engine e of `kind`, its invariants checked, and an empty log l
 * (freed by the caller) for its handlers. */
static void engine_with_log(SimEngine *e, SimEngineKind kind, Log *l)
{
    sim_engine_init(e, kind);
    e->check_invariants = true;
    l->log = g_array_new(FALSE, FALSE, sizeof(uint64_t[2]));
    l->e = e;
    l->reschedule = 0;
}

/* The event engine's log a and the stepped engine's b are the same; frees
 * b (a stays, for more checks). */
static void assert_engines_agree(GArray *a, GArray *b)
{
    ck_assert_uint_eq(a->len, b->len);
    ck_assert_int_eq(memcmp(a->data, b->data, a->len * sizeof(uint64_t[2])), 0);
    g_array_free(b, TRUE);
}

START_TEST(heap_orders_by_cycle_then_sequence)
{
    SimEventQueue q;
    sim_event_queue_init(&q);
    /* Push in scrambled cycle order, with ties. */
    const SimCycle cycles[] = { 5, 1, 5, 3, 1, 9, 5, 0 };
    for (size_t i = 0; i < G_N_ELEMENTS(cycles); i++) {
        sim_event_queue_push(&q, cycles[i], record, NULL, i);
    }
    SimEvent ev, prev = { 0, 0, NULL, NULL, 0, NULL };
    bool first = true;
    int n = 0;
    while (sim_event_queue_pop(&q, &ev)) {
        if (!first) {
            ck_assert(prev.cycle < ev.cycle || (prev.cycle == ev.cycle && prev.seq < ev.seq));
        }
        prev = ev;
        first = false;
        n++;
    }
    ck_assert_int_eq(n, 8);
    sim_event_queue_clear(&q);
}
END_TEST

START_TEST(ties_pop_in_insertion_order)
{
    SimEventQueue q;
    sim_event_queue_init(&q);
    for (uint64_t i = 0; i < 100; i++) {
        sim_event_queue_push(&q, 42, record, NULL, i);
    }
    SimEvent ev;
    for (uint64_t i = 0; i < 100; i++) {
        ck_assert(sim_event_queue_pop(&q, &ev));
        ck_assert_uint_eq(ev.arg, i);
    }
    ck_assert(!sim_event_queue_pop(&q, &ev));
    sim_event_queue_clear(&q);
}
END_TEST

START_TEST(random_pushes_pop_sorted)
{
    SimEventQueue q;
    sim_event_queue_init(&q);
    GRand *r = g_rand_new_with_seed(7);
    for (int i = 0; i < 5000; i++) {
        sim_event_queue_push(&q, (SimCycle) g_rand_int_range(r, 0, 300), record, NULL, (uint64_t) i);
        if (i % 7 == 0) {
            SimEvent ev;
            SimCycle top = sim_event_queue_peek_cycle(&q);
            ck_assert(sim_event_queue_pop(&q, &ev));
            ck_assert_uint_eq(ev.cycle, top);
        }
    }
    SimEvent ev;
    SimCycle last = 0;
    uint64_t last_seq = 0;
    while (sim_event_queue_pop(&q, &ev)) {
        ck_assert(ev.cycle > last || (ev.cycle == last && ev.seq >= last_seq));
        last = ev.cycle;
        last_seq = ev.seq;
    }
    g_rand_free(r);
    sim_event_queue_clear(&q);
}
END_TEST

/* pop_until takes the earliest event only when it is due by the limit,
 * from the wheel (near) and from the heap (far) alike. */
START_TEST(pop_until_leaves_later_events)
{
    SimEventQueue q;
    sim_event_queue_init(&q);
    sim_event_queue_push(&q, 5, record, NULL, 'a');
    sim_event_queue_push(&q, 1000, record, NULL, 'b');
    SimEvent ev;
    ck_assert(!sim_event_queue_pop_until(&q, 4, &ev));
    ck_assert_uint_eq(sim_event_queue_len(&q), 2);
    ck_assert(sim_event_queue_pop_until(&q, 5, &ev));
    ck_assert_uint_eq(ev.arg, 'a');
    ck_assert(!sim_event_queue_pop_until(&q, 999, &ev));
    ck_assert_uint_eq(sim_event_queue_peek_cycle(&q), 1000);
    ck_assert(sim_event_queue_pop_until(&q, 1000, &ev));
    ck_assert_uint_eq(ev.arg, 'b');
    ck_assert(!sim_event_queue_pop_until(&q, SIM_CYCLE_NEVER, &ev));
    sim_event_queue_clear(&q);
}
END_TEST

/* Fails the test when the heap invariant is broken. */
static void assert_heap(const SimEventQueue *q)
{
    const char *broken = sim_event_queue_check(q);
    ck_assert_msg(broken == NULL, "heap invariant: %s", broken);
}

/* Pops every event of q, checking that their args are want[0..n), and
 * clears q. */
static void assert_pops(SimEventQueue *q, const uint64_t *want, size_t n)
{
    SimEvent ev;
    for (size_t i = 0; i < n; i++) {
        ck_assert(sim_event_queue_pop(q, &ev));
        ck_assert_uint_eq(ev.arg, want[i]);
    }
    ck_assert(!sim_event_queue_pop(q, &ev));
    sim_event_queue_clear(q);
}

START_TEST(timer_fires_once_and_is_idle_in_its_handler)
{
    SimEventQueue q;
    sim_event_queue_init(&q);
    SimTimer t = { 0 };
    ck_assert(!sim_timer_is_armed(&t));
    ck_assert_uint_eq(sim_timer_cycle(&t), SIM_CYCLE_NEVER);
    sim_event_queue_arm(&q, &t, 12, record, &t, 7);
    ck_assert(sim_timer_is_armed(&t));
    ck_assert_uint_eq(sim_timer_cycle(&t), 12);
    assert_heap(&q);
    SimEvent ev;
    ck_assert(sim_event_queue_pop(&q, &ev));
    ck_assert_uint_eq(ev.cycle, 12);
    ck_assert_uint_eq(ev.arg, 7);
    ck_assert_ptr_eq(ev.target, &t);
    ck_assert_ptr_eq(ev.timer, &t);
    /* Unlinked before the caller gets the event: its handler may re-arm. */
    ck_assert(!sim_timer_is_armed(&t));
    ck_assert(!sim_event_queue_pop(&q, &ev));
    sim_event_queue_clear(&q);
}
END_TEST

START_TEST(timer_cancel_removes_it)
{
    SimEventQueue q;
    sim_event_queue_init(&q);
    SimTimer t[3] = { 0 };
    sim_event_queue_push(&q, 4, record, NULL, 100);
    for (uint64_t i = 0; i < 3; i++) {
        sim_event_queue_arm(&q, &t[i], 3 + i, record, NULL, i);
    }
    sim_event_queue_cancel(&q, &t[1]);
    ck_assert(!sim_timer_is_armed(&t[1]));
    ck_assert_uint_eq(sim_event_queue_len(&q), 3);
    assert_heap(&q);
    const uint64_t want[] = { 0, 100, 2 };
    assert_pops(&q, want, G_N_ELEMENTS(want));
}
END_TEST

START_TEST(timer_cancel_when_idle_does_nothing)
{
    SimEventQueue q;
    sim_event_queue_init(&q);
    SimTimer idle = { 0 }, fired = { 0 };
    sim_event_queue_push(&q, 1, record, NULL, 1);
    sim_event_queue_push(&q, 2, record, NULL, 2);
    sim_event_queue_cancel(&q, &idle);
    /* A timer that fired is idle again: cancelling it is harmless too. */
    sim_event_queue_arm(&q, &fired, 0, record, NULL, 0);
    SimEvent ev;
    ck_assert(sim_event_queue_pop(&q, &ev));
    ck_assert_ptr_eq(ev.timer, &fired);
    sim_event_queue_cancel(&q, &fired);
    sim_event_queue_cancel(&q, &fired);
    ck_assert_uint_eq(sim_event_queue_len(&q), 2);
    assert_heap(&q);
    const uint64_t want[] = { 1, 2 };
    assert_pops(&q, want, G_N_ELEMENTS(want));
}
END_TEST

START_TEST(timer_rearm_moves_it)
{
    SimEventQueue q;
    sim_event_queue_init(&q);
    SimTimer t = { 0 };
    sim_event_queue_push(&q, 8, record, NULL, 100);
    sim_event_queue_arm(&q, &t, 10, record, NULL, 1);
    sim_event_queue_arm(&q, &t, 5, record, NULL, 2);   /* earlier */
    ck_assert_uint_eq(sim_event_queue_len(&q), 2);
    ck_assert_uint_eq(sim_timer_cycle(&t), 5);
    assert_heap(&q);
    sim_event_queue_arm(&q, &t, 20, record, NULL, 3);  /* later */
    ck_assert_uint_eq(sim_event_queue_len(&q), 2);
    ck_assert_uint_eq(sim_timer_cycle(&t), 20);
    assert_heap(&q);
    const uint64_t want[] = { 100, 3 };                /* only the last arming fires */
    assert_pops(&q, want, G_N_ELEMENTS(want));
}
END_TEST

START_TEST(same_cycle_fires_in_arming_order)
{
    SimEventQueue q;
    sim_event_queue_init(&q);
    SimTimer a = { 0 }, b = { 0 };
    sim_event_queue_arm(&q, &a, 7, record, NULL, 'a');
    sim_event_queue_push(&q, 7, record, NULL, 'p');
    sim_event_queue_arm(&q, &b, 7, record, NULL, 'b');
    /* Re-arming a for the same cycle queues it anew: after p and b, as the
     * event a handler pushed now would be. */
    sim_event_queue_arm(&q, &a, 7, record, NULL, 'A');
    const uint64_t want[] = { 'p', 'b', 'A' };
    assert_pops(&q, want, G_N_ELEMENTS(want));
}
END_TEST

START_TEST(check_finds_a_broken_heap)
{
    SimEventQueue q;
    sim_event_queue_init(&q);
    SimTimer t = { 0 };
    /* Beyond the wheel's span: all three go to the heap. */
    sim_event_queue_push(&q, 1001, record, NULL, 0);
    sim_event_queue_push(&q, 1002, record, NULL, 0);
    sim_event_queue_arm(&q, &t, 1003, record, NULL, 0);
    assert_heap(&q);
    ck_assert_uint_eq(q.len, 3);
    SimEvent top = q.heap[0];
    q.heap[0] = q.heap[1];
    q.heap[1] = top;
    ck_assert_ptr_nonnull(sim_event_queue_check(&q));
    q.heap[1] = q.heap[0];
    q.heap[0] = top;
    assert_heap(&q);
    t.pos ^= 1;
    ck_assert_ptr_nonnull(sim_event_queue_check(&q));
    t.pos ^= 1;
    assert_heap(&q);
    /* In the wheel: a list out of sequence order, a timer that says heap. */
    SimTimer u = { 0 };
    sim_event_queue_push(&q, 5, record, NULL, 0);
    sim_event_queue_arm(&q, &u, 5, record, NULL, 0);
    assert_heap(&q);
    ck_assert_uint_eq(q.wheel_len, 2);
    int32_t first = q.head[5];
    int32_t second = q.nodes[first].next;
    uint64_t seq = q.nodes[first].ev.seq;
    q.nodes[first].ev.seq = q.nodes[second].ev.seq;
    ck_assert_ptr_nonnull(sim_event_queue_check(&q));
    q.nodes[first].ev.seq = seq;
    assert_heap(&q);
    u.in_wheel = false;
    ck_assert_ptr_nonnull(sim_event_queue_check(&q));
    u.in_wheel = true;
    assert_heap(&q);
    sim_event_queue_clear(&q);
}
END_TEST

/* An entry queued in the heap (far ahead then) and one queued later in the
 * wheel for the same cycle pop in sequence order; a timer moves between
 * the stores and keeps its place in arming order. */
START_TEST(wheel_and_heap_pop_in_sequence_order)
{
    SimEventQueue q;
    sim_event_queue_init(&q);
    SimTimer t = { 0 };
    sim_event_queue_push(&q, 100, record, NULL, 'h');   /* heap: base is 0 */
    sim_event_queue_arm(&q, &t, 150, record, NULL, 't'); /* heap */
    sim_event_queue_push(&q, 50, record, NULL, 'a');    /* wheel */
    ck_assert_uint_eq(q.len, 2);
    ck_assert_uint_eq(q.wheel_len, 1);
    SimEvent ev;
    ck_assert(sim_event_queue_pop(&q, &ev));
    ck_assert_uint_eq(ev.arg, 'a');                     /* base is 50 now */
    sim_event_queue_push(&q, 100, record, NULL, 'w');   /* wheel, same cycle as 'h' */
    ck_assert_uint_eq(q.wheel_len, 1);
    sim_event_queue_arm(&q, &t, 100, record, NULL, 't'); /* heap to wheel, after 'w' */
    ck_assert(t.in_wheel);
    ck_assert_uint_eq(q.len, 1);
    assert_heap(&q);
    ck_assert_uint_eq(sim_event_queue_peek_cycle(&q), 100);
    const uint64_t want[] = { 'h', 'w', 't' };
    assert_pops(&q, want, G_N_ELEMENTS(want));

    sim_event_queue_init(&q);
    sim_event_queue_arm(&q, &t, 10, record, NULL, 't'); /* wheel */
    ck_assert(t.in_wheel);
    sim_event_queue_push(&q, 10, record, NULL, 'p');
    sim_event_queue_arm(&q, &t, 500, record, NULL, 't'); /* wheel to heap */
    ck_assert(!t.in_wheel);
    ck_assert_uint_eq(q.len, 1);
    assert_heap(&q);
    sim_event_queue_arm(&q, &t, 10, record, NULL, 't'); /* back, after 'p' */
    const uint64_t want2[] = { 'p', 't' };
    assert_pops(&q, want2, G_N_ELEMENTS(want2));
}
END_TEST

/* Random arming, moving, cancelling and popping of many timers among
 * pushes, against a plain list of what is armed: the heap invariant holds
 * after every step (removals come from anywhere in the heap), and the
 * events pop in (cycle, arming order) with nothing cancelled among them. */
START_TEST(random_timer_operations_keep_the_heap)
{
    enum { NT = 64 };
    /* Delays within the wheel's span, then a mix of wheel and heap. */
    const int span = _i == 0 ? 40 : 3 * SIM_WHEEL_SPAN;
    SimEventQueue q;
    sim_event_queue_init(&q);
    SimTimer t[NT];
    memset(t, 0, sizeof t);
    uint64_t token[NT] = { 0 };   /* arg of each timer's standing arming */
    uint64_t next_token = 1;
    GRand *r = g_rand_new_with_seed(17);
    SimCycle now = 0;
    uint64_t fired = 0;
    for (int step = 0; step < 20000; step++) {
        int k = g_rand_int_range(r, 0, NT);
        int op = g_rand_int_range(r, 0, 10);
        SimCycle at = now + (SimCycle) g_rand_int_range(r, 0, span);
        if (op < 4) {
            token[k] = next_token++;
            sim_event_queue_arm(&q, &t[k], at, record, &t[k], token[k]);
        } else if (op < 6) {
            sim_event_queue_cancel(&q, &t[k]);
            token[k] = 0;
        } else if (op < 7) {
            sim_event_queue_push(&q, at, record, NULL, 0);
        } else {
            SimEvent ev;
            if (sim_event_queue_pop(&q, &ev)) {
                ck_assert_uint_ge(ev.cycle, now);
                now = ev.cycle;
                if (ev.timer != NULL) {
                    int i = (int) (ev.timer - t);
                    ck_assert_uint_eq(ev.arg, token[i]);
                    ck_assert(!sim_timer_is_armed(ev.timer));
                    token[i] = 0;
                    fired++;
                }
            }
        }
        /* One assertion a step: Check's are slow in a loop. */
        const char *broken = sim_event_queue_check(&q);
        size_t armed = 0;
        for (int i = 0; i < NT && broken == NULL; i++) {
            if (sim_timer_is_armed(&t[i]) != (token[i] != 0)) {
                broken = "a timer armed or idle against the list";
            }
            armed += token[i] != 0;
        }
        if (broken == NULL && armed > sim_event_queue_len(&q)) {
            broken = "more timers armed than entries";
        }
        ck_assert_msg(broken == NULL, "step %d: %s", step, broken);
    }
    ck_assert_uint_gt(fired, 1000);
    SimEvent ev, prev = { 0, 0, NULL, NULL, 0, NULL };
    while (sim_event_queue_pop(&q, &ev)) {
        ck_assert(sim_event_before(&prev, &ev));
        if (ev.timer != NULL) {
            ck_assert_uint_eq(ev.arg, token[ev.timer - t]);
            token[ev.timer - t] = 0;
        }
        prev = ev;
    }
    for (int i = 0; i < NT; i++) {
        ck_assert_uint_eq(token[i], 0);
    }
    g_rand_free(r);
    sim_event_queue_clear(&q);
}
END_TEST

/* A handler that re-arms itself: the event is removed before it runs. */
static void rearm(void *target, uint64_t arg, SimCycle now)
{
    Log *l = target;
    record(l, arg, now);
    if (l->reschedule-- > 0) {
        sim_engine_schedule(l->e, now + 3, rearm, l, arg + 1);
        sim_engine_schedule(l->e, now, record, l, 1000 + arg);
    }
}

static GArray *run_engine(SimEngineKind kind, SimCycle max_cycles, bool *ok)
{
    SimEngine e;
    Log l;
    engine_with_log(&e, kind, &l);
    e.max_cycles = max_cycles;
    l.reschedule = 5;
    sim_engine_schedule(&e, 10, rearm, &l, 0);
    sim_engine_schedule(&e, 10, record, &l, 500);
    sim_engine_schedule(&e, 2, record, &l, 501);
    GError *err = NULL;
    *ok = sim_engine_run(&e, &err);
    if (err) {
        ck_assert_ptr_nonnull(strstr(err->message, "watchdog"));
        ck_assert_int_eq(err->code, SIM_ERROR_LIMIT);
        g_error_free(err);
    }
    sim_engine_clear(&e);
    return l.log;
}

START_TEST(handlers_may_reschedule_and_engines_agree)
{
    bool ok1, ok2;
    GArray *a = run_engine(SIM_ENGINE_EVENT, 0, &ok1);
    GArray *b = run_engine(SIM_ENGINE_STEPPED, 0, &ok2);
    ck_assert(ok1 && ok2);
    assert_engines_agree(a, b);
    /* First event: cycle 2; the same-cycle event a handler adds runs after
     * the ones already queued for that cycle. */
    const uint64_t *e0 = (const uint64_t *) a->data;
    ck_assert_uint_eq(e0[0], 2);
    ck_assert_uint_eq(e0[3], 0);    /* cycle 10: rearm first (queued first) */
    ck_assert_uint_eq(e0[5], 500);  /* then the other cycle-10 event */
    ck_assert_uint_eq(e0[7], 1000); /* then the one rearm added for cycle 10 */
    g_array_free(a, TRUE);
}
END_TEST

START_TEST(watchdog_stops_both_engines)
{
    bool ok1, ok2;
    GArray *a = run_engine(SIM_ENGINE_EVENT, 15, &ok1);
    GArray *b = run_engine(SIM_ENGINE_STEPPED, 15, &ok2);
    ck_assert(!ok1 && !ok2);
    ck_assert_uint_eq(a->len, b->len);
    g_array_free(a, TRUE);
    g_array_free(b, TRUE);
}
END_TEST

/* A timer whose handler re-arms it (QEMU's rule: it is idle when its
 * handler runs) and a second timer that each firing moves or cancels. */
typedef struct {
    Log log;
    SimTimer self;
    SimTimer other;
    int left;
} Rearm;

static void timer_other(void *target, uint64_t arg, SimCycle now)
{
    Rearm *r = target;
    record(&r->log, arg, now);
}

static void timer_self(void *target, uint64_t arg, SimCycle now)
{
    Rearm *r = target;
    ck_assert(!sim_timer_is_armed(&r->self));
    record(&r->log, arg, now);
    if (r->left-- > 0) {
        sim_engine_timer_arm(r->log.e, &r->self, now + 2, timer_self, r, arg + 1);
        ck_assert(sim_timer_is_armed(&r->self));
        if (arg % 3 == 2) {
            sim_engine_timer_cancel(r->log.e, &r->other);
        } else {
            /* Moved to this cycle: after the events already queued for it. */
            sim_engine_timer_arm(r->log.e, &r->other, now + (arg % 2) * 2, timer_other, r, 1000 + arg);
        }
    }
}

static GArray *run_rearm(SimEngineKind kind)
{
    SimEngine e;
    Rearm r;
    memset(&r, 0, sizeof r);
    engine_with_log(&e, kind, &r.log);
    r.left = 6;
    sim_engine_timer_arm(&e, &r.self, 1, timer_self, &r, 0);
    sim_engine_timer_arm(&e, &r.other, 50, timer_other, &r, 999);
    sim_engine_schedule(&e, 3, record, &r.log, 500);
    GError *err = NULL;
    ck_assert(sim_engine_run(&e, &err));
    ck_assert(!sim_timer_is_armed(&r.self) && !sim_timer_is_armed(&r.other));
    ck_assert_uint_eq(e.dispatched, r.log.log->len);
    sim_engine_clear(&e);
    return r.log.log;
}

START_TEST(timer_handler_rearms_itself_in_both_engines)
{
    GArray *a = run_rearm(SIM_ENGINE_EVENT);
    assert_engines_agree(a, run_rearm(SIM_ENGINE_STEPPED));
    /* (cycle, tag): self fires at 1, 3, ..., 13.  Other fires only where a
     * firing left it: never at 50; not at 5 (cancelled there); at 9 as
     * 1004, the arming at 9 that moved 1003 in place (same cycle, after). */
    const uint64_t want[][2] = {
        { 1, 0 }, { 1, 1000 }, { 3, 500 }, { 3, 1 }, { 5, 2 }, { 7, 3 },
        { 9, 4 }, { 9, 1004 }, { 11, 5 }, { 13, 6 },
    };
    ck_assert_uint_eq(a->len, G_N_ELEMENTS(want));
    ck_assert_int_eq(memcmp(a->data, want, sizeof want), 0);
    g_array_free(a, TRUE);
}
END_TEST

/* Timers whose handlers arm, move and cancel one another at random (one
 * seeded stream, drawn in handler order, so both engines draw alike when
 * they dispatch alike): the two loops must log the same firings. */
typedef struct {
    Log log;
    SimTimer t[16];
    GRand *rand;
    int budget;
} Storm;

static void storm_fire(void *target, uint64_t arg, SimCycle now)
{
    Storm *s = target;
    record(&s->log, arg, now);
    for (int n = 0; n < 2 && s->budget > 0; n++, s->budget--) {
        int k = g_rand_int_range(s->rand, 0, G_N_ELEMENTS(s->t));
        if (n == 1 && g_rand_int_range(s->rand, 0, 3) == 0) {
            sim_engine_timer_cancel(s->log.e, &s->t[k]);
        } else {
            SimCycle at = now + (SimCycle) g_rand_int_range(s->rand, 0, 6);
            sim_engine_timer_arm(s->log.e, &s->t[k], at, storm_fire, s, (uint64_t) k);
        }
    }
}

/* With `slots`, the first 10 timers ask for slots of their own
 * (sim_engine_timer_bind_slot): the event engine has 8, so two stay in the
 * wheel and the heap, and the stepped engine keeps all in its list. */
static GArray *run_storm_slots(SimEngineKind kind, bool slots)
{
    SimEngine e;
    Storm s;
    memset(&s, 0, sizeof s);
    engine_with_log(&e, kind, &s.log);
    for (int k = 0; slots && k < 10; k++) {
        sim_engine_timer_bind_slot(&e, &s.t[k]);
    }
    s.rand = g_rand_new_with_seed(3);
    s.budget = 4000;
    for (uint64_t k = 0; k < 4; k++) {
        sim_engine_timer_arm(&e, &s.t[k], k, storm_fire, &s, k);
    }
    GError *err = NULL;
    ck_assert(sim_engine_run(&e, &err));
    for (size_t k = 0; k < G_N_ELEMENTS(s.t); k++) {
        ck_assert(!sim_timer_is_armed(&s.t[k]));
    }
    g_rand_free(s.rand);
    sim_engine_clear(&e);
    return s.log.log;
}

static GArray *run_storm(SimEngineKind kind)
{
    return run_storm_slots(kind, false);
}

START_TEST(engines_agree_on_random_timers)
{
    GArray *a = run_storm(SIM_ENGINE_EVENT);
    ck_assert_uint_gt(a->len, 1000);
    assert_engines_agree(a, run_storm(SIM_ENGINE_STEPPED));
    g_array_free(a, TRUE);
}
END_TEST

/* Timers in slots of the event queue fire as they do in the wheel and the
 * heap. */
START_TEST(engines_agree_on_random_timers_in_slots)
{
    GArray *a = run_storm_slots(SIM_ENGINE_EVENT, true);
    ck_assert_uint_gt(a->len, 1000);
    GArray *b = run_storm_slots(SIM_ENGINE_EVENT, false);
    assert_engines_agree(a, b);
    assert_engines_agree(a, run_storm_slots(SIM_ENGINE_STEPPED, true));
    g_array_free(a, TRUE);
}
END_TEST

/* A timer armed with a sequence number reserved earlier fires where an
 * arming at the reservation would have: after the events queued for its
 * cycle before the reservation, before those queued after it, in the wheel
 * (cycle 3, in the middle and at the end of its list) and in the heap
 * (cycle 200). */
typedef struct {
    Log log;
    SimTimer near, far, last;
} Reserved;

static void reserved_start(void *target, uint64_t arg, SimCycle now)
{
    Reserved *r = target;
    SimEngine *e = r->log.e;
    (void) arg;
    sim_engine_schedule(e, 3, record, &r->log, 9);
    sim_engine_schedule(e, 200, record, &r->log, 19);
    uint64_t near = sim_engine_reserve_seq(e);
    uint64_t far = sim_engine_reserve_seq(e);
    sim_engine_schedule(e, 3, record, &r->log, 10);
    sim_engine_schedule(e, 3, record, &r->log, 11);
    sim_engine_schedule(e, 200, record, &r->log, 20);
    uint64_t last = sim_engine_reserve_seq(e);
    sim_engine_timer_arm_reserved(e, &r->near, now + 2, near, record, &r->log, 100);
    sim_engine_timer_arm_reserved(e, &r->far, 200, far, record, &r->log, 200);
    sim_engine_timer_arm_reserved(e, &r->last, now + 2, last, record, &r->log, 300);
    ck_assert(sim_timer_is_armed(&r->near) && sim_timer_cycle(&r->near) == 3);
}

static GArray *run_reserved_slots(SimEngineKind kind, bool slots)
{
    SimEngine e;
    Reserved r;
    memset(&r, 0, sizeof r);
    engine_with_log(&e, kind, &r.log);
    if (slots) {
        sim_engine_timer_bind_slot(&e, &r.near);
        sim_engine_timer_bind_slot(&e, &r.far);
    }
    sim_engine_schedule(&e, 1, reserved_start, &r, 0);
    GError *err = NULL;
    ck_assert(sim_engine_run(&e, &err));
    sim_engine_clear(&e);
    return r.log.log;
}

static GArray *run_reserved(SimEngineKind kind)
{
    return run_reserved_slots(kind, false);
}

START_TEST(reserved_sequence_number_orders_the_arming)
{
    GArray *a = run_reserved(SIM_ENGINE_EVENT);
    assert_engines_agree(a, run_reserved(SIM_ENGINE_STEPPED));
    /* The same with two of the timers in slots. */
    assert_engines_agree(a, run_reserved_slots(SIM_ENGINE_EVENT, true));
    assert_engines_agree(a, run_reserved_slots(SIM_ENGINE_STEPPED, true));
    const uint64_t want[][2] = {
        { 3, 9 }, { 3, 100 }, { 3, 10 }, { 3, 11 }, { 3, 300 }, { 200, 19 }, { 200, 200 }, { 200, 20 },
    };
    ck_assert_uint_eq(a->len, G_N_ELEMENTS(want));
    ck_assert_int_eq(memcmp(a->data, want, sizeof want), 0);
    g_array_free(a, TRUE);
}
END_TEST

/* A request superseded at cycle 20 keeps a run whose last event is at 5
 * going to 20, counted apart from the events handled; past the watchdog
 * it trips it, as the event it stands for would have. */
static bool run_superseded(SimEngineKind kind, SimCycle max_cycles, SimCycle *now)
{
    SimEngine e;
    Log l;
    engine_with_log(&e, kind, &l);
    e.max_cycles = max_cycles;
    sim_engine_schedule(&e, 5, record, &l, 0);
    sim_engine_count_superseded(&e, 20);
    sim_engine_count_superseded(&e, 3);
    GError *err = NULL;
    bool ok = sim_engine_run(&e, &err);
    if (!ok) {
        ck_assert_int_eq(err->code, SIM_ERROR_LIMIT);
        g_error_free(err);
    }
    ck_assert_uint_eq(l.log->len, 1);
    ck_assert_uint_eq(e.dispatched, 1);
    ck_assert_uint_eq(e.superseded, 2);
    *now = e.now;
    sim_engine_clear(&e);
    g_array_free(l.log, TRUE);
    return ok;
}

START_TEST(superseded_requests_count_and_hold_the_clock)
{
    const SimEngineKind kinds[] = { SIM_ENGINE_EVENT, SIM_ENGINE_STEPPED };
    for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
        SimCycle now;
        ck_assert(run_superseded(kinds[i], 0, &now));
        ck_assert_uint_eq(now, 20);
        ck_assert(run_superseded(kinds[i], 20, &now));
        ck_assert_uint_eq(now, 20);
        ck_assert(!run_superseded(kinds[i], 19, &now));
        ck_assert_uint_eq(now, 19);
    }
}
END_TEST

static void record_other(void *target, uint64_t arg, SimCycle now)
{
    record(target, arg + 1000, now);
}

/* Timers armed at cycle 7 (near: the wheel) and 500 (far: the heap), one
 * of each bound to a slot with `slots`, each second one given another
 * handler once armed (sim_engine_timer_retarget): the log of (cycle,
 * tag). */
static GArray *run_retarget(SimEngineKind kind, bool slots)
{
    SimEngine e;
    Log l;
    engine_with_log(&e, kind, &l);
    SimTimer t[6] = { 0 };
    if (slots) {
        sim_engine_timer_bind_slot(&e, &t[1]);
        sim_engine_timer_bind_slot(&e, &t[4]);
    }
    for (int k = 0; k < 6; k++) {
        sim_engine_timer_arm(&e, &t[k], k < 3 ? 7 : 500, record, &l, (uint64_t) k);
    }
    for (int k = 1; k < 6; k += 2) {
        sim_engine_timer_retarget(&e, &t[k], record_other);
    }
    GError *err = NULL;
    ck_assert(sim_engine_run(&e, &err));
    sim_engine_clear(&e);
    return l.log;
}

/* A retargeted timer fires where it was armed to, with its new handler. */
START_TEST(retarget_keeps_the_order)
{
    GArray *a = run_retarget(SIM_ENGINE_EVENT, false);
    assert_engines_agree(a, run_retarget(SIM_ENGINE_STEPPED, false));
    assert_engines_agree(a, run_retarget(SIM_ENGINE_EVENT, true));
    assert_engines_agree(a, run_retarget(SIM_ENGINE_STEPPED, true));
    const uint64_t want[][2] = {
        { 7, 0 }, { 7, 1001 }, { 7, 2 }, { 500, 1003 }, { 500, 4 }, { 500, 1005 },
    };
    ck_assert_uint_eq(a->len, G_N_ELEMENTS(want));
    ck_assert_int_eq(memcmp(a->data, want, sizeof want), 0);
    g_array_free(a, TRUE);
}
END_TEST

/* A chain's run (sim_engine_timer_chain): a timer bound to a slot, armed
 * at cycle 2, then at 4, 6 and 9 in turn, records tag 99 when it fires at
 * 9; one-shot events around it record their tags, and those at cycles 6
 * and 7 schedule one each at 9, numbered before and after the timer's
 * last arming.  With `chained` the queue re-arms the timer (its handler
 * runs once, at 9); without, its handler re-arms it by hand, as sm_batch.c's
 * replayed decisions used to.  The log of (cycle, tag); *events: the
 * events handled. */
typedef struct {
    Log log;
    SimTimer t;
    SimCycle at[3];
    int next;
} Chain;

static void chain_record_and_schedule(void *target, uint64_t arg, SimCycle now)
{
    Chain *c = target;
    record(&c->log, arg, now);
    if (arg >= 60 && arg < 80) {
        sim_engine_schedule(c->log.e, 9, record, &c->log, arg + 100);
    }
}

static void chain_by_hand(void *target, uint64_t arg, SimCycle now)
{
    Chain *c = target;
    if (c->next < 3) {
        sim_engine_timer_arm(c->log.e, &c->t, c->at[c->next++], chain_by_hand, c, arg);
        return;
    }
    record(&c->log, 99, now);
}

static void chain_fired(void *target, uint64_t arg, SimCycle now)
{
    Chain *c = target;
    (void) arg;
    record(&c->log, 99, now);
}

static GArray *run_chain(SimEngineKind kind, bool chained, uint64_t *events)
{
    SimEngine e;
    Chain c;
    memset(&c, 0, sizeof c);
    engine_with_log(&e, kind, &c.log);
    c.at[0] = 4;
    c.at[1] = 6;
    c.at[2] = 9;
    sim_engine_timer_bind_slot(&e, &c.t);
    sim_engine_schedule(&e, 2, chain_record_and_schedule, &c, 20);
    sim_engine_timer_arm(&e, &c.t, 2, chained ? chain_fired : chain_by_hand, &c, 0);
    sim_engine_schedule(&e, 2, chain_record_and_schedule, &c, 21);
    sim_engine_schedule(&e, 4, chain_record_and_schedule, &c, 40);
    sim_engine_schedule(&e, 6, chain_record_and_schedule, &c, 60);
    sim_engine_schedule(&e, 7, chain_record_and_schedule, &c, 70);
    sim_engine_schedule(&e, 9, chain_record_and_schedule, &c, 90);
    if (chained) {
        sim_engine_timer_chain(&e, &c.t, c.at, 3);
        ck_assert(sim_engine_timer_chained(&e, &c.t));
    }
    GError *err = NULL;
    ck_assert(sim_engine_run(&e, &err));
    ck_assert(!sim_engine_timer_chained(&e, &c.t) && !sim_timer_is_armed(&c.t));
    *events = sim_engine_dispatched(&e);
    sim_engine_clear(&e);
    return c.log.log;
}

/* A chained timer's entry steps where a handler re-arming it would, with
 * the same sequence numbers: every event orders as before, and each step
 * counts as an event handled. */
START_TEST(chain_steps_where_a_rearming_handler_would)
{
    uint64_t by_hand, stepped, chained;
    GArray *a = run_chain(SIM_ENGINE_EVENT, false, &by_hand);
    assert_engines_agree(a, run_chain(SIM_ENGINE_STEPPED, false, &stepped));
    GArray *b = run_chain(SIM_ENGINE_EVENT, true, &chained);
    const uint64_t want[][2] = {
        { 2, 20 }, { 2, 21 }, { 4, 40 }, { 6, 60 }, { 7, 70 }, { 9, 90 }, { 9, 160 }, { 9, 99 }, { 9, 170 },
    };
    ck_assert_uint_eq(a->len, G_N_ELEMENTS(want));
    ck_assert_int_eq(memcmp(a->data, want, sizeof want), 0);
    ck_assert_uint_eq(b->len, a->len);
    ck_assert_int_eq(memcmp(b->data, a->data, a->len * sizeof want[0]), 0);
    ck_assert_uint_eq(by_hand, 8 + 4);
    ck_assert_uint_eq(stepped, by_hand);
    ck_assert_uint_eq(chained, by_hand);
    g_array_free(a, TRUE);
    g_array_free(b, TRUE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("event_queue");
    TCase *tc = tcase_create("heap");
    tcase_add_test(tc, heap_orders_by_cycle_then_sequence);
    tcase_add_test(tc, ties_pop_in_insertion_order);
    tcase_add_test(tc, random_pushes_pop_sorted);
    tcase_add_test(tc, pop_until_leaves_later_events);
    suite_add_tcase(s, tc);
    TCase *tt = tcase_create("timer");
    tcase_add_test(tt, timer_fires_once_and_is_idle_in_its_handler);
    tcase_add_test(tt, timer_cancel_removes_it);
    tcase_add_test(tt, timer_cancel_when_idle_does_nothing);
    tcase_add_test(tt, timer_rearm_moves_it);
    tcase_add_test(tt, same_cycle_fires_in_arming_order);
    tcase_add_test(tt, check_finds_a_broken_heap);
    tcase_add_test(tt, wheel_and_heap_pop_in_sequence_order);
    tcase_add_loop_test(tt, random_timer_operations_keep_the_heap, 0, 2);
    suite_add_tcase(s, tt);
    TCase *te = tcase_create("engine");
    tcase_add_test(te, handlers_may_reschedule_and_engines_agree);
    tcase_add_test(te, watchdog_stops_both_engines);
    tcase_add_test(te, timer_handler_rearms_itself_in_both_engines);
    tcase_add_test(te, engines_agree_on_random_timers);
    tcase_add_test(te, engines_agree_on_random_timers_in_slots);
    tcase_add_test(te, superseded_requests_count_and_hold_the_clock);
    tcase_add_test(te, reserved_sequence_number_orders_the_arming);
    tcase_add_test(te, retarget_keeps_the_order);
    tcase_add_test(te, chain_steps_where_a_rearming_handler_would);
    suite_add_tcase(s, te);
    return run_suite(s);
}
