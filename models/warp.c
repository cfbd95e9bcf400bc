/* warp.c: warps executing a compiled program, SIMT.
 *
 * Hardware behaviour: a warp runs its 32 lanes in lock step.  Lanes that
 * take different paths of a branch split into paths (Split) that issue in
 * turn (independent thread scheduling, Volta and later): the warp runs one
 * path until it blocks or reaches the reconvergence point, then another.
 * Paths reconverge at the immediate post-dominator of the branch (the `join`
 * the compiler recorded), as the compiler's BSSY/BSYNC pairs make them.
 *
 * Each operation is issued as the instructions libcudacxx and the hardware
 * execute for it; their costs come from the architecture file.  The rules of
 * cuda::pipeline, cuda::barrier and memcpy_async are checked here and in
 * pipeline.c, those of OpenCL pipes here and in cl_pipe.c (cost model in
 * the "OpenCL pipes" section); each carries a SPEC tag that a test under
 * tests/ cites. */
#include "models/sm_internal.h"

#include "models/race.h"

#include <stdarg.h>

typedef enum {
    STEP_CONTINUE,  /* a control operation ran; go on with the warp's focus */
    STEP_ISSUED,    /* an instruction issued; the split's next cycle is set */
    STEP_WAIT,      /* nothing issued: the split waits (ready_at or blocked) */
    STEP_STOP       /* the run failed */
} StepResult;

static const Op *op_at(const Sm *sm, int32_t pc)
{
    return &g_array_index(sm->prog->ops, Op, pc);
}

static const ProgVar *var_at(const Sm *sm, int32_t i)
{
    return &g_array_index(sm->prog->vars, ProgVar, i);
}

static inline int lanes_in(LaneMask m)
{
    return __builtin_popcount(m);
}

static inline int lowest(LaneMask m)
{
    return m ? __builtin_ctz(m) : 0;
}

/* ---------------------------------------------------------------- errors */

static StepResult fail_op(Sm *sm, Warp *w, LaneMask lanes, SrcLoc loc, int code, const char *fmt, ...)
    G_GNUC_PRINTF(6, 7);
static StepResult fail_op(Sm *sm, Warp *w, LaneMask lanes, SrcLoc loc, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_autofree char *who = sm_describe_lanes(w, lanes);
    g_autofree char *full = g_strdup_printf("%s\n    at cycle %" G_GUINT64_FORMAT ", %s", msg, sm->engine.now, who);
    GError *err = NULL;
    trace_set_error(&err, code, sm->prog->trace, loc, "%s", full);
    sm_fail(sm, err);
    return STEP_STOP;
}

#define RULE(sm, w, m, op, ...) fail_op((sm), (w), (m), (op)->loc, SIM_ERROR_PROGRAM, __VA_ARGS__)

static bool eval(Sm *sm, Warp *w, LaneMask m, const Op *op, const ExprNode *n, SimLaneValue *out)
{
    SimEvalEnv env = { w->vals, w->tid0, w->index, w->block };
    const ExprNode *bad = NULL;
    int bad_lane = 0;
    SimArithStatus st = sim_eval(n, &env, m, out, &bad, &bad_lane);
    if (st != SIM_ARITH_OK) {
        fail_op(sm, w, 1u << bad_lane, bad ? bad->loc : op->loc, SIM_ERROR_PROGRAM, "%s", sim_arith_message(st));
        return false;
    }
    return true;
}

/* The value of a uniform-per-warp operand: all lanes of m must agree. */
static bool eval_same(Sm *sm, Warp *w, LaneMask m, const Op *op, const ExprNode *n, const char *what, int64_t *out)
{
    SimLaneValue v;
    if (!eval(sm, w, m, op, n, &v)) {
        return false;
    }
    int first = lowest(m);
    *out = sim_lane_value(&v, first);
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if ((m & (1u << l)) && sim_lane_value(&v, l) != *out) {
            RULE(sm, w, m, op, "%s differs between threads (%" G_GINT64_FORMAT " in thread %" G_GINT64_FORMAT
                 ", %" G_GINT64_FORMAT " in thread %" G_GINT64_FORMAT "): it must be the same for the whole group",
                 what, *out, w->tid0 + first, sim_lane_value(&v, l), w->tid0 + l);
            return false;
        }
    }
    return true;
}

static void store_var(Warp *w, const ProgVar *v, LaneMask m, const SimLaneValue *val)
{
    if (!v->varying) {
        w->vals[v->slot] = sim_lane_value(val, lowest(m));
        return;
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (m & (1u << l)) {
            w->vals[v->slot + l] = sim_lane_value(val, l);
        }
    }
}

static void store_lanes(Warp *w, const ProgVar *v, LaneMask m, int64_t value)
{
    SimLaneValue val;
    val.uniform = true;
    val.s = value;
    store_var(w, v, m, &val);
}

/* --------------------------------------------------------- divergence */

static int32_t frame_new(Warp *w, int32_t join, LaneMask mask, int32_t parent)
{
    for (int32_t i = 0; i < w->nframes; i++) {
        if (!w->frames[i].used) {
            w->frames[i] = (Frame) { join, mask, parent, true };
            return i;
        }
    }
    w->frames = g_renew(Frame, w->frames, w->nframes + 1);
    w->frames[w->nframes] = (Frame) { join, mask, parent, true };
    return w->nframes++;
}

static int32_t split_new(Warp *w)
{
    for (int32_t i = 0; i < MAX_SPLITS; i++) {
        if (w->split[i].status == SPLIT_FREE) {
            /* gen survives reuse: an event armed for the slot's previous
             * split must not match the new one. */
            uint32_t gen = w->split[i].gen;
            memset(&w->split[i], 0, sizeof w->split[i]);
            w->split[i].gen = gen + 1;
            w->split[i].role = -1;
            w->split[i].frame = -1;
            return i;
        }
    }
    return -1;
}

void warp_refocus(Warp *w)
{
    Split *f = &w->split[w->focus];
    if (f->status == SPLIT_RUNNABLE) {
        return;
    }
    int32_t best = -1;
    for (int32_t i = MAX_SPLITS - 1; i >= 0; i--) {
        const Split *s = &w->split[i];
        if (s->status == SPLIT_RUNNABLE && (best < 0 || s->ready_at < w->split[best].ready_at)) {
            best = i;
        }
    }
    if (best >= 0) {
        w->focus = best;
        return;
    }
    if (f->status != SPLIT_FREE) {
        return;
    }
    /* The focus vanished (merged or exited): prefer a blocked path, whose
     * reason explains the wait, over one parked at reconvergence. */
    for (int32_t i = 0; i < MAX_SPLITS; i++) {
        if (w->split[i].status == SPLIT_BLOCKED) {
            w->focus = i;
            return;
        }
    }
    for (int32_t i = 0; i < MAX_SPLITS; i++) {
        if (w->split[i].status != SPLIT_FREE) {
            w->focus = i;
            return;
        }
    }
}

/* Merges the paths parked at frame f's join if every live lane of the
 * frame has arrived.  Returns the merged split or -1. */
static int32_t try_merge(Warp *w, int32_t f)
{
    Frame *fr = &w->frames[f];
    LaneMask arrived = 0;
    int32_t keep = -1;
    for (int32_t i = 0; i < MAX_SPLITS; i++) {
        Split *s = &w->split[i];
        if (s->status == SPLIT_PARKED && s->frame == f) {
            arrived |= s->mask;
            if (keep < 0) {
                keep = i;
            }
        }
    }
    if (keep < 0 || (fr->mask & w->live & ~arrived) != 0) {
        return -1;
    }
    for (int32_t i = 0; i < MAX_SPLITS; i++) {
        Split *s = &w->split[i];
        if (i != keep && s->status == SPLIT_PARKED && s->frame == f) {
            s->status = SPLIT_FREE;
        }
    }
    Split *k = &w->split[keep];
    k->mask = arrived;
    k->status = SPLIT_RUNNABLE;
    k->frame = fr->parent;
    k->role = -1;
    k->step = 0;
    fr->used = false;
    return keep;
}

/* Moves split si to pc; if that is its reconvergence point it parks there
 * and may merge.  Returns the split now holding its lanes. */
static int32_t goto_pc(Warp *w, int32_t si, int32_t pc, SimCycle t)
{
    Split *s = &w->split[si];
    s->pc = pc;
    s->step = 0;
    while (s->frame >= 0 && w->frames[s->frame].join == s->pc) {
        s->status = SPLIT_PARKED;
        int32_t m = try_merge(w, s->frame);
        if (m < 0) {
            return si;
        }
        si = m;
        s = &w->split[si];
        s->ready_at = MAX(s->ready_at, t);
    }
    return si;
}

/* Re-examines every frame after lanes exited: merges may now complete. */
static void recheck_merges(Warp *w, SimCycle t)
{
    bool again = true;
    while (again) {
        again = false;
        for (int32_t f = 0; f < w->nframes; f++) {
            if (!w->frames[f].used) {
                continue;
            }
            int32_t m = try_merge(w, f);
            if (m >= 0) {
                goto_pc(w, m, w->split[m].pc, t);
                again = true;
            }
        }
    }
}

/* -------------------------------------------------------------- waking */

static void block_split(Warp *w, Split *s, WaitKind kind, SimWarpState reason, int32_t obj, uint64_t value,
                        bool token, SimCycle t)
{
    s->status = SPLIT_BLOCKED;
    s->wait = kind;
    s->wait_state = reason;
    s->wait_obj = obj;
    s->wait_value = value;
    s->wait_token = token;
    s->blocked_since = t;
    s->gen++;
    (void) w;
}

/* How long after a phase completes a thread waiting on it runs again: on
 * sm_90 try_wait suspends the thread until the phase completes; on sm_80
 * libcudacxx polls test_wait, so the thread notices at its next poll. */
static SimCycle mbar_resume(const Sm *sm, const Split *s, SimCycle done)
{
    if (sm->arch.sm_version >= 90) {
        return done + (SimCycle) sm->arch.mbar_wake;
    }
    SimCycle period = (SimCycle) sm->arch.mbar_poll;
    SimCycle since = MIN(s->blocked_since, done);
    SimCycle polls = (done - since + period - 1) / period;
    return since + polls * period + (SimCycle) sm->arch.mbar_test;
}

/* When a warp-wide mbarrier arrive (or cp.async.mbarrier.arrive) issued at
 * t reaches its barrier through the SM's mbarrier unit, and when a
 * try_wait does (barrier.mbarrier_*_interval; models/barrier.h). */
static SimCycle mbar_op_at(Sm *sm, SimCycle t)
{
    return mbar_unit_take(&sm->mbar_unit, t, sm->arch.mbar_arrive_interval);
}

static SimCycle mbar_wait_at(Sm *sm, SimCycle t)
{
    return mbar_unit_take(&sm->mbar_unit, t, sm->arch.mbar_wait_interval);
}

void warp_barrier_wake(void *ctx, const BarrierWaiter *waiter, SimCycle now)
{
    Sm *sm = ctx;
    Warp *w = &sm->warps[waiter->warp];
    Split *s = &w->split[waiter->split];
    if (s->status != SPLIT_BLOCKED) {
        return;
    }
    SimCycle at;
    if (s->wait == WAIT_BLOCK_BAR) {
        at = now + (SimCycle) (sm->arch.syncthreads_base +
                               sm->arch.syncthreads_per_warp * sm->prog->warps);
    } else if (s->wait == WAIT_MBAR) {
        at = mbar_resume(sm, s, now);
        if (sm->arch.sm_version >= 90) {
            at += mbar_unit_wake(&sm->mbar_unit, now, sm->arch.mbar_wake_per_waiter);
        }
        if (sm->arch.sm_version < 90) {
            sm->stats.poll_instructions += (at - s->blocked_since) / (SimCycle) sm->arch.mbar_poll;
        }
    } else {
        at = now;
    }
    sm_split_wake(sm, w, waiter->split, at);
}

/* ------------------------------------------------------- stage statistics */

static SimStageStats *pipe_stats(Sm *sm, Pipe *p)
{
    if (p->stats == NULL) {
        const ProgPState *ps = &g_array_index(sm->prog->pstates, ProgPState, p->pstate);
        p->stats = sim_stage_stats_new(ps->name, ps->stages);
    }
    return p->stats;
}

void warp_free_stage_stats(Sm *sm)
{
    for (int32_t b = 0; b < sm->nblocks; b++) {
        for (int32_t k = 0; k < sm->npipes; k++) {
            Pipe *p = &sm->blocks[b].pipes[k];
            if (p->stats != NULL) {
                sim_stage_stats_free(p->stats);
                p->stats = NULL;
            }
        }
    }
}

/* A block pipeline whose barriers include mbarrier `mbar`, or NULL. */
static Pipe *pipe_of_mbar(Sm *sm, Block *b, int32_t mbar, int64_t *slot, bool *produced)
{
    for (int32_t k = 0; k < sm->npipes; k++) {
        Pipe *p = &b->pipes[k];
        if (p->block_scope && p->live && mbar >= p->mbar_base && mbar < p->mbar_base + 2 * p->stages) {
            *slot = (mbar - p->mbar_base) / 2;
            *produced = (mbar - p->mbar_base) % 2 == 0;
            return p;
        }
    }
    return NULL;
}

/* The name of user barrier mbar (borrowed), or NULL for a pipeline's. */
static const char *barrier_name(const Sm *sm, int32_t mbar)
{
    if (mbar < 0 || mbar >= (int32_t) sm->prog->barriers->len) {
        return NULL;
    }
    return g_array_index(sm->prog->barriers, ProgBarrier, mbar).name;
}

/* The timeline track of block b's barrier phases (instant events). */
static int barrier_track(Sm *sm, int32_t block)
{
    char name[48];
    g_snprintf(name, sizeof name, "barriers (block %d)", (int) block);
    return sim_timeline_track(sm->tl, TRACK_BARRIER, name, 90000 + block);
}

/* Records what a phase completion means for a pipeline's stage. */
static void note_phase(Sm *sm, Block *b, int32_t mbar, uint64_t before, SimCycle now)
{
    if (b->mbars[mbar].phase == before) {
        return;
    }
    sm->stats.mbar_phases++;
    int64_t slot;
    bool produced;
    Pipe *p = pipe_of_mbar(sm, b, mbar, &slot, &produced);
    if (sm->tl != NULL) {
        /* An instant event per completed phase. */
        SimSliceArgs args = SIM_SLICE_ARGS_INIT;
        args.barrier = barrier_name(sm, mbar);
        args.stage = p != NULL ? slot : -1;
        args.phase = (int64_t) b->mbars[mbar].phase - 1;
        g_autofree char *what = sm_describe_mbar(sm, b->id, mbar);
        g_autofree char *name = g_strdup_printf("%s: phase completed", what);
        sim_timeline_instant(sm->tl, barrier_track(sm, b->id), name, now, &args);
    }
    if (p == NULL) {
        return;
    }
    StageLife *l = &p->life[slot];
    if (produced) {
        l->ready = now;
        l->has_ready = true;
        return;
    }
    /* Consumed phase: every consumer released the stage. */
    SimStageStats *st = pipe_stats(sm, p);
    if (l->open) {
        if (l->has_commit) {
            sim_dist_add(&st->step[STAGE_STEP_FILL], l->committed - l->acquired);
        }
        if (l->has_commit && l->has_ready) {
            sim_dist_add(&st->step[STAGE_STEP_LAND], l->ready > l->committed ? l->ready - l->committed : 0);
        }
        if (l->has_ready && l->has_wait) {
            sim_dist_add(&st->step[STAGE_STEP_IDLE], l->waited > l->ready ? l->waited - l->ready : 0);
        }
        if (l->has_wait) {
            sim_dist_add(&st->step[STAGE_STEP_CONSUME], now - l->waited);
        }
        sim_dist_add(&st->exposed, l->exposed);
        st->instances++;
        if (sm->tl != NULL) {
            char name[64];
            g_snprintf(name, sizeof name, "%s stage %" G_GINT64_FORMAT " (block %d)", p->stats->name, slot, b->id);
            int track = sim_timeline_track(sm->tl, TRACK_STAGE, name,
                                           50000 + b->id * 1024 + (int) (p->mbar_base + slot));
            SimCycle a = l->acquired;
            SimCycle c = l->has_commit ? MAX(l->committed, a) : a;
            SimCycle r = l->has_ready ? MAX(l->ready, c) : c;
            SimCycle wt = l->has_wait ? MAX(l->waited, r) : r;
            SimSliceArgs args = SIM_SLICE_ARGS_INIT;
            args.stage = slot;
            sim_timeline_slice(sm->tl, track, "acquired", a, c, &args);
            sim_timeline_slice(sm->tl, track, "in flight", c, r, &args);
            sim_timeline_slice(sm->tl, track, "ready", r, wt, &args);
            sim_timeline_slice(sm->tl, track, "consumed", wt, MAX(now, wt), &args);
            sim_timeline_counter_add(sm->tl, "stages occupied", sm->engine.now, now, -1);
        }
    }
    pipe_stage_close(p, slot, now);
}

void warp_apply_action(Sm *sm, const Action *a, SimCycle now)
{
    Block *b = &sm->blocks[a->block];
    MBarrier *m = &b->mbars[a->mbar];
    uint64_t before = m->phase;
    MBarStatus st = a->kind == ACT_ARRIVE ? mbar_arrive(m, a->amount, now, NULL, warp_barrier_wake, sm)
                                          : mbar_complete_tx(m, a->amount, now, warp_barrier_wake, sm);
    if (st != MBAR_OK) {
        g_autofree char *what = sm_describe_mbar(sm, a->block, a->mbar);
        fail_op(sm, &sm->warps[a->warp], a->lanes, a->loc, SIM_ERROR_PROGRAM, "%s: %s (when its async copies completed)",
                what, mbar_status_message(st));
        return;
    }
    note_phase(sm, b, a->mbar, before, now);
}

/* ----------------------------------------------- warp and tile syncs */

/* The lanes of the tiles of `lanes` threads (a power of two up to 32) that
 * mask m touches. */
static LaneMask tile_lanes(LaneMask m, int64_t lanes)
{
    LaneMask one = lanes >= SIM_WARP_SIZE ? ~(LaneMask) 0 : ((LaneMask) 1 << lanes) - 1;
    LaneMask out = 0;
    for (int64_t l = 0; l < SIM_WARP_SIZE; l += lanes) {
        if (m & (one << l)) {
            out |= one << l;
        }
    }
    return out;
}

/* Whether lanes m, syncing over tiles of `lanes` threads (32: the warp),
 * may pass: every live lane of their tiles has arrived. */
static bool syncwarp_done(const Warp *w, LaneMask m, int64_t lanes)
{
    LaneMask need = tile_lanes(m, lanes) & w->live;
    return (w->syncwarp_arrived & need) == need;
}

/* Wakes, at cycle t, the splits blocked in a __syncwarp or a tile's sync
 * whose tiles have all arrived, and clears their lanes' arrivals; lanes
 * `also` (the caller's, syncing tiles of `lanes`) pass with them.  For the
 * race detector each tile's lanes passed one sync together. */
static void syncwarp_wake(Sm *sm, Warp *w, LaneMask also, int64_t lanes, SimCycle t)
{
    LaneMask passed = 0;
    for (int32_t i = 0; i < MAX_SPLITS; i++) {
        Split *o = &w->split[i];
        if (o->status == SPLIT_BLOCKED && o->wait == WAIT_SYNCWARP && syncwarp_done(w, o->mask, (int64_t) o->wait_value)) {
            passed |= o->mask;
            lanes = also == 0 ? (int64_t) o->wait_value : lanes;
            sm_split_wake(sm, w, i, t);
        }
    }
    passed |= also;
    w->syncwarp_arrived &= ~passed;
    if (sm->race && passed != 0) {
        race_warp_sync(sm->race, w->block, w->tid0, passed, (int) lanes);
    }
}

/* ---------------------------------------------------------- thread exit */

static void pipes_thread_exit(Sm *sm, Warp *w, LaneMask m, SimCycle now)
{
    Block *b = &sm->blocks[w->block];
    for (int32_t k = 0; k < sm->npipes; k++) {
        Pipe *p = &b->pipes[k];
        if (!p->block_scope || !p->live) {
            continue;
        }
        /* The pipeline's destructor quits for threads still active. */
        int64_t n = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            int64_t tid = w->tid0 + l;
            if ((m & (1u << l)) && (p->flags[tid] & PT_ACTIVE)) {
                p->flags[tid] &= (uint8_t) ~PT_ACTIVE;
                n++;
            }
        }
        if (n > 0) {
            p->refcount -= n;
            if (p->refcount == 0) {
                for (int64_t s = 0; s < p->stages; s++) {
                    mbar_invalidate(pipe_produced(p, b->mbars, s));
                    mbar_invalidate(pipe_consumed(p, b->mbars, s));
                }
                p->live = false;
            }
        }
    }
    (void) now;
}

static void collective_check(Sm *sm, Block *b, SimCycle now);
static void cl_lanes_exit(Sm *sm, Warp *w, LaneMask m);

void warp_lanes_exit(Sm *sm, Warp *w, int32_t si, LaneMask m, SimCycle now)
{
    Block *b = &sm->blocks[w->block];
    int n = lanes_in(m & w->live);
    m &= w->live;
    w->live &= ~m;
    b->live_threads -= n;
    Split *s = &w->split[si];
    s->mask &= ~m;
    if (s->mask == 0) {
        s->status = SPLIT_FREE;
    }
    pipes_thread_exit(sm, w, m, now);
    cl_lanes_exit(sm, w, m);
    block_barrier_exit(&b->bar, n, now, warp_barrier_wake, sm);
    recheck_merges(w, now);
    if (w->live != 0 && w->syncwarp_arrived != 0) {
        /* Threads that exit no longer hold a __syncwarp back. */
        syncwarp_wake(sm, w, 0, SIM_WARP_SIZE, now);
    }
    collective_check(sm, b, now);
    if (w->live == 0) {
        w->exit_cycle = now;
        sm->end_cycle = MAX(sm->end_cycle, now);
        sm->live_warps--;
        sm->smsp_live[w->smsp]--;
        for (int32_t i = 0; i < MAX_SPLITS; i++) {
            w->split[i].status = SPLIT_FREE;
        }
    }
    warp_refocus(w);
}

/* ------------------------------------------------------- make_pipeline */

/* For the race detector: block b's barrier completed a generation (a
 * __syncthreads, or make_pipeline's group sync). */
static void race_sync_complete(Sm *sm, int32_t block)
{
    if (sm->race == NULL) {
        return;
    }
    Block *b = &sm->blocks[block];
    uint64_t *phases = g_new(uint64_t, MAX(b->nmbars, 1));
    for (int32_t k = 0; k < b->nmbars; k++) {
        phases[k] = b->mbars[k].phase;
    }
    race_block_complete(sm->race, block, b->bar.generation, phases, b->nmbars);
    g_free(phases);
}

/* When every live thread of the block reached the open make_pipeline,
 * finish it and release the group (group.sync()). */
static void collective_check(Sm *sm, Block *b, SimCycle now)
{
    if (b->pending_make < 0) {
        return;
    }
    int32_t slot = sm->pipe_slot[b->pending_make];
    Pipe *p = &b->pipes[slot];
    if (p->arrived < b->live_threads) {
        return;
    }
    const Op *op = op_at(sm, b->pending_make);
    const ProgPState *ps = &g_array_index(sm->prog->pstates, ProgPState, op->obj);
    int64_t producers = op->sub == PIPE_MODE_ROLE ? p->producer_votes : p->arg;
    /* The group must be the whole block (make_pipeline(block, ...)). */
    if (p->arrived != b->threads && b->live_threads != b->threads) {
        /* Exited threads are not in the group's count; libcudacxx would
         * still init the barriers for group.size(). */
    }
    for (int32_t k = 0; k < sm->npipes; k++) {
        Pipe *o = &b->pipes[k];
        /* A live pipeline on the state (this call's own, made in an
         * earlier pass, is destroyed at the end of its block first). */
        if (o->block_scope && o->live && o->pstate == op->obj) {
            Warp *w0 = &sm->warps[b->first_warp];
            fail_op(sm, w0, w0->live, op->loc, SIM_ERROR_PROGRAM,
                    "make_pipeline on pipeline_shared_state '%s', which the pipeline made at line %u still uses",
                    ps->name, op_at(sm, o->make_op)->loc.line);
            return;
        }
    }
    const char *err = pipe_block_make(p, b->mbars, op->obj, ps->stages, b->pstate_base[op->obj], (PipeMode) op->sub,
                                      producers, now);
    if (err != NULL) {
        Warp *w0 = &sm->warps[b->first_warp];
        fail_op(sm, w0, w0->live, op->loc, SIM_ERROR_PROGRAM, "%s", err);
        return;
    }
    /* A make_pipeline run again (in a loop body, after the destructor)
     * adds to the statistics of its earlier passes. */
    pipe_stats(sm, p);
    /* Role bits for the statistics. */
    for (int64_t tid = 0; tid < b->threads; tid++) {
        /* Roles partitioned by count are fixed by each thread's first
         * operation (check_lanes records them then). */
        if ((p->flags[tid] & PT_MADE) && b->thread_role[tid] == 0) {
            b->thread_role[tid] = p->role[tid];
        }
    }
    b->role_version++;
    /* libcudacxx: rank 0 initialises 2 x stages barriers between group
     * syncs (one sync, or three for the role form). */
    int64_t syncs = op->sub == PIPE_MODE_ROLE ? 3 : 1;
    SimCycle at = now + (SimCycle) (syncs * (sm->arch.syncthreads_base + sm->arch.syncthreads_per_warp * sm->prog->warps) +
                                    2 * ps->stages * sm->arch.mbar_arrive);
    b->pending_make = -1;
    p->arrived = 0;
    /* The group's sync orders what the threads did before it (a barrier
     * generation for the race detector). */
    b->bar.generation++;
    race_sync_complete(sm, (int32_t) (b - sm->blocks));
    p->producer_votes = 0;
    p->arg_first_tid = -1;
    for (int32_t wi = 0; wi < (int32_t) sm->prog->warps; wi++) {
        Warp *w = &sm->warps[b->first_warp + wi];
        for (int32_t i = 0; i < MAX_SPLITS; i++) {
            Split *s = &w->split[i];
            s->role = -1;
            if (s->status == SPLIT_BLOCKED && s->wait == WAIT_COLLECTIVE && s->wait_obj == slot) {
                for (int l = 0; sm->race && l < SIM_WARP_SIZE; l++) {
                    if (s->mask & (1u << l)) {
                        race_block_pass(sm->race, w->block, w->tid0 + l, b->bar.generation);
                    }
                }
                sm_split_wake(sm, w, i, at);
            }
        }
    }
}

static StepResult exec_make_block(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t)
{
    Split *s = &w->split[si];
    Block *b = &sm->blocks[w->block];
    int32_t pc = (int32_t) (op - op_at(sm, 0));
    int32_t slot = sm->pipe_slot[pc];
    Pipe *p = &b->pipes[slot];
    if (b->pending_make >= 0 && b->pending_make != pc) {
        const Op *other = op_at(sm, b->pending_make);
        return RULE(sm, w, s->mask, op,
                    "make_pipeline is collective: threads of the group call it at line %u and at line %u (with"
                    " different shared states or at different points); every thread of the group must make the same"
                    " call (SPEC make-pipeline-2)", other->loc.line, op->loc.line);
    }
    int64_t arg = 0;
    uint8_t roles[SIM_WARP_SIZE] = { 0 };
    if (op->sub == PIPE_MODE_PRODUCER_COUNT) {
        if (!eval_same(sm, w, s->mask, op, op->e[0], "make_pipeline's producer_count", &arg)) {
            return STEP_STOP;
        }
        if (p->arg_first_tid >= 0 && arg != p->arg) {
            /* SPEC make-pipeline-2: producer_count must be the same across
             * all threads of the group. */
            return RULE(sm, w, s->mask, op,
                        "make_pipeline's producer_count differs across the group (%" G_GINT64_FORMAT " in thread %"
                        G_GINT64_FORMAT ", %" G_GINT64_FORMAT " here): undefined behaviour (SPEC make-pipeline-2)",
                        p->arg, p->arg_first_tid, arg);
        }
        if (arg < 0) {
            return RULE(sm, w, s->mask, op, "make_pipeline's producer_count is negative (%" G_GINT64_FORMAT ")", arg);
        }
    } else if (op->sub == PIPE_MODE_ROLE) {
        SimLaneValue v;
        if (!eval(sm, w, s->mask, op, op->e[0], &v)) {
            return STEP_STOP;
        }
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (s->mask & (1u << l)) {
                roles[l] = sim_lane_value(&v, l) == 0 ? ROLEBIT_PRODUCER : ROLEBIT_CONSUMER;
                p->producer_votes += roles[l] == ROLEBIT_PRODUCER;
            }
        }
    }
    if (p->arg_first_tid < 0) {
        p->arg = arg;
        p->arg_first_tid = w->tid0 + lowest(s->mask);
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (s->mask & (1u << l)) {
            uint8_t role = op->sub == PIPE_MODE_UNIFIED ? (ROLEBIT_PRODUCER | ROLEBIT_CONSUMER)
                           : op->sub == PIPE_MODE_ROLE  ? roles[l]
                                                        : 0; /* fixed by its first operation */
            pipe_thread_made(p, w->tid0 + l, role);
        }
    }
    p->arrived += lanes_in(s->mask);
    for (int l = 0; sm->race && l < SIM_WARP_SIZE; l++) {
        if (s->mask & (1u << l)) {
            /* make_pipeline's group.sync() is the block's barrier. */
            race_block_arrive(sm->race, w->block, w->tid0 + l);
        }
    }
    b->pending_make = pc;
    block_split(w, s, WAIT_COLLECTIVE, WS_BLOCK_BARRIER, slot, 0, false, t);
    s->pc = pc + 1;
    s->step = 0;
    collective_check(sm, b, t);
    return STEP_ISSUED;
}

/* ------------------------------------------------------------ pipelines */

static void warp_schedule_timeout(Sm *sm, Warp *w, int32_t si, SimCycle deadline);

static Pipe *pipe_for(Sm *sm, Warp *w, const Op *op)
{
    return &sm->blocks[w->block].pipes[sm->pipe_slot[op->obj]];
}

void warp_op_place(Sm *sm, const Warp *w, int32_t pc, int32_t *stage, const char **barrier)
{
    const Op *op = &g_array_index(sm->prog->ops, Op, pc);
    const Split *s = &w->split[w->focus];
    int64_t tid = w->tid0 + lowest(s->mask);
    *stage = -1;
    *barrier = NULL;
    bool head = false;
    switch (op->code) {
    case OP_PIPE_ACQUIRE:
    case OP_PIPE_COMMIT:
    case OP_PIPE_COMMIT_BAR:
        head = true;
        break;
    case OP_PIPE_WAIT:
    case OP_PIPE_WAIT_FOR:
    case OP_PIPE_WAIT_PRIOR:
    case OP_PIPE_RELEASE:
        break;
    case OP_MEMCPY:
        if (op->aux == SYNC_BARRIER) {
            *barrier = barrier_name(sm, op->obj);
            return;
        }
        if (op->aux != SYNC_PIPE) {
            return;
        }
        head = true;
        break;
    case OP_MEMCPY_TX:
    case OP_BAR_INIT: case OP_BAR_ARRIVE: case OP_BAR_ARRIVE_TX: case OP_BAR_EXPECT_TX:
    case OP_BAR_WAIT: case OP_BAR_WAIT_PARITY: case OP_BAR_ARRIVE_WAIT: case OP_BAR_ARRIVE_DROP:
        *barrier = barrier_name(sm, op->obj);
        return;
    case OP_SYNCTHREADS:
        *barrier = "__syncthreads";
        return;
    default:
        return;
    }
    if (op->obj < 0 || sm->pipe_slot[op->obj] < 0) {
        return;
    }
    const Pipe *p = &sm->blocks[w->block].pipes[sm->pipe_slot[op->obj]];
    if (p->block_scope && p->live && (p->flags[tid] & PT_MADE)) {
        *stage = head ? p->head[tid] : p->tail[tid];
    }
}

/* Checks each lane's protocol state; returns false (run failed) on misuse. */
static bool check_lanes(Sm *sm, Warp *w, Split *s, const Op *op, Pipe *p, uint8_t role_bits)
{
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (!(s->mask & (1u << l))) {
            continue;
        }
        int64_t tid = w->tid0 + l;
        uint8_t before = p->role[tid];
        const char *err = pipe_check_role(p, tid, role_bits);
        if (err != NULL) {
            RULE(sm, w, 1u << l, op, "%s: %s", op_code_name(op->code), err);
            return false;
        }
        if (before == 0 && p->role[tid] != 0) {
            /* Partitioned by count: the first operation fixed the role. */
            Block *b = &sm->blocks[w->block];
            if (b->thread_role[tid] == 0) {
                b->thread_role[tid] = p->role[tid];
                s->role = -1;
            }
        }
    }
    return true;
}

/* The cycles a wait_parity call costs before it can return, even when the
 * phase is already complete (libcudacxx reads the clock, then polls).  It is
 * measured to be much longer while the warp has cp.async in flight. */
static SimCycle wait_call_cost(const Sm *sm, const Warp *w, LaneMask m, SimCycle t)
{
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if ((m & (1u << l)) && w->lane_copies[l] > t) {
            return (SimCycle) sm->arch.mbar_test_copies;
        }
    }
    return (SimCycle) sm->arch.mbar_test;
}

/* Block scope: the lanes of `left` whose stage index idx[tid] (the
 * pipeline's head or tail) is that of the lowest lane, stored in *slot.
 * Converged threads form one group; diverged stage positions several. */
static LaneMask lanes_at_slot(const Warp *w, LaneMask left, const uint8_t *idx, int64_t *slot)
{
    *slot = idx[w->tid0 + lowest(left)];
    LaneMask grp = 0;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if ((left & (1u << l)) && idx[w->tid0 + l] == *slot) {
            grp |= 1u << l;
        }
    }
    return grp;
}

/* Moves thread tid's head or tail (idx) to the next stage; wrapping past
 * the last stage flips the thread's parity bit for that barrier set. */
static void next_stage(Pipe *p, uint8_t *idx, int64_t tid, uint8_t parity_bit)
{
    if (++idx[tid] == p->stages) {
        idx[tid] = 0;
        p->flags[tid] ^= parity_bit;
    }
}

/* Acquire / consumer_wait on a block pipeline: wait until, for every lane,
 * the barrier phase it names has completed. */
static StepResult pipe_block_wait(Sm *sm, Warp *w, int32_t si, const Op *op, Pipe *p, bool acquire, SimCycle t)
{
    Split *s = &w->split[si];
    Block *b = &sm->blocks[w->block];
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (!(s->mask & (1u << l))) {
            continue;
        }
        int64_t tid = w->tid0 + l;
        int64_t slot = acquire ? p->head[tid] : p->tail[tid];
        MBarrier *m = acquire ? pipe_consumed(p, b->mbars, slot) : pipe_produced(p, b->mbars, slot);
        bool parity = acquire ? (p->flags[tid] & PT_CPARITY) != 0 : (p->flags[tid] & PT_PPARITY) != 0;
        if (!m->valid) {
            RULE(sm, w, 1u << l, op, "%s: %s", op_code_name(op->code), mbar_status_message(MBAR_UNINITIALIZED));
            return STEP_STOP;
        }
        if (!mbar_parity_done(m, parity)) {
            int32_t mi = (int32_t) (m - b->mbars);
            BarrierWaiter wt = { w->id, si, false, parity };
            mbar_add_waiter(m, wt);
            block_split(w, s, WAIT_MBAR, acquire ? WS_PRODUCER_ACQUIRE : WS_CONSUMER_WAIT, mi, parity, false, t + 1);
            sm->stats.mbar_waits++;
            return STEP_ISSUED;
        }
    }
    return STEP_CONTINUE;
}

/* cp.async.mbarrier.arrive (no .noinc) by lanes m: the barrier's pending
 * count grows now, and one arrival per thread comes when that thread's
 * earlier cp.asyncs have completed (all lanes' at the latest of them). */
static MBarStatus copies_arrive(Sm *sm, Warp *w, LaneMask m, int32_t mbar, SimCycle t, SrcLoc loc)
{
    SimCycle done = t;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (m & (1u << l)) {
            done = MAX(done, w->lane_copies[l]);
        }
    }
    MBarrier *mb = &sm->blocks[w->block].mbars[mbar];
    MBarStatus st = mbar_pending_add(mb, lanes_in(m));
    if (st == MBAR_OK) {
        sm_schedule_action(sm, done, ACT_ARRIVE, w->block, mbar, lanes_in(m), loc, w->id, m);
        if (sm->race) {
            race_copies_arrive_on(sm->race, w->block, w->tid0, m, mbar, (uint32_t) mb->phase);
        }
    }
    return st;
}

/* The ready time of lanes A waiting for all but their `prior` newest
 * commit groups (cp.async.wait_group prior). */
static SimCycle groups_ready(Warp *w, LaneMask a, int64_t prior, SimCycle now)
{
    /* Completed groups at the old end no longer matter. */
    guint drop = 0;
    while (drop < w->groups->len && g_array_index(w->groups, CpGroup, drop).done <= now) {
        drop++;
    }
    if (drop > 0) {
        g_array_remove_range(w->groups, 0, drop);
    }
    int64_t seen[SIM_WARP_SIZE] = { 0 };
    SimCycle ready = now;
    for (guint i = w->groups->len; i-- > 0;) {
        const CpGroup *g = &g_array_index(w->groups, CpGroup, i);
        LaneMask m = g->mask & a;
        for (int l = 0; m && l < SIM_WARP_SIZE; l++) {
            if (m & (1u << l)) {
                if (seen[l] >= prior) {
                    ready = MAX(ready, g->done);
                }
                seen[l]++;
            }
        }
    }
    return ready;
}

/* cp.async.commit_group by lanes m.  On sm_80 (cp_async.warp_shared_groups)
 * the batch sequence is shared by the warp: a converged commit closes one
 * group for every lane, a diverged one advances the sequence once per
 * committing thread, so every lane's later wait_group counts them all and
 * waits for more than it needs (libcudacxx-notes.md). */
static void commit_group(Sm *sm, Warp *w, LaneMask m)
{
    SimCycle done = 0;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (m & (1u << l)) {
            done = MAX(done, w->lane_open[l]);
            w->lane_open[l] = 0;
            if (sm->race) {
                race_group_committed(sm->race, w->block, w->tid0 + l);
            }
        }
    }
    if (sm->arch.cp_async_warp_groups) {
        int n = m == w->live ? 1 : lanes_in(m);
        CpGroup g = { w->exists, done };
        for (int i = 0; i < n; i++) {
            g_array_append_val(w->groups, g);
        }
        return;
    }
    CpGroup g = { m, done };
    g_array_append_val(w->groups, g);
}

static void race_groups_done(Sm *sm, Warp *w, LaneMask m, int64_t prior)
{
    if (sm->race == NULL) {
        return;
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (m & (1u << l)) {
            int64_t tid = w->tid0 + l;
            uint32_t committed = race_current_group(sm->race, w->block, tid);
            race_groups_waited(sm->race, w->block, tid, committed > prior ? committed - (uint32_t) prior : 0);
        }
    }
}

static StepResult exec_pipe(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    Block *b = &sm->blocks[w->block];
    Pipe *p = pipe_for(sm, w, op);
    LaneMask m = s->mask;
    bool producer_op = op->code == OP_PIPE_ACQUIRE || op->code == OP_PIPE_COMMIT || op->code == OP_PIPE_COMMIT_BAR;
    if (op->code != OP_PIPE_QUIT &&
        !check_lanes(sm, w, s, op, p, producer_op ? ROLEBIT_PRODUCER : ROLEBIT_CONSUMER)) {
        return STEP_STOP;
    }
    switch (op->code) {
    case OP_PIPE_ACQUIRE:
        if (p->block_scope) {
            if (s->step == 0) {
                /* The wait_parity call: clock read, first try_wait
                 * (through the SM's mbarrier unit). */
                s->step = 1;
                s->ready_at = mbar_wait_at(sm, t) + wait_call_cost(sm, w, m, t);
                s->wait_state = WS_PRODUCER_ACQUIRE;
                *cost = 1;
                return STEP_ISSUED;
            }
            StepResult r = pipe_block_wait(sm, w, si, op, p, true, t);
            if (r != STEP_CONTINUE) {
                *cost = 1;
                return r;
            }
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if (m & (1u << l)) {
                    int64_t tid = w->tid0 + l;
                    p->flags[tid] |= PT_ACQUIRED;
                    if (sm->tl && p->life && !p->life[p->head[tid]].open) {
                        sim_timeline_counter_add(sm->tl, "stages occupied", sm->engine.now, t, +1);
                    }
                    pipe_stage_open(p, p->head[tid], t);
                }
            }
        } else {
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if (m & (1u << l)) {
                    p->flags[w->tid0 + l] |= PT_ACQUIRED;
                }
            }
        }
        s->step = 0;
        s->pc++;
        return STEP_CONTINUE;
    case OP_PIPE_COMMIT:
    case OP_PIPE_COMMIT_BAR:
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if ((m & (1u << l)) && op->code == OP_PIPE_COMMIT && !(p->flags[w->tid0 + l] & PT_ACQUIRED)) {
                /* SPEC pipeline-commit-1: a producer commits the stage it
                 * acquired: producer_acquire comes first. */
                return RULE(sm, w, 1u << l, op, "producer_commit without producer_acquire: a producer acquires the"
                            " head stage before committing to it (SPEC pipeline-commit-1)");
            }
        }
        if (op->code == OP_PIPE_COMMIT_BAR) {
            /* pipeline_producer_commit(pipe, bar): the thread's copies so far
             * arrive on bar when complete (cp.async.mbarrier.arrive). */
            MBarStatus st = copies_arrive(sm, w, m, (int32_t) op->value, t, op->loc);
            if (st != MBAR_OK) {
                return RULE(sm, w, m, op, "pipeline_producer_commit: %s", mbar_status_message(st));
            }
            s->pc++;
            *cost = 1;
            s->ready_at = t + 1;
            s->wait_state = WS_DEPENDENCY;
            return STEP_ISSUED;
        }
        if (!p->block_scope) {
            /* cp.async.commit_group; ++head (uint8_t). */
            commit_group(sm, w, m);
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if (m & (1u << l)) {
                    int64_t tid = w->tid0 + l;
                    p->head[tid]++;
                    p->commits[tid]++;
                    p->flags[tid] &= (uint8_t) ~PT_ACQUIRED;
                }
            }
            s->pc++;
            *cost = 1;
            s->ready_at = t + 1;
            s->wait_state = WS_DEPENDENCY;
            return STEP_ISSUED;
        }
        {
            /* Lanes are grouped by their head stage (one group when converged). */
            LaneMask left = m;
            while (left) {
                int64_t slot;
                LaneMask grp = lanes_at_slot(w, left, p->head, &slot);
                left &= ~grp;
                MBarrier *pm = pipe_produced(p, b->mbars, slot);
                int32_t mi = (int32_t) (pm - b->mbars);
                int64_t n = lanes_in(grp);
                /* producer_commit: cp.async.mbarrier.arrive, then arrive,
                 * two operations of the SM's mbarrier unit. */
                MBarStatus st = copies_arrive(sm, w, grp, mi, mbar_op_at(sm, t), op->loc);
                uint64_t before = pm->phase;
                if (st == MBAR_OK) {
                    st = mbar_arrive(pm, n, mbar_op_at(sm, t), NULL, warp_barrier_wake, sm);
                }
                if (st != MBAR_OK) {
                    return RULE(sm, w, grp, op, "producer_commit: %s: more producers committed to this stage than the"
                                " pipeline counts (%" G_GINT64_FORMAT ")", mbar_status_message(st), p->producers);
                }
                note_phase(sm, b, mi, before, t);
                StageLife *life = &p->life[slot];
                life->committed = t;
                life->has_commit = true;
                for (int l = 0; l < SIM_WARP_SIZE; l++) {
                    if (grp & (1u << l)) {
                        int64_t tid = w->tid0 + l;
                        p->flags[tid] &= (uint8_t) ~PT_ACQUIRED;
                        p->commits[tid]++;
                        next_stage(p, p->head, tid, PT_CPARITY);
                    }
                }
            }
        }
        s->pc++;
        *cost = 2;
        s->ready_at = t + 2;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    case OP_PIPE_WAIT:
    case OP_PIPE_WAIT_FOR:
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (!(m & (1u << l))) {
                continue; /* the lane may not exist (a block of 28 threads) */
            }
            int64_t tid = w->tid0 + l;
            /* Thread scope: libcudacxx returns at once when head == tail
             * (every commit already waited for), without advancing tail. */
            bool empty = p->block_scope ? p->commits[tid] == p->releases[tid] && (p->role[tid] & ROLEBIT_PRODUCER)
                                        : p->head[tid] == p->tail[tid];
            if (empty) {
                /* SPEC pipeline-wait-1: consumer_wait waits for the oldest
                 * committed stage; a thread that is also the producer and
                 * committed nothing unreleased waits on an empty pipeline. */
                return RULE(sm, w, 1u << l, op, "consumer_wait on an empty pipeline: this thread has no committed"
                            " stage left to wait for (SPEC pipeline-wait-1)");
            }
        }
        if (!p->block_scope) {
            /* libcudacxx: if head == tail return; else wait_group
             * min(head - tail - 1, 8); ++tail.  consumer_wait_for ignores
             * its time-out and returns true. */
            if (s->step == 0) {
                int64_t prior = (uint8_t) (p->head[w->tid0 + lowest(m)] - p->tail[w->tid0 + lowest(m)] - 1);
                prior = MIN(prior, (int64_t) 8);
                SimCycle ready = groups_ready(w, m, prior, t);
                /* The library's switch over the count, then DEPBAR. */
                ready = MAX(ready, t + (SimCycle) sm->arch.cp_async_wait);
                s->step = 1;
                s->aux = prior;
                if (ready > t + 1) {
                    s->ready_at = ready;
                    s->wait_state = WS_CONSUMER_WAIT;
                    *cost = 1;
                    return STEP_ISSUED;
                }
            }
            race_groups_done(sm, w, m, s->aux);
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if (m & (1u << l)) {
                    int64_t tid = w->tid0 + l;
                    p->tail[tid]++;
                    p->flags[tid] |= PT_WAITED;
                    p->waits[tid]++;
                }
            }
            if (op->var >= 0) {
                store_lanes(w, var_at(sm, op->var), m, 1);
            }
            s->step = 0;
            s->pc++;
            return STEP_CONTINUE;
        }
        if (s->step == 0) {
            s->step = 1;
            s->blocked_since = 0;
            if (op->code == OP_PIPE_WAIT_FOR) {
                int64_t d;
                if (!eval_same(sm, w, m, op, op->e[1], "the time-out", &d)) {
                    return STEP_STOP;
                }
                /* wait_until takes an absolute cycle; wait_for a duration. */
                /* A duration is capped at INT64_MAX in all (no overflow). */
                s->aux2 = op->sub ? d : (int64_t) t + MIN(MAX(d, (int64_t) 0), INT64_MAX - (int64_t) t);
            }
            s->ready_at = (p->block_scope ? mbar_wait_at(sm, t) : t) + wait_call_cost(sm, w, m, t);
            s->wait_state = WS_CONSUMER_WAIT;
            *cost = 1;
            return STEP_ISSUED;
        }
        if (s->step == 2) {
            /* The deadline passed first: consumer_wait_for returns false. */
            if (op->var >= 0) {
                store_lanes(w, var_at(sm, op->var), m, 0);
            }
            s->step = 0;
            s->pc++;
            return STEP_CONTINUE;
        }
        {
            StepResult r = pipe_block_wait(sm, w, si, op, p, false, t);
            if (r != STEP_CONTINUE) {
                if (r == STEP_ISSUED && op->code == OP_PIPE_WAIT_FOR) {
                    warp_schedule_timeout(sm, w, si, (SimCycle) MAX(s->aux2, (int64_t) t + 1));
                }
                *cost = 1;
                return r;
            }
        }
        {
            /* The stage is ready for every lane. */
            int64_t slot0 = p->tail[w->tid0 + lowest(m)];
            if (sm->tl != NULL) {
                sim_timeline_flow_end(sm->tl, FLOW_STAGE, w->block, sm->pipe_slot[op->obj],
                                      p->waits[w->tid0 + lowest(m)], w->timeline_track, t);
            }
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if (m & (1u << l)) {
                    int64_t tid = w->tid0 + l;
                    int64_t slot = p->tail[tid];
                    StageLife *life = &p->life[slot];
                    if (!life->has_wait) {
                        life->has_wait = true;
                        life->waited = t;
                    }
                    if (sm->race) {
                        race_stage_waited(sm->race, w->block, tid, sm->pipe_slot[op->obj], p->waits[tid]);
                    }
                    p->flags[tid] |= PT_WAITED;
                    p->waits[tid]++;
                }
            }
            /* Exposed copy latency: how long this warp was blocked. */
            if (s->blocked_since > 0 && t > s->blocked_since) {
                p->life[slot0].exposed += t - s->blocked_since;
            }
            s->blocked_since = 0;
        }
        if (op->var >= 0) {
            store_lanes(w, var_at(sm, op->var), m, 1);
        }
        s->step = 0;
        s->pc++;
        return STEP_CONTINUE;
    case OP_PIPE_RELEASE:
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if ((m & (1u << l)) && !(p->flags[w->tid0 + l] & PT_WAITED)) {
                /* SPEC pipeline-release-1: a consumer releases the stage it
                 * waited for. */
                return RULE(sm, w, 1u << l, op, "consumer_release without consumer_wait: a consumer waits for the"
                            " tail stage before releasing it (SPEC pipeline-release-1)");
            }
        }
        if (!p->block_scope) {
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if (m & (1u << l)) {
                    int64_t tid = w->tid0 + l;
                    p->flags[tid] &= (uint8_t) ~PT_WAITED;
                    p->releases[tid]++;
                }
            }
            s->pc++;
            return STEP_CONTINUE;
        }
        {
            LaneMask left = m;
            while (left) {
                int64_t slot;
                LaneMask grp = lanes_at_slot(w, left, p->tail, &slot);
                left &= ~grp;
                MBarrier *cm = pipe_consumed(p, b->mbars, slot);
                int32_t mi = (int32_t) (cm - b->mbars);
                uint64_t before = cm->phase;
                MBarStatus st = mbar_arrive(cm, lanes_in(grp), mbar_op_at(sm, t), NULL, warp_barrier_wake, sm);
                if (st != MBAR_OK) {
                    return RULE(sm, w, grp, op, "consumer_release: %s: more consumers released this stage than the"
                                " pipeline counts (%" G_GINT64_FORMAT ")", mbar_status_message(st), p->consumers);
                }
                note_phase(sm, b, mi, before, t);
                for (int l = 0; l < SIM_WARP_SIZE; l++) {
                    if (grp & (1u << l)) {
                        int64_t tid = w->tid0 + l;
                        p->flags[tid] &= (uint8_t) ~PT_WAITED;
                        p->releases[tid]++;
                        if (sm->race) {
                            race_stage_released(sm->race, w->block, tid, sm->pipe_slot[op->obj]);
                        }
                        next_stage(p, p->tail, tid, PT_PPARITY);
                    }
                }
            }
        }
        s->pc++;
        *cost = 1;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    case OP_PIPE_QUIT: {
        int64_t n = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            int64_t tid = w->tid0 + l;
            if ((m & (1u << l)) && (p->flags[tid] & PT_ACTIVE)) {
                n++;
            } else if ((m & (1u << l)) && op->sub == 1) {
                /* SPEC pipeline-scope-1: ~pipeline() quits only a thread
                 * that has not quit. */
                m &= ~(1u << l);
            } else if (m & (1u << l)) {
                return RULE(sm, w, 1u << l, op, "quit() on a pipeline this thread has already quit");
            }
        }
        bool released = false;
        if (p->block_scope && n > 0) {
            /* Warp-aggregated: the lowest active lane subtracts the count;
             * the last thread destroys the barriers and gets true. */
            p->refcount -= n;
            if (p->refcount == 0) {
                for (int64_t k = 0; k < p->stages; k++) {
                    mbar_invalidate(pipe_produced(p, b->mbars, k));
                    mbar_invalidate(pipe_consumed(p, b->mbars, k));
                }
                p->live = false;
                released = true;
            }
        }
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (m & (1u << l)) {
                p->flags[w->tid0 + l] &= (uint8_t) ~PT_ACTIVE;
            }
        }
        if (op->var >= 0) {
            const ProgVar *v = var_at(sm, op->var);
            /* thread scope: quit() returns true. */
            store_lanes(w, v, m, p->block_scope ? 0 : 1);
            if (released) {
                store_lanes(w, v, 1u << lowest(m), 1);
            }
        }
        s->pc++;
        *cost = 1;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    }
    case OP_PIPE_WAIT_PRIOR: {
        if (p->block_scope) {
            return RULE(sm, w, m, op, "pipeline_consumer_wait_prior takes a pipeline<thread_scope_thread>");
        }
        if (s->step == 0) {
            SimCycle ready = groups_ready(w, m, MIN(op->value, (int64_t) 8), t);
            ready = MAX(ready, t + (SimCycle) sm->arch.cp_async_wait);
            s->step = 1;
            if (ready > t + 1) {
                s->ready_at = ready;
                s->wait_state = WS_CONSUMER_WAIT;
                *cost = 1;
                return STEP_ISSUED;
            }
        }
        race_groups_done(sm, w, m, op->value);
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (m & (1u << l)) {
                int64_t tid = w->tid0 + l;
                p->tail[tid] = (uint8_t) (p->head[tid] - op->value);
                p->flags[tid] |= PT_WAITED;
            }
        }
        s->step = 0;
        s->pc++;
        return STEP_CONTINUE;
    }
    default:
        g_assert_not_reached();
    }
}

/* A wait_for's deadline: if the split is still blocked then, it returns false. */
static void ev_timeout(void *target, uint64_t arg, SimCycle now)
{
    Warp *w = target;
    Sm *sm = w->sm;
    int32_t si = (int32_t) (arg >> 32);
    uint32_t gen = (uint32_t) arg;
    Split *s = &w->split[si];
    if (s->status != SPLIT_BLOCKED || s->gen != gen || sm->engine.stop) {
        return;
    }
    mbar_remove_waiter(&sm->blocks[w->block].mbars[s->wait_obj], w->id, si);
    s->step = 2;
    s->status = SPLIT_RUNNABLE;
    s->gen++;
    s->ready_at = now;
    s->wait = WAIT_NONE;
    if (w->split[w->focus].status != SPLIT_RUNNABLE) {
        w->focus = si;
    }
    if (w->focus == si) {
        sm_warp_schedule(sm, w);
    }
}

bool warp_event_live(const SimEvent *ev)
{
    if (ev->fn != ev_timeout) {
        return true;
    }
    /* The same test as ev_timeout's: the blocking it was armed for is over
     * (a split's gen grows with every block_split, even across reuse). */
    const Warp *w = ev->target;
    const Split *s = &w->split[ev->arg >> 32];
    return s->status == SPLIT_BLOCKED && s->gen == (uint32_t) ev->arg;
}

static void warp_schedule_timeout(Sm *sm, Warp *w, int32_t si, SimCycle deadline)
{
    sim_engine_schedule(&sm->engine, MAX(deadline, sm->engine.now), ev_timeout, w,
                        ((uint64_t) si << 32) | w->split[si].gen);
}

/* ---------------------------------------------------------------- memory */

/* Checks lanes' accesses [addr, addr+size) stay inside the buffer their
 * pointer points into. */
static bool check_bounds(Sm *sm, Warp *w, const Op *op, LaneMask m, const ExprNode *ptr, const int64_t *addr,
                         int64_t size, const char *what)
{
    const ProgBuffer *b = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (m & (1u << l)) {
            lo = MIN(lo, addr[l]);
            hi = MAX(hi, addr[l]);
        }
    }
    if (m == 0 || (size >= 0 && lo >= b->base && hi <= b->base + b->bytes - size)) {
        return true;
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (!(m & (1u << l))) {
            continue;
        }
        if (addr[l] < b->base || size < 0 || addr[l] + size > b->base + b->bytes) {
            /* SPEC memory-1: every access stays inside its buffer. */
            RULE(sm, w, 1u << l, op, "%s out of bounds: bytes %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT " of %s buffer"
                 " '%s', which has %" G_GINT64_FORMAT " bytes (SPEC memory-1)", what, addr[l] - b->base,
                 addr[l] - b->base + size - 1, b->space == SPACE_SHARED ? "shared" : "global", b->name, b->bytes);
            return false;
        }
    }
    return true;
}

static uint8_t *data_at(Sm *sm, Warp *w, MemSpace space, int64_t addr)
{
    if (space == SPACE_SHARED) {
        Block *b = &sm->blocks[w->block];
        return b->data_smem ? b->data_smem + addr : NULL;
    }
    return sm->data_global ? sm->data_global + (addr - (INT64_C(1) << 32)) : NULL;
}

/* Functional model: the 32-bit words a data variable holds in a lane. */
static uint32_t *data_var(Sm *sm, Warp *w, int32_t var, int lane)
{
    (void) sm;
    if (w->data == NULL || var < 0) {
        return NULL;
    }
    return &w->data[((size_t) var * SIM_WARP_SIZE + (size_t) lane) * 4];
}

/* Reads `size` bytes at lanes' global addresses through the memory path;
 * returns when the last arrives. */
static SimCycle global_read(Sm *sm, SimCycle t, const int64_t *addr, LaneMask m, int64_t size)
{
    SimCycle done = t;
    /* Group lanes by line, one request each. */
    uint64_t lines[64];
    int nlines = 0;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (!(m & (1u << l))) {
            continue;
        }
        for (int64_t a = addr[l]; a < addr[l] + size; a = (a / sm->arch.line_bytes + 1) * sm->arch.line_bytes) {
            uint64_t line = (uint64_t) a / (uint64_t) sm->arch.line_bytes;
            bool dup = false;
            for (int k = 0; k < nlines; k++) {
                dup |= lines[k] == line;
            }
            if (!dup && nlines < 64) {
                lines[nlines++] = line;
            }
        }
    }
    for (int k = 0; k < nlines; k++) {
        /* (MAX evaluates its arguments twice: call once.) */
        SimCycle line_done = mem_path_read(&sm->mem, t, lines[k] * (uint64_t) sm->arch.line_bytes,
                                           sm->arch.line_bytes, true);
        done = MAX(done, line_done);
    }
    return done;
}

static StepResult exec_load(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    LaneMask m = s->mask;
    const ExprNode *ptr = op->e[0];
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    int64_t size = ptr->type.elem.size;
    SimLaneValue a;
    if (!eval(sm, w, m, op, ptr, &a)) {
        return STEP_STOP;
    }
    int64_t addr[SIM_WARP_SIZE];
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        addr[l] = sim_lane_value(&a, l);
    }
    if (!check_bounds(sm, w, op, m, ptr, addr, size, "load")) {
        return STEP_STOP;
    }
    SimCycle ready;
    int64_t replays = 0;
    if (buf->space == SPACE_SHARED) {
        SimCycle port = smem_access(&sm->smem, t, addr, m, size, &replays);
        sm_note_smem_replays(sm, t, replays);
        ready = port - 1 + (SimCycle) sm->arch.smem_latency;
        if (sm->race) {
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if (m & (1u << l)) {
                    g_autofree char *warn = race_read(sm->race, w->block, w->tid0 + l, addr[l], size, op->loc);
                    if (warn) {
                        sm->stats.race_warnings++;
                        g_autofree char *key = g_strdup_printf("race-raw-%u", op->loc.line);
                        sm_warn(sm, key, "%s", warn);
                    }
                }
            }
        }
    } else {
        ready = global_read(sm, t, addr, m, size);
    }
    /* Functional model: the loaded bytes. */
    if (sm->opt.functional && op->var >= 0) {
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            uint8_t *src = (m & (1u << l)) ? data_at(sm, w, buf->space, addr[l]) : NULL;
            uint32_t *dst = data_var(sm, w, op->var, l);
            if (src && dst) {
                memcpy(dst, src, (size_t) size);
            }
        }
    }
    if (op->var >= 0) {
        w->vals[var_at(sm, op->var)->slot] = (int64_t) ready;
    }
    /* Replays are served by the shared-memory pipe, not re-issued: the
     * scheduler is free, the warp stalls for them. */
    s->pc++;
    *cost = 1;
    s->ready_at = t + 1 + (SimCycle) replays;
    s->wait_state = replays > 0 ? WS_BANK_CONFLICT : WS_DEPENDENCY;
    sm->stats.instructions++;
    return STEP_ISSUED;
}

/* The timing of one warp store of `size` bytes at lanes' addresses in buf
 * (shared memory through its banks, global memory a write per line), and
 * the race detector's record of it.  Returns the bank-conflict replays. */
static int64_t store_issue(Sm *sm, Warp *w, const ProgBuffer *buf, SimCycle t, const int64_t *addr, LaneMask m,
                           int64_t size)
{
    int64_t replays = 0;
    if (buf->space == SPACE_SHARED) {
        smem_access(&sm->smem, t, addr, m, size, &replays);
        sm_note_smem_replays(sm, t, replays);
        if (sm->race) {
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if (m & (1u << l)) {
                    race_plain_write(sm->race, w->block, w->tid0 + l, addr[l], size);
                }
            }
        }
    } else {
        uint64_t done_lines[64];
        int n = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (!(m & (1u << l))) {
                continue;
            }
            uint64_t line = (uint64_t) addr[l] / (uint64_t) sm->arch.line_bytes;
            bool dup = false;
            for (int k = 0; k < n; k++) {
                dup |= done_lines[k] == line;
            }
            if (!dup && n < 64) {
                done_lines[n++] = line;
                int64_t bytes = 0;
                for (int k = 0; k < SIM_WARP_SIZE; k++) {
                    if ((m & (1u << k)) && (uint64_t) addr[k] / (uint64_t) sm->arch.line_bytes == line) {
                        bytes += size;
                    }
                }
                mem_path_write(&sm->mem, t, line * (uint64_t) sm->arch.line_bytes, MIN(bytes, sm->arch.line_bytes));
            }
        }
    }
    return replays;
}

/* store(p, v), p[i] = v, fill(p, v, n) and memset(p, byte, bytes): integer
 * values, one warp store per element (a fill of n elements issues n, as
 * the loop `for k: p[k] = v` does), with no operand to wait for. */
static StepResult exec_store_value(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    LaneMask m = s->mask;
    const ExprNode *ptr = op->e[0];
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    int64_t size = ptr->type.elem.size;
    SimLaneValue a, v, n;
    if (!eval(sm, w, m, op, ptr, &a) || !eval(sm, w, m, op, op->e[1], &v)) {
        return STEP_STOP;
    }
    int64_t iters = 1;
    if (op->sub == STORE_FILL) {
        if (!eval(sm, w, m, op, op->e[3] != NULL ? op->e[3] : op->e[2], &n)) {
            return STEP_STOP;
        }
        iters = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (!(m & (1u << l))) {
                continue;
            }
            int64_t c = sim_lane_value(&n, l);
            if (c < 0 && op->e[3] == NULL) {
                return RULE(sm, w, 1u << l, op, "fill's count %" G_GINT64_FORMAT " is negative", c);
            }
            if (c < 0 || (op->e[3] != NULL && c % size != 0)) {
                return RULE(sm, w, 1u << l, op, "memset's byte count %" G_GINT64_FORMAT " is not a whole number of"
                            " %" G_GINT64_FORMAT "-byte elements", c, size);
            }
            iters = MAX(iters, op->e[3] != NULL ? c / size : c);
        }
        if (op->e[3] != NULL && !eval(sm, w, m, op, op->e[2], &n)) {
            return STEP_STOP;
        }
    }
    int64_t replays = 0;
    for (int64_t k = 0; k < iters; k++) {
        int64_t addr[SIM_WARP_SIZE];
        LaneMask km = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            addr[l] = sim_lane_value(&a, l) + k * size;
            if ((m & (1u << l)) && (op->sub != STORE_FILL || k < sim_lane_value(&n, l))) {
                km |= 1u << l;
            }
        }
        if (!check_bounds(sm, w, op, km, ptr, addr, size, op->sub == STORE_FILL ? "fill" : "store")) {
            return STEP_STOP;
        }
        replays += store_issue(sm, w, buf, t + (SimCycle) k, addr, km, size);
        for (int l = 0; sm->opt.functional && l < SIM_WARP_SIZE; l++) {
            uint8_t *dst = (km & (1u << l)) ? data_at(sm, w, buf->space, addr[l]) : NULL;
            if (dst != NULL) {
                program_element_bytes(sim_lane_value(&v, l), size, dst);
            }
        }
    }
    s->pc++;
    *cost = MAX((int64_t) 1, iters);
    s->ready_at = t + (SimCycle) *cost + (SimCycle) replays;
    s->wait_state = replays > 0 ? WS_BANK_CONFLICT : WS_DEPENDENCY;
    sm->stats.instructions += (uint64_t) iters;
    return STEP_ISSUED;
}

static StepResult exec_store(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    if (op->sub != STORE_DATA) {
        return exec_store_value(sm, w, si, op, t, cost);
    }
    Split *s = &w->split[si];
    LaneMask m = s->mask;
    const ProgVar *v = var_at(sm, op->obj);
    SimCycle operand = (SimCycle) w->vals[v->slot];
    if (operand > t) {
        /* The value is not there yet: wait for it (scoreboard). */
        s->ready_at = operand;
        s->wait_state = operand > t + 100 ? WS_MEMORY : WS_DEPENDENCY;
        return STEP_WAIT;
    }
    const ExprNode *ptr = op->e[0];
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    int64_t size = ptr->type.elem.size;
    SimLaneValue a;
    if (!eval(sm, w, m, op, ptr, &a)) {
        return STEP_STOP;
    }
    int64_t addr[SIM_WARP_SIZE];
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        addr[l] = sim_lane_value(&a, l);
    }
    if (!check_bounds(sm, w, op, m, ptr, addr, size, "store")) {
        return STEP_STOP;
    }
    int64_t replays = store_issue(sm, w, buf, t, addr, m, size);
    if (sm->opt.functional) {
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            uint8_t *dst = (m & (1u << l)) ? data_at(sm, w, buf->space, addr[l]) : NULL;
            uint32_t *src = data_var(sm, w, op->obj, l);
            if (src && dst) {
                memcpy(dst, src, (size_t) size);
            }
        }
    }
    /* Replays are served by the shared-memory pipe, not re-issued: the
     * scheduler is free, the warp stalls for them. */
    s->pc++;
    *cost = 1;
    s->ready_at = t + 1 + (SimCycle) replays;
    s->wait_state = replays > 0 ? WS_BANK_CONFLICT : WS_DEPENDENCY;
    sm->stats.instructions++;
    return STEP_ISSUED;
}

/* expect p[i] == v: the element's bytes are those that p[i] = v writes
 * (program_element_bytes), on the functional model. */
static StepResult exec_expect(Sm *sm, Warp *w, LaneMask m, const Op *op)
{
    const ExprNode *ptr = op->e[0];
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    int64_t size = ptr->type.elem.size;
    SimLaneValue a, v;
    if (!eval(sm, w, m, op, ptr, &a) || !eval(sm, w, m, op, op->e[1], &v)) {
        return STEP_STOP;
    }
    int64_t addr[SIM_WARP_SIZE];
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        addr[l] = sim_lane_value(&a, l);
    }
    if (!check_bounds(sm, w, op, m, ptr, addr, size, "expect")) {
        return STEP_STOP;
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        const uint8_t *got = (m & (1u << l)) ? data_at(sm, w, buf->space, addr[l]) : NULL;
        uint8_t want[16];
        program_element_bytes(sim_lane_value(&v, l), size, want);
        if (got == NULL || memcmp(got, want, (size_t) size) == 0) {
            continue;
        }
        /* Both as the signed integers of the element's first word (its
         * low bytes), and every word when the words differ. */
        int64_t wbytes = MIN(size, (int64_t) 4);
        g_autoptr(GString) shown = g_string_new(NULL);
        for (int64_t k = 0; k < size; k += wbytes) {
            uint32_t word = 0;
            memcpy(&word, got + k, (size_t) wbytes);
            int64_t sv = wbytes == 1 ? (int8_t) word : wbytes == 2 ? (int16_t) word : (int32_t) word;
            g_string_append_printf(shown, "%s%" G_GINT64_FORMAT, k ? ", " : "", sv);
        }
        bool same_words = true;
        for (int64_t k = wbytes; k < size; k += wbytes) {
            same_words &= memcmp(got, got + k, (size_t) wbytes) == 0;
        }
        uint32_t wword = 0;
        memcpy(&wword, want, (size_t) wbytes);
        int64_t expected = wbytes == 1 ? (int8_t) wword : wbytes == 2 ? (int16_t) wword : (int32_t) wword;
        g_autofree char *value = same_words ? g_strndup(shown->str, strcspn(shown->str, ","))
                                            : g_strdup_printf("{%s}", shown->str);
        return RULE(sm, w, 1u << l, op, "expect failed: %s[%" G_GINT64_FORMAT "] is %s, expected %" G_GINT64_FORMAT,
                    buf->name, (addr[l] - buf->base) / size, value, expected);
    }
    return STEP_CONTINUE;
}

/* --------------------------------------------------------------- compute */

/* Functional model of compute(x, n): n steps x = x * A + B on each word.
 * compute(CLASS, n, x [, y [, z]]) (COMPUTE_OPERANDS) is one step whatever
 * CLASS and n: word k of the result is x[k] * A + B + y[k'] + z[k''] modulo
 * 2^32, k' and k'' being k modulo the words of y and z (an absent operand
 * adds 0).  All operands are read before the result is written, so the
 * result may be one of them. */
static void compute_values(Sm *sm, Warp *w, const Op *op, LaneMask m, int64_t count)
{
    if (!sm->opt.functional || op->var < 0 || op->obj < 0) {
        return;
    }
    int64_t words = MAX((int64_t) 1, var_at(sm, op->var)->type.elem.size / 4);
    int64_t iters = count / words;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        uint32_t *src = (m & (1u << l)) ? data_var(sm, w, op->obj, l) : NULL;
        uint32_t *dst = data_var(sm, w, op->var, l);
        if (src == NULL || dst == NULL) {
            continue;
        }
        uint32_t out[4] = { 0, 0, 0, 0 };
        for (int64_t k = 0; k < words && k < 4; k++) {
            uint32_t x = src[k];
            if (op->sub == COMPUTE_OPERANDS) {
                x = x * SM_COMPUTE_A + SM_COMPUTE_B;
                for (int i = 0; i < 2; i++) {
                    if (op->in[i] >= 0) {
                        int64_t in_words = MAX((int64_t) 1, var_at(sm, op->in[i])->type.elem.size / 4);
                        x += data_var(sm, w, op->in[i], l)[k % in_words];
                    }
                }
            } else {
                for (int64_t it = 0; it < iters; it++) {
                    x = x * SM_COMPUTE_A + SM_COMPUTE_B;
                }
            }
            out[k] = x;
        }
        memcpy(dst, out, (size_t) MIN(words, (int64_t) 4) * sizeof(uint32_t));
    }
}

/* The largest instruction count of op's lanes into *count; false (with a
 * rule error) when a lane's count is negative. */
static bool compute_count(Sm *sm, Warp *w, LaneMask m, const Op *op, int64_t *count, int64_t *chains)
{
    SimLaneValue n, ilp;
    if (!eval(sm, w, m, op, op->e[0], &n) || !eval(sm, w, m, op, op->e[1], &ilp)) {
        return false;
    }
    *count = 0;
    *chains = 1;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (m & (1u << l)) {
            /* Checked per lane: the maximum started at 0, so a negative
             * count used to pass silently as 0 (reliability review). */
            if (sim_lane_value(&n, l) < 0) {
                RULE(sm, w, 1u << l, op, "compute: negative instruction count %" G_GINT64_FORMAT,
                     sim_lane_value(&n, l));
                return false;
            }
            *count = MAX(*count, sim_lane_value(&n, l));
            *chains = MAX(*chains, sim_lane_value(&ilp, l));
        }
    }
    *chains = MIN(*chains, (int64_t) MAX_CHAINS);
    return true;
}

/* When the last of op's input values is ready (0 without inputs). */
static SimCycle input_ready(Sm *sm, const Warp *w, const Op *op)
{
    SimCycle ready = op->obj >= 0 ? (SimCycle) w->vals[var_at(sm, op->obj)->slot] : 0;
    for (int i = 0; i < 2; i++) {
        if (op->in[i] >= 0) {
            ready = MAX(ready, (SimCycle) w->vals[var_at(sm, op->in[i])->slot]);
        }
    }
    return ready;
}

/* After the last instruction: each statement's result is ready when the
 * last of its chains is, and the split moves past the statements. */
static void compute_done(Sm *sm, Warp *w, Split *s, LaneMask m)
{
    int64_t per_chain = s->count / s->aux;
    int64_t first = 0;
    for (int32_t j = 0; j <= s->aux2; j++) {
        const Op *op = op_at(sm, s->pc + j);
        int64_t chains = s->aux2 == 0 ? s->aux : op->e[1]->value;
        SimCycle done = 0;
        for (int64_t k = first; k < first + chains; k++) {
            done = MAX(done, w->chain[k]);
        }
        first += chains;
        w->chains_done = MAX(w->chains_done, done);
        if (op->var >= 0) {
            w->vals[var_at(sm, op->var)->slot] = (int64_t) done;
            compute_values(sm, w, op, m, s->aux2 == 0 ? s->count : per_chain * chains);
        }
    }
    s->pc += 1 + (int32_t) s->aux2;
    s->aux2 = 0;
    s->step = 0;
}

/* Starts compute statements: the one at pc and the independent ones that
 * interleave with it (sm->op_fuse) when they have as many instructions per
 * chain, their chains side by side in w->chain. */
static bool compute_start(Sm *sm, Warp *w, Split *s, const Op *op)
{
    LaneMask m = s->mask;
    int64_t count, chains;
    if (!compute_count(sm, w, m, op, &count, &chains)) {
        return false;
    }
    SimCycle input = input_ready(sm, w, op);
    for (int64_t c = 0; c < chains; c++) {
        w->chain[c] = input;
    }
    s->aux2 = 0;
    for (int32_t j = 1; count > 0 && j <= sm->op_fuse[s->pc]; j++) {
        const Op *next = op_at(sm, s->pc + j);
        int64_t next_count, next_chains;
        if (!compute_count(sm, w, m, next, &next_count, &next_chains)) {
            return false;
        }
        if (next_count * chains != count * next_chains) {
            break;
        }
        SimCycle in = input_ready(sm, w, next);
        for (int64_t c = chains; c < chains + next_chains; c++) {
            w->chain[c] = in;
        }
        count += next_count;
        chains += next_chains;
        s->aux2 = j;
    }
    s->count = count;
    s->remaining = count;
    s->aux = chains;
    s->chain_next = 0;
    s->step = 1;
    return true;
}

/* When chain c's next instruction may issue.  In order, once its operand
 * (the chain's previous instruction or its input) is ready.  With
 * sched.chain_overlap the warp does not wait: ptxas unrolls and interleaves
 * the independent chains of a straight-line region, so one warp issues them
 * back to back (scripts/calib/contend.cu ilp.ffma.C*.W1: 4.9 cycles a link
 * for one chain, 2.5, 1.5 and 1.25 for 2, 4 and 8 chains), and each chain
 * still completes a latency per link after its input (chain[c]); the warp
 * waits for them where the region ends (chains_drain). */
static SimCycle link_dep(const Sm *sm, const Warp *w, int64_t c)
{
    return sm->arch.chain_overlap ? 0 : w->chain[c];
}

static StepResult exec_compute(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    LaneMask m = s->mask;
    int cls = sm->class_map[op->value];
    const InstClass *ic = &sm->arch.classes[cls];
    SimCycle *pipe_free = &sm->smsp[w->smsp].pipe_free[cls];
    if (s->step == 0) {
        if (!compute_start(sm, w, s, op)) {
            return STEP_STOP;
        }
        s->cls = cls;
        if (s->count == 0) {
            compute_done(sm, w, s, m);
            return STEP_CONTINUE;
        }
    }
    int32_t c = s->chain_next;
    SimCycle earliest = MAX(link_dep(sm, w, c), *pipe_free);
    if (earliest > t) {
        s->ready_at = earliest;
        s->wait_state = w->chain[c] >= *pipe_free ? (w->chain[c] > t + 100 ? WS_MEMORY : WS_DEPENDENCY)
                                                  : WS_MATH_THROTTLE;
        return STEP_WAIT;
    }
    w->chain[c] = MAX(w->chain[c], t) + (SimCycle) ic->latency;
    *pipe_free = t + (SimCycle) ic->interval;
    s->chain_next = c + 1 == s->aux ? 0 : c + 1;
    s->remaining--;
    sm->stats.instructions++;
    sm->stats.compute_instructions++;
    sm_note_compute(sm, w->smsp, t);
    *cost = 1;
    if (s->remaining == 0) {
        compute_done(sm, w, s, m);
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    }
    int32_t next_c = s->chain_next;
    SimCycle next = MAX(t + 1, MAX(link_dep(sm, w, next_c), *pipe_free));
    s->ready_at = next;
    s->wait_state = w->chain[next_c] >= *pipe_free ? WS_DEPENDENCY : WS_MATH_THROTTLE;
    if (sm->smsp_live[w->smsp] == 1) {
        /* Alone on its scheduler, nothing can take these issue slots: issue
         * the rest of the chain now, at the cycles it would issue anyway. */
        SimCycle last = t;
        while (s->remaining > 0) {
            c = s->chain_next;
            SimCycle at = MAX(last + 1, MAX(link_dep(sm, w, c), *pipe_free));
            if (at > last + 1) {
                sm_account(w, w->chain[c] >= *pipe_free ? WS_DEPENDENCY : WS_MATH_THROTTLE, last + 1);
            }
            sm_account(w, WS_ISSUING, at);
            w->chain[c] = MAX(w->chain[c], at) + (SimCycle) ic->latency;
            *pipe_free = at + (SimCycle) ic->interval;
            s->chain_next = c + 1 == s->aux ? 0 : c + 1;
            s->remaining--;
            sm->stats.instructions++;
            sm->stats.compute_instructions++;
            sm_note_compute(sm, w->smsp, at);
            last = at;
        }
        compute_done(sm, w, s, m);
        *cost = (int64_t) (last + 1 - t);
        s->ready_at = last + 1;
        s->wait_state = WS_DEPENDENCY;
    }
    return STEP_ISSUED;
}

/* ----------------------------------------------------------- memcpy_async */

typedef enum {
    PATH_CP_ASYNC,
    PATH_BULK,
    PATH_SYNC
} CopyPath;

static void global_write(Sm *sm, SimCycle t, const int64_t *addr, LaneMask m, int64_t size);
static SimCycle cl_ptr_load(Sm *sm, Warp *w, const Op *op, LaneMask m, const ExprNode *ptr, const int64_t *addr,
                            int64_t size, SimCycle t, int64_t *replays);

/* The direction of a copy: its source and destination memories. */
static SimCopyDir copy_direction(const Sm *sm, const Op *op)
{
    MemSpace d = g_array_index(sm->prog->buffers, ProgBuffer, op->e[0]->type.buffer).space;
    MemSpace s = g_array_index(sm->prog->buffers, ProgBuffer, op->e[1]->type.buffer).space;
    if (s == SPACE_GLOBAL) {
        return d == SPACE_SHARED ? SIM_DIR_GLOBAL_TO_SHARED : SIM_DIR_GLOBAL_TO_GLOBAL;
    }
    return d == SPACE_SHARED ? SIM_DIR_SHARED_TO_SHARED : SIM_DIR_SHARED_TO_GLOBAL;
}

/* SPEC memcpy-2: the copy mechanism libcudacxx dispatches to
 * (__memcpy_async/dispatch_memcpy_async.h): only a global-to-shared copy
 * can be asynchronous (__dispatch_memcpy_async_global_to_shared); every
 * other direction goes to __dispatch_memcpy_async_any_to_any, the
 * synchronous fallback.  Global to shared: on sm_90 with a block-scope
 * barrier in shared memory and alignment >= 16 a bulk copy; on sm_80+ with
 * alignment >= 4 cp.async; otherwise a synchronous copy.  Pipelines never
 * get the bulk path.  *why (owned by the caller) says why a copy is
 * synchronous. */
static CopyPath choose_path(const Sm *sm, const Op *op, char **why)
{
    int64_t align = op->value;
    static const char *const dir_why[SIM_DIR__COUNT] = {
        NULL,
        "it copies shared to shared memory (only global-to-shared copies are asynchronous)",
        "it copies shared to global memory (only global-to-shared copies are asynchronous)",
        "it copies global to global memory (only global-to-shared copies are asynchronous)",
    };
    SimCopyDir dir = copy_direction(sm, op);
    if (dir != SIM_DIR_GLOBAL_TO_SHARED) {
        *why = g_strdup(dir_why[dir]);
        return PATH_SYNC;
    }
    if (op->code == OP_MEMCPY_TX) {
        return PATH_BULK;
    }
    if (sm->arch.sm_version >= 90 && op->aux == SYNC_BARRIER && align >= 16) {
        return PATH_BULK;
    }
    if (sm->arch.sm_version >= 80 && align >= 4) {
        return PATH_CP_ASYNC;
    }
    if (align >= 4) {
        *why = g_strdup("the architecture has no cp.async");
    } else {
        /* Say what set the alignment: alignof(T), and aligned_size_t<N>
         * when one was written. */
        const ElemType *e = &op->e[0]->type.elem;
        g_autofree char *given = op->size_align > 0
                                     ? g_strdup_printf("cuda::aligned_size_t<%d>", (int) op->size_align)
                                     : g_strdup("a plain size, without cuda::aligned_size_t");
        *why = g_strdup_printf("its alignment is below 4 bytes (alignof(%s) = %" G_GINT64_FORMAT ", %s)", e->name,
                               (int64_t) e->align, given);
    }
    return PATH_SYNC;
}

/* The rank of lane l of warp w in group g of a copy: the thread's rank in
 * the block, or its lane modulo the group's size for a group within a warp
 * (the thread, a tile, the warp). */
static int64_t copy_rank(const Warp *w, GroupKind g, int l)
{
    int64_t lanes = program_group_lanes(g);
    return lanes == 0 ? w->tid0 + l : l % lanes;
}

static StepResult exec_memcpy(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    Block *b = &sm->blocks[w->block];
    LaneMask m = s->mask;
    SimLaneValue dv, sv, zv;
    if (!eval(sm, w, m, op, op->e[0], &dv) || !eval(sm, w, m, op, op->e[1], &sv) ||
        !eval(sm, w, m, op, op->e[2], &zv)) {
        return STEP_STOP;
    }
    GroupKind g = op->code == OP_MEMCPY_TX ? GROUP_THREAD : (GroupKind) op->sub;
    int64_t gsize = g == GROUP_BLOCK ? sm->prog->block_threads : program_group_lanes(g);
    int64_t align = op->value;
    g_autofree char *why = NULL;
    CopyPath path = choose_path(sm, op, &why);
    SimCopyDir dir = copy_direction(sm, op);
    MemSpace dspace = g_array_index(sm->prog->buffers, ProgBuffer, op->e[0]->type.buffer).space;
    MemSpace sspace = g_array_index(sm->prog->buffers, ProgBuffer, op->e[1]->type.buffer).space;
    int64_t cs = MIN(align, (int64_t) 16);
    Pipe *p = op->aux == SYNC_PIPE ? pipe_for(sm, w, op) : NULL;

    if (s->step == 0) {
        /* Validate once, for every lane. */
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (!(m & (1u << l))) {
                continue;
            }
            int64_t size = sim_lane_value(&zv, l);
            int64_t d = sim_lane_value(&dv, l), sr = sim_lane_value(&sv, l);
            /* The group's first lane here: of the warp's lanes for the
             * block, of the tile's for a tile. */
            int first = lowest(g == GROUP_BLOCK ? m : m & tile_lanes(1u << l, gsize));
            if (g != GROUP_THREAD && (sim_lane_value(&dv, l) != sim_lane_value(&dv, first) ||
                                      sim_lane_value(&sv, l) != sim_lane_value(&sv, first) ||
                                      size != sim_lane_value(&zv, first))) {
                return RULE(sm, w, m, op, "memcpy_async over a group: every thread of the group passes the same"
                            " destination, source and size (SPEC memcpy-3)");
            }
            if (size < 0) {
                return RULE(sm, w, 1u << l, op, "memcpy_async: negative size %" G_GINT64_FORMAT, size);
            }
            if (d % align != 0 || (sr - (INT64_C(1) << 32)) % align != 0) {
                /* SPEC memcpy-4: aligned_size_t<N> and alignof(T) promise
                 * N-aligned pointers. */
                return RULE(sm, w, 1u << l, op, "memcpy_async: the %s is not %" G_GINT64_FORMAT "-byte aligned, as"
                            " alignof(T)/aligned_size_t promise (SPEC memcpy-4)",
                            d % align != 0 ? "destination" : "source", align);
            }
            if (size % cs != 0) {
                /* SPEC memcpy-5: the library copies whole chunks of
                 * min(alignment, 16) bytes, on every path (the synchronous
                 * fallback too). */
                return RULE(sm, w, 1u << l, op, "memcpy_async: size %" G_GINT64_FORMAT " is not a multiple of %"
                            G_GINT64_FORMAT " bytes: the library would copy past the end (SPEC memcpy-5)", size, cs);
            }

            if (p != NULL && !(p->flags[w->tid0 + l] & PT_ACQUIRED)) {
                /* SPEC pipeline-copy-1: copies go into an acquired stage. */
                return RULE(sm, w, 1u << l, op, "memcpy_async into a pipeline stage that this thread has not acquired"
                            " (call producer_acquire first) (SPEC pipeline-copy-1)");
            }
            if (p != NULL && (p->flags[w->tid0 + l] & PT_MADE) && p->block_scope &&
                !(p->role[w->tid0 + l] & ROLEBIT_PRODUCER)) {
                return RULE(sm, w, 1u << l, op, "memcpy_async into a pipeline by a consumer thread (SPEC pipeline-role-1)");
            }
        }
        /* Bounds, for all lanes at once (sizes may differ per lane only in
         * the per-thread form; check with each lane's own size then). */
        {
            int64_t da[SIM_WARP_SIZE], sa[SIM_WARP_SIZE];
            int64_t zmax = 0;
            LaneMask nonempty = 0;
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                da[l] = sim_lane_value(&dv, l);
                sa[l] = sim_lane_value(&sv, l);
                if ((m & (1u << l)) && sim_lane_value(&zv, l) > 0) {
                    nonempty |= 1u << l;
                    zmax = MAX(zmax, sim_lane_value(&zv, l));
                }
            }
            bool same = true;
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                same &= !(nonempty & (1u << l)) || sim_lane_value(&zv, l) == zmax;
            }
            for (int l = 0; nonempty && l < SIM_WARP_SIZE; l++) {
                LaneMask one = same ? nonempty : (nonempty & (1u << l));
                int64_t size = same ? zmax : sim_lane_value(&zv, l);
                if (one && (!check_bounds(sm, w, op, one, op->e[0], da, size, "memcpy_async destination") ||
                            !check_bounds(sm, w, op, one, op->e[1], sa, size, "memcpy_async source"))) {
                    return STEP_STOP;
                }
                if (same) {
                    break;
                }
            }
        }
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (!(m & (1u << l))) {
                continue;
            }
            int64_t size = sim_lane_value(&zv, l);
            int64_t d = sim_lane_value(&dv, l), sr = sim_lane_value(&sv, l);
            if (size > 0 && d < sr + size && sr < d + size) {
                /* SPEC memcpy-6: the library's precondition
                 * (__memcpy_async_check_pre) is that the ranges do not
                 * overlap; the chunked copy would read bytes it wrote. */
                const ProgBuffer *db = &g_array_index(sm->prog->buffers, ProgBuffer, op->e[0]->type.buffer);
                const ProgBuffer *sb = &g_array_index(sm->prog->buffers, ProgBuffer, op->e[1]->type.buffer);
                return RULE(sm, w, 1u << l, op, "memcpy_async: the source (bytes %" G_GINT64_FORMAT "..%"
                            G_GINT64_FORMAT " of '%s') and the destination (bytes %" G_GINT64_FORMAT "..%"
                            G_GINT64_FORMAT " of '%s') overlap; the library requires disjoint ranges (SPEC memcpy-6)",
                            sr - sb->base, sr - sb->base + size - 1, sb->name, d - db->base, d - db->base + size - 1,
                            db->name);
            }
        }
        if (path == PATH_SYNC) {
            g_autofree char *key = g_strdup_printf("sync-%u", op->loc.line);
            sm_warn(sm, key, "line %u: memcpy_async falls back to a synchronous copy because %s", op->loc.line, why);
        }
        if (path == PATH_BULK && sm->arch.sm_version < 90) {
            return RULE(sm, w, m, op, "memcpy_async_tx needs sm_90 (bulk copies); this architecture is sm_%"
                        G_GINT64_FORMAT, sm->arch.sm_version);
        }
        /* Calls by direction: a group's call counts once, at its rank 0. */
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if ((m & (1u << l)) && copy_rank(w, g, l) == 0) {
                sm->stats.dir_calls[dir]++;
            }
        }
        s->step = 1;
        s->remaining = 0;
        s->count = 0;
        if (path != PATH_SYNC && g != GROUP_THREAD && sm->arch.cp_async_call > 0) {
            /* The library's group dispatch code before the first copy
             * issues (a per-thread copy compiles to a bare LDGSTS). */
            *cost = 1;
            s->ready_at = t + (SimCycle) sm->arch.cp_async_call;
            s->wait_state = WS_DEPENDENCY;
            return STEP_ISSUED;
        }
    }
    if (path == PATH_BULK) {
        /* One elected thread (rank 0 of the group) issues the bulk copy;
         * with a barrier overload it then does expect_tx(size). */
        int32_t mbar = (int32_t) op->obj;
        MBarrier *mb = &b->mbars[mbar];
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (!(m & (1u << l))) {
                continue;
            }
            if (copy_rank(w, g, l) != 0) {
                continue;
            }
            /* Every thread of a group passes the same size. */
            int64_t bytes = sim_lane_value(&zv, l);
            if (!mb->valid) {
                return RULE(sm, w, 1u << l, op, "memcpy_async on a barrier: %s", mbar_status_message(MBAR_UNINITIALIZED));
            }
            SimCycle done = bytes > 0 ? bulk_engine_copy(&sm->bulk, &sm->mem, &sm->smem, t,
                                                         (uint64_t) sim_lane_value(&sv, l), sim_lane_value(&dv, l),
                                                         bytes, sm->arch.smem_wavefront_bytes)
                                      : t;
            SimSliceArgs cargs = SIM_SLICE_ARGS_INIT;
            cargs.line = op->loc.line;
            cargs.barrier = barrier_name(sm, mbar);
            cargs.bytes = bytes;
            int track = sm_note_copy(sm, t, done, "bulk copy", &cargs);
            if (track > 0) {
                /* It completes its bytes in the barrier's current phase. */
                sim_timeline_flow_start(sm->tl, FLOW_BARRIER, w->block, mbar, mb->phase, track, done);
            }
            sm->stats.dir_bytes[dir] += (uint64_t) bytes;
            if (sm->race) {
                RaceTag tag = { RACE_TAG_BARRIER, mbar, (uint32_t) mb->phase, op->loc };
                g_autofree char *warn = race_async_write(sm->race, w->block, w->tid0 + l, sim_lane_value(&dv, l),
                                                         bytes, tag, 0);
                if (warn) {
                    sm->stats.race_warnings++;
                    g_autofree char *key = g_strdup_printf("race-war-%u", op->loc.line);
                    sm_warn(sm, key, "%s", warn);
                }
            }
            if (sm->opt.functional && bytes > 0) {
                memcpy(data_at(sm, w, dspace, sim_lane_value(&dv, l)), data_at(sm, w, sspace, sim_lane_value(&sv, l)),
                       (size_t) bytes);
            }
            if (op->code == OP_MEMCPY) {
                uint64_t before = mb->phase;
                MBarStatus st = mbar_expect_tx(mb, bytes, t, warp_barrier_wake, sm);
                if (st != MBAR_OK) {
                    return RULE(sm, w, 1u << l, op, "expect_tx: %s", mbar_status_message(st));
                }
                note_phase(sm, b, mbar, before, t);
            }
            sm_schedule_action(sm, done, ACT_COMPLETE_TX, w->block, mbar, bytes, op->loc, w->id, 1u << l);
        }
        s->step = 0;
        s->pc++;
        *cost = 1;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        sm->stats.instructions++;
        return STEP_ISSUED;
    }

    /* Chunks: thread of rank r copies offsets r*cs + k*group*cs < size. */
    int64_t chunk = path == PATH_SYNC ? MIN(align, (int64_t) 16) : cs;
    int64_t rank[SIM_WARP_SIZE];
    int64_t iters = 0;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        rank[l] = copy_rank(w, g, l);
        if (m & (1u << l)) {
            int64_t sz = sim_lane_value(&zv, l);
            int64_t first = rank[l] * chunk;
            if (first < sz) {
                iters = MAX(iters, (sz - first + gsize * chunk - 1) / (gsize * chunk));
            }
        }
    }
    if (path == PATH_SYNC) {
        /* __cp_async_fallback_mechanism: each thread loads a chunk from
         * the source and stores it to the destination, through the units of
         * their memories: a shared load takes the shared-memory port and its
         * latency, a global one the memory path (L1, L2, DRAM); a shared
         * store takes the port when the data is in registers, a global
         * store (st.global) goes to the memory path when the last load has
         * arrived (a second step, so that the memory path sees it at its
         * time).  The thread waits for its loads, not for global stores. */
        bool store_step = dspace == SPACE_GLOBAL && s->remaining == 1;
        SimCycle done = t;
        for (int64_t k = 0; k < iters; k++) {
            int64_t src[SIM_WARP_SIZE], dst[SIM_WARP_SIZE];
            LaneMask km = 0;
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                int64_t off = rank[l] * chunk + k * gsize * chunk;
                src[l] = dst[l] = 0;
                if ((m & (1u << l)) && off < sim_lane_value(&zv, l)) {
                    km |= 1u << l;
                    src[l] = sim_lane_value(&sv, l) + off;
                    dst[l] = sim_lane_value(&dv, l) + off;
                    if (sm->opt.functional && !store_step) {
                        memcpy(data_at(sm, w, dspace, dst[l]), data_at(sm, w, sspace, src[l]), (size_t) chunk);
                    }
                    if (sm->race && dspace == SPACE_SHARED) {
                        race_plain_write(sm->race, w->block, w->tid0 + l, dst[l], chunk);
                    }
                }
            }
            if (store_step) {
                global_write(sm, t + (SimCycle) k, dst, km, chunk);
                sm->stats.sync_bytes += (uint64_t) (lanes_in(km) * chunk);
                sm->stats.dir_sync_bytes[dir] += (uint64_t) (lanes_in(km) * chunk);
                sm->stats.dir_bytes[dir] += (uint64_t) (lanes_in(km) * chunk);
                continue;
            }
            SimCycle arrive;
            if (sspace == SPACE_SHARED) {
                int64_t replays;
                arrive = cl_ptr_load(sm, w, op, km, op->e[1], src, chunk, t + (SimCycle) k, &replays);
                sm_note_smem_replays(sm, t + (SimCycle) k, replays);
            } else {
                arrive = global_read(sm, t + (SimCycle) k, src, km, chunk);
            }
            if (dspace == SPACE_GLOBAL) {
                done = MAX(done, arrive);
                continue;
            }
            int64_t replays;
            SimCycle stored = smem_access(&sm->smem, arrive, dst, km, chunk, &replays);
            done = MAX(done, stored);
            sm_note_smem_replays(sm, arrive, replays);
            sm->stats.sync_bytes += (uint64_t) (lanes_in(km) * chunk);
            sm->stats.dir_sync_bytes[dir] += (uint64_t) (lanes_in(km) * chunk);
            sm->stats.dir_bytes[dir] += (uint64_t) (lanes_in(km) * chunk);
        }
        if (dspace == SPACE_GLOBAL && !store_step) {
            /* The loads are out; the stores issue when their data is in. */
            sm->stats.instructions += (uint64_t) iters;
            s->remaining = 1;
            *cost = MAX((int64_t) 1, iters);
            s->ready_at = MAX(done, t + (SimCycle) *cost);
            s->wait_state = sspace == SPACE_GLOBAL ? WS_MEMORY : WS_DEPENDENCY;
            return STEP_ISSUED;
        }
        sm->stats.sync_copies++;
        sm->stats.instructions += (uint64_t) (store_step ? iters : 2 * iters);
        s->step = 0;
        s->remaining = 0;
        s->pc++;
        *cost = MAX((int64_t) 1, store_step ? iters : 2 * iters);
        s->ready_at = MAX(done, t + (SimCycle) *cost);
        s->wait_state = sspace == SPACE_GLOBAL && !store_step ? WS_MEMORY : WS_DEPENDENCY;
        if (op->aux == SYNC_BARRIER) {
            /* Nothing asynchronous is left: no barrier arrival is deferred. */
        }
        return STEP_ISSUED;
    }

    /* cp.async: one warp instruction per iteration. */
    int64_t k = s->remaining;
    if (k < iters) {
        int64_t src[SIM_WARP_SIZE], dst[SIM_WARP_SIZE];
        LaneMask km = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            int64_t off = rank[l] * chunk + k * gsize * chunk;
            if ((m & (1u << l)) && off < sim_lane_value(&zv, l)) {
                km |= 1u << l;
                src[l] = sim_lane_value(&sv, l) + off;
                dst[l] = sim_lane_value(&dv, l) + off;
            } else {
                src[l] = dst[l] = 0;
            }
        }
        int64_t sectors;
        int64_t lines = copy_engine_count_lines(&sm->cpa, src, km, chunk, &sectors);
        SimCycle admit = copy_engine_admit(&sm->cpa, t, lines);
        if (admit > t) {
            s->ready_at = admit;
            s->wait_state = WS_COPY_THROTTLE;
            sm->stats.throttled_cycles += admit - t;
            return STEP_WAIT;
        }
        CopyResult r = copy_engine_issue(&sm->cpa, &sm->mem, &sm->smem, t, src, dst, km, chunk);
        {
            SimSliceArgs cargs = SIM_SLICE_ARGS_INIT;
            int64_t tid = w->tid0 + lowest(km);
            cargs.line = op->loc.line;
            cargs.bytes = r.bytes;
            if (p != NULL && p->block_scope) {
                cargs.stage = p->head[tid];
            } else if (op->aux == SYNC_BARRIER) {
                cargs.barrier = barrier_name(sm, op->obj);
            }
            int track = sm_note_copy(sm, r.issue, r.done, "cp.async", &cargs);
            if (track > 0 && p != NULL && p->block_scope) {
                /* It fills the stage instance this thread commits next. */
                sim_timeline_flow_start(sm->tl, FLOW_STAGE, w->block, sm->pipe_slot[op->obj], p->commits[tid], track,
                                        r.done);
            } else if (track > 0 && op->aux == SYNC_BARRIER) {
                sim_timeline_flow_start(sm->tl, FLOW_BARRIER, w->block, op->obj, b->mbars[op->obj].phase, track,
                                        r.done);
            }
        }
        sm->stats.dir_bytes[dir] += (uint64_t) (lanes_in(km) * chunk);
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (!(km & (1u << l))) {
                continue;
            }
            w->lane_open[l] = MAX(w->lane_open[l], r.done);
            w->lane_copies[l] = MAX(w->lane_copies[l], r.done);
            int64_t tid = w->tid0 + l;
            if (sm->opt.functional) {
                memcpy(data_at(sm, w, dspace, dst[l]), data_at(sm, w, sspace, src[l]), (size_t) chunk);
            }
            if (sm->race) {
                RaceTag tag;
                int32_t stages = 0;
                if (p != NULL && p->block_scope) {
                    tag = (RaceTag) { RACE_TAG_STAGE, sm->pipe_slot[op->obj], p->commits[tid], op->loc };
                    stages = (int32_t) p->stages;
                } else if (op->aux == SYNC_BARRIER) {
                    tag = (RaceTag) { RACE_TAG_BARRIER, (int32_t) op->obj, (uint32_t) b->mbars[op->obj].phase, op->loc };
                } else {
                    tag = (RaceTag) { RACE_TAG_GROUP, 0, race_current_group(sm->race, w->block, tid), op->loc };
                }
                g_autofree char *warn = race_async_write(sm->race, w->block, tid, dst[l], chunk, tag, stages);
                if (warn) {
                    sm->stats.race_warnings++;
                    g_autofree char *key = g_strdup_printf("race-war-%u", op->loc.line);
                    sm_warn(sm, key, "%s", warn);
                }
            }
        }
        sm->stats.instructions++;
        s->remaining = k + 1;
        *cost = 1;
        /* A warp issues its next cp.async warp_issue_cycles later. */
        s->ready_at = t + MAX((SimCycle) 1, (SimCycle) sm->arch.cp_async_warp_issue);
        s->wait_state = WS_COPY_THROTTLE;
        if (s->remaining < iters) {
            return STEP_ISSUED;
        }
    }
    /* All chunks issued: completion mechanism. */
    if (op->aux == SYNC_BARRIER) {
        /* cp.async.mbarrier.arrive (no .noinc) for each calling thread. */
        MBarStatus st = copies_arrive(sm, w, m, (int32_t) op->obj, t, op->loc);
        if (st != MBAR_OK) {
            return RULE(sm, w, m, op, "memcpy_async on a barrier: %s", mbar_status_message(st));
        }
    } else if (op->aux == SYNC_NONE) {
        /* cooperative_groups::memcpy_async commits a group per call. */
        commit_group(sm, w, m);
    }
    s->step = 0;
    s->remaining = 0;
    s->pc++;
    if (*cost == 0) {
        return STEP_CONTINUE;
    }
    return STEP_ISSUED;
}

/* ------------------------------------------------------------- barriers */

static StepResult wait_mbar(Sm *sm, Warp *w, int32_t si, const Op *op, int32_t mbar, bool token, uint64_t value,
                            SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    MBarrier *mb = &sm->blocks[w->block].mbars[mbar];
    if (!mb->valid) {
        return RULE(sm, w, s->mask, op, "%s: %s", op_code_name(op->code), mbar_status_message(MBAR_UNINITIALIZED));
    }
    bool done = token ? mbar_token_done(mb, value) : mbar_parity_done(mb, value);
    *cost = 1;
    if (done && sm->tl != NULL && mb->phase > 0) {
        /* The copies of the phase waited for (the token's, or for a parity
         * the last one completed). */
        sim_timeline_flow_end(sm->tl, FLOW_BARRIER, w->block, mbar, token ? value : mb->phase - 1, w->timeline_track,
                              t);
    }
    if (done) {
        if (sm->race) {
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if (s->mask & (1u << l)) {
                    race_barrier_observed(sm->race, w->block, w->tid0 + l, mbar, mb->phase);
                }
            }
        }
        s->step = 0;
        s->pc++;
        s->ready_at = mbar_wait_at(sm, t) + wait_call_cost(sm, w, s->mask, t);
        s->wait_state = WS_MBARRIER;
        return STEP_ISSUED;
    }
    BarrierWaiter wt = { w->id, si, token, value };
    mbar_add_waiter(mb, wt);
    block_split(w, s, WAIT_MBAR, WS_MBARRIER, mbar, value, token, t + 1);
    sm->stats.mbar_waits++;
    return STEP_ISSUED;
}

static StepResult exec_barrier(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    Block *b = &sm->blocks[w->block];
    LaneMask m = s->mask;
    int32_t mi = op->obj;
    MBarrier *mb = &b->mbars[mi];
    uint64_t before = mb->phase;
    MBarStatus st = MBAR_OK;
    uint64_t token = 0;
    switch (op->code) {
    case OP_BAR_INIT: {
        int64_t count;
        if (!eval_same(sm, w, m, op, op->e[0], "init's count", &count)) {
            return STEP_STOP;
        }
        st = mbar_init(mb, count, t);
        if (st != MBAR_OK) {
            return RULE(sm, w, m, op, "init(barrier, %" G_GINT64_FORMAT "): %s", count, mbar_status_message(st));
        }
        s->pc++;
        *cost = 1;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    }
    case OP_BAR_ARRIVE:
    case OP_BAR_ARRIVE_TX:
    case OP_BAR_ARRIVE_WAIT: {
        if (s->step == 1) {
            /* arrive_and_wait's second half. */
            return wait_mbar(sm, w, si, op, mi, true, (uint64_t) s->aux, t, cost);
        }
        int64_t count = 1;
        if (op->code != OP_BAR_ARRIVE_WAIT && !eval_same(sm, w, m, op, op->e[0], "the arrival count", &count)) {
            return STEP_STOP;
        }
        if (op->code == OP_BAR_ARRIVE_TX) {
            int64_t bytes;
            if (!eval_same(sm, w, m, op, op->e[1], "the transaction bytes", &bytes)) {
                return STEP_STOP;
            }
            if (sm->arch.sm_version < 90) {
                return RULE(sm, w, m, op, "barrier_arrive_tx needs sm_90 (transaction counts)");
            }
            /* Range checks before multiplying by the lanes: a trace's
             * numbers can be anything (int64 overflow, fuzz review). */
            st = bytes < 0 || bytes > (int64_t) MBAR_MAX_COUNT
                     ? MBAR_BAD_TX : mbar_expect_tx(mb, bytes * lanes_in(m), t, warp_barrier_wake, sm);
        }
        if (st == MBAR_OK) {
            st = count < 1 ? MBAR_BAD_COUNT
                 : count > (int64_t) MBAR_MAX_COUNT ? MBAR_OVER_ARRIVAL
                                                    : mbar_arrive(mb, count * lanes_in(m), mbar_op_at(sm, t), &token,
                                                                  warp_barrier_wake, sm);
        }
        if (st != MBAR_OK) {
            return RULE(sm, w, m, op, "%s: %s", op_code_name(op->code), mbar_status_message(st));
        }
        note_phase(sm, b, mi, before, t);
        if (op->var >= 0) {
            store_lanes(w, var_at(sm, op->var), m, (int64_t) token);
        }
        *cost = 1;
        if (op->code == OP_BAR_ARRIVE_WAIT) {
            s->step = 1;
            s->aux = (int64_t) token;
            s->ready_at = t + (SimCycle) sm->arch.mbar_arrive;
            s->wait_state = WS_MBARRIER;
            return STEP_ISSUED;
        }
        s->pc++;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    }
    case OP_BAR_EXPECT_TX: {
        int64_t bytes;
        if (!eval_same(sm, w, m, op, op->e[0], "the transaction bytes", &bytes)) {
            return STEP_STOP;
        }
        if (sm->arch.sm_version < 90) {
            return RULE(sm, w, m, op, "barrier_expect_tx needs sm_90 (transaction counts)");
        }
        st = bytes < 0 || bytes > (int64_t) MBAR_MAX_COUNT
                 ? MBAR_BAD_TX : mbar_expect_tx(mb, bytes * lanes_in(m), t, warp_barrier_wake, sm);
        if (st != MBAR_OK) {
            return RULE(sm, w, m, op, "barrier_expect_tx: %s", mbar_status_message(st));
        }
        note_phase(sm, b, mi, before, t);
        s->pc++;
        *cost = 1;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    }
    case OP_BAR_WAIT:
    case OP_BAR_WAIT_PARITY: {
        int64_t v;
        if (!eval_same(sm, w, m, op, op->e[0], op->code == OP_BAR_WAIT ? "the token" : "the parity", &v)) {
            return STEP_STOP;
        }
        return wait_mbar(sm, w, si, op, mi, op->code == OP_BAR_WAIT, (uint64_t) v, t, cost);
    }
    case OP_BAR_ARRIVE_DROP:
        st = mbar_arrive_drop(mb, lanes_in(m), t, warp_barrier_wake, sm);
        if (st != MBAR_OK) {
            return RULE(sm, w, m, op, "arrive_and_drop: %s", mbar_status_message(st));
        }
        note_phase(sm, b, mi, before, t);
        s->pc++;
        *cost = 1;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    default:
        g_assert_not_reached();
    }
}

/* __syncthreads, first half: the lanes arrive and the split blocks. */
static StepResult block_sync_arrive(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    Block *b = &sm->blocks[w->block];
    if (sm->race) {
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (s->mask & (1u << l)) {
                race_block_arrive(sm->race, w->block, w->tid0 + l);
            }
        }
    }
    BarrierWaiter wt = { w->id, si, false, 0 };
    g_array_append_val(b->bar.waiters, wt);
    block_split(w, s, WAIT_BLOCK_BAR, WS_BLOCK_BARRIER, 0, 0, false, t + 1);
    uint64_t gen = b->bar.generation;
    block_barrier_arrive(&b->bar, lanes_in(s->mask), t, warp_barrier_wake, sm);
    if (b->bar.generation != gen) {
        sm->stats.syncthreads++;
        if (sm->tl != NULL) {
            SimSliceArgs args = SIM_SLICE_ARGS_INIT;
            args.barrier = "__syncthreads";
            args.phase = (int64_t) gen;
            sim_timeline_instant(sm->tl, barrier_track(sm, w->block), "__syncthreads: every thread arrived", t, &args);
        }
        race_sync_complete(sm, w->block);
    }
    *cost = 1;
    return STEP_ISSUED;
}

/* __syncthreads, second half: released by the barrier's completion. */
static void block_sync_pass(Sm *sm, Warp *w, int32_t si)
{
    Split *s = &w->split[si];
    if (sm->race) {
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (s->mask & (1u << l)) {
                race_block_pass(sm->race, w->block, w->tid0 + l, sm->blocks[w->block].bar.generation);
            }
        }
    }
}

static StepResult exec_syncthreads(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    if (s->step == 1) {
        block_sync_pass(sm, w, si);
        s->step = 0;
        s->pc++;
        return STEP_CONTINUE;
    }
    s->step = 1;
    return block_sync_arrive(sm, w, si, t, cost);
}

/* __syncwarp (op->value 0) or tiled_partition<N>'s sync (op->value N): the
 * split waits until every live lane of its tiles has arrived. */
static StepResult exec_syncwarp(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    if (s->step == 1) {
        s->step = 0;
        s->pc++;
        return STEP_CONTINUE;
    }
    int64_t lanes = op->value > 0 ? op->value : SIM_WARP_SIZE;
    w->syncwarp_arrived |= s->mask;
    *cost = 1;
    if (syncwarp_done(w, s->mask, lanes)) {
        syncwarp_wake(sm, w, s->mask, lanes, t + 1);
        s->pc++;
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    }
    s->step = 1;
    block_split(w, s, WAIT_SYNCWARP, WS_BLOCK_BARRIER, 0, (uint64_t) lanes, false, t + 1);
    return STEP_ISSUED;
}

static StepResult exec_cg_wait(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    switch (s->step) {
    case 0: {
        /* cp.async.wait_group N, then group.sync(). */
        SimCycle ready = groups_ready(w, s->mask, op->value, t);
        ready = MAX(ready, t + (SimCycle) sm->arch.cp_async_wait);
        race_groups_done(sm, w, s->mask, op->value);
        s->step = op->sub == GROUP_BLOCK ? 1 : 3;
        *cost = 1;
        s->ready_at = MAX(ready, t + 1);
        s->wait_state = WS_ASYNC_WAIT;
        return STEP_ISSUED;
    }
    case 1:
        s->step = 2;
        return block_sync_arrive(sm, w, si, t, cost);
    case 2:
        block_sync_pass(sm, w, si);
        break;
    default:
        break;
    }
    s->step = 0;
    s->pc++;
    return STEP_CONTINUE;
}

/* --------------------------------------------------------- OpenCL pipes */

/* OpenCL C pipe built-ins on the pipe objects of cl_pipe.c.  Cost model
 * (docs/opencl-pipes.md):
 *  - an operation on a pipe's header (a reservation, a commit) is one atomic
 *    on the header line, performed at L2: the warp waits for its round trip
 *    through the memory path (uncached in L1).  A warp's lanes share one
 *    atomic (warp-aggregated) and get their reservations in lane order.
 *    The header changes when the atomic is issued.
 *  - packets move as global loads (read) and stores (write) of their slots,
 *    plus the load or store of ptr's element (shared or global memory).
 *  - a work-group function is a barrier, one atomic by work-item 0 and a
 *    barrier handing its result to every work-item: the header changes when
 *    the last work-item arrives, and the work-group resumes two barrier
 *    costs and one round trip later.  Waiting in it counts as block_barrier.
 *  - read_pipe/write_pipe(p, ptr) reserve one packet, move it and commit it:
 *    two atomics around the packet's move. */

static const char *cl_call_name(const Op *op)
{
    bool wr = (op->sub & CL_WRITE) != 0;
    bool wg = (op->sub & CL_WORK_GROUP) != 0;
    switch (op->code) {
    case OP_CL_RESERVE:
        return wg ? (wr ? "work_group_reserve_write_pipe" : "work_group_reserve_read_pipe")
                  : (wr ? "reserve_write_pipe" : "reserve_read_pipe");
    case OP_CL_COMMIT:
        return wg ? (wr ? "work_group_commit_write_pipe" : "work_group_commit_read_pipe")
                  : (wr ? "commit_write_pipe" : "commit_read_pipe");
    default:
        return wr ? "write_pipe" : "read_pipe";
    }
}

static ClPipe *cl_pipe_of(Sm *sm, const Op *op)
{
    return &sm->clpipes[op->obj];
}

static const ProgPipe *cl_prog_pipe(const Sm *sm, const Op *op)
{
    return &g_array_index(sm->prog->pipes, ProgPipe, op->obj);
}

/* One atomic on the pipe's header leaving the SM at t; returns when its
 * result is back. */
static SimCycle cl_atomic(Sm *sm, const Op *op, SimCycle t)
{
    cl_pipe_of(sm, op)->stats->atomics++;
    return mem_path_read(&sm->mem, t, (uint64_t) cl_prog_pipe(sm, op)->header, sm->arch.sector_bytes, false);
}

static void cl_note_occupancy(Sm *sm, const Op *op, SimCycle t)
{
    if (sm->tl != NULL) {
        char name[96];
        g_snprintf(name, sizeof name, "pipe %s occupancy", cl_prog_pipe(sm, op)->name);
        /* The timeline takes changes: give it the difference. */
        ClPipe *cp = cl_pipe_of(sm, op);
        int64_t now_value = cl_pipe_occupancy(cp);
        /* The sink may keep the name until the change's cycle: intern it. */
        sim_timeline_counter_add(sm->tl, g_intern_string(name), sm->engine.now, t, now_value - cp->timeline_value);
        cp->timeline_value = now_value;
    }
}

/* Records that the split's work-items read or write the pipe. */
static bool cl_use(Sm *sm, Warp *w, Split *s, const Op *op, bool write)
{
    Block *b = &sm->blocks[w->block];
    uint8_t want = write ? 2 : 1;
    if (b->cl_dir[op->obj] == 0) {
        b->cl_dir[op->obj] = want;
        b->cl_dir_line[op->obj] = op->loc.line;
    } else if (b->cl_dir[op->obj] != want) {
        /* SPEC clpipe-access-1: a kernel's pipe argument is read_only or
         * write_only; a kernel cannot read from and write to one pipe.  Each
         * work-group stands for the kernel that plays its role. */
        RULE(sm, w, s->mask, op, "%s: work-group %d %s pipe '%s' at line %u; a kernel's pipe is read_only or"
             " write_only, so one work-group cannot both read and write it (SPEC clpipe-access-1)",
             cl_call_name(op), w->block, b->cl_dir[op->obj] == 2 ? "writes" : "reads", cl_prog_pipe(sm, op)->name,
             b->cl_dir_line[op->obj]);
        return false;
    }
    /* Roles for --by role: writers produce, readers consume. */
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (s->mask & (1u << l)) {
            b->thread_role[w->tid0 + l] |= write ? ROLEBIT_PRODUCER : ROLEBIT_CONSUMER;
        }
    }
    s->role = -1;
    return true;
}

/* num_packets of a reservation. */
static bool cl_check_count(Sm *sm, Warp *w, LaneMask lanes, const Op *op, int64_t n)
{
    const ProgPipe *pp = cl_prog_pipe(sm, op);
    if (n < 1) {
        /* SPEC clpipe-reserve-1: num_packets is 1 .. the pipe's capacity. */
        RULE(sm, w, lanes, op, "%s(%s, %" G_GINT64_FORMAT "): num_packets must be at least 1 (SPEC clpipe-reserve-1)",
             cl_call_name(op), pp->name, n);
        return false;
    }
    if (n > pp->capacity) {
        RULE(sm, w, lanes, op, "%s(%s, %" G_GINT64_FORMAT "): pipe '%s' holds %" G_GINT64_FORMAT " packets, so this"
             " reservation can never succeed (SPEC clpipe-reserve-1)", cl_call_name(op), pp->name, n, pp->name,
             pp->capacity);
        return false;
    }
    return true;
}

/* The limit on open reservations of work-item tid (-1: of every work-item
 * of the work-group, for a work-group reservation). */
static bool cl_check_active(Sm *sm, Warp *w, LaneMask lanes, const Op *op, int64_t tid)
{
    int64_t open = cl_pipe_active(cl_pipe_of(sm, op), w->block, tid);
    if (open >= sm->arch.cl_max_active) {
        /* SPEC clpipe-max-active-1: at most CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS
         * reservations per work-item and pipe are active (reserved, not
         * committed); a work-group reservation counts for each work-item. */
        RULE(sm, w, lanes, op, "%s: %s already has %" G_GINT64_FORMAT " open reservation%s on pipe '%s', the limit"
             " CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS (opencl.max_active_reservations = %" G_GINT64_FORMAT "; a"
             " work-group reservation counts for each of its work-items); commit one first (SPEC clpipe-max-active-1)",
             cl_call_name(op), tid < 0 ? "a work-item of the work-group" : "the work-item", open, open == 1 ? "" : "s",
             cl_prog_pipe(sm, op)->name, sm->arch.cl_max_active);
        return false;
    }
    return true;
}

/* The reservation `rid` names for work-item tid (-1: the work-group), or
 * NULL after reporting why the operation cannot use it. */
static ClReservation *cl_lane_rid(Sm *sm, Warp *w, const Op *op, LaneMask lanes, int64_t tid, int64_t rid)
{
    ClPipe *p = cl_pipe_of(sm, op);
    const char *name = cl_call_name(op);
    const char *pipe = cl_prog_pipe(sm, op)->name;
    bool write = (op->sub & CL_WRITE) != 0;
    if (rid == 0) {
        /* SPEC clpipe-rid-1: only a valid reservation id may be used. */
        RULE(sm, w, lanes, op, "%s with an invalid reservation id: the reservation that returned it failed; test"
             " it with is_valid_reserve_id first (SPEC clpipe-rid-1)", name);
        return NULL;
    }
    ClReservation *r = cl_pipe_find(p, rid);
    if (r == NULL) {
        for (int32_t k = 0; k < sm->nclpipes; k++) {
            if (k != op->obj && cl_pipe_find(&sm->clpipes[k], rid) != NULL) {
                RULE(sm, w, lanes, op, "%s on pipe '%s' with reservation %" G_GINT64_FORMAT ", which belongs to pipe"
                     " '%s' (SPEC clpipe-rid-3)", name, pipe, rid,
                     g_array_index(sm->prog->pipes, ProgPipe, k).name);
                return NULL;
            }
        }
    }
    if (r == NULL || r->committed) {
        /* SPEC clpipe-rid-2: a committed reservation is gone. */
        RULE(sm, w, lanes, op, "%s with reservation %" G_GINT64_FORMAT " of pipe '%s', which was already committed"
             " (SPEC clpipe-rid-2)", name, rid, pipe);
        return NULL;
    }
    /* SPEC clpipe-rid-3: a reservation is used on its pipe, in its
     * direction, by its owner, and committed in the form that made it. */
    if (r->write != write) {
        RULE(sm, w, lanes, op, "%s with reservation %" G_GINT64_FORMAT ", which reserved packets for %s at line %u"
             " (SPEC clpipe-rid-3)", name, rid, r->write ? "writing" : "reading", r->loc.line);
        return NULL;
    }
    if (r->block != w->block) {
        RULE(sm, w, lanes, op, "%s with reservation %" G_GINT64_FORMAT ", which work-group %d made (SPEC clpipe-rid-3)",
             name, rid, r->block);
        return NULL;
    }
    if (op->code == OP_CL_COMMIT && (op->sub & CL_WORK_GROUP) != 0 && r->tid >= 0) {
        RULE(sm, w, lanes, op, "%s takes a work-group reservation; reservation %" G_GINT64_FORMAT " was made by"
             " work-item %" G_GINT64_FORMAT " at line %u: commit it with commit_%s_pipe (SPEC clpipe-rid-3)", name, rid,
             r->tid, r->loc.line, write ? "write" : "read");
        return NULL;
    }
    if (op->code == OP_CL_COMMIT && (op->sub & CL_WORK_GROUP) == 0 && r->tid < 0) {
        RULE(sm, w, lanes, op, "%s takes the work-item's own reservation; reservation %" G_GINT64_FORMAT " was made"
             " by the work-group at line %u: commit it with work_group_commit_%s_pipe (SPEC clpipe-rid-3)", name, rid,
             r->loc.line, write ? "write" : "read");
        return NULL;
    }
    if (r->tid >= 0 && tid >= 0 && r->tid != tid) {
        RULE(sm, w, lanes, op, "%s with reservation %" G_GINT64_FORMAT ", which belongs to work-item %" G_GINT64_FORMAT
             " (SPEC clpipe-rid-3)", name, rid, r->tid);
        return NULL;
    }
    return r;
}

/* Writes `size` bytes at lanes' global addresses (st.global): one request
 * per line. */
static void global_write(Sm *sm, SimCycle t, const int64_t *addr, LaneMask m, int64_t size)
{
    uint64_t lines[64];
    int n = 0;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (!(m & (1u << l))) {
            continue;
        }
        uint64_t line = (uint64_t) addr[l] / (uint64_t) sm->arch.line_bytes;
        bool dup = false;
        for (int k = 0; k < n; k++) {
            dup |= lines[k] == line;
        }
        if (dup || n == 64) {
            continue;
        }
        lines[n++] = line;
        int64_t bytes = 0;
        for (int k = 0; k < SIM_WARP_SIZE; k++) {
            if ((m & (1u << k)) && (uint64_t) addr[k] / (uint64_t) sm->arch.line_bytes == line) {
                bytes += size;
            }
        }
        mem_path_write(&sm->mem, t, line * (uint64_t) sm->arch.line_bytes, MIN(bytes, sm->arch.line_bytes));
    }
}

/* Loads the element ptr points to in each lane (shared or global); returns
 * when it is in registers.  *replays: bank-conflict replays. */
static SimCycle cl_ptr_load(Sm *sm, Warp *w, const Op *op, LaneMask m, const ExprNode *ptr, const int64_t *addr,
                            int64_t size, SimCycle t, int64_t *replays)
{
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    *replays = 0;
    if (buf->space != SPACE_SHARED) {
        return global_read(sm, t, addr, m, size);
    }
    SimCycle port = smem_access(&sm->smem, t, addr, m, size, replays);
    for (int l = 0; sm->race != NULL && l < SIM_WARP_SIZE; l++) {
        if (m & (1u << l)) {
            g_autofree char *warn = race_read(sm->race, w->block, w->tid0 + l, addr[l], size, op->loc);
            if (warn) {
                sm->stats.race_warnings++;
                g_autofree char *key = g_strdup_printf("race-raw-%u", op->loc.line);
                sm_warn(sm, key, "%s", warn);
            }
        }
    }
    return port - 1 + (SimCycle) sm->arch.smem_latency;
}

/* Stores each lane's packet to the element ptr points to. */
static void cl_ptr_store(Sm *sm, Warp *w, LaneMask m, const ExprNode *ptr, const int64_t *addr, int64_t size,
                         SimCycle t, int64_t *replays)
{
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    *replays = 0;
    if (buf->space != SPACE_SHARED) {
        global_write(sm, t, addr, m, size);
        return;
    }
    smem_access(&sm->smem, t, addr, m, size, replays);
    for (int l = 0; sm->race != NULL && l < SIM_WARP_SIZE; l++) {
        if (m & (1u << l)) {
            race_plain_write(sm->race, w->block, w->tid0 + l, addr[l], size);
        }
    }
}

/* Functional model: copies a packet between ptr's element and a slot. */
static void cl_copy(Sm *sm, Warp *w, const ExprNode *ptr, int64_t ptr_addr, int64_t slot_addr, int64_t size,
                    bool to_slot)
{
    if (!sm->opt.functional) {
        return;
    }
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    uint8_t *a = data_at(sm, w, buf->space, ptr_addr);
    uint8_t *s = data_at(sm, w, SPACE_GLOBAL, slot_addr);
    if (a != NULL && s != NULL) {
        memcpy(to_slot ? s : a, to_slot ? a : s, (size_t) size);
    }
}

/* SPEC clpipe-unwritten-1: a reserved packet that no write_pipe wrote has
 * undefined contents; reading it is reported as a warning. */
static void cl_check_written(Sm *sm, const Op *op, int64_t slot)
{
    ClPipe *p = cl_pipe_of(sm, op);
    if (cl_pipe_is_written(p, slot)) {
        return;
    }
    p->stats->unwritten_reads++;
    g_autofree char *key = g_strdup_printf("cl-unwritten-%u", op->loc.line);
    sm_warn(sm, key, "line %u: %s reads a packet of pipe '%s' that was reserved for writing but never written: its"
            " contents are undefined (SPEC clpipe-unwritten-1; first at cycle %" G_GUINT64_FORMAT ")", op->loc.line,
            cl_call_name(op), cl_prog_pipe(sm, op)->name, sm->engine.now);
}

/* Sets the split's result variable to 0 (success) or -1 per lane. */
static void cl_store_status(Sm *sm, Warp *w, const Op *op, LaneMask m, LaneMask ok)
{
    if (op->var < 0) {
        return;
    }
    SimLaneValue v;
    memset(&v, 0, sizeof v);
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        v.v[l] = (ok & (1u << l)) ? 0 : -1;
    }
    store_var(w, var_at(sm, op->var), m, &v);
}

static StepResult cl_issued(Sm *sm, Split *s, SimCycle t, SimCycle ready, int64_t replays, int64_t *cost)
{
    *cost = 1 + replays;
    s->ready_at = MAX(ready, t + 1 + (SimCycle) replays);
    s->wait_state = ready > t + 100 ? WS_MEMORY : replays > 0 ? WS_BANK_CONFLICT : WS_DEPENDENCY;
    sm->stats.instructions++;
    return STEP_ISSUED;
}

static StepResult cl_group_complete(Sm *sm, Warp *w, LaneMask m, const Op *op, SimCycle t)
{
    Block *b = &sm->blocks[w->block];
    ClPipe *p = cl_pipe_of(sm, op);
    int64_t result = 0;
    if (op->code == OP_CL_RESERVE) {
        int64_t n = b->cl_arg;
        if (!cl_check_count(sm, w, m, op, n) || !cl_check_active(sm, w, m, op, -1)) {
            return STEP_STOP;
        }
        if (cl_pipe_reserve(p, (op->sub & CL_WRITE) != 0, n, w->block, -1, false, sm->cl_next_rid, op->loc, t,
                            NULL)) {
            result = sm->cl_next_rid++;
        }
    } else {
        if (cl_lane_rid(sm, w, op, m, -1, b->cl_arg) == NULL) {
            return STEP_STOP;
        }
        cl_pipe_commit(p, b->cl_arg, t);
    }
    cl_note_occupancy(sm, op, t);
    SimCycle sync = (SimCycle) (sm->arch.syncthreads_base + sm->arch.syncthreads_per_warp * sm->prog->warps);
    SimCycle at = cl_atomic(sm, op, t + sync) + sync;
    b->cl_pc = -1;
    b->cl_arrived = 0;
    b->cl_arg_tid = -1;
    for (int32_t wi = 0; wi < (int32_t) sm->prog->warps; wi++) {
        Warp *ow = &sm->warps[b->first_warp + wi];
        for (int32_t i = 0; i < MAX_SPLITS; i++) {
            Split *os = &ow->split[i];
            if (os->status == SPLIT_BLOCKED && os->wait == WAIT_CL_GROUP) {
                if (op->var >= 0) {
                    store_lanes(ow, var_at(sm, op->var), os->mask, result);
                }
                sm_split_wake(sm, ow, i, at);
            }
        }
    }
    return STEP_ISSUED;
}

/* work_group_reserve_*_pipe and work_group_commit_*_pipe. */
static StepResult exec_cl_group(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    Block *b = &sm->blocks[w->block];
    LaneMask m = s->mask;
    int32_t pc = s->pc;
    const char *name = cl_call_name(op);
    if (s->step == 1) {
        /* Released by the work-group's last arrival (cl_group_complete). */
        s->step = 0;
        s->pc++;
        return STEP_CONTINUE;
    }
    /* SPEC clpipe-wg-1: every work-item of the work-group reaches the same
     * work-group function with the same argument values. */
    if (b->live_threads < b->threads) {
        return RULE(sm, w, m, op, "%s is a work-group function, but %" G_GINT64_FORMAT " work-item(s) of work-group %d"
                    " exited without reaching it (SPEC clpipe-wg-1)", name, b->threads - b->live_threads, w->block);
    }
    if (b->cl_pc >= 0 && b->cl_pc != pc) {
        const Op *other = op_at(sm, b->cl_pc);
        return RULE(sm, w, m, op, "work-group function %s reached while other work-items of work-group %d wait in %s"
                    " at line %u: every work-item must reach the same call (SPEC clpipe-wg-1)", name, w->block,
                    cl_call_name(other), other->loc.line);
    }
    SimLaneValue v;
    if (!eval(sm, w, m, op, op->e[0], &v)) {
        return STEP_STOP;
    }
    const char *what = op->code == OP_CL_RESERVE ? "num_packets" : "reserve_id";
    LaneMask differ = 0;
    int first = -1;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (!(m & (1u << l))) {
            continue;
        }
        int64_t x = sim_lane_value(&v, l);
        if (b->cl_arg_tid < 0) {
            b->cl_arg = x;
            b->cl_arg_tid = w->tid0 + l;
        } else if (x != b->cl_arg) {
            differ |= 1u << l;
            first = first < 0 ? l : first;
        }
    }
    if (differ != 0) {
        return RULE(sm, w, differ, op, "%s: the work-items of work-group %d pass different arguments: %s = %"
                    G_GINT64_FORMAT " in work-item %" G_GINT64_FORMAT " but %" G_GINT64_FORMAT " in work-item %"
                    G_GINT64_FORMAT "; a work-group function takes the same arguments in every work-item (SPEC"
                    " clpipe-wg-1)", name, w->block, what, b->cl_arg, b->cl_arg_tid, sim_lane_value(&v, first),
                    w->tid0 + first);
    }
    if (op->code == OP_CL_RESERVE && !cl_use(sm, w, s, op, (op->sub & CL_WRITE) != 0)) {
        return STEP_STOP;
    }
    b->cl_pc = pc;
    b->cl_arrived += lanes_in(m);
    block_split(w, s, WAIT_CL_GROUP, WS_BLOCK_BARRIER, pc, 0, false, t + 1);
    s->step = 1;
    *cost = 1;
    sm->stats.instructions++;
    if (b->cl_arrived < b->threads) {
        return STEP_ISSUED;
    }
    return cl_group_complete(sm, w, m, op, t);
}

/* Work-items leaving while their work-group gathers in a work-group function. */
static void cl_lanes_exit(Sm *sm, Warp *w, LaneMask m)
{
    Block *b = &sm->blocks[w->block];
    if (b->cl_pc < 0 || m == 0) {
        return;
    }
    const Op *op = op_at(sm, b->cl_pc);
    /* SPEC clpipe-wg-1 */
    fail_op(sm, w, m, op->loc, SIM_ERROR_PROGRAM, "these work-items exit while the rest of work-group %d waits in"
            " %s here: a work-group function must be reached by every work-item (SPEC clpipe-wg-1)", w->block,
            cl_call_name(op));
}

/* reserve_*_pipe: one reservation per work-item, in lane order. */
static StepResult exec_cl_reserve(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    LaneMask m = s->mask;
    bool write = (op->sub & CL_WRITE) != 0;
    SimLaneValue nv;
    if (!eval(sm, w, m, op, op->e[0], &nv)) {
        return STEP_STOP;
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if ((m & (1u << l)) && (!cl_check_count(sm, w, 1u << l, op, sim_lane_value(&nv, l)) ||
                                !cl_check_active(sm, w, 1u << l, op, w->tid0 + l))) {
            return STEP_STOP;
        }
    }
    if (!cl_use(sm, w, s, op, write)) {
        return STEP_STOP;
    }
    SimLaneValue out;
    memset(&out, 0, sizeof out);
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if ((m & (1u << l)) && cl_pipe_reserve(cl_pipe_of(sm, op), write, sim_lane_value(&nv, l), w->block,
                                               w->tid0 + l, false, sm->cl_next_rid, op->loc, t, NULL)) {
            out.v[l] = sm->cl_next_rid++;
        }
    }
    cl_note_occupancy(sm, op, t);
    if (op->var >= 0) {
        store_var(w, var_at(sm, op->var), m, &out);
    }
    s->pc++;
    return cl_issued(sm, s, t, cl_atomic(sm, op, t), 0, cost);
}

/* commit_*_pipe: each work-item commits its own reservation. */
static StepResult exec_cl_commit(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    LaneMask m = s->mask;
    SimLaneValue rv;
    if (!eval(sm, w, m, op, op->e[0], &rv)) {
        return STEP_STOP;
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if ((m & (1u << l)) && cl_lane_rid(sm, w, op, 1u << l, w->tid0 + l, sim_lane_value(&rv, l)) == NULL) {
            return STEP_STOP;
        }
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (m & (1u << l)) {
            cl_pipe_commit(cl_pipe_of(sm, op), sim_lane_value(&rv, l), t);
        }
    }
    cl_note_occupancy(sm, op, t);
    s->pc++;
    return cl_issued(sm, s, t, cl_atomic(sm, op, t), 0, cost);
}

/* read_pipe/write_pipe(p, reserve_id, index, ptr): step 0 loads the packet
 * (from ptr or from its slot), step 1 stores it (to its slot or to ptr). */
static StepResult exec_cl_rw_reserved(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    LaneMask m = s->mask;
    ClPipe *p = cl_pipe_of(sm, op);
    const ProgPipe *pp = cl_prog_pipe(sm, op);
    bool write = (op->sub & CL_WRITE) != 0;
    int64_t size = pp->elem.size;
    SimLaneValue rv, iv, av;
    if (!eval(sm, w, m, op, op->e[0], &rv) || !eval(sm, w, m, op, op->e[1], &iv) ||
        !eval(sm, w, m, op, op->e[2], &av)) {
        return STEP_STOP;
    }
    int64_t slot[SIM_WARP_SIZE], slot_addr[SIM_WARP_SIZE], ptr_addr[SIM_WARP_SIZE];
    LaneMask bad = 0;
    int first = -1;
    int64_t first_n = 0;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        ptr_addr[l] = sim_lane_value(&av, l);
        slot[l] = slot_addr[l] = 0;
        if (!(m & (1u << l))) {
            continue;
        }
        const ClReservation *r = cl_lane_rid(sm, w, op, 1u << l, w->tid0 + l, sim_lane_value(&rv, l));
        if (r == NULL) {
            return STEP_STOP;
        }
        int64_t idx = sim_lane_value(&iv, l);
        if (idx < 0 || idx >= r->n) {
            bad |= 1u << l;
            if (first < 0) {
                first = l;
                first_n = r->n;
            }
            continue;
        }
        slot[l] = cl_pipe_slot(p, r, idx);
        slot_addr[l] = pp->base + slot[l] * size;
    }
    if (bad != 0) {
        /* SPEC clpipe-index-1: reserved packets are indexed 0 .. num_packets - 1. */
        return RULE(sm, w, bad, op, "%s(%s, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", ptr): the reservation holds %"
                    G_GINT64_FORMAT " packet%s, indices 0..%" G_GINT64_FORMAT " (SPEC clpipe-index-1)", cl_call_name(op),
                    pp->name, sim_lane_value(&rv, first), sim_lane_value(&iv, first), first_n, first_n == 1 ? "" : "s",
                    first_n - 1);
    }
    if (!check_bounds(sm, w, op, m, op->e[2], ptr_addr, size, write ? "write_pipe's source" : "read_pipe's target")) {
        return STEP_STOP;
    }
    int64_t replays = 0;
    if (s->step == 0) {
        SimCycle ready;
        if (write) {
            ready = cl_ptr_load(sm, w, op, m, op->e[2], ptr_addr, size, t, &replays);
        } else {
            ready = global_read(sm, t, slot_addr, m, size);
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if (m & (1u << l)) {
                    cl_check_written(sm, op, slot[l]);
                }
            }
        }
        s->step = 1;
        return cl_issued(sm, s, t, ready, replays, cost);
    }
    if (write) {
        global_write(sm, t, slot_addr, m, size);
    } else {
        cl_ptr_store(sm, w, m, op->e[2], ptr_addr, size, t, &replays);
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (m & (1u << l)) {
            if (write) {
                cl_pipe_mark_written(p, slot[l]);
            }
            cl_copy(sm, w, op->e[2], ptr_addr[l], slot_addr[l], size, write);
        }
    }
    cl_store_status(sm, w, op, m, m);
    s->step = 0;
    s->pc++;
    return cl_issued(sm, s, t, t + 1, replays, cost);
}

/* read_pipe/write_pipe(p, ptr): reserve one packet per work-item (step 0;
 * a write also loads its packet), move it (a read loads it in step 1), then
 * store and commit it (the last step).  Lanes that got no packet return -1. */
static StepResult exec_cl_rw(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    LaneMask m = s->mask;
    ClPipe *p = cl_pipe_of(sm, op);
    const ProgPipe *pp = cl_prog_pipe(sm, op);
    bool write = (op->sub & CL_WRITE) != 0;
    int64_t size = pp->elem.size;
    SimLaneValue av;
    if (!eval(sm, w, m, op, op->e[0], &av)) {
        return STEP_STOP;
    }
    int64_t ptr_addr[SIM_WARP_SIZE];
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        ptr_addr[l] = sim_lane_value(&av, l);
    }
    if (!check_bounds(sm, w, op, m, op->e[0], ptr_addr, size, write ? "write_pipe's source" : "read_pipe's target")) {
        return STEP_STOP;
    }
    int64_t replays = 0;
    if (s->step == 0) {
        if (!cl_use(sm, w, s, op, write)) {
            return STEP_STOP;
        }
        SimCycle ready = write ? cl_ptr_load(sm, w, op, m, op->e[0], ptr_addr, size, t, &replays) : t;
        LaneMask ok = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if ((m & (1u << l)) && cl_pipe_reserve(p, write, 1, w->block, w->tid0 + l, true, sm->cl_next_rid,
                                                   op->loc, t, NULL)) {
                sm->cl_next_rid++;
                ok |= 1u << l;
            }
        }
        cl_note_occupancy(sm, op, t);
        s->aux = ok;
        s->step = 1;
        return cl_issued(sm, s, t, MAX(ready, cl_atomic(sm, op, t)), replays, cost);
    }
    LaneMask ok = (LaneMask) s->aux;
    int64_t slot[SIM_WARP_SIZE], slot_addr[SIM_WARP_SIZE];
    int64_t rid[SIM_WARP_SIZE];
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        slot[l] = slot_addr[l] = rid[l] = 0;
        if (ok & (1u << l)) {
            const ClReservation *r = cl_pipe_find_plain(p, w->block, w->tid0 + l, write);
            g_assert(r != NULL);
            rid[l] = r->id;
            slot[l] = cl_pipe_slot(p, r, 0);
            slot_addr[l] = pp->base + slot[l] * size;
        }
    }
    if (s->step == 1 && !write && ok != 0) {
        /* A read loads its packet from the slot first. */
        SimCycle ready = global_read(sm, t, slot_addr, ok, size);
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (ok & (1u << l)) {
                cl_check_written(sm, op, slot[l]);
            }
        }
        s->step = 2;
        return cl_issued(sm, s, t, ready, 0, cost);
    }
    SimCycle ready = t + 1;
    if (ok != 0) {
        if (write) {
            global_write(sm, t, slot_addr, ok, size);
        } else {
            cl_ptr_store(sm, w, ok, op->e[0], ptr_addr, size, t, &replays);
        }
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (ok & (1u << l)) {
                if (write) {
                    cl_pipe_mark_written(p, slot[l]);
                }
                cl_copy(sm, w, op->e[0], ptr_addr[l], slot_addr[l], size, write);
                cl_pipe_commit(p, rid[l], t);
            }
        }
        cl_note_occupancy(sm, op, t);
        ready = cl_atomic(sm, op, t);
    }
    cl_store_status(sm, w, op, m, ok);
    s->step = 0;
    s->aux = 0;
    s->pc++;
    return cl_issued(sm, s, t, ready, replays, cost);
}

static StepResult exec_cl(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    switch (op->code) {
    case OP_CL_RESERVE:
    case OP_CL_COMMIT:
        if (op->sub & CL_WORK_GROUP) {
            return exec_cl_group(sm, w, si, op, t, cost);
        }
        return op->code == OP_CL_RESERVE ? exec_cl_reserve(sm, w, si, op, t, cost)
                                         : exec_cl_commit(sm, w, si, op, t, cost);
    case OP_CL_RW_RESERVED:
        return exec_cl_rw_reserved(sm, w, si, op, t, cost);
    case OP_CL_RW:
        return exec_cl_rw(sm, w, si, op, t, cost);
    default:
        /* is_valid_reserve_id compiles to an expression. */
        return RULE(sm, w, w->split[si].mask, op, "%s is not an operation of this build", op_code_name(op->code));
    }
}

void warp_cl_finish(Sm *sm)
{
    for (int32_t k = 0; k < sm->nclpipes; k++) {
        ClPipe *p = &sm->clpipes[k];
        const char *pipe = g_array_index(sm->prog->pipes, ProgPipe, k).name;
        GArray *lists[2] = { p->writes, p->reads };
        for (int d = 0; d < 2; d++) {
            for (guint i = 0; i < lists[d]->len; i++) {
                const ClReservation *r = &g_array_index(lists[d], ClReservation, i);
                if (r->committed) {
                    continue;
                }
                g_autofree char *key = g_strdup_printf("cl-open-%u", r->loc.line);
                g_autofree char *who = r->tid < 0 ? g_strdup_printf("work-group %d", r->block)
                                                  : g_strdup_printf("work-item %" G_GINT64_FORMAT " of work-group %d",
                                                                    r->tid, r->block);
                sm_warn(sm, key, "line %u: %s reserved %" G_GINT64_FORMAT " packet%s of pipe '%s' for %s and never"
                        " committed them: the pipe stays blocked behind them", r->loc.line, who, r->n,
                        r->n == 1 ? "" : "s", pipe, r->write ? "writing" : "reading");
            }
        }
    }
}

/* ------------------------------------------------------------ dispatch */

static StepResult step_op(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost);

/* With sched.chain_overlap, the straight-line region in which the compiler
 * interleaves compute chains ends at a pipeline, copy, barrier or
 * synchronisation statement (volatile asm the compiler keeps in order): the
 * warp reaches it once its chains in flight are complete. */
static bool chains_drain(Sm *sm, Warp *w, Split *s, SimCycle t)
{
    if (!sm->arch.chain_overlap || s->step != 0 || w->chains_done <= t) {
        return false;
    }
    switch ((OpCode) op_at(sm, s->pc)->code) {
    case OP_MAKE_PIPE_THREAD: case OP_MAKE_PIPE_BLOCK: case OP_PIPE_ACQUIRE: case OP_PIPE_COMMIT:
    case OP_PIPE_WAIT: case OP_PIPE_WAIT_FOR: case OP_PIPE_RELEASE: case OP_PIPE_QUIT: case OP_PIPE_WAIT_PRIOR:
    case OP_PIPE_COMMIT_BAR: case OP_MEMCPY: case OP_MEMCPY_TX: case OP_BAR_INIT: case OP_BAR_ARRIVE:
    case OP_BAR_ARRIVE_TX: case OP_BAR_EXPECT_TX: case OP_BAR_WAIT: case OP_BAR_WAIT_PARITY: case OP_BAR_ARRIVE_WAIT:
    case OP_BAR_ARRIVE_DROP: case OP_SYNCTHREADS: case OP_SYNCWARP: case OP_CG_WAIT: case OP_CL_RESERVE:
    case OP_CL_COMMIT: case OP_CL_RW_RESERVED: case OP_CL_RW: case OP_WG_BARRIER:
        s->ready_at = w->chains_done;
        s->wait_state = WS_DEPENDENCY;
        return true;
    default:
        return false;
    }
}

/* Issue slots of the library code a call compiles to beyond the one the
 * operation itself counts: libcudacxx's block-scope pipeline calls (parity
 * and head bookkeeping, the clock read of the wait loop) and memcpy_async's
 * dispatch over a group.  Thread-scope pipeline calls are about one
 * instruction each; a thread's own memcpy_async was not counted. */
static int64_t library_issue(Sm *sm, Warp *w, const Op *op)
{
    switch ((OpCode) op->code) {
    case OP_PIPE_ACQUIRE: case OP_PIPE_COMMIT: case OP_PIPE_WAIT: case OP_PIPE_RELEASE:
        return pipe_for(sm, w, op)->block_scope ? sm->arch.pipe_call_issue - 1 : 0;
    case OP_MEMCPY:
        /* Counted for the group form (memcpy_async(group, ...)). */
        return (GroupKind) op->sub != GROUP_THREAD ? sm->arch.memcpy_call_issue : 0;
    default:
        return 0;
    }
}

/* Runs one step of the split's operation; an operation that starts pays
 * the issue slots of the divisions its expressions evaluate and of the
 * library code behind it. */
static StepResult step(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    int32_t pc = s->pc;
    bool starting = s->step == 0;
    *cost = 0;
    if (chains_drain(sm, w, s, t)) {
        return STEP_WAIT;
    }
    const Op *op = op_at(sm, pc);
    StepResult r = step_op(sm, w, si, t, cost);
    if (starting && (r == STEP_CONTINUE || r == STEP_ISSUED) &&
        (w->split[si].pc != pc || w->split[si].step != 0 || w->split[si].status != SPLIT_RUNNABLE)) {
        int64_t divs = sm->op_divs[pc];
        *cost += divs * sm->arch.div_cycles + library_issue(sm, w, op);
        /* A division is a dependent multiply-high sequence: what follows
         * waits for its result, while the scheduler issues other warps. */
        Split *n = &w->split[si];
        SimCycle done = t + (SimCycle) *cost + (SimCycle) (divs * MAX(0, sm->arch.div_latency - sm->arch.div_cycles));
        if (divs > 0 && n->status == SPLIT_RUNNABLE && n->ready_at < done) {
            n->ready_at = done;
            n->wait_state = WS_DEPENDENCY;
        }
    }
    return r;
}

static StepResult step_op(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    const Op *op = op_at(sm, s->pc);
    LaneMask m = s->mask;
    int64_t ctrl = sm->arch.control_issue;
    *cost = 0;
    if (s->step == 0 && s->frame >= 0 && w->frames[s->frame].join == s->pc) {
        /* Arrived at its reconvergence point: wait for the other side. */
        goto_pc(w, si, s->pc, t);
        return STEP_CONTINUE;
    }
    switch ((OpCode) op->code) {
    case OP_NOP:
        goto_pc(w, si, s->pc + 1, t);
        return STEP_CONTINUE;
    case OP_ASSIGN: {
        SimLaneValue v;
        if (!eval(sm, w, m, op, op->e[0], &v)) {
            return STEP_STOP;
        }
        store_var(w, var_at(sm, op->var), m, &v);
        *cost = ctrl;
        sm->stats.control_instructions += (uint64_t) (ctrl > 0);
        goto_pc(w, si, s->pc + 1, t);
        return STEP_CONTINUE;
    }
    case OP_JUMP:
        *cost = ctrl;
        goto_pc(w, si, op->target, t);
        return STEP_CONTINUE;
    case OP_LOOP_ENTER: {
        s->frame = frame_new(w, op->join, m, s->frame);
        goto_pc(w, si, s->pc + 1, t);
        return STEP_CONTINUE;
    }
    case OP_BRANCH:
    case OP_LOOP: {
        SimLaneValue c;
        if (!eval(sm, w, m, op, op->e[0], &c)) {
            return STEP_STOP;
        }
        LaneMask taken = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if ((m & (1u << l)) && sim_lane_value(&c, l) != 0) {
                taken |= 1u << l;
            }
        }
        LaneMask other = m & ~taken;
        *cost = ctrl;
        sm->stats.control_instructions += (uint64_t) (ctrl > 0);
        if (other == 0) {
            goto_pc(w, si, s->pc + 1, t);
        } else if (taken == 0) {
            goto_pc(w, si, op->target, t);
        } else {
            int32_t ni = split_new(w);
            if (ni < 0) {
                return RULE(sm, w, m, op, "more than %d divergent paths in one warp", MAX_SPLITS);
            }
            int32_t frame = s->frame;
            if (op->code == OP_BRANCH) {
                frame = frame_new(w, op->join, m, s->frame);
            }
            /* The taken side runs first; the other waits its turn. */
            Split *n = &w->split[ni];
            n->status = SPLIT_RUNNABLE;
            n->mask = other;
            n->frame = frame;
            n->ready_at = t + (SimCycle) ctrl;
            n->wait_state = WS_DIVERGENT;
            s = &w->split[si];
            s->mask = taken;
            s->frame = frame;
            s->role = -1;
            goto_pc(w, ni, op->target, t);
            goto_pc(w, si, s->pc + 1, t);
        }
        return STEP_CONTINUE;
    }
    case OP_RETURN:
    case OP_EXIT:
        warp_lanes_exit(sm, w, si, m, t);
        return STEP_CONTINUE;
    case OP_ASSERT: {
        if (op->sub == ASSERT_EXPECT) {
            if (exec_expect(sm, w, m, op) == STEP_STOP) {
                return STEP_STOP;
            }
            *cost = ctrl;
            goto_pc(w, si, s->pc + 1, t);
            return STEP_CONTINUE;
        }
        SimLaneValue c;
        if (!eval(sm, w, m, op, op->e[0], &c)) {
            return STEP_STOP;
        }
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if ((m & (1u << l)) && sim_lane_value(&c, l) == 0) {
                return RULE(sm, w, 1u << l, op, "assertion failed");
            }
        }
        *cost = ctrl;
        goto_pc(w, si, s->pc + 1, t);
        return STEP_CONTINUE;
    }
    case OP_MAKE_PIPE_THREAD: {
        Pipe *p = &sm->blocks[w->block].pipes[sm->pipe_slot[s->pc]];
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (m & (1u << l)) {
                pipe_thread_made(p, w->tid0 + l, ROLEBIT_PRODUCER | ROLEBIT_CONSUMER);
            }
        }
        goto_pc(w, si, s->pc + 1, t);
        return STEP_CONTINUE;
    }
    case OP_MAKE_PIPE_BLOCK:
        *cost = 1;
        return exec_make_block(sm, w, si, op, t);
    case OP_PIPE_ACQUIRE:
    case OP_PIPE_COMMIT:
    case OP_PIPE_WAIT:
    case OP_PIPE_WAIT_FOR:
    case OP_PIPE_RELEASE:
    case OP_PIPE_QUIT:
    case OP_PIPE_WAIT_PRIOR:
    case OP_PIPE_COMMIT_BAR: {
        int32_t pc = s->pc;
        StepResult r = exec_pipe(sm, w, si, op, t, cost);
        if (r == STEP_CONTINUE && w->split[si].pc != pc) {
            goto_pc(w, si, w->split[si].pc, t);
        }
        return r;
    }
    case OP_MEMCPY:
    case OP_MEMCPY_TX:
        return exec_memcpy(sm, w, si, op, t, cost);
    case OP_BAR_INIT:
    case OP_BAR_ARRIVE:
    case OP_BAR_ARRIVE_TX:
    case OP_BAR_EXPECT_TX:
    case OP_BAR_WAIT:
    case OP_BAR_WAIT_PARITY:
    case OP_BAR_ARRIVE_WAIT:
    case OP_BAR_ARRIVE_DROP:
        return exec_barrier(sm, w, si, op, t, cost);
    case OP_SYNCTHREADS:
        return exec_syncthreads(sm, w, si, t, cost);
    case OP_SYNCWARP:
        return exec_syncwarp(sm, w, si, op, t, cost);
    case OP_CG_WAIT:
        return exec_cg_wait(sm, w, si, op, t, cost);
    case OP_COMPUTE:
        return exec_compute(sm, w, si, op, t, cost);
    case OP_LOAD:
        return exec_load(sm, w, si, op, t, cost);
    case OP_STORE:
        return exec_store(sm, w, si, op, t, cost);
    case OP_CL_RESERVE:
    case OP_CL_COMMIT:
    case OP_CL_RW_RESERVED:
    case OP_CL_RW:
    case OP_CL_IS_VALID:
        return exec_cl(sm, w, si, op, t, cost);
    case OP_WG_BARRIER:
        /* work_group_barrier is the block barrier (bar.sync 0). */
        return exec_syncthreads(sm, w, si, t, cost);
    case OP__COUNT:
        break;
    }
    g_assert_not_reached();
}

static SimWarpState idle_state(const Warp *w, SimCycle at)
{
    if (w->live == 0) {
        return WS_EXITED;
    }
    const Split *s = &w->split[w->focus];
    switch (s->status) {
    case SPLIT_RUNNABLE:
        return s->ready_at > at ? s->wait_state : WS_NOT_SELECTED;
    case SPLIT_BLOCKED:
        return s->wait_state;
    case SPLIT_PARKED:
        return WS_DIVERGENT;
    case SPLIT_FREE:
        break;
    }
    return WS_EXITED;
}

SimCycle warp_issue_time(Sm *sm, Warp *w, SimCycle now)
{
    const Split *s = &w->split[w->focus];
    const Op *op = op_at(sm, s->pc);
    if (op->code != OP_COMPUTE || s->status != SPLIT_RUNNABLE) {
        return now;
    }
    const SimCycle *pipe_free = sm->smsp[w->smsp].pipe_free;
    if (s->step == 0) {
        return MAX(now, pipe_free[sm->class_map[op->value]]);
    }
    return MAX(now, MAX(pipe_free[s->cls], w->chain[s->chain_next]));
}

#define MAX_CONTROL_RUN 512

int64_t warp_issue(Sm *sm, Warp *w, SimCycle now)
{
    int64_t used = 0;
    /* Issuing from now on; a batched chain records its own later states. */
    sm_account(w, WS_ISSUING, now);
    for (int guard = 0; guard < MAX_CONTROL_RUN && w->live != 0; guard++) {
        int32_t si = w->focus;
        Split *s = &w->split[si];
        if (s->status != SPLIT_RUNNABLE || s->ready_at > now + (SimCycle) used) {
            break;
        }
        if (sm->opt.max_ops != 0 && ++sm->ops_executed > sm->opt.max_ops) {
            fail_op(sm, w, s->mask, op_at(sm, s->pc)->loc, SIM_ERROR_LIMIT,
                    "the program executed more than --max-ops=%" G_GUINT64_FORMAT " operations",
                    sm->opt.max_ops);
            return used;
        }
        int64_t cost = 0;
        StepResult r = step(sm, w, si, now + (SimCycle) used, &cost);
        if (r == STEP_STOP) {
            return used;
        }
        used += cost;
        if (r == STEP_ISSUED || r == STEP_WAIT) {
            break;
        }
        warp_refocus(w);
    }
    if (w->live != 0 && used == 0 && w->split[w->focus].status == SPLIT_RUNNABLE &&
        w->split[w->focus].ready_at <= now) {
        /* A run of free operations hit the guard: charge one cycle so that
         * a loop of them still advances time. */
        used = 1;
        w->split[w->focus].ready_at = now + 1;
        w->split[w->focus].wait_state = WS_DEPENDENCY;
    }
    warp_refocus(w);
    w->busy_until = now + (SimCycle) used;
    sm_account(w, idle_state(w, w->busy_until), w->busy_until);
    sm_warp_schedule(sm, w);
    return used;
}
