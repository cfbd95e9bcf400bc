/* sm_overlap.c: the SM's copy/compute overlap statistics (copy path busy,
 * compute issuing, both, the exposed copy time) and the timeline's copy
 * slices and counters (declared in sm_internal.h).  It merges the
 * sub-partitions' compute marks with the copies' busy intervals; no timing
 * lives here. */
#include "models/sm_internal.h"

/* The marks in cycles [a, b) (clipped to the window) of the window of
 * SM_OVERLAP_WORDS words whose bit i is cycle lo + i. */
static uint64_t window_count(const uint64_t *bits, SimCycle lo, SimCycle a, SimCycle b)
{
    a = MAX(a, lo);
    b = MIN(b, lo + 64 * SM_OVERLAP_WORDS);
    if (a >= b) {
        return 0;
    }
    uint64_t i = a - lo;
    uint64_t j = b - lo;
    uint64_t first = i / 64;
    uint64_t last = (j - 1) / 64;
    uint64_t n = 0;
    for (uint64_t k = first; k <= last; k++) {
        uint64_t m = bits[k];
        if (k == first) {
            m &= ~UINT64_C(0) << (i % 64);
        }
        if (k == last && j % 64 != 0) {
            m &= ~UINT64_C(0) >> (64 - j % 64);
        }
        n += (uint64_t) __builtin_popcountll(m);
    }
    return n;
}

/* Counts the compute cycles before `upto`: every copy that could cover
 * them has been noted, since copies are noted when they issue.  The
 * sub-partitions' marks are merged a window of 64 x SM_OVERLAP_WORDS
 * cycles at a time, from the earliest pending one: each sets its cycle's
 * bit, so a cycle marked by several counts once, and the cycles covered by
 * a copy are the bits in the copy intervals' ranges (the closed intervals
 * and the open one are disjoint and in order).  Cycles before last_mark are
 * counted already. */
void sm_finalize_overlap(Sm *sm, SimCycle upto)
{
    int64_t n = sm->arch.subpartitions;
    uint64_t *bits = sm->overlap_bits;
    const SimCycle *closed = (const SimCycle *) sm->copy_closed->data;
    guint nclosed = sm->copy_closed->len / 2;
    for (;;) {
        SimCycle lo = SIM_CYCLE_NEVER;
        for (int64_t k = 0; k < n; k++) {
            const CycleQueue *q = &sm->compute_marks[k];
            if (sm->mark_head[k] < q->len && q->v[sm->mark_head[k]] < lo) {
                lo = q->v[sm->mark_head[k]];
            }
        }
        if (lo >= upto) {
            break;
        }
        SimCycle hi = upto - lo > 64 * SM_OVERLAP_WORDS ? lo + 64 * SM_OVERLAP_WORDS : upto;
        SimCycle top = lo;
        for (int64_t k = 0; k < n; k++) {
            const CycleQueue *q = &sm->compute_marks[k];
            const SimCycle *v = q->v;
            guint h = sm->mark_head[k];
            /* A queue's marks are in cycle order (sm_note_compute), so
             * those before hi are a prefix of the pending ones: all of
             * them, usually (the window is wider than the pending bound's
             * cycles), else the first at hi or later, found by halving.
             * Then each sets its bit without a test. */
            guint end = q->len;
            if (h < end && v[end - 1] >= hi) {
                guint a = h;
                while (a < end) {
                    guint mid = a + (end - a) / 2;
                    if (v[mid] < hi) {
                        a = mid + 1;
                    } else {
                        end = mid;
                    }
                }
            }
            for (guint j = h; j < end; j++) {
                uint64_t d = v[j] - lo;
                bits[d / 64] |= UINT64_C(1) << (d % 64);
            }
            h = end;
            /* Its last one taken is its latest. */
            if (h > sm->mark_head[k]) {
                top = MAX(top, q->v[h - 1]);
            }
            sm->marks_pending -= h - sm->mark_head[k];
            sm->mark_head[k] = h;
        }
        SimCycle from = MAX(lo, sm->last_mark);
        if (from <= top) {
            sm->stats.compute_busy += window_count(bits, lo, from, top + 1);
            guint i = sm->copy_head;
            while (i < nclosed && closed[2 * i + 1] <= from) {
                i++;
            }
            for (; i < nclosed && closed[2 * i] <= top; i++) {
                sm->stats.both_busy += window_count(bits, lo, MAX(closed[2 * i], from), MIN(closed[2 * i + 1], top + 1));
            }
            sm->stats.both_busy += window_count(bits, lo, MAX(sm->copy_from, from), MIN(sm->copy_to, top + 1));
            /* Closed intervals that end by the last cycle counted cannot
             * cover a later one. */
            while (sm->copy_head < nclosed && closed[2 * sm->copy_head + 1] <= top) {
                sm->copy_head++;
            }
            sm->last_mark = top + 1;
        }
        memset(bits, 0, ((top - lo) / 64 + 1) * sizeof *bits);
    }
    for (int64_t k = 0; k < n; k++) {
        if (sm->mark_head[k] > 1024) {
            CycleQueue *q = &sm->compute_marks[k];
            memmove(q->v, q->v + sm->mark_head[k], (q->len - sm->mark_head[k]) * sizeof *q->v);
            q->len -= sm->mark_head[k];
            sm->mark_head[k] = 0;
        }
    }
    /* Closed copy intervals no finalisation can need any more. */
    if (sm->copy_head > 1024) {
        g_array_remove_range(sm->copy_closed, 0, 2 * sm->copy_head);
        sm->copy_head = 0;
    }
}

void sm_note_compute_slow(Sm *sm, int32_t smsp, SimCycle at)
{
    CycleQueue *q = &sm->compute_marks[smsp];
    /* sm_finalize_overlap's windows rely on it. */
    g_assert(!sm->opt.check_invariants || q->len == 0 || q->v[q->len - 1] <= at);
    if (q->len == q->cap) {
        q->cap = MAX(2 * q->cap, 64u);
        q->v = g_renew(SimCycle, q->v, q->cap);
    }
    q->v[q->len++] = at;
    if (++sm->marks_pending > SM_MARKS_PENDING_MAX) {
        sm_finalize_overlap(sm, sm->engine.now);
    }
}

void sm_note_compute_grow(Sm *sm, int32_t smsp, guint n)
{
    CycleQueue *q = &sm->compute_marks[smsp];
    while (q->cap - q->len < n) {
        q->cap = MAX(2 * q->cap, 64u);
    }
    q->v = g_renew(SimCycle, q->v, q->cap);
}

int sm_note_copy(Sm *sm, SimCycle from, SimCycle to, const char *what, const SimSliceArgs *args)
{
    if (to <= from) {
        return 0;
    }
    const int64_t bytes = args->bytes;
    if (from >= sm->copy_to) {
        sm->stats.copy_busy += sm->copy_to - sm->copy_from;
        if (sm->copy_to > sm->copy_from) {
            g_array_append_val(sm->copy_closed, sm->copy_from);
            g_array_append_val(sm->copy_closed, sm->copy_to);
        }
        sm->copy_from = from;
        sm->copy_to = to;
    } else {
        sm->copy_to = MAX(sm->copy_to, to);
    }
    if (sm->tl != NULL) {
        /* Overlapping copies go to different lanes so that slices nest: a
         * lane takes a copy only once its last one has completed, so each
         * lane's slices come in order and never overlap.  Lanes are bounded
         * by the copies in flight (cp_async.max_inflight). */
        int lane = -1;
        for (int i = 0; i < sm->ncopy_tracks; i++) {
            if (sm->copy_track_free[i] <= from) {
                lane = i;
                break;
            }
        }
        if (lane < 0) {
            lane = sm->ncopy_tracks++;
            sm->copy_tracks = g_renew(int, sm->copy_tracks, sm->ncopy_tracks);
            sm->copy_track_free = g_renew(SimCycle, sm->copy_track_free, sm->ncopy_tracks);
            char name[48];
            g_snprintf(name, sizeof name, "copy lane %d", lane);
            sm->copy_tracks[lane] = sim_timeline_track(sm->tl, TRACK_COPY, name, 100000 + lane);
        }
        sm->copy_track_free[lane] = to;
        sim_timeline_slice(sm->tl, sm->copy_tracks[lane], what, from, to, args);
        sim_timeline_counter_add(sm->tl, "bytes in flight", sm->engine.now, from, bytes);
        sim_timeline_counter_add(sm->tl, "bytes in flight", sm->engine.now, to, -bytes);
        return sm->copy_tracks[lane];
    }
    return 0;
}

void sm_note_smem_replays(Sm *sm, SimCycle at, int64_t replays)
{
    if (sm->tl != NULL && replays > 0) {
        sim_timeline_counter_add(sm->tl, "bank conflict replays", sm->engine.now, at, replays);
    }
}
