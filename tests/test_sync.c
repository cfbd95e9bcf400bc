/* test_sync.c: the synchronisation operations (models/sync.c) and the
 * barrier costs they take from barrier.c, through whole runs whose
 * architecture keys are varied one at a time: what a key changes shows
 * which formula a run used. */
#include "test_util.h"

#include "models/barrier.h"

static SimCycle cycles_with(const char *text, const char *arch, const char *set)
{
    const char *sets[] = { set, NULL };
    TestRun tr;
    run_arch_ok(&tr, text, arch, set ? sets : NULL);
    SimCycle c = tr_stats(&tr)->cycles;
    test_run_clear(&tr);
    return c;
}

/* Blocks of 64 threads (2 warps) that synchronise the block once: a
 * __syncthreads, a make_pipeline (one group sync), its role form (three)
 * and an OpenCL work-group function (two barriers around its atomic). */
static const struct {
    const char *text;
    SimCycle syncs;
} block_syncs[] = {
    { "smpipe 1\nblock 64\n__syncthreads()\n", 1 },
    { "smpipe 1\nblock 64\nshared pipeline_shared_state<block, 2> st\nvar p = make_pipeline(block, st)\n", 1 },
    { "smpipe 1\nblock 64\nshared pipeline_shared_state<block, 2> st\n"
      "var p = make_pipeline(block, st, threadIdx.x < 32 ? producer : consumer)\n", 3 },
    { "smpipe 1\nblock 64\npipe int p[128]\nvar rid = work_group_reserve_write_pipe(p, 64)\n", 2 },
};

/* One formula for every block synchronisation: base + per_warp x warps. */
START_TEST(block_sync_cost_is_one_formula)
{
    ArchParams a;
    memset(&a, 0, sizeof a);
    a.syncthreads_base = 60;
    a.syncthreads_per_warp = 2;
    ck_assert_uint_eq(block_barrier_cost(&a, 4), 68);
    ck_assert_uint_eq(block_barrier_cost(&a, 1), 62);
    for (size_t i = 0; i < G_N_ELEMENTS(block_syncs); i++) {
        SimCycle base = cycles_with(block_syncs[i].text, NULL, "barrier.syncthreads_base=60");
        SimCycle more = cycles_with(block_syncs[i].text, NULL, "barrier.syncthreads_base=61");
        SimCycle warp = cycles_with(block_syncs[i].text, NULL, "barrier.syncthreads_per_warp=3");
        ck_assert_msg(more - base == block_syncs[i].syncs, "case %zu: +1 base gave %" G_GUINT64_FORMAT " cycles", i,
                      more - base);
        /* barrier.syncthreads_per_warp is 2 on h100: +1 per warp, 2 warps. */
        ck_assert_msg(warp - base == 2 * block_syncs[i].syncs, "case %zu: +1 per warp gave %" G_GUINT64_FORMAT, i,
                      warp - base);
    }
}
END_TEST

/* Warp 0 waits on an mbarrier while warp 1 computes before arriving (and
 * leaves without waiting): the run ends when warp 0 resumes. */
#define LATE_ARRIVAL                                                                                                   \
    "smpipe 1\nblock 64\nshared int s[64]\nbarrier bar\nif threadIdx.x == 0\n    init(bar, block.size())\nend\n"        \
    "__syncthreads()\nif threadIdx.x >= 32\n    var x = load(s + threadIdx.x)\n    x = compute(x, 100)\n"             \
    "    s[threadIdx.x] = x\n    var t = bar.arrive()\nelse\n    bar.arrive_and_wait()\nend\n"

/* On sm_80 a waiting thread polls test_wait: its wake-up depends on the
 * polling period, not on try_wait's wake latency, and the polls are
 * counted.  On sm_90 try_wait suspends: the reverse. */
START_TEST(sm80_waiters_poll_sm90_waiters_are_woken)
{
    SimCycle a_poll = cycles_with(LATE_ARRIVAL, "a100", "barrier.mbarrier_poll=60");
    ck_assert_uint_ne(cycles_with(LATE_ARRIVAL, "a100", "barrier.mbarrier_poll=61"), a_poll);
    ck_assert_uint_eq(cycles_with(LATE_ARRIVAL, "a100", "barrier.mbarrier_wake=201"),
                      cycles_with(LATE_ARRIVAL, "a100", "barrier.mbarrier_wake=200"));
    SimCycle h_wake = cycles_with(LATE_ARRIVAL, "h100", "barrier.mbarrier_wake=200");
    ck_assert_uint_eq(cycles_with(LATE_ARRIVAL, "h100", "barrier.mbarrier_wake=201"), h_wake + 1);
    ck_assert_uint_eq(cycles_with(LATE_ARRIVAL, "h100", "barrier.mbarrier_poll=61"),
                      cycles_with(LATE_ARRIVAL, "h100", "barrier.mbarrier_poll=60"));
    /* The woken wait resumes after the wake-up alone: it does not pay the
     * call on a completed phase (barrier.wait_call) again. */
    ck_assert_uint_eq(cycles_with(LATE_ARRIVAL, "h100", "barrier.wait_call=300"),
                      cycles_with(LATE_ARRIVAL, "h100", "barrier.wait_call=114"));
    TestRun tr;
    run_arch_ok(&tr, LATE_ARRIVAL, "a100", NULL);
    ck_assert_uint_gt(tr_stats(&tr)->poll_instructions, 0);
    test_run_clear(&tr);
    run_arch_ok(&tr, LATE_ARRIVAL, "h100", NULL);
    ck_assert_uint_eq(tr_stats(&tr)->poll_instructions, 0);
    test_run_clear(&tr);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sync");
    TCase *tc = tcase_create("block barrier");
    tcase_add_test(tc, block_sync_cost_is_one_formula);
    suite_add_tcase(s, tc);
    TCase *tm = tcase_create("mbarrier wake");
    tcase_add_test(tm, sm80_waiters_poll_sm90_waiters_are_woken);
    suite_add_tcase(s, tm);
    return run_suite(s);
}
