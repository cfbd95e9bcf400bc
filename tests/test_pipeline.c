/* test_pipeline.c: pipeline objects against libcudacxx's rules, driven
 * directly (fake clock, no warps): make_pipeline's counts and undefined
 * cases, the FIFO emerging from the produced/consumed barriers, role
 * checks and stage occupancy. */
#include "test_util.h"

#include "models/pipeline.h"

#define ALL_LANES 0xffffffffu

static void nowake(void *ctx, const BarrierWaiter *w, SimCycle now)
{
    (void) ctx;
    (void) w;
    (void) now;
}

static MBarrier *mbars_new(int n)
{
    MBarrier *m = g_new0(MBarrier, n);
    for (int i = 0; i < n; i++) {
        mbar_init_storage(&m[i]);
    }
    return m;
}

static void mbars_free(MBarrier *m, int n)
{
    for (int i = 0; i < n; i++) {
        mbar_clear_storage(&m[i]);
    }
    g_free(m);
}

/* SPEC make-pipeline-3 */
START_TEST(make_pipeline_counts_and_undefined_cases)
{
    Pipe p;
    MBarrier *m = mbars_new(8);
    pipe_init(&p, true, 0, 64);
    ck_assert_ptr_null(pipe_block_make(&p, m, 0, 4, 0, PIPE_MODE_UNIFIED, 0, 0));
    ck_assert_int_eq(pipe_produced(&p, m, 0)->expected, 64);
    ck_assert_int_eq(pipe_consumed(&p, m, 3)->expected, 64);
    ck_assert_int_eq(p.refcount, 64);
    pipe_clear(&p);
    pipe_init(&p, true, 0, 64);
    ck_assert_ptr_null(pipe_block_make(&p, m, 0, 4, 0, PIPE_MODE_PRODUCER_COUNT, 16, 0));
    ck_assert_int_eq(pipe_produced(&p, m, 1)->expected, 16);
    ck_assert_int_eq(pipe_consumed(&p, m, 1)->expected, 48);
    pipe_clear(&p);
    pipe_init(&p, true, 0, 64);
    const char *e = pipe_block_make(&p, m, 0, 4, 0, PIPE_MODE_PRODUCER_COUNT, 64, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_nonnull(strstr(e, "make-pipeline-3"));
    pipe_clear(&p);
    pipe_init(&p, true, 0, 64);
    ck_assert_ptr_nonnull(pipe_block_make(&p, m, 0, 4, 0, PIPE_MODE_ROLE, 0, 0));
    ck_assert_ptr_nonnull(pipe_block_make(&p, m, 0, 4, 0, PIPE_MODE_ROLE, 64, 0));
    pipe_clear(&p);
    mbars_free(m, 8);
}
END_TEST

/* SPEC pipeline-fifo-1: with S stages a producer's (S+1)-th acquire blocks
 * until every consumer released the first stage. */
START_TEST(fifo_from_barriers)
{
    Pipe p;
    MBarrier *m = mbars_new(4);
    pipe_init(&p, true, 0, 2);
    pipe_block_make(&p, m, 0, 2, 0, PIPE_MODE_UNIFIED, 0, 0);
    for (int tid = 0; tid < 2; tid++) {
        pipe_thread_made(&p, tid, ROLEBIT_PRODUCER | ROLEBIT_CONSUMER);
    }
    /* Thread parities: consumed starts 1 (a fresh stage passes), produced 0. */
    bool cpar = (p.flags[0] & PT_CPARITY) != 0;
    ck_assert(mbar_parity_done(pipe_consumed(&p, m, 0), cpar));
    ck_assert(mbar_parity_done(pipe_consumed(&p, m, 1), cpar));
    /* Both threads commit stages 0 and 1 (no copies): produced phases flip. */
    for (int s = 0; s < 2; s++) {
        mbar_arrive(pipe_produced(&p, m, s), 2, 10, NULL, nowake, NULL);
        ck_assert(mbar_parity_done(pipe_produced(&p, m, s), 0));
    }
    /* Head wrapped: consumed parity flipped to 0, and stage 0 is not free
     * until both threads release it. */
    ck_assert(!mbar_parity_done(pipe_consumed(&p, m, 0), 0));
    mbar_arrive(pipe_consumed(&p, m, 0), 1, 20, NULL, nowake, NULL);
    ck_assert(!mbar_parity_done(pipe_consumed(&p, m, 0), 0));
    mbar_arrive(pipe_consumed(&p, m, 0), 1, 21, NULL, nowake, NULL);
    ck_assert(mbar_parity_done(pipe_consumed(&p, m, 0), 0));
    pipe_clear(&p);
    mbars_free(m, 4);
}
END_TEST

/* SPEC pipeline-role-1, pipeline-quit-2 */
START_TEST(roles_fixed_by_first_use)
{
    Pipe p;
    MBarrier *m = mbars_new(4);
    pipe_init(&p, true, 0, 4);
    pipe_block_make(&p, m, 0, 2, 0, PIPE_MODE_PRODUCER_COUNT, 2, 0);
    for (int tid = 0; tid < 4; tid++) {
        pipe_thread_made(&p, tid, 0);
    }
    ck_assert_ptr_null(pipe_check_role(&p, 0, ROLEBIT_PRODUCER));
    ck_assert_ptr_null(pipe_check_role(&p, 0, ROLEBIT_PRODUCER));
    const char *e = pipe_check_role(&p, 0, ROLEBIT_CONSUMER);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_nonnull(strstr(e, "pipeline-role-1"));
    pipe_lanes_flags(&p, 0, 1u << 1, 0, PT_ACTIVE);
    ck_assert_ptr_nonnull(strstr(pipe_check_role(&p, 1, ROLEBIT_CONSUMER), "pipeline-quit-2"));
    pipe_clear(&p);
    mbars_free(m, 4);
}
END_TEST

START_TEST(occupancy_time)
{
    Pipe p;
    MBarrier *m = mbars_new(6);
    pipe_init(&p, true, 0, 32);
    pipe_block_make(&p, m, 0, 3, 0, PIPE_MODE_UNIFIED, 0, 0);
    pipe_stage_open(&p, 0, 10);
    pipe_stage_open(&p, 1, 20);
    pipe_stage_open(&p, 1, 25);  /* already open: no change */
    pipe_stage_close(&p, 0, 40);
    pipe_finish(&p, 100);
    ck_assert_uint_eq(p.occupancy_time[0], 10);
    ck_assert_uint_eq(p.occupancy_time[1], 10 + 60);
    ck_assert_uint_eq(p.occupancy_time[2], 20);
    pipe_clear(&p);
    mbars_free(m, 6);
}
END_TEST

/* The simulated cycles of a trace text on h100 with sets. */
static SimCycle cycles_of(const char *text, const char *const *sets)
{
    TestRun tr;
    run_arch_ok(&tr, text, NULL, sets);
    SimCycle c = tr_stats(&tr)->cycles;
    test_run_clear(&tr);
    return c;
}

/* Ten commit groups of a thread-scope pipeline, the second one much longer
 * than the others, then WAIT and a long computation on the first stage's
 * data: the run's end shows which groups WAIT waited for. */
static SimCycle ten_groups_then(const char *wait)
{
    g_autofree char *text = g_strdup_printf(
        "smpipe 1\nblock 32\nshared int s[32 * 80]\nglobal int g[32 * 80]\nvar p = make_pipeline()\n"
        "p.producer_acquire()\nmemcpy_async(thread, s + threadIdx.x, g + threadIdx.x, 4, p)\np.producer_commit()\n"
        "p.producer_acquire()\nfor k in 1 .. 65\n"
        "    memcpy_async(thread, s + k * 32 + threadIdx.x, g + k * 32 + threadIdx.x, 4, p)\nend\n"
        "p.producer_commit()\nfor i in 2 .. 10\n    p.producer_acquire()\n"
        "    memcpy_async(thread, s + (64 + i) * 32 + threadIdx.x, g + (64 + i) * 32 + threadIdx.x, 4, p)\n"
        "    p.producer_commit()\nend\n%s\nvar x = load(s + threadIdx.x)\nx = compute(x, 3000)\n", wait);
    /* From L2: DRAM's latency spread could land the third group before
     * the long second one, and the test is about the groups' order. */
    const char *const sets[] = { "mem.source=l2", NULL };
    return cycles_of(text, sets);
}

/* libcudacxx's consumer_wait is wait_group min(head - tail - 1, 8): with
 * ten groups outstanding it waits for the oldest two, as
 * cooperative_groups::wait_prior<8> (wait_group 8, uncapped) does, and not
 * for the oldest one or three. */
START_TEST(thread_consumer_wait_caps_wait_group_at_8)
{
    SimCycle eight = ten_groups_then("wait_prior<8>(thread)");
    ck_assert_uint_ne(ten_groups_then("wait_prior<7>(thread)"), eight);
    ck_assert_uint_eq(ten_groups_then("p.consumer_wait()"), eight);
}
END_TEST

/* pipeline_consumer_wait_prior<N> is wait_group min(N, 8). */
START_TEST(thread_wait_prior_caps_at_8)
{
    SimCycle eight = ten_groups_then("wait_prior<8>(thread)");
    ck_assert_uint_eq(ten_groups_then("pipeline_consumer_wait_prior<9>(p)"), eight);
    ck_assert_uint_eq(ten_groups_then("pipeline_consumer_wait_prior<8>(p)"), eight);
    ck_assert_uint_eq(ten_groups_then("pipeline_consumer_wait_prior<7>(p)"),
                      ten_groups_then("wait_prior<7>(thread)"));
}
END_TEST

/* Cycles of a warp that commits one copy, waits for it (wait_prior<0>),
 * then calls `wait` on a pipeline whose groups have all landed. */
static SimCycle landed_then(const char *wait, const char *const *sets)
{
    g_autofree char *text = g_strdup_printf(
        "smpipe 1\nblock 32\nshared int s[32]\nglobal int g[32]\nvar p = make_pipeline()\np.producer_acquire()\n"
        "memcpy_async(thread, s + threadIdx.x, g + threadIdx.x, 4, p)\np.producer_commit()\n"
        "pipeline_consumer_wait_prior<0>(p)\n%s\n", wait);
    return cycles_of(text, sets);
}

/* A wait_group with a constant count finds its groups landed: the count 0
 * takes cp_async.wait_prior_cycles (it drains the warp's copies), 1 and
 * more cp_async.wait_prior_n_cycles (scripts/calib/waitn.cu). */
START_TEST(wait_prior_zero_drains_longer)
{
    const char *const sets[] = { "cp_async.wait_prior_cycles=300", "cp_async.wait_prior_n_cycles=100", NULL };
    SimCycle none = landed_then("", sets);
    ck_assert_uint_eq(landed_then("pipeline_consumer_wait_prior<0>(p)", sets) - none, 300);
    ck_assert_uint_eq(landed_then("pipeline_consumer_wait_prior<1>(p)", sets) - none, 100);
    ck_assert_uint_eq(landed_then("wait_prior<3>(thread)", sets) - none, 100);
}
END_TEST

/* A block pipeline made, used once and quit `times` times on one shared
 * state. */
static void remade(TestRun *tr, int times)
{
    g_autofree char *text = g_strdup_printf(
        "smpipe 1\nblock 32\nshared int s[64]\nglobal int g[64]\nshared pipeline_shared_state<block, 2> st\n"
        "for i in 0 .. %d\n    var p = make_pipeline(block, st)\n    p.producer_acquire()\n"
        "    memcpy_async(block, s, g, sizeof(int) * 32, p)\n    p.producer_commit()\n    p.consumer_wait()\n"
        "    var x = load(s + threadIdx.x)\n    p.consumer_release()\n    p.quit()\nend\n", times);
    run_arch_ok(tr, text, NULL, NULL);
}

static uint64_t occupancy_cycles(const SimStageStats *st)
{
    uint64_t sum = 0;
    for (int64_t k = 0; k <= st->stages; k++) {
        sum += st->occupancy[k];
    }
    return sum;
}

/* The statistics of a shared state add up every pipeline made on it: a
 * remade pipeline keeps its predecessors' stage instances and occupancy
 * (before, the third make dropped the first two's statistics, which leaked,
 * and the run reported 1 stage instance). */
START_TEST(remade_pipeline_keeps_its_statistics)
{
    TestRun one, three;
    remade(&one, 1);
    remade(&three, 3);
    ck_assert_uint_eq(tr_stats(&one)->stages->len, 1);
    ck_assert_uint_eq(tr_stats(&three)->stages->len, 1);
    const SimStageStats *a = g_ptr_array_index(tr_stats(&one)->stages, 0);
    const SimStageStats *b = g_ptr_array_index(tr_stats(&three)->stages, 0);
    ck_assert_uint_eq(a->instances, 1);
    ck_assert_uint_eq(b->instances, 3);
    ck_assert_uint_eq(b->step[STAGE_STEP_FILL].count, 3);
    /* Both runs make their first pipeline at the same cycle, and the
     * occupancy runs from there to the end. */
    ck_assert_uint_eq(occupancy_cycles(b) - occupancy_cycles(a), tr_stats(&three)->cycles - tr_stats(&one)->cycles);
    test_run_clear(&one);
    test_run_clear(&three);
}
END_TEST

/* ------------------------------------------------------ warp agreement */

/* Whether threads a and b of p hold the same protocol state. */
static bool same_thread_state(const Pipe *p, int64_t a, const Pipe *q, int64_t b)
{
    return p->head[a] == q->head[b] && p->tail[a] == q->tail[b] && p->flags[a] == q->flags[b] &&
           p->role[a] == q->role[b] && p->commits[a] == q->commits[b] && p->releases[a] == q->releases[b] &&
           p->waits[a] == q->waits[b];
}

/* A block pipeline of `threads` threads and 3 stages, every thread made
 * with both roles. */
static void made_pipe(Pipe *p, MBarrier *m, int64_t threads)
{
    pipe_init(p, true, 0, threads);
    ck_assert_ptr_null(pipe_block_make(p, m, 0, 3, 0, PIPE_MODE_UNIFIED, 0, 0));
    for (int64_t tid = 0; tid < threads; tid++) {
        pipe_thread_made(p, tid, ROLEBIT_PRODUCER | ROLEBIT_CONSUMER);
    }
}

/* The protocol's steps on two warps: warp 0 takes each step whole, warp 1
 * in two halves, a step apart.  The halves disagree in between (the
 * per-thread fallback) and agree again once both took the step; both
 * warps end in the same per-thread state, through the head's and tail's
 * wrap (parity flips) and back. */
START_TEST(warp_agrees_until_its_lanes_part)
{
    Pipe p;
    MBarrier *m = mbars_new(6);
    made_pipe(&p, m, 64);
    ck_assert(pipe_warp_agrees(&p, 0));
    ck_assert(pipe_warp_agrees(&p, 32));
    for (int round = 0; round < 4; round++) {
        for (int half = 0; half < 2; half++) {
            uint32_t lanes = half == 0 ? 0x0000ffffu : 0xffff0000u;
            if (half == 0) {
                pipe_lanes_flags(&p, 0, ALL_LANES, PT_ACQUIRED, 0);
                pipe_lanes_commit(&p, 0, ALL_LANES);
                pipe_lanes_waited(&p, 0, ALL_LANES);
                pipe_lanes_release(&p, 0, ALL_LANES);
                ck_assert(pipe_warp_agrees(&p, 0));
            }
            pipe_lanes_flags(&p, 32, lanes, PT_ACQUIRED, 0);
            ck_assert(!pipe_warp_agrees(&p, 32));
            ck_assert_ptr_null(pipe_check_agreement(&p, 32));
            pipe_lanes_commit(&p, 32, lanes);
            pipe_lanes_waited(&p, 32, lanes);
            pipe_lanes_release(&p, 32, lanes);
            ck_assert_int_eq(p.commits[32 + (half == 0 ? 0 : 16)], (uint32_t) round + 1);
            ck_assert_int_eq(p.commits[32 + (half == 0 ? 16 : 0)], (uint32_t) round + (uint32_t) half);
            ck_assert(pipe_warp_agrees(&p, 32) == (half == 1));
            ck_assert_ptr_null(pipe_check_agreement(&p, 32));
        }
        for (int l = 0; l < 32; l++) {
            ck_assert(same_thread_state(&p, l, &p, 32 + l));
        }
    }
    /* Four rounds on 3 stages: head and tail wrapped once, each parity
     * flipped once, nothing left acquired or waited. */
    ck_assert_int_eq(p.head[5], 1);
    ck_assert_int_eq(p.tail[40], 1);
    ck_assert_int_eq(p.flags[5], PT_MADE | PT_ACTIVE | PT_PPARITY);
    ck_assert_int_eq(p.releases[63], 4);
    pipe_clear(&p);
    mbars_free(m, 6);
}
END_TEST

/* A block of 40 threads: its second warp has 8, and a whole-warp step
 * (every lane's bit set) writes those 8 and keeps them agreeing; one of
 * them quitting alone parts them. */
START_TEST(partial_last_warp_agrees)
{
    Pipe p;
    MBarrier *m = mbars_new(6);
    made_pipe(&p, m, 40);
    ck_assert(pipe_warp_agrees(&p, 32));
    pipe_lanes_flags(&p, 32, ALL_LANES, PT_ACQUIRED, 0);
    pipe_lanes_commit(&p, 32, ALL_LANES);
    ck_assert(pipe_warp_agrees(&p, 32));
    ck_assert_int_eq(p.head[39], 1);
    ck_assert_int_eq(p.commits[32], 1);
    ck_assert_int_eq(p.head[31], 0);
    pipe_lanes_flags(&p, 32, 1u << 7, 0, PT_ACTIVE);
    ck_assert(!pipe_warp_agrees(&p, 32));
    ck_assert(!(p.flags[39] & PT_ACTIVE));
    ck_assert(p.flags[38] & PT_ACTIVE);
    ck_assert_ptr_null(pipe_check_agreement(&p, 32));
    pipe_clear(&p);
    mbars_free(m, 6);
}
END_TEST

/* A role fixed by a thread's first operation (partitioned by count) parts
 * its warp until every thread has one; pipe_check_agreement catches an
 * agreement flag that lies either way. */
START_TEST(roles_by_first_use_part_the_warp)
{
    Pipe p;
    MBarrier *m = mbars_new(4);
    pipe_init(&p, true, 0, 32);
    pipe_block_make(&p, m, 0, 2, 0, PIPE_MODE_PRODUCER_COUNT, 16, 0);
    for (int tid = 0; tid < 32; tid++) {
        pipe_thread_made(&p, tid, 0);
    }
    ck_assert(pipe_warp_agrees(&p, 0));
    ck_assert_ptr_null(pipe_check_role(&p, 0, ROLEBIT_PRODUCER));
    ck_assert(!pipe_warp_agrees(&p, 0));
    for (int tid = 1; tid < 32; tid++) {
        ck_assert_ptr_null(pipe_check_role(&p, tid, ROLEBIT_PRODUCER));
        ck_assert(pipe_warp_agrees(&p, 0) == (tid == 31));
    }
    ck_assert_ptr_null(pipe_check_agreement(&p, 0));
    p.agree[0] = 0;
    ck_assert_ptr_nonnull(pipe_check_agreement(&p, 0));
    p.agree[0] = 1;
    p.role[9] = ROLEBIT_CONSUMER;
    ck_assert_ptr_nonnull(pipe_check_agreement(&p, 0));
    pipe_clear(&p);
    mbars_free(m, 4);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pipeline");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, make_pipeline_counts_and_undefined_cases);
    tcase_add_test(tc, fifo_from_barriers);
    tcase_add_test(tc, roles_fixed_by_first_use);
    tcase_add_test(tc, occupancy_time);
    suite_add_tcase(s, tc);
    TCase *ta = tcase_create("warp agreement");
    tcase_add_test(ta, warp_agrees_until_its_lanes_part);
    tcase_add_test(ta, partial_last_warp_agrees);
    tcase_add_test(ta, roles_by_first_use_part_the_warp);
    suite_add_tcase(s, ta);
    TCase *tw = tcase_create("thread scope waits");
    tcase_add_test(tw, thread_consumer_wait_caps_wait_group_at_8);
    tcase_add_test(tw, thread_wait_prior_caps_at_8);
    tcase_add_test(tw, wait_prior_zero_drains_longer);
    suite_add_tcase(s, tw);
    TCase *tst = tcase_create("statistics");
    tcase_add_test(tst, remade_pipeline_keeps_its_statistics);
    suite_add_tcase(s, tst);
    return run_suite(s);
}
