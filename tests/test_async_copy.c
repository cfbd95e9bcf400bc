/* test_async_copy.c: memcpy_async's copy path (models/async_copy.c), as
 * libcudacxx dispatches it (docs/semantics.md, "memcpy_async").  One TCase
 * per behaviour; each names the SPEC tag of the rule it proves. */
#include "test_step.h"

#include "models/async_copy.h"
#include "models/sync.h"

/* Runs a trace text on an architecture (NULL: h100); fails the test if the
 * run fails. */
static void run_on(TestRun *tr, const char *text, const char *arch)
{
    run_arch_ok(tr, text, arch, NULL);
}

static bool has_warning(const SimStats *s, const char *text)
{
    for (guint i = 0; i < s->warnings->len; i++) {
        if (strstr(g_ptr_array_index(s->warnings, i), text) != NULL) {
            return true;
        }
    }
    return false;
}

#define BARRIER_COPY                                                                                                   \
    "smpipe 1\nblock 32\nshared int4 s[64]\nglobal int4 g[64]\nbarrier bar\n"                                          \
    "if threadIdx.x == 0\n    init(bar, block.size())\nend\n__syncthreads()\n"                                          \
    "memcpy_async(block, s, g, sizeof(int4) * 64, bar)\nbar.arrive_and_wait()\n"

#define PIPE_COPY(T, N, SIZE)                                                                                          \
    "smpipe 1\nblock 32\nshared " T " s[" N "]\nglobal " T " g[" N "]\n"                                               \
    "shared pipeline_shared_state<block, 1> st\nvar p = make_pipeline(block, st)\np.producer_acquire()\n"              \
    "memcpy_async(block, s, g, " SIZE ", p)\np.producer_commit()\np.consumer_wait()\np.consumer_release()\n"

/* SPEC memcpy-2: on sm_90, a barrier in shared memory and alignment >= 16
 * take the bulk copy (TMA): one elected thread copies everything. */
START_TEST(barrier_copy_is_bulk_on_sm90)
{
    TestRun tr;
    run_on(&tr, BARRIER_COPY, "h100");
    const SimStats *s = tr_stats(&tr);
    ck_assert_uint_eq(s->bulk_copies, 1);
    ck_assert_uint_eq(s->bulk_bytes, 1024);
    ck_assert_uint_eq(s->cp_async_bytes, 0);
    ck_assert_uint_eq(s->sync_bytes, 0);
    test_run_clear(&tr);
}
END_TEST

/* The bulk copy's issue cost lands on the warp of the elected thread
 * (bulk.issue_cycles: its elect loop and copy code, scripts/calib/tiles.cu);
 * the group's other warps branch past the copy code and pay neither that
 * nor cp_async.call_cycles, the group dispatch of the cp.async path. */
START_TEST(bulk_issue_holds_the_electing_warp)
{
    static const char *const sets[] = { "bulk.issue_cycles=70", "cp_async.call_cycles=25", NULL };
    Bench b;
    bench_open(&b, "smpipe 1\nblock 64\nshared int4 s[64]\nglobal int4 g[64]\nbarrier bar\n"
                   "if threadIdx.x == 0\n    init(bar, block.size())\nend\n"
                   "memcpy_async(block, s, g, sizeof(int4) * 64, bar)\n",
               NULL, sets, false, sync_exec_mbarrier);
    int64_t cost;
    Split *s0 = &bench_warp(&b, 0)->split[0];
    ck_assert_int_eq(bench_step(&b, 0, bench_op(&b, OP_BAR_INIT, 0), 10, &cost), STEP_ISSUED);
    b.exec = async_exec_memcpy;
    const Op *copy = bench_op(&b, OP_MEMCPY, 0);
    s0->step = 0;
    ck_assert_int_eq(bench_step(&b, 0, copy, 100, &cost), STEP_ISSUED);
    ck_assert_int_eq(s0->pc, bench_pc(&b, copy) + 1);
    ck_assert_uint_eq(s0->ready_at, 100 + 1 + 70);
    Split *s1 = &bench_warp(&b, 1)->split[0];
    ck_assert_int_eq(bench_step(&b, 1, copy, 100, &cost), STEP_ISSUED);
    ck_assert_int_eq(s1->pc, bench_pc(&b, copy) + 1);
    ck_assert_uint_eq(s1->ready_at, 100 + 1);
    ck_assert_uint_eq(b.sm->bulk.copies, 1);
    bench_close(&b);
}
END_TEST

/* A group call's copies are passes of the library's per-thread loop
 * (scripts/calib/flashq.cu): the dispatch (cp_async.call_cycles) before
 * the first, then cp_async.group_loop_cycles a pass, not the
 * warp_issue_cycles between a per-thread call's bare cp.async. */
START_TEST(group_copy_passes_take_the_loop_time)
{
    static const char *const sets[] = { "cp_async.call_cycles=63", "cp_async.group_loop_cycles=37",
                                        "cp_async.warp_issue_cycles=6", NULL };
    Bench b;
    /* 2048 bytes over 32 threads of 16-byte chunks: four passes each. */
    bench_open(&b, "smpipe 1\nblock 32\nshared int4 s[128]\nglobal int4 g[128]\n"
                   "memcpy_async(block, s, g, sizeof(int4) * 128)\n",
               NULL, sets, false, async_exec_memcpy);
    int64_t cost;
    Split *s0 = &bench_warp(&b, 0)->split[0];
    const Op *group = bench_op(&b, OP_MEMCPY, 0);
    ck_assert_int_eq(bench_step(&b, 0, group, 100, &cost), STEP_ISSUED);
    ck_assert_uint_eq(s0->ready_at, 100 + 63);
    SimCycle t = s0->ready_at;
    for (int pass = 0; pass < 4; pass++) {
        ck_assert_int_eq(bench_step(&b, 0, group, t, &cost), STEP_ISSUED);
        ck_assert_uint_eq(s0->ready_at, t + 37);
        t = s0->ready_at;
    }
    ck_assert_int_eq(s0->pc, bench_pc(&b, group) + 1);
    ck_assert_uint_eq(b.sm->cpa.instructions, 4);
    bench_close(&b);
}
END_TEST

/* Each thread's own bulk copy (memcpy_async onto a barrier per thread):
 * the warp runs the copy code once for each of its 32 copies. */
START_TEST(bulk_issue_counts_each_copy)
{
    static const char *const sets[] = { "bulk.issue_cycles=70", NULL };
    Bench b;
    bench_open(&b, "smpipe 1\nblock 32\nshared int4 s[32]\nglobal int4 g[32]\nbarrier bar\n"
                   "if threadIdx.x == 0\n    init(bar, block.size())\nend\n"
                   "memcpy_async(s + threadIdx.x, g + threadIdx.x, sizeof(int4), bar)\n",
               NULL, sets, false, sync_exec_mbarrier);
    int64_t cost;
    Split *s0 = &bench_warp(&b, 0)->split[0];
    ck_assert_int_eq(bench_step(&b, 0, bench_op(&b, OP_BAR_INIT, 0), 10, &cost), STEP_ISSUED);
    b.exec = async_exec_memcpy;
    const Op *copy = bench_op(&b, OP_MEMCPY, 0);
    s0->step = 0;
    ck_assert_int_eq(bench_step(&b, 0, copy, 100, &cost), STEP_ISSUED);
    ck_assert_uint_eq(b.sm->bulk.copies, 32);
    ck_assert_uint_eq(s0->ready_at, 100 + 1 + 32 * 70);
    bench_close(&b);
}
END_TEST

/* SPEC memcpy-2: on sm_80 the same call is cp.async, 16-byte chunks
 * strided over the group: 1024 bytes / (32 threads x 16) = 2 instructions. */
START_TEST(barrier_copy_is_cp_async_on_sm80)
{
    TestRun tr;
    run_on(&tr, BARRIER_COPY, "a100");
    const SimStats *s = tr_stats(&tr);
    ck_assert_uint_eq(s->bulk_copies, 0);
    ck_assert_uint_eq(s->cp_async_bytes, 1024);
    ck_assert_uint_eq(s->cp_async_instructions, 2);
    test_run_clear(&tr);
}
END_TEST

/* SPEC memcpy-2: pipelines never get the bulk path. */
START_TEST(pipeline_copy_is_never_bulk)
{
    TestRun tr;
    run_on(&tr, PIPE_COPY("int4", "64", "sizeof(int4) * 64"), "h100");
    const SimStats *s = tr_stats(&tr);
    ck_assert_uint_eq(s->bulk_copies, 0);
    ck_assert_uint_eq(s->cp_async_bytes, 1024);
    test_run_clear(&tr);
}
END_TEST

/* SPEC memcpy-2: cooperative_groups::memcpy_async (no barrier, no
 * pipeline) is cp.async plus a commit group, never bulk. */
START_TEST(cooperative_groups_copy_is_cp_async)
{
    TestRun tr;
    run_on(&tr,
           "smpipe 1\nblock 32\nshared int4 s[64]\nglobal int4 g[64]\n"
           "memcpy_async(block, s, g, sizeof(int4) * 64)\nwait(block)\nvar x = load(s + threadIdx.x)\n",
           "h100");
    const SimStats *s = tr_stats(&tr);
    ck_assert_uint_eq(s->bulk_copies, 0);
    ck_assert_uint_eq(s->cp_async_bytes, 1024);
    ck_assert_uint_eq(s->race_warnings, 0);
    test_run_clear(&tr);
}
END_TEST

/* SPEC memcpy-2: a copy that is not global to shared is synchronous. */
START_TEST(shared_to_shared_is_synchronous)
{
    TestRun tr;
    run_on(&tr,
           "smpipe 1\nblock 32\nshared int a[64]\nshared int b[64]\nshared pipeline_shared_state<block, 1> st\n"
           "var p = make_pipeline(block, st)\np.producer_acquire()\nmemcpy_async(block, a, b, 256, p)\n"
           "p.producer_commit()\np.consumer_wait()\np.consumer_release()\n",
           "h100");
    const SimStats *s = tr_stats(&tr);
    ck_assert_uint_eq(s->cp_async_bytes, 0);
    ck_assert_uint_eq(s->sync_bytes, 256);
    ck_assert_uint_eq(s->sync_copies, 1);
    ck_assert(has_warning(s, "falls back to a synchronous copy because it copies shared to shared memory"));
    test_run_clear(&tr);
}
END_TEST

/* One block-scope pipeline copy of 4 KiB by 128 threads, DST <- SRC. */
#define DIR_COPY(DST, SRC)                                                                                             \
    "smpipe 1\nblock 128\nshared int4 s[256]\nshared int4 s2[256]\nglobal int4 g[256]\nglobal int4 g2[256]\n"       \
    "shared pipeline_shared_state<block, 1> st\nvar p = make_pipeline(block, st)\np.producer_acquire()\n"            \
    "memcpy_async(block, " DST ", " SRC ", sizeof(int4) * 256, p)\n"                                                  \
    "p.producer_commit()\np.consumer_wait()\np.consumer_release()\n"

/* SPEC memcpy-2: each direction takes its own path through its own units.
 * Global to shared is cp.async; the three others are the synchronous
 * fallback, whose loads and stores go where their pointers point: a
 * shared-to-shared copy never leaves the SM (no DRAM, nothing written to
 * global memory, a shared load and a shared store per chunk round), a
 * copy to global memory writes its bytes through the memory path, a copy
 * from shared memory reads through the shared-memory port.  The four take
 * four different times. */
START_TEST(each_direction_has_its_own_path)
{
    static const struct {
        const char *text;
        SimCopyDir dir;
        uint64_t cp_async, sync, dram, written, smem_accesses;
    } cases[] = {
        /* 4096 bytes; 4 warps x 2 rounds of 16-byte chunks; 32 lines. */
        { DIR_COPY("s", "g"), SIM_DIR_GLOBAL_TO_SHARED, 4096, 0, 4096, 0, 0 },
        { DIR_COPY("s", "s2"), SIM_DIR_SHARED_TO_SHARED, 0, 4096, 0, 0, 16 },
        { DIR_COPY("g2", "s"), SIM_DIR_SHARED_TO_GLOBAL, 0, 4096, 0, 4096, 8 },
        { DIR_COPY("g2", "g"), SIM_DIR_GLOBAL_TO_GLOBAL, 0, 4096, 4096, 4096, 0 },
    };
    SimCycle cycles[G_N_ELEMENTS(cases)];
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        TestRun tr;
        run_on(&tr, cases[i].text, "h100");
        const SimStats *s = tr_stats(&tr);
        ck_assert_msg(s->cp_async_bytes == cases[i].cp_async && s->sync_bytes == cases[i].sync,
                      "case %zu: cp.async %" G_GUINT64_FORMAT " sync %" G_GUINT64_FORMAT, i, s->cp_async_bytes,
                      s->sync_bytes);
        ck_assert_msg(s->bytes_dram == cases[i].dram && s->bytes_written == cases[i].written,
                      "case %zu: DRAM %" G_GUINT64_FORMAT " written %" G_GUINT64_FORMAT, i, s->bytes_dram,
                      s->bytes_written);
        ck_assert_msg(s->smem_accesses == cases[i].smem_accesses, "case %zu: %" G_GUINT64_FORMAT " smem accesses", i,
                      s->smem_accesses);
        for (int d = 0; d < SIM_DIR__COUNT; d++) {
            ck_assert_uint_eq(s->dir_calls[d], d == (int) cases[i].dir ? 1 : 0);
            ck_assert_uint_eq(s->dir_bytes[d], d == (int) cases[i].dir ? 4096 : 0);
            ck_assert_uint_eq(s->dir_sync_bytes[d], d == (int) cases[i].dir ? cases[i].sync : 0);
        }
        if (cases[i].dir == SIM_DIR_SHARED_TO_SHARED) {
            /* Waiting for shared memory is not waiting for global memory. */
            ck_assert_uint_eq(s->state_total[WS_MEMORY], 0);
            ck_assert(s->l1_hits + s->l2_hits + s->l2_misses == 0);
        }
        cycles[i] = s->cycles;
        test_run_clear(&tr);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        for (size_t j = i + 1; j < G_N_ELEMENTS(cases); j++) {
            ck_assert_msg(cycles[i] != cycles[j], "cases %zu and %zu both take %" G_GUINT64_FORMAT " cycles", i, j,
                          cycles[i]);
        }
    }
}
END_TEST

/* The functional model moves the right bytes in every direction (the CUDA
 * backend checks the GPU's outputs against it): g -> s (cp.async),
 * s -> s2, s2 -> out (synchronous), g -> out2 (synchronous). */
START_TEST(each_direction_moves_the_right_bytes)
{
    const char *text = "smpipe 1\nblock 64\nshared int2 s[128]\nshared int2 s2[128]\nglobal int2 g[128]\n"
                       "global int2 out[128]\nglobal int2 out2[128]\n"
                       "shared pipeline_shared_state<block, 1> st\nvar p = make_pipeline(block, st)\n"
                       "p.producer_acquire()\nmemcpy_async(block, s, g, sizeof(int2) * 128, p)\np.producer_commit()\n"
                       "p.consumer_wait()\np.consumer_release()\n"
                       "p.producer_acquire()\nmemcpy_async(block, s2, s, sizeof(int2) * 128, p)\np.producer_commit()\n"
                       "p.consumer_wait()\np.consumer_release()\n"
                       "p.producer_acquire()\nmemcpy_async(block, out, s2, sizeof(int2) * 128, p)\n"
                       "memcpy_async(block, out2, g, sizeof(int2) * 128, p)\np.producer_commit()\n"
                       "p.consumer_wait()\np.consumer_release()\n";
    TestRun tr;
    ck_assert(run_text_full(&tr, "test.trace", text, NULL, SIM_ENGINE_EVENT, 100000000, 0, true));
    const SimStats *st = tr_stats(&tr);
    ck_assert_uint_eq(st->dir_bytes[SIM_DIR_GLOBAL_TO_SHARED], 1024);
    ck_assert_uint_eq(st->dir_bytes[SIM_DIR_SHARED_TO_SHARED], 1024);
    ck_assert_uint_eq(st->dir_bytes[SIM_DIR_SHARED_TO_GLOBAL], 1024);
    ck_assert_uint_eq(st->dir_bytes[SIM_DIR_GLOBAL_TO_GLOBAL], 1024);
    for (int32_t b = 3; b <= 4; b++) {
        int64_t n;
        const uint32_t *words = (const uint32_t *) sm_global_data(tr.run.sm, b, &n);
        ck_assert_int_eq(n, 1024);
        for (int64_t i = 0; i < n / 4; i++) {
            ck_assert_msg(words[i] == sm_initial_word(2, i), "buffer %d word %" G_GINT64_FORMAT, b, i);
        }
    }
    test_run_clear(&tr);
}
END_TEST

/* SPEC memcpy-7: memcpy_async_tx copies global to shared only (the
 * library asserts it); any other direction is a compile-time error. */
START_TEST(memcpy_async_tx_is_global_to_shared_only)
{
    TestRun tr;
    ck_assert(!run_text(&tr, "smpipe 1\nblock 32\nshared int4 s[64]\nglobal int4 g[64]\nbarrier bar\n"
                             "memcpy_async_tx(g, s, aligned_size_t<16>(1024), bar)\n", NULL));
    ck_assert_int_eq(tr.status, 2);
    ck_assert_msg(strstr(tr.msg, "copies global to shared memory only; this copies shared to global") != NULL, "%s",
                  tr.msg);
    test_run_clear(&tr);
}
END_TEST

/* SPEC memcpy-6: overlapping source and destination break the library's
 * precondition; the error names both ranges.  Adjacent ranges are fine. */
START_TEST(overlapping_ranges_are_reported)
{
    TestRun tr;
    ck_assert(!run_text(&tr, "smpipe 1\nblock 32\nshared int a[64]\nvar p = make_pipeline()\np.producer_acquire()\n"
                             "memcpy_async(a + 16, a + 8, 64, p)\n", NULL));
    ck_assert_int_eq(tr.status, 1);
    ck_assert_msg(strstr(tr.msg, "test.trace:6:1:") != NULL, "%s", tr.msg);
    ck_assert_msg(strstr(tr.msg, "the source (bytes 32..95 of 'a') and the destination (bytes 64..127 of 'a') overlap")
                  != NULL, "%s", tr.msg);
    test_run_clear(&tr);
    ck_assert(run_text(&tr, "smpipe 1\nblock 32\nshared int a[64]\nvar p = make_pipeline()\np.producer_acquire()\n"
                            "memcpy_async(a + 16, a, 64, p)\np.producer_commit()\np.consumer_wait()\n", NULL));
    test_run_clear(&tr);
}
END_TEST

/* SPEC memcpy-2: memcpy_async_tx needs sm_90. */
START_TEST(memcpy_async_tx_needs_sm90)
{
    const char *text = "smpipe 1\nblock 32\nshared int4 s[64]\nglobal int4 g[64]\nbarrier bar\n"
                       "if threadIdx.x == 0\n    init(bar, 1)\nend\n__syncthreads()\n"
                       "if threadIdx.x == 0\n"
                       "    memcpy_async_tx(s, g, aligned_size_t<16>(1024), bar)\n"
                       "    var t = barrier_arrive_tx(bar, 1, 1024)\n"
                       "    bar.wait(t)\nend\n";
    TestRun tr;
    run_on(&tr, text, "h100");
    ck_assert_uint_eq(tr_stats(&tr)->bulk_bytes, 1024);
    test_run_clear(&tr);
    GError *err = NULL;
    memset(&tr, 0, sizeof tr);
    tr.trace = trace_parse_string("test.trace", text, strlen(text), &err);
    SimRunOptions o;
    memset(&o, 0, sizeof o);
    o.arch = "a100";
    o.sm.max_cycles = 1000000;
    ck_assert(!sim_run_trace(tr.trace, &o, &tr.run, &err));
    ck_assert_msg(strstr(err->message, "needs sm_90") != NULL, "%s", err->message);
    ck_assert_int_eq(sim_error_exit_status(err), 1);
    g_error_free(err);
    test_run_clear(&tr);
}
END_TEST

/* The alignment the compiler recorded for the trace's only memcpy_async. */
static int64_t copy_alignment(const char *text)
{
    TestRun tr;
    run_on(&tr, text, "h100");
    int64_t align = -1;
    for (guint i = 0; i < tr.run.prog->ops->len; i++) {
        const Op *op = &g_array_index(tr.run.prog->ops, Op, i);
        if (op->code == OP_MEMCPY) {
            align = op->value;
        }
    }
    test_run_clear(&tr);
    return align;
}

/* SPEC memcpy-1: the alignment is max(alignof(T), aligned_size_t's N); a
 * plain size counts as 1. */
START_TEST(alignment_is_the_larger_of_type_and_size)
{
    ck_assert_int_eq(copy_alignment(PIPE_COPY("char", "1024", "1024")), 1);
    ck_assert_int_eq(copy_alignment(PIPE_COPY("char", "1024", "aligned_size_t<16>(1024)")), 16);
    ck_assert_int_eq(copy_alignment(PIPE_COPY("int", "256", "1024")), 4);
    ck_assert_int_eq(copy_alignment(PIPE_COPY("int", "256", "aligned_size_t<8>(1024)")), 8);
    ck_assert_int_eq(copy_alignment(PIPE_COPY("int4", "64", "1024")), 16);
    ck_assert_int_eq(copy_alignment(PIPE_COPY("int4", "64", "aligned_size_t<4>(1024)")), 16);
    ck_assert_int_eq(copy_alignment(PIPE_COPY("int", "256", "aligned_size_t<64>(1024)")), 64);
}
END_TEST

/* SPEC memcpy-1 and memcpy-2: the alignment picks the path and the chunk
 * size min(alignment, 16): 1024 bytes over 32 threads. */
START_TEST(alignment_sets_path_and_chunk)
{
    static const struct {
        const char *text;
        uint64_t cp_async_instructions;
        uint64_t sync_bytes;
    } cases[] = {
        { PIPE_COPY("char", "1024", "1024"), 0, 1024 },                     /* align 1: synchronous */
        { PIPE_COPY("char", "1024", "aligned_size_t<16>(1024)"), 2, 0 },    /* 16-byte chunks */
        { PIPE_COPY("int", "256", "1024"), 8, 0 },                          /* 4-byte chunks */
        { PIPE_COPY("int", "256", "aligned_size_t<8>(1024)"), 4, 0 },       /* 8-byte chunks */
        { PIPE_COPY("int", "256", "aligned_size_t<64>(1024)"), 2, 0 },      /* capped at 16 */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        TestRun tr;
        run_on(&tr, cases[i].text, "h100");
        const SimStats *s = tr_stats(&tr);
        ck_assert_msg(s->cp_async_instructions == cases[i].cp_async_instructions, "case %zu: %" G_GUINT64_FORMAT
                      " cp.async instructions", i, s->cp_async_instructions);
        ck_assert_uint_eq(s->sync_bytes, cases[i].sync_bytes);
        ck_assert_uint_eq(s->cp_async_bytes + s->sync_bytes, 1024);
        if (cases[i].sync_bytes > 0) {
            ck_assert(has_warning(s, "its alignment is below 4 bytes"));
        }
        test_run_clear(&tr);
    }
}
END_TEST

/* aligned_size_t<N>: N is a power of two; memcpy_async_tx needs N >= 16
 * (the library's static_assert).  Both are compile-time errors (exit 2). */
START_TEST(aligned_size_errors)
{
    static const struct {
        const char *text;
        const char *message;
    } cases[] = {
        { PIPE_COPY("int", "256", "aligned_size_t<12>(1024)"), "must be a power of two" },
        { "smpipe 1\nblock 32\nshared int s[256]\nglobal int g[256]\nbarrier bar\n"
          "memcpy_async_tx(s, g, aligned_size_t<8>(1024), bar)\n", "needs aligned_size_t<16>" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        TestRun tr;
        ck_assert(!run_text(&tr, cases[i].text, NULL));
        ck_assert_int_eq(tr.status, 2);
        ck_assert_msg(strstr(tr.msg, cases[i].message) != NULL, "%s", tr.msg);
        test_run_clear(&tr);
    }
}
END_TEST

static TCase *tcase_of(const char *name, const TTest *test)
{
    TCase *tc = tcase_create(name);
    tcase_add_test(tc, test);
    return tc;
}

int main(void)
{
    Suite *s = suite_create("async_copy");
    suite_add_tcase(s, tcase_of("bulk_on_sm90", barrier_copy_is_bulk_on_sm90));
    suite_add_tcase(s, tcase_of("bulk_issue_hold", bulk_issue_holds_the_electing_warp));
    suite_add_tcase(s, tcase_of("bulk_issue_each", bulk_issue_counts_each_copy));
    suite_add_tcase(s, tcase_of("group_loop", group_copy_passes_take_the_loop_time));
    suite_add_tcase(s, tcase_of("cp_async_on_sm80", barrier_copy_is_cp_async_on_sm80));
    suite_add_tcase(s, tcase_of("pipeline_never_bulk", pipeline_copy_is_never_bulk));
    suite_add_tcase(s, tcase_of("cooperative_groups", cooperative_groups_copy_is_cp_async));
    suite_add_tcase(s, tcase_of("shared_to_shared", shared_to_shared_is_synchronous));
    suite_add_tcase(s, tcase_of("memcpy_async_tx", memcpy_async_tx_needs_sm90));
    suite_add_tcase(s, tcase_of("directions", each_direction_has_its_own_path));
    suite_add_tcase(s, tcase_of("direction_bytes", each_direction_moves_the_right_bytes));
    suite_add_tcase(s, tcase_of("memcpy_async_tx_direction", memcpy_async_tx_is_global_to_shared_only));
    suite_add_tcase(s, tcase_of("overlap", overlapping_ranges_are_reported));
    suite_add_tcase(s, tcase_of("alignment", alignment_is_the_larger_of_type_and_size));
    suite_add_tcase(s, tcase_of("chunks", alignment_sets_path_and_chunk));
    suite_add_tcase(s, tcase_of("aligned_size_errors", aligned_size_errors));
    return run_suite(s);
}
