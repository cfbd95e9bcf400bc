/* event_queue.h: the simulator's pending events, a binary min-heap keyed by
 * (cycle, insertion sequence).  Same-cycle events therefore pop in the order
 * they were pushed, which makes every run deterministic. */
#pragma once

#include "sim/core/simtypes.h"

typedef void (*SimEventFn)(void *target, uint64_t arg, SimCycle now);

typedef struct {
    SimCycle cycle;   /* when the event fires */
    uint64_t seq;     /* insertion order; breaks ties FIFO */
    SimEventFn fn;    /* handler; called after the event left the queue */
    void *target;     /* handler's object, not owned */
    uint64_t arg;     /* handler's argument */
} SimEvent;

/* Invariant: for every i > 0, heap[(i-1)/2] orders before heap[i]. */
typedef struct {
    SimEvent *heap;   /* array of len elements, capacity cap */
    size_t len;
    size_t cap;
    uint64_t next_seq; /* sequence number of the next push */
} SimEventQueue;

void sim_event_queue_init(SimEventQueue *q);
void sim_event_queue_clear(SimEventQueue *q);
/* Adds an event; the queue copies it and assigns its sequence number. */
void sim_event_queue_push(SimEventQueue *q, SimCycle cycle, SimEventFn fn,
                          void *target, uint64_t arg);
/* Removes the earliest event into *out.  Returns false when empty. */
bool sim_event_queue_pop(SimEventQueue *q, SimEvent *out);
/* Cycle of the earliest event, or SIM_CYCLE_NEVER when empty. */
SimCycle sim_event_queue_peek_cycle(const SimEventQueue *q);

static inline size_t sim_event_queue_len(const SimEventQueue *q)
{
    return q->len;
}

/* True when a orders before b. */
static inline bool sim_event_before(const SimEvent *a, const SimEvent *b)
{
    return a->cycle < b->cycle || (a->cycle == b->cycle && a->seq < b->seq);
}
