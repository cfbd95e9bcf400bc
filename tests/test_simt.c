/* test_simt.c: divergence and reconvergence (models/simt.c) on a stub
 * warp: no SM, no program, no clock but the cycles passed in.  Each test
 * checks the invariants after every step: the paths' masks partition the
 * live lanes, and every parked path waits at its frame's join. */
#include "test_util.h"

#include "models/simt.h"

#define ALL 0xffffffffu
#define LOW 0x0000ffffu
#define HIGH 0xffff0000u

/* A converged warp of 32 live lanes at pc 0. */
static void stub_warp(Warp *w)
{
    memset(w, 0, sizeof *w);
    w->exists = ALL;
    w->live = ALL;
    w->split[0].status = SPLIT_RUNNABLE;
    w->split[0].mask = ALL;
    w->split[0].frame = -1;
    w->split[0].role = -1;
    w->nsplits = 1;
}

static void check_invariants(const Warp *w)
{
    LaneMask seen = 0;
    for (int32_t i = 0; i < MAX_SPLITS; i++) {
        const Split *s = &w->split[i];
        if (s->status == SPLIT_FREE) {
            continue;
        }
        ck_assert_msg((seen & s->mask) == 0, "split %d overlaps another (0x%08x)", i, s->mask);
        seen |= s->mask;
        if (s->status == SPLIT_PARKED) {
            ck_assert_int_ge(s->frame, 0);
            ck_assert(w->frames[s->frame].used);
            ck_assert_int_eq(w->frames[s->frame].join, s->pc);
        }
    }
    ck_assert_msg(seen == w->live, "splits cover 0x%08x, live lanes 0x%08x", seen, w->live);
    /* The model's own checker (SmOptions.check_invariants) agrees. */
    const char *broken = simt_check(w);
    ck_assert_msg(broken == NULL, "simt_check: %s", broken);
}

/* A branch at pc 0 whose taken side (the high lanes) goes to pc 5 and whose
 * other side falls through to pc 1; both reconverge at pc 10.  Returns the
 * taken side's split. */
static int32_t diverge(Warp *w)
{
    int32_t f = simt_frame_new(w, 10, ALL, -1);
    int32_t ni = simt_split_new(w);
    ck_assert_int_ge(ni, 1);
    w->split[ni].status = SPLIT_RUNNABLE;
    w->split[ni].mask = HIGH;
    w->split[ni].frame = f;
    w->split[0].mask = LOW;
    w->split[0].frame = f;
    ck_assert_int_eq(simt_goto(w, ni, 5, 0), ni);
    ck_assert_int_eq(simt_goto(w, 0, 1, 0), 0);
    check_invariants(w);
    return ni;
}

START_TEST(paths_park_at_the_join_and_merge)
{
    Warp w;
    stub_warp(&w);
    int32_t ni = diverge(&w);
    /* The fall-through side reaches the join first: it parks. */
    ck_assert_int_eq(simt_goto(&w, 0, 10, 3), 0);
    ck_assert_int_eq(w.split[0].status, SPLIT_PARKED);
    check_invariants(&w);
    simt_refocus(&w);
    ck_assert_int_eq(w.focus, ni);
    /* The other side arrives: one path again, at the join, not before the
     * later arrival's cycle. */
    w.split[0].ready_at = 3;
    int32_t m = simt_goto(&w, ni, 10, 7);
    ck_assert_int_eq(m, 0);
    ck_assert_int_eq(w.split[0].status, SPLIT_RUNNABLE);
    ck_assert_uint_eq(w.split[0].mask, ALL);
    ck_assert_int_eq(w.split[0].frame, -1);
    ck_assert_int_eq(w.split[0].pc, 10);
    ck_assert_uint_eq(w.split[0].ready_at, 7);
    ck_assert_int_eq(w.split[ni].status, SPLIT_FREE);
    ck_assert(!w.frames[0].used);
    check_invariants(&w);
    g_free(w.frames);
}
END_TEST

START_TEST(exited_lanes_release_a_merge)
{
    Warp w;
    stub_warp(&w);
    int32_t ni = diverge(&w);
    ck_assert_int_eq(simt_goto(&w, 0, 10, 3), 0);
    /* The taken side's lanes exit instead of reaching the join. */
    w.live &= ~HIGH;
    w.split[ni].mask = 0;
    w.split[ni].status = SPLIT_FREE;
    ck_assert_int_eq(w.split[0].status, SPLIT_PARKED);
    simt_recheck_merges(&w, 9);
    ck_assert_int_eq(w.split[0].status, SPLIT_RUNNABLE);
    ck_assert_uint_eq(w.split[0].mask, LOW);
    ck_assert_int_eq(w.split[0].pc, 10);
    check_invariants(&w);
    g_free(w.frames);
}
END_TEST

/* sched.wait_yields: a path blocked in an mbarrier wait does not hold the
 * warp's other paths at the join (spec.cu on the H100); any other wait does,
 * and so does every wait without the feature. */
START_TEST(a_path_waiting_on_an_mbarrier_lets_the_others_pass)
{
    for (int yields = 0; yields <= 1; yields++) {
        for (int kind = 0; kind <= 1; kind++) {
            Warp w;
            stub_warp(&w);
            w.wait_yields = yields;
            int32_t ni = diverge(&w);
            /* The fall-through side parks, then the taken side blocks. */
            ck_assert_int_eq(simt_goto(&w, 0, 10, 3), 0);
            simt_block(&w, &w.split[ni], kind ? WAIT_MBAR : WAIT_BLOCK_BAR, WS_MBARRIER, 0, 0, false, 4);
            check_invariants(&w);
            if (!(yields && kind)) {
                ck_assert_int_eq(w.split[0].status, SPLIT_PARKED);
                g_free(w.frames);
                continue;
            }
            /* It went on past the join, out of the frame, which keeps the
             * waiting lanes. */
            ck_assert_int_eq(w.split[0].status, SPLIT_RUNNABLE);
            ck_assert_uint_eq(w.split[0].mask, LOW);
            ck_assert_int_eq(w.split[0].pc, 10);
            ck_assert_int_eq(w.split[0].frame, -1);
            ck_assert_uint_le(w.split[0].ready_at, 4); /* ready at once */
            ck_assert(w.frames[0].used);
            ck_assert_uint_eq(w.frames[0].mask, HIGH);
            /* The waiting side resumes and reaches the join alone: it leaves
             * the frame too, a path of its own. */
            w.split[ni].status = SPLIT_RUNNABLE;
            ck_assert_int_eq(simt_goto(&w, ni, 10, 9), ni);
            ck_assert_int_eq(w.split[ni].status, SPLIT_RUNNABLE);
            ck_assert_uint_eq(w.split[ni].mask, HIGH);
            ck_assert_int_eq(w.split[ni].frame, -1);
            ck_assert(!w.frames[0].used);
            check_invariants(&w);
            g_free(w.frames);
        }
    }
}
END_TEST

static void never_fires(void *target, uint64_t arg, SimCycle now)
{
    (void) target;
    (void) arg;
    (void) now;
    ck_abort_msg("the stub's wake-up fired");
}

/* Once the phase a path waits for has completed (its wake-up armed), a path
 * reaching the join waits for it (divjoin.cu on the H200); if it blocks
 * again on a phase still open, the parked path goes on. */
START_TEST(a_waking_path_holds_the_join)
{
    Warp w;
    stub_warp(&w);
    w.wait_yields = true;
    SimEngine e;
    sim_engine_init(&e, SIM_ENGINE_EVENT);
    int32_t ni = diverge(&w);
    simt_block(&w, &w.split[ni], WAIT_MBAR, WS_MBARRIER, 0, 0, false, 4);
    ck_assert(simt_yields(&w.split[ni]));
    /* The phase completes: the waiter wakes at cycle 20. */
    sim_engine_timer_arm(&e, &w.split[ni].wake, 20, never_fires, NULL, 0);
    ck_assert(!simt_yields(&w.split[ni]));
    ck_assert_int_eq(simt_goto(&w, 0, 10, 6), 0);
    ck_assert_int_eq(w.split[0].status, SPLIT_PARKED);
    check_invariants(&w);
    /* It wakes and blocks on the next phase, still open: the parked side
     * goes on without it. */
    sim_engine_timer_cancel(&e, &w.split[ni].wake);
    w.split[ni].status = SPLIT_RUNNABLE;
    simt_block(&w, &w.split[ni], WAIT_MBAR, WS_MBARRIER, 0, 1, false, 21);
    ck_assert_int_eq(w.split[0].status, SPLIT_RUNNABLE);
    ck_assert_uint_eq(w.split[0].mask, LOW);
    ck_assert_int_eq(w.split[0].frame, -1);
    check_invariants(&w);
    sim_engine_clear(&e);
    g_free(w.frames);
}
END_TEST

START_TEST(split_slots_and_frames_are_reused)
{
    Warp w;
    stub_warp(&w);
    int32_t a = simt_split_new(&w);
    ck_assert_int_eq(w.split[a].frame, -1);
    ck_assert_int_eq(w.split[a].role, -1);
    /* A freed slot comes back cleared: what its previous path left is
     * gone, and its timers are idle (nothing armed for that path can
     * reach the new one: a path's timers are cancelled when it resumes). */
    w.split[a].pc = 7;
    w.split[a].step = 2;
    ck_assert_int_eq(simt_split_new(&w), a);
    ck_assert_int_eq(w.split[a].pc, 0);
    ck_assert_int_eq(w.split[a].step, 0);
    ck_assert(!sim_timer_is_armed(&w.split[a].wake) && !sim_timer_is_armed(&w.split[a].deadline));
    for (int32_t i = 1; i < MAX_SPLITS; i++) {
        w.split[i].status = SPLIT_BLOCKED;
    }
    ck_assert_int_eq(simt_split_new(&w), -1);
    int32_t f0 = simt_frame_new(&w, 4, ALL, -1);
    int32_t f1 = simt_frame_new(&w, 8, LOW, f0);
    ck_assert_int_eq(w.frames[f1].parent, f0);
    w.frames[f0].used = false;
    ck_assert_int_eq(simt_frame_new(&w, 12, HIGH, -1), f0);
    ck_assert_int_eq(w.nframes, 2);
    g_free(w.frames);
}
END_TEST

START_TEST(refocus_prefers_the_earliest_runnable_then_a_blocked_path)
{
    Warp w;
    stub_warp(&w);
    w.split[0].mask = 0x1;
    w.split[0].status = SPLIT_FREE;
    w.split[3] = (Split) { .status = SPLIT_RUNNABLE, .mask = 0x2, .ready_at = 50, .frame = -1 };
    w.split[5] = (Split) { .status = SPLIT_RUNNABLE, .mask = 0x4, .ready_at = 20, .frame = -1 };
    w.split[7] = (Split) { .status = SPLIT_BLOCKED, .mask = 0x8, .frame = -1 };
    w.nsplits = 8; /* as simt_split_new would have left it */
    simt_refocus(&w);
    ck_assert_int_eq(w.focus, 5);
    w.split[3].status = SPLIT_FREE;
    w.split[5].status = SPLIT_FREE;
    simt_refocus(&w);
    ck_assert_int_eq(w.focus, 7);  /* its wait explains the warp's state */
}
END_TEST

/* simt_check finds each kind of broken state. */
START_TEST(simt_check_reports_broken_invariants)
{
    Warp w;
    stub_warp(&w);
    ck_assert_ptr_null(simt_check(&w));
    int32_t ni = diverge(&w);
    ck_assert_ptr_null(simt_check(&w));
    w.split[ni].mask |= 1u; /* lane 0 is the other path's too */
    ck_assert_str_eq(simt_check(&w), "two paths share a lane");
    w.split[ni].mask = HIGH & ~0x80000000u; /* lane 31 in no path */
    ck_assert_str_eq(simt_check(&w), "the paths' lanes are not the live lanes");
    w.split[ni].mask = HIGH;
    w.split[ni].status = SPLIT_PARKED; /* at pc 5, its join is 10 */
    ck_assert_str_eq(simt_check(&w), "a parked path is not at its frame's join");
    w.split[ni].status = SPLIT_RUNNABLE;
    w.frames[w.split[ni].frame].used = false;
    ck_assert_str_eq(simt_check(&w), "a path's frame is not in use");
    w.frames[w.split[ni].frame].used = true;
    ck_assert_ptr_null(simt_check(&w));
    /* A timer marked armed stands for one in an event queue: only a
     * blocked path may have one, whether it is in use or free. */
    w.split[ni].deadline.armed = true;
    ck_assert_str_eq(simt_check(&w), "a path that is not blocked has a timer armed");
    w.split[ni].status = SPLIT_BLOCKED;
    ck_assert_ptr_null(simt_check(&w));
    w.split[ni].deadline.armed = false;
    w.split[MAX_SPLITS - 1].wake.armed = true;
    ck_assert_str_eq(simt_check(&w), "a path that is not blocked has a timer armed");
    w.split[MAX_SPLITS - 1].wake.armed = false;
    ck_assert_ptr_null(simt_check(&w));
    /* The passes over the paths stop at nsplits: one in use beyond it
     * would be missed. */
    w.nsplits = ni;
    ck_assert_str_eq(simt_check(&w), "a path in use lies beyond nsplits");
    g_free(w.frames);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("simt");
    TCase *tc = tcase_create("reconvergence");
    tcase_add_test(tc, paths_park_at_the_join_and_merge);
    tcase_add_test(tc, exited_lanes_release_a_merge);
    tcase_add_test(tc, a_path_waiting_on_an_mbarrier_lets_the_others_pass);
    tcase_add_test(tc, a_waking_path_holds_the_join);
    suite_add_tcase(s, tc);
    TCase *ts = tcase_create("slots");
    tcase_add_test(ts, split_slots_and_frames_are_reused);
    tcase_add_test(ts, refocus_prefers_the_earliest_runnable_then_a_blocked_path);
    tcase_add_test(ts, simt_check_reports_broken_invariants);
    suite_add_tcase(s, ts);
    return run_suite(s);
}
