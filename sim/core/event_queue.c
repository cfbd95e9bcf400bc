/* event_queue.c: the pending events, a wheel of per-cycle lists for the
 * near future and a binary min-heap for the rest, ordered by (cycle, seq),
 * with timers that know where their entry is (event_queue.h). */
#include "sim/core/event_queue.h"

#define WHEEL_MASK ((SimCycle) SIM_WHEEL_SPAN - 1)

void sim_event_queue_init(SimEventQueue *q)
{
    memset(q, 0, sizeof *q);
    q->free_node = -1;
    for (int b = 0; b < SIM_WHEEL_SPAN; b++) {
        q->head[b] = -1;
        q->tail[b] = -1;
    }
}

void sim_event_queue_clear(SimEventQueue *q)
{
    g_free(q->heap);
    g_free(q->nodes);
    sim_event_queue_init(q);
}

/* ---------------------------------------------------------------- wheel */

/* True when an entry due at cycle belongs in the wheel. */
static inline bool wheel_takes(const SimEventQueue *q, SimCycle cycle)
{
    return cycle >= q->base && cycle - q->base < SIM_WHEEL_SPAN;
}

/* Appends ev to its cycle's list (it has the newest sequence number, so
 * the list stays in sequence order) and tells its timer, if any. */
static inline void wheel_add(SimEventQueue *q, const SimEvent *ev)
{
    if (q->free_node < 0) {
        int32_t old = q->nodes_cap;
        q->nodes_cap = old ? old * 2 : 64;
        q->nodes = g_renew(SimWheelNode, q->nodes, q->nodes_cap);
        for (int32_t i = old; i < q->nodes_cap; i++) {
            q->nodes[i].next = i + 1 < q->nodes_cap ? i + 1 : -1;
        }
        q->free_node = old;
    }
    int32_t n = q->free_node;
    SimWheelNode *node = &q->nodes[n];
    q->free_node = node->next;
    size_t b = (size_t) (ev->cycle & WHEEL_MASK);
    node->ev = *ev;
    node->next = -1;
    node->prev = q->tail[b];
    if (q->tail[b] >= 0) {
        q->nodes[q->tail[b]].next = n;
    } else {
        q->head[b] = n;
        q->wheel_mask |= UINT64_C(1) << b;
    }
    q->tail[b] = n;
    q->wheel_len++;
    if (ev->timer != NULL) {
        ev->timer->pos = (size_t) n;
        ev->timer->in_wheel = true;
    }
}

/* Adds ev, whose sequence number may be older than its list's newest
 * (sim_event_queue_arm_seq), to its cycle's list in sequence order, and
 * tells its timer. */
static inline void wheel_insert(SimEventQueue *q, const SimEvent *ev)
{
    size_t b = (size_t) (ev->cycle & WHEEL_MASK);
    int32_t next = q->tail[b];
    if (next < 0 || q->nodes[next].ev.seq < ev->seq) {
        wheel_add(q, ev);
        return;
    }
    /* Appended, then moved before the newer nodes at the list's end. */
    wheel_add(q, ev);
    int32_t n = q->tail[b];
    SimWheelNode *node = &q->nodes[n];
    q->tail[b] = node->prev;
    q->nodes[node->prev].next = -1;
    while (q->nodes[next].prev >= 0 && q->nodes[q->nodes[next].prev].ev.seq > ev->seq) {
        next = q->nodes[next].prev;
    }
    int32_t prev = q->nodes[next].prev;
    node->prev = prev;
    node->next = next;
    q->nodes[next].prev = n;
    if (prev >= 0) {
        q->nodes[prev].next = n;
    } else {
        q->head[b] = n;
    }
}

/* Unlinks node n from its list and frees it. */
static void wheel_remove(SimEventQueue *q, int32_t n)
{
    SimWheelNode *node = &q->nodes[n];
    size_t b = (size_t) (node->ev.cycle & WHEEL_MASK);
    if (node->prev >= 0) {
        q->nodes[node->prev].next = node->next;
    } else {
        q->head[b] = node->next;
    }
    if (node->next >= 0) {
        q->nodes[node->next].prev = node->prev;
    } else {
        q->tail[b] = node->prev;
    }
    if (q->head[b] < 0) {
        q->wheel_mask &= ~(UINT64_C(1) << b);
    }
    node->next = q->free_node;
    q->free_node = n;
    q->wheel_len--;
}

/* ---------------------------------------------------------------- slots */

bool sim_event_queue_bind_slot(SimEventQueue *q, SimTimer *t)
{
    g_assert(!t->armed && !t->in_slot);
    if (q->nslots == SIM_EVENT_SLOTS) {
        return false;
    }
    t->in_slot = true;
    t->in_wheel = false;
    t->pos = (size_t) q->nslots;
    q->slot_timer[q->nslots++] = t;
    return true;
}

/* ----------------------------------------------------------------- heap */

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

/* Takes heap entry i out: the last entry fills the hole, above or below. */
static void heap_remove(SimEventQueue *q, size_t i)
{
    SimEvent last = q->heap[--q->len];
    if (i < q->len) {
        settle(q, i, last);
    }
}

/* Queues ev in the store its cycle belongs to. */
static void enqueue(SimEventQueue *q, const SimEvent *ev)
{
    if (wheel_takes(q, ev->cycle)) {
        wheel_add(q, ev);
        return;
    }
    if (ev->timer != NULL) {
        ev->timer->in_wheel = false;
    }
    reserve_one(q);
    sift_up(q, q->len++, *ev);
}

void sim_event_queue_push(SimEventQueue *q, SimCycle cycle, SimEventFn fn,
                          void *target, uint64_t arg)
{
    SimEvent ev = { cycle, q->next_seq++, fn, target, arg, NULL };
    enqueue(q, &ev);
}

void sim_event_queue_arm(SimEventQueue *q, SimTimer *t, SimCycle cycle,
                         SimEventFn fn, void *target, uint64_t arg)
{
    if (t->in_slot) {
        sim_event_queue_slot_arm(q, t, cycle, q->next_seq++, fn, target, arg);
        return;
    }
    SimEvent ev = { cycle, q->next_seq++, fn, target, arg, t };
    t->cycle = cycle;
    if (t->armed && !t->in_wheel && !wheel_takes(q, cycle)) {
        /* A move within the heap: the new key replaces the old one in the
         * same entry. */
        settle(q, t->pos, ev);
        return;
    }
    if (t->armed) {
        /* A move to the end of a wheel list, or between the stores. */
        if (t->in_wheel) {
            wheel_remove(q, (int32_t) t->pos);
        } else {
            heap_remove(q, t->pos);
        }
    }
    t->armed = true;
    enqueue(q, &ev);
}

void sim_event_queue_arm_seq(SimEventQueue *q, SimTimer *t, SimCycle cycle, uint64_t seq,
                             SimEventFn fn, void *target, uint64_t arg)
{
    g_assert(!t->armed);
    if (t->in_slot) {
        sim_event_queue_slot_arm(q, t, cycle, seq, fn, target, arg);
        return;
    }
    SimEvent ev = { cycle, seq, fn, target, arg, t };
    t->cycle = cycle;
    t->armed = true;
    if (wheel_takes(q, cycle)) {
        wheel_insert(q, &ev);
        return;
    }
    t->in_wheel = false;
    reserve_one(q);
    sift_up(q, q->len++, ev);
}

void sim_event_queue_cancel(SimEventQueue *q, SimTimer *t)
{
    if (!t->armed) {
        return;
    }
    if (t->in_slot) {
        q->chain_steps -= q->slot_chain_len[t->pos];
        q->slot_chain_len[t->pos] = 0;
        sim_event_queue_slot_remove(q, (int32_t) t->pos);
        return;
    }
    t->armed = false;
    if (t->in_wheel) {
        wheel_remove(q, (int32_t) t->pos);
    } else {
        heap_remove(q, t->pos);
    }
}

const SimEvent *sim_event_queue_pop_chained(SimEventQueue *q, SimCycle limit, int32_t n)
{
    /* The wheel and the heap do not change while chained entries step:
     * a slot's entry is taken while it orders before `bound`, the earlier
     * of their fronts and the first key past limit. */
    SimEvent bound = { limit == SIM_CYCLE_NEVER ? SIM_CYCLE_NEVER : limit + 1, 0, NULL, NULL, 0, NULL };
    if (n >= 0 && sim_event_before(&q->nodes[n].ev, &bound)) {
        bound = q->nodes[n].ev;
    }
    if (q->len > 0 && sim_event_before(&q->heap[0], &bound)) {
        bound = q->heap[0];
    }
    /* The entries come in order, so the queue's base moves to the last
     * one's cycle, once, as it leaves (nothing here reads it). */
    int32_t k = (int32_t) (q->slot_order & 0xff);
    for (;;) {
        const SimEvent *ev = &q->slot[k];
        SimCycle cycle = ev->cycle;
        if (q->slot_chain_len[k] == 0) {
            q->base = MAX(q->base, cycle);
            sim_event_queue_slot_remove(q, k);
            return ev;
        }
        /* Its slot stays armed: slot_len stays above 0. */
        sim_event_queue_slot_chain_step(q, k);
        k = (int32_t) (q->slot_order & 0xff);
        if (!sim_event_before(&q->slot[k], &bound)) {
            q->base = MAX(q->base, cycle);
            return NULL;
        }
    }
}

bool sim_event_queue_pop(SimEventQueue *q, SimEvent *out)
{
    return sim_event_queue_pop_until(q, SIM_CYCLE_NEVER, out);
}

bool sim_event_queue_pop_until(SimEventQueue *q, SimCycle limit, SimEvent *out)
{
    const SimEvent *slot = sim_event_queue_pop_slot(q, limit);
    if (slot != NULL) {
        *out = *slot;
        return true;
    }
    return sim_event_queue_pop_later(q, limit, out);
}

bool sim_event_queue_pop_later(SimEventQueue *q, SimCycle limit, SimEvent *out)
{
    int32_t n = sim_event_queue_wheel_first(q);
    if (n >= 0 && (q->len == 0 || sim_event_before(&q->nodes[n].ev, &q->heap[0]))) {
        if (q->nodes[n].ev.cycle > limit) {
            return false;
        }
        *out = q->nodes[n].ev;
        wheel_remove(q, n);
    } else if (q->len > 0) {
        if (q->heap[0].cycle > limit) {
            return false;
        }
        *out = q->heap[0];
        SimEvent last = q->heap[--q->len];
        if (q->len > 0) {
            sift_down(q, 0, last);
        }
    } else {
        return false;
    }
    if (out->timer != NULL) {
        out->timer->armed = false;
    }
    /* Everything left is due no earlier: the wheel's window moves on. */
    q->base = MAX(q->base, out->cycle);
    return true;
}

SimCycle sim_event_queue_peek_cycle(const SimEventQueue *q)
{
    int32_t n = sim_event_queue_wheel_first(q);
    SimCycle c = q->len ? q->heap[0].cycle : SIM_CYCLE_NEVER;
    int32_t first = sim_event_queue_slot_first(q);
    if (first >= 0) {
        c = MIN(c, q->slot[first].cycle);
    }
    return n >= 0 ? MIN(c, q->nodes[n].ev.cycle) : c;
}

/* The wheel's part of the invariant (event_queue.h). */
static const char *check_wheel(const SimEventQueue *q)
{
    size_t count = 0;
    for (int b = 0; b < SIM_WHEEL_SPAN; b++) {
        bool has = (q->wheel_mask >> b) & 1;
        if (has != (q->head[b] >= 0) || (q->head[b] >= 0) != (q->tail[b] >= 0)) {
            return "a wheel list's mask bit, head and tail disagree";
        }
        int32_t prev = -1;
        for (int32_t n = q->head[b]; n >= 0; n = q->nodes[n].next) {
            const SimWheelNode *node = &q->nodes[n];
            if (++count > q->wheel_len) {
                return "the wheel holds more entries than it counts";
            }
            if (node->prev != prev) {
                return "a wheel node's back link is wrong";
            }
            if ((node->ev.cycle & WHEEL_MASK) != (SimCycle) b || !wheel_takes(q, node->ev.cycle)) {
                return "a wheel entry is in the wrong list";
            }
            if (prev >= 0 && q->nodes[prev].ev.seq >= node->ev.seq) {
                return "a wheel list is out of sequence order";
            }
            if (node->ev.seq >= q->next_seq) {
                return "an entry has a sequence number not yet given";
            }
            const SimTimer *t = node->ev.timer;
            if (t != NULL && (!t->armed || !t->in_wheel || t->pos != (size_t) n || t->cycle != node->ev.cycle)) {
                return "a timer's entry is not where its timer says";
            }
            prev = n;
        }
        if (q->tail[b] != prev) {
            return "a wheel list's tail is not its last node";
        }
    }
    if (count != q->wheel_len) {
        return "the wheel holds fewer entries than it counts";
    }
    return NULL;
}

/* The slots' part of the invariant (event_queue.h). */
static const char *check_slots(const SimEventQueue *q)
{
    size_t armed = 0;
    int32_t first = -1;
    for (int32_t k = 0; k < q->nslots; k++) {
        const SimTimer *t = q->slot_timer[k];
        if (!t->in_slot || t->in_wheel || t->pos != (size_t) k) {
            return "a slot's timer does not know its slot";
        }
        if (!t->armed) {
            if (q->slot_chain_len[k] != 0) {
                return "an idle slot has a chain";
            }
            continue;
        }
        armed++;
        const SimEvent *ev = &q->slot[k];
        if (ev->timer != t || ev->cycle != t->cycle) {
            return "a slot's entry is not its timer's";
        }
        if (ev->seq >= q->next_seq) {
            return "an entry has a sequence number not yet given";
        }
        if (first < 0 || sim_event_before(ev, &q->slot[first])) {
            first = k;
        }
    }
    if (armed != q->slot_len) {
        return "the slots hold another number of entries than they count";
    }
    uint32_t listed = 0;
    for (size_t i = 0; i < q->slot_len; i++) {
        int32_t k = sim_event_queue_slot_at(q, i);
        if (k < 0 || k >= q->nslots || !q->slot_timer[k]->armed || (listed & (UINT32_C(1) << k)) != 0) {
            return "the slots' order lists another slot than an armed one";
        }
        listed |= UINT32_C(1) << k;
        if (i > 0 && !sim_event_before(&q->slot[sim_event_queue_slot_at(q, i - 1)], &q->slot[k])) {
            return "the slots' order is not their entries'";
        }
    }
    if (first != sim_event_queue_slot_first(q)) {
        return "the first slot is not the one that orders first";
    }
    return NULL;
}

const char *sim_event_queue_check(const SimEventQueue *q)
{
    const char *broken = check_slots(q);
    if (broken != NULL) {
        return broken;
    }
    for (size_t i = 0; i < q->len; i++) {
        const SimEvent *ev = &q->heap[i];
        if (i > 0 && sim_event_before(ev, &q->heap[(i - 1) / 2])) {
            return "an entry orders before its parent";
        }
        if (ev->seq >= q->next_seq) {
            return "an entry has a sequence number not yet given";
        }
        const SimTimer *t = ev->timer;
        if (t != NULL && (!t->armed || t->in_wheel || t->pos != i || t->cycle != ev->cycle)) {
            return "a timer's entry is not where its timer says";
        }
    }
    return check_wheel(q);
}
