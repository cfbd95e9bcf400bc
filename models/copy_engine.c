/* copy_engine.c: cp.async coalescing, admission and completion (see
 * copy_engine.h).  Numbers: arch/NAME.ini [cp_async] issue_cycles,
 * max_inflight and extra_latency and the [l1] line and sector sizes,
 * measured by scripts/calib/cpasync.cu. */
#include "models/copy_engine.h"

#include "sim/out/stats.h"

/* log2(n) for a power of two n, else -1. */
static int log2_exact(int64_t n)
{
    return n > 0 && (n & (n - 1)) == 0 ? __builtin_ctzll((unsigned long long) n) : -1;
}

/* a / d, by a shift where d is the power of two 1 << shift (shift >= 0):
 * the 64-bit divisions were most of gather_lines' cost. */
static inline uint64_t div_by(uint64_t a, int64_t d, int shift)
{
    return shift >= 0 ? a >> shift : a / (uint64_t) d;
}

/* Ring positions: cap is a power of two (64, doubled as it fills), so the
 * index modulo cap is a mask, not a division. */
static inline size_t ring_at(const InflightRing *r, size_t k)
{
    return (r->head + k) & (r->cap - 1);
}

static void ring_init(InflightRing *r, int64_t max)
{
    r->cap = 64;
    r->done = g_new0(SimCycle, r->cap);
    r->head = r->len = 0;
    r->max = max;
}

void copy_engine_init(CopyEngine *c, const ArchParams *a)
{
    memset(c, 0, sizeof *c);
    c->issue_cycles = a->cp_async_issue;
    c->extra_latency = a->cp_async_extra_latency;
    c->line_bytes = a->line_bytes;
    c->sector_bytes = a->sector_bytes;
    c->line_shift = log2_exact(a->line_bytes);
    c->sector_shift = log2_exact(a->sector_bytes);
    ring_init(&c->all, a->cp_async_max_inflight);
    ring_init(&c->ca, a->cp_async_max_inflight_ca);
}

void copy_engine_clear(CopyEngine *c)
{
    g_free(c->all.done);
    g_free(c->ca.done);
    c->all.done = c->ca.done = NULL;
}

/* The sectors in a line request's mask: a table for lines of up to 8
 * sectors (128-byte lines of 32-byte sectors use 4), as the default target
 * has no popcnt instruction and __builtin_popcount calls into libgcc. */
static inline int sector_count(uint32_t m)
{
    static const uint8_t bits[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };
    return m < 256 ? bits[m & 15] + bits[m >> 4] : __builtin_popcount(m);
}

/* Whether a copy of `size` bytes a lane is cp.async.ca, which may hit and
 * allocates in L1 (4 and 8 bytes, as libcudacxx chooses), not .cg (16). */
static inline bool allocates_in_l1(int64_t size)
{
    return size < 16;
}

/* Sectors first..last of a line (sector indices within it), as a mask. */
static inline uint32_t sector_bits(uint32_t s0, uint32_t s1)
{
    return (uint32_t) (((UINT64_C(1) << (s1 + 1)) - 1) & ~((UINT64_C(1) << s0) - 1));
}

/* True when the lanes of mask are consecutive and each lane's range starts
 * where the previous one's ends (addr[l + 1] == addr[l] + size, size > 0):
 * together they copy one run of bytes.  A group's copy is that (thread of
 * rank r copies chunk r), so it is usually true. */
static bool one_run(const int64_t *addr, uint32_t mask, int64_t size)
{
    if (mask == 0 || size <= 0) {
        return false;
    }
    int first = __builtin_ctz(mask);
    uint32_t run = mask >> first;
    if ((run & (run + 1)) != 0) {
        return false;
    }
    if (mask == 0xffffffffu) {
        /* A converged warp: a pass the compiler vectorises. */
        uint64_t apart = 0;
        uint64_t expect = (uint64_t) addr[0] + (uint64_t) size;
        for (int l = 1; l < 32; l++, expect += (uint64_t) size) {
            apart |= (uint64_t) addr[l] ^ expect;
        }
        return apart == 0;
    }
    int n = __builtin_popcount(mask);
    unsigned apart = 0;
    for (int l = first + 1; l < first + n; l++) {
        apart |= (unsigned) (addr[l] - addr[l - 1] != size);
    }
    return apart == 0;
}

/* The (line, sector-mask) pairs of bytes lo .. hi (inclusive), line by
 * line: what the lane-by-lane gathering finds for a run of lanes whose
 * ranges follow one another (one_run), in the same order. */
static int64_t gather_run(const CopyEngine *c, uint64_t lo, uint64_t hi, LineReq *out)
{
    uint64_t lb = (uint64_t) c->line_bytes;
    uint64_t first = div_by(lo, c->line_bytes, c->line_shift);
    uint64_t last = div_by(hi, c->line_bytes, c->line_shift);
    uint32_t top = (uint32_t) div_by(lb - 1, c->sector_bytes, c->sector_shift);
    int64_t n = 0;
    for (uint64_t line = first; line <= last; line++) {
        uint64_t start = line * lb;
        uint32_t s0 = line == first ? (uint32_t) div_by(lo - start, c->sector_bytes, c->sector_shift) : 0;
        uint32_t s1 = line == last ? (uint32_t) div_by(hi - start, c->sector_bytes, c->sector_shift) : top;
        out[n].line = line;
        out[n].sectors = sector_bits(s0, s1);
        n++;
    }
    return n;
}

static int64_t gather_lines(const CopyEngine *c, const int64_t *addr, uint32_t mask, int64_t size, LineReq *out)
{
    if (one_run(addr, mask, size)) {
        int last = 31 - __builtin_clz(mask);
        return gather_run(c, (uint64_t) addr[__builtin_ctz(mask)], (uint64_t) addr[last] + (uint64_t) size - 1, out);
    }
    int64_t n = 0;
    for (int l = 0; l < 32; l++) {
        if (!(mask & (1u << l))) {
            continue;
        }
        uint64_t first = (uint64_t) addr[l];
        uint64_t last = first + (uint64_t) size - 1;
        for (uint64_t a = first; a <= last;) {
            uint64_t line = div_by(a, c->line_bytes, c->line_shift);
            uint64_t line_start = line * (uint64_t) c->line_bytes;
            uint64_t line_end = line_start + (uint64_t) c->line_bytes - 1;
            uint64_t seg_end = MIN(last, line_end);
            uint32_t s0 = (uint32_t) div_by(a - line_start, c->sector_bytes, c->sector_shift);
            uint32_t s1 = (uint32_t) div_by(seg_end - line_start, c->sector_bytes, c->sector_shift);
            uint32_t bits = sector_bits(s0, s1);
            /* Lines are distinct in out; neighbouring lanes mostly share
             * the line found last, so the search runs backwards. */
            int64_t k;
            for (k = n - 1; k >= 0; k--) {
                if (out[k].line == line) {
                    out[k].sectors |= bits;
                    break;
                }
            }
            if (k < 0) {
                out[n].line = line;
                out[n].sectors = bits;
                n++;
            }
            a = seg_end + 1;
        }
    }
    return n;
}

void copy_engine_gather(const CopyEngine *c, const int64_t *src, uint32_t mask, int64_t size, CopyLines *out)
{
    out->n = gather_lines(c, src, mask, size, out->reqs);
}

void copy_engine_gather_run(const CopyEngine *c, int64_t src0, uint32_t mask, int64_t size, CopyLines *out)
{
    /* gather_lines of the lanes' addresses: one_run holds for them (a
     * prefix mask, consecutive ranges, size > 0), and an empty mask has no
     * lines. */
    if (mask == 0 || size <= 0) {
        out->n = 0;
        return;
    }
    int last = 31 - __builtin_clz(mask);
    out->n = gather_run(c, (uint64_t) src0, (uint64_t) src0 + (uint64_t) last * (uint64_t) size + (uint64_t) size - 1,
                        out->reqs);
}

/* Drops requests that completed by cycle t. */
static void ring_retire(InflightRing *r, SimCycle t)
{
    while (r->len > 0 && r->done[r->head] <= t) {
        r->head = ring_at(r, 1);
        r->len--;
    }
}

/* The earliest cycle >= t at which `lines` more requests fit: the
 * `over`-th earliest completion when they do not (requests retired). */
static SimCycle ring_room_at(InflightRing *r, SimCycle t, int64_t lines)
{
    ring_retire(r, t);
    int64_t over = (int64_t) r->len + lines - r->max;
    if (over <= 0) {
        return t;
    }
    size_t k = (size_t) MIN(over, (int64_t) r->len) - 1;
    return MAX(t, r->done[ring_at(r, k)]);
}

SimCycle copy_engine_admit(CopyEngine *c, SimCycle t, int64_t lines, int64_t size)
{
    SimCycle when = ring_room_at(&c->all, t, lines);
    if (allocates_in_l1(size)) {
        when = MAX(when, ring_room_at(&c->ca, t, lines));
    }
    c->throttled_cycles += when - t;
    return when;
}

/* Inserts a completion keeping the ring sorted (completions mostly come in
 * order, so the insertion point is near the end). */
static void ring_track(InflightRing *r, SimCycle done)
{
    if (r->len == r->cap) {
        SimCycle *n = g_new0(SimCycle, r->cap * 2);
        for (size_t k = 0; k < r->len; k++) {
            n[k] = r->done[ring_at(r, k)];
        }
        g_free(r->done);
        r->done = n;
        r->head = 0;
        r->cap *= 2;
    }
    size_t pos = r->len;
    while (pos > 0 && r->done[ring_at(r, pos - 1)] > done) {
        r->done[ring_at(r, pos)] = r->done[ring_at(r, pos - 1)];
        pos--;
    }
    r->done[ring_at(r, pos)] = done;
    r->len++;
}

CopyResult copy_engine_issue(CopyEngine *c, MemPath *m, Smem *s, SimCycle t, const int64_t *src,
                             const int64_t *dst, uint32_t mask, int64_t size)
{
    CopyLines g;
    copy_engine_gather(c, src, mask, size, &g);
    return copy_engine_issue_lines(c, m, s, t, &g, dst, mask, size);
}

/* copy_engine_issue_lines with the fill's wavefronts counted by the
 * caller (smem_wavefronts reads the shared memory's geometry only). */
static CopyResult issue_waves(CopyEngine *c, MemPath *m, Smem *s, SimCycle t, const CopyLines *g, int64_t waves,
                              uint32_t mask, int64_t size)
{
    const LineReq *reqs = g->reqs;
    int64_t n = g->n;
    ring_retire(&c->all, t);
    ring_retire(&c->ca, t);
    /* L1's request port takes its lines (mem_path.h); the LSU is free
     * for the next instruction issue_cycles after this one enters. */
    SimCycle issue = mem_path_port_accept(m, MAX(t, c->lsu_free), n * c->line_bytes, false);
    c->lsu_free = issue + (SimCycle) c->issue_cycles;
    bool cache_l1 = allocates_in_l1(size);
    SimCycle arrive = issue;
    int64_t bytes = __builtin_popcount(mask) * size;
    for (int64_t k = 0; k < n; k++) {
        int sectors = sector_count(reqs[k].sectors);
        int64_t req_bytes = sectors * c->sector_bytes;
        SimCycle a = mem_path_read(m, issue, reqs[k].line * (uint64_t) c->line_bytes, req_bytes, cache_l1);
        a += (SimCycle) c->extra_latency;
        arrive = MAX(arrive, a);
        ring_track(&c->all, a);
        if (cache_l1) {
            ring_track(&c->ca, a);
        }
        c->sectors += (uint64_t) sectors;
    }
    SimCycle done = smem_fill(s, arrive, waves);
    c->instructions++;
    c->lines += (uint64_t) n;
    c->bytes += (uint64_t) bytes;
    CopyResult r = { issue, done, n, bytes };
    return r;
}

CopyResult copy_engine_issue_lines(CopyEngine *c, MemPath *m, Smem *s, SimCycle t, const CopyLines *g,
                                   const int64_t *dst, uint32_t mask, int64_t size)
{
    /* The fill writes the destination like a warp store would. */
    int64_t ideal;
    int64_t waves = smem_wavefronts(s, dst, mask, size, &ideal);
    return issue_waves(c, m, s, t, g, waves, mask, size);
}

CopyResult copy_engine_issue_run(CopyEngine *c, MemPath *m, Smem *s, SimCycle t, const CopyLines *g, int64_t dst0,
                                 uint32_t mask, int64_t size)
{
    int64_t waves, ideal;
    if (!smem_run_wavefronts(s, dst0, mask, size, &waves, &ideal)) {
        int64_t dst[32];
        for (int l = 0; l < 32; l++) {
            dst[l] = (mask & (1u << l)) ? dst0 + l * size : 0;
        }
        waves = smem_wavefronts(s, dst, mask, size, &ideal);
    }
    return issue_waves(c, m, s, t, g, waves, mask, size);
}

void copy_engine_stats_merge(const CopyEngine *c, SimStats *st)
{
    st->cp_async_instructions += c->instructions;
    st->cp_async_bytes += c->bytes;
    st->cp_async_lines += c->lines;
    st->cp_async_sectors += c->sectors;
    st->throttled_cycles += c->throttled_cycles;
}
