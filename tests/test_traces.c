/* test_traces.c: golden runs of every bundled trace.
 *  - every warp-cycle is in exactly one state: states sum to warps x cycles;
 *  - the event-driven engine and the cycle-stepped reference give
 *    byte-identical statistics;
 *  - the same inputs give the same bytes twice;
 *  - the guide kernels compute the same results for every stage count from
 *    1 to 16 (functional model), and with_staging_unified the right ones;
 *  - the two GEMM-like traces compute the same C for every stage count;
 *  - the statistics match the committed golden files (tests/golden), each
 *    trace on each architecture a test case of its own, so that one
 *    difference does not hide the others;
 *  - a whole-GPU launch (launch.grid) simulates one SM with its share of
 *    the memory system. */
#include "test_util.h"

#include <inttypes.h>

#include "models/sm.h"

static const char *traces[] = {
    "traces/with_staging.trace",
    "traces/with_staging_unified.trace",
    "traces/with_specialized_staging_unified.trace",
    "traces/with_staging_scope_thread.trace",
    "traces/pipeline_reference_example.trace",
    "traces/cl_producer_consumer.trace",
    "traces/cl_multi_producer.trace",
    "traces/gemm_tiles.trace",
    "traces/gemm_tiles_bulk.trace",
    "traces/cutlass_multistage.trace",
    "traces/flash_attention.trace",
    NULL
};

/* Runs a bundled trace and returns its JSON statistics (engine field
 * blanked, no provenance: the golden files hold statistics, which an edit
 * of a comment in a trace or of the version must not change; test_report
 * checks the provenance) or NULL with *msg set. */
static char *run_json_arch(const char *rel, const char *arch, const char *const *sets, SimEngineKind engine,
                           bool functional, TestRun *keep)
{
    char *text = read_source(rel);
    TestRun tr;
    ck_assert_msg(run_text_arch_full(&tr, rel, text, arch, sets, engine, 100000000, 0, functional), "%s: %s", rel,
                  tr.msg);
    GArray *values = g_array_new(FALSE, FALSE, sizeof(int64_t));
    ReportInfo info;
    test_report_info(&tr, rel, "-", values, &info);
    GString *j = g_string_new(NULL);
    report_json(tr_stats(&tr), &info, REPORT_BY_WARP, j);
    const char *from = strstr(j->str, "  \"provenance\": {\n");
    const char *to = from ? strstr(from, "\n  },\n") : NULL;
    ck_assert_msg(to != NULL, "%s: no provenance object in:\n%s", rel, j->str);
    g_string_erase(j, from - j->str, to + strlen("\n  },\n") - from);
    g_array_free(values, TRUE);
    g_free(text);
    if (keep != NULL) {
        *keep = tr;
    } else {
        test_run_clear(&tr);
    }
    return g_string_free(j, FALSE);
}

/* The same on h100. */
static char *run_json(const char *rel, const char *const *sets, SimEngineKind engine, bool functional, TestRun *keep)
{
    return run_json_arch(rel, NULL, sets, engine, functional, keep);
}

START_TEST(states_sum_to_warps_times_cycles)
{
    for (int i = 0; traces[i]; i++) {
        TestRun tr;
        g_free(run_json(traces[i], NULL, SIM_ENGINE_EVENT, false, &tr));
        const SimStats *s = tr_stats(&tr);
        uint64_t sum = 0;
        for (int k = 0; k < WS__COUNT; k++) {
            sum += s->state_total[k];
        }
        ck_assert_msg(sum == (uint64_t) s->warps * s->cycles, "%s: %" G_GUINT64_FORMAT " != %" G_GINT64_FORMAT
                      " x %" G_GUINT64_FORMAT, traces[i], sum, s->warps, s->cycles);
        uint64_t roles = 0;
        for (int r = 0; r < ROLE__COUNT; r++) {
            for (int k = 0; k < WS__COUNT; k++) {
                roles += s->role_state[r][k];
            }
        }
        ck_assert_uint_eq(roles, sum);
        for (int64_t w = 0; w < s->warps; w++) {
            uint64_t row = 0;
            for (int k = 0; k < WS__COUNT; k++) {
                row += s->warp_state[w * WS__COUNT + k];
            }
            ck_assert_uint_eq(row, s->cycles);
        }
        test_run_clear(&tr);
    }
}
END_TEST

START_TEST(stepped_engine_is_identical_and_runs_repeat)
{
    const char *sets[] = { "batches=6", NULL };
    for (int i = 0; traces[i]; i++) {
        char *a = run_json(traces[i], sets, SIM_ENGINE_EVENT, false, NULL);
        char *b = run_json(traces[i], sets, SIM_ENGINE_STEPPED, false, NULL);
        char *c = run_json(traces[i], sets, SIM_ENGINE_EVENT, false, NULL);
        ck_assert_msg(strcmp(a, b) == 0, "%s: the stepped engine differs", traces[i]);
        ck_assert_msg(strcmp(a, c) == 0, "%s: two runs differ", traces[i]);
        g_free(a);
        g_free(b);
        g_free(c);
    }
}
END_TEST

static GBytes *output_named(const char *rel, int stages, int elem, const char *name)
{
    char s1[32], s2[32];
    g_snprintf(s1, sizeof s1, "stages=%d", stages);
    g_snprintf(s2, sizeof s2, "elem_bytes=%d", elem);
    const char *sets[] = { s1, s2, "batches=5", "compute_iters=3", NULL };
    TestRun tr;
    g_free(run_json(rel, sets, SIM_ENGINE_EVENT, true, &tr));
    int32_t out = -1;
    for (guint b = 0; b < tr.run.prog->buffers->len; b++) {
        if (strcmp(g_array_index(tr.run.prog->buffers, ProgBuffer, b).name, name) == 0) {
            out = (int32_t) b;
        }
    }
    int64_t n = 0;
    const uint8_t *data = sm_global_data(tr.run.sm, out, &n);
    ck_assert_ptr_nonnull(data);
    GBytes *bytes = g_bytes_new(data, (gsize) n);
    test_run_clear(&tr);
    return bytes;
}

static GBytes *output_of(const char *rel, int stages, int elem)
{
    return output_named(rel, stages, elem, "global_out");
}

START_TEST(gemm_traces_agree)
{
    for (int elem = 4; elem <= 16; elem += 12) {
        GBytes *ref = output_named("traces/gemm_tiles.trace", 1, elem, "C");
        for (int s = 1; s <= 8; s++) {
            GBytes *a = output_named("traces/gemm_tiles.trace", s, elem, "C");
            GBytes *b = output_named("traces/gemm_tiles_bulk.trace", s, elem, "C");
            ck_assert_msg(g_bytes_equal(ref, a), "gemm_tiles: stages=%d elem_bytes=%d differs from stages=1", s, elem);
            ck_assert_msg(g_bytes_equal(ref, b), "gemm_tiles_bulk: stages=%d elem_bytes=%d differs from gemm_tiles", s,
                          elem);
            g_bytes_unref(a);
            g_bytes_unref(b);
        }
        g_bytes_unref(ref);
    }
}
END_TEST

START_TEST(guide_kernels_agree_for_every_stage_count)
{
    const char *guide[] = { traces[0], traces[1], traces[2], traces[3], NULL };
    for (int i = 0; guide[i]; i++) {
        for (int elem = 4; elem <= 16; elem += 12) {
            GBytes *ref = output_of(guide[i], 1, elem);
            for (int s = 2; s <= 16; s++) {
                GBytes *o = output_of(guide[i], s, elem);
                ck_assert_msg(g_bytes_equal(ref, o), "%s: stages=%d elem_bytes=%d gives other results than stages=1",
                              guide[i], s, elem);
                g_bytes_unref(o);
            }
            g_bytes_unref(ref);
        }
    }
}
END_TEST

START_TEST(unified_kernel_computes_the_right_values)
{
    /* out[i] = f^3(in[i]) word by word, f(x) = x * A + B (mod 2^32). */
    GBytes *o = output_of(traces[1], 3, 4);
    gsize n;
    const uint32_t *words = g_bytes_get_data(o, &n);
    ck_assert_uint_eq(n, 5 * 128 * 4);
    for (gsize i = 0; i < n / 4; i++) {
        uint32_t x = sm_initial_word(0, (int64_t) i);
        for (int k = 0; k < 3; k++) {
            x = x * SM_COMPUTE_A + SM_COMPUTE_B;
        }
        ck_assert_uint_eq(words[i], x);
    }
    g_bytes_unref(o);
}
END_TEST

/* Simulated cycles of a trace text with sets.  With status, a run that
 * fails gives -1 and its exit status there; without, it fails the test. */
static int64_t run_cycles(const char *path, const char *text, const char *const *sets, int *status)
{
    TestRun tr;
    int64_t c = -1;
    bool ok = run_text_full(&tr, path, text, sets, SIM_ENGINE_EVENT, 100000000, 0, false);
    ck_assert_msg(ok || status != NULL, "%s", tr.msg);
    if (ok) {
        c = (int64_t) tr_stats(&tr)->cycles;
    }
    if (status != NULL) {
        *status = tr.status;
    }
    test_run_clear(&tr);
    return c;
}

/* Simulated cycles of with_staging_unified with sets, or -1 with the exit
 * status in *status. */
static int64_t unified_cycles(const char *const *sets, int *status)
{
    g_autofree char *text = read_source("traces/with_staging_unified.trace");
    return run_cycles("traces/with_staging_unified.trace", text, sets, status);
}

/* The DRAM latency and queueing spreads draw by address, and a launch's
 * grid moves its blocks' addresses (gridDim.x sizes and strides the
 * arrays): without the spreads, the two ways of saying how many SMs are
 * busy agree to the cycle. */
#define NO_SPREAD "dram.latency_p10=686", "dram.latency_p25=686", "dram.latency_p50=686", "dram.latency_p75=686", \
    "dram.latency_p90=686", "dram.latency_p99=686", "dram.queue_p10=1", "dram.queue_p25=1", "dram.queue_p50=1", \
    "dram.queue_p75=1", "dram.queue_p90=1", "dram.queue_p99=1"

START_TEST(whole_gpu_launch_shares_the_memory_system)
{
    int st;
    const char *alone[] = { "sm.blocks=2", NO_SPREAD, NULL };
    const char *grid[] = { "sm.blocks=2", "launch.grid=264", NO_SPREAD, NULL };
    const char *same[] = { "sm.blocks=2", "mem.active_sms=132", NO_SPREAD, NULL };
    const char *part[] = { "sm.blocks=2", "launch.grid=20", NO_SPREAD, NULL };       /* 10 SMs busy */
    const char *part_same[] = { "sm.blocks=2", "mem.active_sms=10", NO_SPREAD, NULL };
    const char *pinned[] = { "sm.blocks=2", "launch.grid=264", "mem.active_sms=10", NO_SPREAD, NULL };
    const char *small[] = { "sm.blocks=2", "launch.grid=1", NO_SPREAD, NULL };
    int64_t a = unified_cycles(alone, &st);
    int64_t g = unified_cycles(grid, &st);
    ck_assert_int_eq(g, unified_cycles(same, &st));
    ck_assert_msg(g > a, "132 busy SMs (%" PRId64 ") must be slower than one (%" PRId64 ")", g, a);
    ck_assert_int_eq(unified_cycles(part, &st), unified_cycles(part_same, &st));
    ck_assert_int_eq(unified_cycles(pinned, &st), unified_cycles(part_same, &st));
    ck_assert_int_eq(unified_cycles(small, &st), -1);
    ck_assert_int_eq(st, SIM_EXIT_BAD_INPUT);
}
END_TEST

static int64_t text_cycles(const char *text, const char *const *sets)
{
    return run_cycles("test.trace", text, sets, NULL);
}

/* contend.cu's pipe.batch as a program: with the SM's mbarrier unit a
 * batch of the block pipeline costs more as the SM's warps grow (every
 * warp's arrives and try_waits pass one unit), and it depends on the warps
 * of the SM, not on how they are split into blocks. */
START_TEST(mbarrier_unit_makes_the_protocol_grow_with_warps)
{
    const char *text =
        "smpipe 1\nparam threads = 128 in 1..1024\nblock threads\n"
        "shared cuda::pipeline_shared_state<cuda::thread_scope::thread_scope_block, 2> st\n"
        "var block = cooperative_groups::this_thread_block()\nvar p = cuda::make_pipeline(block, &st)\n"
        "for (var b = 0; b < 64; ++b)\n    p.producer_acquire()\n    p.producer_commit()\n"
        "    p.consumer_wait()\n    p.consumer_release()\nend\n";
    /* The unit alone: the loop's control chains (sched.control_latency,
     * test_warp.c) would add the same to every block size, and under the
     * files' greedy scheduler which block's warps keep the slots decides
     * the blocks' phase (round-robin takes that out). */
#define UNIT "barrier.mbarrier_arrive_interval=2", "barrier.mbarrier_wait_interval=6", "barrier.mbarrier_wake=88", \
             "barrier.wait_call=100", "sched.control_latency=0", "sched.policy=lrr"
    const char *u128[] = { "threads=128", UNIT, NULL };
    const char *u1024[] = { "threads=1024", UNIT, NULL };
    const char *u2x512[] = { "threads=512", "sm.blocks=2", UNIT, NULL };
#undef UNIT
#define NONE "barrier.mbarrier_arrive_interval=0", "barrier.mbarrier_wait_interval=0", "sched.control_latency=0"
    const char *n128[] = { "threads=128", NONE, "sched.pipe_call_issue=1", NULL };
    const char *n1024[] = { "threads=1024", NONE, "sched.pipe_call_issue=1", NULL };
    /* The library's own instructions: 8 warps a sub-partition issue 4 calls
     * of 12 slots a batch, partly hidden behind the waits' latency. */
    const char *i1024[] = { "threads=1024", NONE, "sched.pipe_call_issue=12", NULL };
#undef NONE
    int64_t a = text_cycles(text, u128), b = text_cycles(text, u1024), c = text_cycles(text, u2x512);
    /* 32 warps x (3 arrives x 2 + 2 try_waits x 6) = 576 cycles a batch at least. */
    ck_assert_msg(b >= 64 * 576 && b > a * 2, "128 threads %" PRId64 ", 1024 threads %" PRId64, a, b);
    ck_assert_msg(c >= 64 * 576 && c > b - b / 10 && c < b + b / 10, "two blocks of 512 %" PRId64 " vs one of 1024 %"
                  PRId64 " (the same 32 warps)", c, b);
    int64_t na = text_cycles(text, n128), nb = text_cycles(text, n1024);
    ck_assert_msg(nb < na + na / 10, "without the unit the warps cost almost nothing: %" PRId64 " vs %" PRId64, nb, na);
    int64_t ib = text_cycles(text, i1024);
    ck_assert_msg(ib > nb + nb / 10, "the library's issue slots: %" PRId64 " vs %" PRId64
                  " without", ib, nb);
}
END_TEST

/* sched.chain_overlap: one warp's independent chains interleave (about a
 * cycle a link for eight IMAD chains at interval 1), a lone dependent chain
 * still waits its latency per link. */
START_TEST(independent_chains_overlap)
{
    /* Each chain's load comes between two computes, so the in-order model
     * cannot fuse them (op_fuse joins adjacent statements only). */
    const char *eight =
        "smpipe 1\nblock 32\nshared int s[256]\nglobal int g[256]\n"
        "var a = load(s + threadIdx.x)\na = compute(a, 200)\nvar b = load(s + 32 + threadIdx.x)\nb = compute(b, 200)\n"
        "var c = load(s + 64 + threadIdx.x)\nc = compute(c, 200)\nvar d = load(s + 96 + threadIdx.x)\nd = compute(d, 200)\n"
        "var e = load(s + 128 + threadIdx.x)\ne = compute(e, 200)\nvar f = load(s + 160 + threadIdx.x)\n"
        "f = compute(f, 200)\nvar h = load(s + 192 + threadIdx.x)\nh = compute(h, 200)\n"
        "var k = load(s + 224 + threadIdx.x)\nk = compute(k, 200)\n"
        "store(g + threadIdx.x, a)\nstore(g + 32 + threadIdx.x, b)\nstore(g + 64 + threadIdx.x, c)\n"
        "store(g + 96 + threadIdx.x, d)\nstore(g + 128 + threadIdx.x, e)\nstore(g + 160 + threadIdx.x, f)\n"
        "store(g + 192 + threadIdx.x, h)\nstore(g + 224 + threadIdx.x, k)\n";
    const char *one =
        "smpipe 1\nblock 32\nshared int s[32]\nglobal int g[32]\n"
        "var a = load(s + threadIdx.x)\na = compute(a, 1600)\nstore(g + threadIdx.x, a)\n";
    const char *in_order[] = { "inst.imad.interval=1", "sched.chain_overlap=false", NULL };
    const char *overlap[] = { "inst.imad.interval=1", "sched.chain_overlap=true", NULL };
    int64_t e0 = text_cycles(eight, in_order), e1 = text_cycles(eight, overlap);
    int64_t o0 = text_cycles(one, in_order), o1 = text_cycles(one, overlap);
    ck_assert_msg(e0 > 1600 * 3 && e1 < 1600 * 3 / 2, "eight chains: in order %" PRId64 ", overlapped %" PRId64, e0, e1);
    ck_assert_msg(o1 >= o0 - 10 && o1 <= o0 + 10, "one chain: in order %" PRId64 ", overlapped %" PRId64, o0, o1);
    /* A warp ends when its last chain has completed: a program ending in a
     * dependent chain of 100 IMADs (latency 4) takes about 400 cycles,
     * overlapped or not (it took 199 when the exit did not wait). */
    const char *tail = "smpipe 1\nblock 32\ncompute(imad, 100)\n";
    const char *tail_overlap[] = { "inst.imad.latency=4", "sched.chain_overlap=true", NULL };
    const char *tail_in_order[] = { "inst.imad.latency=4", "sched.chain_overlap=false", NULL };
    int64_t t1 = text_cycles(tail, tail_overlap), t0 = text_cycles(tail, tail_in_order);
    ck_assert_msg(t1 >= 396 && t0 >= 396 && t1 <= t0 + 10, "a trailing chain: overlapped %" PRId64 ", in order %"
                  PRId64, t1, t0);
}
END_TEST

/* divmod.cu's modulo: x % 3 costs sched.div_cycles issue cycles and its
 * result comes sched.div_latency cycles after it starts.  One warp pays the
 * latency per statement; eight warps a sub-partition hide it and pay only
 * the issue cycles; x % 4 is a mask and pays neither. */
START_TEST(divisions_cost_issue_cycles_and_latency)
{
    const char *fmt =
        "smpipe 1\nparam threads = 32 in 32..1024\nblock threads\nglobal int g[1024]\n"
        "var x = threadIdx.x\nfor (var i = 0; i < 100; ++i)\n    x = x %% %d + i\nend\nstore(g + threadIdx.x, x)\n";
    g_autofree char *by3 = g_strdup_printf(fmt, 3);
    g_autofree char *by4 = g_strdup_printf(fmt, 4);
    /* The division's latency alone: the statement's own control chain
     * (sched.control_latency, test_warp.c) would overlap it. */
#define KEYS "sched.div_cycles=17", "sched.div_latency=37", "sched.control_latency=0"
    const char *one[] = { "threads=32", KEYS, NULL };
    const char *many[] = { "threads=1024", KEYS, NULL };
    const char *one_nolat[] = { "threads=32", "sched.div_cycles=17", "sched.div_latency=0", "sched.control_latency=0", NULL };
    const char *many_nolat[] = { "threads=1024", "sched.div_cycles=17", "sched.div_latency=0", "sched.control_latency=0",
                                 NULL };
#undef KEYS
    int64_t d1 = text_cycles(by3, one) - text_cycles(by4, one);
    int64_t d1n = text_cycles(by3, one_nolat) - text_cycles(by4, one_nolat);
    int64_t dm = text_cycles(by3, many) - text_cycles(by4, many);
    int64_t dmn = text_cycles(by3, many_nolat) - text_cycles(by4, many_nolat);
    /* One warp: 100 modulos of 37 cycles, against 17 without the latency. */
    ck_assert_msg(d1 >= 100 * 35 && d1 <= 100 * 40, "one warp: %" PRId64 " cycles for 100 modulos", d1);
    ck_assert_msg(d1n >= 100 * 16 && d1n <= 100 * 19, "one warp, no latency: %" PRId64, d1n);
    /* 32 warps, 8 a sub-partition: 8 x 17 issue cycles a modulo either way. */
    ck_assert_msg(dm >= 100 * 8 * 16 && dm <= 100 * 8 * 19, "32 warps: %" PRId64 " cycles for 100 modulos", dm);
    ck_assert_msg(dm - dmn < dm / 20 && dmn - dm < dm / 20, "32 warps hide the latency: %" PRId64 " vs %" PRId64, dm, dmn);
}
END_TEST

/* The architectures every trace's golden statistics are kept for: h100's
 * in tests/golden/TRACE.json (the default architecture), the others' in
 * tests/golden/ARCH/TRACE.json. */
static const char *golden_archs[] = { "h100", "a100", "h200" };
#define N_GOLDEN_ARCHS ((int) G_N_ELEMENTS(golden_archs))

/* Golden run _i: trace _i / N_GOLDEN_ARCHS on architecture _i % N_GOLDEN_ARCHS. */
/* A __syncthreads completed by the exit of the last threads it waited for
 * counts like one completed by an arrival (it read 0 before). */
START_TEST(syncthreads_completed_by_exits_counts)
{
    const char *text =
        "smpipe 1\nblock 64\nshared int s[64]\nglobal int g[64]\nstore(s + threadIdx.x, threadIdx.x)\n"
        "if (threadIdx.x >= 32)\n    var x = load(s + threadIdx.x)\n    x = compute(x, 50)\n"
        "    store(g + threadIdx.x, x)\n    return\nend\n__syncthreads()\n"
        "var v = load(s + 63 - threadIdx.x)\nstore(g + threadIdx.x, v)\n";
    TestRun tr;
    ck_assert_msg(run_text_full(&tr, "test.trace", text, NULL, SIM_ENGINE_EVENT, 100000000, 0, false), "%s", tr.msg);
    ck_assert_uint_eq(tr_stats(&tr)->syncthreads, 1);
    test_run_clear(&tr);
}
END_TEST

START_TEST(golden_statistics)
{
    const char *trace = traces[_i / N_GOLDEN_ARCHS];
    const char *arch = golden_archs[_i % N_GOLDEN_ARCHS];
    char *json = run_json_arch(trace, arch, NULL, SIM_ENGINE_EVENT, false, NULL);
    g_autofree char *base = g_path_get_basename(trace);
    g_autofree char *rel = strcmp(arch, "h100") == 0 ? g_strdup_printf("tests/golden/%s.json", base)
                                                     : g_strdup_printf("tests/golden/%s/%s.json", arch, base);
    g_autofree char *path = g_build_filename(SRCDIR, rel, NULL);
    if (g_getenv("SMPIPE_UPDATE_GOLDEN") != NULL) {
        g_autofree char *dir = g_path_get_dirname(path);
        ck_assert(g_mkdir_with_parents(dir, 0755) == 0);
        ck_assert(g_file_set_contents(path, json, -1, NULL));
    }
    char *expect = read_source(rel);
    ck_assert_msg(strcmp(expect, json) == 0,
                  "%s on %s: statistics differ from %s (if the model changed on purpose, regenerate with"
                  " SMPIPE_UPDATE_GOLDEN=1 meson test -C build traces)", trace, arch, rel);
    g_free(expect);
    g_free(json);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("traces");
    TCase *tc = tcase_create("golden");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, states_sum_to_warps_times_cycles);
    tcase_add_test(tc, stepped_engine_is_identical_and_runs_repeat);
    tcase_add_test(tc, guide_kernels_agree_for_every_stage_count);
    tcase_add_test(tc, unified_kernel_computes_the_right_values);
    tcase_add_test(tc, gemm_traces_agree);
    tcase_add_test(tc, whole_gpu_launch_shares_the_memory_system);
    tcase_add_test(tc, mbarrier_unit_makes_the_protocol_grow_with_warps);
    tcase_add_test(tc, independent_chains_overlap);
    tcase_add_test(tc, divisions_cost_issue_cycles_and_latency);
    tcase_add_test(tc, syncthreads_completed_by_exits_counts);
    suite_add_tcase(s, tc);
    /* One test case per trace and architecture. */
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    for (int i = 0; traces[i]; i++) {
        for (int a = 0; a < N_GOLDEN_ARCHS; a++) {
            g_autofree char *base = g_path_get_basename(traces[i]);
            char *name = g_strdup_printf("golden %s on %s", base, golden_archs[a]);
            g_ptr_array_add(names, name);
            TCase *g = tcase_create(name);
            tcase_set_timeout(g, 600);
            tcase_add_loop_test(g, golden_statistics, i * N_GOLDEN_ARCHS + a, i * N_GOLDEN_ARCHS + a + 1);
            suite_add_tcase(s, g);
        }
    }
    return run_suite(s);
}
