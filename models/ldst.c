/* ldst.c: a warp's loads, stores and expect statements (see ldst.h).
 *
 * Hardware behaviour: a global load is one request per line through the
 * memory path (L1, L2, DRAM: mem_path.c); a shared-memory access takes its
 * bank-conflict wavefronts (smem.c); a store takes one issue slot (plus its
 * bank-conflict replays) and waits only for its operand.  Before a load's
 * or a stored value's memory instruction the warp issues its address
 * arithmetic (sched.addr_issue: the LOP3/IMAD and LEA before each LDS of
 * gemm_tiles' unrolled consume loop,
 * docs/validation/campaign/microbench/tiles_cpa_s2_t64.sass); fills,
 * memsets and stores of a constant keep one issue slot an element.  With the
 * functional model each buffer's bytes are kept, so loads return and expect
 * statements check real values.
 *
 * Numbers: arch/NAME.ini smem.latency and l1.line_bytes here, the memory
 * path's in mem_path.c, measured by scripts/calib/lat_mem.cu
 * (docs/validation.md). */
#include "models/ldst.h"

#include "models/race.h"
#include "models/simt.h"

/* A store that waits longer than this for its operand is charged to
 * `memory` (Nsight Compute's Long Scoreboard: the value comes from global
 * memory), a shorter wait to `dependency` (Short Scoreboard).  It sorts
 * the statistics and changes no timing: above every bundled
 * architecture's shared-memory and L1 latencies, below its L2 latency. */
#define LDST_LONG_WAIT_CYCLES 100

/* ---------------------------------------------------------------- memory */

/* Element sizes for which consecutive lanes are reasoned about in closed
 * form: small enough that 32 of them cannot wrap a 64-bit address. */
static inline bool ascend_size(int64_t size)
{
    return size > 0 && size <= (INT64_C(1) << 20);
}

/* Whether the 32 lanes' addresses are consecutive elements of `size`
 * bytes, lane 0's first: addr[l] == addr[0] + l * size.  (The pass adds
 * modulo 2^64; with a small size, lane 31 not below lane 0 rules out a
 * wrap.) */
static bool lanes_ascend(const int64_t *addr, int64_t size)
{
    uint64_t apart = 0;
    uint64_t expect = (uint64_t) addr[0] + (uint64_t) size;
    for (int l = 1; l < SIM_WARP_SIZE; l++, expect += (uint64_t) size) {
        apart |= (uint64_t) addr[l] ^ expect;
    }
    return ascend_size(size) && addr[0] <= addr[SIM_WARP_SIZE - 1] && apart == 0;
}

/* ldst_check_bounds with `ascend` known: m is the full mask and
 * lanes_ascend(addr, size) holds. */
static bool check_bounds(Sm *sm, Warp *w, const Op *op, LaneMask m, const ExprNode *ptr, const int64_t *addr,
                         int64_t size, const char *what, bool ascend)
{
    const ProgBuffer *b = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    if (ascend) {
        /* A converged warp's consecutive elements: the ends bound them. */
        lo = addr[0];
        hi = addr[SIM_WARP_SIZE - 1];
    } else if (m == 0xffffffffu) {
        /* A converged warp: no test per lane. */
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            lo = addr[l] < lo ? addr[l] : lo;
            hi = addr[l] > hi ? addr[l] : hi;
        }
    } else {
        for (LaneMask c = m; c != 0; c &= c - 1) {
            int l = __builtin_ctz(c);
            lo = MIN(lo, addr[l]);
            hi = MAX(hi, addr[l]);
        }
    }
    if (m == 0 || (size >= 0 && lo >= b->base && hi <= b->base + b->bytes - size)) {
        return true;
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (!(m & (1u << l))) {
            continue;
        }
        if (addr[l] < b->base || size < 0 || addr[l] + size > b->base + b->bytes) {
            /* SPEC memory-1: every access stays inside its buffer. */
            RULE(sm, w, 1u << l, op, "%s out of bounds: bytes %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT " of %s buffer"
                 " '%s', which has %" G_GINT64_FORMAT " bytes (SPEC memory-1)", what, addr[l] - b->base,
                 addr[l] - b->base + size - 1, b->space == SPACE_SHARED ? "shared" : "global", b->name, b->bytes);
            return false;
        }
    }
    return true;
}

bool ldst_check_bounds(Sm *sm, Warp *w, const Op *op, LaneMask m, const ExprNode *ptr, const int64_t *addr,
                       int64_t size, const char *what)
{
    return check_bounds(sm, w, op, m, ptr, addr, size, what, m == 0xffffffffu && lanes_ascend(addr, size));
}

bool ldst_check_bounds_lane(Sm *sm, Warp *w, const Op *op, int lane, const ExprNode *ptr, int64_t addr, int64_t size,
                            const char *what)
{
    /* check_bounds' test of one lane, without an array of them; a failure
     * goes through it for its message. */
    const ProgBuffer *b = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    if (size >= 0 && addr >= b->base && addr <= b->base + b->bytes - size) {
        return true;
    }
    int64_t a[SIM_WARP_SIZE] = { 0 };
    a[lane] = addr;
    return check_bounds(sm, w, op, 1u << lane, ptr, a, size, what, false);
}

uint8_t *ldst_data_at(Sm *sm, Warp *w, MemSpace space, int64_t addr)
{
    if (space == SPACE_SHARED) {
        Block *b = &sm->blocks[w->block];
        return b->data_smem ? b->data_smem + addr : NULL;
    }
    return sm->data_global ? sm->data_global + (addr - (INT64_C(1) << 32)) : NULL;
}

uint32_t *ldst_data_var(Sm *sm, Warp *w, int32_t var, int lane)
{
    (void) sm;
    if (w->data == NULL || var < 0) {
        return NULL;
    }
    return &w->data[((size_t) var * SIM_WARP_SIZE + (size_t) lane) * 4];
}

SimCycle ldst_global_read(Sm *sm, SimCycle t, const int64_t *addr, LaneMask m, int64_t size)
{
    SimCycle done = t;
    /* Group lanes by line, one request each. */
    uint64_t lines[64];
    int nlines = 0;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (!(m & (1u << l))) {
            continue;
        }
        for (int64_t a = addr[l]; a < addr[l] + size; a = (a / sm->arch.line_bytes + 1) * sm->arch.line_bytes) {
            uint64_t line = (uint64_t) a / (uint64_t) sm->arch.line_bytes;
            bool dup = false;
            for (int k = 0; k < nlines; k++) {
                dup |= lines[k] == line;
            }
            if (!dup && nlines < 64) {
                lines[nlines++] = line;
            }
        }
    }
    for (int k = 0; k < nlines; k++) {
        /* (MAX evaluates its arguments twice: call once.) */
        SimCycle line_done = mem_path_read(&sm->mem, t, lines[k] * (uint64_t) sm->arch.line_bytes,
                                           sm->arch.line_bytes, true);
        done = MAX(done, line_done);
    }
    return done;
}

/* Warp w's shared-memory access through its path (smem_warp_access),
 * asked for at `at`: keeps the path's next start and the address
 * arithmetic's cycles now in w for ldst_issue_floor, and the replays for
 * the timeline.  *start receives the cycle it started, *replays its
 * wavefronts beyond the ideal.  Returns the cycle a load's data is
 * ready. */
static SimCycle path_access(Sm *sm, Warp *w, SimCycle at, const int64_t *addr, LaneMask m, int64_t size, bool ascend,
                            SimCycle *start, int64_t *replays)
{
    SimCycle ready = smem_warp_access(&sm->smem, w->id, at, addr, m, size, ascend, start, replays);
    w->smem_next = smem_warp_next(&sm->smem, w->id);
    w->smem_addr = sm->addr_cycles[sm_warp_alone(sm, w)];
    sm_note_smem_replays(sm, *start, *replays);
    return ready;
}

/* What a load or store waits for after its issue: bank-conflict replays,
 * the warp's path (`held`: an access started later than asked for), or
 * nothing but the next instruction's turn. */
static inline SimWarpState access_wait(bool held, int64_t replays)
{
    return replays > 0 ? WS_BANK_CONFLICT : held ? WS_MIO_THROTTLE : WS_DEPENDENCY;
}

/* The race detector's check and record of a warp's shared-memory load at
 * the lanes' addresses: every racing lane counts, the first one's warning
 * is reported (once per line). */
static void ldst_race_read(Sm *sm, Warp *w, const Op *op, LaneMask m, const int64_t *addr, int64_t size)
{
    uint64_t races = 0;
    g_autofree char *warn = race_read_lanes(sm->race, w->block, w->tid0, m, addr, size, op->loc, &races);
    sm->stats.race_warnings += races;
    if (warn) {
        g_autofree char *key = g_strdup_printf("race-raw-%u", op->loc.line);
        sm_warn(sm, key, "%s", warn);
    }
}

/* Each lane's address of the pointer expression ptr (a load's or store's),
 * checked against its buffer; false when evaluation or the check failed
 * (the run has failed).  *ascend: m is the full mask and the lanes are
 * consecutive elements (lanes_ascend), which the check and a store's
 * issue both ask. */
static bool lane_addresses(Sm *sm, Warp *w, const Op *op, LaneMask m, const ExprNode *ptr, const char *what,
                           int64_t addr[SIM_WARP_SIZE], bool *ascend)
{
    SimEvalEnv env = { w->vals, w->tid0, w->index, w->block };
    int64_t base, stride;
    int64_t size = ptr->type.elem.size;
    if (m == 0xffffffffu && sim_eval_affine(ptr, &env, &base, &stride)) {
        /* sim_eval_affine has checked that base + 31 * stride does not
         * overflow, so a stride of one element is lanes_ascend's answer
         * without its pass over the lanes. */
        *ascend = stride == size && ascend_size(size);
        /* A converged warp's affine address (the usual base + thread
         * index): the lanes' values without a lane vector.  A running
         * sum, which GCC vectorizes, where base + l * stride (a 64-bit
         * multiply a lane) it did not; sim_eval_affine has checked that
         * lane 31's address does not overflow, and the sum adds modulo
         * 2^64 anyway. */
        uint64_t a = (uint64_t) base;
        for (int l = 0; l < SIM_WARP_SIZE; l++, a += (uint64_t) stride) {
            addr[l] = (int64_t) a;
        }
    } else {
        SimLaneValue a;
        if (!warp_eval(sm, w, m, op, ptr, &a)) {
            return false;
        }
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            addr[l] = sim_lane_value(&a, l);
        }
        *ascend = m == 0xffffffffu && lanes_ascend(addr, size);
    }
    return check_bounds(sm, w, op, m, ptr, addr, size, what, *ascend);
}

StepResult ldst_exec_load(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    LaneMask m = s->mask;
    const ExprNode *ptr = op->e[0];
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    int64_t size = ptr->type.elem.size;
    int64_t addr[SIM_WARP_SIZE];
    bool ascend = false;
    if (!lane_addresses(sm, w, op, m, ptr, "load", addr, &ascend)) {
        return STEP_STOP;
    }
    SimCycle ready;
    int64_t replays = 0;
    /* The address instructions issue first. */
    int64_t addr_cycles = sm->addr_cycles[sm_warp_alone(sm, w)];
    SimCycle at = t + (SimCycle) addr_cycles;
    if (buf->space == SPACE_SHARED) {
        /* Consecutive elements of a converged warp: a run.  The warp's path
         * may start the access later than its address arithmetic ends
         * (ldst_issue_floor kept the warp off the scheduler until then, but
         * the arithmetic's cycles may have changed since). */
        ready = path_access(sm, w, at, addr, m, size, ascend, &at, &replays);
        if (sm->race) {
            ldst_race_read(sm, w, op, m, addr, size);
        }
    } else {
        ready = ldst_global_read(sm, at, addr, m, size);
    }
    /* Functional model: the loaded bytes. */
    if (sm->opt.functional && op->var >= 0) {
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            uint8_t *src = (m & (1u << l)) ? ldst_data_at(sm, w, buf->space, addr[l]) : NULL;
            uint32_t *dst = ldst_data_var(sm, w, op->var, l);
            if (src && dst) {
                memcpy(dst, src, (size_t) size);
            }
        }
    }
    if (op->var >= 0) {
        w->vals[sm_var(sm, op->var)->slot] = (int64_t) ready;
        w->vals_writes++;
    }
    /* Replays are served by the shared-memory pipe, not re-issued: the
     * scheduler is free, the warp stalls for them. */
    s->pc++;
    *cost = 1 + addr_cycles;
    s->ready_at = MAX(t + (SimCycle) *cost, at + 1) + (SimCycle) replays;
    s->wait_state = access_wait(at > t + (SimCycle) addr_cycles, replays);
    sm->stats.instructions++;
    return STEP_ISSUED;
}

/* The timing of one warp store of `size` bytes at lanes' addresses in buf
 * (shared memory through the warp's path and the banks, global memory a
 * write per line), and the race detector's record of it.  *start receives
 * the cycle the store started (t, or later when the warp's path takes it
 * then).  Returns the bank-conflict replays. */
static int64_t store_issue(Sm *sm, Warp *w, const ProgBuffer *buf, SimCycle t, const int64_t *addr, LaneMask m,
                           int64_t size, bool ascend, SimCycle *start)
{
    int64_t replays = 0;
    *start = t;
    if (buf->space == SPACE_SHARED) {
        /* Consecutive elements of a converged warp: a run. */
        path_access(sm, w, t, addr, m, size, ascend, start, &replays);
        if (sm->race) {
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if (m & (1u << l)) {
                    race_plain_write(sm->race, w->block, w->tid0 + l, addr[l], size);
                }
            }
        }
    } else {
        /* The lines it writes and their bytes; the SM's store port takes
         * their sectors first (mem_path_port_accept), and the warp waits
         * for it when the port's queue is full. */
        uint64_t lines[SIM_WARP_SIZE];
        int64_t bytes[SIM_WARP_SIZE];
        int n = 0;
        uint64_t lb = (uint64_t) sm->arch.line_bytes;
        if (ascend) {
            /* A converged warp's consecutive elements: the lanes of a
             * line follow one another, so each run of them is one write,
             * in the order and with the bytes the general loop gives. */
            int l = 0;
            while (l < SIM_WARP_SIZE) {
                uint64_t line = (uint64_t) addr[l] / lb;
                /* The lanes left in this line, from the spacing: those
                 * below the next line's first byte. */
                uint64_t left = (line + 1) * lb - (uint64_t) addr[l];
                int k = (int) MIN((left + (uint64_t) size - 1) / (uint64_t) size, (uint64_t) (SIM_WARP_SIZE - l));
                lines[n] = line;
                bytes[n++] = MIN((int64_t) k * size, sm->arch.line_bytes);
                l += k;
            }
        } else {
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                if (!(m & (1u << l))) {
                    continue;
                }
                uint64_t line = (uint64_t) addr[l] / lb;
                bool dup = false;
                for (int k = 0; k < n; k++) {
                    dup |= lines[k] == line;
                }
                if (dup) {
                    continue;
                }
                int64_t b = 0;
                for (int k = 0; k < SIM_WARP_SIZE; k++) {
                    if ((m & (1u << k)) && (uint64_t) addr[k] / lb == line) {
                        b += size;
                    }
                }
                lines[n] = line;
                bytes[n++] = MIN(b, sm->arch.line_bytes);
            }
        }
        int64_t sector = sm->arch.sector_bytes, sectors = 0;
        for (int k = 0; k < n; k++) {
            sectors += (bytes[k] + sector - 1) / sector;
        }
        *start = mem_path_port_accept(&sm->mem, t, sectors * sector, true);
        for (int k = 0; k < n; k++) {
            mem_path_write(&sm->mem, *start, lines[k] * lb, bytes[k]);
        }
    }
    return replays;
}

/* store(p, v), p[i] = v, fill(p, v, n) and memset(p, byte, bytes): integer
 * values, one warp store per element (a fill of n elements issues n, as
 * the loop `for k: p[k] = v` does), with no operand to wait for. */
static StepResult exec_store_value(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Split *s = &w->split[si];
    LaneMask m = s->mask;
    const ExprNode *ptr = op->e[0];
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    int64_t size = ptr->type.elem.size;
    SimLaneValue a, v, n;
    if (!warp_eval(sm, w, m, op, ptr, &a) || !warp_eval(sm, w, m, op, op->e[1], &v)) {
        return STEP_STOP;
    }
    int64_t iters = 1;
    if (op->sub == STORE_FILL) {
        if (!warp_eval(sm, w, m, op, op->e[3] != NULL ? op->e[3] : op->e[2], &n)) {
            return STEP_STOP;
        }
        iters = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (!(m & (1u << l))) {
                continue;
            }
            int64_t c = sim_lane_value(&n, l);
            if (c < 0 && op->e[3] == NULL) {
                return RULE(sm, w, 1u << l, op, "fill's count %" G_GINT64_FORMAT " is negative", c);
            }
            if (c < 0 || (op->e[3] != NULL && c % size != 0)) {
                return RULE(sm, w, 1u << l, op, "memset's byte count %" G_GINT64_FORMAT " is not a whole number of"
                            " %" G_GINT64_FORMAT "-byte elements", c, size);
            }
            iters = MAX(iters, op->e[3] != NULL ? c / size : c);
        }
        if (op->e[3] != NULL && !warp_eval(sm, w, m, op, op->e[2], &n)) {
            return STEP_STOP;
        }
    }
    int64_t replays = 0;
    SimCycle next = t;  /* the next store's cycle: one a cycle, or as the warp's path takes them */
    bool held = false;
    for (int64_t k = 0; k < iters; k++) {
        int64_t addr[SIM_WARP_SIZE];
        LaneMask km = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            addr[l] = sim_lane_value(&a, l) + k * size;
            if ((m & (1u << l)) && (op->sub != STORE_FILL || k < sim_lane_value(&n, l))) {
                km |= 1u << l;
            }
        }
        bool ascend = km == 0xffffffffu && lanes_ascend(addr, size);
        if (!check_bounds(sm, w, op, km, ptr, addr, size, op->sub == STORE_FILL ? "fill" : "store", ascend)) {
            return STEP_STOP;
        }
        SimCycle start;
        replays += store_issue(sm, w, buf, next, addr, km, size, ascend, &start);
        held |= start > next;
        next = start + 1;
        for (int l = 0; sm->opt.functional && l < SIM_WARP_SIZE; l++) {
            uint8_t *dst = (km & (1u << l)) ? ldst_data_at(sm, w, buf->space, addr[l]) : NULL;
            if (dst != NULL) {
                program_element_bytes(sim_lane_value(&v, l), size, dst);
            }
        }
    }
    s->pc++;
    *cost = MAX((int64_t) 1, iters);
    s->ready_at = MAX(t + (SimCycle) *cost, next) + (SimCycle) replays;
    s->wait_state = access_wait(held, replays);
    sm->stats.instructions += (uint64_t) iters;
    return STEP_ISSUED;
}

StepResult ldst_exec_store(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    if (op->sub != STORE_DATA) {
        return exec_store_value(sm, w, si, op, t, cost);
    }
    Split *s = &w->split[si];
    LaneMask m = s->mask;
    const ProgVar *v = sm_var(sm, op->obj);
    SimCycle operand = (SimCycle) w->vals[v->slot];
    if (operand > t) {
        /* The value is not there yet: wait for it (scoreboard). */
        s->ready_at = operand;
        s->wait_state = operand > t + LDST_LONG_WAIT_CYCLES ? WS_MEMORY : WS_DEPENDENCY;
        return STEP_WAIT;
    }
    const ExprNode *ptr = op->e[0];
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    int64_t size = ptr->type.elem.size;
    int64_t addr[SIM_WARP_SIZE];
    bool ascend = false;
    if (!lane_addresses(sm, w, op, m, ptr, "store", addr, &ascend)) {
        return STEP_STOP;
    }
    int64_t addr_cycles = sm->addr_cycles[sm_warp_alone(sm, w)];
    SimCycle at;
    int64_t replays = store_issue(sm, w, buf, t + (SimCycle) addr_cycles, addr, m, size, ascend, &at);
    if (sm->opt.functional) {
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            uint8_t *dst = (m & (1u << l)) ? ldst_data_at(sm, w, buf->space, addr[l]) : NULL;
            uint32_t *src = ldst_data_var(sm, w, op->obj, l);
            if (src && dst) {
                memcpy(dst, src, (size_t) size);
            }
        }
    }
    /* Replays are served by the shared-memory pipe, not re-issued: the
     * scheduler is free, the warp stalls for them. */
    s->pc++;
    *cost = 1 + addr_cycles;
    s->ready_at = MAX(t + (SimCycle) *cost, at + 1) + (SimCycle) replays;
    s->wait_state = access_wait(at > t + (SimCycle) addr_cycles, replays);
    sm->stats.instructions++;
    return STEP_ISSUED;
}

StepResult ldst_exec_expect(Sm *sm, Warp *w, LaneMask m, const Op *op)
{
    const ExprNode *ptr = op->e[0];
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    int64_t size = ptr->type.elem.size;
    SimLaneValue a, v;
    if (!warp_eval(sm, w, m, op, ptr, &a) || !warp_eval(sm, w, m, op, op->e[1], &v)) {
        return STEP_STOP;
    }
    int64_t addr[SIM_WARP_SIZE];
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        addr[l] = sim_lane_value(&a, l);
    }
    if (!ldst_check_bounds(sm, w, op, m, ptr, addr, size, "expect")) {
        return STEP_STOP;
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        const uint8_t *got = (m & (1u << l)) ? ldst_data_at(sm, w, buf->space, addr[l]) : NULL;
        uint8_t want[16];
        program_element_bytes(sim_lane_value(&v, l), size, want);
        if (got == NULL || memcmp(got, want, (size_t) size) == 0) {
            continue;
        }
        /* Both as the signed integers of the element's first word (its
         * low bytes), and every word when the words differ. */
        int64_t wbytes = MIN(size, (int64_t) 4);
        g_autoptr(GString) shown = g_string_new(NULL);
        for (int64_t k = 0; k < size; k += wbytes) {
            uint32_t word = 0;
            memcpy(&word, got + k, (size_t) wbytes);
            int64_t sv = wbytes == 1 ? (int8_t) word : wbytes == 2 ? (int16_t) word : (int32_t) word;
            g_string_append_printf(shown, "%s%" G_GINT64_FORMAT, k ? ", " : "", sv);
        }
        bool same_words = true;
        for (int64_t k = wbytes; k < size; k += wbytes) {
            same_words &= memcmp(got, got + k, (size_t) wbytes) == 0;
        }
        uint32_t wword = 0;
        memcpy(&wword, want, (size_t) wbytes);
        int64_t expected = wbytes == 1 ? (int8_t) wword : wbytes == 2 ? (int16_t) wword : (int32_t) wword;
        g_autofree char *value = same_words ? g_strndup(shown->str, strcspn(shown->str, ","))
                                            : g_strdup_printf("{%s}", shown->str);
        return RULE(sm, w, 1u << l, op, "expect failed: %s[%" G_GINT64_FORMAT "] is %s, expected %" G_GINT64_FORMAT,
                    buf->name, (addr[l] - buf->base) / size, value, expected);
    }
    return STEP_CONTINUE;
}


void ldst_global_write(Sm *sm, SimCycle t, const int64_t *addr, LaneMask m, int64_t size)
{
    uint64_t lines[64];
    int n = 0;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (!(m & (1u << l))) {
            continue;
        }
        uint64_t line = (uint64_t) addr[l] / (uint64_t) sm->arch.line_bytes;
        bool dup = false;
        for (int k = 0; k < n; k++) {
            dup |= lines[k] == line;
        }
        if (dup || n == 64) {
            continue;
        }
        lines[n++] = line;
        int64_t bytes = 0;
        for (int k = 0; k < SIM_WARP_SIZE; k++) {
            if ((m & (1u << k)) && (uint64_t) addr[k] / (uint64_t) sm->arch.line_bytes == line) {
                bytes += size;
            }
        }
        mem_path_write(&sm->mem, t, line * (uint64_t) sm->arch.line_bytes, MIN(bytes, sm->arch.line_bytes));
    }
}

SimCycle ldst_ptr_load(Sm *sm, Warp *w, const Op *op, LaneMask m, const ExprNode *ptr, const int64_t *addr,
                       int64_t size, SimCycle t, int64_t *replays)
{
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    *replays = 0;
    if (buf->space != SPACE_SHARED) {
        return ldst_global_read(sm, t, addr, m, size);
    }
    SimCycle port = smem_access(&sm->smem, t, addr, m, size, replays);
    if (sm->race != NULL) {
        ldst_race_read(sm, w, op, m, addr, size);
    }
    return port - 1 + (SimCycle) sm->smem.latency;
}

void ldst_ptr_store(Sm *sm, Warp *w, LaneMask m, const ExprNode *ptr, const int64_t *addr, int64_t size,
                    SimCycle t, int64_t *replays)
{
    const ProgBuffer *buf = &g_array_index(sm->prog->buffers, ProgBuffer, ptr->type.buffer);
    *replays = 0;
    if (buf->space != SPACE_SHARED) {
        ldst_global_write(sm, t, addr, m, size);
        return;
    }
    smem_access(&sm->smem, t, addr, m, size, replays);
    for (int l = 0; sm->race != NULL && l < SIM_WARP_SIZE; l++) {
        if (m & (1u << l)) {
            race_plain_write(sm->race, w->block, w->tid0 + l, addr[l], size);
        }
    }
}
