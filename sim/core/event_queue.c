/* event_queue.c: binary min-heap of SimEvent ordered by (cycle, seq), with
 * timers that know their entry's index (event_queue.h). */
#include "sim/core/event_queue.h"

void sim_event_queue_init(SimEventQueue *q)
{
    q->heap = NULL;
    q->len = 0;
    q->cap = 0;
    q->next_seq = 0;
}

void sim_event_queue_clear(SimEventQueue *q)
{
    g_free(q->heap);
    sim_event_queue_init(q);
}

/* Writes ev at index i and tells its timer, if any, where it now is. */
static inline void place(SimEventQueue *q, size_t i, const SimEvent *ev)
{
    q->heap[i] = *ev;
    if (ev->timer != NULL) {
        ev->timer->pos = i;
    }
}

/* Fills the hole at i with ev, moving parents down until ev's place is
 * found. */
static void sift_up(SimEventQueue *q, size_t i, SimEvent ev)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!sim_event_before(&ev, &q->heap[parent])) {
            break;
        }
        place(q, i, &q->heap[parent]);
        i = parent;
    }
    place(q, i, &ev);
}

/* Fills the hole at i with ev, moving the earlier child up until ev's
 * place is found. */
static void sift_down(SimEventQueue *q, size_t i, SimEvent ev)
{
    size_t n = q->len;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) {
            break;
        }
        if (child + 1 < n && sim_event_before(&q->heap[child + 1], &q->heap[child])) {
            child++;
        }
        if (!sim_event_before(&q->heap[child], &ev)) {
            break;
        }
        place(q, i, &q->heap[child]);
        i = child;
    }
    place(q, i, &ev);
}

/* Fills the hole at i, anywhere in the heap, with ev: up when ev orders
 * before i's parent, else down. */
static void settle(SimEventQueue *q, size_t i, SimEvent ev)
{
    if (i > 0 && sim_event_before(&ev, &q->heap[(i - 1) / 2])) {
        sift_up(q, i, ev);
    } else {
        sift_down(q, i, ev);
    }
}

/* Makes room for one more entry. */
static void reserve_one(SimEventQueue *q)
{
    if (q->len == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 64;
        q->heap = g_renew(SimEvent, q->heap, q->cap);
    }
}

void sim_event_queue_push(SimEventQueue *q, SimCycle cycle, SimEventFn fn,
                          void *target, uint64_t arg)
{
    reserve_one(q);
    SimEvent ev = { cycle, q->next_seq++, fn, target, arg, NULL };
    sift_up(q, q->len++, ev);
}

void sim_event_queue_arm(SimEventQueue *q, SimTimer *t, SimCycle cycle,
                         SimEventFn fn, void *target, uint64_t arg)
{
    SimEvent ev = { cycle, q->next_seq++, fn, target, arg, t };
    t->cycle = cycle;
    if (t->armed) {
        /* A move: the new key replaces the old one in the same entry. */
        settle(q, t->pos, ev);
        return;
    }
    t->armed = true;
    reserve_one(q);
    sift_up(q, q->len++, ev);
}

void sim_event_queue_cancel(SimEventQueue *q, SimTimer *t)
{
    if (!t->armed) {
        return;
    }
    t->armed = false;
    size_t i = t->pos;
    SimEvent last = q->heap[--q->len];
    if (i < q->len) {
        /* The last entry fills the hole; it may belong above or below. */
        settle(q, i, last);
    }
}

bool sim_event_queue_pop(SimEventQueue *q, SimEvent *out)
{
    if (q->len == 0) {
        return false;
    }
    *out = q->heap[0];
    if (out->timer != NULL) {
        out->timer->armed = false;
    }
    SimEvent last = q->heap[--q->len];
    if (q->len > 0) {
        sift_down(q, 0, last);
    }
    return true;
}

SimCycle sim_event_queue_peek_cycle(const SimEventQueue *q)
{
    return q->len ? q->heap[0].cycle : SIM_CYCLE_NEVER;
}

const char *sim_event_queue_check(const SimEventQueue *q)
{
    for (size_t i = 0; i < q->len; i++) {
        const SimEvent *ev = &q->heap[i];
        if (i > 0 && sim_event_before(ev, &q->heap[(i - 1) / 2])) {
            return "an entry orders before its parent";
        }
        if (ev->seq >= q->next_seq) {
            return "an entry has a sequence number not yet given";
        }
        const SimTimer *t = ev->timer;
        if (t != NULL && (!t->armed || t->pos != i || t->cycle != ev->cycle)) {
            return "a timer's entry is not where its timer says";
        }
    }
    return NULL;
}
