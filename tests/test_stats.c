/* test_stats.c: statistics of small programs whose right numbers can be
 * derived by hand (h100: IMAD latency 4, interval 2; LDS latency 23;
 * control statements one issue slot each).  The counts leave out a load's
 * or store's address instructions, the control chain's latency and the
 * warp's own path to shared memory (sched.addr_issue, control_latency,
 * smem.warp_interval and smem.warp_wave_cycles are 0 here; test_warp.c
 * checks the first two, shared_path_by_hand the path). */
#include "test_util.h"

#define TWO_LOADS "smpipe 1\nblock 32\nshared int buf[64]\nvar a = load(buf + threadIdx.x)\n" \
                  "var b = load(buf + 32 + threadIdx.x)\n"

/* The hand counts below are those of in-order issue (sched.chain_overlap
 * off); chain_overlap_by_hand checks the overlapped model. */
static const SimStats *run_ok(TestRun *tr, const char *text, const char *const *sets)
{
    const char *with[12] = { "sched.chain_overlap=false", "sched.addr_issue=0", "sched.control_latency=0",
                             "smem.warp_interval=0", "smem.warp_wave_cycles=0" };
    for (int i = 0; sets != NULL && sets[i] != NULL && i < 6; i++) {
        with[i + 5] = sets[i];
    }
    ck_assert_msg(run_text(tr, text, with), "%s", tr->msg);
    return tr_stats(tr);
}

START_TEST(chain_overlap_by_hand)
{
    /* One warp, 8 dependent IMADs with sched.chain_overlap: issued at the
     * pipe's pace (0, 2, ..., 14), each completing 4 cycles after the one
     * before (4, 8, ..., 32).  Nothing reads the result, but the warp ends
     * when its last link has completed (smpipe cuda folds every result into
     * the thread's sink, so the GPU runs the chain and waits for it too):
     * the run takes 32 cycles, where issue alone would end at 15.  With a
     * loaded input (ready at 23) the chain completes at 23 + 32 = 55 and a
     * store of it waits for that: exit at 56. */
    const char *on[] = { "sched.chain_overlap=true", "sched.addr_issue=0", "sched.control_latency=0",
                         "smem.warp_interval=0", "smem.warp_wave_cycles=0", NULL };
    TestRun tr;
    ck_assert_msg(run_text(&tr, "smpipe 1\nblock 32\ncompute(imad, 8)\n", on), "%s", tr.msg);
    ck_assert_uint_eq(tr_stats(&tr)->cycles, 32);
    test_run_clear(&tr);
    ck_assert_msg(run_text(&tr, TWO_LOADS "a = compute(a, 8)\nstore(buf + threadIdx.x, a)\n", on), "%s", tr.msg);
    ck_assert_uint_eq(tr_stats(&tr)->cycles, 56);
    test_run_clear(&tr);
    /* a at 23, b at 24, each compute between two loads: a's links issue at
     * 1.., b's follow; a completes at 23 + 32 = 55, b at 56, the store of b
     * waits for it and the warp exits after it. */
    ck_assert_msg(run_text(&tr, TWO_LOADS "a = compute(a, 8)\nvar c = load(buf + threadIdx.x)\nb = compute(b, 8)\n"
                           "store(buf + threadIdx.x, b)\n", on), "%s", tr.msg);
    ck_assert_uint_eq(tr_stats(&tr)->cycles, 57);
    test_run_clear(&tr);
}
END_TEST

START_TEST(dependent_chain)
{
    /* One warp, 8 dependent IMADs issued 4 cycles apart (latency 4):
     * cycles 0, 4, ..., 28; the warp exits at 29. */
    TestRun tr;
    const SimStats *s = run_ok(&tr, "smpipe 1\nblock 32\ncompute(imad, 8)\n", NULL);
    ck_assert_uint_eq(s->cycles, 29);
    ck_assert_uint_eq(s->state_total[WS_ISSUING], 8);
    ck_assert_uint_eq(s->state_total[WS_DEPENDENCY], 21);
    ck_assert_uint_eq(s->compute_instructions, 8);
    ck_assert_uint_eq(s->compute_busy, 8);
    test_run_clear(&tr);
}
END_TEST

START_TEST(independent_chains_hit_the_pipe)
{
    /* 8 independent IMADs (8 chains): the pipe takes one every 2 cycles:
     * cycles 0, 2, ..., 14; exit at 15; 7 cycles of math throttle. */
    TestRun tr;
    const SimStats *s = run_ok(&tr, "smpipe 1\nblock 32\ncompute(imad, 8, 8)\n", NULL);
    ck_assert_uint_eq(s->cycles, 15);
    ck_assert_uint_eq(s->state_total[WS_ISSUING], 8);
    ck_assert_uint_eq(s->state_total[WS_MATH_THROTTLE], 7);
    test_run_clear(&tr);
}
END_TEST


START_TEST(independent_computes_interleave)
{
    /* a ready at 23 (LDS issued at 0), b at 24.  The two statements run as
     * two interleaved chains (as ptxas schedules them): a's IMADs at 23,
     * 27, ..., 51, b's at 25 (the pipe is free again), 29, ..., 53. */
    TestRun tr;
    const SimStats *s = run_ok(&tr, TWO_LOADS "a = compute(a, 8)\nb = compute(b, 8)\n", NULL);
    ck_assert_uint_eq(s->cycles, 54);
    ck_assert_uint_eq(s->compute_instructions, 16);
    test_run_clear(&tr);
    /* b reads a's result: one chain after the other, b's from 55 to 83. */
    s = run_ok(&tr, TWO_LOADS "a = compute(a, 8)\nb = compute(a, 8)\n", NULL);
    ck_assert_uint_eq(s->cycles, 84);
    test_run_clear(&tr);
    /* Different lengths are not interleaved: b's 4 IMADs at 53 .. 65. */
    s = run_ok(&tr, TWO_LOADS "a = compute(a, 8)\nb = compute(b, 4)\n", NULL);
    ck_assert_uint_eq(s->cycles, 66);
    test_run_clear(&tr);
    /* b's statement is where the if's lanes reconverge: not interleaved
     * with a's (which only half of the warp runs). */
    s = run_ok(&tr, TWO_LOADS "if threadIdx.x < 16\n    a = compute(a, 8)\nend\nb = compute(b, 8)\n", NULL);
    ck_assert_uint_gt(s->cycles, 80);
    test_run_clear(&tr);
}
END_TEST

START_TEST(operand_computes_wait_for_every_input)
{
    /* a ready at 23, b at 24 (FFMA latency 4, interval 1; HMMA latency 24).
     * compute(ffma, 8, a) issues at 23, 27, ..., 51 and the warp exits at
     * 52; with b as well it waits for b: 24 .. 52, exit at 53. */
    TestRun tr;
    const SimStats *s = run_ok(&tr, TWO_LOADS "var r = compute(ffma, 8, a)\n", NULL);
    ck_assert_uint_eq(s->cycles, 52);
    test_run_clear(&tr);
    s = run_ok(&tr, TWO_LOADS "var r = compute(ffma, 8, a, b)\n", NULL);
    ck_assert_uint_eq(s->cycles, 53);
    ck_assert_uint_eq(s->compute_instructions, 8);
    test_run_clear(&tr);
    /* One MMA chain: 24 and 48, exit at 49. */
    s = run_ok(&tr, TWO_LOADS "var r = compute(hmma, 2, a, b)\n", NULL);
    ck_assert_uint_eq(s->cycles, 49);
    test_run_clear(&tr);
    /* Independent statements interleave (q's chain at 25 .. 53); one that
     * reads the other's result waits for it (q from 56 to 84). */
    s = run_ok(&tr, TWO_LOADS "var r = compute(ffma, 8, a, b)\nvar q = compute(ffma, 8, b, a)\n", NULL);
    ck_assert_uint_eq(s->cycles, 54);
    test_run_clear(&tr);
    s = run_ok(&tr, TWO_LOADS "var r = compute(ffma, 8, a, b)\nvar q = compute(ffma, 8, a, r)\n", NULL);
    ck_assert_uint_eq(s->cycles, 85);
    test_run_clear(&tr);
    /* A store of the result waits for the chain's end (56). */
    s = run_ok(&tr, TWO_LOADS "var r = compute(ffma, 8, a, b)\nstore(buf + threadIdx.x, r)\n", NULL);
    ck_assert_uint_eq(s->cycles, 57);
    test_run_clear(&tr);
}
END_TEST

START_TEST(shared_path_by_hand)
{
    /* A warp's own path to shared memory (smem.h; h100's 4 and 2, as
     * scripts/calib/ldsq.cu and lat_mem.cu measured them). */
    const char *path[] = { "smem.warp_interval=4", "smem.warp_wave_cycles=2", NULL };
    TestRun tr;
    /* Without it b's load goes at 1 and its data comes at 24: the store
     * waits for it and the warp exits at 25. */
    const SimStats *s = run_ok(&tr, TWO_LOADS "store(buf + threadIdx.x, b)\n", NULL);
    ck_assert_uint_eq(s->cycles, 25);
    test_run_clear(&tr);
    /* With it b's load goes 4 cycles after a's: data at 27, exit at 28.
     * The warp waits for its path 3 cycles before b's load and 3 before
     * the store (5 to 8: the path is asked before the store's operand,
     * which it then waits for until 27). */
    s = run_ok(&tr, TWO_LOADS "store(buf + threadIdx.x, b)\n", path);
    ck_assert_uint_eq(s->cycles, 28);
    ck_assert_uint_eq(s->state_total[WS_MIO_THROTTLE], 6);
    ck_assert_uint_eq(s->state_total[WS_MATH_THROTTLE], 0);
    test_run_clear(&tr);
    /* 16 bytes a lane, four wavefronts: a's data at 0 + 3 x 2 + 23 = 29,
     * b's load at max(4, 4 x 2 + 1) = 9, its data at 38; the store of it
     * (as wide) at 38, exit at 39. */
    s = run_ok(&tr, "smpipe 1\nblock 32\ntype T = elem(16)\nshared T buf[64]\nvar a = load(buf + threadIdx.x)\n"
                    "var b = load(buf + 32 + threadIdx.x)\nstore(buf + threadIdx.x, b)\n", path);
    ck_assert_uint_eq(s->cycles, 39);
    test_run_clear(&tr);
    /* A 32-way conflict (lane l at word 32 l): 32 wavefronts, data at
     * 31 x 2 + 23 = 85 (lat_mem.cu's 85), the store of it at 85, exit at 86;
     * without the path the port's 31 + 23 = 54, exit at 55. */
    const char *conflict = "smpipe 1\nblock 32\nshared int buf[1024]\nvar a = load(buf + threadIdx.x * 32)\n"
                           "store(buf + threadIdx.x, a)\n";
    s = run_ok(&tr, conflict, path);
    ck_assert_uint_eq(s->cycles, 86);
    test_run_clear(&tr);
    s = run_ok(&tr, conflict, NULL);
    ck_assert_uint_eq(s->cycles, 55);
    test_run_clear(&tr);
    /* A fill's stores take the path one after another: 3 stores (lane l at
     * words 3 l + k, an odd stride: no conflict) at 0, 4 and 8, exit at 9;
     * the 6 cycles between them waiting for the path.  Without it, 0, 1, 2. */
    const char *fill = "smpipe 1\nblock 32\nshared int buf[128]\nfill(buf + threadIdx.x * 3, 0, 3)\n";
    s = run_ok(&tr, fill, path);
    ck_assert_uint_eq(s->cycles, 9);
    ck_assert_uint_eq(s->state_total[WS_ISSUING], 3);
    ck_assert_uint_eq(s->state_total[WS_MIO_THROTTLE], 6);
    test_run_clear(&tr);
    s = run_ok(&tr, fill, NULL);
    ck_assert_uint_eq(s->cycles, 3);
    test_run_clear(&tr);
    /* With address arithmetic (2 instructions, 3 cycles for a lone warp):
     * a stored constant has none, STS at 0 (the path's next at 4); the
     * load's arithmetic issues at 1..3 while the path is busy, LDS at 4,
     * data at 27; the store of it waits for it, then its arithmetic, STS at
     * 30, exit at 31: as without the path, which never binds here. */
    const char *arith[] = { "smem.warp_interval=4", "smem.warp_wave_cycles=2", "sched.addr_issue=2", NULL };
    const char *value_then_load = "smpipe 1\nblock 32\nshared int buf[128]\nbuf[threadIdx.x] = 1\n"
                                  "var a = load(buf + 32 + threadIdx.x)\nstore(buf + 64 + threadIdx.x, a)\n";
    s = run_ok(&tr, value_then_load, arith);
    ck_assert_uint_eq(s->cycles, 31);
    ck_assert_uint_eq(s->state_total[WS_MIO_THROTTLE], 0);
    test_run_clear(&tr);
}
END_TEST

START_TEST(two_warps_share_a_scheduler)
{
    /* Five warps on four schedulers: warps 0 and 4 share scheduler 0 and
     * the IMAD pipe.  Each has 4 independent IMADs; together they need 8
     * pipe slots 2 cycles apart on scheduler 0: cycles 0..14; exit at 15.
     * Sum over the two: 8 issuing, the rest waiting for the pipe or
     * not selected.  Round-robin alternates them (one finishes at 13, the
     * other at 15); oldest first issues warp 0's four first (it finishes
     * at 7). */
    const char *lrr[] = { "sched.policy=lrr", NULL };
    const char *oldest[] = { "sched.policy=oldest", NULL };
    const char *const *policies[] = { lrr, oldest };
    const uint64_t both[] = { 13 + 15, 7 + 15 };
    for (int p = 0; p < 2; p++) {
        TestRun tr;
        const SimStats *s = run_ok(&tr, "smpipe 1\nblock 160\ncompute(imad, 4, 4)\n", policies[p]);
        ck_assert_uint_eq(s->cycles, 15);
        uint64_t w0 = 0, w4 = 0;
        for (int k = 0; k < WS__COUNT; k++) {
            if (k != WS_EXITED) {
                w0 += s->warp_state[0 * WS__COUNT + k];
                w4 += s->warp_state[4 * WS__COUNT + k];
            }
        }
        ck_assert_uint_eq(s->warp_state[0 * WS__COUNT + WS_ISSUING] + s->warp_state[4 * WS__COUNT + WS_ISSUING], 8);
        ck_assert_uint_eq(w0 + w4, both[p]);
        test_run_clear(&tr);
    }
}
END_TEST

START_TEST(bank_conflicts)
{
    /* A 2-way conflict (stride of two words): 2 wavefronts, one replay
     * cycle of bank_conflict. */
    TestRun tr;
    const SimStats *s = run_ok(&tr, "smpipe 1\nblock 32\nshared int s[64]\nvar x = load(s + 2 * threadIdx.x)\n", NULL);
    ck_assert_uint_eq(s->smem_accesses, 1);
    ck_assert_uint_eq(s->smem_wavefronts, 2);
    ck_assert_uint_eq(s->smem_ideal_wavefronts, 1);
    ck_assert_uint_eq(s->smem_conflict_accesses, 1);
    ck_assert_uint_eq(s->smem_max_degree, 2);
    ck_assert_uint_eq(s->state_total[WS_BANK_CONFLICT], 1);
    test_run_clear(&tr);
    /* Conflict-free: consecutive words. */
    s = run_ok(&tr, "smpipe 1\nblock 32\nshared int s[64]\nvar x = load(s + threadIdx.x)\n", NULL);
    ck_assert_uint_eq(s->smem_wavefronts, 1);
    ck_assert_uint_eq(s->smem_conflict_accesses, 0);
    test_run_clear(&tr);
}
END_TEST

START_TEST(stage_counts_and_bytes)
{
    /* 5 stages through a 2-stage unified pipeline, 128 threads x 4 bytes. */
    const char *sets[] = { "batches=5", NULL };
    char *text = read_source("traces/with_staging_unified.trace");
    TestRun tr;
    const SimStats *s = run_ok(&tr, text, sets);
    ck_assert_uint_eq(s->stages->len, 1);
    const SimStageStats *st = g_ptr_array_index(s->stages, 0);
    ck_assert_uint_eq(st->instances, 5);
    ck_assert_int_eq(st->stages, 2);
    ck_assert_uint_eq(s->cp_async_bytes, 5 * 128 * 4);
    ck_assert_uint_eq(s->cp_async_instructions, 5 * 4);  /* one LDGSTS per warp per batch */
    ck_assert_uint_eq(s->bytes_written, 5 * 128 * 4);
    ck_assert_uint_eq(s->bytes_dram, 5 * 128 * 4);        /* 512 bytes = 4 lines per batch, all cold */
    /* Occupancy: every cycle is in exactly one bucket. */
    uint64_t occ = 0;
    for (int k = 0; k <= 2; k++) {
        occ += st->occupancy[k];
    }
    ck_assert_uint_eq(occ, s->cycles);
    /* Overlap fields are consistent. */
    ck_assert_uint_le(s->both_busy, s->copy_busy);
    ck_assert_uint_le(s->both_busy, s->compute_busy);
    ck_assert_uint_eq(s->compute_busy, s->compute_instructions > 0 ? s->compute_busy : 0);
    test_run_clear(&tr);
    g_free(text);
}
END_TEST

START_TEST(exposed_copy_without_overlap)
{
    /* One copy, then wait, then compute: nothing overlaps, so no copy time
     * is hidden and all of it is exposed. */
    TestRun tr;
    const SimStats *s = run_ok(&tr, "smpipe 1\nblock 32\nshared int s[32]\nglobal int g[32]\n"
                                    "var p = make_pipeline()\np.producer_acquire()\n"
                                    "memcpy_async(thread, s + threadIdx.x, g + threadIdx.x, 4, p)\n"
                                    "p.producer_commit()\np.consumer_wait()\np.consumer_release()\n"
                                    "compute(imad, 8)\n", NULL);
    ck_assert_uint_gt(s->copy_busy, 500);
    ck_assert_uint_eq(s->both_busy, 0);
    ck_assert_uint_eq(report_exposed_cycles(s), s->copy_busy);
    ck_assert(report_hidden_fraction(s) == 0.0);
    test_run_clear(&tr);
}
END_TEST

START_TEST(roles_partitioned_by_count)
{
    /* With make_pipeline(block, &state, count), each thread's first
     * operation fixes its role: the role breakdown has both. */
    TestRun tr;
    const SimStats *s = run_ok(&tr, "smpipe 1\nblock 64\nshared pipeline_shared_state<block, 2> st\n"
                                    "var p = make_pipeline(block, st, 32)\nif threadIdx.x < 32\n"
                                    "  p.producer_acquire()\n  p.producer_commit()\nelse\n  compute(imad, 50)\n"
                                    "  p.consumer_wait()\n  p.consumer_release()\nend\n", NULL);
    uint64_t prod = 0, cons = 0, both = 0;
    for (int k = 0; k < WS__COUNT; k++) {
        prod += s->role_state[ROLE_PRODUCER][k];
        cons += s->role_state[ROLE_CONSUMER][k];
        both += s->role_state[ROLE_BOTH][k];
    }
    ck_assert_uint_gt(prod, 0);
    ck_assert_uint_gt(cons, 0);
    ck_assert_uint_eq(both, 0);
    test_run_clear(&tr);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("hand_checked");
    tcase_add_test(tc, dependent_chain);
    tcase_add_test(tc, chain_overlap_by_hand);
    tcase_add_test(tc, independent_chains_hit_the_pipe);
    tcase_add_test(tc, independent_computes_interleave);
    tcase_add_test(tc, operand_computes_wait_for_every_input);
    tcase_add_test(tc, shared_path_by_hand);
    tcase_add_test(tc, two_warps_share_a_scheduler);
    tcase_add_test(tc, bank_conflicts);
    tcase_add_test(tc, stage_counts_and_bytes);
    tcase_add_test(tc, exposed_copy_without_overlap);
    tcase_add_test(tc, roles_partitioned_by_count);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
