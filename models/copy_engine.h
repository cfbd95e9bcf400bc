/* copy_engine.h: per-thread asynchronous copies, cp.async (LDGSTS).
 *
 * Hardware behaviour: each thread of a warp instruction copies 4, 8 or 16
 * bytes from global to shared memory.  The LSU coalesces the lanes' source
 * addresses into 128-byte line requests of 32-byte sectors; 4- and 8-byte
 * copies use cp.async.ca (may hit and allocate in L1), 16-byte ones
 * cp.async.cg (bypass L1), as libcudacxx chooses.  The LSU accepts a new
 * instruction every cp_async.issue_cycles (measured alike for 4- and 16-byte
 * copies) after L1's request port takes its lines (mem_path.h:
 * l1.copy_bytes_per_clk, shared with global stores), and at most
 * cp_async.max_inflight line requests are in flight per
 * SM, of which at most cp_async.max_inflight_ca those of .ca copies (a line
 * L1 allocates waits in L1 for its fill): beyond that the issuing warp is
 * throttled until one completes.  scripts/calib/stream.cu measures the
 * second: with every SM streaming from DRAM, 4-byte copies reach 10.6-11.3
 * bytes a cycle an SM where 16-byte ones reach 12.1, and one block alone
 * with 128 lines requested at a time 11.5 where 16-byte copies reach 33
 * (replayed by scripts/calib/replay.py).  Data landing in shared
 * memory takes port cycles like a store (see smem.h).  Completion times are
 * known when a copy issues because every server on the way is FIFO, which
 * is what lets commit groups and mbarrier arrivals be scheduled exactly.
 * Numbers: arch/NAME.ini ([cp_async], measured by scripts/calib/cpasync.cu). */
#pragma once

#include "models/mem_path.h"
#include "models/smem.h"

/* A run's statistics (sim/out/stats.h, which copy_engine.c uses). */
typedef struct SimStats SimStats;

/* Completion cycles of line requests in flight, sorted ascending, and how
 * many may be. */
typedef struct {
    SimCycle *done;        /* cap entries, a ring from head; owned */
    size_t head, len, cap;
    int64_t max;
} InflightRing;

typedef struct {
    int64_t issue_cycles;
    int64_t extra_latency;
    int64_t line_bytes, sector_bytes;
    int line_shift, sector_shift; /* log2 of the sizes, or -1 where not a power of two */
    SimCycle lsu_free;     /* next cycle the LSU accepts an instruction */
    InflightRing all;      /* every line request (cp_async.max_inflight) */
    InflightRing ca;       /* those of 4- and 8-byte copies, which allocate in
                            * L1 (cp_async.max_inflight_ca) */
    /* Statistics, the engine's own (copy_engine_stats_merge): warp
     * instructions issued, line requests, sectors and bytes they moved, and
     * the cycles admission held issuing warps back. */
    uint64_t instructions, lines, sectors, bytes, throttled_cycles;
} CopyEngine;

/* What one warp instruction did. */
typedef struct {
    SimCycle issue;      /* cycle it entered the LSU */
    SimCycle done;       /* cycle its last byte landed in shared memory */
    int64_t lines;
    int64_t bytes;
} CopyResult;

/* Distinct (line, sector-mask) pairs of a warp's byte ranges. */
typedef struct {
    uint64_t line;
    uint32_t sectors;
} LineReq;

/* The line requests of one warp instruction, in the order it makes them
 * (at most 64: a lane's range of at most 16 bytes spans two lines). */
typedef struct {
    int64_t n;
    LineReq reqs[64];
} CopyLines;

void copy_engine_init(CopyEngine *c, const ArchParams *a);
void copy_engine_clear(CopyEngine *c);

/* The line requests a warp instruction makes, for copy_engine_admit (their
 * count) and copy_engine_issue_lines: distinct lines among the lanes'
 * source ranges (src[l] .. src[l] + size - 1 for lanes in mask), each with
 * the sectors it reads; gathered once for both. */
void copy_engine_gather(const CopyEngine *c, const int64_t *src, uint32_t mask, int64_t size, CopyLines *out);

/* copy_engine_gather for a run: lanes of mask, a prefix (lanes 0 .. n-1),
 * copying consecutive ranges src0 + l * size .. + size - 1. */
void copy_engine_gather_run(const CopyEngine *c, int64_t src0, uint32_t mask, int64_t size, CopyLines *out);

/* The earliest cycle >= t at which `lines` more requests of a copy of
 * `size` bytes a lane fit in flight; the wait until then counts as
 * throttled (the caller waits and asks again then). */
SimCycle copy_engine_admit(CopyEngine *c, SimCycle t, int64_t lines, int64_t size);

/* Issues one warp instruction at cycle t (>= the admission cycle): lanes in
 * mask copy `size` bytes from src[l] (global) to dst[l] (shared offset). */
CopyResult copy_engine_issue(CopyEngine *c, MemPath *m, Smem *s, SimCycle t, const int64_t *src,
                             const int64_t *dst, uint32_t mask, int64_t size);

/* copy_engine_issue for the lines copy_engine_gather found for src. */
CopyResult copy_engine_issue_lines(CopyEngine *c, MemPath *m, Smem *s, SimCycle t, const CopyLines *g,
                                   const int64_t *dst, uint32_t mask, int64_t size);

/* copy_engine_issue_lines for a run (as copy_engine_gather_run): lane l
 * of mask writes dst0 + l * size. */
CopyResult copy_engine_issue_run(CopyEngine *c, MemPath *m, Smem *s, SimCycle t, const CopyLines *g, int64_t dst0,
                                 uint32_t mask, int64_t size);

/* End of run: adds the engine's counters to st (cp_async_*,
 * throttled_cycles); st is the caller's. */
void copy_engine_stats_merge(const CopyEngine *c, SimStats *st);
