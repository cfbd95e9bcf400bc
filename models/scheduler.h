/* scheduler.h: a warp scheduler of one SM sub-partition.
 *
 * Hardware behaviour: Ampere and Hopper SMs have four sub-partitions, each
 * with its own scheduler that issues at most one warp instruction per
 * cycle from the warps assigned to it (warp i goes to sub-partition
 * i mod 4).  Among ready warps it picks by policy: loose round-robin (the
 * next ready warp after the last one issued), greedy-then-oldest (keep
 * issuing the last warp while it is ready, else the one that has waited
 * longest), oldest first (the oldest warp that is ready) or greedy (the
 * last warp keeps the slot while it issues math back to back, cycle after
 * cycle; once it leaves a cycle unused or goes on to a control statement, a
 * library call or a memory operation, loose round-robin:
 * scripts/calib/pipedrift.cu).  Greedy is what the
 * GPU does (scripts/calib/sched.cu and schedmix.cu, H100 and H200): warps
 * whose instructions issue every cycle (independent FFMAs) run one after
 * another, and keep their alone rate beside warps whose next instruction
 * waits for a result or the pipe (a dependent chain, IMADs on the
 * half-rate pipe), which get only the slots they leave; warps that all
 * wait so share the slots in turn.  Each instruction class has an issue interval on its pipe
 * (arch [inst.*] interval): a second instruction of the class waits for it.
 * Across blocks, age comes first (sched.older_blocks_first): the ready
 * warps of the oldest resident block issue before any younger block's, so
 * blocks that contend for a pipe end one after another
 * (scripts/calib/schedblk.cu, phaseq.cu).
 * Sources: NVIDIA A100 and H100 whitepapers (four sub-partitions, one
 * dispatch per clock); Rogers et al., "Cache-Conscious Wavefront
 * Scheduling" (MICRO 2012) for LRR and GTO. */
#pragma once

#include "models/arch.h"

/* The ready warps are kept one of two ways.  A list in arrival order
 * (`ready`), which GTO's ranks need, or, for LRR and oldest first on a
 * sub-partition of at most 64 warps (scheduler_use_mask), a bitmask over
 * the sub-partition's warps: both rank by warp id, so the policy order is
 * the bits' order (for LRR rotated past the last warp issued), an issue
 * clears a bit and a return sets one, with no list to search or shift.  In
 * mask mode `ready` is not kept. */
typedef struct {
    int32_t *ready;      /* warp ids of runnable warps, in the order they arrived (list mode) */
    int32_t nready;      /* ready warps (both modes) */
    int32_t cap;
    bool by_mask;        /* mask mode: `mask` holds the ready warps */
    uint64_t mask;       /* mask mode: bit j set when warp first + j x stride is ready */
    int32_t first;       /* mask mode: the sub-partition's lowest warp id */
    int32_t stride;      /* mask mode: the step between its warp ids */
    int32_t stride_shift; /* mask mode: log2(stride) when a power of two, else -1 */
    int32_t last_slot;   /* mask mode: the bit of `last`, -1 at start */
    int32_t slot_warp[64]; /* mask mode: first + j x stride for each bit j, read
                          * by every visit and scan of a decision */
    SimCycle slot_base[64]; /* mask mode: Sm.ready_base of each bit's warp, by bit,
                          * for the scans of a decision (sm.c's cache_ready) */
    int32_t slot_cls[64];  /* mask mode: Sm.ready_cls of each bit's warp, by bit */
    /* Mask mode: the bits by class, so that a decision's scan for the next
     * ready time reads each class's pipe once and stops at it.  Bit j is
     * set in entry slot_cls[j] and in no other, whether or not j is in
     * `mask` (so it is read ANDed with mask; every bit starts in class 0);
     * `classes` has bit c set once entry c had a bit (nclasses + 1 entries,
     * pipe_free's). */
    uint64_t class_slots[ARCH_MAX_CLASSES + 1];
    uint32_t classes;
    SimCycle next_free;  /* first cycle the scheduler can issue again */
    int32_t last;        /* warp issued last, -1 at start */
    SimCycle last_end;   /* the cycle its issue ended (next_free when it issued)
                          * if its next operation is math, else never: greedy
                          * keeps it only if it issues again then */
    SimCycle *pipe_free; /* per instruction class: first cycle its pipe takes another;
                          * one more entry, pipe_free[nclasses], stays 0: the
                          * slot of an instruction that waits for no pipe */
    /* Older blocks first (scheduler_set_blocks; sched.older_blocks_first):
     * a decision takes the ready warps block by block, the oldest (lowest
     * id) first, each block's in the policy order.  warps_per_block is 0
     * when off or with one block; in mask mode groups[g] holds the bits of
     * the g-th block with warps here (ngroups of them). */
    int32_t warps_per_block;
    int32_t ngroups;
    uint64_t groups[64];
} Scheduler;

void scheduler_init(Scheduler *s, int32_t max_warps, int nclasses);
/* Puts an empty scheduler in mask mode for the warps first, first + stride,
 * ..., count of them (at most 64). */
void scheduler_use_mask(Scheduler *s, int32_t first, int32_t stride, int32_t count);
void scheduler_clear(Scheduler *s);
/* Turns on older blocks first for warps numbered block by block,
 * warps_per_block each (call after scheduler_use_mask, if used). */
void scheduler_set_blocks(Scheduler *s, int32_t warps_per_block);

/* The block rank that comes before the policy's rank under older blocks
 * first: 0 when off. */
static inline int64_t scheduler_block_rank(const Scheduler *s, int32_t warp)
{
    return s->warps_per_block > 0 ? (int64_t) (warp / s->warps_per_block) << 40 : 0;
}

/* The bit of warp `warp` in mask mode. */
static inline int32_t scheduler_slot(const Scheduler *s, int32_t warp)
{
    /* A shift for the usual 4 sub-partitions: a division takes tens of
     * cycles, and every issue returns a warp to its mask. */
    return s->stride_shift >= 0 ? (warp - s->first) >> s->stride_shift : (warp - s->first) / s->stride;
}

/* The warp of bit `slot` in mask mode. */
static inline int32_t scheduler_slot_warp(const Scheduler *s, int32_t slot)
{
    return s->slot_warp[slot];
}

void scheduler_enqueue_list(Scheduler *s, int32_t warp);

/* Mask mode: adds the warp of bit `slot` to the ready warps (it must not
 * be there). */
static inline void scheduler_enqueue_slot(Scheduler *s, int32_t slot)
{
    s->mask |= UINT64_C(1) << slot;
    s->nready++;
}

/* Adds warp to the ready warps (it must not be there). */
static inline void scheduler_enqueue(Scheduler *s, int32_t warp)
{
    if (s->by_mask) {
        scheduler_enqueue_slot(s, scheduler_slot(s, warp));
        return;
    }
    scheduler_enqueue_list(s, warp);
}

/* Mask mode: notes the instruction class (pipe_free's index) that the
 * warp of bit `slot` waits for as it joins (slot_cls, class_slots). */
static inline void scheduler_slot_class(Scheduler *s, int32_t slot, int32_t cls)
{
    /* A warp usually joins with the class it had: nothing to move. */
    if (s->slot_cls[slot] != cls) {
        uint64_t bit = UINT64_C(1) << slot;
        s->class_slots[s->slot_cls[slot]] &= ~bit;
        s->class_slots[cls] |= bit;
        s->slot_cls[slot] = cls;
        s->classes |= UINT32_C(1) << cls;
    }
}

/* Mask mode: the earliest cycle a queued warp can issue (its cached ready
 * time, slot_base, or its class's pipe), read only as MAX(result, floor):
 * the scan may stop at the first warp ready by floor.  SIM_CYCLE_NEVER
 * when `scan` is false or no warp is queued.  Class by class
 * (class_slots): a warp of class c is ready no earlier than its pipe,
 * pipe_free[c], so the class's scan stops once it finds a warp ready by
 * then (or by floor), and a class whose pipe is free no earlier than the
 * best found so far is skipped.  A warp or two are read bit by bit: the
 * classes' loop costs more than it spares there. */
G_ALWAYS_INLINE static inline SimCycle scheduler_next_ready(const Scheduler *s, bool scan, SimCycle floor)
{
    const SimCycle *pipe_free = s->pipe_free;
    SimCycle next = SIM_CYCLE_NEVER;
    uint32_t classes = scan ? s->classes : 0;
    if (scan && s->nready <= 2) {
        classes = 0;
        for (uint64_t m = s->mask; m != 0; m &= m - 1) {
            int32_t slot = __builtin_ctzll(m);
            next = MIN(next, MAX(s->slot_base[slot], pipe_free[s->slot_cls[slot]]));
        }
    }
    for (uint32_t cs = classes; cs != 0; cs &= cs - 1) {
        int32_t c = __builtin_ctz(cs);
        SimCycle pipe = pipe_free[c];
        SimCycle bound = MAX(pipe, floor);
        if (bound >= next) {
            continue;
        }
        for (uint64_t m = s->class_slots[c] & s->mask; m != 0; m &= m - 1) {
            /* The bit's copy of the cache (sm.c's cache_ready). */
            SimCycle t = MAX(s->slot_base[__builtin_ctzll(m)], pipe);
            if (t < next) {
                next = t;
                if (next <= bound) {
                    break;
                }
            }
        }
        if (next <= floor) {
            break;
        }
    }
    return next;
}

/* Mask mode: records the warp of bit `slot` as issued last (a closed
 * batch's last decision, sm_batch.c, whose warp stays in the mask). */
static inline void scheduler_set_last_slot(Scheduler *s, int32_t slot)
{
    s->last = scheduler_slot_warp(s, slot);
    s->last_slot = slot;
}

/* Mask mode: removes the warp of bit `slot` and records it as issued
 * last. */
static inline void scheduler_take_slot(Scheduler *s, int32_t slot)
{
    s->mask &= ~(UINT64_C(1) << slot);
    s->nready--;
    scheduler_set_last_slot(s, slot);
}

/* A decision issued: the scheduler is free again at next_free, and
 * last_end is the cycle the last warp's issue ended if its next operation
 * is math, else SIM_CYCLE_NEVER (scheduler_keeps_last). */
static inline void scheduler_set_issued(Scheduler *s, SimCycle next_free, SimCycle last_end)
{
    s->next_free = next_free;
    s->last_end = last_end;
}

/* scheduler_keeps_last for a scheduler whose last warp (in mask mode, or
 * its bit), -1 at start, and last_end are `last` and `last_end`: a closed
 * batch keeps them in registers until its end (sm_batch.c). */
static inline bool scheduler_keeps(SchedPolicy policy, int32_t last, SimCycle last_end, SimCycle now)
{
    return policy == SCHED_GREEDY && last >= 0 && last_end == now;
}

/* Whether a decision at cycle now offers the last warp the slot first:
 * under greedy, when its issue ended at now (it issues back to back) and
 * its next operation is math (sm.c's issue_taken). */
static inline bool scheduler_keeps_last(const Scheduler *s, SchedPolicy policy, SimCycle now)
{
    return scheduler_keeps(policy, s->last, s->last_end, now);
}

/* Mask mode: the policy order of a decision at cycle now is the bits
 * this returns, in ascending order, then the others, in ascending order:
 * the bits above the last warp's, `last_slot` (-1 at start), under LRR;
 * from it on while greedy keeps it (scheduler_keeps, with last_end the
 * cycle its issue ended); all of them under oldest first, which never
 * wraps. */
static inline uint64_t scheduler_first_bits(SchedPolicy policy, int32_t last_slot, SimCycle last_end, SimCycle now)
{
    int32_t split = policy == SCHED_OLDEST ? 0 : last_slot + 1;
    if (scheduler_keeps(policy, last_slot, last_end, now)) {
        split = last_slot;
    }
    return split >= 64 ? 0 : ~UINT64_C(0) << split;
}

/* The ready warps in the order the policy prefers them at cycle now, the
 * oldest block's first under older blocks first; returns the count (out
 * has room for nready). */
int32_t scheduler_order(const Scheduler *s, SchedPolicy policy, SimCycle now, int32_t *out);
/* The rank of a ready warp in the order scheduler_order gives (lower
 * first), without sorting: `last` is s->last when the ready list was read
 * and `pos` the warp's position in it then, `keep` scheduler_keeps_last's
 * answer then.  Ranks are distinct. */
static inline int64_t scheduler_rank(SchedPolicy policy, int32_t last, bool keep, int32_t warp, int32_t pos)
{
    if (policy == SCHED_GTO) {
        /* The last warp first, then by age (arrival order). */
        return warp == last ? -1 : pos;
    }
    if (keep && warp == last) {
        /* Greedy: the last warp, issuing back to back, before the rotation. */
        return -1;
    }
    if (policy == SCHED_OLDEST) {
        /* Warp ids follow launch order: the lowest is the oldest. */
        return warp;
    }
    /* Loose round-robin: ascending ids after the last one, then wrapping. */
    return warp > last ? warp : (int64_t) warp + (1 << 30);
}

/* Removes warp from the ready list and records it as issued last. */
void scheduler_take(Scheduler *s, int32_t warp);
/* scheduler_take for a warp whose position in the ready list may be known:
 * `pos` is where it was when the list was last read; if it is still there
 * no search is needed. */
void scheduler_take_at(Scheduler *s, int32_t warp, int32_t pos);
/* Removes warp from the list without recording an issue. */
void scheduler_remove(Scheduler *s, int32_t warp);
