/* compute.c: compute statements as chains of dependent instructions
 * (see compute.h).
 *
 * Hardware behaviour: compute(CLASS, n) issues n instructions of an
 * arithmetic class, each depending on the previous one of its chain; a
 * sub-partition's pipe of that class accepts one every `interval` cycles
 * and a result is ready `latency` cycles after issue.  With
 * sched.chain_overlap the compiler interleaves independent chains.
 *
 * Numbers: arch/NAME.ini [inst.CLASS] latency and interval, measured by
 * scripts/calib/inst.cu. */
#include "models/compute.h"

#include "models/ldst.h"
#include "models/simt.h"

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
    int64_t words = MAX((int64_t) 1, sm_var(sm, op->var)->type.elem.size / 4);
    int64_t iters = count / words;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        uint32_t *src = (m & (1u << l)) ? ldst_data_var(sm, w, op->obj, l) : NULL;
        uint32_t *dst = ldst_data_var(sm, w, op->var, l);
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
                        int64_t in_words = MAX((int64_t) 1, sm_var(sm, op->in[i])->type.elem.size / 4);
                        x += ldst_data_var(sm, w, op->in[i], l)[k % in_words];
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
    if (!warp_eval(sm, w, m, op, op->e[0], &n) || !warp_eval(sm, w, m, op, op->e[1], &ilp)) {
        return false;
    }
    *count = 0;
    *chains = 1;
    if (n.uniform && ilp.uniform && m != 0) {
        /* One count and one chain number for every lane (the usual case):
         * what the loop below finds, without a pass over the lanes. */
        if (n.s < 0) {
            RULE(sm, w, 1u << lane_lowest(m), op, "compute: negative instruction count %" G_GINT64_FORMAT, n.s);
            return false;
        }
        *count = n.s;
        *chains = MIN(MAX((int64_t) 1, ilp.s), (int64_t) MAX_CHAINS);
        return true;
    }
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
    SimCycle ready = op->obj >= 0 ? (SimCycle) w->vals[sm_var(sm, op->obj)->slot] : 0;
    for (int i = 0; i < 2; i++) {
        if (op->in[i] >= 0) {
            ready = MAX(ready, (SimCycle) w->vals[sm_var(sm, op->in[i])->slot]);
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
        const Op *op = sm_op(sm, s->pc + j);
        int64_t chains = s->aux2 == 0 ? s->aux : op->e[1]->value;
        SimCycle done = 0;
        for (int64_t k = first; k < first + chains; k++) {
            done = MAX(done, w->chain[k]);
        }
        first += chains;
        w->chains_done = MAX(w->chains_done, done);
        if (op->var >= 0) {
            w->vals[sm_var(sm, op->var)->slot] = (int64_t) done;
            w->vals_writes++;
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
        const Op *next = sm_op(sm, s->pc + j);
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

/* A batched chain's accounting (compute_exec): the warp's state and the
 * cycles each state gathered since the chain started, charged at the end
 * (charge_end); or, with `direct`, sm_account_as at each change. */
typedef struct {
    bool direct;
    SimWarpState state;           /* the warp's state, since `since` */
    SimCycle since;
    uint64_t spent[WS__COUNT];    /* cycles to charge to each state */
} ChainCharge;

static void charge_start(ChainCharge *c, const Warp *w, bool summed, SimRole role)
{
    /* The sums are charged to one role: the warp's, which its issue set. */
    c->direct = !summed || role != warp_acct_role(w);
    c->state = warp_acct_state(w);
    c->since = w->since;
    memset(c->spent, 0, sizeof c->spent);
}

/* sm_account_as(w, st, at, role); summed, role is the warp's
 * (warp_acct_role). */
static inline void charge_state(ChainCharge *c, Warp *w, SimWarpState st, SimCycle at, SimRole role)
{
    if (c->direct) {
        sm_account_as(w, st, at, role);
        return;
    }
    if (st == c->state) {
        return;
    }
    if (at > c->since) {
        c->spent[c->state] += at - c->since;
        c->since = at;
    }
    c->state = st;
}

static void charge_end(ChainCharge *c, Warp *w, SimRole role)
{
    if (c->direct) {
        return;
    }
    for (int k = 0; k < WS__COUNT; k++) {
        if (c->spent[k] != 0) {
            w->state_cycles[warp_acct_key(role, (SimWarpState) k)] += c->spent[k];
        }
    }
    w->acct = warp_acct_key(role, c->state);
    w->since = c->since;
}

/* compute_exec's loop over the rest of a chain batched for a warp alone,
 * for sched.chain_overlap (no instruction waits for its chain's previous
 * one: compute_link_dep is 0) with the stretches summed in `charge`: the same
 * instructions at the same cycles, the same states charged at the same
 * cycles and the same compute marks noted in the same order, with the
 * pipe's next free cycle, the chain index, the charge and the instruction
 * counts in locals (through the pointers, each store to a chain or a mark
 * made the compiler load them all again).  Returns the last instruction's
 * cycle (t when none is left). */
static SimCycle overlap_chain_rest(Sm *sm, Warp *w, Split *s, const InstClass *ic, SimCycle *pipe_free,
                                   ChainCharge *charge, SimCycle t)
{
    SimCycle last = t;
    SimCycle pf = *pipe_free;
    const SimCycle latency = (SimCycle) ic->latency;
    const SimCycle interval = (SimCycle) ic->interval;
    const int32_t chains = (int32_t) s->aux;
    int32_t c = s->chain_next;
    const int64_t n = s->remaining;
    const int32_t smsp = w->smsp;
    SimWarpState state = charge->state;
    SimCycle since = charge->since;
    /* When every one of the n marks would take sm_note_compute's fast path
     * (room in the queue, the pending count staying at most
     * SM_MARKS_PENDING_MAX, no invariant checks), they are written straight
     * into the queue. */
    CycleQueue *q = &sm->compute_marks[smsp];
    SimCycle *marks = NULL;
    if (!sm->opt.check_invariants && (int64_t) q->len + n <= (int64_t) q->cap &&
        (int64_t) sm->marks_pending + n <= SM_MARKS_PENDING_MAX) {
        marks = &q->v[q->len];
        q->len += (guint) n;
        sm->marks_pending += (guint) n;
    }
    /* The first instruction: compute_exec's loop body as it is. */
    if (n > 0) {
        SimCycle at = MAX(last + 1, pf);
        SimCycle input = w->chain[c];
        /* charge_state(gap state, last + 1), then charge_state(WS_ISSUING, at). */
        if (at > last + 1) {
            SimWarpState gap = input >= pf ? WS_DEPENDENCY : WS_MATH_THROTTLE;
            if (gap != state) {
                if (last + 1 > since) {
                    charge->spent[state] += last + 1 - since;
                    since = last + 1;
                }
                state = gap;
            }
        }
        if (state != WS_ISSUING) {
            if (at > since) {
                charge->spent[state] += at - since;
                since = at;
            }
            state = WS_ISSUING;
        }
        w->chain[c] = MAX(input, at) + latency;
        pf = at + interval;
        c = c + 1 == chains ? 0 : c + 1;
        if (marks != NULL) {
            marks[0] = at;
        } else {
            sm_note_compute(sm, smsp, at);
        }
        last = at;
    }
    /* The others, in closed form.  After an instruction at `last` the pipe
     * is free at last + interval, so the next one issues at last + p, p
     * being max(1, interval), and the warp is issuing (state WS_ISSUING
     * since `last`).  With p > 1 the body above then charges one issuing
     * cycle (from last to last + 1) and p - 1 cycles of the gap's state
     * (from last + 1 to the next issue), the gap being a dependency when
     * the chain's input is ready no earlier than the pipe (input >= pf,
     * and pf is that next issue's cycle); with p = 1 there is no gap and
     * nothing changes state.  So the charges are counted per gap state
     * and added once, and the warp ends issuing since its last
     * instruction. */
    const SimCycle p = ic->interval > 1 ? (SimCycle) ic->interval : 1;
    uint64_t dep_gaps = 0;
    for (int64_t i = 1; i < n; i++) {
        SimCycle at = last + p;
        SimCycle input = w->chain[c];
        if (input >= at) {
            dep_gaps++;
        }
        w->chain[c] = MAX(input, at) + latency;
        c = c + 1 == chains ? 0 : c + 1;
        if (marks != NULL) {
            marks[i] = at;
        } else {
            sm_note_compute(sm, smsp, at);
        }
        last = at;
    }
    if (n > 1) {
        pf = last + interval;
        if (p > 1) {
            charge->spent[WS_ISSUING] += (uint64_t) (n - 1);
            charge->spent[WS_DEPENDENCY] += dep_gaps * (p - 1);
            /* Every other gap is a throttle (one counter fewer in the
             * loop). */
            charge->spent[WS_MATH_THROTTLE] += ((uint64_t) (n - 1) - dep_gaps) * (p - 1);
            since = last;
        }
    }
    charge->state = state;
    charge->since = since;
    *pipe_free = pf;
    s->chain_next = c;
    s->remaining = 0;
    sm->stats.instructions += (uint64_t) n;
    sm->stats.compute_instructions += (uint64_t) n;
    return last;
}

StepResult compute_exec(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
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
        if (cls == sm->shadow_cls) {
            /* Each link leaves interval - 1 slots (scripts/calib/mmashadow.cu). */
            w->mma_free += s->count * (ic->interval - 1);
        }
        if (s->count == 0) {
            compute_done(sm, w, s, m);
            return STEP_CONTINUE;
        }
    }
    int32_t c = s->chain_next;
    SimCycle earliest = MAX(compute_link_dep(sm, w, c), *pipe_free);
    if (earliest > t) {
        s->ready_at = earliest;
        s->wait_state = w->chain[c] >= *pipe_free ? (w->chain[c] > t + 100 ? WS_MEMORY : WS_DEPENDENCY)
                                                  : WS_MATH_THROTTLE;
        return STEP_WAIT;
    }
    compute_issue_link(sm, w, s, ic, pipe_free, t);
    *cost = 1;
    if (s->remaining == 0) {
        compute_done(sm, w, s, m);
        s->ready_at = t + 1;
        s->wait_state = WS_DEPENDENCY;
        return STEP_ISSUED;
    }
    compute_next_ready(sm, w, s, *pipe_free, t);
    if (sm_warp_alone(sm, w)) {
        /* Alone on its scheduler, nothing can take these issue slots: issue
         * the rest of the chain now, at the cycles it would issue anyway. */
        SimCycle last = t;
        /* The chain's lanes and path stay the same: one role for all, and
         * without account_place (no line or timeline to follow) the
         * stretches are summed per state here and charged once, after the
         * loop, as sm_account_as would have charged them one by one. */
        SimRole role = sm_warp_role(w);
        ChainCharge charge;
        charge_start(&charge, w, !sm->account_place, role);
        if (sm->arch.chain_overlap && !charge.direct) {
            last = overlap_chain_rest(sm, w, s, ic, pipe_free, &charge, t);
        }
        while (s->remaining > 0) {
            c = s->chain_next;
            SimCycle at = MAX(last + 1, MAX(compute_link_dep(sm, w, c), *pipe_free));
            if (at > last + 1) {
                charge_state(&charge, w, w->chain[c] >= *pipe_free ? WS_DEPENDENCY : WS_MATH_THROTTLE, last + 1, role);
            }
            charge_state(&charge, w, WS_ISSUING, at, role);
            compute_issue_link(sm, w, s, ic, pipe_free, at);
            last = at;
        }
        charge_end(&charge, w, role);
        compute_done(sm, w, s, m);
        *cost = (int64_t) (last + 1 - t);
        s->ready_at = last + 1;
        s->wait_state = WS_DEPENDENCY;
    }
    return STEP_ISSUED;
}

