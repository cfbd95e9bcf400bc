/* event_queue.h: the simulator's pending events, ordered by (cycle,
 * sequence).  Every push and every arming of a timer takes the next
 * sequence number, so same-cycle events pop in the order they were queued,
 * which makes every run deterministic.
 *
 * Two kinds of entry share the queue: one-shot events (push: fire and
 * forget) and timers.  A SimTimer is embedded in its owner's struct (one
 * per thing that may need waking: libuv's timers); the queue's entry points
 * back at it and the timer knows where its entry is, so cancelling or
 * moving it costs no search and a superseded request leaves nothing behind.
 *
 * Two stores hold the entries, and a pop takes the earlier of their
 * fronts, so the order is the one (cycle, sequence) gives whichever holds
 * what:
 *  - the wheel: entries due within SIM_WHEEL_SPAN cycles of the last popped
 *    cycle (`base`), one FIFO list per cycle (cycle mod SIM_WHEEL_SPAN).
 *    Sequence numbers only grow, so appending keeps each list in sequence
 *    order, and adding, removing and popping cost O(1): the common case of
 *    a simulator whose units ask to be woken a few cycles ahead (an entry
 *    with a reserved, older sequence number is inserted before the newer
 *    ones at the end of its list);
 *  - a binary min-heap for the rest (far ahead, or before `base`);
 *  - a few slots (SIM_EVENT_SLOTS), one per timer bound to it
 *    (sim_event_queue_bind_slot): a timer that is re-armed every cycle or
 *    two, such as a scheduler's next decision, is armed and popped there in
 *    O(1) with no list or heap to update; the queue keeps the armed slots
 *    in the order their entries pop (an arming is placed from the back,
 *    where a scheduler's next decision, the newest, usually goes).  A
 *    slot's entry may be chained (sim_event_queue_slot_chain): when it
 *    would pop, it is armed again at the chain's next cycle with the next
 *    sequence number instead, as a handler that only re-arms its timer
 *    would have done there, until the chain's cycles are used up.
 * An entry stays in the store it was queued in until it pops or is
 * withdrawn (a move re-queues it). */
#pragma once

#include "sim/core/simtypes.h"

typedef void (*SimEventFn)(void *target, uint64_t arg, SimCycle now);

/* A timer: armed (queued to fire once) or idle.  Its owner keeps it; only
 * the queue (or the engine) writes its fields.  A zero-filled SimTimer is
 * idle, so owners allocated with g_new0 or memset need no init call.  An
 * armed timer must not be freed, copied or cleared: cancel it first. */
typedef struct {
    SimCycle cycle;   /* armed: when it fires */
    size_t pos;       /* armed: index of its entry (heap, wheel node, or the
                       * stepped engine's list) */
    bool armed;
    bool in_wheel;    /* armed in the event queue: pos is a wheel node */
    bool in_slot;     /* bound to a slot of the event queue, armed or not:
                       * pos is the slot */
} SimTimer;

typedef struct {
    SimCycle cycle;   /* when the event fires */
    uint64_t seq;     /* queueing order; breaks ties FIFO */
    SimEventFn fn;    /* handler; called after the event left the queue */
    void *target;     /* handler's object, not owned */
    uint64_t arg;     /* handler's argument */
    SimTimer *timer;  /* the armed timer this entry is, not owned; NULL for a push */
} SimEvent;

/* Cycles the wheel spans (a power of two; bit b of a 64-bit mask says
 * whether list b has entries). */
#define SIM_WHEEL_SPAN 64

/* Slots a queue has for timers bound to one (sim_event_queue_bind_slot). */
#define SIM_EVENT_SLOTS 8

/* A wheel entry, linked into its cycle's list or, unused, into the free
 * list (next only). */
typedef struct {
    SimEvent ev;
    int32_t prev;     /* previous node of its list, or -1 */
    int32_t next;     /* next node of its list, or -1 */
} SimWheelNode;

/* Invariant (sim_event_queue_check): for every i > 0, heap[(i-1)/2] orders
 * before heap[i]; wheel list b holds, in increasing sequence order, the
 * wheel's entries whose cycle c has c mod SIM_WHEEL_SPAN == b and
 * base <= c < base + SIM_WHEEL_SPAN, and bit b of wheel_mask is set
 * exactly when it has any; every entry with a timer is that timer's entry
 * (armed, pos and in_wheel saying where, same cycle); slot k holds the
 * entry of slot_timer[k] while that timer is armed, slot_len counts them,
 * and slot_order lists the armed slots by their entries' order (its low
 * byte is the first when slot_len > 0: sim_event_queue_slot_first); only
 * an armed slot has a chain (slot_chain_len > 0). */
typedef struct {
    SimEvent *heap;   /* array of len elements, capacity cap, owned */
    size_t len;
    size_t cap;
    SimWheelNode *nodes; /* wheel entries and free nodes, nodes_cap of them, owned */
    int32_t nodes_cap;
    int32_t free_node;   /* first free node, or -1 */
    int32_t head[SIM_WHEEL_SPAN]; /* first node of each cycle's list, or -1 */
    int32_t tail[SIM_WHEEL_SPAN]; /* last node of each list, or -1 */
    uint64_t wheel_mask; /* bit b: list b is not empty */
    size_t wheel_len;    /* entries in the wheel */
    SimCycle base;       /* the latest cycle popped (0 at first) */
    SimEvent slot[SIM_EVENT_SLOTS];       /* the entries of armed bound timers */
    SimTimer *slot_timer[SIM_EVENT_SLOTS]; /* the timer bound to each slot, not owned */
    int32_t nslots;      /* slots bound */
    uint64_t slot_order; /* the armed slots, slot_len of them, in the order their entries pop:
                          * byte i is the i-th (a pop shifts, no array to move) */
    size_t slot_len;     /* armed slots */
    const SimCycle *slot_chain[SIM_EVENT_SLOTS]; /* a chained slot's next cycles, not owned */
    uint32_t slot_chain_len[SIM_EVENT_SLOTS];    /* how many of them are left: 0 when the
                                                  * slot's entry pops as usual */
    uint64_t chain_steps; /* steps of the chains given so far, taken or not
                           * (sim_event_queue_chain_steps subtracts the rest) */
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
/* Takes the next sequence number, as a push or an arming at this point
 * would, for a later sim_event_queue_arm_seq. */
static inline uint64_t sim_event_queue_reserve(SimEventQueue *q)
{
    return q->next_seq++;
}
/* Arms idle t (not owned) to call fn(target, arg) at cycle with sequence
 * number seq, reserved earlier (sim_event_queue_reserve) and given to no
 * other entry: t orders as if it had been armed when seq was reserved. */
void sim_event_queue_arm_seq(SimEventQueue *q, SimTimer *t, SimCycle cycle, uint64_t seq,
                             SimEventFn fn, void *target, uint64_t arg);
/* Withdraws t's arming; an idle t is left alone. */
void sim_event_queue_cancel(SimEventQueue *q, SimTimer *t);
/* Binds idle t (not owned; it must outlive the queue's use of it) to a
 * slot of its own, where its armings go from now on: the same order, at a
 * fraction of the cost, for a timer re-armed nearly every cycle.  Returns
 * false, leaving t as it was, when every slot is taken. */
bool sim_event_queue_bind_slot(SimEventQueue *q, SimTimer *t);
/* Removes the earliest event into *out.  Returns false when empty.  A
 * timer's entry leaves it idle before this returns (QEMU's rule), so the
 * handler may arm it again. */
bool sim_event_queue_pop(SimEventQueue *q, SimEvent *out);
/* sim_event_queue_pop when the earliest event is due no later than limit;
 * otherwise (or when empty) returns false and leaves the queue alone. */
bool sim_event_queue_pop_until(SimEventQueue *q, SimCycle limit, SimEvent *out);
/* The rest of sim_event_queue_pop_until, for a caller whose
 * sim_event_queue_pop_slot has just returned NULL: the earliest event of
 * the wheel and the heap, if due no later than limit (an earlier slot's
 * entry is then due after limit, so nothing due by it is passed over). */
bool sim_event_queue_pop_later(SimEventQueue *q, SimCycle limit, SimEvent *out);
/* Cycle of the earliest event, or SIM_CYCLE_NEVER when empty. */
SimCycle sim_event_queue_peek_cycle(const SimEventQueue *q);
/* The invariant above: NULL when it holds, else a static description of
 * the first breach.  O(n): for assertions and tests. */
const char *sim_event_queue_check(const SimEventQueue *q);

static inline size_t sim_event_queue_len(const SimEventQueue *q)
{
    return q->len + q->wheel_len + q->slot_len;
}

/* True when a orders before b. */
static inline bool sim_event_before(const SimEvent *a, const SimEvent *b)
{
    return a->cycle < b->cycle || (a->cycle == b->cycle && a->seq < b->seq);
}

/* The i-th slot of q's slot_order. */
static inline int32_t sim_event_queue_slot_at(const SimEventQueue *q, size_t i)
{
    return (int32_t) ((q->slot_order >> (8 * i)) & 0xff);
}

/* The armed slot that orders first, or -1 when none is.  Read from
 * slot_order rather than kept beside it: every arming and pop would store
 * it (docs/performance.md, item 26). */
static inline int32_t sim_event_queue_slot_first(const SimEventQueue *q)
{
    return q->slot_len > 0 ? (int32_t) (q->slot_order & 0xff) : -1;
}

/* Takes armed slot k out of slot_order (for sim_event_queue_slot_arm and
 * sim_event_queue_slot_remove): the first, usually, is a shift. */
static inline void sim_event_queue_slot_unlist(SimEventQueue *q, int32_t k)
{
    if ((int32_t) (q->slot_order & 0xff) == k) {
        q->slot_order >>= 8;
    } else {
        size_t i = 1;
        while (sim_event_queue_slot_at(q, i) != k) {
            i++;
        }
        uint64_t below = (UINT64_C(1) << (8 * i)) - 1;
        q->slot_order = (q->slot_order & below) | ((q->slot_order >> 8) & ~below);
    }
    q->slot_len--;
}

/* Takes armed slot k's entry out, leaving its timer idle. */
static inline void sim_event_queue_slot_remove(SimEventQueue *q, int32_t k)
{
    q->slot_timer[k]->armed = false;
    sim_event_queue_slot_unlist(q, k);
}

/* Lists armed slot k, its entry written, in slot_order where the entry
 * orders.  Inserted from the back: a scheduler's next decision usually
 * orders after the other slots' (its sequence number is the newest), so
 * one comparison places it. */
static inline void sim_event_queue_slot_list(SimEventQueue *q, int32_t k)
{
    const SimEvent *ev = &q->slot[k];
    size_t n = q->slot_len;
    if (n == 0 || !sim_event_before(ev, &q->slot[sim_event_queue_slot_at(q, n - 1)])) {
        q->slot_order |= (uint64_t) k << (8 * n);
    } else {
        size_t i = n - 1;
        while (i > 0 && sim_event_before(ev, &q->slot[sim_event_queue_slot_at(q, i - 1)])) {
            i--;
        }
        uint64_t below = (UINT64_C(1) << (8 * i)) - 1;
        q->slot_order = (q->slot_order & below) | ((uint64_t) k << (8 * i)) | ((q->slot_order & ~below) << 8);
    }
    q->slot_len = n + 1;
}

/* sim_event_queue_slot_arm for a bound timer t that is not listed (idle,
 * or unlisted by slot_arm's move) and whose slot's entry holds the target
 * and argument to call it with (its last arming's: a timer its owner arms
 * for the same call every time, or slot_arm's, just written): writes the
 * cycle, the sequence number and the handler only. */
static inline void sim_event_queue_slot_rearm(SimEventQueue *q, SimTimer *t, SimCycle cycle, uint64_t seq,
                                              SimEventFn fn)
{
    int32_t k = (int32_t) t->pos;
    SimEvent *ev = &q->slot[k];
    ev->cycle = cycle;
    ev->seq = seq;
    ev->fn = fn;
    t->armed = true;
    t->cycle = cycle;
    sim_event_queue_slot_list(q, k);
}

/* sim_event_queue_arm_seq for a timer bound to a slot (t->in_slot), or,
 * with seq the next sequence number, sim_event_queue_arm: inline, as the
 * one arming a busy scheduler's every decision takes. */
static inline void sim_event_queue_slot_arm(SimEventQueue *q, SimTimer *t, SimCycle cycle, uint64_t seq,
                                            SimEventFn fn, void *target, uint64_t arg)
{
    int32_t k = (int32_t) t->pos;
    if (t->armed) {
        /* A move: listed again below, where its new entry orders. */
        sim_event_queue_slot_unlist(q, k);
    }
    SimEvent *ev = &q->slot[k];
    ev->target = target;
    ev->arg = arg;
    ev->timer = t;
    sim_event_queue_slot_rearm(q, t, cycle, seq, fn);
}

/* Chains armed timer t, bound to a slot: each time its entry would pop,
 * it is armed again instead, at at[0], ..., at[n - 1] in turn
 * (sim_event_queue_slot_chain_step), and then it pops as usual.  at is not
 * owned and must stay as it is until the chain is used up; each cycle must
 * be later than the one before it (at[0] than t's). */
static inline void sim_event_queue_slot_chain(SimEventQueue *q, SimTimer *t, const SimCycle *at, uint32_t n)
{
    q->slot_chain[t->pos] = at;
    q->slot_chain_len[t->pos] = n;
    q->chain_steps += n;
}

/* The chains' steps taken so far: those given less those left. */
static inline uint64_t sim_event_queue_chain_steps(const SimEventQueue *q)
{
    uint64_t left = 0;
    for (int32_t k = 0; k < q->nslots; k++) {
        left += q->slot_chain_len[k];
    }
    return q->chain_steps - left;
}

/* Slot k's entry, the first and due, is chained: armed again at its
 * chain's next cycle with the next sequence number, where a handler that
 * re-armed it would have put it (its target, argument, handler and timer
 * stay). */
static inline void sim_event_queue_slot_chain_step(SimEventQueue *q, int32_t k)
{
    SimEvent *ev = &q->slot[k];
    /* The first slot leaves slot_order by a shift. */
    q->slot_order >>= 8;
    q->slot_len--;
    ev->cycle = *q->slot_chain[k]++;
    ev->seq = sim_event_queue_reserve(q);
    q->slot_chain_len[k]--;
    ev->timer->cycle = ev->cycle;
    sim_event_queue_slot_list(q, k);
}

/* The wheel's earliest entry: the head of the first non-empty list from
 * base's on, or -1 when the wheel is empty. */
static inline int32_t sim_event_queue_wheel_first(const SimEventQueue *q)
{
    if (q->wheel_mask == 0) {
        return -1;
    }
    unsigned r = (unsigned) (q->base & ((SimCycle) SIM_WHEEL_SPAN - 1));
    uint64_t m = r ? (q->wheel_mask >> r) | (q->wheel_mask << (SIM_WHEEL_SPAN - r)) : q->wheel_mask;
    return q->head[((unsigned) __builtin_ctzll(m) + r) & (SIM_WHEEL_SPAN - 1)];
}

/* sim_event_queue_pop_slot's case of a chained first slot, due and
 * ordering first (n: the wheel's first entry, sim_event_queue_wheel_first):
 * it steps (sim_event_queue_slot_chain_step), and so does every chained
 * entry that comes to order first and is due; the first that is not
 * chained is taken out and returned as sim_event_queue_pop_slot returns
 * it, or NULL when the first entry is another store's or due after limit
 * (the steps stay taken: each is an event handled). */
const SimEvent *sim_event_queue_pop_chained(SimEventQueue *q, SimCycle limit, int32_t n);

/* sim_event_queue_pop_until's usual case, inline and without a copy: when
 * the earliest event is a slot's (a bound timer's) and due no later than
 * limit, takes it out, leaving its timer idle, and returns it; it stays
 * readable, owned by the queue, until that timer is armed again (so a
 * caller reads it before running its handler).  Otherwise returns NULL
 * and leaves the queue alone: sim_event_queue_pop_later decides. */
static inline const SimEvent *sim_event_queue_pop_slot(SimEventQueue *q, SimCycle limit)
{
    if (q->slot_len == 0) {
        return NULL;
    }
    int32_t k = (int32_t) (q->slot_order & 0xff);
    const SimEvent *ev = &q->slot[k];
    if (ev->cycle > limit) {
        return NULL;
    }
    int32_t n = sim_event_queue_wheel_first(q);
    if ((n >= 0 && !sim_event_before(ev, &q->nodes[n].ev)) || (q->len > 0 && !sim_event_before(ev, &q->heap[0]))) {
        return NULL;
    }
    if (G_UNLIKELY(q->slot_chain_len[k] != 0)) {
        /* A chained entry steps instead (sim_event_queue_slot_chain). */
        return sim_event_queue_pop_chained(q, limit, n);
    }
    sim_event_queue_slot_remove(q, k);
    q->base = MAX(q->base, ev->cycle);
    return ev;
}

/* Gives armed t's entry the handler fn: it keeps its cycle, its sequence
 * number and its place. */
static inline void sim_event_queue_retarget(SimEventQueue *q, SimTimer *t, SimEventFn fn)
{
    if (t->in_slot) {
        q->slot[t->pos].fn = fn;
    } else if (t->in_wheel) {
        q->nodes[t->pos].ev.fn = fn;
    } else {
        q->heap[t->pos].fn = fn;
    }
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
