/* compiler.h: what the compiler does to a trace's program, as the SM's
 * timing needs it: computed once per program when an SM is built
 * (compiler.c says from which SASS). */
#pragma once

#include "sim/lang/program.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* For each operation, the emulated divisions and modulos it runs: those
 * its expressions evaluate, except by constant powers of two and those
 * whose operands its innermost loop never changes, which nvcc computes
 * once before the loop and which its OP_LOOP_ENTER is charged instead.
 * Returns a new array indexed by operation (free with g_free). */
int32_t *compiler_divisions_by_op(const Program *prog);

/* For each operation, whether the compiler folds it away: the control of
 * an innermost loop whose trip count the compiler knows (counter set to,
 * compared with and stepped by constants, written nowhere else) and that
 * makes at most max passes, the assignments in it that only add constant
 * multiples of its counter to values the loop does not change, and a
 * branch whose condition is a constant (a parameter's test).  Returns a
 * new array indexed by operation (free with g_free). */
bool *compiler_unrolled_ops(const Program *prog, int64_t max);

/* For each OP_LOOP_ENTER, whether nvcc unrolls its loop with a trip count
 * it computes at the loop's entry: an innermost loop whose trip count is
 * not a compile-time constant and whose body is straight-line code
 * (assignments, loads, stores, computes, memcpy_async, a thread-scope
 * pipeline's acquire and commit).  The SASS of
 * with_staging_scope_thread (docs/validation/campaign/microbench/
 * with_staging_scope_thread_t256_s4_b512.sass) unrolls its fetch loop by
 * four after 16 instructions that compute the passes left and their
 * remainder.  With max 0 (sched.unroll_max: no loop is unrolled) none is.
 * Returns a new array indexed by operation (free with g_free). */
bool *compiler_runtime_unrolled(const Program *prog, int64_t max);

/* For each compute(x, n) statement, how many of the statements right after
 * it are independent compute(y, n) statements of the same instruction class
 * that ptxas interleaves it with (the GEMM traces' a = compute(a, n);
 * b = compute(b, n) become alternating IMADs), given each operation's
 * divisions (compiler_divisions_by_op).  Returns a new array indexed by
 * operation (free with g_free). */
int32_t *compiler_fusable_computes(const Program *prog, const int32_t *op_divs);
