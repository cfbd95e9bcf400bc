/* simt.h: divergence and reconvergence of a warp's lanes (simt.c).
 *
 * A warp's lanes that take different sides of a branch become paths
 * (Split) that issue in turn; a reconvergence frame (Frame) records the
 * lanes that entered a construct and its join, the immediate
 * post-dominator the compiler recorded (the BSSY/BSYNC pairs).  Paths that
 * reach their join park there until every live lane of the frame has
 * arrived, then merge into one. */
#pragma once

#include "models/warp.h"

/* A new reconvergence frame: lanes mask entered a construct ending at join;
 * returns its index. */
int32_t simt_frame_new(Warp *w, int32_t join, LaneMask mask, int32_t parent);
/* A free split slot, cleared, or -1. */
int32_t simt_split_new(Warp *w);
void simt_refocus_slow(Warp *w);
int32_t simt_goto_slow(Warp *w, int32_t si, int32_t pc, SimCycle t);

/* Picks the split the warp should run (after its focus stopped). */
static inline void simt_refocus(Warp *w)
{
    /* A runnable focus stays (simt_refocus_slow's first test), the usual
     * case after an issue: without a call. */
    if (w->split[w->focus].status != SPLIT_RUNNABLE) {
        simt_refocus_slow(w);
    }
}

/* Moves split si to pc; if that is its reconvergence point it parks there
 * and may merge.  Returns the split now holding its lanes. */
static inline int32_t simt_goto(Warp *w, int32_t si, int32_t pc, SimCycle t)
{
    Split *s = &w->split[si];
    if (s->frame >= 0 && w->frames[s->frame].join == pc) {
        return simt_goto_slow(w, si, pc, t);
    }
    /* Not at its reconvergence point: simt_goto_slow's moves, without
     * its loop and a call. */
    s->pc = pc;
    s->step = 0;
    return si;
}
/* Re-examines every frame after lanes exited: merges may now complete. */
void simt_recheck_merges(Warp *w, SimCycle t);
/* The invariants of a warp's paths and frames, between two issues:
 *  - every live lane is in exactly one path: the masks of the paths in use
 *    are not empty, do not overlap, and together are the live lanes (none
 *    when the warp has exited);
 *  - a path's frame is -1 or a frame in use whose lanes include the
 *    path's, and a frame's parent is -1 or a frame in use;
 *  - a parked path is at its frame's join (a path never parks without a
 *    frame);
 *  - only a blocked path has a timer armed (its wake-up or time-out).
 * Returns NULL when they hold, else which one does not (a static string).
 * SmOptions.check_invariants asserts them after every issue (the test
 * suites do). */
const char *simt_check(const Warp *w);
/* Aborts with the invariant simt_check finds broken in w after an issue
 * at cycle `at`, if any (check_invariants' runs: warp.c's every issue, a
 * closed batch's, sm_batch.c). */
void simt_require(const Warp *w, SimCycle at);
/* True for a path blocked in an mbarrier wait: a try_wait loop, which
 * yields its warp to the other paths (sched.wait_yields). */
static inline bool simt_waits_on_mbarrier(const Split *s)
{
    return s->status == SPLIT_BLOCKED && s->wait == WAIT_MBAR;
}

/* True for a path suspended in an mbarrier wait whose phase has not
 * completed: the other paths may pass their reconvergence point without it
 * (sched.wait_yields).  Once the phase completes (its wake-up is armed,
 * sync_barrier_wake) a path reaching the join waits for it:
 * scripts/calib/divjoin.cu on the H200, the odd lanes reaching the join 100
 * cycles before the phase completes go on at once, reaching it as it
 * completes they reconverge with the waking lanes. */
static inline bool simt_yields(const Split *s)
{
    return simt_waits_on_mbarrier(s) && !sim_timer_is_armed(&s->wake);
}

/* Split s blocks from cycle t on a barrier or a collective (kind, obj,
 * value, token say which) and is charged `reason` until it is woken. */
void simt_block(Warp *w, Split *s, WaitKind kind, SimWarpState reason, int32_t obj, uint64_t value,
                bool token, SimCycle t);
