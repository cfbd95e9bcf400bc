/* test_copy_engine.c: cp.async coalescing, the in-flight limit and
 * completion times, against a fake clock. */
#include "test_util.h"

#include "models/copy_engine.h"
#include "sim/out/stats.h"

static ArchParams arch(void)
{
    ArchParams a = test_mem_arch(128, 1024, 64, MEM_SOURCE_L2);
    a.cp_async_issue = 2;
    a.cp_async_max_inflight = 8;
    a.cp_async_extra_latency = 10;
    return a;
}

START_TEST(coalescing_into_lines_and_sectors)
{
    ArchParams a = arch();
    CopyEngine c;
    copy_engine_init(&c, &a);
    int64_t src[32], sectors;
    for (int l = 0; l < 32; l++) {
        src[l] = 4096 + l * 4;
    }
    ck_assert_int_eq(copy_engine_count_lines(&c, src, 0xffffffffu, 4, &sectors), 1);
    ck_assert_int_eq(sectors, 4);
    for (int l = 0; l < 32; l++) {
        src[l] = 4096 + l * 16;
    }
    ck_assert_int_eq(copy_engine_count_lines(&c, src, 0xffffffffu, 16, &sectors), 4);
    ck_assert_int_eq(sectors, 16);
    /* Even lanes only (the guide's specialised producers): half the sectors. */
    for (int l = 0; l < 32; l++) {
        src[l] = 4096 + (l / 2) * 4;
    }
    ck_assert_int_eq(copy_engine_count_lines(&c, src, 0x55555555u, 4, &sectors), 1);
    ck_assert_int_eq(sectors, 2);
    copy_engine_clear(&c);
}
END_TEST

/* The engine with the memory path and shared memory it copies through,
 * and a warp's 16-byte copies of lines 0..3 into offsets 0..511. */
typedef struct {
    ArchParams a;
    CopyEngine c;
    MemPath m;
    Smem s;
    int64_t src[32], dst[32];
} Rig;

static void rig_open(Rig *r)
{
    r->a = arch();
    copy_engine_init(&r->c, &r->a);
    mem_path_init(&r->m, &r->a, 0);
    smem_init(&r->s, 32, 4, 128);
    for (int l = 0; l < 32; l++) {
        r->src[l] = l * 16;
        r->dst[l] = l * 16;
    }
}

static void rig_close(Rig *r)
{
    copy_engine_clear(&r->c);
    mem_path_clear(&r->m);
    smem_clear(&r->s);
}

START_TEST(inflight_limit_and_completion)
{
    Rig r;
    rig_open(&r);
    /* 4 lines each: two instructions fill the limit of 8. */
    CopyResult r1 = copy_engine_issue(&r.c, &r.m, &r.s, 0, r.src, r.dst, 0xffffffffu, 16);
    ck_assert_int_eq(r1.lines, 4);
    ck_assert_int_eq(r1.bytes, 512);
    for (int l = 0; l < 32; l++) {
        r.src[l] += 512;
    }
    ck_assert_uint_eq(copy_engine_admit(&r.c, 1, 4), 1);
    CopyResult r2 = copy_engine_issue(&r.c, &r.m, &r.s, 1, r.src, r.dst, 0xffffffffu, 16);
    ck_assert_uint_eq(r2.issue, 2);           /* the LSU took 2 cycles for the first */
    /* A third must wait for the first lines to complete. */
    SimCycle admit = copy_engine_admit(&r.c, 3, 4);
    ck_assert_uint_ge(admit, 200);
    ck_assert_uint_le(admit, r1.done);
    /* Completion: the last line arrives (latency 200 + extra 10 after link
     * queueing), then 4 fill wavefronts in shared memory. */
    ck_assert_uint_eq(r1.done, 3 + 210 + 4);
    rig_close(&r);
}
END_TEST

/* The engine counts what it issued and the cycles admission held warps
 * back, and adds them to a run's statistics itself. */
START_TEST(engine_owns_its_statistics)
{
    Rig r;
    rig_open(&r);
    copy_engine_issue(&r.c, &r.m, &r.s, 0, r.src, r.dst, 0xffffffffu, 16);
    copy_engine_issue(&r.c, &r.m, &r.s, 1, r.src, r.dst, 0xffffffffu, 16);
    ck_assert_uint_eq(r.c.throttled_cycles, 0);
    SimCycle admit = copy_engine_admit(&r.c, 3, 4);
    ck_assert_uint_eq(r.c.throttled_cycles, admit - 3);
    /* Asked again when admitted: no more throttle. */
    ck_assert_uint_eq(copy_engine_admit(&r.c, admit, 4), admit);
    SimStats st;
    sim_stats_init(&st, 1);
    copy_engine_stats_merge(&r.c, &st);
    ck_assert_uint_eq(st.cp_async_instructions, 2);
    ck_assert_uint_eq(st.cp_async_lines, 8);
    ck_assert_uint_eq(st.cp_async_bytes, 1024);
    ck_assert_uint_eq(st.throttled_cycles, admit - 3);
    sim_stats_clear(&st);
    rig_close(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copy_engine");
    TCase *tc = tcase_create("cp_async");
    tcase_add_test(tc, coalescing_into_lines_and_sectors);
    tcase_add_test(tc, inflight_limit_and_completion);
    suite_add_tcase(s, tc);
    TCase *ts = tcase_create("statistics");
    tcase_add_test(ts, engine_owns_its_statistics);
    suite_add_tcase(s, ts);
    return run_suite(s);
}
