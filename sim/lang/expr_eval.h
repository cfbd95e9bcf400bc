/* expr_eval.h: integer arithmetic of the trace language and the evaluator of
 * compiled expression trees over the lanes of a warp.
 *
 * Integers are signed 64-bit; overflow, division by zero and shifts out of
 * range are errors, never wraparound.  A lane that is not active never
 * raises an error (its value is simply not computed), so `i < n && a / i`
 * behaves as in C. */
#pragma once

#include "sim/lang/program.h"

#define SIM_WARP_SIZE 32

typedef uint32_t LaneMask;

typedef enum {
    SIM_ARITH_OK,
    SIM_ARITH_OVERFLOW,
    SIM_ARITH_DIV_ZERO,
    SIM_ARITH_SHIFT
} SimArithStatus;

/* Applies a binary operator token (see parser.h) to two integers. */
SimArithStatus sim_arith_binary(int op, int64_t a, int64_t b, int64_t *out);
/* Applies a unary operator token ('-', '!', '~'). */
SimArithStatus sim_arith_unary(int op, int64_t a, int64_t *out);
/* Describes a failure, e.g. "integer overflow in 'a * b'". Static string. */
const char *sim_arith_message(SimArithStatus st);

/* What an evaluation can read: the warp's variables and its identity. */
typedef struct {
    const int64_t *vals;   /* the warp's variable slots (see ProgVar.slot) */
    int64_t tid0;          /* thread index of lane 0 */
    int64_t warp;          /* warp index within the block */
    int64_t block_id;      /* blockIdx.x */
} SimEvalEnv;

/* The value of an expression: one number, or one per lane. */
typedef struct {
    bool uniform;
    int64_t s;
    int64_t v[SIM_WARP_SIZE];
} SimLaneValue;

/* Evaluates node for the lanes in mask into *out.  On failure returns the
 * status and sets *bad_node and *bad_lane to where it happened. */
SimArithStatus sim_eval(const ExprNode *node, const SimEvalEnv *env, LaneMask mask,
                        SimLaneValue *out, const ExprNode **bad_node, int *bad_lane);

/* Evaluates a uniform node (!node->varying) as one number into *out,
 * what sim_eval would give every lane of a non-empty mask.  Returns false,
 * *out undefined, for a varying node or where the evaluation fails: the
 * caller then takes sim_eval, which reports the error and where. */
bool sim_eval_uniform(const ExprNode *node, const SimEvalEnv *env, int64_t *out);

/* Evaluates node in closed form for all 32 lanes of a converged warp:
 * lane l's value is *base + l * *stride, as sim_eval with a full mask
 * gives it.  Returns false, *base and *stride undefined, where the closed
 * form does not apply or an evaluation may fail: the caller then takes
 * sim_eval. */
bool sim_eval_affine(const ExprNode *node, const SimEvalEnv *env, int64_t *base, int64_t *stride);

/* Lane l's value of v. */
static inline int64_t sim_lane_value(const SimLaneValue *v, int lane)
{
    return v->uniform ? v->s : v->v[lane];
}
