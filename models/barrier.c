/* barrier.c: mbarrier phases, the SM's mbarrier unit and the block barrier
 * (see barrier.h).  Semantics from the PTX ISA's mbarrier section and
 * bar.sync.  Numbers: arch/NAME.ini [barrier], measured by
 * scripts/calib/sync.cu and mbarrier.cuh; the callers (sync.c,
 * pipe_exec.c, cl_exec.c) charge them. */
#include "models/barrier.h"

#include "models/arch_features.h"

SimCycle mbar_unit_take(MBarUnit *u, SimCycle t, int64_t interval)
{
    SimCycle at = MAX(t, u->free);
    u->free = at + (SimCycle) interval;
    return at;
}

SimCycle mbar_unit_wake(MBarUnit *u, SimCycle done, int64_t per_waiter)
{
    if (u->wake_done != done) {
        u->wake_done = done;
        u->wake_rank = 0;
    }
    return (SimCycle) (per_waiter * u->wake_rank++);
}

void mbar_init_storage(MBarrier *b)
{
    memset(b, 0, sizeof *b);
    b->waiters = g_array_new(FALSE, FALSE, sizeof(BarrierWaiter));
}

void mbar_clear_storage(MBarrier *b)
{
    if (b->waiters != NULL) {
        g_array_free(b->waiters, TRUE);
    }
    b->waiters = NULL;
}

const char *mbar_status_message(MBarStatus st)
{
    switch (st) {
    case MBAR_OK: return "ok";
    case MBAR_UNINITIALIZED: return "the barrier is used before init() (or after its pipeline was destroyed)";
    case MBAR_OVER_ARRIVAL: return "more arrivals than the barrier's current phase expects";
    case MBAR_BAD_COUNT: return "an mbarrier's expected count must be 1 .. 2^20-1";
    case MBAR_BAD_TX: return "an mbarrier's transaction count must stay within 0 .. 2^20-1 bytes";
    }
    return "barrier error";
}

MBarStatus mbar_init(MBarrier *b, int64_t count, SimCycle now)
{
    if (count < 1 || count > MBAR_MAX_COUNT) {
        return MBAR_BAD_COUNT;
    }
    b->valid = true;
    b->expected = count;
    b->pending = count;
    b->tx = 0;
    b->phase = 0;
    b->phase_start = now;
    b->last_complete = now;
    return MBAR_OK;
}

void mbar_invalidate(MBarrier *b)
{
    b->valid = false;
}

/* Completes the phase if nothing is missing, and wakes whoever waited. */
static void maybe_complete(MBarrier *b, SimCycle now, BarrierWakeFn wake, void *ctx)
{
    if (b->pending != 0 || b->tx != 0) {
        return;
    }
    b->phase++;
    b->pending = b->expected;
    b->phase_start = now;
    b->last_complete = now;
    /* Wake in the order the waiters came, keeping the others. */
    guint kept = 0;
    GArray *ws = b->waiters;
    guint n = ws->len;
    BarrierWaiter *woken = n ? g_newa(BarrierWaiter, n) : NULL;
    guint nwoken = 0;
    for (guint i = 0; i < n; i++) {
        BarrierWaiter w = g_array_index(ws, BarrierWaiter, i);
        bool done = w.by_token ? mbar_token_done(b, w.value) : mbar_parity_done(b, w.value);
        if (done) {
            woken[nwoken++] = w;
        } else {
            g_array_index(ws, BarrierWaiter, kept++) = w;
        }
    }
    g_array_set_size(ws, kept);
    for (guint i = 0; i < nwoken; i++) {
        wake(ctx, &woken[i], now);
    }
}

MBarStatus mbar_arrive(MBarrier *b, int64_t count, SimCycle now, uint64_t *token, BarrierWakeFn wake, void *ctx)
{
    if (!b->valid) {
        return MBAR_UNINITIALIZED;
    }
    if (count < 1 || count > b->pending) {
        return count < 1 ? MBAR_BAD_COUNT : MBAR_OVER_ARRIVAL;
    }
    if (token != NULL) {
        *token = b->phase;
    }
    b->pending -= count;
    maybe_complete(b, now, wake, ctx);
    return MBAR_OK;
}

MBarStatus mbar_arrive_drop(MBarrier *b, int64_t count, SimCycle now, BarrierWakeFn wake, void *ctx)
{
    if (!b->valid) {
        return MBAR_UNINITIALIZED;
    }
    if (count < 1 || count > b->pending || count > b->expected) {
        return MBAR_OVER_ARRIVAL;
    }
    b->expected -= count;
    b->pending -= count;
    maybe_complete(b, now, wake, ctx);
    return MBAR_OK;
}

MBarStatus mbar_pending_add(MBarrier *b, int64_t count)
{
    if (!b->valid) {
        return MBAR_UNINITIALIZED;
    }
    if (b->pending + count > MBAR_MAX_COUNT) {
        return MBAR_BAD_COUNT;
    }
    b->pending += count;
    return MBAR_OK;
}

MBarStatus mbar_expect_tx(MBarrier *b, int64_t bytes, SimCycle now, BarrierWakeFn wake, void *ctx)
{
    if (!b->valid) {
        return MBAR_UNINITIALIZED;
    }
    /* The PTX tx-count has 20 bits; checking here also keeps tx far from
     * int64 overflow whatever a trace asks (fuzz review finding). */
    if (bytes < 0 || bytes > (int64_t) MBAR_MAX_COUNT || b->tx + bytes > (int64_t) MBAR_MAX_COUNT) {
        return MBAR_BAD_TX;
    }
    b->tx += bytes;
    maybe_complete(b, now, wake, ctx);
    return MBAR_OK;
}

MBarStatus mbar_complete_tx(MBarrier *b, int64_t bytes, SimCycle now, BarrierWakeFn wake, void *ctx)
{
    if (!b->valid) {
        return MBAR_UNINITIALIZED;
    }
    if (bytes < 0 || bytes > (int64_t) MBAR_MAX_COUNT || b->tx - bytes < -(int64_t) MBAR_MAX_COUNT) {
        return MBAR_BAD_TX;
    }
    b->tx -= bytes;
    maybe_complete(b, now, wake, ctx);
    return MBAR_OK;
}

void mbar_add_waiter(MBarrier *b, BarrierWaiter w)
{
    g_array_append_val(b->waiters, w);
}

bool mbar_remove_waiter(MBarrier *b, int32_t warp, int32_t split)
{
    for (guint i = 0; i < b->waiters->len; i++) {
        BarrierWaiter *w = &g_array_index(b->waiters, BarrierWaiter, i);
        if (w->warp == warp && w->split == split) {
            g_array_remove_index(b->waiters, i);
            return true;
        }
    }
    return false;
}

void block_barrier_init(BlockBarrier *b, int64_t threads)
{
    memset(b, 0, sizeof *b);
    b->expected = threads;
    b->waiters = g_array_new(FALSE, FALSE, sizeof(BarrierWaiter));
}

void block_barrier_clear(BlockBarrier *b)
{
    if (b->waiters != NULL) {
        g_array_free(b->waiters, TRUE);
    }
    b->waiters = NULL;
}

static bool block_barrier_check(BlockBarrier *b, SimCycle now, BarrierWakeFn wake, void *ctx)
{
    if (b->arrived == 0 || b->arrived < b->expected) {
        return false;
    }
    b->generation++;
    b->arrived = 0;
    guint n = b->waiters->len;
    BarrierWaiter *woken = n ? g_newa(BarrierWaiter, n) : NULL;
    if (n) {
        memcpy(woken, b->waiters->data, n * sizeof *woken);
    }
    g_array_set_size(b->waiters, 0);
    for (guint i = 0; i < n; i++) {
        wake(ctx, &woken[i], now);
    }
    return true;
}

bool block_barrier_arrive(BlockBarrier *b, int64_t count, SimCycle now, BarrierWakeFn wake, void *ctx)
{
    b->arrived += count;
    return block_barrier_check(b, now, wake, ctx);
}

bool block_barrier_exit(BlockBarrier *b, int64_t count, SimCycle now, BarrierWakeFn wake, void *ctx)
{
    b->expected -= count;
    return block_barrier_check(b, now, wake, ctx);
}

SimCycle block_barrier_cost(const ArchParams *a, int64_t warps)
{
    return (SimCycle) (a->syncthreads_base + a->syncthreads_per_warp * warps);
}

SimCycle mbar_resume_at(const ArchParams *a, SimCycle since, SimCycle done)
{
    if (arch_mbar_wait_suspends(a)) {
        return done + (SimCycle) a->mbar_wake;
    }
    SimCycle period = (SimCycle) a->mbar_poll;
    since = MIN(since, done);
    SimCycle polls = (done - since + period - 1) / period;
    return since + polls * period + (SimCycle) a->mbar_test;
}
