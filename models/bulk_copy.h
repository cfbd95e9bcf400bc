/* bulk_copy.h: the Hopper bulk copy engine (TMA, one-dimensional
 * cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes).
 *
 * Hardware behaviour: one thread issues the copy; after a set-up latency
 * the engine streams the bytes as chunk-sized memory requests at its own
 * rate (bulk.bytes_per_clk), through the same L2/DRAM path as other
 * requests; bytes landing in shared memory use the shared-memory port, and
 * when all have landed the engine performs complete_tx(bytes) on the
 * mbarrier.  Requests from the engine do not count against the cp.async
 * in-flight limit (the engine has its own queue).
 * Numbers: arch/NAME.ini ([bulk], measured by scripts/calib/cpasync.cu). */
#pragma once

#include "models/mem_path.h"
#include "models/smem.h"

/* A run's statistics (sim/out/stats.h, which bulk_copy.c uses). */
typedef struct SimStats SimStats;

typedef struct {
    int64_t issue_latency;
    int64_t chunk_bytes;
    int64_t line_bytes;
    BwServer engine;      /* the engine's own rate */
    uint64_t copies, bytes; /* statistics, the engine's own (bulk_engine_stats_merge) */
} BulkEngine;

void bulk_engine_init(BulkEngine *b, const ArchParams *a);

/* A copy of `bytes` from global address src to shared offset dst issued at
 * cycle t.  Returns the cycle the last byte has landed. */
SimCycle bulk_engine_copy(BulkEngine *b, MemPath *m, Smem *s, SimCycle t, uint64_t src, int64_t dst, int64_t bytes,
                          int64_t wavefront_bytes);

/* End of run: adds the engine's counters to st (bulk_copies, bulk_bytes);
 * st is the caller's. */
void bulk_engine_stats_merge(const BulkEngine *b, SimStats *st);
