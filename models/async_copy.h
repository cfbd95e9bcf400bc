/* async_copy.h: memcpy_async as the interpreter issues it (async_copy.c):
 * the choice between cp.async, a bulk copy and a synchronous copy, and the
 * per-warp cp.async commit groups that wait_group waits on. */
#pragma once

#include "models/sm_internal.h"

/* cp.async.mbarrier.arrive (no .noinc) by lanes m: the barrier's pending
 * count grows now, and one arrival per thread comes when that thread's
 * earlier cp.asyncs have completed (all lanes' at the latest of them). */
MBarStatus async_copies_arrive(Sm *sm, Warp *w, LaneMask m, int32_t mbar, SimCycle t, SrcLoc loc);
/* cp.async.commit_group by lanes m.  On sm_80 (cp_async.warp_shared_groups)
 * the batch sequence is shared by the warp: a converged commit closes one
 * group for every lane, a diverged one advances the sequence once per
 * committing thread, so every lane's later wait_group counts them all and
 * waits for more than it needs (libcudacxx-notes.md). */
void async_commit_group(Sm *sm, Warp *w, LaneMask m);
/* cp.async.wait_group prior issued by lanes m at cycle t: the cycle it
 * returns (every group but the prior newest landed, and at least `call`
 * cycles, the wait call's own: cp_async.wait_cycles for consumer_wait's
 * switch over the pending count, async_wait_prior_call's for a count
 * known at compile time). */
SimCycle async_wait_group_at(Warp *w, LaneMask m, int64_t prior, int64_t call, SimCycle t);
/* The call cycles of a wait_group whose count `prior` is a constant:
 * scripts/calib/waitn.cu times a commit and wait_group 0 at 51 cycles a
 * pair and wait_group 1 to 15 at 29, so the count 0 (which drains the
 * warp's copies) has its own key. */
static inline int64_t async_wait_prior_call(const ArchParams *a, int64_t prior)
{
    return prior > 0 ? a->cp_async_wait_prior_n : a->cp_async_wait_prior;
}
/* The wait passed at cycle t: the race detector and the timeline learn
 * which groups it completed. */
void async_wait_group_done(Sm *sm, Warp *w, LaneMask m, int64_t prior, SimCycle t);
StepResult async_exec_memcpy(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost);
