/* test_warp.c: the interpreter's issue loop and control flow
 * (models/warp.c), through small runs: a loop costs the same per
 * iteration, threads that return leave the block's barriers, an
 * arithmetic error stops the run at its line, and integer code, control
 * chains and address arithmetic take their instructions' time. */
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

/* Under loose round-robin: these tests are about the issue cost of the
 * warps' code, which oldest-first scheduling (the h100 file's) would mix
 * with its own effect, the youngest warp waiting until the others end
 * (test_sm's oldest_first_runs_the_oldest_warp_to_its_end). */
static SimCycle cycles_with_two(const char *text, const char *set, const char *set2)
{
    const char *sets[] = { "sched.policy=lrr", set, set2, NULL };
    TestRun tr;
    ck_assert_msg(run_text(&tr, text, sets), "%s", tr.msg ? tr.msg : "");
    SimCycle c = tr_stats(&tr)->cycles;
    test_run_clear(&tr);
    return c;
}

static SimCycle cycles_with(const char *text, const char *set)
{
    return cycles_with_two(text, set, NULL);
}

/* Integer and control code takes sched.int_cpi_alone cycles an
 * instruction in a warp alone on its sub-partition, sched.int_cpi in a
 * sub-partition several warps share: (nearly) twice as slow at 2 as at 1
 * either way (the statements' own instructions, sched.control_issue each,
 * besides the block's start and end), when their
 * dependent chain's latency (sched.control_latency) does not hold the warp
 * longer. */
START_TEST(integer_code_issues_at_int_cpi)
{
    const char *alone = "smpipe 1\nblock 32\nvar x = 0\nfor i in 0 .. 200\n    x = x + i\n    x = x - 1\nend\n";
    SimCycle c1 = cycles_with_two(alone, "sched.int_cpi_alone=1", "sched.control_latency=0");
    SimCycle c2 = cycles_with_two(alone, "sched.int_cpi_alone=2", "sched.control_latency=0");
    ck_assert_msg(c2 >= c1 * 19 / 10 && c2 <= c1 * 2, "int_cpi_alone 1: %" G_GUINT64_FORMAT " cycles, 2: %"
                  G_GUINT64_FORMAT, c1, c2);
    /* The shared rate does not touch a warp alone. */
    ck_assert_uint_eq(cycles_with_two(alone, "sched.int_cpi=2", "sched.control_latency=0"),
                      cycles_with_two(alone, "sched.int_cpi=1", "sched.control_latency=0"));
    const char *four = "smpipe 1\nblock 512\nvar x = 0\nfor i in 0 .. 200\n    x = x + i\n    x = x - 1\nend\n";
    SimCycle f1 = cycles_with_two(four, "sched.int_cpi=1", "sched.control_latency=0");
    SimCycle f2 = cycles_with_two(four, "sched.int_cpi=2", "sched.control_latency=0");
    ck_assert_msg(f2 >= f1 * 18 / 10 && f2 <= f1 * 2, "4 warps a sub-partition, int_cpi 1: %" G_GUINT64_FORMAT
                  " cycles, 2: %" G_GUINT64_FORMAT, f1, f2);
}
END_TEST

/* A control statement's instructions form a dependent chain: a warp alone
 * on its sub-partition starts its next statement sched.control_latency
 * cycles after the last (12 against 4 of issue: three times as long),
 * while 4 warps a sub-partition issue in each other's shadow (within a
 * cycle a warp of the issue-bound time). */
START_TEST(control_chain_latency_hides_behind_other_warps)
{
    const char *alone = "smpipe 1\nblock 32\nvar x = 0\nfor i in 0 .. 200\n    x = x + i\n    x = x - 1\nend\n";
    SimCycle a0 = cycles_with(alone, "sched.control_latency=0");
    SimCycle a12 = cycles_with(alone, "sched.control_latency=12");
    ck_assert_msg(a12 >= a0 * 29 / 10 && a12 <= a0 * 31 / 10, "alone: %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT,
                  a0, a12);
    const char *four = "smpipe 1\nblock 512\nvar x = 0\nfor i in 0 .. 200\n    x = x + i\n    x = x - 1\nend\n";
    SimCycle f0 = cycles_with(four, "sched.control_latency=0");
    SimCycle f12 = cycles_with(four, "sched.control_latency=12");
    ck_assert_msg(f12 >= f0 && f12 <= f0 + 16, "4 warps a sub-partition: %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT,
                  f0, f12);
}
END_TEST

/* A load issues sched.addr_issue address instructions first: at
 * int_cpi_alone 1 (the warp is alone on its sub-partition)
 * the LDS goes at cycle 2 and its value is there at 2 + 23 (smem.latency);
 * the store waiting for it issues its own 2 before its STS and the warp
 * exits at 25 + 3.  Without address instructions: 23 + 1. */
START_TEST(memory_access_issues_its_address_first)
{
    const char *text = "smpipe 1\nblock 32\nshared int buf[64]\nvar a = load(buf + threadIdx.x)\n"
                       "store(buf + 32 + threadIdx.x, a)\n";
    ck_assert_uint_eq(cycles_with_two(text, "sched.int_cpi_alone=1", "sched.addr_issue=0"), 24);
    ck_assert_uint_eq(cycles_with_two(text, "sched.int_cpi_alone=1", "sched.addr_issue=2"), 28);
}
END_TEST

/* A thread-scope consumer_wait pays the library's switch over the pending
 * count (sched.thread_wait_issue instructions at int_cpi) in issue slots:
 * one warp waiting 8 times issues 8 x 20 cycles more with 20 of them at
 * int_cpi_alone 1 (it is alone on its sub-partition) than with none.  (They take the sub-partition, which other
 * warps feel; the waiting warp's own wait, cp_async.wait_cycles, covers
 * them.) */
START_TEST(thread_scope_wait_pays_the_library_switch)
{
    const char *text = "smpipe 1\nblock 32\nshared int s[32 * 8]\nglobal int g[32 * 8]\nvar p = make_pipeline()\n"
                       "for i in 0 .. 8\n    p.producer_acquire()\n"
                       "    memcpy_async(thread, s + i * 32 + threadIdx.x, g + i * 32 + threadIdx.x, 4, p)\n"
                       "    p.producer_commit()\nend\n"
                       "for i in 0 .. 8\n    p.consumer_wait()\n    p.consumer_release()\nend\n";
    const char *none[] = { "sched.int_cpi_alone=1", "sched.thread_wait_issue=0", NULL };
    const char *some[] = { "sched.int_cpi_alone=1", "sched.thread_wait_issue=20", NULL };
    ck_assert_uint_eq(issuing_cycles(text, some) - issuing_cycles(text, none), 8 * 20);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("warp");
    TCase *tc = tcase_create("issue");
    tcase_add_test(tc, a_loop_costs_the_same_per_iteration);
    tcase_add_test(tc, returned_threads_leave_the_barrier);
    tcase_add_test(tc, arithmetic_error_stops_at_its_line);
    tcase_add_test(tc, integer_code_issues_at_int_cpi);
    tcase_add_test(tc, control_chain_latency_hides_behind_other_warps);
    tcase_add_test(tc, memory_access_issues_its_address_first);
    tcase_add_test(tc, thread_scope_wait_pays_the_library_switch);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
