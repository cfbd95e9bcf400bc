/* bulk_copy.c: bulk copies (TMA) as a stream of chunk requests (see
 * bulk_copy.h).  Numbers: arch/NAME.ini [bulk] issue_latency,
 * bytes_per_clk and chunk_bytes, measured by scripts/calib/bulk.cu. */
#include "models/bulk_copy.h"

#include "sim/out/stats.h"

#include <math.h>

void bulk_engine_init(BulkEngine *b, const ArchParams *a)
{
    memset(b, 0, sizeof *b);
    b->issue_latency = a->bulk_issue_latency;
    b->chunk_bytes = a->bulk_chunk_bytes;
    b->line_bytes = a->line_bytes;
    b->engine.per_byte_fp = (uint64_t) MAX(1.0, ceil(MEM_FP / a->bulk_bytes_per_clk));
}

SimCycle bulk_engine_copy(BulkEngine *b, MemPath *m, Smem *s, SimCycle t, uint64_t src, int64_t dst, int64_t bytes,
                          int64_t wavefront_bytes)
{
    (void) dst;
    SimCycle start = t + (SimCycle) b->issue_latency;
    SimCycle done = start;
    b->copies++;
    b->bytes += (uint64_t) bytes;
    for (int64_t off = 0; off < bytes;) {
        /* A chunk never crosses a line boundary of its first byte's line
         * group: requests are made line by line within the chunk. */
        int64_t chunk = MIN(b->chunk_bytes, bytes - off);
        uint64_t at_fp = MAX((uint64_t) start * MEM_FP, b->engine.free_fp);
        uint64_t occupy = (uint64_t) chunk * b->engine.per_byte_fp;
        b->engine.free_fp = at_fp + occupy;
        b->engine.busy_fp += occupy;
        SimCycle req = (at_fp + MEM_FP - 1) / MEM_FP;
        SimCycle arrive = req;
        for (int64_t x = 0; x < chunk;) {
            uint64_t a = src + (uint64_t) (off + x);
            int64_t in_line = b->line_bytes - (int64_t) (a % (uint64_t) b->line_bytes);
            int64_t n = MIN(in_line, chunk - x);
            /* (MAX evaluates its arguments twice: call once.) */
            SimCycle line_done = mem_path_read(m, req, a, n, false);
            arrive = MAX(arrive, line_done);
            x += n;
        }
        int64_t waves = (chunk + wavefront_bytes - 1) / wavefront_bytes;
        SimCycle filled = smem_fill(s, arrive, waves);
        done = MAX(done, filled);
        off += chunk;
    }
    return done;
}

void bulk_engine_stats_merge(const BulkEngine *b, SimStats *st)
{
    st->bulk_copies += b->copies;
    st->bulk_bytes += b->bytes;
}
