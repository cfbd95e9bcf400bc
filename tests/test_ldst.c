/* test_ldst.c: loads and stores (models/ldst.c) through whole runs. */
#include "test_util.h"

/* A warp loads from shared memory and stores the value at once: the store
 * waits for its operand, smem.latency - 1 cycles after it first tries. */
#define LOAD_THEN_STORE "smpipe 1\nblock 32\nshared int s[64]\nvar x = load(s + threadIdx.x)\ns[32 + threadIdx.x] = x\n"

static void warp0_states(const char *latency, uint64_t *dependency, uint64_t *memory)
{
    const char *sets[] = { latency, NULL };
    TestRun tr;
    run_arch_ok(&tr, LOAD_THEN_STORE, NULL, sets);
    const SimStats *s = tr_stats(&tr);
    *dependency = s->warp_state[WS_DEPENDENCY];
    *memory = s->warp_state[WS_MEMORY];
    test_run_clear(&tr);
}

/* A store waiting for its operand is charged to `dependency` (short
 * scoreboard) up to 100 cycles and to `memory` (long scoreboard) beyond. */
START_TEST(store_operand_wait_threshold)
{
    uint64_t dep, mem;
    warp0_states("smem.latency=101", &dep, &mem);
    ck_assert_uint_eq(mem, 0);
    ck_assert_uint_eq(dep, 100);
    warp0_states("smem.latency=102", &dep, &mem);
    ck_assert_uint_eq(mem, 101);
    ck_assert_uint_eq(dep, 0);
}
END_TEST

/* Global stores go through L1's request port (l1.store_bytes_per_clk,
 * scripts/calib/stq.cu): a warp's 512-byte stores take 16 cycles of it
 * each, and with no queue the warp waits for each to be taken, so a run
 * of 32 costs 16 cycles a store where an unlimited port takes one a
 * cycle or two. */
static SimCycle stores_cycles(const char *rate)
{
    const char *sets[] = { rate, "l1.port_queue_cycles=0", "mem.source=l2", NULL };
    /* (32 passes: the loop is unrolled, no control between the stores) */
    return (SimCycle) valid_run_cycles("smpipe 1\nblock 32\nglobal int4 g[32 * 32]\nvar v = threadIdx.x\n"
                                 "for (var i = 0; i < 32; ++i)\n    store(g + i * 32 + threadIdx.x, v)\nend\n",
                                 sets);
}

START_TEST(stores_wait_for_the_l1_port)
{
    SimCycle free_port = stores_cycles("l1.store_bytes_per_clk=0");
    SimCycle port = stores_cycles("l1.store_bytes_per_clk=32");
    ck_assert_int_lt(free_port, 32 * 2 + 10);
    ck_assert_int_ge(port, 31 * 16);
    ck_assert_int_lt(port, 32 * 16 + 20);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ldst");
    TCase *tc = tcase_create("stores");
    tcase_add_test(tc, store_operand_wait_threshold);
    tcase_add_test(tc, stores_wait_for_the_l1_port);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
