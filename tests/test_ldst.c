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

int main(void)
{
    Suite *s = suite_create("ldst");
    TCase *tc = tcase_create("stores");
    tcase_add_test(tc, store_operand_wait_threshold);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
