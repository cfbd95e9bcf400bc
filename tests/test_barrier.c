/* test_barrier.c: the mbarrier state machine (PTX ISA) and the block
 * barrier, driven with a fake clock and a recording wake callback. */
#include "test_util.h"

#include "models/barrier.h"

typedef struct {
    int woken;
    SimCycle at;
} Wakes;

static void wake(void *ctx, const BarrierWaiter *w, SimCycle now)
{
    Wakes *k = ctx;
    (void) w;
    k->woken++;
    k->at = now;
}

START_TEST(phase_completes_on_last_arrival)
{
    MBarrier b;
    mbar_init_storage(&b);
    Wakes k = { 0, 0 };
    ck_assert_int_eq(mbar_init(&b, 3, 0), MBAR_OK);
    ck_assert(mbar_parity_done(&b, 1));   /* a fresh barrier passes parity 1 */
    ck_assert(!mbar_parity_done(&b, 0));
    mbar_add_waiter(&b, (BarrierWaiter) { 0, 0, false, 0 });
    uint64_t tok;
    ck_assert_int_eq(mbar_arrive(&b, 2, 10, &tok, wake, &k), MBAR_OK);
    ck_assert_uint_eq(tok, 0);
    ck_assert_int_eq(k.woken, 0);
    ck_assert_int_eq(mbar_arrive(&b, 1, 15, &tok, wake, &k), MBAR_OK);
    ck_assert_int_eq(k.woken, 1);
    ck_assert_uint_eq(k.at, 15);
    ck_assert_uint_eq(b.phase, 1);
    ck_assert(mbar_parity_done(&b, 0));
    ck_assert(mbar_token_done(&b, 0));
    ck_assert_int_eq(b.pending, 3); /* reloaded with the expected count */
    mbar_clear_storage(&b);
}
END_TEST

START_TEST(transaction_count_holds_the_phase)
{
    MBarrier b;
    mbar_init_storage(&b);
    Wakes k = { 0, 0 };
    mbar_init(&b, 1, 0);
    mbar_expect_tx(&b, 4096, 1, wake, &k);
    mbar_arrive(&b, 1, 2, NULL, wake, &k);
    ck_assert_uint_eq(b.phase, 0);            /* bytes outstanding */
    mbar_complete_tx(&b, 1024, 50, wake, &k);
    ck_assert_uint_eq(b.phase, 0);
    mbar_complete_tx(&b, 3072, 90, wake, &k);
    ck_assert_uint_eq(b.phase, 1);
    /* complete_tx before expect_tx: negative in between, fine. */
    mbar_complete_tx(&b, 100, 100, wake, &k);
    mbar_arrive(&b, 1, 101, NULL, wake, &k);
    ck_assert_uint_eq(b.phase, 1);
    mbar_expect_tx(&b, 100, 102, wake, &k);
    ck_assert_uint_eq(b.phase, 2);
    mbar_clear_storage(&b);
}
END_TEST

START_TEST(async_pending_and_misuse)
{
    MBarrier b;
    mbar_init_storage(&b);
    Wakes k = { 0, 0 };
    ck_assert_int_eq(mbar_arrive(&b, 1, 0, NULL, wake, &k), MBAR_UNINITIALIZED);
    ck_assert_int_eq(mbar_init(&b, 0, 0), MBAR_BAD_COUNT);
    ck_assert_int_eq(mbar_init(&b, 1 << 20, 0), MBAR_BAD_COUNT);
    mbar_init(&b, 2, 0);
    /* cp.async.mbarrier.arrive: pending += 1 now, an arrival later. */
    mbar_pending_add(&b, 2);
    mbar_arrive(&b, 2, 5, NULL, wake, &k);
    ck_assert_uint_eq(b.phase, 0);
    mbar_arrive(&b, 2, 9, NULL, wake, &k);
    ck_assert_uint_eq(b.phase, 1);
    ck_assert_int_eq(mbar_arrive(&b, 3, 10, NULL, wake, &k), MBAR_OVER_ARRIVAL);
    /* arrive_and_drop shrinks later phases. */
    mbar_arrive_drop(&b, 1, 11, wake, &k);
    mbar_arrive(&b, 1, 12, NULL, wake, &k);
    ck_assert_uint_eq(b.phase, 2);
    ck_assert_int_eq(b.expected, 1);
    mbar_invalidate(&b);
    ck_assert_int_eq(mbar_arrive(&b, 1, 13, NULL, wake, &k), MBAR_UNINITIALIZED);
    mbar_clear_storage(&b);
}
END_TEST

START_TEST(block_barrier_counts_threads_and_exits)
{
    BlockBarrier b;
    block_barrier_init(&b, 96);
    Wakes k = { 0, 0 };
    BarrierWaiter w = { 0, 0, false, 0 };
    g_array_append_val(b.waiters, w);
    ck_assert(!block_barrier_arrive(&b, 32, 5, wake, &k));
    g_array_append_val(b.waiters, w);
    ck_assert(!block_barrier_arrive(&b, 32, 6, wake, &k));
    /* The last warp exits instead of arriving: the barrier completes. */
    ck_assert(block_barrier_exit(&b, 32, 7, wake, &k));
    ck_assert_int_eq(k.woken, 2);
    ck_assert_uint_eq(b.generation, 1);
    block_barrier_clear(&b);
}
END_TEST

/* The SM's mbarrier unit: operations queue interval cycles apart in the
 * order they come, an idle unit takes one at once; the waiters of one
 * completion resume per_waiter cycles apart, a new completion starts over. */
START_TEST(unit_serialises_operations_and_staggers_waiters)
{
    MBarUnit u = { 0 };
    ck_assert_uint_eq(mbar_unit_take(&u, 100, 2), 100);
    ck_assert_uint_eq(mbar_unit_take(&u, 100, 2), 102);
    ck_assert_uint_eq(mbar_unit_take(&u, 101, 6), 104);   /* a try_wait */
    ck_assert_uint_eq(mbar_unit_take(&u, 101, 2), 110);
    ck_assert_uint_eq(mbar_unit_take(&u, 500, 2), 500);   /* idle again */
    MBarUnit z = { 0 };
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(mbar_unit_take(&z, 7, 0), 7);   /* interval 0: no unit */
    }
    ck_assert_uint_eq(mbar_unit_wake(&u, 600, 2), 0);
    ck_assert_uint_eq(mbar_unit_wake(&u, 600, 2), 2);
    ck_assert_uint_eq(mbar_unit_wake(&u, 600, 2), 4);
    ck_assert_uint_eq(mbar_unit_wake(&u, 650, 2), 0);
    ck_assert_uint_eq(mbar_unit_wake(&u, 650, 2), 2);
}
END_TEST

/* sm_80: libcudacxx polls test_wait every mbarrier_poll cycles from the
 * start of the wait; the thread leaves wait_call cycles into the first poll
 * at or after the phase's completion.  sm_90: try_wait resumes the thread
 * mbarrier_wake cycles after the completion, whenever it began waiting. */
START_TEST(resume_polls_on_sm80_and_is_woken_on_sm90)
{
    ArchParams a;
    memset(&a, 0, sizeof a);
    a.sm_version = 80;
    a.mbar_poll = 60;
    a.mbar_test = 7;
    a.mbar_wake = 200;
    ck_assert_uint_eq(mbar_resume_at(&a, 1000, 1000), 1000 + 7);        /* done at once: no poll */
    ck_assert_uint_eq(mbar_resume_at(&a, 1000, 1001), 1060 + 7);        /* the next poll */
    ck_assert_uint_eq(mbar_resume_at(&a, 1000, 1060), 1060 + 7);        /* exactly at a poll */
    ck_assert_uint_eq(mbar_resume_at(&a, 1000, 1061), 1120 + 7);
    ck_assert_uint_eq(mbar_resume_at(&a, 2000, 1500), 1500 + 7);        /* completed before the wait */
    a.mbar_poll = 1;
    ck_assert_uint_eq(mbar_resume_at(&a, 1000, 1033), 1033 + 7);
    a.sm_version = 90;
    a.mbar_poll = 60;
    ck_assert_uint_eq(mbar_resume_at(&a, 1000, 1001), 1001 + 200);
    ck_assert_uint_eq(mbar_resume_at(&a, 0, 5000), 5000 + 200);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("barrier");
    TCase *tc = tcase_create("mbarrier");
    tcase_add_test(tc, phase_completes_on_last_arrival);
    tcase_add_test(tc, transaction_count_holds_the_phase);
    tcase_add_test(tc, async_pending_and_misuse);
    tcase_add_test(tc, unit_serialises_operations_and_staggers_waiters);
    tcase_add_test(tc, resume_polls_on_sm80_and_is_woken_on_sm90);
    suite_add_tcase(s, tc);
    TCase *tb = tcase_create("block");
    tcase_add_test(tb, block_barrier_counts_threads_and_exits);
    suite_add_tcase(s, tb);
    return run_suite(s);
}
