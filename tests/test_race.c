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

/* The lanes' offsets of a converged warp's access of consecutive words:
 * lane l at base + 4 l. */
static void consecutive(int64_t base, int64_t off[32])
{
    for (int l = 0; l < 32; l++) {
        off[l] = base + 4 * l;
    }
}

/* A warp's copy of 32 consecutive words is one record for the warp; a
 * later copy of one word by one lane takes that word alone, and a warp
 * read sees each word's own writer: only the word thread 5 rewrote in a
 * stage instance it has not waited for races, with that copy's line. */
START_TEST(warp_copy_split_by_one_lane)
{
    RaceState *r = fresh();
    int64_t off[32];
    uint32_t seq[32] = { 0 };
    uint64_t races = 0;
    consecutive(0, off);
    RaceTag stage = { RACE_TAG_STAGE, 0, 0, LINE(10) };
    g_autofree char *copy = race_async_write_lanes(r, 0, 0, UINT32_MAX, off, 4, stage, seq, 2, &races);
    ck_assert_ptr_null(copy);
    RaceTag again = { RACE_TAG_STAGE, 0, 1, LINE(11) };
    g_autofree char *one = race_async_write(r, 0, 5, 20, 4, again, 2);
    ck_assert_ptr_null(one);
    race_stage_waited_lanes(r, 0, 0, UINT32_MAX, 0, seq);
    g_autofree char *warn = race_read_lanes(r, 0, 0, UINT32_MAX, off, 4, LINE(20), &races);
    ck_assert_uint_eq(races, 1);
    ck_assert_str_eq(warn, "read-after-write race: line 20: thread 5 reads shared memory offset 20 that the async"
                           " copy at line 11 (thread 5) writes, before its pipeline stage's consumer_wait");
    /* Threads 32..63 copy over the words threads 0..31 read, holding stage
     * instance 0 of a two-stage pipeline: every lane races, the first
     * names its word's reader. */
    races = 0;
    g_autofree char *over = race_async_write_lanes(r, 0, 32, UINT32_MAX, off, 4, again, NULL, 2, &races);
    ck_assert_uint_eq(races, 32);
    ck_assert_str_eq(over, "write-after-read race: line 11: thread 32's async copy overwrites shared memory offset 0"
                           " that thread 0 read at line 20, with no __syncthreads or pipeline release in between");
    race_free(r);
}
END_TEST

/* Lanes that read one word (not a run) take the lane-by-lane path: each
 * lane that has not waited for the stage races. */
START_TEST(warp_read_of_one_word_counts_each_lane)
{
    RaceState *r = fresh();
    int64_t off[32] = { 0 };
    uint32_t seq[32] = { 0 };
    uint64_t races = 0;
    RaceTag stage = { RACE_TAG_STAGE, 0, 0, LINE(10) };
    g_autofree char *copy = race_async_write(r, 0, 7, 0, 4, stage, 2);
    ck_assert_ptr_null(copy);
    race_stage_waited_lanes(r, 0, 0, 0x0000ffff, 0, seq);
    g_autofree char *warn = race_read_lanes(r, 0, 0, UINT32_MAX, off, 4, LINE(20), &races);
    ck_assert_uint_eq(races, 16);
    ck_assert_ptr_nonnull(strstr(warn, "line 20: thread 16 reads shared memory offset 0"));
    race_free(r);
}
END_TEST

/* pipeline_producer_commit by half a warp: the words the other half
 * copied in the same warp's copy keep needing the writer's wait. */
START_TEST(producer_commit_of_half_a_warp_copy)
{
    RaceState *r = fresh();
    int64_t off[32];
    uint32_t groups[32] = { 0 };
    uint64_t races = 0;
    consecutive(0, off);
    RaceTag group = { RACE_TAG_GROUP, 0, 0, LINE(10) };
    g_autofree char *copy = race_async_write_lanes(r, 0, 0, UINT32_MAX, off, 4, group, groups, 0, &races);
    ck_assert_ptr_null(copy);
    race_copies_arrive_on(r, 0, 0, 0x0000ffff, 0, 0);
    race_barrier_observed(r, 0, 40, 0, 1);
    ck_assert(!read_races(r, 40, 12));
    g_autofree char *half = race_read(r, 0, 40, 80, 4, LINE(20));
    ck_assert_str_eq(half, "read-after-write race: line 20: thread 40 reads shared memory offset 80 that the async"
                           " copy at line 10 (thread 20) writes, before the writer's wait for its commit group and a"
                           " __syncthreads after it");
    g_autofree char *unseen = race_read(r, 0, 41, 12, 4, LINE(21));
    ck_assert_str_eq(unseen, "read-after-write race: line 21: thread 41 reads shared memory offset 12 that the async"
                             " copy at line 10 (thread 3) writes, before a wait on the barrier it arrives on"
                             " (pipeline_producer_commit)");
    race_free(r);
}
END_TEST

/* Records nobody refers to any more are dropped now and then; the words'
 * writes and reads that remain keep their lines and threads. */
START_TEST(old_records_survive_compaction)
{
    RaceState *r = fresh();
    RaceTag first = { RACE_TAG_STAGE, 0, 0, LINE(10) };
    g_autofree char *copy = race_async_write(r, 0, 0, 0, 4, first, 2);
    ck_assert_ptr_null(copy);
    g_autofree char *read = race_read(r, 0, 3, 8, 4, LINE(21));
    ck_assert_ptr_null(read);
    for (uint32_t i = 0; i < 5000; i++) {
        RaceTag next = { RACE_TAG_STAGE, 0, i, LINE(11) };
        g_autofree char *w = race_async_write(r, 0, 1, 4, 4, next, 2);
        ck_assert_ptr_null(w);
        race_stage_waited(r, 0, 1, 0, i);
        race_stage_released(r, 0, 1, 0);
        g_autofree char *rd = race_read(r, 0, 1, 4, 4, (SrcLoc) { 12 + i, 1 });
        ck_assert_ptr_null(rd);
    }
    g_autofree char *old = race_read(r, 0, 2, 0, 4, LINE(22));
    ck_assert_ptr_nonnull(strstr(old, "offset 0 that the async copy at line 10 (thread 0)"));
    RaceTag late = { RACE_TAG_GROUP, 0, 0, LINE(30) };
    g_autofree char *war = race_async_write(r, 0, 4, 8, 4, late, 0);
    ck_assert_ptr_nonnull(strstr(war, "offset 8 that thread 3 read at line 21"));
    g_autofree char *war2 = race_async_write(r, 0, 4, 4, 4, late, 0);
    ck_assert_ptr_nonnull(strstr(war2, "offset 4 that thread 1 read at line 5011"));
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
    TCase *tl = tcase_create("warp records");
    tcase_add_test(tl, warp_copy_split_by_one_lane);
    tcase_add_test(tl, warp_read_of_one_word_counts_each_lane);
    tcase_add_test(tl, producer_commit_of_half_a_warp_copy);
    tcase_add_test(tl, old_records_survive_compaction);
    suite_add_tcase(s, tl);
    return run_suite(s);
}
