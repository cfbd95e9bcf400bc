/* compute.h: compute(CLASS, n, ...) statements as dependent chains of
 * arithmetic instructions (compute.c). */
#pragma once

#include "models/sm_internal.h"

StepResult compute_exec(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost);

/* compute_exec for the usual step of a chain under way (split si of w,
 * the focus, at its statement op, s->step != 0): the next instruction
 * issues at t and neither ends the chain nor finds the warp alone (whose
 * chain compute_exec issues whole), inline; any other step goes to
 * compute_exec.  The same instruction, pipe, chain and statistics. */
static inline StepResult compute_exec_chain(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    int32_t c = s->chain_next;
    int32_t cls = sm->class_map[op->value];
    SimCycle *pipe_free = &sm->smsp[w->smsp].pipe_free[cls];
    SimCycle input = w->chain[c];
    SimCycle link = sm->arch.chain_overlap ? 0 : input;
    if (G_UNLIKELY(MAX(link, *pipe_free) > t || s->remaining <= 1 || sm_warp_alone(sm, w))) {
        return compute_exec(sm, w, si, op, t, cost);
    }
    const InstClass *ic = &sm->arch.classes[cls];
    w->chain[c] = MAX(input, t) + (SimCycle) ic->latency;
    SimCycle pf = t + (SimCycle) ic->interval;
    *pipe_free = pf;
    int32_t next_c = c + 1 == s->aux ? 0 : c + 1;
    s->chain_next = next_c;
    s->remaining--;
    sm->stats.instructions++;
    sm->stats.compute_instructions++;
    sm_note_compute(sm, w->smsp, t);
    *cost = 1;
    SimCycle next_input = w->chain[next_c];
    SimCycle next_link = sm->arch.chain_overlap ? 0 : next_input;
    s->ready_at = MAX(t + 1, MAX(next_link, pf));
    s->wait_state = next_input >= pf ? WS_DEPENDENCY : WS_MATH_THROTTLE;
    return STEP_ISSUED;
}
