/* test_warp.c: the interpreter's issue loop and control flow
 * (models/warp.c), through small runs: a loop costs the same per
 * iteration, threads that return leave the block's barriers, and an
 * arithmetic error stops the run at its line. */
#include "test_util.h"

static SimCycle loop_cycles(int iterations)
{
    g_autofree char *text = g_strdup_printf("smpipe 1\nblock 32\nfor i in 0 .. %d\n    compute(imad, 10)\n"
                                            "    __syncwarp()\nend\n", iterations);
    TestRun tr;
    ck_assert(run_text(&tr, text, NULL));
    SimCycle c = tr_stats(&tr)->cycles;
    test_run_clear(&tr);
    return c;
}

/* The loop's control operations and body cost the same in every
 * iteration. */
START_TEST(a_loop_costs_the_same_per_iteration)
{
    SimCycle c10 = loop_cycles(10), c20 = loop_cycles(20), c30 = loop_cycles(30);
    ck_assert_uint_gt(c20, c10);
    ck_assert_uint_eq(c30 - c20, c20 - c10);
}
END_TEST

/* The second warp returns: its threads leave, and the first warp's
 * __syncthreads completes without them. */
START_TEST(returned_threads_leave_the_barrier)
{
    TestRun tr;
    ck_assert_msg(run_text(&tr,
                           "smpipe 1\nblock 64\nif threadIdx.x >= 32\n    return\nend\n__syncthreads()\n"
                           "compute(imad, 10)\n",
                           NULL),
                  "%s", tr.msg ? tr.msg : "");
    ck_assert_int_eq(tr_stats(&tr)->warps, 2);
    /* The first warp ran its compute after the barrier. */
    ck_assert_uint_ge(tr_stats(&tr)->cycles, 10 * 4);
    test_run_clear(&tr);
}
END_TEST

/* An arithmetic error in an operand names the line and column. */
START_TEST(arithmetic_error_stops_at_its_line)
{
    TestRun tr;
    ck_assert(!run_text(&tr, "smpipe 1\nblock 32\nvar z = threadIdx.x - threadIdx.x\nvar x = 7 / z\n", NULL));
    ck_assert_msg(strstr(tr.msg, "test.trace:4:11: division by zero") != NULL, "%s", tr.msg);
    ck_assert_int_eq(tr.status, SIM_EXIT_INVALID_PROGRAM);
    test_run_clear(&tr);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("warp");
    TCase *tc = tcase_create("issue");
    tcase_add_test(tc, a_loop_costs_the_same_per_iteration);
    tcase_add_test(tc, returned_threads_leave_the_barrier);
    tcase_add_test(tc, arithmetic_error_stops_at_its_line);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
