/* test_race.c: the race detector alone (models/race.h), driven with the
 * synchronisation events the interpreter would report, without a program
 * or an SM: one block of 64 threads over 256 bytes of shared memory. */
#include "test_util.h"

#include "models/race.h"

#define LINE(n) ((SrcLoc) { (n), 1 })

static RaceState *fresh(void)
{
    return race_new(64, 256, 1, 1, 1);
}

/* Thread tid copies [off, off + 16) in its current commit group (line 10),
 * then commits the group. */
static void group_copy(RaceState *r, int64_t tid, int64_t off)
{
    RaceTag tag = { RACE_TAG_GROUP, 0, race_current_group(r, 0, tid), LINE(10) };
    g_autofree char *warn = race_async_write(r, 0, tid, off, 16, tag, 0);
    ck_assert_ptr_null(warn);
    race_group_committed(r, 0, tid);
}

/* Whether thread tid's read of [off, off + 4) at line 20 is a race. */
static bool read_races(RaceState *r, int64_t tid, int64_t off)
{
    g_autofree char *warn = race_read(r, 0, tid, off, 4, LINE(20));
    return warn != NULL;
}

/* Every thread of tids passes a __syncthreads of generation gen. */
static void syncthreads(RaceState *r, const int64_t *tids, int n, uint64_t gen)
{
    for (int i = 0; i < n; i++) {
        race_block_arrive(r, 0, tids[i]);
    }
    race_block_complete(r, 0, gen, NULL, 0);
    for (int i = 0; i < n; i++) {
        race_block_pass(r, 0, tids[i], gen);
    }
}

/* The writer of a commit group sees its copy once it waited for the group
 * (wait_group), not before. */
START_TEST(group_copy_needs_its_writers_wait)
{
    RaceState *r = fresh();
    group_copy(r, 0, 0);
    ck_assert(read_races(r, 0, 4));
    race_groups_waited(r, 0, 0, 1);
    ck_assert(!read_races(r, 0, 4));
    race_free(r);
}
END_TEST

/* Another thread sees it after the writer's wait and a __syncthreads; the
 * __syncthreads alone, before the writer waited, is not enough. */
START_TEST(other_threads_need_the_wait_then_a_syncthreads)
{
    RaceState *r = fresh();
    int64_t both[] = { 0, 1 };
    group_copy(r, 0, 0);
    syncthreads(r, both, 2, 1);
    ck_assert(read_races(r, 1, 0));
    race_groups_waited(r, 0, 0, 1);
    ck_assert(read_races(r, 1, 0));
    syncthreads(r, both, 2, 2);
    ck_assert(!read_races(r, 1, 0));
    race_free(r);
}
END_TEST

/* A tile's sync orders its own lanes only: after lane 0 waited for its
 * group, lane 1 (the same tile of 2) sees the copy, lane 2 (the next
 * tile) does not. */
START_TEST(tile_sync_orders_its_tile_only)
{
    RaceState *r = fresh();
    group_copy(r, 0, 0);
    race_groups_waited(r, 0, 0, 1);
    race_warp_sync(r, 0, 0, 0xf, 2);
    ck_assert(!read_races(r, 1, 0));
    ck_assert(read_races(r, 2, 0));
    race_free(r);
}
END_TEST

/* An async copy over a word another thread read is a write-after-read race
 * unless a __syncthreads came between the read and the copy. */
START_TEST(copy_over_a_read_needs_a_syncthreads)
{
    RaceState *r = fresh();
    int64_t both[] = { 0, 1 };
    ck_assert(!read_races(r, 1, 32));
    RaceTag tag = { RACE_TAG_GROUP, 0, 0, LINE(30) };
    g_autofree char *warn = race_async_write(r, 0, 0, 32, 16, tag, 0);
    ck_assert_ptr_nonnull(warn);
    ck_assert_ptr_nonnull(strstr(warn, "write-after-read race: line 30"));
    ck_assert(!read_races(r, 1, 64));
    syncthreads(r, both, 2, 1);
    g_autofree char *after = race_async_write(r, 0, 0, 64, 16, tag, 0);
    ck_assert_ptr_null(after);
    race_free(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("race");
    TCase *tg = tcase_create("commit groups");
    tcase_add_test(tg, group_copy_needs_its_writers_wait);
    tcase_add_test(tg, other_threads_need_the_wait_then_a_syncthreads);
    tcase_add_test(tg, tile_sync_orders_its_tile_only);
    suite_add_tcase(s, tg);
    TCase *tw = tcase_create("write after read");
    tcase_add_test(tw, copy_over_a_read_needs_a_syncthreads);
    suite_add_tcase(s, tw);
    return run_suite(s);
}
