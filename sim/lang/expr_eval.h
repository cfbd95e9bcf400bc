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

/* sim_eval_uniform out of line (any node). */
bool sim_eval_uniform_node(const ExprNode *node, const SimEvalEnv *env, int64_t *out);

/* Evaluates a uniform node (!node->varying) as one number into *out,
 * what sim_eval would give every lane of a non-empty mask.  Returns false,
 * *out undefined, for a varying node or where the evaluation fails: the
 * caller then takes sim_eval, which reports the error and where. */
static inline bool sim_eval_uniform(const ExprNode *node, const SimEvalEnv *env, int64_t *out)
{
    /* A constant and a uniform variable (a copy's size, a counter) here,
     * without a call: sim_eval_uniform_node's values for them. */
    if (node->varying) {
        return false;
    }
    if (node->kind == EN_CONST) {
        *out = node->value;
        return true;
    }
    if (node->kind == EN_VAR) {
        *out = env->vals[node->var];
        return true;
    }
    return sim_eval_uniform_node(node, env, out);
}

/* Evaluates node in closed form for all 32 lanes of a converged warp:
 * lane l's value is *base + l * *stride, as sim_eval with a full mask
 * gives it.  Returns false, *base and *stride undefined, where the closed
 * form does not apply or an evaluation may fail: the caller then takes
 * sim_eval. */
bool sim_eval_affine(const ExprNode *node, const SimEvalEnv *env, int64_t *base, int64_t *stride);

/* Compiles the expression rooted at node into its flat form (expr_eval.c)
 * for sim_eval, sim_eval_uniform and sim_eval_affine, which then evaluate
 * it without walking the tree, with the same results.  Returns a new block
 * (g_free), or NULL where the tree is too deep for the evaluator's stack
 * (the tree walk then stays). */
SimExprCode *sim_expr_compile(const ExprNode *node);

/* Lane l's value of v. */
static inline int64_t sim_lane_value(const SimLaneValue *v, int lane)
{
    return v->uniform ? v->s : v->v[lane];
}
