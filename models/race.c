/* race.c: shadow state of shared memory for the race detector (see
 * race.h).  It models no timing: it checks the program's synchronisation
 * against the copies' completion order the other units compute.
 *
 * A word keeps its last async writer and last reader thread; how each was
 * synchronised (the copy's tag, the reader's epoch and held stage) lives in
 * records that the words of one warp's access share: a converged warp's
 * copy or load of consecutive words makes one record and checks each word
 * with a compare, the lane-by-lane path (race_read, race_async_write, the
 * lanes a run does not cover) gives the same diagnoses word by word. */
#include "models/race.h"

#include <string.h>

/* What an async copy recorded for the words it wrote: the copy's
 * synchronisation tag.  Records are immutable once made (a change makes a
 * new one), so the words of one warp's copy share one; the writer thread
 * is kept per word. */
typedef struct {
    uint8_t kind;        /* RaceTagKind */
    int32_t obj;
    uint32_t seq;
    SrcLoc loc;          /* the copy's line */
    int32_t also_mbar;   /* mbarrier + 1 whose phase also_seq makes the write visible too, 0 = none */
    uint32_t also_seq;   /* (pipeline_producer_commit: a GROUP write that arrives on a barrier) */
} WriteRec;

/* What a read recorded: the reader's block-barrier epoch, the stage it
 * held and the load's line, shared by the lanes of a warp that agree. */
typedef struct {
    uint32_t epoch;      /* the reader's block barriers passed */
    int32_t pipe;        /* pipe whose stage the reader held, or -1 */
    uint32_t instance;   /* that stage instance */
    SrcLoc loc;          /* the load's line */
} ReadRec;

/* One 4-byte word of shared memory: who wrote it last by an async copy and
 * how, who read it last and how (indices into the block's records). */
typedef struct {
    uint16_t writer;     /* writer thread + 1; 0 = no pending async write */
    uint16_t reader;     /* last reader thread + 1; 0 = none */
    uint32_t wrec;       /* the write's WriteRec, when writer != 0 */
    uint32_t rrec;       /* the read's ReadRec, when reader != 0 */
} WordShadow;

#define REC_NONE UINT32_MAX

/* A pool of records.  Invariant: every word's wrec (writer != 0) and rrec
 * (reader != 0) is below n; `last` is REC_NONE or below n.  Records no word
 * refers to are dropped when the pool is compacted (pool_compact). */
typedef struct {
    void *recs;          /* WriteRec or ReadRec [cap] */
    uint32_t n, cap;     /* records made, allocated */
    uint32_t last;       /* the record made or reused last (reuse by equality), REC_NONE */
} RecPool;

typedef struct {
    WordShadow *words;
    int64_t nwords;
    int64_t threads;
    RecPool wpool;            /* WriteRec */
    RecPool rpool;            /* ReadRec */
    uint32_t *epoch;          /* block barriers passed */
    uint32_t *group_commits;  /* commit groups closed */
    uint32_t *groups_done;    /* groups known complete (own waits) */
    uint32_t *arrive_epoch;   /* generation of the barrier the thread last arrived at */
    uint32_t *groups_at_arrive;
    uint32_t *warp_sync;      /* the warp or tile sync the thread passed last (0 = none) */
    uint32_t *groups_at_warp_sync;
    uint32_t warp_syncs;      /* warp and tile syncs passed so far (their ids) */
    uint32_t *waited;         /* [pipes][threads]: stage instances waited (count) */
    int32_t *held;            /* [pipes][threads]: instance held (waited, not released), -1 */
    uint64_t *observed;       /* [threads][mbars]: phases observed by waits */
    uint32_t *pipe_snap;      /* [pipes]: max waited instance count at the last block barrier */
    uint64_t *mbar_snap;      /* [mbars]: phases at the last block barrier */
    uint32_t *pipe_max;       /* [pipes]: max waited count so far */
    uint32_t snap_epoch;
    bool group_writes;        /* a commit-group copy was recorded (race_copies_arrive_on's scan) */
} BlockShadow;

struct RaceState {
    BlockShadow *blocks;
    int32_t nblocks;
    int32_t pipes, mbars;
};

static void set_objects(RaceState *r, int32_t pipes, int32_t mbars);

RaceState *race_new(int64_t block_threads, int64_t smem_bytes, int32_t blocks, int32_t pipes, int32_t mbars)
{
    RaceState *r = g_new0(RaceState, 1);
    r->nblocks = blocks;
    r->blocks = g_new0(BlockShadow, blocks);
    for (int32_t b = 0; b < blocks; b++) {
        BlockShadow *s = &r->blocks[b];
        s->nwords = (smem_bytes + 3) / 4;
        s->words = g_new0(WordShadow, MAX(s->nwords, 1));
        s->wpool.last = REC_NONE;
        s->rpool.last = REC_NONE;
        s->threads = block_threads;
        s->epoch = g_new0(uint32_t, s->threads);
        s->group_commits = g_new0(uint32_t, s->threads);
        s->groups_done = g_new0(uint32_t, s->threads);
        s->arrive_epoch = g_new0(uint32_t, s->threads);
        s->groups_at_arrive = g_new0(uint32_t, s->threads);
        s->warp_sync = g_new0(uint32_t, s->threads);
        s->groups_at_warp_sync = g_new0(uint32_t, s->threads);
    }
    set_objects(r, pipes, mbars);
    return r;
}

static void set_objects(RaceState *r, int32_t pipes, int32_t mbars)
{
    r->pipes = MAX(pipes, 1);
    r->mbars = MAX(mbars, 1);
    for (int32_t b = 0; b < r->nblocks; b++) {
        BlockShadow *s = &r->blocks[b];
        s->waited = g_new0(uint32_t, (size_t) s->threads * r->pipes);
        s->held = g_new(int32_t, (size_t) s->threads * r->pipes);
        for (int64_t i = 0; i < s->threads * r->pipes; i++) {
            s->held[i] = -1;
        }
        s->observed = g_new0(uint64_t, (size_t) s->threads * r->mbars);
        s->pipe_snap = g_new0(uint32_t, r->pipes);
        s->pipe_max = g_new0(uint32_t, r->pipes);
        s->mbar_snap = g_new0(uint64_t, r->mbars);
    }
}

void race_free(RaceState *r)
{
    for (int32_t b = 0; b < r->nblocks; b++) {
        BlockShadow *s = &r->blocks[b];
        g_free(s->words);
        g_free(s->wpool.recs);
        g_free(s->rpool.recs);
        g_free(s->epoch);
        g_free(s->group_commits);
        g_free(s->groups_done);
        g_free(s->arrive_epoch);
        g_free(s->groups_at_arrive);
        g_free(s->warp_sync);
        g_free(s->groups_at_warp_sync);
        g_free(s->waited);
        g_free(s->held);
        g_free(s->observed);
        g_free(s->pipe_snap);
        g_free(s->pipe_max);
        g_free(s->mbar_snap);
    }
    g_free(r->blocks);
    g_free(r);
}

/* ------------------------------------------------------------ records */

static inline WriteRec *wrec_at(const BlockShadow *s, uint32_t i)
{
    return &((WriteRec *) s->wpool.recs)[i];
}

static inline ReadRec *rrec_at(const BlockShadow *s, uint32_t i)
{
    return &((ReadRec *) s->rpool.recs)[i];
}

/* A new record's index in pool (its bytes uninitialised). */
static uint32_t pool_add(RecPool *pool, size_t rec_size)
{
    if (pool->n == pool->cap) {
        pool->cap = MAX(pool->cap * 2, 64u);
        pool->recs = g_realloc_n(pool->recs, pool->cap, rec_size);
    }
    return pool->n++;
}

/* Drops the records of pool that no word refers to (is_write: the write
 * records, else the read records), keeping the others' order. */
static void pool_compact(BlockShadow *s, bool is_write)
{
    RecPool *pool = is_write ? &s->wpool : &s->rpool;
    size_t size = is_write ? sizeof(WriteRec) : sizeof(ReadRec);
    g_autofree uint32_t *map = g_new(uint32_t, pool->n);
    memset(map, 0xff, (size_t) pool->n * sizeof(uint32_t));
    for (int64_t i = 0; i < s->nwords; i++) {
        WordShadow *w = &s->words[i];
        if (is_write ? w->writer != 0 : w->reader != 0) {
            map[is_write ? w->wrec : w->rrec] = 0;
        }
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < pool->n; k++) {
        if (map[k] == 0) {
            map[k] = n;
            memmove((char *) pool->recs + (size_t) n * size, (char *) pool->recs + (size_t) k * size, size);
            n++;
        }
    }
    for (int64_t i = 0; i < s->nwords; i++) {
        WordShadow *w = &s->words[i];
        if (is_write && w->writer != 0) {
            w->wrec = map[w->wrec];
        } else if (!is_write && w->reader != 0) {
            w->rrec = map[w->rrec];
        }
    }
    pool->n = n;
    pool->last = REC_NONE;
}

/* Bounds the pools before a call that may make records: a word refers to
 * at most one record of each, so more than twice the words (and a margin
 * for one call's records) means garbage worth a scan of the words. */
static void pools_reserve(BlockShadow *s)
{
    uint32_t limit = (uint32_t) MIN(s->nwords * 2 + 256, (int64_t) UINT32_MAX / 2);
    if (s->wpool.n > limit) {
        pool_compact(s, true);
    }
    if (s->rpool.n > limit) {
        pool_compact(s, false);
    }
}

static uint32_t write_rec(BlockShadow *s, RaceTagKind kind, int32_t obj, uint32_t seq, SrcLoc loc)
{
    uint32_t last = s->wpool.last;
    if (last != REC_NONE) {
        const WriteRec *w = wrec_at(s, last);
        if (w->kind == (uint8_t) kind && w->obj == obj && w->seq == seq && w->loc.line == loc.line &&
            w->loc.col == loc.col && w->also_mbar == 0) {
            return last;
        }
    }
    uint32_t i = pool_add(&s->wpool, sizeof(WriteRec));
    *wrec_at(s, i) = (WriteRec) { (uint8_t) kind, obj, seq, loc, 0, 0 };
    s->wpool.last = i;
    return i;
}

static uint32_t read_rec(BlockShadow *s, uint32_t epoch, int32_t pipe, uint32_t instance, SrcLoc loc)
{
    uint32_t last = s->rpool.last;
    if (last != REC_NONE) {
        const ReadRec *d = rrec_at(s, last);
        if (d->epoch == epoch && d->pipe == pipe && d->instance == instance && d->loc.line == loc.line &&
            d->loc.col == loc.col) {
            return last;
        }
    }
    uint32_t i = pool_add(&s->rpool, sizeof(ReadRec));
    *rrec_at(s, i) = (ReadRec) { epoch, pipe, instance, loc };
    s->rpool.last = i;
    return i;
}

/* ------------------------------------------------------------ checks */

static bool word_range(const BlockShadow *s, int64_t off, int64_t size, int64_t *w0, int64_t *w1)
{
    if (off < 0 || size <= 0) {
        return false;
    }
    *w0 = off / 4;
    *w1 = MIN((off + size - 1) / 4, s->nwords - 1);
    return *w0 <= *w1;
}

/* Has thread tid seen phase `phase` of mbarrier mbar complete: by its own
 * wait, or through a block barrier after which another thread had? */
static bool barrier_seen(const RaceState *r, const BlockShadow *s, int64_t tid, int32_t mbar, uint32_t phase)
{
    if (s->observed[tid * r->mbars + mbar] > phase) {
        return true;
    }
    return s->epoch[tid] >= s->snap_epoch && s->snap_epoch > 0 && s->mbar_snap[mbar] > phase;
}

/* Has thread tid seen the async write w by thread writer? */
static bool visible(const RaceState *r, const BlockShadow *s, const WriteRec *w, int64_t writer, int64_t tid)
{
    if (w->also_mbar != 0 && barrier_seen(r, s, tid, w->also_mbar - 1, w->also_seq)) {
        return true;
    }
    switch ((RaceTagKind) w->kind) {
    case RACE_TAG_STAGE:
        if (s->waited[w->obj * s->threads + tid] > w->seq) {
            return true;
        }
        return s->epoch[tid] >= s->snap_epoch && s->snap_epoch > 0 && s->pipe_snap[w->obj] > w->seq;
    case RACE_TAG_GROUP:
        if (tid == writer) {
            return s->groups_done[writer] > w->seq;
        }
        /* The writer waited for the group, then a __syncthreads, or the
         * same __syncwarp / tile sync as the reader (its last one). */
        return (s->arrive_epoch[writer] > 0 && s->arrive_epoch[writer] <= s->epoch[tid] &&
                s->groups_at_arrive[writer] > w->seq) ||
               (s->warp_sync[writer] > 0 && s->warp_sync[writer] == s->warp_sync[tid] &&
                s->groups_at_warp_sync[writer] > w->seq);
    case RACE_TAG_BARRIER:
        return barrier_seen(r, s, tid, w->obj, w->seq);
    }
    return false;
}

/* The read record of a read by thread tid at loc: its barrier epoch and the
 * pipeline stage it holds (the last pipeline in which it holds one). */
static uint32_t thread_read_rec(RaceState *r, BlockShadow *s, int64_t tid, SrcLoc loc)
{
    int32_t held_pipe = -1;
    uint32_t held_instance = 0;
    for (int32_t p = 0; p < r->pipes; p++) {
        if (s->held[p * s->threads + tid] >= 0) {
            held_pipe = p;
            held_instance = (uint32_t) s->held[p * s->threads + tid];
        }
    }
    return read_rec(s, s->epoch[tid], held_pipe, held_instance, loc);
}

/* Thread tid reads [off, off + size): checks each word's async write, and
 * records the read.  Returns whether the read races; the first race's
 * warning goes to *warning when that is still NULL. */
static bool read_one(RaceState *r, BlockShadow *s, int64_t tid, int64_t off, int64_t size, SrcLoc loc,
                     char **warning)
{
    int64_t w0, w1;
    if (!word_range(s, off, size, &w0, &w1)) {
        return false;
    }
    bool raced = false;
    uint32_t rrec = thread_read_rec(r, s, tid, loc);
    for (int64_t i = w0; i <= w1; i++) {
        WordShadow *w = &s->words[i];
        if (w->writer != 0 && !raced && !visible(r, s, wrec_at(s, w->wrec), w->writer - 1, tid)) {
            raced = true;
            if (*warning == NULL) {
                const WriteRec *wr = wrec_at(s, w->wrec);
                const char *how = wr->kind == RACE_TAG_STAGE ? "its pipeline stage's consumer_wait"
                                  : wr->also_mbar != 0 ? "a wait on the barrier it arrives on (pipeline_producer_commit)"
                                  : wr->kind == RACE_TAG_GROUP ? "the writer's wait for its commit group and a"
                                                                 " __syncthreads after it"
                                                               : "a wait on its cuda::barrier phase";
                *warning = g_strdup_printf("read-after-write race: line %u: thread %" G_GINT64_FORMAT
                                           " reads shared memory offset %" G_GINT64_FORMAT " that the async copy at"
                                           " line %u (thread %d) writes, before %s",
                                           loc.line, tid, i * 4, wr->loc.line, w->writer - 1, how);
            }
        }
        w->reader = (uint16_t) (tid + 1);
        w->rrec = rrec;
    }
    return raced;
}

char *race_read(RaceState *r, int32_t block, int64_t tid, int64_t off, int64_t size, SrcLoc loc)
{
    BlockShadow *s = &r->blocks[block];
    char *warning = NULL;
    pools_reserve(s);
    read_one(r, s, tid, off, size, loc, &warning);
    return warning;
}

/* Whether the lanes' ranges [off[l], off[l] + size) are one run of whole
 * words inside the shadow, lane after lane (off[l] = base + l * size): a
 * converged warp's access of consecutive elements.  Then no two lanes share
 * a word, and lane l's words are w0 + (l - first) * (size / 4) onwards. */
static bool lanes_run(const BlockShadow *s, uint32_t lanes, const int64_t *off, int64_t size, int64_t *w0)
{
    int first = __builtin_ctz(lanes);
    int last = 31 - __builtin_clz(lanes);
    int64_t base = off[first] - (int64_t) first * size;
    if (size <= 0 || size % 4 != 0 || off[first] < 0 || off[first] % 4 != 0 ||
        off[first] + (int64_t) (last - first + 1) * size > s->nwords * 4) {
        return false;
    }
    /* Without a branch per lane (for a converged warp, a pass the
     * compiler vectorises). */
    bool apart = false;
    if (lanes == 0xffffffffu) {
        uint64_t diff = 0;
        uint64_t expect = (uint64_t) base;
        for (int l = 0; l < 32; l++, expect += (uint64_t) size) {
            diff |= (uint64_t) off[l] ^ expect;
        }
        apart = diff != 0;
    } else {
        int64_t expect = base;
        for (int l = 0; l < 32; l++, expect += size) {
            apart |= ((lanes >> l) & 1u) != 0 && off[l] != expect;
        }
    }
    *w0 = off[first] / 4;
    return !apart;
}

/* Whether the threads tid0 + l (bits l of lanes) agree on what a read
 * records: their block-barrier epoch and the stages they hold. */
static bool lanes_read_alike(const RaceState *r, const BlockShadow *s, int64_t tid0, uint32_t lanes)
{
    const uint32_t *epoch = &s->epoch[tid0];
    if (lanes == 0xffffffffu) {
        /* A converged warp: passes the compiler vectorises. */
        uint32_t apart = 0;
        for (int l = 0; l < 32; l++) {
            apart |= epoch[l] ^ epoch[0];
        }
        for (int32_t p = 0; p < r->pipes; p++) {
            const int32_t *held = &s->held[p * s->threads + tid0];
            for (int l = 0; l < 32; l++) {
                apart |= (uint32_t) (held[l] ^ held[0]);
            }
        }
        return apart == 0;
    }
    int first = __builtin_ctz(lanes);
    int last = 31 - __builtin_clz(lanes);
    bool differ = false;
    for (int l = first; l <= last; l++) {
        differ |= ((lanes >> l) & 1u) != 0 && epoch[l] != epoch[first];
    }
    for (int32_t p = 0; p < r->pipes; p++) {
        const int32_t *held = &s->held[p * s->threads + tid0];
        for (int l = first; l <= last; l++) {
            differ |= ((lanes >> l) & 1u) != 0 && held[l] != held[first];
        }
    }
    return !differ;
}

/* The write record a run of reads last looked at, and what settles the
 * usual case for it: the waits of its stage by thread, when the stage's
 * waits alone decide (no barrier besides), else NULL. */
typedef struct {
    uint32_t known;             /* the write record `waited` belongs to, or REC_NONE */
    const uint32_t *waited;
    uint32_t seq;
} ReadRun;

/* Whether thread tid's read of word w needs the general test (visible()
 * fails): w was written, and not by a stage tid has waited for since. */
static inline bool read_needs_test(const RaceState *r, const BlockShadow *s, const WordShadow *w, int64_t tid,
                                   ReadRun *run)
{
    if (w->writer == 0) {
        return false;
    }
    if (w->wrec != run->known) {
        const WriteRec *wr = wrec_at(s, w->wrec);
        run->known = w->wrec;
        run->waited = wr->kind == RACE_TAG_STAGE && wr->also_mbar == 0 ? &s->waited[wr->obj * s->threads] : NULL;
        run->seq = wr->seq;
    }
    return (run->waited == NULL || run->waited[tid] <= run->seq) &&
           !visible(r, s, wrec_at(s, w->wrec), w->writer - 1, tid);
}

char *race_read_lanes(RaceState *r, int32_t block, int64_t tid0, uint32_t lanes, const int64_t *off, int64_t size,
                      SrcLoc loc, uint64_t *races)
{
    BlockShadow *s = &r->blocks[block];
    char *warning = NULL;
    int64_t w0;
    pools_reserve(s);
    if (lanes == 0 || !lanes_run(s, lanes, off, size, &w0) || !lanes_read_alike(r, s, tid0, lanes)) {
        for (uint32_t m = lanes; m != 0; m &= m - 1) {
            int l = __builtin_ctz(m);
            *races += read_one(r, s, tid0 + l, off[l], size, loc, &warning);
        }
        return warning;
    }
    /* A run of words read by threads that agree: one read record for the
     * warp, and a check per word that settles the usual case (a stage the
     * reader waited for) without the general test. */
    int first = __builtin_ctz(lanes);
    int64_t t0 = tid0 + first;
    uint32_t rrec = thread_read_rec(r, s, t0, loc);
    int64_t per_lane = size / 4;
    ReadRun run = { REC_NONE, NULL, 0 };
    int last = 31 - __builtin_clz(lanes);
    WordShadow *w = &s->words[w0];
    if (per_lane == 1 && lanes == 0xffffffffu) {
        /* A converged warp reading a word a lane: the loop below without
         * its inner one, the same checks in the same order. */
        for (int l = 0; l < 32; l++, w++) {
            int64_t tid = tid0 + l;
            if (read_needs_test(r, s, w, tid, &run)) {
                *races += read_one(r, s, tid, (int64_t) (w - s->words) * 4, 4, loc, &warning);
                continue;
            }
            w->reader = (uint16_t) (tid + 1);
            w->rrec = rrec;
        }
        return warning;
    }
    for (int l = first; l <= last; l++) {
        if (!((lanes >> l) & 1u)) {
            w += per_lane;
            continue;
        }
        int64_t tid = tid0 + l;
        WordShadow *end = w + per_lane;
        bool raced = false;
        for (; w < end; w++) {
            if (read_needs_test(r, s, w, tid, &run)) {
                /* The general path words the warning and records the
                 * lane's words from here on. */
                raced = read_one(r, s, tid, (int64_t) (w - s->words) * 4, (int64_t) (end - w) * 4, loc, &warning);
                w = end;
                break;
            }
            w->reader = (uint16_t) (tid + 1);
            w->rrec = rrec;
        }
        *races += raced;
    }
    return warning;
}

/* Thread tid's async copy writes [off, off + size) under tag (its sequence
 * seq): checks each word's last read, and records the write.  Returns
 * whether the write races; the first race's warning goes to *warning when
 * that is still NULL. */
static bool write_one(BlockShadow *s, int64_t tid, int64_t off, int64_t size, RaceTag tag, uint32_t seq,
                      int32_t writer_pipe_stages, char **warning)
{
    int64_t w0, w1;
    if (!word_range(s, off, size, &w0, &w1)) {
        return false;
    }
    bool raced = false;
    uint32_t wrec = write_rec(s, tag.kind, tag.obj, seq, tag.loc);
    for (int64_t i = w0; i <= w1; i++) {
        WordShadow *w = &s->words[i];
        if (w->reader != 0 && w->reader - 1 != tid && !raced) {
            const ReadRec *d = rrec_at(s, w->rrec);
            bool ordered = s->epoch[tid] > d->epoch;
            if (!ordered && tag.kind == RACE_TAG_STAGE && d->pipe == tag.obj &&
                (uint64_t) d->instance + (uint64_t) writer_pipe_stages <= seq) {
                ordered = true; /* the reader released before this stage was acquired */
            }
            if (!ordered) {
                raced = true;
                if (*warning == NULL) {
                    *warning = g_strdup_printf("write-after-read race: line %u: thread %" G_GINT64_FORMAT "'s async"
                                               " copy overwrites shared memory offset %" G_GINT64_FORMAT " that"
                                               " thread %d read at line %u, with no __syncthreads or pipeline"
                                               " release in between",
                                               tag.loc.line, tid, i * 4, w->reader - 1, d->loc.line);
                }
            }
        }
        w->writer = (uint16_t) (tid + 1);
        w->wrec = wrec;
        w->reader = 0;
    }
    s->group_writes |= tag.kind == RACE_TAG_GROUP;
    return raced;
}

char *race_async_write(RaceState *r, int32_t block, int64_t tid, int64_t off, int64_t size, RaceTag tag,
                       int32_t writer_pipe_stages)
{
    BlockShadow *s = &r->blocks[block];
    char *warning = NULL;
    pools_reserve(s);
    write_one(s, tid, off, size, tag, tag.seq, writer_pipe_stages, &warning);
    return warning;
}

char *race_async_write_lanes(RaceState *r, int32_t block, int64_t tid0, uint32_t lanes, const int64_t *off,
                             int64_t size, RaceTag tag, const uint32_t *seq, int32_t writer_pipe_stages,
                             uint64_t *races)
{
    BlockShadow *s = &r->blocks[block];
    char *warning = NULL;
    int64_t w0;
    pools_reserve(s);
    bool alike = lanes != 0 && lanes_run(s, lanes, off, size, &w0);
    int first = lanes != 0 ? __builtin_ctz(lanes) : 0;
    uint32_t seq0 = seq != NULL ? seq[first] : tag.seq;
    if (alike && seq != NULL && lanes == 0xffffffffu) {
        /* A converged warp: a pass the compiler vectorises. */
        uint32_t differ = 0;
        for (int l = 0; l < 32; l++) {
            differ |= seq[l] ^ seq0;
        }
        alike = differ == 0;
    } else if (alike && seq != NULL) {
        bool differ = false;
        for (int l = first; l < 32; l++) {
            differ |= ((lanes >> l) & 1u) != 0 && seq[l] != seq0;
        }
        alike = !differ;
    }
    if (!alike) {
        for (uint32_t m = lanes; m != 0; m &= m - 1) {
            int l = __builtin_ctz(m);
            *races += write_one(s, tid0 + l, off[l], size, tag, seq != NULL ? seq[l] : tag.seq, writer_pipe_stages,
                                &warning);
        }
        return warning;
    }
    /* A run of words under one tag: one write record for the warp; a word
     * with no reader, or read by its own writer, needs no check. */
    uint32_t wrec = write_rec(s, tag.kind, tag.obj, seq0, tag.loc);
    int64_t per_lane = size / 4;
    int last = 31 - __builtin_clz(lanes);
    WordShadow *w = &s->words[w0];
    if (per_lane == 1 && lanes == 0xffffffffu) {
        /* A converged warp writing a word a lane: the loop below without
         * its inner one. */
        for (int l = 0; l < 32; l++, w++) {
            int64_t tid = tid0 + l;
            if (w->reader != 0 && w->reader - 1 != tid) {
                *races += write_one(s, tid, (int64_t) (w - s->words) * 4, 4, tag, seq0, writer_pipe_stages, &warning);
                continue;
            }
            w->writer = (uint16_t) (tid + 1);
            w->wrec = wrec;
            w->reader = 0;
        }
        s->group_writes |= tag.kind == RACE_TAG_GROUP;
        return warning;
    }
    for (int l = first; l <= last; l++) {
        if (!((lanes >> l) & 1u)) {
            w += per_lane;
            continue;
        }
        int64_t tid = tid0 + l;
        WordShadow *end = w + per_lane;
        for (; w < end; w++) {
            if (w->reader != 0 && w->reader - 1 != tid) {
                /* The general path checks and records the lane's words
                 * from here on. */
                *races += write_one(s, tid, (int64_t) (w - s->words) * 4, (int64_t) (end - w) * 4, tag, seq0,
                                    writer_pipe_stages, &warning);
                w = end;
                break;
            }
            w->writer = (uint16_t) (tid + 1);
            w->wrec = wrec;
            w->reader = 0;
        }
    }
    s->group_writes |= tag.kind == RACE_TAG_GROUP;
    return warning;
}

void race_plain_write(RaceState *r, int32_t block, int64_t tid, int64_t off, int64_t size)
{
    BlockShadow *s = &r->blocks[block];
    int64_t w0, w1;
    (void) tid;
    if (!word_range(s, off, size, &w0, &w1)) {
        return;
    }
    for (int64_t i = w0; i <= w1; i++) {
        s->words[i].writer = 0;
        s->words[i].reader = 0;
    }
}

void race_stage_waited(RaceState *r, int32_t block, int64_t tid, int32_t pipe, uint32_t instance)
{
    BlockShadow *s = &r->blocks[block];
    uint32_t *w = &s->waited[pipe * s->threads + tid];
    *w = MAX(*w, instance + 1);
    s->held[pipe * s->threads + tid] = (int32_t) instance;
    s->pipe_max[pipe] = MAX(s->pipe_max[pipe], instance + 1);
}

void race_stage_waited_lanes(RaceState *r, int32_t block, int64_t tid0, uint32_t lanes, int32_t pipe,
                             const uint32_t *instance)
{
    BlockShadow *s = &r->blocks[block];
    uint32_t *waited = &s->waited[pipe * s->threads + tid0];
    int32_t *held = &s->held[pipe * s->threads + tid0];
    uint32_t most = s->pipe_max[pipe];
    if (lanes == UINT32_MAX) {
        /* A converged warp: one pass the compiler can vectorise. */
        for (int l = 0; l < 32; l++) {
            waited[l] = MAX(waited[l], instance[l] + 1);
            held[l] = (int32_t) instance[l];
            most = MAX(most, instance[l] + 1);
        }
    } else {
        for (uint32_t m = lanes; m != 0; m &= m - 1) {
            int l = __builtin_ctz(m);
            waited[l] = MAX(waited[l], instance[l] + 1);
            held[l] = (int32_t) instance[l];
            most = MAX(most, instance[l] + 1);
        }
    }
    s->pipe_max[pipe] = most;
}

void race_stage_released(RaceState *r, int32_t block, int64_t tid, int32_t pipe)
{
    BlockShadow *s = &r->blocks[block];
    s->held[pipe * s->threads + tid] = -1;
}

void race_stage_released_lanes(RaceState *r, int32_t block, int64_t tid0, uint32_t lanes, int32_t pipe)
{
    BlockShadow *s = &r->blocks[block];
    int32_t *held = &s->held[pipe * s->threads + tid0];
    if (lanes == UINT32_MAX) {
        for (int l = 0; l < 32; l++) {
            held[l] = -1;
        }
        return;
    }
    for (uint32_t m = lanes; m != 0; m &= m - 1) {
        held[__builtin_ctz(m)] = -1;
    }
}

void race_groups_waited(RaceState *r, int32_t block, int64_t tid, uint32_t complete_groups)
{
    BlockShadow *s = &r->blocks[block];
    s->groups_done[tid] = MAX(s->groups_done[tid], complete_groups);
}

void race_group_committed(RaceState *r, int32_t block, int64_t tid)
{
    r->blocks[block].group_commits[tid]++;
}

uint32_t race_current_group(RaceState *r, int32_t block, int64_t tid)
{
    return r->blocks[block].group_commits[tid];
}

void race_copies_arrive_on(RaceState *r, int32_t block, int64_t tid0, uint32_t lanes, int32_t mbar,
                           uint32_t phase)
{
    BlockShadow *s = &r->blocks[block];
    if (!s->group_writes) {
        return;
    }
    pools_reserve(s);
    /* A word's record is shared with words these lanes did not write: the
     * words that change get a copy with the barrier, one per record met
     * last (a warp's copy is one run of words). */
    uint32_t from = REC_NONE, to = REC_NONE;
    for (int64_t i = 0; i < s->nwords; i++) {
        WordShadow *w = &s->words[i];
        int64_t lane = (int64_t) w->writer - 1 - tid0;
        if (w->writer == 0 || wrec_at(s, w->wrec)->kind != RACE_TAG_GROUP || lane < 0 || lane >= 32 ||
            !(lanes & (1u << lane))) {
            continue;
        }
        if (w->wrec != from) {
            const WriteRec *old = wrec_at(s, w->wrec);
            from = w->wrec;
            if (old->also_mbar == mbar + 1 && old->also_seq == phase) {
                to = from;
            } else {
                WriteRec copy = *old;
                copy.also_mbar = mbar + 1;
                copy.also_seq = phase;
                to = pool_add(&s->wpool, sizeof(WriteRec));
                *wrec_at(s, to) = copy;
            }
        }
        w->wrec = to;
    }
}

void race_barrier_observed(RaceState *r, int32_t block, int64_t tid, int32_t mbar, uint64_t phases)
{
    BlockShadow *s = &r->blocks[block];
    uint64_t *o = &s->observed[tid * r->mbars + mbar];
    *o = MAX(*o, phases);
}

void race_warp_sync(RaceState *r, int32_t block, int64_t tid0, uint32_t lanes, int tile)
{
    BlockShadow *s = &r->blocks[block];
    for (int t0 = 0; t0 < 32; t0 += tile) {
        uint32_t id = 0;
        for (int l = t0; l < t0 + tile; l++) {
            if ((lanes & (1u << l)) && tid0 + l < s->threads) {
                id = id ? id : ++s->warp_syncs;
                s->warp_sync[tid0 + l] = id;
                s->groups_at_warp_sync[tid0 + l] = s->groups_done[tid0 + l];
            }
        }
    }
}

void race_block_arrive(RaceState *r, int32_t block, int64_t tid)
{
    BlockShadow *s = &r->blocks[block];
    s->arrive_epoch[tid] = s->epoch[tid] + 1;
    s->groups_at_arrive[tid] = s->groups_done[tid];
}

void race_block_pass(RaceState *r, int32_t block, int64_t tid, uint64_t gen)
{
    r->blocks[block].epoch[tid] = (uint32_t) gen;
}

void race_block_complete(RaceState *r, int32_t block, uint64_t gen, const uint64_t *mbar_phases, int32_t nmbars)
{
    BlockShadow *s = &r->blocks[block];
    s->snap_epoch = (uint32_t) gen;
    for (int32_t p = 0; p < r->pipes; p++) {
        s->pipe_snap[p] = s->pipe_max[p];
    }
    for (int32_t m = 0; m < MIN(nmbars, r->mbars); m++) {
        s->mbar_snap[m] = mbar_phases[m];
    }
}
