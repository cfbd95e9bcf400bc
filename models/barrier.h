/* barrier.h: the SM's barrier units.
 *
 * MBarrier models the shared-memory mbarrier object of the PTX ISA
 * (mbarrier section): a phase counter, expected and pending arrival counts
 * and a transaction count.  init(n): pending = expected = n, tx = 0.
 * arrive(c): pending -= c.  expect_tx(b): tx += b.  complete_tx(b) (from a
 * bulk copy as its bytes land): tx -= b.  arrive_drop: expected -= 1 then
 * arrive.  When pending == 0 and tx == 0 the phase completes: the phase
 * number advances and pending = expected.  test_wait.parity(p) is true once
 * the phase with parity p has completed, i.e. (phase & 1) != p.
 * cuda::barrier<thread_scope_block> and pipeline_shared_state are built on
 * it, as libcudacxx builds them.
 *
 * BlockBarrier models bar.sync 0 (__syncthreads): threads arrive (counted
 * per thread, as on sm_70 and later), and when every live thread of the
 * block has arrived they are released together.  Its cost comes from the
 * architecture file (barrier.syncthreads_*).
 *
 * MBarUnit models what every mbarrier of an SM shares (scripts/calib/
 * contend.cu): warp-wide arrivals go through one unit that takes one every
 * barrier.mbarrier_arrive_interval cycles, whichever barrier they name (16
 * and more warps arriving on one word or on one word each both settle at
 * 2.0 cycles a warp-arrive: a unit throughput, not word serialisation); and
 * the warps a completed phase releases from try_wait resume one after
 * another, barrier.mbarrier_wake_per_waiter cycles apart (the last of 31
 * waiters resumes 64 cycles after the first). */
#pragma once

#include "models/arch.h"
#include "sim/core/simtypes.h"

/* The SM's shared mbarrier path: when the unit is next free, and
 * the completion whose waiters are being released (with how many have
 * been). */
typedef struct {
    SimCycle free;
    SimCycle wake_done;
    int64_t wake_rank;
} MBarUnit;

/* A warp-wide mbarrier operation (arrive or try_wait) issued at t: the
 * cycle the unit takes it, after every earlier one, interval cycles apart. */
SimCycle mbar_unit_take(MBarUnit *u, SimCycle t, int64_t interval);
/* The extra delay of the next waiter released by a phase completed at
 * done: per_waiter times the waiters released before it. */
SimCycle mbar_unit_wake(MBarUnit *u, SimCycle done, int64_t per_waiter);

/* Something blocked on a barrier: a warp's split (see warp.h). */
typedef struct {
    int32_t warp;       /* SM-wide warp index */
    int32_t split;      /* split slot in the warp */
    bool by_token;      /* wait for phase > value; else for parity value done */
    uint64_t value;
} BarrierWaiter;

/* Called when a waiter's condition holds; `now` is the completion cycle. */
typedef void (*BarrierWakeFn)(void *ctx, const BarrierWaiter *w, SimCycle now);

typedef enum {
    MBAR_OK,
    MBAR_UNINITIALIZED,   /* used before init (or after the pipeline invalidated it) */
    MBAR_OVER_ARRIVAL,    /* more arrivals than the phase expects */
    MBAR_BAD_COUNT,       /* expected count outside 1 .. 2^20-1 */
    MBAR_BAD_TX           /* transaction bytes outside 0 .. 2^20-1 (one call or in all) */
} MBarStatus;

#define MBAR_MAX_COUNT ((1u << 20) - 1)

typedef struct {
    bool valid;           /* initialised and not invalidated */
    int64_t expected;     /* arrivals that complete a phase */
    int64_t pending;      /* arrivals still missing in the current phase */
    int64_t tx;           /* transaction bytes outstanding */
    uint64_t phase;       /* number of completed phases */
    SimCycle phase_start; /* cycle the current phase began */
    SimCycle last_complete; /* cycle the last phase completed */
    GArray *waiters;      /* BarrierWaiter */
} MBarrier;

void mbar_init_storage(MBarrier *b);
void mbar_clear_storage(MBarrier *b);

/* init(&bar, count): resets the barrier; waiters are kept (none expected). */
MBarStatus mbar_init(MBarrier *b, int64_t count, SimCycle now);
/* Marks the barrier invalid (mbarrier.inval). */
void mbar_invalidate(MBarrier *b);

/* arrive(count).  *token receives the phase the arrival belongs to.  May
 * complete the phase, waking waiters through wake. */
MBarStatus mbar_arrive(MBarrier *b, int64_t count, SimCycle now, uint64_t *token, BarrierWakeFn wake, void *ctx);
/* arrive_and_drop: the expected count shrinks by count, then arrive. */
MBarStatus mbar_arrive_drop(MBarrier *b, int64_t count, SimCycle now, BarrierWakeFn wake, void *ctx);
/* cp.async.mbarrier.arrive without .noinc: pending += count now; the
 * matching arrivals come later through mbar_arrive. */
MBarStatus mbar_pending_add(MBarrier *b, int64_t count);
/* expect_tx(bytes) / complete_tx(bytes). */
MBarStatus mbar_expect_tx(MBarrier *b, int64_t bytes, SimCycle now, BarrierWakeFn wake, void *ctx);
MBarStatus mbar_complete_tx(MBarrier *b, int64_t bytes, SimCycle now, BarrierWakeFn wake, void *ctx);

/* True once the phase with the given parity has completed. */
static inline bool mbar_parity_done(const MBarrier *b, uint64_t parity)
{
    return (b->phase & 1) != (parity & 1);
}

/* True once the phase the token came from has completed. */
static inline bool mbar_token_done(const MBarrier *b, uint64_t token)
{
    return b->phase > token;
}

void mbar_add_waiter(MBarrier *b, BarrierWaiter w);
/* Removes the waiter of (warp, split); returns whether it was there. */
bool mbar_remove_waiter(MBarrier *b, int32_t warp, int32_t split);

const char *mbar_status_message(MBarStatus st);

typedef struct {
    int64_t expected;     /* live threads of the block */
    int64_t arrived;      /* threads arrived in this generation */
    uint64_t generation;  /* completed barriers */
    GArray *waiters;      /* BarrierWaiter */
} BlockBarrier;

void block_barrier_init(BlockBarrier *b, int64_t threads);
void block_barrier_clear(BlockBarrier *b);
/* count threads arrive; returns true when this completes the barrier (the
 * waiters, the arriving ones included once added, are then woken). */
bool block_barrier_arrive(BlockBarrier *b, int64_t count, SimCycle now, BarrierWakeFn wake, void *ctx);
/* count threads exit: they no longer take part. */
bool block_barrier_exit(BlockBarrier *b, int64_t count, SimCycle now, BarrierWakeFn wake, void *ctx);
/* The cycles from the last arrival at bar.sync 0 until the block's threads
 * run again, for a block of `warps` warps: barrier.syncthreads_base +
 * barrier.syncthreads_per_warp per warp (scripts/calib/sync.cu).  The one
 * place __syncthreads' cost is computed: a group sync and an OpenCL
 * work-group function cost the same. */
SimCycle block_barrier_cost(const ArchParams *a, int64_t warps);

/* When a thread that began waiting on an mbarrier phase at `since` runs
 * again, the phase having completed at `done`.  Where try_wait suspends
 * (arch_mbar_wait_suspends: sm_90) the hardware resumes it
 * barrier.mbarrier_wake cycles later (the mbarrier unit staggers several
 * waiters: mbar_unit_wake).  Before sm_90 libcudacxx polls test_wait every
 * barrier.mbarrier_poll cycles from `since`: the thread notices at its first
 * poll at or after `done` and leaves barrier.wait_call cycles into it. */
SimCycle mbar_resume_at(const ArchParams *a, SimCycle since, SimCycle done);
