/* cl_exec.c: the OpenCL pipe built-ins as warps run them (see cl_exec.h),
 * on the pipe objects of cl_pipe.c.  Numbers: l1.sector_bytes (a header
 * atomic), the memory path's and the block barrier's costs; no
 * OpenCL-specific measurement exists (docs/opencl-pipes.md). */
#include "models/cl_exec.h"

#include "models/ldst.h"
#include "models/race.h"
#include "models/simt.h"
#include "models/sm_internal.h"
#include "models/sync.h"

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

/* The rules a reservation of n packets by work-item tid (-1: the
 * work-group) keeps before it reaches the header. */
static bool cl_check_reserve(Sm *sm, Warp *w, LaneMask lanes, const Op *op, int64_t n, int64_t tid)
{
    return cl_check_count(sm, w, lanes, op, n) && cl_check_active(sm, w, lanes, op, tid);
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

/* The one way a reservation is made: n packets of op's pipe for work-item
 * tid of work-group `block` (-1: the work-group) at cycle t, plain for
 * read_pipe/write_pipe(p, ptr).  A reservation takes the run's next id
 * (ids number reservations in the order they reach the header).  Returns
 * the id, or 0, the invalid id, when the pipe lacks room (or data). */
static int64_t cl_reserve(Sm *sm, const Op *op, int32_t block, int64_t tid, int64_t n, bool plain, SimCycle t)
{
    if (!cl_pipe_reserve(cl_pipe_of(sm, op), (op->sub & CL_WRITE) != 0, n, block, tid, plain, sm->cl_next_rid,
                         op->loc, t, NULL)) {
        return 0;
    }
    return sm->cl_next_rid++;
}

/* Per-work-item reservations of lanes m of warp w, in lane order (the
 * warp's lanes share one header atomic and are served in order): lane l
 * reserves n[l] packets.  ids (may be NULL) receives each lane's id or 0.
 * Returns the lanes that got a reservation. */
static LaneMask cl_reserve_lanes(Sm *sm, Warp *w, const Op *op, LaneMask m, const SimLaneValue *n, bool plain,
                                 SimCycle t, SimLaneValue *ids)
{
    LaneMask ok = 0;
    if (ids != NULL) {
        memset(ids, 0, sizeof *ids);
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (!(m & (1u << l))) {
            continue;
        }
        int64_t id = cl_reserve(sm, op, w->block, w->tid0 + l, sim_lane_value(n, l), plain, t);
        if (id != 0) {
            ok |= 1u << l;
        }
        if (ids != NULL) {
            ids->v[l] = id;
        }
    }
    return ok;
}

/* Functional model: copies a packet between ptr's element and a slot. */
static void cl_copy(Sm *sm, Warp *w, const ExprNode *ptr, int64_t ptr_addr, int64_t slot_addr, int64_t size,
                    bool to_slot)
{
    if (!sm->opt.functional) {
        return;
    }
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    uint8_t *a = ldst_data_at(sm, w, buf->space, ptr_addr);
    uint8_t *s = ldst_data_at(sm, w, SPACE_GLOBAL, slot_addr);
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
    warp_store_var(w, sm_var(sm, op->var), m, &v);
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
        if (!cl_check_reserve(sm, w, m, op, n, -1)) {
            return STEP_STOP;
        }
        result = cl_reserve(sm, op, w->block, -1, n, false, t);
    } else {
        if (cl_lane_rid(sm, w, op, m, -1, b->cl_arg) == NULL) {
            return STEP_STOP;
        }
        cl_pipe_commit(p, b->cl_arg, t);
    }
    cl_note_occupancy(sm, op, t);
    SimCycle sync = block_barrier_cost(&sm->arch, sm->prog->warps);
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
                    warp_store_lanes(ow, sm_var(sm, op->var), os->mask, result);
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
        const Op *other = sm_op(sm, b->cl_pc);
        return RULE(sm, w, m, op, "work-group function %s reached while other work-items of work-group %d wait in %s"
                    " at line %u: every work-item must reach the same call (SPEC clpipe-wg-1)", name, w->block,
                    cl_call_name(other), other->loc.line);
    }
    SimLaneValue v;
    if (!warp_eval(sm, w, m, op, op->e[0], &v)) {
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
    b->cl_arrived += lane_count(m);
    simt_block(w, s, WAIT_CL_GROUP, WS_BLOCK_BARRIER, pc, 0, false, t + 1);
    s->step = 1;
    *cost = 1;
    sm->stats.instructions++;
    if (b->cl_arrived < b->threads) {
        return STEP_ISSUED;
    }
    return cl_group_complete(sm, w, m, op, t);
}

void cl_lanes_exit(Sm *sm, Warp *w, LaneMask m)
{
    Block *b = &sm->blocks[w->block];
    if (b->cl_pc < 0 || m == 0) {
        return;
    }
    const Op *op = sm_op(sm, b->cl_pc);
    /* SPEC clpipe-wg-1 */
    warp_fail(sm, w, m, op->loc, SIM_ERROR_PROGRAM, "these work-items exit while the rest of work-group %d waits in"
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
    if (!warp_eval(sm, w, m, op, op->e[0], &nv)) {
        return STEP_STOP;
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if ((m & (1u << l)) && !cl_check_reserve(sm, w, 1u << l, op, sim_lane_value(&nv, l), w->tid0 + l)) {
            return STEP_STOP;
        }
    }
    if (!cl_use(sm, w, s, op, write)) {
        return STEP_STOP;
    }
    SimLaneValue out;
    cl_reserve_lanes(sm, w, op, m, &nv, false, t, &out);
    cl_note_occupancy(sm, op, t);
    if (op->var >= 0) {
        warp_store_var(w, sm_var(sm, op->var), m, &out);
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
    if (!warp_eval(sm, w, m, op, op->e[0], &rv)) {
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
    if (!warp_eval(sm, w, m, op, op->e[0], &rv) || !warp_eval(sm, w, m, op, op->e[1], &iv) ||
        !warp_eval(sm, w, m, op, op->e[2], &av)) {
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
    if (!ldst_check_bounds(sm, w, op, m, op->e[2], ptr_addr, size, write ? "write_pipe's source" : "read_pipe's target")) {
        return STEP_STOP;
    }
    int64_t replays = 0;
    if (s->step == 0) {
        SimCycle ready;
        if (write) {
            ready = ldst_ptr_load(sm, w, op, m, op->e[2], ptr_addr, size, t, &replays);
        } else {
            ready = ldst_global_read(sm, t, slot_addr, m, size);
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
        ldst_global_write(sm, t, slot_addr, m, size);
    } else {
        ldst_ptr_store(sm, w, m, op->e[2], ptr_addr, size, t, &replays);
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
    if (!warp_eval(sm, w, m, op, op->e[0], &av)) {
        return STEP_STOP;
    }
    int64_t ptr_addr[SIM_WARP_SIZE];
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        ptr_addr[l] = sim_lane_value(&av, l);
    }
    if (!ldst_check_bounds(sm, w, op, m, op->e[0], ptr_addr, size, write ? "write_pipe's source" : "read_pipe's target")) {
        return STEP_STOP;
    }
    int64_t replays = 0;
    if (s->step == 0) {
        if (!cl_use(sm, w, s, op, write)) {
            return STEP_STOP;
        }
        SimCycle ready = write ? ldst_ptr_load(sm, w, op, m, op->e[0], ptr_addr, size, t, &replays) : t;
        SimLaneValue one = { .uniform = true, .s = 1 };
        s->aux = cl_reserve_lanes(sm, w, op, m, &one, true, t, NULL);
        cl_note_occupancy(sm, op, t);
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
        SimCycle ready = ldst_global_read(sm, t, slot_addr, ok, size);
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
            ldst_global_write(sm, t, slot_addr, ok, size);
        } else {
            ldst_ptr_store(sm, w, ok, op->e[0], ptr_addr, size, t, &replays);
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

StepResult cl_exec(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
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

void cl_pipes_finish(Sm *sm)
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

