/* scheduler.c: a sub-partition scheduler's ready list and its policies
 * (see scheduler.h); the SM's arbitration (sm.c) uses them.
 * Numbers: sched.policy and sm.subpartitions from arch/NAME.ini. */
#include "models/scheduler.h"

void scheduler_init(Scheduler *s, int32_t max_warps, int nclasses)
{
    memset(s, 0, sizeof *s);
    s->cap = MAX(max_warps, 1);
    s->ready = g_new0(int32_t, s->cap);
    s->last = -1;
    s->last_slot = -1;
    s->pipe_free = g_new0(SimCycle, (size_t) MAX(nclasses, 0) + 1);
}

void scheduler_use_mask(Scheduler *s, int32_t first, int32_t stride, int32_t count)
{
    g_assert(s->nready == 0 && count <= 64 && stride >= 1 && first >= 0);
    s->by_mask = true;
    s->mask = 0;
    s->first = first;
    s->stride = stride;
    s->stride_shift = (stride & (stride - 1)) == 0 ? __builtin_ctz((unsigned) stride) : -1;
    for (int32_t j = 0; j < 64; j++) {
        s->slot_warp[j] = first + j * stride;
        s->slot_cls[j] = 0;
    }
    /* Every bit starts in class 0 (class_slots' invariant). */
    memset(s->class_slots, 0, sizeof s->class_slots);
    s->class_slots[0] = ~UINT64_C(0);
    s->classes = 1;
}

void scheduler_set_blocks(Scheduler *s, int32_t warps_per_block)
{
    g_assert(warps_per_block >= 1);
    s->warps_per_block = warps_per_block;
    s->ngroups = 0;
    if (!s->by_mask) {
        return;
    }
    /* Warp ids grow with the bits, so each block's bits are a run; bits
     * past the last warp (cap, the SM's warps) hold none. */
    int32_t block = -1;
    for (int32_t j = 0; j < 64 && s->slot_warp[j] < s->cap; j++) {
        int32_t b = s->slot_warp[j] / warps_per_block;
        if (b != block) {
            block = b;
            s->groups[s->ngroups++] = 0;
        }
        s->groups[s->ngroups - 1] |= UINT64_C(1) << j;
    }
}

void scheduler_clear(Scheduler *s)
{
    g_free(s->ready);
    g_free(s->pipe_free);
    memset(s, 0, sizeof *s);
}

void scheduler_enqueue_list(Scheduler *s, int32_t warp)
{
    g_assert(!s->by_mask && s->nready < s->cap);
    s->ready[s->nready++] = warp;
}

/* Removes the ready warp at index i. */
static void remove_at(Scheduler *s, int32_t i)
{
    memmove(&s->ready[i], &s->ready[i + 1], (size_t) (s->nready - i - 1) * sizeof *s->ready);
    s->nready--;
}

/* Moves warp, if among the n of out, to the front, the others keeping
 * their order. */
static void move_to_front(int32_t *out, int32_t n, int32_t warp)
{
    for (int32_t i = 0; i < n; i++) {
        if (out[i] == warp) {
            memmove(&out[1], &out[0], (size_t) i * sizeof *out);
            out[0] = warp;
            return;
        }
    }
}

/* scheduler_order within one block: the policy's order alone. */
static int32_t policy_order(const Scheduler *s, SchedPolicy policy, SimCycle now, int32_t *out)
{
    int32_t n = s->nready;
    int32_t last = s->last;
    bool keep = scheduler_keeps_last(s, policy, now);
    g_assert(!s->by_mask || policy != SCHED_GTO);
    if (s->by_mask) {
        /* Ascending ids, which the LRR sort below rotates. */
        int32_t k = 0;
        for (uint64_t m = s->mask; m != 0; m &= m - 1) {
            out[k++] = scheduler_slot_warp(s, __builtin_ctzll(m));
        }
    } else {
        memcpy(out, s->ready, (size_t) n * sizeof *out);
    }
    if (policy == SCHED_GTO) {
        /* The last warp first, then by age (arrival order). */
        move_to_front(out, n, last);
        return n;
    }
    /* Loose round-robin: ascending ids after the last one, then wrapping;
     * oldest first: ascending ids (last = -1 takes them all unwrapped). */
    if (policy == SCHED_OLDEST) {
        last = -1;
    }
    for (int32_t i = 1; i < n; i++) {
        int32_t w = out[i];
        int32_t j = i;
        int32_t kw = w > last ? w : w + (1 << 30);
        while (j > 0) {
            int32_t p = out[j - 1];
            int32_t kp = p > last ? p : p + (1 << 30);
            if (kp <= kw) {
                break;
            }
            out[j] = p;
            j--;
        }
        out[j] = w;
    }
    if (keep) {
        /* Greedy: the last warp, if ready, ahead of the rotation. */
        move_to_front(out, n, last);
    }
    return n;
}

/* Older blocks first: the policy order out[0..n) made stable by block. */
static void order_by_block(const Scheduler *s, int32_t *out, int32_t n)
{
    for (int32_t i = 1; i < n; i++) {
        int32_t w = out[i];
        int32_t j = i;
        while (j > 0 && scheduler_block_rank(s, out[j - 1]) > scheduler_block_rank(s, w)) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = w;
    }
}

int32_t scheduler_order(const Scheduler *s, SchedPolicy policy, SimCycle now, int32_t *out)
{
    int32_t n = policy_order(s, policy, now, out);
    order_by_block(s, out, n);
    return n;
}

void scheduler_take(Scheduler *s, int32_t warp)
{
    if (s->by_mask) {
        int32_t slot = scheduler_slot(s, warp);
        g_assert(s->mask & (UINT64_C(1) << slot));
        scheduler_take_slot(s, slot);
        return;
    }
    for (int32_t i = 0; i < s->nready; i++) {
        if (s->ready[i] == warp) {
            remove_at(s, i);
            s->last = warp;
            return;
        }
    }
    g_assert_not_reached();
}

void scheduler_take_at(Scheduler *s, int32_t warp, int32_t pos)
{
    if (!s->by_mask && pos >= 0 && pos < s->nready && s->ready[pos] == warp) {
        remove_at(s, pos);
        s->last = warp;
        return;
    }
    scheduler_take(s, warp);
}

void scheduler_remove(Scheduler *s, int32_t warp)
{
    if (s->by_mask) {
        uint64_t bit = UINT64_C(1) << scheduler_slot(s, warp);
        if (s->mask & bit) {
            s->mask &= ~bit;
            s->nready--;
        }
        return;
    }
    for (int32_t i = 0; i < s->nready; i++) {
        if (s->ready[i] == warp) {
            remove_at(s, i);
            return;
        }
    }
}
