/* test_event_queue.c: the event heap's ordering and the two engine loops. */
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

START_TEST(heap_orders_by_cycle_then_sequence)
{
    SimEventQueue q;
    sim_event_queue_init(&q);
    /* Push in scrambled cycle order, with ties. */
    const SimCycle cycles[] = { 5, 1, 5, 3, 1, 9, 5, 0 };
    for (size_t i = 0; i < G_N_ELEMENTS(cycles); i++) {
        sim_event_queue_push(&q, cycles[i], record, NULL, i);
    }
    SimEvent ev, prev = { 0, 0, NULL, NULL, 0 };
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
    sim_engine_init(&e, kind);
    e.max_cycles = max_cycles;
    Log l = { g_array_new(FALSE, FALSE, sizeof(uint64_t[2])), &e, 5 };
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
    ck_assert_uint_eq(a->len, b->len);
    ck_assert_int_eq(memcmp(a->data, b->data, a->len * sizeof(uint64_t[2])), 0);
    /* First event: cycle 2; the same-cycle event a handler adds runs after
     * the ones already queued for that cycle. */
    const uint64_t *e0 = (const uint64_t *) a->data;
    ck_assert_uint_eq(e0[0], 2);
    ck_assert_uint_eq(e0[3], 0);    /* cycle 10: rearm first (queued first) */
    ck_assert_uint_eq(e0[5], 500);  /* then the other cycle-10 event */
    ck_assert_uint_eq(e0[7], 1000); /* then the one rearm added for cycle 10 */
    g_array_free(a, TRUE);
    g_array_free(b, TRUE);
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

int main(void)
{
    Suite *s = suite_create("event_queue");
    TCase *tc = tcase_create("heap");
    tcase_add_test(tc, heap_orders_by_cycle_then_sequence);
    tcase_add_test(tc, ties_pop_in_insertion_order);
    tcase_add_test(tc, random_pushes_pop_sorted);
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("engine");
    tcase_add_test(te, handlers_may_reschedule_and_engines_agree);
    tcase_add_test(te, watchdog_stops_both_engines);
    suite_add_tcase(s, te);
    return run_suite(s);
}
