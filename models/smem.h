/* smem.h: shared memory banks and the port that serves them.
 *
 * Hardware behaviour: shared memory has `banks` banks of `bank_bytes`
 * (32 x 4 bytes on Ampere and Hopper).  A warp access is served in
 * wavefronts: 4-byte accesses take the whole warp per wavefront, 8-byte
 * ones half a warp, 16-byte ones a quarter (one wavefront moves at most
 * banks x bank_bytes = 128 bytes).  Within a wavefront, distinct words that
 * fall in the same bank serialise; the same word is broadcast.  The number
 * of wavefronts is the access's cost in port cycles; more than the minimum
 * is a bank conflict (replay).  Writes that async copies make (cp.async
 * fills, bulk copies) take a port of their own, one wavefront a cycle, with
 * smem.fill_port (scripts/calib/mixq.cu: eight warps land 98 bytes a cycle
 * of copies while loading 98 bytes a cycle, more than one 128-byte port
 * moves); without it they take the warps' port, and copies and loads
 * compete.
 * Each warp reaches the port through a path of its own: its shared-memory
 * instructions follow one another at least max(warp_interval,
 * warp_wave_cycles x wavefronts + 1) cycles apart, whatever else it issues
 * between them, and a load's data comes warp_wave_cycles a wavefront after
 * its first.  From two warps a sub-partition on, the port (one wavefront a
 * cycle) binds instead.  (memcpy_async's synchronous fallback and OpenCL
 * pipe packets use the port without the path: smem_access.)
 * Sources: CUDA C++ Programming Guide, "Shared Memory" (compute capability
 * 8.x/9.0 sections); Jia et al., "Dissecting the NVIDIA Volta GPU
 * architecture via microbenchmarking" (2018) for the wavefront model;
 * scripts/calib/ldsq.cu and lat_mem.cu for the warp's path. */
#pragma once

#include "sim/core/simtypes.h"

/* A run's statistics (sim/out/stats.h, which smem.c uses). */
typedef struct SimStats SimStats;

#define SMEM_CALENDAR 65536  /* cycles of future port reservations kept */

typedef struct {
    int64_t banks;
    int64_t bank_bytes;
    int64_t wavefront_bytes;
    /* Port calendar: slot[c % SMEM_CALENDAR] == c + 1 when cycle c is taken. */
    uint64_t *slot;
    /* The fills' own port's calendar (smem_init_fill_port); NULL: fills
     * take the warps' port. */
    uint64_t *fill_slot;
    /* The warps' own paths (smem_init_warps; none before). */
    int64_t latency;           /* a conflict-free load's data, cycles after it starts */
    int64_t warp_interval;     /* least cycles between a warp's accesses */
    int64_t warp_wave_cycles;  /* a warp's path's cycles a wavefront */
    SimCycle *warp_next;       /* by warp: the earliest start of its next access */
    /* Statistics, the unit's own (smem_stats_merge). */
    uint64_t wavefronts;       /* port cycles used by warp accesses */
    uint64_t ideal_wavefronts; /* what they would cost without conflicts */
    uint64_t conflict_accesses;/* warp accesses with at least one replay */
    uint64_t accesses;
    uint64_t fill_wavefronts;  /* port cycles used by async-copy writes */
    uint64_t max_degree;       /* worst conflict degree seen */
    uint64_t degree_hist[33];  /* accesses by conflict degree (wavefronts per ideal) */
} Smem;

void smem_init(Smem *s, int64_t banks, int64_t bank_bytes, int64_t wavefront_bytes);
void smem_clear(Smem *s);

/* Gives the unit nwarps warps' paths: a load's latency (smem.latency) and
 * the path's smem.warp_interval and smem.warp_wave_cycles (0 and 0: no
 * path, the port alone times an access). */
void smem_init_warps(Smem *s, int32_t nwarps, int64_t latency, int64_t interval, int64_t wave_cycles);

/* The earliest cycle warp `warp`'s next access may start. */
static inline SimCycle smem_warp_next(const Smem *s, int32_t warp)
{
    return s->warp_next[warp];
}

/* Wavefronts needed by one warp access: lane addresses addr[l] for lanes in
 * mask, each moving `size` bytes (1..16).  *ideal receives the conflict-free
 * count. */
int64_t smem_wavefronts(const Smem *s, const int64_t *addr, uint32_t mask, int64_t size, int64_t *ideal);

/* smem_wavefronts for a run: the lanes of mask, a prefix (lanes 0 .. n-1),
 * at consecutive addresses addr0 + l * size.  Returns false, *waves and
 * *ideal untouched, where only the lane-by-lane count answers (then call
 * smem_wavefronts with the addresses). */
bool smem_run_wavefronts(const Smem *s, int64_t addr0, uint32_t mask, int64_t size, int64_t *waves,
                         int64_t *ideal);

/* Gives async-copy fills a port of their own (smem.fill_port), or keeps
 * them on the warps' port (own == false, the default). */
void smem_init_fill_port(Smem *s, bool own);

/* Reserves n port cycles at or after `at`; returns the cycle after the
 * last one reserved (when the access is done). */
SimCycle smem_reserve(Smem *s, SimCycle at, int64_t n);

/* An async copy's fill of `waves` wavefronts landing at `at`: reserves
 * them on the fills' port (smem_init_fill_port) and counts them.  Returns
 * the cycle the last is written. */
SimCycle smem_fill(Smem *s, SimCycle at, int64_t waves);

/* A warp access: computes its wavefronts, reserves the port, records the
 * statistics.  Returns the cycle the port finishes it; *replays receives
 * the wavefronts beyond the ideal. */
SimCycle smem_access(Smem *s, SimCycle at, const int64_t *addr, uint32_t mask, int64_t size, int64_t *replays);

/* smem_access for a run (as smem_run_wavefronts): the lanes of mask, a
 * prefix, at consecutive addresses addr[l] == addr[0] + l * size. */
SimCycle smem_access_run(Smem *s, SimCycle at, const int64_t *addr, uint32_t mask, int64_t size, int64_t *replays);

/* Warp `warp`'s access through its path (smem_init_warps): starts at `at`
 * or when the path takes it (smem_warp_next), whichever is later, and
 * reserves the port.  `run`: the lanes are a run (smem_access_run).
 * *start receives the cycle it started, *replays its wavefronts beyond the
 * ideal.  Returns the cycle a load's data is ready. */
SimCycle smem_warp_access(Smem *s, int32_t warp, SimCycle at, const int64_t *addr, uint32_t mask, int64_t size,
                          bool run, SimCycle *start, int64_t *replays);

/* End of run: adds the unit's counters to st (smem_*); st is the caller's. */
void smem_stats_merge(const Smem *s, SimStats *st);
