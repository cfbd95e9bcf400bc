/* mem_path.c: L1, L2 and DRAM timing with bandwidth servers (what they model
 * and where the numbers come from: mem_path.h). */
#include "models/mem_path.h"

#include "sim/out/stats.h"

#include <math.h>

/* ------------------------------------------------------------ line sets */

/* The bucket a run's key probes first (a 64-bit finaliser's mix). */
static inline size_t home_bucket(uint64_t run_key, size_t cap)
{
    uint64_t x = run_key;
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    return (size_t) x & (cap - 1);
}

static inline uint64_t run_key_of(uint64_t line)
{
    return line / LINE_SET_RUN + 1;
}

void line_set_init(LineSet *s, size_t max_lines)
{
    memset(s, 0, sizeof *s);
    s->fifo_cap = MAX(max_lines, (size_t) 1);
    s->cap = 16;
    s->buckets = g_new0(LineBucket, s->cap);
    s->fifo_alloc = MIN(s->fifo_cap, (size_t) 64);
    s->fifo = g_new0(uint64_t, s->fifo_alloc);
}

void line_set_clear(LineSet *s)
{
    g_free(s->buckets);
    g_free(s->fifo);
    memset(s, 0, sizeof *s);
}

/* The bucket holding run_key, or the empty bucket that ends its probe. */
static inline size_t find_bucket(const LineSet *s, uint64_t run_key)
{
    size_t mask = s->cap - 1;
    size_t i = home_bucket(run_key, s->cap);
    while (s->buckets[i].run_key != 0 && s->buckets[i].run_key != run_key) {
        i = (i + 1) & mask;
    }
    return i;
}

bool line_set_find(const LineSet *s, uint64_t line, SimCycle *ready)
{
    const LineBucket *b = &s->buckets[find_bucket(s, run_key_of(line))];
    unsigned bit = 1u << (line % LINE_SET_RUN);
    if (b->run_key == 0 || !(b->present & bit)) {
        return false;
    }
    *ready = b->ready[line % LINE_SET_RUN];
    return true;
}

static void grow(LineSet *s)
{
    LineBucket *old = s->buckets;
    size_t old_cap = s->cap;
    s->cap *= 2;
    s->buckets = g_new0(LineBucket, s->cap);
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].run_key != 0) {
            s->buckets[find_bucket(s, old[i].run_key)] = old[i];
        }
    }
    g_free(old);
}

/* Takes line out; its bucket goes when it holds no other line (linear
 * probing's deletion by backward shift, which keeps every key reachable). */
static void erase(LineSet *s, uint64_t line)
{
    size_t mask = s->cap - 1;
    size_t i = find_bucket(s, run_key_of(line));
    LineBucket *b = &s->buckets[i];
    unsigned bit = 1u << (line % LINE_SET_RUN);
    if (b->run_key == 0 || !(b->present & bit)) {
        return;
    }
    s->len--;
    b->present &= ~bit;
    if (b->present != 0) {
        return;
    }
    s->used--;
    size_t hole = i;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (s->buckets[j].run_key == 0) {
            break;
        }
        size_t home = home_bucket(s->buckets[j].run_key, s->cap);
        /* Move j into the hole unless its home lies cyclically in (hole, j]. */
        bool in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!in_range) {
            s->buckets[hole] = s->buckets[j];
            hole = j;
        }
    }
    memset(&s->buckets[hole], 0, sizeof s->buckets[hole]);
}

void line_set_put(LineSet *s, uint64_t line, SimCycle ready)
{
    uint64_t run_key = run_key_of(line);
    unsigned slot = (unsigned) (line % LINE_SET_RUN);
    size_t i = find_bucket(s, run_key);
    if (s->buckets[i].run_key == run_key && (s->buckets[i].present & (1u << slot))) {
        s->buckets[i].ready[slot] = ready;
        return;
    }
    if (s->fifo_len == s->fifo_cap) {
        /* Full: evict the oldest line.  Its bucket may go, or shift the
         * one found, so the search is done again. */
        uint64_t old = s->fifo[s->fifo_head];
        s->fifo_head = s->fifo_head + 1 == s->fifo_alloc ? 0 : s->fifo_head + 1;
        s->fifo_len--;
        erase(s, old);
        i = find_bucket(s, run_key);
    }
    if (s->buckets[i].run_key == 0) {
        if ((s->used + 1) * 2 > s->cap) {
            grow(s);
            i = find_bucket(s, run_key);
        }
        s->buckets[i].run_key = run_key;
        s->used++;
    }
    s->buckets[i].present |= 1u << slot;
    s->buckets[i].ready[slot] = ready;
    s->len++;
    if (s->fifo_len == s->fifo_alloc) {
        /* The ring grows on demand, up to the capacity, unrolled in order. */
        size_t nalloc = MIN(s->fifo_cap, s->fifo_alloc * 2);
        uint64_t *nf = g_new0(uint64_t, nalloc);
        for (size_t k = 0; k < s->fifo_len; k++) {
            nf[k] = s->fifo[(s->fifo_head + k) % s->fifo_alloc];
        }
        g_free(s->fifo);
        s->fifo = nf;
        s->fifo_head = 0;
        s->fifo_alloc = nalloc;
    }
    size_t tail = s->fifo_head + s->fifo_len;
    s->fifo[tail >= s->fifo_alloc ? tail - s->fifo_alloc : tail] = line;
    s->fifo_len++;
}

const char *line_set_check(const LineSet *s)
{
    size_t used = 0;
    size_t lines = 0;
    for (size_t i = 0; i < s->cap; i++) {
        const LineBucket *b = &s->buckets[i];
        if (b->run_key == 0) {
            if (b->present != 0) {
                return "an empty bucket has lines";
            }
            continue;
        }
        if (b->present == 0) {
            return "a bucket in use has no line";
        }
        if (find_bucket(s, b->run_key) != i) {
            return "a bucket is not where its probe finds it";
        }
        used++;
        lines += (size_t) __builtin_popcount(b->present);
    }
    if (used != s->used || lines != s->len || s->len != s->fifo_len || s->used * 2 > s->cap) {
        return "the counts disagree";
    }
    for (size_t k = 0; k < s->fifo_len; k++) {
        uint64_t line = s->fifo[(s->fifo_head + k) % s->fifo_alloc];
        SimCycle ready;
        if (!line_set_find(s, line, &ready)) {
            return "a line of the ring is not in the table";
        }
    }
    return NULL;
}

/* ------------------------------------------------------------- servers */

static void server_init(BwServer *s, double bytes_per_clk)
{
    s->free_fp = 0;
    double per = MEM_FP / bytes_per_clk;
    s->per_byte_fp = (uint64_t) MAX(1.0, ceil(per));
    s->busy_fp = 0;
}

/* Serves `bytes` arriving at fixed-point time at_fp; returns the
 * fixed-point time service starts.  Times stay in fixed point between
 * servers so that rounding happens once, at the end of a request. */
static uint64_t server_take(BwServer *s, uint64_t at_fp, int64_t bytes)
{
    uint64_t start = MAX(at_fp, s->free_fp);
    uint64_t occupy = (uint64_t) bytes * s->per_byte_fp;
    s->free_fp = start + occupy;
    s->busy_fp += occupy;
    return start;
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

/* Rates are measured over windows of this many cycles: long enough to
 * average a stage's burst of copies, short enough to follow a phase. */
#define DRAM_WINDOW 1024

/* Moves the traffic window up to cycle t (requests arrive nearly in time
 * order; one from before the window's start counts in it). */
static void window_to(MemPath *m, SimCycle t)
{
    if (t < m->win_start + DRAM_WINDOW) {
        return;
    }
    bool adjacent = t < m->win_start + 2 * DRAM_WINDOW;
    m->read_rate = adjacent ? (double) m->win_read / DRAM_WINDOW : 0.0;
    m->write_rate = adjacent ? (double) m->win_written / DRAM_WINDOW : 0.0;
    m->win_start = t - (t - m->win_start) % DRAM_WINDOW;
    m->win_read = 0;
    m->win_written = 0;
}

/* What a DRAM read waits beyond dram.latency at the recent traffic:
 * queueing below the peak rate (rho / (1 - rho), capped at rho = 0.95,
 * beyond which the bandwidth server's own queue takes over) and the
 * write-back traffic it queues behind.  Measured by scripts/calib/loaded.cu
 * (replayed by scripts/calib/replay.py). */
static SimCycle loaded_latency(const MemPath *m)
{
    double rho = m->dram_share > 0 ? (m->read_rate + m->write_rate) / m->dram_share : 0.0;
    rho = MIN(rho, 0.95);
    double extra = m->queue_cycles * rho / (1.0 - rho) + m->write_delay * m->write_rate;
    return (SimCycle) llround(extra);
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
    m->write_back = !fits;
    server_init(&m->link, a->l2_bytes_per_clk_sm);
    server_init(&m->l2, a->l2_bytes_per_clk / (double) a->active_sms);
    server_init(&m->dram, a->dram_bytes_per_clk / (double) a->active_sms);
    m->dram_share = a->dram_bytes_per_clk / (double) a->active_sms;
    m->queue_cycles = a->dram_queue_cycles;
    m->write_delay = a->dram_write_delay;
    line_set_init(&m->l2_lines, (size_t) (share / a->line_bytes));
    m->l1_nlines = a->l1_lines;
    m->l1_tags = g_new0(uint64_t, m->l1_nlines);
    m->l1_ready = g_new0(SimCycle, m->l1_nlines);
}

void mem_path_clear(MemPath *m)
{
    line_set_clear(&m->l2_lines);
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
    SimCycle fill;
    if (m->source_l2 || line_set_find(&m->l2_lines, line, &fill)) {
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
        ready = fp_ceil(dstart) + (SimCycle) m->dram_latency + loaded_latency(m);
        line_set_put(&m->l2_lines, line, ready);
        m->l2_misses++;
        m->bytes_dram += (uint64_t) m->line_bytes;
    }
    if (cache_l1) {
        m->l1_tags[l1_slot] = line + 1;
        m->l1_ready[l1_slot] = ready;
    }
    return ready;
}

SimCycle mem_path_write(MemPath *m, SimCycle t, uint64_t addr, int64_t bytes)
{
    uint64_t line = addr / (uint64_t) m->line_bytes;
    uint64_t start = server_take(&m->link, (uint64_t) t * MEM_FP, bytes);
    start = server_take(&m->l2, start, bytes);
    if (!m->source_l2) {
        line_set_put(&m->l2_lines, line, fp_ceil(start));
    }
    if (m->write_back) {
        /* The store completes in L2; its eviction later takes DRAM time. */
        server_take(&m->dram, start, bytes);
        window_to(m, t);
        m->win_written += (uint64_t) bytes;
        m->bytes_written_back += (uint64_t) bytes;
    }
    /* A write invalidates the line in L1 (L1 is write-through). */
    size_t l1_slot = (size_t) (line % (uint64_t) m->l1_nlines);
    if (m->l1_tags[l1_slot] == line + 1) {
        m->l1_tags[l1_slot] = 0;
    }
    m->bytes_written += (uint64_t) bytes;
    return fp_ceil(start);
}
