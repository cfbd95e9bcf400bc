/* mem_path.h: the memory path behind the SM: L1 data cache, the SM-to-L2
 * link, L2 and DRAM.
 *
 * Hardware behaviour: a request for a 128-byte line (some of its 32-byte
 * sectors) first looks in L1 when it is allowed to allocate there (ld.ca,
 * cp.async.ca); otherwise, or on a miss, it crosses the SM's link to L2
 * (bandwidth l2.bytes_per_clk_sm), is served by L2 (whole-chip bandwidth
 * l2.bytes_per_clk shared with the other mem.active_sms - 1 busy SMs) and,
 * when the line is not resident, by DRAM (dram.bytes_per_clk, shared the
 * same way).  Each of the three is a first-come first-served server: a
 * request waits until the server is free, then occupies it for bytes /
 * bandwidth cycles, which is how queueing appears when requests exceed
 * bandwidth.  Latencies are the unloaded round trips measured by pointer
 * chasing.  A request for a line already on its way from DRAM completes
 * with it (miss merging).
 *
 * L1's request port: global stores leave the SM at l1.store_bytes_per_clk
 * (a 32-byte sector a cycle on the H100 and H200) and cp.async line
 * requests enter it at l1.copy_bytes_per_clk (a 128-byte line a cycle),
 * one queue for both of l1.port_queue_cycles, beyond which the storing or
 * copying warp waits (mem_path_port_accept).  Measured by
 * scripts/calib/stq.cu: one block alone stores at most 30.6 bytes a
 * cycle, a warp instruction of 512 bytes every 14.6-16.1 cycles from 4
 * warps on, and alternating a cp.async and a store takes 15.7-20.6
 * cycles a pair.
 *
 * Sharing: the other SMs run the same program at their own phases, so on
 * average each uses what this SM uses.  A shared server's rate is the
 * chip's divided among this SM and (mem.active_sms - 1) x u others, u the
 * fraction of its fair share (chip / mem.active_sms) this SM's requests
 * took in the last 1024 cycles, and never above the fair share in the long
 * run.  A streaming SM gets the fair share; a loop whose copies come
 * in bursts between compute or waits gets more while it bursts.  Measured
 * by scripts/calib/burst.cu (replayed by scripts/calib/replay.py): every SM
 * copying a burst, waiting for it and spinning; the fair share alone made
 * those batches 21% too slow on the H200 (MAPE), sharing 3.7%; with 2 and 4
 * blocks on every SM 17% and 4.5%.
 *
 * Loaded latency: below the peak rate a DRAM read still queues among the
 * whole chip's requests, dram.queue_cycles x rho / (1 - rho) at utilisation
 * rho of the SM's share (written-back bytes counted at dram.write_cost, see
 * below), and behind the write-back of stores, dram.write_queue_cycles
 * times the share of the SM's DRAM bandwidth its write-back takes (a lone
 * SM's write-back hardly delays reads: its share is the whole chip's); both
 * from the traffic of the last complete window of 1024 cycles.  Measured by scripts/calib/loaded.cu: with
 * every SM streaming, reads alone wait 100-150 cycles more at 70% of the peak
 * rate, and with stores latency doubles at half of it (replayed as a trace
 * by scripts/calib/replay.py).
 *
 * Latency spread: a lone line's DRAM latency is not one number.  On the
 * H100 scripts/calib/latdist.cu times 4096 lines after a flush: 10% under
 * 540 cycles, half under 700, 10% over 780 and 1% over 1141 (the H200's
 * the same within 30).  A read's latency is dram.latency plus a draw from
 * that distribution less its mean, so the mean stays dram.latency; reads
 * of one aligned dram.spread_bytes share the draw (a hash of the address:
 * deterministic).  Why it matters: a stage lands when its last line does,
 * so a stage of many lines waits for the slow tail, and more stages hide
 * it where one latency would have hidden it all at fewer.  The draw is
 * shared because latdist.cu's warps, each copying 4 lines, wait their
 * single line's latency plus 69 cycles at the 10th percentile and 101 at
 * the median, where 4 independent draws would make it 172 and more;
 * 2048 bytes was chosen among 512-4096 on the replays of loaded.cu,
 * stream.cu and tiles.cu and the campaign's training part.
 *
 * Queueing spread: under load a read's wait is not one number either.  A
 * busy DRAM's queues are many (channels, banks), so a read may find a short
 * one or a long one.  scripts/calib/loadlat.cu (H200) times a probe warp's
 * 512-byte copy on every SM while other warps of its block stream past the
 * peak rate: with 24 and 31 streaming warps its mean latency is 2,373 and
 * 2,893 cycles (679 unloaded), the 10th percentile 1,308 and 1,335, the 99th
 * 6,149 and 7,586.  Divided by the mean delay, (quantile - the quantile
 * unloaded) / (mean - the mean unloaded) is about the same at both loads:
 * 0.49, 0.70, 0.89, 1.18, 1.62, 2.81 at the 10th ... 99th percentile
 * (dram.queue_p10 ... queue_p99).  A DRAM read's delay beyond its latency
 * (its wait for the link's, L2's and DRAM's servers plus the loaded
 * latency's queueing term above) is scaled by a draw from that
 * distribution, normalised to mean 1, shared by the reads of one aligned
 * dram.queue_spread_bytes (another hash than the latency spread's).  How far
 * lines issued together share it: loadlat.cu's `together` mode has G warps
 * of a block copy 512 bytes each at once while others stream; the share of
 * the latencies' variance between rounds is 0.5-0.8 at G = 4 and 0.2-0.4 at
 * 16, so different warps' lines hardly share a delay (a draw a 2 KiB left
 * those rounds 17% too short, a draw a 512 bytes 9%), while one warp's group
 * of up to 32 KiB (`loadlat burst`) waits as if its lines shared more (a
 * draw a 512 bytes makes it 22% too slow, 2 KiB 17%); by address, 1 KiB
 * serves both best.  With no other warp of the SM streaming, the GPU's
 * lines keep closer still (a round's span 7% over its warps' mean latency,
 * 15% with 16 warps streaming), where the model scales a burst's own wait
 * at the servers too: a 16 KiB k-tile of four warps waits longer than the
 * GPU's (docs/validation.md, twenty-sixth round).
 * The wait behind write-back is added unscaled: a write drain holds every
 * read issued during it alike, so the lines of a burst wait it together
 * (loaded.cu measures only its mean).  The servers' occupancy is untouched,
 * so the bandwidth stays what it was; only when each read lands spreads.
 * Why it matters: a busy GPU's stage lands with its slowest lines, and a
 * loop with few stages waits for them where more stages hide them, so the
 * stage count at which the loop reaches its floor moves up.  Measured on
 * the H200 and taken for the H100 and the A100.
 *
 * Capacity: the SM's blocks get an equal share of L2, l2.bytes /
 * mem.active_sms (every busy SM runs the same kernel on its own data), kept
 * as a set-associative tag array: l2.assoc ways a set (Accel-Sim's public
 * L2 models; NVIDIA does not publish it), as many sets as the share's lines
 * fill (rounded down).  A line's set comes from a hash of its address, as
 * real L2s hash addresses over slices and sets: runs of LINE_SET_CHUNK
 * consecutive lines go to consecutive sets from a hashed base, so a stream
 * spreads evenly and power-of-two strides do not pile into a few sets.  A
 * full set evicts its oldest line (FIFO within the set), so a footprint
 * near the share loses some lines to conflicts before it is full.  The
 * program's global arrays (its footprint) either fit that share or not,
 * which decides what a warm launch finds and writes back:
 *  - warm data (mem.source = l2): what the previous identical launch left in
 *    L2 is there only if the footprint fits; a launch streaming more than
 *    its share evicts the previous launch's lines before it reaches them, so
 *    it runs as if cold;
 *  - write-back, cold after a flush (mem.flushed, as the campaign's cold
 *    runs): a line's dirty sectors reach DRAM when L2 evicts the line, or
 *    earlier, when more than l2.dirty_fraction of the share's lines are
 *    dirty: then the oldest dirty line is written back and stays, clean.
 *    So what a launch writes last stays in L2.  Measured by
 *    scripts/calib/wback.cu (replayed by scripts/calib/replay.py): with every
 *    SM storing what it streams, launches writing 0.3 to 21 times the L2
 *    read 7.1 down to 5.7 bytes a cycle an SM; at most a tenth of the lines
 *    dirty replays them within 4.2% from half the L2 on.  Warm (the steady
 *    state of identical launches) over the share, and back to back without
 *    a flush (mem.flushed = false) whatever the footprint, each launch
 *    evicts as many dirty lines of the one before as it leaves, so its
 *    stores take DRAM bandwidth as they are written (loaded.cu's stores,
 *    launched back to back, replay within 7.9%); warm within the share
 *    they stay dirty in L2.
 * Both were measured by scripts/calib/stream.cu: cp.async streaming from
 * every SM reaches dram.bytes_per_clk (12.1 bytes a cycle an SM on the H100)
 * and, warm, l2.bytes_per_clk (28-29); a kernel that also writes what it
 * reads gets half, which only write-back explains.
 *
 * Read/write turnaround: a written-back byte holds the DRAM server
 * dram.write_cost times as long as a read byte, because the DRAM bus turns
 * around between reads and writes.  scripts/calib/rwmix.cu streams from every
 * SM for ten times the L2 and stores a half or a third of what it reads:
 * reads and writes together reach 11.0-11.4 bytes a cycle an SM on the H100
 * where reads alone reach 12.1-12.4, a write costing 1.18 reads (1.28 on the
 * H200).  Numbers: arch/NAME.ini. */
#pragma once

#include "models/arch.h"

/* A run's statistics (sim/out/stats.h, which mem_path.c uses). */
typedef struct SimStats SimStats;

#define MEM_FP 65536  /* fixed-point fraction of a cycle used by the servers */

/* Sets in one chunk of a LineSet's storage, and the aligned runs of
 * consecutive lines that map to consecutive sets: each run a stream spans
 * touches at most two chunks. */
#define LINE_SET_CHUNK 16

/* One way of a set.  The tag's top LINE_DIRTY_BITS bits are the line's
 * dirty sectors (bit i: sector i written since the line came in), the rest
 * line + 1: a line number never reaches 2^56, and a separate field would
 * make every way 24 bytes instead of 16. */
typedef struct {
    uint64_t tag;        /* line + 1 | dirty sectors << LINE_DIRTY_SHIFT; 0 = empty */
    SimCycle ready;      /* cycle the line's data is available */
} LineWay;

#define LINE_DIRTY_BITS 8
#define LINE_DIRTY_SHIFT (64 - LINE_DIRTY_BITS)
#define LINE_TAG_MASK ((UINT64_C(1) << LINE_DIRTY_SHIFT) - 1)

/* Most ways a LineSet's set may have. */
#define LINE_SET_MAX_ASSOC 255

/* The lines resident in the SM's share of L2: nsets sets of assoc ways.
 * Storage is a directory of chunks of LINE_SET_CHUNK sets, allocated when
 * a line first goes into one of their sets with room for 2 lines a set,
 * doubled (up to assoc) when one of its sets needs more: since addresses
 * spread evenly over the sets, a footprint of n lines takes about 16 x n
 * bytes, not 16 x assoc bytes a touched set, and a full array 16 bytes a
 * way.  Invariant: within a set the lines fill ways 0, 1, ... in insertion
 * order (oldest first, empty ways last); every line sits in the set its
 * address maps to, at most once; len counts them, chunks_used the
 * allocated chunks and ways_allocated their ways. */
typedef struct {
    LineWay **chunks;    /* nchunks entries, NULL until touched; chunk c has
                          * LINE_SET_CHUNK x chunk_ways[c] ways; all owned */
    uint8_t *chunk_ways; /* nchunks entries: ways a set allocated, owned */
    size_t nchunks;
    size_t chunks_used;  /* chunks allocated */
    size_t ways_allocated; /* ways allocated in all chunks */
    size_t nsets;        /* at least 1 */
    size_t assoc;        /* ways a set, 1..LINE_SET_MAX_ASSOC */
    size_t len;          /* lines in the array */
} LineSet;

/* A first-come first-served bandwidth server.  One the SM shares with the
 * other busy SMs (sharers > 1: L2 and DRAM) serves at chip_rate / (1 +
 * (sharers - 1) x u), u the fraction of the fair share its requests took
 * in the last window, and never above the fair share in the long run (see
 * mem_path.c). */
typedef struct {
    uint64_t free_fp;    /* fixed-point cycle the server is next free */
    uint64_t per_byte_fp;/* fixed-point cycles per byte (at least 1) */
    uint64_t busy_fp;    /* total occupied time */
    double chip_rate;    /* bytes a cycle of the whole chip (sharers > 1) */
    int64_t sharers;     /* SMs sharing chip_rate; 0 or 1: a fixed rate */
    uint64_t fair_per_byte_fp; /* per_byte_fp at the fair share, chip_rate / sharers */
    double fair_ratio;   /* fair_per_byte_fp / per_byte_fp */
    bool started;        /* a request came */
    uint64_t first_fp;   /* when the first came */
    uint64_t then_fp;    /* when the rate last followed the utilisation */
    uint64_t next_fp;    /* when it next does */
    double used;         /* fixed-point time all requests take at the fair share */
    double used_then;    /* fixed-point time the requests since then_fp take at the fair share */
} BwServer;

typedef struct {
    int64_t l1_latency, l2_latency, dram_latency;
    int64_t line_bytes, sector_bytes;
    int64_t dirty_unit;  /* bytes a bit of a line's dirty mask stands for */
    bool source_l2;      /* warm and the footprint fits: every read hits L2 */
    bool write_back;     /* stores are written back to DRAM as they are
                          * written: warm over the share, or cold unflushed */
    bool write_on_evict; /* ... when their dirty lines are evicted: cold,
                          * flushed and over the share */
    BwServer link, l2, dram;
    /* L1's request port (mem_path_port_accept): off when port_on is false;
     * fixed-point cycles a stored and a copied byte take it, the cycle it
     * is next free and the cycles of requests it holds. */
    bool port_on;
    uint64_t port_store_fp, port_copy_fp, port_free_fp, port_queue_fp;
    double write_cost;          /* dram.write_cost */
    /* Loaded latency: DRAM bytes read and written back in the window from
     * win_start, and the rates (bytes a cycle) of the last complete one. */
    SimCycle win_start;
    uint64_t win_read, win_written;
    double read_rate, write_rate;
    double dram_share;   /* the SM's share of dram.bytes_per_clk */
    double queue_cycles, write_queue;
    /* The latency spread: offsets (cycles, mean 0) at the quantiles 0,
     * 0.10, ..., 0.99, 1 (mem_path.c), interpolated between them; spread_shift = log2 of
     * dram.spread_bytes; no spread when spread_on is false. */
    bool spread_on;
    int spread_shift;
    double spread_offset[8];
    /* The queueing delay's spread (dram.queue_p10 ... queue_p99): the
     * quantile function of the factor a read's queueing delay is scaled by,
     * mean 1, at spread_at's quantiles; no spread when queue_spread_on is
     * false; queue_shift = log2 of dram.queue_spread_bytes. */
    bool queue_spread_on;
    int queue_shift;
    double queue_factor[8];
    LineSet l2_lines;
    /* Dirty lines of l2_lines in the order they became dirty (a ring of
     * dirty_slots from dirty_head; entries whose line has been evicted or
     * cleaned since are skipped), how many lines are dirty, and how many
     * may be (l2.dirty_fraction of the share) before the oldest is
     * written back. */
    uint64_t *dirty_order;
    size_t dirty_head, dirty_len, dirty_slots;
    size_t dirty_lines, max_dirty;
    uint64_t *l1_tags;   /* direct mapped: line + 1 */
    SimCycle *l1_ready;
    int64_t l1_nlines;
    /* Statistics, the path's own (mem_path_stats_merge). */
    uint64_t l1_hits, l2_hits, l2_misses, merged;
    uint64_t bytes_l1, bytes_l2, bytes_dram, bytes_written, bytes_written_back;
    uint64_t requests;
} MemPath;

/* footprint: bytes of the program's global arrays that the SM's blocks
 * use (compared with its share of L2, see above). */
void mem_path_init(MemPath *m, const ArchParams *a, int64_t footprint);
void mem_path_clear(MemPath *m);

/* A read of `bytes` bytes of the line holding address `addr`, leaving the
 * SM at cycle t.  cache_l1 allows an L1 hit and allocation.  Returns the
 * cycle the data arrives at the SM. */
SimCycle mem_path_read(MemPath *m, SimCycle t, uint64_t addr, int64_t bytes, bool cache_l1);

/* A write of `bytes` bytes to the line holding addr (st.global): it uses
 * link and L2 bandwidth and leaves the line resident in L2 (and DRAM
 * bandwidth when the footprint does not fit, see above).  Returns the cycle
 * it is accepted by L2. */
SimCycle mem_path_write(MemPath *m, SimCycle t, uint64_t addr, int64_t bytes);

/* L1's request port: a warp's global store of `bytes` bytes (whole
 * sectors, store true) or cp.async line requests of `bytes` bytes (whole
 * lines, store false) offered at cycle t.  The port takes
 * l1.store_bytes_per_clk of stores and l1.copy_bytes_per_clk of copies a
 * cycle, first come first served, and holds l1.port_queue_cycles of them;
 * returns the cycle it takes this one: t, or later when the queue is full
 * (the warp waits until then).  Without a port, or for copies when
 * copy_bytes_per_clk is 0: t. */
SimCycle mem_path_port_accept(MemPath *m, SimCycle t, int64_t bytes, bool store);

/* Cycles each server was busy (for the achieved-bandwidth statistics). */
double mem_path_busy_cycles(const BwServer *s);

/* End of run: adds the path's counters and its link's and DRAM's busy
 * cycles to st; st is the caller's. */
void mem_path_stats_merge(const MemPath *m, SimStats *st);

/* Line sets, exposed for tests.  line_set_init makes an empty array of
 * max_lines lines in sets of assoc ways: max_lines / assoc sets (at least
 * one; assoc is cut to max_lines and to LINE_SET_MAX_ASSOC when larger, so
 * the array never holds more than max_lines unless max_lines is 0, which
 * keeps one line).  It allocates the directory only; line_set_clear frees
 * everything. */
void line_set_init(LineSet *s, size_t max_lines, size_t assoc);
void line_set_clear(LineSet *s);
/* The set a line maps to (a hash of its address, see above). */
size_t line_set_index(const LineSet *s, uint64_t line);
/* Finds a line; returns true and its ready cycle. */
bool line_set_find(const LineSet *s, uint64_t line, SimCycle *ready);
/* Inserts (or updates) a line, adding `dirty` (a mask of sectors, below
 * 2^LINE_DIRTY_BITS) to its dirty sectors; a full set evicts its oldest
 * line.  An update keeps the line's age: eviction goes by first insertion.
 * Returns the evicted line's dirty sectors: 0 when nothing was evicted or
 * the evicted line was clean. */
unsigned line_set_put(LineSet *s, uint64_t line, SimCycle ready, unsigned dirty);
/* A line's dirty sectors (0: clean or absent). */
unsigned line_set_dirty(const LineSet *s, uint64_t line);
/* Marks a line clean (written back); returns the dirty sectors it had. */
unsigned line_set_clean(LineSet *s, uint64_t line);
/* The invariant above: NULL when it holds, else a static description of
 * the first breach.  O(sets x ways): for assertions and tests. */
const char *line_set_check(const LineSet *s);
