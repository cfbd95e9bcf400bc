/* mem_path.c: L1, L2 and DRAM timing with bandwidth servers (what they model
 * and where the numbers come from: mem_path.h). */
#include "models/mem_path.h"

#include "sim/out/stats.h"

#include <math.h>

/* ------------------------------------------------------------ line sets */

static size_t hash_line(uint64_t x, size_t cap)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    return (size_t) x & (cap - 1);
}

void line_set_init(LineSet *s, size_t max_lines)
{
    memset(s, 0, sizeof *s);
    s->fifo_cap = MAX(max_lines, (size_t) 1);
    s->cap = 64;
    s->keys = g_new0(uint64_t, s->cap);
    s->ready = g_new0(SimCycle, s->cap);
    s->fifo_alloc = MIN(s->fifo_cap, (size_t) 64);
    s->fifo = g_new0(uint64_t, s->fifo_alloc);
}

void line_set_clear(LineSet *s)
{
    g_free(s->keys);
    g_free(s->ready);
    g_free(s->fifo);
    memset(s, 0, sizeof *s);
}

static size_t find_slot(const LineSet *s, uint64_t key)
{
    size_t i = hash_line(key, s->cap);
    while (s->keys[i] != 0 && s->keys[i] != key) {
        i = (i + 1) & (s->cap - 1);
    }
    return i;
}

bool line_set_find(const LineSet *s, uint64_t line, SimCycle *ready)
{
    size_t i = find_slot(s, line + 1);
    if (s->keys[i] == 0) {
        return false;
    }
    *ready = s->ready[i];
    return true;
}

static void grow(LineSet *s)
{
    uint64_t *old_keys = s->keys;
    SimCycle *old_ready = s->ready;
    size_t old_cap = s->cap;
    s->cap *= 2;
    s->keys = g_new0(uint64_t, s->cap);
    s->ready = g_new0(SimCycle, s->cap);
    for (size_t i = 0; i < old_cap; i++) {
        if (old_keys[i] != 0) {
            size_t j = find_slot(s, old_keys[i]);
            s->keys[j] = old_keys[i];
            s->ready[j] = old_ready[i];
        }
    }
    g_free(old_keys);
    g_free(old_ready);
}

/* Linear-probing deletion by backward shift: keeps every key reachable. */
static void erase(LineSet *s, uint64_t key)
{
    size_t i = find_slot(s, key);
    if (s->keys[i] == 0) {
        return;
    }
    s->len--;
    size_t hole = i;
    size_t j = i;
    for (;;) {
        j = (j + 1) & (s->cap - 1);
        if (s->keys[j] == 0) {
            break;
        }
        size_t home = hash_line(s->keys[j], s->cap);
        /* Move j into the hole unless its home lies cyclically in (hole, j]. */
        bool in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!in_range) {
            s->keys[hole] = s->keys[j];
            s->ready[hole] = s->ready[j];
            hole = j;
        }
    }
    s->keys[hole] = 0;
    s->ready[hole] = 0;
}

void line_set_put(LineSet *s, uint64_t line, SimCycle ready)
{
    uint64_t key = line + 1;
    size_t i = find_slot(s, key);
    if (s->keys[i] == key) {
        s->ready[i] = ready;
        return;
    }
    if (s->fifo_len == s->fifo_cap) {
        /* Full: evict the oldest line. */
        uint64_t old = s->fifo[s->fifo_head];
        s->fifo_head = (s->fifo_head + 1) % s->fifo_alloc;
        s->fifo_len--;
        erase(s, old);
    }
    if ((s->len + 1) * 2 > s->cap) {
        grow(s);
    }
    i = find_slot(s, key);
    s->keys[i] = key;
    s->ready[i] = ready;
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
    s->fifo[(s->fifo_head + s->fifo_len) % s->fifo_alloc] = key;
    s->fifo_len++;
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
