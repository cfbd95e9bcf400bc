/* test_scheduler.c: the LRR, GTO, oldest-first and greedy policies, as the SM's arbitration uses
 * them (models/sm.c: scheduler_order, then scheduler_take of the first
 * warp that can issue). */
#include "test_util.h"

#include "models/scheduler.h"

/* The policy's first choice, taken as arbitration takes it. */
static int32_t first(Scheduler *s, SchedPolicy policy)
{
    int32_t order[8];
    if (scheduler_order(s, policy, 0, order) == 0) {
        return -1;
    }
    scheduler_take(s, order[0]);
    return order[0];
}

START_TEST(loose_round_robin)
{
    Scheduler s;
    scheduler_init(&s, 8, 1);
    scheduler_enqueue(&s, 4);
    scheduler_enqueue(&s, 0);
    scheduler_enqueue(&s, 6);
    int32_t order[8];
    ck_assert_int_eq(scheduler_order(&s, SCHED_LRR, 0, order), 3);
    ck_assert_int_eq(order[0], 0);  /* ascending ids after the last (-1) */
    ck_assert_int_eq(order[1], 4);
    ck_assert_int_eq(order[2], 6);
    ck_assert_int_eq(first(&s, SCHED_LRR), 0);
    scheduler_enqueue(&s, 0);
    ck_assert_int_eq(first(&s, SCHED_LRR), 4);  /* next after 0 */
    ck_assert_int_eq(scheduler_order(&s, SCHED_LRR, 0, order), 2);
    ck_assert_int_eq(order[0], 6);
    ck_assert_int_eq(order[1], 0);              /* wraps */
    ck_assert_int_eq(first(&s, SCHED_LRR), 6);
    ck_assert_int_eq(first(&s, SCHED_LRR), 0);
    ck_assert_int_eq(first(&s, SCHED_LRR), -1);
    scheduler_clear(&s);
}
END_TEST

START_TEST(greedy_then_oldest)
{
    Scheduler s;
    scheduler_init(&s, 8, 1);
    scheduler_enqueue(&s, 5);
    scheduler_enqueue(&s, 2);
    ck_assert_int_eq(first(&s, SCHED_GTO), 5);  /* oldest first */
    scheduler_enqueue(&s, 7);
    scheduler_enqueue(&s, 5);
    int32_t order[8];
    ck_assert_int_eq(scheduler_order(&s, SCHED_GTO, 0, order), 3);
    ck_assert_int_eq(order[0], 5);              /* greedy: the last one again */
    ck_assert_int_eq(order[1], 2);              /* then by age */
    ck_assert_int_eq(order[2], 7);
    /* Arbitration may pass over the first choice (its pipe is busy): the
     * one it takes becomes the last issued. */
    scheduler_take(&s, 2);
    ck_assert_int_eq(s.last, 2);
    scheduler_enqueue(&s, 2);
    ck_assert_int_eq(first(&s, SCHED_GTO), 2);
    ck_assert_int_eq(first(&s, SCHED_GTO), 7);  /* the last is not ready: the oldest */
    /* A warp removed without issuing does not become the last. */
    scheduler_remove(&s, 5);
    ck_assert_int_eq(s.nready, 0);
    ck_assert_int_eq(s.last, 7);
    scheduler_clear(&s);
}
END_TEST

/* Mask mode (LRR on a sub-partition of at most 64 warps): the warps are
 * 1, 5, 9, ... (sub-partition 1 of 4); the order and the takes are the
 * list's. */
START_TEST(loose_round_robin_mask)
{
    Scheduler s;
    scheduler_init(&s, 16, 1);
    scheduler_use_mask(&s, 1, 4, 4);
    scheduler_enqueue(&s, 9);
    scheduler_enqueue(&s, 1);
    scheduler_enqueue(&s, 13);
    ck_assert_int_eq(scheduler_slot(&s, 13), 3);
    ck_assert_int_eq(scheduler_slot_warp(&s, 2), 9);
    int32_t order[8];
    ck_assert_int_eq(scheduler_order(&s, SCHED_LRR, 0, order), 3);
    ck_assert_int_eq(order[0], 1);
    ck_assert_int_eq(order[1], 9);
    ck_assert_int_eq(order[2], 13);
    ck_assert_int_eq(first(&s, SCHED_LRR), 1);
    ck_assert_int_eq(s.last_slot, 0);
    scheduler_enqueue(&s, 1);
    ck_assert_int_eq(first(&s, SCHED_LRR), 9);  /* next after 1 */
    ck_assert_int_eq(scheduler_order(&s, SCHED_LRR, 0, order), 2);
    ck_assert_int_eq(order[0], 13);
    ck_assert_int_eq(order[1], 1);              /* wraps */
    scheduler_take_slot(&s, 0);                 /* as arbitration takes a bit */
    ck_assert_int_eq(s.last, 1);
    ck_assert_int_eq(s.nready, 1);
    scheduler_remove(&s, 13);
    ck_assert_int_eq(s.nready, 0);
    ck_assert_uint_eq(s.mask, 0);
    ck_assert_int_eq(s.last, 1);
    scheduler_clear(&s);
}
END_TEST

/* Oldest first: the lowest warp id that is ready, whatever issued last,
 * in list and in mask mode. */
START_TEST(oldest_first)
{
    for (int mode = 0; mode < 2; mode++) {
        Scheduler s;
        scheduler_init(&s, 16, 1);
        if (mode == 1) {
            scheduler_use_mask(&s, 1, 4, 4);  /* warps 1, 5, 9, 13 */
        }
        scheduler_enqueue(&s, 9);
        scheduler_enqueue(&s, 5);
        scheduler_enqueue(&s, 13);
        int32_t order[8];
        ck_assert_int_eq(scheduler_order(&s, SCHED_OLDEST, 0, order), 3);
        ck_assert_int_eq(order[0], 5);
        ck_assert_int_eq(order[1], 9);
        ck_assert_int_eq(order[2], 13);
        ck_assert_int_eq(first(&s, SCHED_OLDEST), 5);
        scheduler_enqueue(&s, 5);
        ck_assert_int_eq(first(&s, SCHED_OLDEST), 5);  /* again: no rotation */
        scheduler_enqueue(&s, 1);
        ck_assert_int_eq(first(&s, SCHED_OLDEST), 1);  /* an older one returns */
        ck_assert_int_eq(first(&s, SCHED_OLDEST), 9);
        scheduler_clear(&s);
    }
}
END_TEST

/* Greedy: the last warp comes first only at the cycle its issue ended
 * (back to back); at any later cycle the order is loose round-robin's,
 * which puts it last.  In list and in mask mode. */
START_TEST(greedy_keeps_a_warp_issuing_back_to_back)
{
    for (int mode = 0; mode < 2; mode++) {
        Scheduler s;
        scheduler_init(&s, 16, 1);
        if (mode == 1) {
            scheduler_use_mask(&s, 1, 4, 4);  /* warps 1, 5, 9, 13 */
        }
        scheduler_enqueue(&s, 1);
        scheduler_enqueue(&s, 5);
        scheduler_enqueue(&s, 9);
        scheduler_take(&s, 5);
        s.last_end = 20;         /* warp 5 issued, its slot ended at 20 */
        scheduler_enqueue(&s, 5);
        int32_t order[8];
        ck_assert_int_eq(scheduler_order(&s, SCHED_GREEDY, 20, order), 3);
        ck_assert_int_eq(order[0], 5);  /* back to back: kept */
        ck_assert_int_eq(order[1], 9);
        ck_assert_int_eq(order[2], 1);
        ck_assert(scheduler_keeps_last(&s, SCHED_GREEDY, 20));
        ck_assert_int_eq(scheduler_order(&s, SCHED_GREEDY, 21, order), 3);
        ck_assert_int_eq(order[0], 9);  /* a cycle left unused: round-robin */
        ck_assert_int_eq(order[1], 1);
        ck_assert_int_eq(order[2], 5);
        ck_assert(!scheduler_keeps_last(&s, SCHED_GREEDY, 21));
        ck_assert(!scheduler_keeps_last(&s, SCHED_LRR, 20));
        /* Not ready: the others in round-robin order. */
        scheduler_remove(&s, 5);
        ck_assert_int_eq(scheduler_order(&s, SCHED_GREEDY, 20, order), 2);
        ck_assert_int_eq(order[0], 9);
        ck_assert_int_eq(order[1], 1);
        scheduler_clear(&s);
    }
}
END_TEST

/* Older blocks first (scripts/calib/schedblk.cu): the ready warps of the
 * oldest block come before any younger block's, each block's in the
 * policy order, whoever issued last.  Four blocks of eight warps, two on
 * each of four sub-partitions: this one holds warps 1 and 5 (block 0), 9
 * and 13 (block 1), 17 and 21 (block 2)...  In list and in mask mode. */
START_TEST(older_blocks_first)
{
    for (int mode = 0; mode < 2; mode++) {
        Scheduler s;
        scheduler_init(&s, 32, 1);
        if (mode == 1) {
            scheduler_use_mask(&s, 1, 4, 8);
        }
        scheduler_set_blocks(&s, 8);
        ck_assert_int_eq(scheduler_block_rank(&s, 9) > scheduler_block_rank(&s, 5), true);
        scheduler_enqueue(&s, 21);
        scheduler_enqueue(&s, 13);
        scheduler_enqueue(&s, 9);
        int32_t order[8];
        ck_assert_int_eq(scheduler_order(&s, SCHED_LRR, 0, order), 3);
        ck_assert_int_eq(order[0], 9);   /* block 1 before block 2 */
        ck_assert_int_eq(order[1], 13);
        ck_assert_int_eq(order[2], 21);
        ck_assert_int_eq(first(&s, SCHED_LRR), 9);
        scheduler_enqueue(&s, 9);
        ck_assert_int_eq(first(&s, SCHED_LRR), 13);  /* round-robin within block 1 */
        scheduler_enqueue(&s, 13);
        ck_assert_int_eq(first(&s, SCHED_LRR), 9);   /* wraps within block 1, not to 21 */
        scheduler_enqueue(&s, 9);
        /* Greedy keeps the last warp only against its own block's. */
        scheduler_take(&s, 21);
        s.last_end = 20;
        scheduler_enqueue(&s, 21);
        ck_assert(scheduler_keeps_last(&s, SCHED_GREEDY, 20));
        ck_assert_int_eq(scheduler_order(&s, SCHED_GREEDY, 20, order), 3);
        ck_assert_int_eq(order[0], 9);
        ck_assert_int_eq(order[1], 13);
        ck_assert_int_eq(order[2], 21);
        if (mode == 1) {
            /* Block runs of bits: 1, 5 | 9, 13 | 17, 21 | 25, 29. */
            ck_assert_int_eq(s.ngroups, 4);  /* the 32 warps' 8 bits here */
            ck_assert_uint_eq(s.groups[0], 0x3);
            ck_assert_uint_eq(s.groups[1], 0xc);
            ck_assert_uint_eq(s.groups[2], 0x30);
        }
        scheduler_clear(&s);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("scheduler");
    TCase *tc = tcase_create("policies");
    tcase_add_test(tc, loose_round_robin);
    tcase_add_test(tc, greedy_then_oldest);
    tcase_add_test(tc, loose_round_robin_mask);
    tcase_add_test(tc, oldest_first);
    tcase_add_test(tc, greedy_keeps_a_warp_issuing_back_to_back);
    tcase_add_test(tc, older_blocks_first);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
