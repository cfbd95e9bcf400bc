/* async_copy.c: memcpy_async and cp.async commit groups (see async_copy.h).
 *
 * Hardware behaviour: cuda::memcpy_async becomes cp.async (LDGSTS) when the
 * copy is aligned and the architecture has it, a bulk copy (TMA,
 * cp.async.bulk) for a barrier-completed aligned copy on sm_90, and a
 * plain load/store loop otherwise, as libcudacxx chooses.  Copy timing
 * belongs to the copy units (copy_engine.c, bulk_copy.c, mem_path.c); this
 * file issues the instructions and keeps each thread's commit groups.
 *
 * Numbers: arch/NAME.ini [cp_async] call_cycles (a group call's library
 * code), warp_issue_cycles (one warp's cp.async rate) and
 * warp_shared_groups (sm_80's warp-wide commit groups), and
 * smem.wavefront_bytes (a synchronous copy's shared-memory side), measured
 * by scripts/calib/cpasync.cu (docs/validation.md). */
#include "models/async_copy.h"

#include "models/arch_features.h"
#include "models/bulk_copy.h"
#include "models/cl_exec.h"
#include "models/ldst.h"
#include "models/pipe_exec.h"
#include "models/race.h"
#include "models/simt.h"
#include "models/sync.h"


MBarStatus async_copies_arrive(Sm *sm, Warp *w, LaneMask m, int32_t mbar, SimCycle t, SrcLoc loc)
{
    SimCycle done = t;
    if (m == 0xffffffffu) {
        /* A converged warp: its latest copy (warp.h). */
        done = MAX(done, w->copies_max);
    } else if (m != 0) {
        done = MAX(done, w->copies_all);
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (m & (1u << l)) {
                done = MAX(done, w->lane_copies[l]);
            }
        }
    }
    MBarrier *mb = &sm->blocks[w->block].mbars[mbar];
    MBarStatus st = mbar_pending_add(mb, lane_count(m));
    if (st == MBAR_OK) {
        sm_schedule_action(sm, done, ACT_ARRIVE, w->block, mbar, lane_count(m), loc, w->id, m);
        if (sm->race) {
            race_copies_arrive_on(sm->race, w->block, w->tid0, m, mbar, (uint32_t) mb->phase);
        }
    }
    return st;
}

/* The cycle every group but the prior newest of lanes a has landed. */
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

void async_commit_group(Sm *sm, Warp *w, LaneMask m)
{
    SimCycle done = 0;
    if (m == 0xffffffffu) {
        /* Every lane's open copies close: the floor with them. */
        done = w->open_all;
        w->open_all = 0;
    } else if (w->open_all != 0) {
        /* Some lanes close theirs: the others keep the floor's. */
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            w->lane_open[l] = MAX(w->lane_open[l], w->open_all);
        }
        w->open_all = 0;
    }
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
        int n = m == w->live ? 1 : lane_count(m);
        CpGroup g = { w->exists, done };
        for (int i = 0; i < n; i++) {
            g_array_append_val(w->groups, g);
        }
        w->group_commits += (uint64_t) n;
        return;
    }
    CpGroup g = { m, done };
    g_array_append_val(w->groups, g);
    w->group_commits++;
}

/* The timeline's arrows from the copies of every group but the prior
 * newest the warp committed to the wait passing at cycle t. */
static void groups_flow(Sm *sm, Warp *w, int64_t prior, SimCycle t)
{
    if (sm->tl != NULL && w->group_commits > (uint64_t) prior) {
        sim_timeline_flow_end_through(sm->tl, FLOW_GROUP, w->id, 0, w->group_commits - (uint64_t) prior - 1,
                                      w->timeline_track, t);
    }
}

/* The race detector learns which groups of lanes m a wait completed. */
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
SimCycle async_wait_group_at(Warp *w, LaneMask m, int64_t prior, int64_t call, SimCycle t)
{
    return MAX(groups_ready(w, m, prior, t), t + (SimCycle) call);
}

void async_wait_group_done(Sm *sm, Warp *w, LaneMask m, int64_t prior, SimCycle t)
{
    race_groups_done(sm, w, m, prior);
    groups_flow(sm, w, prior, t);
}

/* ----------------------------------------------------------- memcpy_async */

typedef enum {
    PATH_CP_ASYNC,
    PATH_BULK,
    PATH_SYNC
} CopyPath;


/* The direction of a copy from memory s to memory d. */
static SimCopyDir copy_direction(MemSpace d, MemSpace s)
{
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
static CopyPath choose_path(const Sm *sm, const Op *op, SimCopyDir dir, char **why)
{
    int64_t align = op->value;
    static const char *const dir_why[SIM_DIR__COUNT] = {
        NULL,
        "it copies shared to shared memory (only global-to-shared copies are asynchronous)",
        "it copies shared to global memory (only global-to-shared copies are asynchronous)",
        "it copies global to global memory (only global-to-shared copies are asynchronous)",
    };
    if (dir != SIM_DIR_GLOBAL_TO_SHARED) {
        *why = g_strdup(dir_why[dir]);
        return PATH_SYNC;
    }
    if (op->code == OP_MEMCPY_TX) {
        return PATH_BULK;
    }
    if (arch_has_bulk_copy(&sm->arch) && op->aux == SYNC_BARRIER && align >= 16) {
        return PATH_BULK;
    }
    if (arch_has_cp_async(&sm->arch) && align >= 4) {
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

/* The race detector's check and record of one cp.async of the lanes km,
 * each writing [dst[l], dst[l] + chunk): synchronised through the stage
 * each thread commits next (a block-scope pipeline), the barrier's phase,
 * or the thread's commit group.  Every racing lane counts, the first
 * one's warning is reported (once per line). */
static void race_copy_lanes(Sm *sm, Warp *w, const Op *op, const Pipe *p, const Block *b, LaneMask km,
                            const int64_t *dst, int64_t chunk)
{
    RaceTag tag;
    const uint32_t *seq = NULL;
    uint32_t groups[SIM_WARP_SIZE];
    int32_t stages = 0;
    if (p != NULL && p->block_scope) {
        tag = (RaceTag) { RACE_TAG_STAGE, sm->pipe_slot[op->obj], 0, op->loc };
        seq = p->commits + w->tid0;
        stages = (int32_t) p->stages;
    } else if (op->aux == SYNC_BARRIER) {
        tag = (RaceTag) { RACE_TAG_BARRIER, (int32_t) op->obj, (uint32_t) b->mbars[op->obj].phase, op->loc };
    } else {
        tag = (RaceTag) { RACE_TAG_GROUP, 0, 0, op->loc };
        for (LaneMask c = km; c != 0; c &= c - 1) {
            int l = __builtin_ctz(c);
            groups[l] = race_current_group(sm->race, w->block, w->tid0 + l);
        }
        seq = groups;
    }
    uint64_t races = 0;
    g_autofree char *warn = race_async_write_lanes(sm->race, w->block, w->tid0, km, dst, chunk, tag, seq, stages,
                                                   &races);
    sm->stats.race_warnings += races;
    if (warn) {
        g_autofree char *key = g_strdup_printf("race-war-%u", op->loc.line);
        sm_warn(sm, key, "%s", warn);
    }
}

StepResult async_exec_memcpy(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    Block *b = &sm->blocks[w->block];
    LaneMask m = s->mask;
    SimLaneValue dv, sv, zv;
    if (s->step != 0 && w->copy_memo.valid && w->copy_memo.split == si && w->copy_memo.pc == s->pc &&
        w->copy_memo.writes == w->vals_writes) {
        /* A later step of the copy whose first step found its operands
         * uniform, with the warp's variables unchanged since: the same
         * values, without evaluating them again. */
        dv.uniform = sv.uniform = zv.uniform = true;
        dv.s = w->copy_memo.dst;
        sv.s = w->copy_memo.src;
        zv.s = w->copy_memo.size;
    } else {
        if (!warp_eval(sm, w, m, op, op->e[0], &dv) || !warp_eval(sm, w, m, op, op->e[1], &sv) ||
            !warp_eval(sm, w, m, op, op->e[2], &zv)) {
            return STEP_STOP;
        }
        /* Kept only for this split's copy at this operation. */
        w->copy_memo.valid = dv.uniform && sv.uniform && zv.uniform;
        w->copy_memo.split = si;
        w->copy_memo.pc = s->pc;
        w->copy_memo.writes = w->vals_writes;
        w->copy_memo.dst = dv.s;
        w->copy_memo.src = sv.s;
        w->copy_memo.size = zv.s;
    }
    GroupKind g = op->code == OP_MEMCPY_TX ? GROUP_THREAD : (GroupKind) op->sub;
    int64_t gsize = g == GROUP_BLOCK ? sm->prog->block_threads : program_group_lanes(g);
    int64_t align = op->value;
    g_autofree char *why = NULL;
    MemSpace dspace = g_array_index(sm->prog->buffers, ProgBuffer, op->e[0]->type.buffer).space;
    MemSpace sspace = g_array_index(sm->prog->buffers, ProgBuffer, op->e[1]->type.buffer).space;
    SimCopyDir dir = copy_direction(dspace, sspace);
    CopyPath path = choose_path(sm, op, dir, &why);
    int64_t cs = MIN(align, (int64_t) 16);
    Pipe *p = op->aux == SYNC_PIPE ? pipe_of_op(sm, w, op) : NULL;

    /* Destination, source and size the same for every lane (a group's
     * copy, the usual case): a check of them answers for every lane as it
     * does for the first, so only the first lane's values are checked, and
     * so are its pipeline's when the warp's threads agree there. */
    bool uniform = dv.uniform && sv.uniform && zv.uniform;
    if (s->step == 0) {
        /* Validate once, for every lane. */
        bool values_checked = false;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (!(m & (1u << l))) {
                continue;
            }
            if (!uniform || !values_checked) {
                values_checked = true;
                int64_t size = sim_lane_value(&zv, l);
                int64_t d = sim_lane_value(&dv, l), sr = sim_lane_value(&sv, l);
                /* The group's first lane here: of the warp's lanes for the
                 * block, of the tile's for a tile. */
                int first = lane_lowest(g == GROUP_BLOCK ? m : m & lane_tiles(1u << l, gsize));
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
            }
            if (p == NULL && uniform) {
                break;
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
            if (uniform && pipe_warp_agrees(p, w->tid0)) {
                /* The other lanes would pass the same checks. */
                break;
            }
        }
        /* Bounds, for all lanes at once (sizes may differ per lane only in
         * the per-thread form; check with each lane's own size then).  With
         * one destination, source and size the lowest lane answers for all:
         * it is the one a failure names. */
        if (uniform) {
            int l0 = lane_lowest(m);
            if (m != 0 && zv.s > 0 &&
                (!ldst_check_bounds_lane(sm, w, op, l0, op->e[0], dv.s, zv.s, "memcpy_async destination") ||
                 !ldst_check_bounds_lane(sm, w, op, l0, op->e[1], sv.s, zv.s, "memcpy_async source"))) {
                return STEP_STOP;
            }
        } else {
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
                if (one && (!ldst_check_bounds(sm, w, op, one, op->e[0], da, size, "memcpy_async destination") ||
                            !ldst_check_bounds(sm, w, op, one, op->e[1], sa, size, "memcpy_async source"))) {
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
            if (uniform) {
                break;
            }
        }
        if (path == PATH_SYNC) {
            g_autofree char *key = g_strdup_printf("sync-%u", op->loc.line);
            sm_warn(sm, key, "line %u: memcpy_async falls back to a synchronous copy because %s", op->loc.line, why);
        }
        if (path == PATH_BULK && !arch_has_bulk_copy(&sm->arch)) {
            return RULE(sm, w, m, op, "memcpy_async_tx needs sm_90 (bulk copies); this architecture is sm_%"
                        G_GINT64_FORMAT, sm->arch.sm_version);
        }
        /* Calls by direction: a group's call counts once, at its rank 0
         * (in the block's group, thread 0). */
        if (g == GROUP_BLOCK) {
            sm->stats.dir_calls[dir] += (uint64_t) (w->tid0 == 0 && (m & 1u));
        } else {
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if ((m & (1u << l)) && copy_rank(w, g, l) == 0) {
                    sm->stats.dir_calls[dir]++;
                }
            }
        }
        s->step = 1;
        s->remaining = 0;
        s->count = 0;
        if (path == PATH_CP_ASYNC && g != GROUP_THREAD && sm->arch.cp_async_call > 0) {
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
        int64_t issued = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (!(m & (1u << l))) {
                continue;
            }
            if (copy_rank(w, g, l) != 0) {
                continue;
            }
            issued++;
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
            cargs.barrier = warp_barrier_name(sm, mbar);
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
                memcpy(ldst_data_at(sm, w, dspace, sim_lane_value(&dv, l)), ldst_data_at(sm, w, sspace, sim_lane_value(&sv, l)),
                       (size_t) bytes);
            }
            if (op->code == OP_MEMCPY) {
                uint64_t before = mb->phase;
                MBarStatus st = mbar_expect_tx(mb, bytes, t, sync_barrier_wake, sm);
                if (st != MBAR_OK) {
                    return RULE(sm, w, 1u << l, op, "expect_tx: %s", mbar_status_message(st));
                }
                pipe_note_phase(sm, b, mbar, before, t);
            }
            sm_schedule_action(sm, done, ACT_COMPLETE_TX, w->block, mbar, bytes, op->loc, w->id, 1u << l);
        }
        /* The elected thread's warp runs the copy code (elect loop, bulk
         * copy, expect_tx) once for each copy its lanes issue, while the
         * group's other threads branch past it. */
        s->step = 0;
        s->pc++;
        *cost = 1;
        s->ready_at = t + 1 + (SimCycle) (issued * sm->arch.bulk_issue_cycles);
        s->wait_state = WS_DEPENDENCY;
        sm->stats.instructions++;
        return STEP_ISSUED;
    }

    /* Chunks: thread of rank r copies offsets r*cs + k*group*cs < size. */
    int64_t chunk = path == PATH_SYNC ? MIN(align, (int64_t) 16) : cs;
    int64_t rank[SIM_WARP_SIZE];
    int64_t iters = 0;
    /* A converged warp's cp.async block copy, whose lanes copy a run (see
     * below): its ranks are w->tid0 + l, rank[] is not read. */
    bool run = path == PATH_CP_ASYNC && uniform && g == GROUP_BLOCK && m == 0xffffffffu && chunk > 0;
    if (zv.uniform) {
        /* One size: the lane of the lowest rank copies the most chunks. */
        int64_t low = INT64_MAX;
        if (g == GROUP_BLOCK) {
            /* Ranks ascend with the lane. */
            for (int l = 0; l < SIM_WARP_SIZE && !run; l++) {
                rank[l] = w->tid0 + l;
            }
            low = m != 0 ? w->tid0 + lane_lowest(m) : INT64_MAX;
        } else {
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                rank[l] = copy_rank(w, g, l);
                if (m & (1u << l)) {
                    low = MIN(low, rank[l]);
                }
            }
        }
        if (low != INT64_MAX && low * chunk < zv.s) {
            iters = (zv.s - low * chunk + gsize * chunk - 1) / (gsize * chunk);
        }
    } else {
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
                        memcpy(ldst_data_at(sm, w, dspace, dst[l]), ldst_data_at(sm, w, sspace, src[l]), (size_t) chunk);
                    }
                    if (sm->race && dspace == SPACE_SHARED) {
                        race_plain_write(sm->race, w->block, w->tid0 + l, dst[l], chunk);
                    }
                }
            }
            if (store_step) {
                ldst_global_write(sm, t + (SimCycle) k, dst, km, chunk);
                sm->stats.sync_bytes += (uint64_t) (lane_count(km) * chunk);
                sm->stats.dir_sync_bytes[dir] += (uint64_t) (lane_count(km) * chunk);
                sm->stats.dir_bytes[dir] += (uint64_t) (lane_count(km) * chunk);
                continue;
            }
            SimCycle arrive;
            if (sspace == SPACE_SHARED) {
                int64_t replays;
                arrive = ldst_ptr_load(sm, w, op, km, op->e[1], src, chunk, t + (SimCycle) k, &replays);
                sm_note_smem_replays(sm, t + (SimCycle) k, replays);
            } else {
                arrive = ldst_global_read(sm, t + (SimCycle) k, src, km, chunk);
            }
            if (dspace == SPACE_GLOBAL) {
                done = MAX(done, arrive);
                continue;
            }
            int64_t replays;
            SimCycle stored = smem_access(&sm->smem, arrive, dst, km, chunk, &replays);
            done = MAX(done, stored);
            sm_note_smem_replays(sm, arrive, replays);
            sm->stats.sync_bytes += (uint64_t) (lane_count(km) * chunk);
            sm->stats.dir_sync_bytes[dir] += (uint64_t) (lane_count(km) * chunk);
            sm->stats.dir_bytes[dir] += (uint64_t) (lane_count(km) * chunk);
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
        CopyLines lines;
        /* A converged warp's block copy: the ranks ascend with the lane
         * (rank w->tid0 + l), so the lanes that copy are those below the
         * first offset past the size (a prefix), and their ranges follow
         * one another from the lowest rank's: what the loop below gives,
         * found from the first lane's addresses alone (the engine gathers
         * the lines of a run, and counts its fill's wavefronts, in closed
         * form).  The lanes' addresses are written out only for the race
         * detector and the functional copy, which read them. */
        int64_t src0 = 0, dst0 = 0;
        if (run) {
            int64_t base = w->tid0 * chunk + k * gsize * chunk;
            int64_t n = 0;
            if (zv.s - base >= SIM_WARP_SIZE * chunk) {
                /* Every lane's chunk is below the size (no division). */
                n = SIM_WARP_SIZE;
            } else if (base < zv.s) {
                n = MIN((int64_t) SIM_WARP_SIZE, (zv.s - base + chunk - 1) / chunk);
            }
            km = n == SIM_WARP_SIZE ? 0xffffffffu : (1u << n) - 1;
            src0 = sv.s + base;
            dst0 = dv.s + base;
            for (int l = 0; l < SIM_WARP_SIZE && (sm->race || sm->opt.functional); l++) {
                bool in = l < n;
                src[l] = in ? src0 + l * chunk : 0;
                dst[l] = in ? dst0 + l * chunk : 0;
            }
            copy_engine_gather_run(&sm->cpa, src0, km, chunk, &lines);
        } else {
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
            copy_engine_gather(&sm->cpa, src, km, chunk, &lines);
        }
        SimCycle admit = copy_engine_admit(&sm->cpa, t, lines.n, chunk);
        if (admit > t) {
            s->ready_at = admit;
            s->wait_state = WS_COPY_THROTTLE;
            return STEP_WAIT;
        }
        CopyResult r = run ? copy_engine_issue_run(&sm->cpa, &sm->mem, &sm->smem, t, &lines, dst0, km, chunk)
                           : copy_engine_issue_lines(&sm->cpa, &sm->mem, &sm->smem, t, &lines, dst, km, chunk);
        {
            SimSliceArgs cargs = SIM_SLICE_ARGS_INIT;
            int64_t tid = w->tid0 + lane_lowest(km);
            cargs.line = op->loc.line;
            cargs.bytes = r.bytes;
            if (p != NULL && p->block_scope) {
                cargs.stage = p->head[tid];
            } else if (op->aux == SYNC_BARRIER) {
                cargs.barrier = warp_barrier_name(sm, op->obj);
            }
            int track = sm_note_copy(sm, r.issue, r.done, "cp.async", &cargs);
            if (track > 0 && p != NULL && p->block_scope) {
                /* It fills the stage instance this thread commits next. */
                sim_timeline_flow_start(sm->tl, FLOW_STAGE, w->block, sm->pipe_slot[op->obj], p->commits[tid], track,
                                        r.done);
            } else if (track > 0 && (p != NULL || op->aux == SYNC_NONE)) {
                /* It joins the cp.async group the warp commits next. */
                sim_timeline_flow_start(sm->tl, FLOW_GROUP, w->id, 0, w->group_commits, track, r.done);
            } else if (track > 0 && op->aux == SYNC_BARRIER) {
                sim_timeline_flow_start(sm->tl, FLOW_BARRIER, w->block, op->obj, b->mbars[op->obj].phase, track,
                                        r.done);
            }
        }
        sm->stats.dir_bytes[dir] += (uint64_t) (lane_count(km) * chunk);
        /* (Read once: the stores below could alias the options.) */
        bool every_lane = km == 0xffffffffu && !sm->opt.functional;
        if (km != 0) {
            w->copies_max = MAX(w->copies_max, r.done);
        }
        if (every_lane) {
            /* Every lane copies: the warp's floors (warp.h). */
            w->open_all = MAX(w->open_all, r.done);
            w->copies_all = MAX(w->copies_all, r.done);
        }
        for (int l = 0; l < SIM_WARP_SIZE && !every_lane; l++) {
            if (!(km & (1u << l))) {
                continue;
            }
            w->lane_open[l] = MAX(w->lane_open[l], r.done);
            w->lane_copies[l] = MAX(w->lane_copies[l], r.done);
            if (sm->opt.functional) {
                memcpy(ldst_data_at(sm, w, dspace, dst[l]), ldst_data_at(sm, w, sspace, src[l]), (size_t) chunk);
            }
        }
        if (sm->race) {
            race_copy_lanes(sm, w, op, p, b, km, dst, chunk);
        }
        sm->stats.instructions++;
        s->remaining = k + 1;
        *cost = 1;
        if (g != GROUP_THREAD && sm->arch.cp_async_group_loop > 0) {
            /* A group call's chunks are passes of the library's loop over
             * the thread's offsets (its trip count is known only at run
             * time): the warp runs the pass's address arithmetic, the
             * cp.async and the back branch (scripts/calib/flashq.cu). */
            s->ready_at = t + (SimCycle) sm->arch.cp_async_group_loop;
            s->wait_state = WS_DEPENDENCY;
        } else {
            /* A warp issues its next cp.async warp_issue_cycles later. */
            s->ready_at = t + MAX((SimCycle) 1, (SimCycle) sm->arch.cp_async_warp_issue);
            s->wait_state = WS_COPY_THROTTLE;
        }
        if (s->remaining < iters) {
            return STEP_ISSUED;
        }
    }
    /* All chunks issued: completion mechanism. */
    if (op->aux == SYNC_BARRIER) {
        /* cp.async.mbarrier.arrive (no .noinc) for each calling thread. */
        MBarStatus st = async_copies_arrive(sm, w, m, (int32_t) op->obj, t, op->loc);
        if (st != MBAR_OK) {
            return RULE(sm, w, m, op, "memcpy_async on a barrier: %s", mbar_status_message(st));
        }
    } else if (op->aux == SYNC_NONE) {
        /* cooperative_groups::memcpy_async commits a group per call. */
        async_commit_group(sm, w, m);
    }
    s->step = 0;
    s->remaining = 0;
    s->pc++;
    if (*cost == 0) {
        return STEP_CONTINUE;
    }
    return STEP_ISSUED;
}

