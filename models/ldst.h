/* ldst.h: a warp's loads and stores (ldst.c): bounds checks, the memory
 * path and shared-memory banks, and the functional memory model (the
 * bytes of each buffer, for expect statements and CUDA reference data). */
#pragma once

#include "models/sm_internal.h"

/* The cycle, `after` or later, from which op, warp w's next operation,
 * may issue as far as the warp's shared-memory path goes (smem.h): a
 * shared-memory load or store waits for it, anything else does not.
 * warp_issue_time, warp_issue's runs and sm.c's ready cache ask.  (The
 * cheap test first: the path is mostly free by then.) */
static inline SimCycle ldst_issue_floor(const Sm *sm, const Warp *w, const Op *op, SimCycle after)
{
    if (w->smem_next <= after || (op->code != OP_LOAD && op->code != OP_STORE)) {
        return after;
    }
    const ProgBuffer *b = &g_array_index(sm->prog->buffers, ProgBuffer, op->e[0]->type.buffer);
    if (b->space != SPACE_SHARED) {
        return after;
    }
    /* A load or a stored variable issues its address arithmetic first,
     * while the path is still busy (the cycles it took at the warp's last
     * access: the floor stays fixed between the warp's own issues, as the
     * ready cache needs); a stored value or a fill has none. */
    bool arith = op->code == OP_LOAD || op->sub == STORE_DATA;
    SimCycle floor = arith && w->smem_next > (SimCycle) w->smem_addr ? w->smem_next - (SimCycle) w->smem_addr
                                                                     : w->smem_next;
    return MAX(after, floor);
}

/* Checks lanes' accesses [addr, addr+size) stay inside the buffer their
 * pointer points into. */
bool ldst_check_bounds(Sm *sm, Warp *w, const Op *op, LaneMask m, const ExprNode *ptr, const int64_t *addr,
                       int64_t size, const char *what);

/* ldst_check_bounds for lane `lane` alone, at addr. */
bool ldst_check_bounds_lane(Sm *sm, Warp *w, const Op *op, int lane, const ExprNode *ptr, int64_t addr, int64_t size,
                            const char *what);
/* Functional model: the bytes at addr of a memory space, or NULL when the
 * model is off. */
uint8_t *ldst_data_at(Sm *sm, Warp *w, MemSpace space, int64_t addr);
/* Functional model: the 32-bit words a data variable holds in a lane. */
uint32_t *ldst_data_var(Sm *sm, Warp *w, int32_t var, int lane);
/* Reads `size` bytes at lanes' global addresses through the memory path;
 * returns when the last arrives. */
SimCycle ldst_global_read(Sm *sm, SimCycle t, const int64_t *addr, LaneMask m, int64_t size);
/* Writes `size` bytes at lanes' global addresses (st.global): one request
 * per line. */
void ldst_global_write(Sm *sm, SimCycle t, const int64_t *addr, LaneMask m, int64_t size);
/* Loads the element ptr points to in each lane (shared or global); returns
 * when it is in registers.  *replays: bank-conflict replays. */
SimCycle ldst_ptr_load(Sm *sm, Warp *w, const Op *op, LaneMask m, const ExprNode *ptr, const int64_t *addr,
                       int64_t size, SimCycle t, int64_t *replays);
/* Stores each lane's packet to the element ptr points to. */
void ldst_ptr_store(Sm *sm, Warp *w, LaneMask m, const ExprNode *ptr, const int64_t *addr, int64_t size,
                    SimCycle t, int64_t *replays);
StepResult ldst_exec_load(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost);
StepResult ldst_exec_store(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost);
/* expect p[i] == v: the element's bytes are those that p[i] = v writes
 * (program_element_bytes), on the functional model. */
StepResult ldst_exec_expect(Sm *sm, Warp *w, LaneMask m, const Op *op);
