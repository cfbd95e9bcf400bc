/* event_queue.h: the simulator's pending events, a binary min-heap keyed by
 * (cycle, sequence).  Every push and every arming of a timer takes the next
 * sequence number, so same-cycle events pop in the order they were queued,
 * which makes every run deterministic.
 *
 * Two kinds of entry share the heap: one-shot events (push: fire and
 * forget) and timers.  A SimTimer is embedded in its owner's struct (one
 * per thing that may need waking: libuv's timers); the heap's entry points
 * back at it and the timer knows its entry's index, so cancelling or moving
 * it is O(log n) and a superseded request leaves nothing behind.  The
 * queue allocates nothing per timer beyond the entry's slot in its array. */
#pragma once

#include "sim/core/simtypes.h"

typedef void (*SimEventFn)(void *target, uint64_t arg, SimCycle now);

/* A timer: armed (queued to fire once) or idle.  Its owner keeps it; only
 * the queue (or the engine) writes its fields.  A zero-filled SimTimer is
 * idle, so owners allocated with g_new0 or memset need no init call.  An
 * armed timer must not be freed, copied or cleared: cancel it first. */
typedef struct {
    SimCycle cycle;   /* armed: when it fires */
    size_t pos;       /* armed: index of its entry (heap, or the stepped engine's list) */
    bool armed;
} SimTimer;

typedef struct {
    SimCycle cycle;   /* when the event fires */
    uint64_t seq;     /* queueing order; breaks ties FIFO */
    SimEventFn fn;    /* handler; called after the event left the queue */
    void *target;     /* handler's object, not owned */
    uint64_t arg;     /* handler's argument */
    SimTimer *timer;  /* the armed timer this entry is, not owned; NULL for a push */
} SimEvent;

/* Invariant (sim_event_queue_check): for every i > 0, heap[(i-1)/2] orders
 * before heap[i]; every entry with a timer is that timer's entry (armed,
 * pos == i, same cycle). */
typedef struct {
    SimEvent *heap;   /* array of len elements, capacity cap */
    size_t len;
    size_t cap;
    uint64_t next_seq; /* sequence number of the next push or arming */
} SimEventQueue;

void sim_event_queue_init(SimEventQueue *q);
/* Frees the heap.  Timers still armed are forgotten, not written: their
 * owners may be gone already. */
void sim_event_queue_clear(SimEventQueue *q);
/* Adds a one-shot event; the queue copies it and assigns its sequence
 * number. */
void sim_event_queue_push(SimEventQueue *q, SimCycle cycle, SimEventFn fn,
                          void *target, uint64_t arg);
/* Arms t (not owned; it must outlive its arming) to call fn(target, arg)
 * at cycle, with the next sequence number, as a push at this point would.
 * An armed t is moved: its earlier arming is withdrawn. */
void sim_event_queue_arm(SimEventQueue *q, SimTimer *t, SimCycle cycle,
                         SimEventFn fn, void *target, uint64_t arg);
/* Withdraws t's arming; an idle t is left alone. */
void sim_event_queue_cancel(SimEventQueue *q, SimTimer *t);
/* Removes the earliest event into *out.  Returns false when empty.  A
 * timer's entry leaves it idle before this returns (QEMU's rule), so the
 * handler may arm it again. */
bool sim_event_queue_pop(SimEventQueue *q, SimEvent *out);
/* Cycle of the earliest event, or SIM_CYCLE_NEVER when empty. */
SimCycle sim_event_queue_peek_cycle(const SimEventQueue *q);
/* The invariant above: NULL when it holds, else a static description of
 * the first breach.  O(n): for assertions and tests. */
const char *sim_event_queue_check(const SimEventQueue *q);

static inline size_t sim_event_queue_len(const SimEventQueue *q)
{
    return q->len;
}

/* True when a orders before b. */
static inline bool sim_event_before(const SimEvent *a, const SimEvent *b)
{
    return a->cycle < b->cycle || (a->cycle == b->cycle && a->seq < b->seq);
}

static inline bool sim_timer_is_armed(const SimTimer *t)
{
    return t->armed;
}

/* When an armed t fires; SIM_CYCLE_NEVER when it is idle. */
static inline SimCycle sim_timer_cycle(const SimTimer *t)
{
    return t->armed ? t->cycle : SIM_CYCLE_NEVER;
}
