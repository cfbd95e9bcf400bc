/* warp.c: warps executing a compiled program, SIMT: the issue loop.
 *
 * Hardware behaviour: a warp runs its 32 lanes in lock step.  Lanes that
 * take different paths of a branch split into paths (Split, simt.c) that
 * issue in turn (independent thread scheduling, Volta and later).  This
 * file runs a warp's focus path: it steps operations until one issues an
 * instruction or waits, dispatching each operation family to its unit
 * (warp.h lists them), and runs control flow (assign, branch, loop, exit).
 *
 * Numbers, from arch/NAME.ini: sched.control_issue (instructions of a
 * control statement) and sched.control_latency (how long the dependent
 * chain they form holds the warp: control_issue x inst.iadd.latency,
 * scripts/calib/alu.cu), sched.int_cpi (the cycles each integer instruction
 * takes a sub-partition, scripts/calib/alu.cu), the library's instruction
 * counts (sched.pipe_call_issue, memcpy_call_issue, thread_wait_issue, read
 * from SASS listings), sched.div_cycles and div_latency (an emulated
 * integer division, scripts/calib/divmod.cu) and sched.chain_overlap
 * (scripts/calib/contend.cu). */
#include "models/warp.h"

#include "models/async_copy.h"
#include "models/cl_exec.h"
#include "models/compute.h"
#include "models/ldst.h"
#include "models/pipe_exec.h"
#include "models/simt.h"
#include "models/sm_internal.h"
#include "models/sync.h"

#include <math.h>
#include <stdarg.h>

/* ---------------------------------------------------------------- errors */

StepResult warp_fail(Sm *sm, Warp *w, LaneMask lanes, SrcLoc loc, int code, const char *fmt, ...)
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

bool warp_eval(Sm *sm, Warp *w, LaneMask m, const Op *op, const ExprNode *n, SimLaneValue *out)
{
    if (n->kind == EN_CONST && m != 0) {
        /* A constant (a copy's size, an element count): sim_eval's uniform
         * result, read without an environment. */
        out->uniform = true;
        out->s = n->value;
        return true;
    }
    SimEvalEnv env = { w->vals, w->tid0, w->index, w->block };
    if (!n->varying && m != 0 && sim_eval_uniform(n, &env, &out->s)) {
        /* sim_eval's uniform result, without its error bookkeeping. */
        out->uniform = true;
        return true;
    }
    const ExprNode *bad = NULL;
    int bad_lane = 0;
    SimArithStatus st = sim_eval(n, &env, m, out, &bad, &bad_lane);
    if (st != SIM_ARITH_OK) {
        warp_fail(sm, w, 1u << bad_lane, bad ? bad->loc : op->loc, SIM_ERROR_PROGRAM, "%s", sim_arith_message(st));
        return false;
    }
    return true;
}

bool warp_eval_same(Sm *sm, Warp *w, LaneMask m, const Op *op, const ExprNode *n, const char *what, int64_t *out)
{
    SimLaneValue v;
    if (!warp_eval(sm, w, m, op, n, &v)) {
        return false;
    }
    int first = lane_lowest(m);
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

void warp_store_var(Warp *w, const ProgVar *v, LaneMask m, const SimLaneValue *val)
{
    w->vals_writes++;
    if (!v->varying) {
        w->vals[v->slot] = sim_lane_value(val, lane_lowest(m));
        return;
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (m & (1u << l)) {
            w->vals[v->slot + l] = sim_lane_value(val, l);
        }
    }
}

void warp_store_lanes(Warp *w, const ProgVar *v, LaneMask m, int64_t value)
{
    SimLaneValue val;
    val.uniform = true;
    val.s = value;
    warp_store_var(w, v, m, &val);
}


void warp_lanes_exit(Sm *sm, Warp *w, int32_t si, LaneMask m, SimCycle now)
{
    Block *b = &sm->blocks[w->block];
    int n = lane_count(m & w->live);
    m &= w->live;
    w->live &= ~m;
    b->live_threads -= n;
    Split *s = &w->split[si];
    s->mask &= ~m;
    if (s->mask == 0) {
        s->status = SPLIT_FREE;
    }
    pipe_lanes_exit(sm, w, m, now);
    cl_lanes_exit(sm, w, m);
    uint64_t gen = b->bar.generation;
    block_barrier_exit(&b->bar, n, now, sync_barrier_wake, sm);
    if (b->bar.generation != gen) {
        /* The exiting threads were the last the __syncthreads waited for. */
        sync_block_barrier_done(sm, w->block, gen, now);
    }
    simt_recheck_merges(w, now);
    sync_lanes_exit(sm, w, now);
    pipe_collective_check(sm, b, now);
    if (w->live == 0) {
        w->exit_cycle = now;
        sm->end_cycle = MAX(sm->end_cycle, now);
        sm->live_warps--;
        sm->smsp_live[w->smsp]--;
        for (int32_t i = 0; i < MAX_SPLITS; i++) {
            w->split[i].status = SPLIT_FREE;
        }
    }
    simt_refocus(w);
}
/* ------------------------------------------------------------ dispatch */

static StepResult step_op(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost);

/* With sched.chain_overlap, a warp's exit waits for its compute chains in
 * flight: a warp ends when its last instruction has completed, not issued.
 * Its copy, barrier and synchronisation statements and its thread-scope
 * pipeline calls do not wait for them: the GPU issues a k-tile's loop,
 * pipeline calls and __syncthreads while its MMAs drain
 * (scripts/calib/cutparts.trace on the H200: 4 cycles for them beside 16
 * MMAs, docs/validation.md).  With sched.block_calls_drain the calls of a
 * block-scope pipeline (mbarrier arrivals and waits) do wait: the GPU runs
 * flash_attention's MMAs in series with them (scripts/calib/flashparts.trace:
 * 16 HMMA add 108 cycles to a tile of the protocol alone). */
static bool chains_drain(Sm *sm, Warp *w, Split *s, SimCycle t)
{
    /* The operations whose chains drain, under sched.chain_overlap:
     * SM_OP_DRAINS (sm.c's op_flags_new sets it on the exits and, with
     * sched.block_calls_drain, on pipeline calls, of which a thread-scope
     * pipeline's do not). */
    if (!(sm->op_flags[s->pc] & SM_OP_DRAINS) || s->step != 0) {
        return false;
    }
    const Op *op = sm_op(sm, s->pc);
    if (op->code != OP_RETURN && op->code != OP_EXIT) {
        if (!pipe_of_op(sm, w, op)->block_scope) {
            return false;
        }
        /* The MMAs' slots are past: nothing after the call takes them. */
        w->mma_free = 0;
    }
    if (w->chains_done <= t) {
        return false;
    }
    s->ready_at = w->chains_done;
    s->wait_state = WS_DEPENDENCY;
    return true;
}

/* Cycles a sub-partition spends issuing n instructions of w's integer and
 * control code: the ALU and FMA pipes each take a warp-instruction every
 * 2 cycles, and a mix of both issues at sched.int_cpi (alu.cu), or at
 * int_cpi_alone for a warp alone on its sub-partition. */
static int64_t int_issue(const Sm *sm, const Warp *w, int64_t n)
{
    if (n == 0) {
        return 0;
    }
    if (n > 0 && n < SM_INT_CYCLES) {
        /* The usual count: the same rounding, done once (sm.c). */
        return sm->int_cycles[sm_warp_alone(sm, w)][n];
    }
    double cpi = sm_warp_alone(sm, w) ? sm->arch.int_cpi_alone : sm->arch.int_cpi;
    return (int64_t) llround((double) n * cpi);
}

/* Instructions of the library code a call compiles to beyond the one the
 * operation itself counts: libcudacxx's block-scope pipeline calls (parity
 * and head bookkeeping, the clock read of the wait loop), a thread-scope
 * consumer_wait's switch over the number of groups it may leave pending,
 * and memcpy_async's dispatch over a group.  The other thread-scope calls
 * are about one instruction each; a thread's own memcpy_async was not
 * counted. */
static int64_t library_issue(Sm *sm, Warp *w, const Op *op)
{
    switch ((OpCode) op->code) {
    case OP_PIPE_ACQUIRE: case OP_PIPE_COMMIT: case OP_PIPE_WAIT: case OP_PIPE_RELEASE:
        if (pipe_of_op(sm, w, op)->block_scope) {
            return sm->arch.pipe_call_issue - 1;
        }
        return op->code == OP_PIPE_WAIT ? sm->arch.thread_wait_issue : 0;
    case OP_MEMCPY:
        /* Counted for the group form (memcpy_async(group, ...)). */
        return (GroupKind) op->sub != GROUP_THREAD ? sm->arch.memcpy_call_issue : 0;
    default:
        return 0;
    }
}

/* sched.mma_shadow: an operation's issue cycles less what the slots left
 * by the warp's last hmma chains cover, for a control statement or a
 * library call (nvcc places their instructions between the MMAs: the GPU
 * takes a k-tile's loop and pipeline calls beside its 16 MMAs in 4
 * cycles, scripts/calib/cutparts.trace; integer work there costs 0-0.75
 * of a cycle an instruction, mmashadow.cu).  Another operation that
 * issues (a load or store, a copy, a barrier) ends the run: what follows
 * it follows the MMAs' slots. */
static int64_t take_mma_free(Warp *w, uint8_t flags, int64_t cost)
{
    if (flags & SM_OP_SHADOWED) {
        int64_t c = MIN(cost, w->mma_free);
        w->mma_free -= c;
        return cost - c;
    }
    if (!(flags & SM_OP_COMPUTE) && cost > 0) {
        w->mma_free = 0;
    }
    return cost;
}

/* A runnable split whose next operation needs a result its last one starts
 * (a division's, a control chain's) waits, as a dependency, until `until`. */
static void hold_for_result(Split *s, SimCycle until)
{
    if (s->status == SPLIT_RUNNABLE && s->ready_at < until) {
        s->ready_at = until;
        s->wait_state = WS_DEPENDENCY;
    }
}

/* Runs one step of the split's operation; an operation that starts pays
 * the issue slots of the divisions it runs (sm->op_divs: its expressions',
 * or at a loop's entry the loop's invariant ones) and of the library code
 * behind it. */
static StepResult step(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    int32_t pc = s->pc;
    bool starting = s->step == 0;
    *cost = 0;
    const Op *op = sm_op(sm, pc);
    if (!starting && op->code == OP_COMPUTE) {
        /* A chain under way (the commonest step): what step_op would
         * dispatch, without its checks for an operation that starts. */
        return compute_exec(sm, w, si, op, t, cost);
    }
    if (chains_drain(sm, w, s, t)) {
        return STEP_WAIT;
    }
    StepResult r = step_op(sm, w, si, t, cost);
    /* Without SM_OP_START_COST the operation runs no division and no
     * library code: the sum below adds 0 and holds nothing. */
    if (starting && (sm->op_flags[pc] & SM_OP_START_COST) && (r == STEP_CONTINUE || r == STEP_ISSUED) &&
        (w->split[si].pc != pc || w->split[si].step != 0 || w->split[si].status != SPLIT_RUNNABLE)) {
        int64_t divs = sm->op_divs[pc];
        *cost += divs * sm->arch.div_cycles + int_issue(sm, w, library_issue(sm, w, op));
        /* A division is a dependent multiply-high sequence: what follows
         * waits for its result, while the scheduler issues other warps. */
        if (divs > 0) {
            hold_for_result(&w->split[si], t + (SimCycle) *cost +
                                               (SimCycle) (divs * MAX(0, sm->arch.div_latency - sm->arch.div_cycles)));
        }
    }
    return r;
}

/* The issue cycles of the control statement at pc (sched.control_issue
 * at w's scheduler's rate); control an unrolled loop folded into
 * immediates issues nothing.  Asked only by the control operations. */
static inline int64_t control_cost(const Sm *sm, const Warp *w, int32_t pc)
{
    return sm->op_unrolled[pc] ? 0 : sm->control_cycles[sm_warp_alone(sm, w)];
}

/* step_op's operations with a body of their own, out of line, so that
 * step_op itself is a dispatch whose other cases are tail calls, without a
 * frame (docs/performance.md, item 35).  Each runs one step of the
 * operation split si of w is at, at cycle t, as step_op does. */

/* An assignment. */
G_GNUC_NO_INLINE static StepResult exec_assign(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    const Op *op = sm_op(sm, s->pc);
    LaneMask m = s->mask;
    int64_t ctrl = control_cost(sm, w, s->pc);
    const ProgVar *var = sm_var(sm, op->var);
    int64_t u;
    if (!var->varying && warp_eval_uniform(w, m, op->e[0], &u)) {
        /* A uniform value into a uniform variable (the usual counter
         * or index): warp_store_var's store, without a lane vector. */
        w->vals[var->slot] = u;
        w->vals_writes++;
    } else {
        SimLaneValue v;
        if (!warp_eval(sm, w, m, op, op->e[0], &v)) {
            return STEP_STOP;
        }
        warp_store_var(w, var, m, &v);
    }
    *cost = ctrl;
    sm->stats.control_instructions += (uint64_t) (ctrl > 0);
    simt_goto(w, si, s->pc + 1, t);
    return STEP_CONTINUE;
}

/* A branch or a loop's test. */
G_GNUC_NO_INLINE static StepResult exec_test(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    const Op *op = sm_op(sm, s->pc);
    LaneMask m = s->mask;
    int64_t ctrl = control_cost(sm, w, s->pc);
    SimLaneValue c;
    if (warp_eval_uniform(w, m, op->e[0], &c.s)) {
        c.uniform = true;
    } else if (!warp_eval(sm, w, m, op, op->e[0], &c)) {
        return STEP_STOP;
    }
    /* A uniform condition (the usual loop test) decides every lane. */
    LaneMask taken = c.uniform ? (c.s != 0 ? m : 0) : 0;
    for (int l = 0; l < SIM_WARP_SIZE && !c.uniform; l++) {
        if ((m & (1u << l)) && c.v[l] != 0) {
            taken |= 1u << l;
        }
    }
    LaneMask other = m & ~taken;
    *cost = ctrl;
    sm->stats.control_instructions += (uint64_t) (ctrl > 0);
    if (other == 0) {
        simt_goto(w, si, s->pc + 1, t);
    } else if (taken == 0) {
        simt_goto(w, si, op->target, t);
    } else {
        int32_t ni = simt_split_new(w);
        if (ni < 0) {
            return RULE(sm, w, m, op, "more than %d divergent paths in one warp", MAX_SPLITS);
        }
        int32_t frame = s->frame;
        if (op->code == OP_BRANCH) {
            frame = simt_frame_new(w, op->join, m, s->frame);
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
        simt_goto(w, ni, op->target, t);
        simt_goto(w, si, s->pc + 1, t);
    }
    return STEP_CONTINUE;
}

/* A loop's entry. */
G_GNUC_NO_INLINE static StepResult exec_loop_enter(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    const Op *op = sm_op(sm, s->pc);
    LaneMask m = s->mask;
    /* nvcc's prologue of a loop it unrolls with a computed trip count. */
    *cost = sm->op_rt_unrolled[s->pc] ? int_issue(sm, w, sm->arch.unroll_entry_issue) : 0;
    s->frame = simt_frame_new(w, op->join, m, s->frame);
    simt_goto(w, si, s->pc + 1, t);
    return STEP_CONTINUE;
}

/* An assertion or an expectation. */
G_GNUC_NO_INLINE static StepResult exec_assert(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    const Op *op = sm_op(sm, s->pc);
    LaneMask m = s->mask;
    int64_t ctrl = control_cost(sm, w, s->pc);
    if (op->sub == ASSERT_EXPECT) {
        if (ldst_exec_expect(sm, w, m, op) == STEP_STOP) {
            return STEP_STOP;
        }
        *cost = ctrl;
        simt_goto(w, si, s->pc + 1, t);
        return STEP_CONTINUE;
    }
    SimLaneValue c;
    if (!warp_eval(sm, w, m, op, op->e[0], &c)) {
        return STEP_STOP;
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if ((m & (1u << l)) && sim_lane_value(&c, l) == 0) {
            return RULE(sm, w, 1u << l, op, "assertion failed");
        }
    }
    *cost = ctrl;
    simt_goto(w, si, s->pc + 1, t);
    return STEP_CONTINUE;
}

/* A thread-scope make_pipeline. */
G_GNUC_NO_INLINE static StepResult exec_make_pipe_thread(Sm *sm, Warp *w, int32_t si, SimCycle t)
{
    Split *s = &w->split[si];
    LaneMask m = s->mask;
    Pipe *p = &sm->blocks[w->block].pipes[sm->pipe_slot[s->pc]];
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (m & (1u << l)) {
            pipe_thread_made(p, w->tid0 + l, ROLEBIT_PRODUCER | ROLEBIT_CONSUMER);
        }
    }
    simt_goto(w, si, s->pc + 1, t);
    return STEP_CONTINUE;
}

static StepResult step_op(Sm *sm, Warp *w, int32_t si, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    const Op *op = sm_op(sm, s->pc);
    LaneMask m = s->mask;
    *cost = 0;
    if ((sm->op_flags[s->pc] & SM_OP_JOIN) && s->step == 0 && s->frame >= 0 && w->frames[s->frame].join == s->pc) {
        /* Arrived at its reconvergence point: wait for the other side
         * (only a branch's or a loop's join can be one: SM_OP_JOIN). */
        simt_goto(w, si, s->pc, t);
        return STEP_CONTINUE;
    }
    switch ((OpCode) op->code) {
    case OP_NOP:
        simt_goto(w, si, s->pc + 1, t);
        return STEP_CONTINUE;
    case OP_ASSIGN:
        return exec_assign(sm, w, si, t, cost);
    case OP_JUMP:
        *cost = control_cost(sm, w, s->pc);
        simt_goto(w, si, op->target, t);
        return STEP_CONTINUE;
    case OP_LOOP_ENTER:
        return exec_loop_enter(sm, w, si, t, cost);
    case OP_BRANCH:
    case OP_LOOP:
        return exec_test(sm, w, si, t, cost);
    case OP_RETURN:
    case OP_EXIT:
        warp_lanes_exit(sm, w, si, m, t);
        return STEP_CONTINUE;
    case OP_ASSERT:
        return exec_assert(sm, w, si, t, cost);
    case OP_MAKE_PIPE_THREAD:
        return exec_make_pipe_thread(sm, w, si, t);
    case OP_MAKE_PIPE_BLOCK:
        *cost = 1;
        return pipe_exec_make_block(sm, w, si, op, t);
    case OP_PIPE_ACQUIRE:
    case OP_PIPE_COMMIT:
    case OP_PIPE_WAIT:
    case OP_PIPE_WAIT_FOR:
    case OP_PIPE_RELEASE:
    case OP_PIPE_QUIT:
    case OP_PIPE_WAIT_PRIOR:
    case OP_PIPE_COMMIT_BAR: {
        int32_t pc = s->pc;
        StepResult r = pipe_exec(sm, w, si, op, t, cost);
        if (r == STEP_CONTINUE && w->split[si].pc != pc) {
            simt_goto(w, si, w->split[si].pc, t);
        }
        return r;
    }
    case OP_MEMCPY:
    case OP_MEMCPY_TX:
        return async_exec_memcpy(sm, w, si, op, t, cost);
    case OP_BAR_INIT:
    case OP_BAR_ARRIVE:
    case OP_BAR_ARRIVE_TX:
    case OP_BAR_EXPECT_TX:
    case OP_BAR_WAIT:
    case OP_BAR_WAIT_PARITY:
    case OP_BAR_ARRIVE_WAIT:
    case OP_BAR_ARRIVE_DROP:
        return sync_exec_mbarrier(sm, w, si, op, t, cost);
    case OP_SYNCTHREADS:
        return sync_exec_syncthreads(sm, w, si, t, cost);
    case OP_SYNCWARP:
        return sync_exec_syncwarp(sm, w, si, op, t, cost);
    case OP_CG_WAIT:
        return sync_exec_cg_wait(sm, w, si, op, t, cost);
    case OP_COMPUTE:
        return compute_exec(sm, w, si, op, t, cost);
    case OP_LOAD:
        return ldst_exec_load(sm, w, si, op, t, cost);
    case OP_STORE:
        return ldst_exec_store(sm, w, si, op, t, cost);
    case OP_CL_RESERVE:
    case OP_CL_COMMIT:
    case OP_CL_RW_RESERVED:
    case OP_CL_RW:
    case OP_CL_IS_VALID:
        return cl_exec(sm, w, si, op, t, cost);
    case OP_WG_BARRIER:
        /* work_group_barrier is the block barrier (bar.sync 0). */
        return sync_exec_syncthreads(sm, w, si, t, cost);
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
    /* Tests in the order of their frequency (a warp that issued is
     * usually runnable): the switch they replace took a jump table. */
    if (s->status == SPLIT_RUNNABLE) {
        return s->ready_at > at ? s->wait_state : WS_NOT_SELECTED;
    }
    if (s->status == SPLIT_BLOCKED) {
        return s->wait_state;
    }
    return s->status == SPLIT_PARKED ? WS_DIVERGENT : WS_EXITED;
}

const char *warp_barrier_name(const Sm *sm, int32_t mbar)
{
    if (mbar < 0 || mbar >= (int32_t) sm->prog->barriers->len) {
        return NULL;
    }
    return g_array_index(sm->prog->barriers, ProgBarrier, mbar).name;
}

int warp_barrier_track(Sm *sm, int32_t block)
{
    char name[48];
    g_snprintf(name, sizeof name, "barriers (block %d)", (int) block);
    return sim_timeline_track(sm->tl, TRACK_BARRIER, name, 90000 + block);
}

void warp_op_place(Sm *sm, const Warp *w, int32_t pc, int32_t *stage, const char **barrier)
{
    const Op *op = sm_op(sm, pc);
    const Split *s = &w->split[w->focus];
    int64_t tid = w->tid0 + lane_lowest(s->mask);
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
            *barrier = warp_barrier_name(sm, op->obj);
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
        *barrier = warp_barrier_name(sm, op->obj);
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

SimCycle warp_issue_time(Sm *sm, Warp *w, SimCycle now)
{
    const Split *s = &w->split[w->focus];
    const Op *op = sm_op(sm, s->pc);
    if (op->code != OP_COMPUTE || s->status != SPLIT_RUNNABLE) {
        return s->status == SPLIT_RUNNABLE ? ldst_issue_floor(sm, w, op, now) : now;
    }
    const SimCycle *pipe_free = sm->smsp[w->smsp].pipe_free;
    if (s->step == 0) {
        return MAX(now, pipe_free[sm->class_map[op->value]]);
    }
    return MAX(now, MAX(pipe_free[s->cls], w->chain[s->chain_next]));
}

/* The end of warp_issue's every issue: `used` cycles issued from now on.
 * `chain`: a chain's step, which kept the warp's role (warp_acct_role). */
static inline int64_t issue_end(Sm *sm, Warp *w, SimCycle now, int64_t used, bool chain)
{
    if (w->live != 0 && used == 0 && w->split[w->focus].status == SPLIT_RUNNABLE &&
        w->split[w->focus].ready_at <= now) {
        /* A run of free operations hit the guard: charge one cycle so that
         * a loop of them still advances time. */
        used = 1;
        w->split[w->focus].ready_at = now + 1;
        w->split[w->focus].wait_state = WS_DEPENDENCY;
    }
    simt_refocus(w);
    if (sm->opt.check_invariants) {
        simt_require(w, now);
    }
    w->busy_until = now + (SimCycle) used;
    if (chain) {
        sm_account_as(w, idle_state(w, w->busy_until), w->busy_until, warp_acct_role(w));
    } else {
        sm_account(w, idle_state(w, w->busy_until), w->busy_until);
    }
    return used;
}

int64_t warp_issue(Sm *sm, Warp *w, SimCycle now)
{
    Split *f = &w->split[w->focus];
    if (f->step != 0 && f->status == SPLIT_RUNNABLE && f->ready_at <= now && w->live != 0 &&
        (sm->op_flags[f->pc] & SM_OP_COMPUTE)) {
        /* A chain under way, the commonest issue: the loop below's one
         * pass (step's first case; a chain's step issues or waits, which
         * ends the run), without the loop. */
        if (G_UNLIKELY(++sm->ops_executed > sm->ops_limit)) {
            warp_fail(sm, w, f->mask, sm_op(sm, f->pc)->loc, SIM_ERROR_LIMIT,
                      "the program executed more than --max-ops=%" G_GUINT64_FORMAT " operations",
                      sm->opt.max_ops);
            return -1;
        }
        if (G_UNLIKELY(sm->opt.check_invariants) && !sm->account_place && warp_acct_role(w) != sm_warp_role(w)) {
            g_error("warp %d issues at cycle %" G_GUINT64_FORMAT " with its role not accounted", w->id, now);
        }
        int64_t cost = 0;
        if (compute_exec_chain(sm, w, w->focus, sm_op(sm, f->pc), now, &cost) == STEP_STOP) {
            return -1;
        }
        /* A chain's step changes neither the warp's path nor its lanes:
         * its role is the one the caller's accounting (catch_up) charged
         * the issue to, warp_acct_role(w) (without account_place, which asks
         * itself). */
        return issue_end(sm, w, now, cost, true);
    }
    int64_t used = 0;
    /* Issuing from now on (the caller's sm_account); a batched chain
     * records its own later states. */
    for (int guard = 0; guard < WARP_MAX_CONTROL_RUN && w->live != 0; guard++) {
        int32_t si = w->focus;
        Split *s = &w->split[si];
        if (s->status != SPLIT_RUNNABLE || s->ready_at > now + (SimCycle) used) {
            break;
        }
        SimCycle floor = ldst_issue_floor(sm, w, sm_op(sm, s->pc), now + (SimCycle) used);
        if (floor > now + (SimCycle) used) {
            /* A shared-memory load or store after free operations, its
             * warp's path still busy (smem.h): the warp waits for it. */
            s->ready_at = floor;
            s->wait_state = WS_MIO_THROTTLE;
            break;
        }
        if (guard > 0) {
            /* A run through several lines charges each its own cycles
             * (--by line, the timeline). */
            sm_account(w, WS_ISSUING, now + (SimCycle) used);
        }
        if (G_UNLIKELY(++sm->ops_executed > sm->ops_limit)) {
            warp_fail(sm, w, s->mask, sm_op(sm, s->pc)->loc, SIM_ERROR_LIMIT,
                      "the program executed more than --max-ops=%" G_GUINT64_FORMAT " operations",
                      sm->opt.max_ops);
            return -1;
        }
        int64_t cost = 0;
        uint8_t flags = sm->op_flags[s->pc];
        /* Whether the operation is charged sched.control_issue (step_op). */
        bool control = (flags & SM_OP_CONTROL) != 0;
        StepResult r = step(sm, w, si, now + (SimCycle) used, &cost);
        if (r == STEP_STOP) {
            return -1;
        }
        if (G_UNLIKELY(w->mma_free > 0)) {
            cost = take_mma_free(w, flags, cost);
        }
        used += cost;
        if (r == STEP_ISSUED || r == STEP_WAIT) {
            break;
        }
        if (cost > 0 && cost < sm->arch.control_latency && control &&
            w->split[si].status == SPLIT_RUNNABLE) {
            /* A control statement's instructions form a dependent chain:
             * the next operation waits for its result, while the scheduler
             * may issue other warps.  A statement whose issue takes longer
             * (divisions) has covered the chain by then.  (A statement that
             * ends at a reconvergence point hands its lanes to the merged
             * path, which goes on at once.) */
            hold_for_result(&w->split[si], now + (SimCycle) used + (SimCycle) (sm->arch.control_latency - cost));
            simt_refocus(w);
            break;
        }
        simt_refocus(w);
    }
    return issue_end(sm, w, now, used, false);
}

