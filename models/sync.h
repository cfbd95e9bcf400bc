/* sync.h: synchronisation operations of a warp (sync.c): mbarrier init,
 * arrive, expect_tx and waits, __syncthreads, __syncwarp and the
 * cooperative-groups waits, and the wake-up of threads a barrier releases. */
#pragma once

#include "models/sm_internal.h"

/* When a warp-wide mbarrier arrive (or cp.async.mbarrier.arrive) issued at
 * t reaches its barrier through the SM's mbarrier unit, and when a
 * try_wait does (barrier.mbarrier_*_interval; models/barrier.h). */
SimCycle sync_mbar_op_at(Sm *sm, SimCycle t);
SimCycle sync_mbar_wait_at(Sm *sm, SimCycle t);
/* The BarrierWakeFn of every barrier (ctx: the Sm): the waiting split runs
 * again after the barrier's resume cost. */
void sync_barrier_wake(void *ctx, const BarrierWaiter *waiter, SimCycle now);
/* An async arrival or transaction completion (Action) lands on its barrier. */
void sync_apply_action(Sm *sm, const Action *a, SimCycle now);
/* The cycles a wait_parity call costs before it can return, even when the
 * phase is already complete (libcudacxx reads the clock, then polls).  It is
 * measured to be much longer while the warp has cp.async in flight. */
SimCycle sync_wait_call_cost(const Sm *sm, const Warp *w, LaneMask m, SimCycle t);
/* For the race detector: block `block`'s barrier completed a generation (a
 * __syncthreads, or make_pipeline's group sync). */
void sync_race_block_complete(Sm *sm, int32_t block);
/* A __syncthreads of block `block` completed generation gen at cycle t,
 * by the last arrival or by the exit of the last threads it waited for:
 * the statistic, the timeline's instant and the race detector's order. */
void sync_block_barrier_done(Sm *sm, int32_t block, uint64_t gen, SimCycle t);
/* Lanes of w exited (w->live is updated): threads that exit no longer hold
 * a __syncwarp or a tile's sync back. */
void sync_lanes_exit(Sm *sm, Warp *w, SimCycle now);
/* The operation families (see StepResult in warp.h). */
StepResult sync_exec_mbarrier(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost);
StepResult sync_exec_syncthreads(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost);
StepResult sync_exec_syncwarp(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost);
StepResult sync_exec_cg_wait(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost);
