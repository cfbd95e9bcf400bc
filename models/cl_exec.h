/* cl_exec.h: the OpenCL pipe built-ins as warps run them (cl_exec.c), an
 * operation family of the interpreter (see warp.h); the pipe objects are
 * cl_pipe.h's. */
#pragma once

#include "models/cl_pipe.h"
#include "models/warp.h"

/* The OpenCL pipe built-ins (see StepResult in warp.h). */
StepResult cl_exec(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost);
/* Work-items leaving while their work-group gathers in a work-group function. */
void cl_lanes_exit(Sm *sm, Warp *w, LaneMask m);
/* End of run: warnings about OpenCL reservations never committed. */
void cl_pipes_finish(Sm *sm);
