/* compute.h: compute(CLASS, n, ...) statements as dependent chains of
 * arithmetic instructions (compute.c). */
#pragma once

#include "models/sm_internal.h"

StepResult compute_exec(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost);
