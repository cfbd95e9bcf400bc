/* test_compute.c: compute statements (models/compute.c), through runs of
 * one warp whose instruction-class keys are varied one at a time: a
 * dependent chain costs a latency per instruction, independent chains
 * share the pipe at its interval. */
#include "test_util.h"

static SimCycle cycles_with(const char *text, const char *set)
{
    const char *sets[] = { set, NULL };
    TestRun tr;
    run_arch_ok(&tr, text, NULL, set ? sets : NULL);
    SimCycle c = tr_stats(&tr)->cycles;
    test_run_clear(&tr);
    return c;
}

/* The __syncthreads makes the warp wait for its chains: with
 * sched.chain_overlap (h100) it would otherwise exit without waiting. */
#define ONE_CHAIN "smpipe 1\nblock 32\ncompute(imad, 100)\n__syncthreads()\n"
#define EIGHT_CHAINS "smpipe 1\nblock 32\ncompute(imad, 800, 8)\n__syncthreads()\n"

/* One chain of n dependent instructions: +1 cycle of latency costs n more
 * cycles; the issue interval is hidden behind the latency. */
START_TEST(a_chain_costs_a_latency_per_instruction)
{
    SimCycle base = cycles_with(ONE_CHAIN, "inst.imad.latency=8");
    SimCycle slower = cycles_with(ONE_CHAIN, "inst.imad.latency=9");
    ck_assert_msg(slower - base == 100, "+1 latency: %" G_GUINT64_FORMAT " cycles", slower - base);
    SimCycle interval = cycles_with(ONE_CHAIN, "inst.imad.interval=3");
    ck_assert_msg(interval == cycles_with(ONE_CHAIN, "inst.imad.interval=2"),
                  "one chain of latency 4 waits for its results, not for the pipe");
}
END_TEST

/* Eight independent chains of 100 fill the pipe: the interval, not the
 * latency, sets the pace (800 instructions, +1 interval ~ +800 cycles). */
START_TEST(independent_chains_share_the_pipe)
{
    SimCycle base = cycles_with(EIGHT_CHAINS, "inst.imad.interval=4");
    SimCycle slower = cycles_with(EIGHT_CHAINS, "inst.imad.interval=5");
    ck_assert_msg(slower - base >= 790 && slower - base <= 810, "+1 interval: %" G_GUINT64_FORMAT " cycles",
                  slower - base);
    SimCycle latency = cycles_with(EIGHT_CHAINS, "inst.imad.latency=5");
    SimCycle latency4 = cycles_with(EIGHT_CHAINS, "inst.imad.latency=4");
    ck_assert_msg(latency - latency4 <= 8, "+1 latency with 8 chains: %" G_GUINT64_FORMAT " cycles",
                  latency - latency4);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("compute");
    TCase *tc = tcase_create("chains");
    tcase_add_test(tc, a_chain_costs_a_latency_per_instruction);
    tcase_add_test(tc, independent_chains_share_the_pipe);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
