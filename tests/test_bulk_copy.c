/* test_bulk_copy.c: the bulk copy engine (TMA) against a fake clock. */
#include "test_util.h"

#include "models/bulk_copy.h"

static ArchParams arch(void)
{
    ArchParams a = test_mem_arch(1024, 4096, 1024, MEM_SOURCE_L2);
    a.bulk_issue_latency = 50;
    a.bulk_bytes_per_clk = 64;
    a.bulk_chunk_bytes = 1024;
    return a;
}

START_TEST(rate_and_latency)
{
    ArchParams a = arch();
    MemPath m;
    Smem s;
    BulkEngine b;
    mem_path_init(&m, &a, 0);
    smem_init(&s, 32, 4, 128);
    bulk_engine_init(&b, &a);
    /* 4 KiB at 64 B/cycle: chunks of 1 KiB start 16 cycles apart after the
     * 50-cycle set-up; the last starts at 50 + 48; its 8 lines cross the
     * 1 KiB/cycle link in 7/8 cycle (rounded up: 1), land 200 later, then
     * fill 8 wavefronts. */
    SimCycle done = bulk_engine_copy(&b, &m, &s, 100, INT64_C(1) << 32, 0, 4096, 128);
    ck_assert_uint_eq(done, 100 + 50 + 48 + 1 + 200 + 8);
    ck_assert_uint_eq(b.copies, 1);
    ck_assert_uint_eq(b.bytes, 4096);
    /* A second copy queues behind the first on the engine. */
    SimCycle done2 = bulk_engine_copy(&b, &m, &s, 100, (INT64_C(1) << 32) + 4096, 4096, 1024, 128);
    ck_assert_uint_ge(done2, 100 + 50 + 64 + 200);
    mem_path_clear(&m);
    smem_clear(&s);
}
END_TEST

START_TEST(cold_data_pays_dram)
{
    ArchParams a = arch();
    a.source = MEM_SOURCE_DRAM;
    MemPath m;
    Smem s;
    BulkEngine b;
    mem_path_init(&m, &a, 0);
    smem_init(&s, 32, 4, 128);
    bulk_engine_init(&b, &a);
    SimCycle done = bulk_engine_copy(&b, &m, &s, 0, INT64_C(1) << 32, 0, 1024, 128);
    ck_assert_uint_ge(done, 50 + 500);
    ck_assert_uint_eq(m.l2_misses, 8);
    mem_path_clear(&m);
    smem_clear(&s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bulk_copy");
    TCase *tc = tcase_create("tma");
    tcase_add_test(tc, rate_and_latency);
    tcase_add_test(tc, cold_data_pays_dram);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
