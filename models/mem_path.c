/* mem_path.c: L1, L2 and DRAM timing with bandwidth servers, and L2's
 * set-associative tag array (what they model and where the numbers come
 * from: mem_path.h). */
#include "models/mem_path.h"

#include "sim/out/stats.h"

#include <math.h>

/* ------------------------------------------------------------ line sets */

/* A 64-bit finaliser (MurmurHash3's fmix64): every input bit moves every
 * output bit, so strides of any power of two spread over all sets. */
static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    return x;
}

void line_set_init(LineSet *s, size_t max_lines, size_t assoc)
{
    memset(s, 0, sizeof *s);
    max_lines = MAX(max_lines, (size_t) 1);
    s->assoc = CLAMP(assoc, (size_t) 1, MIN(max_lines, (size_t) LINE_SET_MAX_ASSOC));
    s->nsets = max_lines / s->assoc;
    s->nchunks = (s->nsets + LINE_SET_CHUNK - 1) / LINE_SET_CHUNK;
    s->chunks = g_new0(LineWay *, s->nchunks);
    s->chunk_ways = g_new0(uint8_t, s->nchunks);
}

void line_set_clear(LineSet *s)
{
    for (size_t c = 0; c < s->nchunks; c++) {
        g_free(s->chunks[c]);
    }
    g_free(s->chunks);
    g_free(s->chunk_ways);
    memset(s, 0, sizeof *s);
}

/* A run of LINE_SET_CHUNK lines starts at a hashed set and takes the sets
 * after it: a run touches at most two chunks, and since the base is any
 * set, a stride within runs still reaches every set across runs. */
size_t line_set_index(const LineSet *s, uint64_t line)
{
    uint64_t base = mix64(line / LINE_SET_CHUNK) % s->nsets;
    uint64_t off = line % LINE_SET_CHUNK;
    if (off < s->nsets) {
        /* base + off < 2 nsets: the remainder without a division. */
        return (size_t) (base + off < s->nsets ? base + off : base + off - s->nsets);
    }
    return (size_t) ((base + off) % s->nsets);
}

/* The ways allocated to a set, *nways of them, or NULL when its chunk is
 * not allocated yet. */
static inline LineWay *set_ways(const LineSet *s, size_t set, size_t *nways)
{
    size_t c = set / LINE_SET_CHUNK;
    *nways = s->chunk_ways[c];
    return s->chunks[c] == NULL ? NULL : s->chunks[c] + (set % LINE_SET_CHUNK) * *nways;
}

/* Gives chunk c's sets `nways` ways each (allocating it when it has none),
 * keeping their lines in order. */
static void chunk_resize(LineSet *s, size_t c, size_t nways)
{
    size_t old = s->chunk_ways[c];
    LineWay *w = g_new0(LineWay, (size_t) LINE_SET_CHUNK * nways);
    if (s->chunks[c] == NULL) {
        s->chunks_used++;
    } else {
        for (size_t i = 0; i < LINE_SET_CHUNK; i++) {
            memcpy(&w[i * nways], &s->chunks[c][i * old], old * sizeof *w);
        }
        g_free(s->chunks[c]);
    }
    s->chunks[c] = w;
    s->chunk_ways[c] = (uint8_t) nways;
    s->ways_allocated += (size_t) LINE_SET_CHUNK * (nways - old);
}

/* line_set_find of a line in set `set` (line_set_index). */
static bool find_in(const LineSet *s, size_t set, uint64_t line, SimCycle *ready)
{
    size_t nways;
    const LineWay *w = set_ways(s, set, &nways);
    if (w == NULL) {
        return false;
    }
    /* Lines fill the ways in order: the first empty way ends the search. */
    for (size_t k = 0; k < nways && w[k].tag != 0; k++) {
        if ((w[k].tag & LINE_TAG_MASK) == line + 1) {
            *ready = w[k].ready;
            return true;
        }
    }
    return false;
}

bool line_set_find(const LineSet *s, uint64_t line, SimCycle *ready)
{
    return find_in(s, line_set_index(s, line), line, ready);
}

/* The way holding line, or NULL; set is its set (line_set_index). */
static LineWay *find_way_in(const LineSet *s, size_t set, uint64_t line)
{
    size_t nways;
    LineWay *w = set_ways(s, set, &nways);
    for (size_t k = 0; w != NULL && k < nways && w[k].tag != 0; k++) {
        if ((w[k].tag & LINE_TAG_MASK) == line + 1) {
            return &w[k];
        }
    }
    return NULL;
}

/* The way holding line, or NULL. */
static LineWay *find_way(const LineSet *s, uint64_t line)
{
    return find_way_in(s, line_set_index(s, line), line);
}

unsigned line_set_dirty(const LineSet *s, uint64_t line)
{
    const LineWay *w = find_way(s, line);
    return w == NULL ? 0 : (unsigned) (w->tag >> LINE_DIRTY_SHIFT);
}

unsigned line_set_clean(LineSet *s, uint64_t line)
{
    LineWay *w = find_way(s, line);
    if (w == NULL) {
        return 0;
    }
    unsigned dirty = (unsigned) (w->tag >> LINE_DIRTY_SHIFT);
    w->tag &= LINE_TAG_MASK;
    return dirty;
}

/* line_set_put of a line in set `set`; *was (where not NULL) receives the
 * line's dirty bits before the put, line_set_dirty's answer (0 for a line
 * not in the set), found by the same search. */
static unsigned put_in(LineSet *s, size_t set, uint64_t line, SimCycle ready, unsigned dirty, unsigned *was)
{
    if (was != NULL) {
        *was = 0;
    }
    size_t nways;
    LineWay *w = set_ways(s, set, &nways);
    if (w == NULL) {
        chunk_resize(s, set / LINE_SET_CHUNK, MIN(s->assoc, (size_t) 2));
        w = set_ways(s, set, &nways);
    }
    uint64_t dirty_bits = (uint64_t) dirty << LINE_DIRTY_SHIFT;
    size_t k = 0;
    for (; k < nways && w[k].tag != 0; k++) {
        if ((w[k].tag & LINE_TAG_MASK) == line + 1) {
            if (was != NULL) {
                *was = (unsigned) (w[k].tag >> LINE_DIRTY_SHIFT);
            }
            w[k].ready = ready;  /* an update keeps the line's place */
            w[k].tag |= dirty_bits;
            return 0;
        }
    }
    unsigned evicted = 0;
    if (k == s->assoc) {
        /* Full: the oldest line, in way 0, goes; the rest move up one so
         * that the ways stay in insertion order. */
        evicted = (unsigned) (w[0].tag >> LINE_DIRTY_SHIFT);
        memmove(&w[0], &w[1], (s->assoc - 1) * sizeof w[0]);
        k = s->assoc - 1;
    } else {
        if (k == nways) {
            /* The set has room its chunk has not allocated yet. */
            chunk_resize(s, set / LINE_SET_CHUNK, MIN(s->assoc, 2 * nways));
            w = set_ways(s, set, &nways);
        }
        s->len++;
    }
    w[k].tag = (line + 1) | dirty_bits;
    w[k].ready = ready;
    return evicted;
}

unsigned line_set_put(LineSet *s, uint64_t line, SimCycle ready, unsigned dirty)
{
    return put_in(s, line_set_index(s, line), line, ready, dirty, NULL);
}

const char *line_set_check(const LineSet *s)
{
    size_t used = 0;
    size_t allocated = 0;
    size_t lines = 0;
    for (size_t c = 0; c < s->nchunks; c++) {
        if ((s->chunks[c] == NULL) != (s->chunk_ways[c] == 0) || s->chunk_ways[c] > s->assoc) {
            return "a chunk's ways are wrong";
        }
        used += s->chunks[c] != NULL;
        allocated += (size_t) LINE_SET_CHUNK * s->chunk_ways[c];
    }
    for (size_t set = 0; set < s->nsets; set++) {
        size_t nways;
        const LineWay *w = set_ways(s, set, &nways);
        if (w == NULL) {
            continue;
        }
        for (size_t k = 0; k < nways; k++) {
            if (w[k].tag == 0) {
                if (k + 1 < nways && w[k + 1].tag != 0) {
                    return "an empty way comes before a line";
                }
                continue;
            }
            if (line_set_index(s, (w[k].tag & LINE_TAG_MASK) - 1) != set) {
                return "a line is not in its set";
            }
            for (size_t j = 0; j < k; j++) {
                if ((w[j].tag & LINE_TAG_MASK) == (w[k].tag & LINE_TAG_MASK)) {
                    return "a line is twice in its set";
                }
            }
            lines++;
        }
    }
    if (used != s->chunks_used || allocated != s->ways_allocated || lines != s->len) {
        return "the counts disagree";
    }
    return NULL;
}

/* ------------------------------------------------------------- servers */

static uint64_t per_byte_of(double bytes_per_clk)
{
    return (uint64_t) MAX(1.0, ceil(MEM_FP / bytes_per_clk));
}

/* A server of chip_rate bytes a cycle shared by `sharers` busy SMs (1: the
 * SM's own). */
static void server_init(BwServer *s, double chip_rate, int64_t sharers)
{
    memset(s, 0, sizeof s[0]);
    s->chip_rate = chip_rate;
    s->sharers = MAX(sharers, (int64_t) 1);
    s->per_byte_fp = per_byte_of(chip_rate / (double) s->sharers);
    s->fair_per_byte_fp = s->per_byte_fp;
    s->fair_ratio = 1.0;
}

/* Traffic is measured over windows of this many cycles (the shared
 * servers' utilisation and the loaded latency's rates): long enough to
 * average a stage's burst of copies, short enough to follow a phase. */
#define TRAFFIC_WINDOW 1024

/* A shared server's rate for a request arriving at at_fp.  The other SMs
 * run the same program, each at its own phase, so on average each uses
 * what this SM used in the last window: the fraction u of the fair share
 * (chip_rate / sharers) its requests would have kept busy.  While this SM
 * sends, the chip's bandwidth is divided among it and (sharers - 1) x u
 * others.  An SM that streams (u = 1) gets the fair share, as before; one
 * whose copies come in bursts between compute or waits gets more while it
 * bursts, up to the whole chip's when the others are idle (the SM's link
 * and its copies in flight then limit it).  But never more than the fair
 * share in the long run: an SM whose requests since its first would have
 * kept the fair share busy all along counts as streaming (without this, a
 * burst longer than a window followed by an idle window would get the
 * whole chip at every other burst).  The rate follows every TRAFFIC_WINDOW
 * cycles; the first window runs at the fair share.  Measured by
 * scripts/calib/burst.cu (replayed by scripts/calib/replay.py): on the
 * H200 a 64 KiB burst every 10,000 cycles from every SM takes 1,828 cycles
 * where alone it takes 1,453, not the 3,800 of the fair share; with no gap
 * the SMs reach the fair share on average although each waits out its
 * burst's latency between bursts. */
static void server_share(BwServer *s, uint64_t at_fp)
{
    const uint64_t win = (uint64_t) TRAFFIC_WINDOW * MEM_FP;
    if (s->sharers <= 1) {
        return;
    }
    if (!s->started) {
        s->started = true;
        s->first_fp = at_fp;
        s->next_fp = at_fp + win;
        s->then_fp = at_fp;
        return;
    }
    if (at_fp < s->next_fp) {
        return;
    }
    double u = at_fp < s->next_fp + win ? MIN(1.0, s->used_then / (double) (at_fp - s->then_fp)) : 0.0;
    if (s->used >= (double) (at_fp - s->first_fp)) {
        u = 1.0;
    }
    s->per_byte_fp = per_byte_of(s->chip_rate / (1.0 + (double) (s->sharers - 1) * u));
    s->fair_ratio = (double) s->fair_per_byte_fp / (double) s->per_byte_fp;
    s->next_fp = at_fp + win;
    s->then_fp = at_fp;
    s->used_then = 0.0;
}

/* Serves a request arriving at fixed-point time at_fp that holds the
 * server `occupy` fixed-point cycles; returns the fixed-point time service
 * starts.  Times stay in fixed point between servers so that rounding
 * happens once, at the end of a request. */
static uint64_t server_occupy(BwServer *s, uint64_t at_fp, uint64_t occupy)
{
    uint64_t start = MAX(at_fp, s->free_fp);
    s->free_fp = start + occupy;
    s->busy_fp += occupy;
    if (s->sharers > 1) {
        double at_fair = (double) occupy * s->fair_ratio;
        s->used += at_fair;
        s->used_then += at_fair;
    }
    return start;
}

/* Serves `bytes` at the server's rate (see server_occupy). */
static uint64_t server_take(BwServer *s, uint64_t at_fp, int64_t bytes)
{
    server_share(s, at_fp);
    return server_occupy(s, at_fp, (uint64_t) bytes * s->per_byte_fp);
}

static SimCycle fp_ceil(uint64_t fp)
{
    return (fp + MEM_FP - 1) / MEM_FP;
}

double mem_path_busy_cycles(const BwServer *s)
{
    return (double) s->busy_fp / MEM_FP;
}

void mem_path_stats_merge(const MemPath *m, SimStats *st)
{
    st->l1_hits += m->l1_hits;
    st->l2_hits += m->l2_hits;
    st->l2_misses += m->l2_misses;
    st->merged += m->merged;
    st->bytes_l2 += m->bytes_l2;
    st->bytes_dram += m->bytes_dram;
    st->bytes_written += m->bytes_written;
    st->bytes_written_back += m->bytes_written_back;
    st->link_busy += mem_path_busy_cycles(&m->link);
    st->dram_busy += mem_path_busy_cycles(&m->dram);
}

/* ------------------------------------------------------ loaded latency */

/* Moves the traffic window up to cycle t (requests arrive nearly in time
 * order; one from before the window's start counts in it). */
static void window_to(MemPath *m, SimCycle t)
{
    if (t < m->win_start + TRAFFIC_WINDOW) {
        return;
    }
    bool adjacent = t < m->win_start + 2 * TRAFFIC_WINDOW;
    m->read_rate = adjacent ? (double) m->win_read / TRAFFIC_WINDOW : 0.0;
    m->write_rate = adjacent ? (double) m->win_written / TRAFFIC_WINDOW : 0.0;
    m->win_start = t - (t - m->win_start) % TRAFFIC_WINDOW;
    m->win_read = 0;
    m->win_written = 0;
}

/* What a DRAM read waits beyond dram.latency at the recent traffic, in two
 * parts: queueing below the peak rate (queue_latency: rho / (1 - rho) at
 * the utilisation rho of the SM's share, a written-back byte counting
 * dram.write_cost read bytes, capped at rho = 0.95, beyond which the
 * bandwidth server's own queue takes over) and the write-back traffic it
 * queues behind (write_latency).  Measured by scripts/calib/loaded.cu
 * (replayed by scripts/calib/replay.py); loaded_latency is their sum. */
static double queue_latency(const MemPath *m)
{
    double rho = m->dram_share > 0 ? (m->read_rate + m->write_rate * m->write_cost) / m->dram_share : 0.0;
    rho = MIN(rho, 0.95);
    return m->queue_cycles * rho / (1.0 - rho);
}

static double write_latency(const MemPath *m)
{
    return m->write_queue * m->write_rate / m->dram_share;
}

static SimCycle loaded_latency(const MemPath *m)
{
    return (SimCycle) llround(queue_latency(m) + write_latency(m));
}

/* ------------------------------------------------------- latency spread */

/* The quantiles at which spread_offset and queue_factor are given: 0 and 1
 * take the nearest measured one (p10 below, p99 above: latdist.cu's and
 * loadlat.cu's extremes are single samples). */
static const double spread_at[8] = { 0.0, 0.10, 0.25, 0.50, 0.75, 0.90, 0.99, 1.0 };

/* The piecewise-linear quantile function of six quantiles q (at 0.10 ...
 * 0.99) at spread_at's eight points into v; returns its mean. */
static double quantile_table(const double *q, double *v)
{
    v[0] = q[0];
    for (int k = 0; k < ARCH_DRAM_QUANTILES; k++) {
        v[k + 1] = q[k];
    }
    v[7] = v[6];
    double mean = 0.0;
    for (int k = 0; k < 7; k++) {
        mean += (spread_at[k + 1] - spread_at[k]) * (v[k] + v[k + 1]) / 2.0;
    }
    return mean;
}

/* spread_offset from the architecture's quantiles: the quantile function
 * less its mean. */
static void spread_init(MemPath *m, const ArchParams *a)
{
    double q[ARCH_DRAM_QUANTILES], v[8];
    for (int k = 0; k < ARCH_DRAM_QUANTILES; k++) {
        q[k] = (double) a->dram_quantile[k];
    }
    double mean = quantile_table(q, v);
    m->spread_on = v[7] > v[0];
    m->spread_shift = a->dram_spread_bytes > 0 ? __builtin_ctzll((unsigned long long) a->dram_spread_bytes) : 0;
    for (int k = 0; k < 8; k++) {
        m->spread_offset[k] = v[k] - mean;
    }
}

/* queue_factor from the architecture's quantiles (dram.queue_p10 ...):
 * the quantile function divided by its mean, so that the spread moves no
 * read's expected delay. */
static void queue_spread_init(MemPath *m, const ArchParams *a)
{
    double v[8];
    double mean = quantile_table(a->dram_queue_quantile, v);
    m->queue_spread_on = v[7] > v[0];
    m->queue_shift = a->dram_queue_spread_bytes > 0 ? __builtin_ctzll((unsigned long long) a->dram_queue_spread_bytes) : 0;
    for (int k = 0; k < 8; k++) {
        m->queue_factor[k] = m->queue_spread_on ? v[k] / mean : 1.0;
    }
}

/* The piecewise-linear quantile function v (given at spread_at) at a
 * uniform number hashed from key. */
static double quantile_draw(const double *v, uint64_t key)
{
    /* 53 bits of the hash: a double in [0, 1).  The set index hashes the
     * same 2 KiB blocks with mix64 too, but takes its remainder modulo the
     * sets, which the top bits used here do not follow. */
    double u = (double) (mix64(key) >> 11) * 0x1.0p-53;
    int k = 0;
    while (k < 6 && u >= spread_at[k + 1]) {
        k++;
    }
    double t = (u - spread_at[k]) / (spread_at[k + 1] - spread_at[k]);
    return v[k] + t * (v[k + 1] - v[k]);
}

/* This read's draw from the spread (cycles, may be negative): the
 * quantile function at a uniform number hashed from its aligned block. */
static int64_t spread_of(const MemPath *m, uint64_t addr)
{
    return (int64_t) llround(quantile_draw(m->spread_offset, addr >> m->spread_shift));
}

/* The factor this read's queueing delay is scaled by: a draw, independent
 * of spread_of's (another key), shared by the lines of one aligned
 * dram.queue_spread_bytes. */
static double queue_factor_of(const MemPath *m, uint64_t addr)
{
    return quantile_draw(m->queue_factor, (addr >> m->queue_shift) ^ UINT64_C(0x9e3779b97f4a7c15));
}

/* ------------------------------------------------------------ write-back */

/* The dirty-sector mask of a write of `bytes` bytes from addr, within its
 * line: one bit a dirty_unit (a sector, or a wider unit when a line has
 * more than LINE_DIRTY_BITS sectors). */
static unsigned dirty_mask(const MemPath *m, uint64_t addr, int64_t bytes)
{
    int64_t off = (int64_t) (addr % (uint64_t) m->line_bytes);
    int64_t last = MIN(off + MAX(bytes, (int64_t) 1), m->line_bytes) - 1;
    int64_t first_bit = off / m->dirty_unit;
    int64_t last_bit = last / m->dirty_unit;
    return (unsigned) (((UINT64_C(1) << (last_bit + 1)) - 1) & ~((UINT64_C(1) << first_bit) - 1));
}

/* Bytes an evicted line's dirty mask writes back. */
static uint64_t dirty_bytes(const MemPath *m, unsigned mask)
{
    return (uint64_t) MIN((int64_t) __builtin_popcount(mask) * m->dirty_unit, m->line_bytes);
}

/* `bytes` written back to DRAM from fixed-point time at_fp (a request at
 * cycle t caused it): they hold the DRAM server write_cost times as long
 * as read bytes (the bus turns around) and count in the loaded latency's
 * window. */
static void dram_write_back(MemPath *m, uint64_t at_fp, SimCycle t, uint64_t bytes)
{
    server_share(&m->dram, at_fp);
    server_occupy(&m->dram, at_fp, bytes * (uint64_t) llround((double) m->dram.per_byte_fp * m->write_cost));
    window_to(m, t);
    m->win_written += bytes;
    m->bytes_written_back += bytes;
}

/* Appends line to the dirty order, first dropping entries at its front
 * that are no longer dirty (evicted or cleaned), which keeps the ring about
 * as long as the dirty lines. */
static void dirty_push(MemPath *m, uint64_t line)
{
    while (m->dirty_len > 0 && line_set_dirty(&m->l2_lines, m->dirty_order[m->dirty_head]) == 0) {
        m->dirty_head = (m->dirty_head + 1) % m->dirty_slots;
        m->dirty_len--;
    }
    if (m->dirty_len == m->dirty_slots) {
        size_t slots = MAX(m->dirty_slots * 2, (size_t) 64);
        uint64_t *n = g_new(uint64_t, slots);
        for (size_t k = 0; k < m->dirty_len; k++) {
            n[k] = m->dirty_order[(m->dirty_head + k) % m->dirty_slots];
        }
        g_free(m->dirty_order);
        m->dirty_order = n;
        m->dirty_head = 0;
        m->dirty_slots = slots;
    }
    m->dirty_order[(m->dirty_head + m->dirty_len) % m->dirty_slots] = line;
    m->dirty_len++;
    m->dirty_lines++;
}

/* Writes back the oldest dirty lines while more than max_dirty are dirty. */
static void dirty_trim(MemPath *m, uint64_t at_fp, SimCycle t)
{
    while (m->dirty_lines > m->max_dirty && m->dirty_len > 0) {
        uint64_t line = m->dirty_order[m->dirty_head];
        m->dirty_head = (m->dirty_head + 1) % m->dirty_slots;
        m->dirty_len--;
        unsigned mask = line_set_clean(&m->l2_lines, line);
        if (mask != 0) {
            m->dirty_lines--;
            dram_write_back(m, at_fp, t, dirty_bytes(m, mask));
        }
    }
}

/* A dirty line evicted from L2 (victim: its dirty sectors) is written back. */
static void evicted(MemPath *m, unsigned victim, uint64_t at_fp, SimCycle t)
{
    if (victim != 0) {
        m->dirty_lines--;
        dram_write_back(m, at_fp, t, dirty_bytes(m, victim));
    }
}

/* ----------------------------------------------------------------- path */

void mem_path_init(MemPath *m, const ArchParams *a, int64_t footprint)
{
    int64_t share = a->l2_bytes / MAX(a->active_sms, 1);
    bool fits = footprint <= share;
    memset(m, 0, sizeof *m);
    m->l1_latency = a->l1_latency;
    m->l2_latency = a->l2_latency;
    m->dram_latency = a->dram_latency;
    m->line_bytes = a->line_bytes;
    m->sector_bytes = a->sector_bytes;
    m->source_l2 = a->source == MEM_SOURCE_L2 && fits;
    bool cold = a->source == MEM_SOURCE_DRAM;
    m->write_on_evict = cold && a->flushed;
    m->write_back = cold ? !a->flushed : !fits;
    m->dirty_unit = MAX(a->sector_bytes, (a->line_bytes + LINE_DIRTY_BITS - 1) / LINE_DIRTY_BITS);
    server_init(&m->link, a->l2_bytes_per_clk_sm, 1);
    m->port_on = a->l1_store_bytes_per_clk > 0;
    if (m->port_on) {
        m->port_store_fp = per_byte_of(a->l1_store_bytes_per_clk);
        m->port_copy_fp = a->l1_copy_bytes_per_clk > 0 ? per_byte_of(a->l1_copy_bytes_per_clk) : 0;
        m->port_queue_fp = (uint64_t) a->l1_port_queue_cycles * MEM_FP;
    }
    server_init(&m->l2, a->l2_bytes_per_clk, a->active_sms);
    server_init(&m->dram, a->dram_bytes_per_clk, a->active_sms);
    m->dram_share = a->dram_bytes_per_clk / (double) a->active_sms;
    m->write_cost = a->dram_write_cost;
    m->queue_cycles = a->dram_queue_cycles;
    m->write_queue = a->dram_write_queue;
    spread_init(m, a);
    queue_spread_init(m, a);
    line_set_init(&m->l2_lines, (size_t) (share / a->line_bytes), (size_t) a->l2_assoc);
    m->max_dirty = (size_t) ((double) (share / a->line_bytes) * a->l2_dirty_fraction);
    m->l1_nlines = a->l1_lines;
    m->l1_tags = g_new0(uint64_t, m->l1_nlines);
    m->l1_ready = g_new0(SimCycle, m->l1_nlines);
}

void mem_path_clear(MemPath *m)
{
    line_set_clear(&m->l2_lines);
    g_free(m->dirty_order);
    m->dirty_order = NULL;
    g_free(m->l1_tags);
    g_free(m->l1_ready);
    m->l1_tags = NULL;
    m->l1_ready = NULL;
}

SimCycle mem_path_read(MemPath *m, SimCycle t, uint64_t addr, int64_t bytes, bool cache_l1)
{
    uint64_t line = addr / (uint64_t) m->line_bytes;
    size_t l1_slot = (size_t) (line % (uint64_t) m->l1_nlines);
    m->requests++;
    if (cache_l1 && m->l1_tags[l1_slot] == line + 1) {
        m->l1_hits++;
        m->bytes_l1 += (uint64_t) bytes;
        return MAX(t + (SimCycle) m->l1_latency, m->l1_ready[l1_slot]);
    }
    uint64_t start = server_take(&m->link, (uint64_t) t * MEM_FP, bytes);
    start = server_take(&m->l2, start, bytes);
    SimCycle ready;
    SimCycle fill = 0;
    /* One set lookup for the search and a miss's fill. */
    size_t set = m->source_l2 ? 0 : line_set_index(&m->l2_lines, line);
    if (m->source_l2 || find_in(&m->l2_lines, set, line, &fill)) {
        ready = fp_ceil(start) + (SimCycle) m->l2_latency;
        if (!m->source_l2 && fill > ready) {
            m->merged++;
            ready = fill;
        }
        m->l2_hits++;
        m->bytes_l2 += (uint64_t) bytes;
    } else {
        /* DRAM fills the whole line into L2. */
        uint64_t dstart = server_take(&m->dram, start, m->line_bytes);
        window_to(m, t);
        m->win_read += (uint64_t) m->line_bytes;
        int64_t latency = m->dram_latency;
        if (m->spread_on) {
            /* At least a cycle, whatever a user's quantiles. */
            latency = MAX(latency + spread_of(m, addr), (int64_t) 1);
        }
        if (m->queue_spread_on) {
            /* Its queueing delay beyond the latency, scaled by its draw
             * (mem_path.h: queueing spread); the servers keep the occupancy
             * they gave, and the wait behind write-back is not scaled. */
            double wait = (double) (dstart - (uint64_t) t * MEM_FP) / MEM_FP + queue_latency(m);
            ready = t + (SimCycle) latency + (SimCycle) llround(wait * queue_factor_of(m, addr) + write_latency(m));
        } else {
            ready = fp_ceil(dstart) + (SimCycle) latency + loaded_latency(m);
        }
        evicted(m, put_in(&m->l2_lines, set, line, ready, 0, NULL), start, t);
        m->l2_misses++;
        m->bytes_dram += (uint64_t) m->line_bytes;
    }
    if (cache_l1) {
        m->l1_tags[l1_slot] = line + 1;
        m->l1_ready[l1_slot] = ready;
    }
    return ready;
}

SimCycle mem_path_port_accept(MemPath *m, SimCycle t, int64_t bytes, bool store)
{
    uint64_t per_byte = store ? m->port_store_fp : m->port_copy_fp;
    if (!m->port_on || per_byte == 0) {
        return t;
    }
    /* The port works through its queue in order; a request finding it
     * full waits until what is ahead of it fits. */
    uint64_t at_fp = (uint64_t) t * MEM_FP;
    if (m->port_free_fp > at_fp + m->port_queue_fp) {
        at_fp = m->port_free_fp - m->port_queue_fp;
    }
    SimCycle accept = fp_ceil(at_fp);
    m->port_free_fp = MAX(m->port_free_fp, (uint64_t) accept * MEM_FP) + (uint64_t) bytes * per_byte;
    return accept;
}

SimCycle mem_path_write(MemPath *m, SimCycle t, uint64_t addr, int64_t bytes)
{
    uint64_t line = addr / (uint64_t) m->line_bytes;
    uint64_t start = server_take(&m->link, (uint64_t) t * MEM_FP, bytes);
    start = server_take(&m->l2, start, bytes);
    if (m->write_on_evict) {
        /* One search for the line's dirty bits before the put and the put
         * (line_set_dirty, then line_set_put). */
        unsigned was;
        size_t set = line_set_index(&m->l2_lines, line);
        evicted(m, put_in(&m->l2_lines, set, line, fp_ceil(start), dirty_mask(m, addr, bytes), &was), start, t);
        if (was == 0) {
            dirty_push(m, line);
            dirty_trim(m, start, t);
        }
    } else if (!m->source_l2) {
        line_set_put(&m->l2_lines, line, fp_ceil(start), 0);
    }
    if (m->write_back) {
        /* The steady state of launches that follow each other: each
         * evicts as many dirty lines of the one before as it leaves
         * behind, so its stores cost DRAM time as they are written. */
        dram_write_back(m, start, t, (uint64_t) bytes);
    }
    /* A write invalidates the line in L1 (L1 is write-through). */
    size_t l1_slot = (size_t) (line % (uint64_t) m->l1_nlines);
    if (m->l1_tags[l1_slot] == line + 1) {
        m->l1_tags[l1_slot] = 0;
    }
    m->bytes_written += (uint64_t) bytes;
    return fp_ceil(start);
}
