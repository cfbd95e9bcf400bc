/* race.c: shadow state of shared memory for the race detector (see
 * race.h).  It models no timing: it checks the program's synchronisation
 * against the copies' completion order the other units compute. */
#include "models/race.h"

typedef struct {
    uint16_t writer;     /* writer thread + 1; 0 = no pending async write */
    uint8_t kind;        /* RaceTagKind */
    int32_t obj;
    uint32_t seq;
    SrcLoc loc;          /* the copy's line */
    int32_t also_mbar;   /* mbarrier + 1 whose phase also_seq makes the write visible too, 0 = none */
    uint32_t also_seq;   /* (pipeline_producer_commit: a GROUP write that arrives on a barrier) */
    uint16_t reader;     /* last reader thread + 1; 0 = none */
    uint32_t read_epoch;
    int32_t read_pipe;   /* pipe whose stage the reader held, or -1 */
    uint32_t read_instance;
    SrcLoc read_loc;
} WordShadow;

typedef struct {
    WordShadow *words;
    int64_t nwords;
    int64_t threads;
    uint32_t *epoch;          /* block barriers passed */
    uint32_t *group_commits;  /* commit groups closed */
    uint32_t *groups_done;    /* groups known complete (own waits) */
    uint32_t *arrive_epoch;   /* generation of the barrier the thread last arrived at */
    uint32_t *groups_at_arrive;
    uint32_t *warp_sync;      /* the warp or tile sync the thread passed last (0 = none) */
    uint32_t *groups_at_warp_sync;
    uint32_t warp_syncs;      /* warp and tile syncs passed so far (their ids) */
    uint32_t *waited;         /* [threads][pipes]: stage instances waited (count) */
    int32_t *held;            /* [threads][pipes]: instance held (waited, not released), -1 */
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

/* Has thread tid seen the async write recorded in w? */
static bool visible(const RaceState *r, const BlockShadow *s, const WordShadow *w, int64_t tid)
{
    int64_t writer = w->writer - 1;
    if (w->also_mbar != 0 && barrier_seen(r, s, tid, w->also_mbar - 1, w->also_seq)) {
        return true;
    }
    switch ((RaceTagKind) w->kind) {
    case RACE_TAG_STAGE:
        if (s->waited[tid * r->pipes + w->obj] > w->seq) {
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

char *race_read(RaceState *r, int32_t block, int64_t tid, int64_t off, int64_t size, SrcLoc loc)
{
    BlockShadow *s = &r->blocks[block];
    int64_t w0, w1;
    if (!word_range(s, off, size, &w0, &w1)) {
        return NULL;
    }
    char *warning = NULL;
    int32_t held_pipe = -1;
    uint32_t held_instance = 0;
    for (int32_t p = 0; p < r->pipes && s->held != NULL; p++) {
        if (s->held[tid * r->pipes + p] >= 0) {
            held_pipe = p;
            held_instance = (uint32_t) s->held[tid * r->pipes + p];
        }
    }
    for (int64_t i = w0; i <= w1; i++) {
        WordShadow *w = &s->words[i];
        if (w->writer != 0 && warning == NULL && !visible(r, s, w, tid)) {
            const char *how = w->kind == RACE_TAG_STAGE ? "its pipeline stage's consumer_wait"
                              : w->also_mbar != 0 ? "a wait on the barrier it arrives on (pipeline_producer_commit)"
                              : w->kind == RACE_TAG_GROUP ? "the writer's wait for its commit group and a"
                                                            " __syncthreads after it"
                                                          : "a wait on its cuda::barrier phase";
            warning = g_strdup_printf("read-after-write race: line %u: thread %" G_GINT64_FORMAT
                                      " reads shared memory offset %" G_GINT64_FORMAT " that the async copy at line"
                                      " %u (thread %d) writes, before %s",
                                      loc.line, tid, i * 4, w->loc.line, w->writer - 1, how);
        }
        w->reader = (uint16_t) (tid + 1);
        w->read_epoch = s->epoch[tid];
        w->read_pipe = held_pipe;
        w->read_instance = held_instance;
        w->read_loc = loc;
    }
    return warning;
}

char *race_async_write(RaceState *r, int32_t block, int64_t tid, int64_t off, int64_t size, RaceTag tag,
                       int32_t writer_pipe_stages)
{
    BlockShadow *s = &r->blocks[block];
    int64_t w0, w1;
    if (!word_range(s, off, size, &w0, &w1)) {
        return NULL;
    }
    char *warning = NULL;
    for (int64_t i = w0; i <= w1; i++) {
        WordShadow *w = &s->words[i];
        if (w->reader != 0 && w->reader - 1 != tid && warning == NULL) {
            bool ordered = s->epoch[tid] > w->read_epoch;
            if (!ordered && tag.kind == RACE_TAG_STAGE && w->read_pipe == tag.obj &&
                (uint64_t) w->read_instance + (uint64_t) writer_pipe_stages <= tag.seq) {
                ordered = true; /* the reader released before this stage was acquired */
            }
            if (!ordered) {
                warning = g_strdup_printf("write-after-read race: line %u: thread %" G_GINT64_FORMAT "'s async copy"
                                          " overwrites shared memory offset %" G_GINT64_FORMAT " that thread %d read"
                                          " at line %u, with no __syncthreads or pipeline release in between",
                                          tag.loc.line, tid, i * 4, w->reader - 1, w->read_loc.line);
            }
        }
        w->writer = (uint16_t) (tid + 1);
        w->kind = (uint8_t) tag.kind;
        w->obj = tag.obj;
        w->seq = tag.seq;
        w->loc = tag.loc;
        w->also_mbar = 0;
        w->reader = 0;
        s->group_writes |= tag.kind == RACE_TAG_GROUP;
    }
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
    uint32_t *w = &s->waited[tid * r->pipes + pipe];
    *w = MAX(*w, instance + 1);
    s->held[tid * r->pipes + pipe] = (int32_t) instance;
    s->pipe_max[pipe] = MAX(s->pipe_max[pipe], instance + 1);
}

void race_stage_released(RaceState *r, int32_t block, int64_t tid, int32_t pipe)
{
    BlockShadow *s = &r->blocks[block];
    s->held[tid * r->pipes + pipe] = -1;
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
    for (int64_t i = 0; s->group_writes && i < s->nwords; i++) {
        WordShadow *w = &s->words[i];
        int64_t lane = (int64_t) w->writer - 1 - tid0;
        if (w->writer != 0 && w->kind == RACE_TAG_GROUP && lane >= 0 && lane < 32 && (lanes & (1u << lane))) {
            w->also_mbar = mbar + 1;
            w->also_seq = phase;
        }
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
