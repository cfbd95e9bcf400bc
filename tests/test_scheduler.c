/* test_scheduler.c: the LRR and GTO policies. */
#include "test_util.h"

#include "models/scheduler.h"

START_TEST(loose_round_robin)
{
    Scheduler s;
    scheduler_init(&s, 8, 1);
    scheduler_enqueue(&s, 4);
    scheduler_enqueue(&s, 0);
    scheduler_enqueue(&s, 8 - 2);
    ck_assert_int_eq(scheduler_pick(&s, SCHED_LRR), 0);  /* smallest id after -1 */
    scheduler_enqueue(&s, 0);
    ck_assert_int_eq(scheduler_pick(&s, SCHED_LRR), 4);  /* next after 0 */
    ck_assert_int_eq(scheduler_pick(&s, SCHED_LRR), 6);
    ck_assert_int_eq(scheduler_pick(&s, SCHED_LRR), 0);  /* wraps */
    ck_assert_int_eq(scheduler_pick(&s, SCHED_LRR), -1);
    scheduler_clear(&s);
}
END_TEST

START_TEST(greedy_then_oldest)
{
    Scheduler s;
    scheduler_init(&s, 8, 1);
    scheduler_enqueue(&s, 5);
    scheduler_enqueue(&s, 2);
    ck_assert_int_eq(scheduler_pick(&s, SCHED_GTO), 5);  /* oldest first */
    scheduler_enqueue(&s, 7);
    scheduler_enqueue(&s, 5);
    ck_assert_int_eq(scheduler_pick(&s, SCHED_GTO), 5);  /* greedy: the last one again */
    ck_assert_int_eq(scheduler_pick(&s, SCHED_GTO), 2);  /* then the oldest */
    ck_assert_int_eq(scheduler_pick(&s, SCHED_GTO), 7);
    scheduler_clear(&s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("scheduler");
    TCase *tc = tcase_create("policies");
    tcase_add_test(tc, loose_round_robin);
    tcase_add_test(tc, greedy_then_oldest);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
