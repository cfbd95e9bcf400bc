/* simt.c: divergence and reconvergence (see simt.h).
 *
 * Hardware behaviour: independent thread scheduling (Volta and later): the
 * warp runs one path until it blocks or reaches its reconvergence point,
 * then another; paths reconverge at the immediate post-dominator of the
 * branch, except that with sched.wait_yields a path waiting on an mbarrier
 * phase that has not completed does not hold the others there (try_merge;
 * measured by scripts/calib/spec.cu and divjoin.cu).  No timing of its own:
 * a diverged path costs what its instructions cost, and the other side
 * waits (warp state `divergent`). */
#include "models/simt.h"

/* --------------------------------------------------------- divergence */

int32_t simt_frame_new(Warp *w, int32_t join, LaneMask mask, int32_t parent)
{
    for (int32_t i = 0; i < w->nframes; i++) {
        if (!w->frames[i].used) {
            w->frames[i] = (Frame) { join, mask, parent, true };
            return i;
        }
    }
    w->frames = g_renew(Frame, w->frames, w->nframes + 1);
    w->frames[w->nframes] = (Frame) { join, mask, parent, true };
    return w->nframes++;
}

int32_t simt_split_new(Warp *w)
{
    for (int32_t i = 0; i < MAX_SPLITS; i++) {
        if (w->split[i].status == SPLIT_FREE) {
            /* Clearing an armed timer would corrupt the event queue; a
             * free path has none (simt_check). */
            g_assert(!sim_timer_is_armed(&w->split[i].wake) && !sim_timer_is_armed(&w->split[i].deadline));
            memset(&w->split[i], 0, sizeof w->split[i]);
            w->split[i].role = -1;
            w->split[i].frame = -1;
            w->nsplits = MAX(w->nsplits, i + 1);
            return i;
        }
    }
    return -1;
}

void simt_refocus_slow(Warp *w)
{
    Split *f = &w->split[w->focus];
    if (f->status == SPLIT_RUNNABLE) {
        return;
    }
    int32_t best = -1;
    for (int32_t i = w->nsplits - 1; i >= 0; i--) {
        const Split *s = &w->split[i];
        if (s->status == SPLIT_RUNNABLE && (best < 0 || s->ready_at < w->split[best].ready_at)) {
            best = i;
        }
    }
    if (best >= 0) {
        w->focus = best;
        return;
    }
    if (f->status != SPLIT_FREE) {
        return;
    }
    /* The focus vanished (merged or exited): prefer a blocked path, whose
     * reason explains the wait, over one parked at reconvergence. */
    for (int32_t i = 0; i < w->nsplits; i++) {
        if (w->split[i].status == SPLIT_BLOCKED) {
            w->focus = i;
            return;
        }
    }
    for (int32_t i = 0; i < w->nsplits; i++) {
        if (w->split[i].status != SPLIT_FREE) {
            w->focus = i;
            return;
        }
    }
}

/* True when every lane of `lanes` is on a path suspended in an mbarrier
 * wait whose phase has not completed (simt_yields). */
static bool waiting_on_mbarriers(const Warp *w, LaneMask lanes)
{
    for (int32_t i = 0; i < w->nsplits && lanes != 0; i++) {
        const Split *s = &w->split[i];
        if (s->status != SPLIT_FREE && (s->mask & lanes) != 0) {
            if (!simt_yields(s)) {
                return false;
            }
            lanes &= ~s->mask;
        }
    }
    return lanes == 0;
}

/* Merges the paths parked at frame f's join if every live lane of the
 * frame has arrived.  With sched.wait_yields, when the lanes still missing
 * all wait on mbarrier phases that have not completed (a phase that has,
 * whose waiters are waking, holds the parked paths: divjoin.cu), the
 * parked paths go on without them instead: they merge into one path that
 * leaves the frame (whose mask keeps the missing lanes, which rejoin the
 * parent frame when they reach the join alone).
 * This is what spec.cu timestamps on the H100: the guide's producer lanes
 * call the next producer_acquire while their warp's consumer lanes are still
 * in consumer_wait, though BSSY/BSYNC enclose both.  Returns the merged
 * split or -1. */
static int32_t try_merge(Warp *w, int32_t f)
{
    Frame *fr = &w->frames[f];
    LaneMask arrived = 0;
    int32_t keep = -1;
    for (int32_t i = 0; i < w->nsplits; i++) {
        Split *s = &w->split[i];
        if (s->status == SPLIT_PARKED && s->frame == f) {
            arrived |= s->mask;
            if (keep < 0) {
                keep = i;
            }
        }
    }
    LaneMask missing = fr->mask & w->live & ~arrived;
    if (keep < 0 || (missing != 0 && !(w->wait_yields && waiting_on_mbarriers(w, missing)))) {
        return -1;
    }
    for (int32_t i = 0; i < w->nsplits; i++) {
        Split *s = &w->split[i];
        if (i != keep && s->status == SPLIT_PARKED && s->frame == f) {
            s->status = SPLIT_FREE;
        }
    }
    Split *k = &w->split[keep];
    k->mask = arrived;
    k->status = SPLIT_RUNNABLE;
    k->frame = fr->parent;
    k->role = -1;
    k->step = 0;
    if (missing != 0) {
        fr->mask = missing;
    } else {
        fr->used = false;
    }
    return keep;
}

int32_t simt_goto_slow(Warp *w, int32_t si, int32_t pc, SimCycle t)
{
    Split *s = &w->split[si];
    s->pc = pc;
    s->step = 0;
    while (s->frame >= 0 && w->frames[s->frame].join == s->pc) {
        s->status = SPLIT_PARKED;
        int32_t m = try_merge(w, s->frame);
        if (m < 0) {
            return si;
        }
        si = m;
        s = &w->split[si];
        s->ready_at = MAX(s->ready_at, t);
    }
    return si;
}

void simt_recheck_merges(Warp *w, SimCycle t)
{
    bool again = true;
    while (again) {
        again = false;
        for (int32_t f = 0; f < w->nframes; f++) {
            if (!w->frames[f].used) {
                continue;
            }
            int32_t m = try_merge(w, f);
            if (m >= 0) {
                simt_goto(w, m, w->split[m].pc, t);
                again = true;
            }
        }
    }
}

/* ------------------------------------------------------------- blocking */

void simt_block(Warp *w, Split *s, WaitKind kind, SimWarpState reason, int32_t obj, uint64_t value,
                bool token, SimCycle t)
{
    s->status = SPLIT_BLOCKED;
    s->wait = kind;
    s->wait_state = reason;
    s->wait_obj = obj;
    s->wait_value = value;
    s->wait_token = token;
    s->blocked_since = t;
    /* It was running, so nothing armed for an earlier blocking is left. */
    g_assert(!sim_timer_is_armed(&s->wake) && !sim_timer_is_armed(&s->deadline));
    if (kind == WAIT_MBAR && w->wait_yields) {
        /* Paths parked for these lanes may now go on (try_merge). */
        simt_recheck_merges(w, t);
    }
}

/* ----------------------------------------------------------- invariants */

const char *simt_check(const Warp *w)
{
    LaneMask seen = 0;
    for (int32_t i = 0; i < MAX_SPLITS; i++) {
        const Split *s = &w->split[i];
        if (s->status != SPLIT_BLOCKED && (sim_timer_is_armed(&s->wake) || sim_timer_is_armed(&s->deadline))) {
            return "a path that is not blocked has a timer armed";
        }
        if (s->status == SPLIT_FREE) {
            continue;
        }
        if (i >= w->nsplits) {
            return "a path in use lies beyond nsplits";
        }
        if (s->mask == 0) {
            return "a path in use has no lanes";
        }
        if (seen & s->mask) {
            return "two paths share a lane";
        }
        seen |= s->mask;
        if (s->frame >= 0) {
            if (s->frame >= w->nframes || !w->frames[s->frame].used) {
                return "a path's frame is not in use";
            }
            if (s->mask & ~w->frames[s->frame].mask) {
                return "a path has lanes its frame does not";
            }
        }
        if (s->status == SPLIT_PARKED && (s->frame < 0 || w->frames[s->frame].join != s->pc)) {
            return "a parked path is not at its frame's join";
        }
    }
    if (seen != w->live) {
        return "the paths' lanes are not the live lanes";
    }
    for (int32_t f = 0; f < w->nframes; f++) {
        const Frame *fr = &w->frames[f];
        if (fr->used && fr->parent >= 0 && (fr->parent >= w->nframes || !w->frames[fr->parent].used)) {
            return "a frame's parent is not in use";
        }
    }
    return NULL;
}

void simt_require(const Warp *w, SimCycle at)
{
    const char *broken = simt_check(w);
    if (broken != NULL) {
        g_error("SIMT invariant broken in warp %d at cycle %" G_GUINT64_FORMAT ": %s", w->id, at, broken);
    }
}
