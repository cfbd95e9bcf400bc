/* arch_features.h: what an architecture can do, derived from its
 * arch.sm_version (compute capability x 10).
 *
 * Behaviour that differs between architectures asks one of these, never
 * sm_version itself, so that each difference has a name and one place.
 * They are derived rather than keys of their own: a new key would change
 * the hash of every architecture file (tests/errors/inputs, campaigns).
 * Sources: the PTX ISA (cp.async from sm_80; cp.async.bulk, mbarrier
 * transaction counts and a suspending try_wait from sm_90), libcudacxx
 * (cuda/barrier polls test_wait before sm_90) and the CUDA occupancy
 * calculator (register allocation). */
#pragma once

#include "models/arch.h"

/* cp.async (LDGSTS): per-thread asynchronous global-to-shared copies. */
static inline bool arch_has_cp_async(const ArchParams *a)
{
    return a->sm_version >= 80;
}

/* Bulk asynchronous copies (cp.async.bulk, the TMA unit). */
static inline bool arch_has_bulk_copy(const ArchParams *a)
{
    return a->sm_version >= 90;
}

/* mbarrier transaction counts (expect_tx, complete_tx). */
static inline bool arch_has_mbar_tx(const ArchParams *a)
{
    return a->sm_version >= 90;
}

/* mbarrier.try_wait suspends the thread until the phase completes (it then
 * resumes barrier.mbarrier_wake cycles later, staggered by
 * mbarrier_wake_per_waiter).  Without it libcudacxx polls test_wait every
 * barrier.mbarrier_poll cycles, and the thread notices at its next poll. */
static inline bool arch_mbar_wait_suspends(const ArchParams *a)
{
    return a->sm_version >= 90;
}

/* Registers are allocated per warp in units of this many (sm_50 on). */
static inline int64_t arch_register_granule(const ArchParams *a)
{
    (void) a;
    return 256;
}
