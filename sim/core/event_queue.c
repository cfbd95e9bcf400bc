/* event_queue.c: binary min-heap of SimEvent ordered by (cycle, seq). */
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

void sim_event_queue_push(SimEventQueue *q, SimCycle cycle, SimEventFn fn,
                          void *target, uint64_t arg)
{
    if (q->len == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 64;
        q->heap = g_renew(SimEvent, q->heap, q->cap);
    }
    SimEvent ev = { cycle, q->next_seq++, fn, target, arg };
    size_t i = q->len++;
    /* Sift up: move parents down until ev's place is found. */
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!sim_event_before(&ev, &q->heap[parent])) {
            break;
        }
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = ev;
}

bool sim_event_queue_pop(SimEventQueue *q, SimEvent *out)
{
    if (q->len == 0) {
        return false;
    }
    *out = q->heap[0];
    SimEvent last = q->heap[--q->len];
    size_t n = q->len;
    size_t i = 0;
    /* Sift down the former last element from the root. */
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) {
            break;
        }
        if (child + 1 < n && sim_event_before(&q->heap[child + 1], &q->heap[child])) {
            child++;
        }
        if (!sim_event_before(&q->heap[child], &last)) {
            break;
        }
        q->heap[i] = q->heap[child];
        i = child;
    }
    if (n > 0) {
        q->heap[i] = last;
    }
    return true;
}

SimCycle sim_event_queue_peek_cycle(const SimEventQueue *q)
{
    return q->len ? q->heap[0].cycle : SIM_CYCLE_NEVER;
}
