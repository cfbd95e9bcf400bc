/* compute.h: compute(CLASS, n, ...) statements as dependent chains of
 * arithmetic instructions (compute.c). */
#pragma once

#include "models/sm_internal.h"

StepResult compute_exec(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost);

/* When chain c's next instruction may issue (its dependency; the pipe is
 * the caller's).  In order, once its operand (the chain's previous
 * instruction or its input) is ready.  With
 * sched.chain_overlap the warp does not wait: ptxas unrolls and interleaves
 * the independent chains of a straight-line region, so one warp issues them
 * back to back (scripts/calib/contend.cu ilp.ffma.C*.W1: 4.9 cycles a link
 * for one chain, 2.5, 1.5 and 1.25 for 2, 4 and 8 chains), and each chain
 * still completes a latency per link after its input (chain[c]); a statement
 * that reads a chain's result waits for it, and the warp's exit for them all
 * (warp.c's chains_drain). */
static inline SimCycle compute_link_dep(const Sm *sm, const Warp *w, int64_t c)
{
    return sm->arch.chain_overlap ? 0 : w->chain[c];
}

/* compute_issue_link without the statistics and the compute mark: its
 * chain's result, the pipe, the chain index and the count left.  A closed
 * batch (sm_batch.c) counts and marks its steps together at its end. */
static inline void compute_issue_link_bare(Warp *w, Split *s, const InstClass *ic, SimCycle *pipe_free,
                                           SimCycle at)
{
    int32_t c = s->chain_next;
    w->chain[c] = MAX(w->chain[c], at) + (SimCycle) ic->latency;
    *pipe_free = at + (SimCycle) ic->interval;
    s->chain_next = c + 1 == s->aux ? 0 : c + 1;
    s->remaining--;
}

/* Issues split s's next chain instruction (of class ic, on the pipe whose
 * next free cycle is *pipe_free) at cycle at: its chain's result, the
 * pipe, the chain index, the count left, the statistics and the compute
 * mark. */
static inline void compute_issue_link(Sm *sm, Warp *w, Split *s, const InstClass *ic, SimCycle *pipe_free,
                                      SimCycle at)
{
    compute_issue_link_bare(w, s, ic, pipe_free, at);
    sm->stats.instructions++;
    sm->stats.compute_instructions++;
    sm_note_compute(sm, w->smsp, at);
}

/* After an issue at t that left instructions in s's chain: when the next
 * can issue and what the warp waits for until then. */
static inline void compute_next_ready(const Sm *sm, const Warp *w, Split *s, SimCycle pipe_free, SimCycle t)
{
    int32_t c = s->chain_next;
    s->ready_at = MAX(t + 1, MAX(compute_link_dep(sm, w, c), pipe_free));
    s->wait_state = w->chain[c] >= pipe_free ? WS_DEPENDENCY : WS_MATH_THROTTLE;
}

/* compute_exec for the usual step of a chain under way (split si of w,
 * the focus, at its statement op, s->step != 0): the next instruction
 * issues at t and neither ends the chain nor finds the warp alone (whose
 * chain compute_exec issues whole), inline; any other step goes to
 * compute_exec.  The same instruction, pipe, chain and statistics. */
static inline StepResult compute_exec_chain(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    int32_t cls = sm->class_map[op->value];
    SimCycle *pipe_free = &sm->smsp[w->smsp].pipe_free[cls];
    if (G_UNLIKELY(MAX(compute_link_dep(sm, w, s->chain_next), *pipe_free) > t || s->remaining <= 1 ||
                   sm_warp_alone(sm, w))) {
        return compute_exec(sm, w, si, op, t, cost);
    }
    compute_issue_link(sm, w, s, &sm->arch.classes[cls], pipe_free, t);
    *cost = 1;
    compute_next_ready(sm, w, s, *pipe_free, t);
    return STEP_ISSUED;
}
