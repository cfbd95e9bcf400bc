/* pipe_exec.h: cuda::pipeline's protocol as warps run it (pipe_exec.c), an
 * operation family of the interpreter (see warp.h); the pipeline objects
 * are pipeline.h's. */
#pragma once

#include "models/pipeline.h"
#include "models/sm_internal.h"
#include "models/warp.h"

/* The pipeline (of warp w's block) that pipeline operation op names
 * (inline: every pipeline operation and copy into a stage asks). */
static inline Pipe *pipe_of_op(Sm *sm, Warp *w, const Op *op)
{
    return &sm->blocks[w->block].pipes[sm->pipe_slot[op->obj]];
}
/* Records what a phase completion means for a pipeline's stage. */
void pipe_note_phase(Sm *sm, Block *b, int32_t mbar, uint64_t before, SimCycle now);
/* Threads of lanes m exit: the pipeline's destructor quits for those still
 * in a block pipeline. */
void pipe_lanes_exit(Sm *sm, Warp *w, LaneMask m, SimCycle now);
/* When every live thread of the block reached the open make_pipeline,
 * finish it and release the group (group.sync()). */
void pipe_collective_check(Sm *sm, Block *b, SimCycle now);
/* The operation families (see StepResult in warp.h). */
StepResult pipe_exec_make_block(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t);
StepResult pipe_exec(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost);
