/* expr_eval.c: checked integer arithmetic and the lane-parallel evaluator. */
#include "sim/lang/expr_eval.h"

#include "sim/lang/parser.h"

SimArithStatus sim_arith_binary(int op, int64_t a, int64_t b, int64_t *out)
{
    int64_t r = 0;
    switch (op) {
    case '+':
        if (__builtin_add_overflow(a, b, &r)) {
            return SIM_ARITH_OVERFLOW;
        }
        break;
    case '-':
        if (__builtin_sub_overflow(a, b, &r)) {
            return SIM_ARITH_OVERFLOW;
        }
        break;
    case '*':
        if (__builtin_mul_overflow(a, b, &r)) {
            return SIM_ARITH_OVERFLOW;
        }
        break;
    case '/':
    case '%':
        if (b == 0) {
            return SIM_ARITH_DIV_ZERO;
        }
        if (a == INT64_MIN && b == -1) {
            /* C leaves both undefined; the quotient overflows, but the
             * remainder is 0 (fuzz_expr finding: it was reported as an
             * overflow). */
            if (op == '/') {
                return SIM_ARITH_OVERFLOW;
            }
            r = 0;
            break;
        }
        r = op == '/' ? a / b : a % b;
        break;
    case TK_SHL:
        if (b < 0 || b > 62 || a < 0 || a > (INT64_MAX >> b)) {
            return b < 0 || b > 62 ? SIM_ARITH_SHIFT : SIM_ARITH_OVERFLOW;
        }
        r = a << b;
        break;
    case TK_SHR:
        if (b < 0 || b > 63) {
            return SIM_ARITH_SHIFT;
        }
        r = a >> b;
        break;
    case '&': r = a & b; break;
    case '|': r = a | b; break;
    case '^': r = a ^ b; break;
    case '<': r = a < b; break;
    case '>': r = a > b; break;
    case TK_LE: r = a <= b; break;
    case TK_GE: r = a >= b; break;
    case TK_EQ: r = a == b; break;
    case TK_NE: r = a != b; break;
    case TK_ANDAND: r = a && b; break;
    case TK_OROR: r = a || b; break;
    default:
        g_assert_not_reached();
    }
    *out = r;
    return SIM_ARITH_OK;
}

SimArithStatus sim_arith_unary(int op, int64_t a, int64_t *out)
{
    switch (op) {
    case '-':
        if (a == INT64_MIN) {
            return SIM_ARITH_OVERFLOW;
        }
        *out = -a;
        return SIM_ARITH_OK;
    case '!':
        *out = !a;
        return SIM_ARITH_OK;
    case '~':
        *out = ~a;
        return SIM_ARITH_OK;
    default:
        g_assert_not_reached();
    }
}

const char *sim_arith_message(SimArithStatus st)
{
    switch (st) {
    case SIM_ARITH_OK: return "ok";
    case SIM_ARITH_OVERFLOW: return "integer overflow (integers are signed 64-bit; overflow is an error)";
    case SIM_ARITH_DIV_ZERO: return "division by zero";
    case SIM_ARITH_SHIFT: return "shift count out of range (0..63)";
    }
    return "arithmetic error";
}

static inline int lowest_lane(LaneMask m)
{
    return m ? __builtin_ctz(m) : 0;
}

/* For every lane at once (a converged warp): v[l] = v[l] op b[l] for +, -
 * or *, when no lane overflows; returns false, v unchanged, when one does
 * or for another operator (the lane-by-lane loop then finds the first). */
static bool all_lanes_binary(int op, int64_t *v, const int64_t *b)
{
    int64_t r[SIM_WARP_SIZE];
    bool over = false;
    switch (op) {
    case '+':
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            over |= __builtin_add_overflow(v[l], b[l], &r[l]);
        }
        break;
    case '-':
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            over |= __builtin_sub_overflow(v[l], b[l], &r[l]);
        }
        break;
    case '*':
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            over |= __builtin_mul_overflow(v[l], b[l], &r[l]);
        }
        break;
    default:
        return false;
    }
    if (over) {
        return false;
    }
    memcpy(v, r, sizeof r);
    return true;
}

/* v[l] = v[l] op rhs[l] for the lanes of mask, in lane order, as
 * sim_arith_binary would give each; the common operators get a loop of
 * their own instead of a dispatch per lane, without a test per lane for a
 * converged warp.  On an error, returns it with *bad_lane the first lane
 * that failed (v's lanes from it on unchanged). */
static SimArithStatus lanes_binary(int op, int64_t *v, const SimLaneValue *rhs, LaneMask mask, int *bad_lane)
{
    int64_t b[SIM_WARP_SIZE];
    if (rhs->uniform) {
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            b[l] = rhs->s;
        }
    } else {
        memcpy(b, rhs->v, sizeof b);
    }
    if (mask == 0xffffffffu && all_lanes_binary(op, v, b)) {
        return SIM_ARITH_OK;
    }
    int64_t r;
    switch (op) {
    case '+':
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (mask & (1u << l)) {
                if (__builtin_add_overflow(v[l], b[l], &r)) {
                    *bad_lane = l;
                    return SIM_ARITH_OVERFLOW;
                }
                v[l] = r;
            }
        }
        return SIM_ARITH_OK;
    case '-':
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (mask & (1u << l)) {
                if (__builtin_sub_overflow(v[l], b[l], &r)) {
                    *bad_lane = l;
                    return SIM_ARITH_OVERFLOW;
                }
                v[l] = r;
            }
        }
        return SIM_ARITH_OK;
    case '*':
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (mask & (1u << l)) {
                if (__builtin_mul_overflow(v[l], b[l], &r)) {
                    *bad_lane = l;
                    return SIM_ARITH_OVERFLOW;
                }
                v[l] = r;
            }
        }
        return SIM_ARITH_OK;
    default:
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (mask & (1u << l)) {
                SimArithStatus st = sim_arith_binary(op, v[l], b[l], &v[l]);
                if (st != SIM_ARITH_OK) {
                    *bad_lane = l;
                    return st;
                }
            }
        }
        return SIM_ARITH_OK;
    }
}

/* The closed form of an expression over the 32 lanes of a warp: lane l's
 * value is base + l * stride, and every such value, lane 31's included, is
 * a representable int64.  `uniform` is what the lane-by-lane evaluator
 * would say of the result (a varying value may still have stride 0). */
typedef struct {
    int64_t base;
    int64_t stride;
    bool uniform;
} SimAffine;

/* Sets *out to base + l * stride when lane 31's value (so, the values
 * being monotonic in l, every lane's) is representable. */
static inline bool affine_make(int64_t base, int64_t stride, bool uniform, SimAffine *out)
{
    int64_t span, last;
    if (__builtin_mul_overflow(stride, (int64_t) (SIM_WARP_SIZE - 1), &span) ||
        __builtin_add_overflow(base, span, &last)) {
        return false;
    }
    out->base = base;
    out->stride = stride;
    out->uniform = uniform;
    return true;
}

static bool scalar_eval(const ExprNode *n, const SimEvalEnv *env, int64_t *out);

/* scalar_eval, with its commonest operands, a constant and a uniform
 * variable, read without a call. */
static inline bool scalar_operand(const ExprNode *n, const SimEvalEnv *env, int64_t *out)
{
    if (n->kind == EN_CONST) {
        *out = n->value;
        return true;
    }
    if (n->kind == EN_VAR && !n->varying) {
        *out = env->vals[n->var];
        return true;
    }
    return scalar_eval(n, env, out);
}

/* a op b for scalar_eval, false where it fails; the commonest operators
 * without a call: sim_arith_binary's checks and results (a failure falls
 * back as any other).  Not for && and ||, which scalar_eval
 * short-circuits. */
static inline bool scalar_binary(int op, int64_t a, int64_t b, int64_t *out)
{
    switch (op) {
    case '+':
        return !__builtin_add_overflow(a, b, out);
    case '-':
        return !__builtin_sub_overflow(a, b, out);
    case '*':
        return !__builtin_mul_overflow(a, b, out);
    case '<':
        *out = a < b;
        return true;
    case '>':
        *out = a > b;
        return true;
    case TK_LE:
        *out = a <= b;
        return true;
    case TK_GE:
        *out = a >= b;
        return true;
    case TK_EQ:
        *out = a == b;
        return true;
    case TK_NE:
        *out = a != b;
        return true;
    case '/':
    case '%':
        /* A positive divisor (a stage count): neither a division by zero
         * nor INT64_MIN / -1, so sim_arith_binary's plain quotient or
         * remainder. */
        if (b > 0) {
            *out = op == '/' ? a / b : a % b;
            return true;
        }
        return sim_arith_binary(op, a, b, out) == SIM_ARITH_OK;
    default:
        return sim_arith_binary(op, a, b, out) == SIM_ARITH_OK;
    }
}

/* Evaluates a node that no lane's value depends on (!n->varying): one
 * number, as the lane-by-lane evaluator's uniform result.  Returns false
 * where an operation fails (the lane-by-lane evaluator then reports it)
 * and at a lane-dependent leaf, should one be reached. */
static bool scalar_eval(const ExprNode *n, const SimEvalEnv *env, int64_t *out)
{
    int64_t a, b;
    switch ((ExprNodeKind) n->kind) {
    case EN_CONST:
        *out = n->value;
        return true;
    case EN_VAR:
        *out = env->vals[n->var];
        return !n->varying;
    case EN_TID:
    case EN_LANE:
        return false;
    case EN_WARP:
        *out = env->warp;
        return true;
    case EN_BLOCK_ID:
        *out = program_index_value(n, env->block_id);
        return true;
    case EN_UNARY:
        return scalar_operand(n->a, env, &a) && sim_arith_unary(n->op, a, out) == SIM_ARITH_OK;
    case EN_BINARY:
        if (!scalar_operand(n->a, env, &a)) {
            return false;
        }
        if (n->op == TK_ANDAND || n->op == TK_OROR) {
            /* The right side only where the left does not decide. */
            if ((a != 0) != (n->op == TK_ANDAND)) {
                *out = a != 0;
                return true;
            }
            if (!scalar_operand(n->b, env, &b)) {
                return false;
            }
            *out = b != 0;
            return true;
        }
        if (!scalar_operand(n->b, env, &b)) {
            return false;
        }
        return scalar_binary(n->op, a, b, out);
    case EN_TERNARY:
        return scalar_operand(n->a, env, &a) && scalar_operand(a ? n->b : n->c, env, out);
    }
    g_assert_not_reached();
}

/* affine_eval of a varying variable whose first value slot is v. */
static inline bool affine_var(const int64_t *v, SimAffine *out)
{
    int64_t stride;
    if (__builtin_sub_overflow(v[1], v[0], &stride) || !affine_make(v[0], stride, false, out)) {
        return false;
    }
    for (int l = 2; l < SIM_WARP_SIZE; l++) {
        if (v[l] != v[0] + l * stride) {
            return false;
        }
    }
    return true;
}

/* affine_eval of an EN_TID node n. */
static inline bool affine_tid(const ExprNode *n, const SimEvalEnv *env, SimAffine *out)
{
    int64_t first = env->tid0;
    int64_t last = env->tid0 + SIM_WARP_SIZE - 1;
    if (n->value == 0) {
        return affine_make(first, 1, false, out);
    }
    /* (linear / op) % var: one value for the warp when the quotient does
     * not change across it, consecutive ones when op is 1 and the
     * remainder does not wrap. */
    if (first >= 0 && first / n->op == last / n->op) {
        return affine_make(program_index_value(n, first), 0, false, out);
    }
    if (first >= 0 && n->op == 1 && first % n->var + SIM_WARP_SIZE - 1 < n->var) {
        return affine_make(program_index_value(n, first), 1, false, out);
    }
    return false;
}

/* affine_eval of op a (a unary node), a being its operand's closed form. */
static inline bool affine_unary(int op, SimAffine a, SimAffine *out)
{
    if (a.uniform) {
        int64_t r;
        return sim_arith_unary(op, a.base, &r) == SIM_ARITH_OK && affine_make(r, 0, true, out);
    }
    if (op == '-') {
        /* -v fails only for INT64_MIN, which can only be an end lane. */
        int64_t last = a.base + (SIM_WARP_SIZE - 1) * a.stride;
        return a.base != INT64_MIN && last != INT64_MIN && affine_make(-a.base, -a.stride, false, out);
    }
    if (a.stride == 0) {
        int64_t r;
        return sim_arith_unary(op, a.base, &r) == SIM_ARITH_OK && affine_make(r, 0, false, out);
    }
    return false;
}

/* affine_eval of a op b (a binary node other than && and ||), a and b
 * being its operands' closed forms. */
static inline bool affine_binary(int op, SimAffine a, SimAffine b, SimAffine *out)
{
    bool uniform = a.uniform && b.uniform;
    int64_t base, stride;
    switch (op) {
    case '+':
        return !__builtin_add_overflow(a.base, b.base, &base) &&
               !__builtin_add_overflow(a.stride, b.stride, &stride) && affine_make(base, stride, uniform, out);
    case '-':
        return !__builtin_sub_overflow(a.base, b.base, &base) &&
               !__builtin_sub_overflow(a.stride, b.stride, &stride) && affine_make(base, stride, uniform, out);
    case '*':
        if (a.stride != 0 && b.stride != 0) {
            return false;
        }
        /* (a0 + l as) * b0 or a0 * (b0 + l bs): the exact products are
         * affine, so representable ends mean no lane overflows. */
        if (b.stride == 0) {
            return !__builtin_mul_overflow(a.base, b.base, &base) &&
                   !__builtin_mul_overflow(a.stride, b.base, &stride) && affine_make(base, stride, uniform, out);
        }
        return !__builtin_mul_overflow(a.base, b.base, &base) &&
               !__builtin_mul_overflow(a.base, b.stride, &stride) && affine_make(base, stride, uniform, out);
    default:
        if (a.stride != 0 || b.stride != 0) {
            return false;
        }
        return sim_arith_binary(op, a.base, b.base, &base) == SIM_ARITH_OK && affine_make(base, 0, uniform, out);
    }
}

/* Evaluates n in closed form for all 32 lanes (see SimAffine).  Returns
 * false, *out undefined, where n is not affine in the lane (a varying
 * variable whose lanes are not, a product of two lane-dependent values, a
 * varying comparison or condition...) or where some lane's arithmetic
 * could fail: the caller then evaluates lane by lane, which finds the
 * error and the lane it names.  So a true return means the lane-by-lane
 * evaluation of a converged warp gives these values without an error. */
static bool affine_eval(const ExprNode *n, const SimEvalEnv *env, SimAffine *out)
{
    if (!n->varying) {
        out->stride = 0;
        out->uniform = true;
        return scalar_eval(n, env, &out->base);
    }
    switch ((ExprNodeKind) n->kind) {
    case EN_CONST:
    case EN_WARP:
    case EN_BLOCK_ID:
        /* Never varying: scalar_eval above took them. */
        return false;
    case EN_VAR:
        return affine_var(env->vals + n->var, out);
    case EN_TID:
        return affine_tid(n, env, out);
    case EN_LANE:
        return affine_make(0, 1, false, out);
    case EN_UNARY: {
        SimAffine a;
        return affine_eval(n->a, env, &a) && affine_unary(n->op, a, out);
    }
    case EN_BINARY: {
        SimAffine a, b;
        if (!affine_eval(n->a, env, &a)) {
            return false;
        }
        if (n->op == TK_ANDAND || n->op == TK_OROR) {
            /* As the lane-by-lane evaluator: a uniform left side that
             * decides leaves the right side unevaluated. */
            if (!a.uniform) {
                return false;
            }
            if ((a.base != 0) != (n->op == TK_ANDAND)) {
                return affine_make(a.base != 0, 0, true, out);
            }
            if (!affine_eval(n->b, env, &b) || !b.uniform) {
                return false;
            }
            return affine_make(b.base != 0, 0, true, out);
        }
        return affine_eval(n->b, env, &b) && affine_binary(n->op, a, b, out);
    }
    case EN_TERNARY: {
        SimAffine c;
        if (!affine_eval(n->a, env, &c) || c.stride != 0) {
            return false;
        }
        /* Every lane takes the same side, as in the lane-by-lane evaluator
         * (which then evaluates that side alone). */
        return affine_eval(c.base ? n->b : n->c, env, out);
    }
    }
    g_assert_not_reached();
}

/* ------------------------------------------------------------ flat form */

/* An operation's expression compiled once (sim_expr_compile) into a flat
 * postfix program that a loop runs over a stack, instead of walking the
 * tree through a call per node on every evaluation.  Two kinds of code
 * share one block: scalar code, scalar_eval's (a stack of numbers), and
 * affine code, affine_eval's (a stack of SimAffine), whose uniform
 * subtrees are scalar code of their own, appended after it.  Each
 * instruction does what scalar_eval or affine_eval does at a node, with the
 * same helpers and the same short-circuits (&&, || and ?: jump over the
 * side they leave unevaluated), so a program returns what the tree walk
 * returns: the same value, or false where the walk returns false. */
typedef enum {
    XS_CONST,     /* push k */
    XS_VAR,       /* push vals[k] (a uniform variable) */
    XS_VAR_BINARY_K, /* push vals[var] op k (scalar_binary) */
    XS_WARP,      /* push the warp index */
    XS_BLOCK,     /* push program_index_value(node, block) */
    XS_FAIL,      /* a lane-dependent leaf: scalar_eval fails */
    XS_UNARY,     /* top = op top */
    XS_ADD,       /* pop b; top = top + b (and so on) */
    XS_SUB,
    XS_MUL,
    XS_BINARY,    /* pop b; top = top op b (scalar_binary) */
    XS_ADD_K,     /* top = top + k: the right operand a constant */
    XS_SUB_K,
    XS_MUL_K,
    XS_BINARY_K,
    XS_ADD_V,     /* top = top + vals[k]: the right operand a uniform variable */
    XS_SUB_V,
    XS_MUL_V,
    XS_BINARY_V,
    XS_ANDOR,     /* && or || (op) after its left side: where that decides,
                   * top = its truth and go to k; else pop */
    XS_BOOL,      /* top = top != 0 */
    XS_JZ,        /* pop; go to k if it was 0 */
    XS_JMP,       /* go to k */
    XS_END,       /* the value is top */
    XA_CONST,     /* push k, uniform */
    XA_UVAR,      /* push vals[k], uniform */
    XA_SCALAR,    /* push the value of the scalar code at k, uniform */
    XA_VAR,       /* push the varying variable at slot k (affine_var) */
    XA_TID,       /* push affine_tid(node) */
    XA_LANE,      /* push the lane index */
    XA_FAIL,      /* a node affine_eval rejects */
    XA_UNARY,     /* top = affine_unary(op, top) */
    XA_BINARY,    /* pop b; top = affine_binary(op, top, b) */
    XA_BINARY_K,  /* top = affine_binary(op, top, k): the right operand a constant */
    XA_ANDOR,     /* && or || (op) after its left side, as XS_ANDOR, but
                   * failing for a varying left side */
    XA_BOOL,      /* top = top != 0, failing for a varying top */
    XA_JZ,        /* pop; fail unless its stride is 0; go to k if it was 0 */
    XA_JMP,       /* go to k */
    XA_END        /* the value is top */
} SimInsnCode;

typedef struct {
    int32_t code;          /* SimInsnCode */
    int32_t op;            /* operator token */
    int32_t var;           /* XS_VAR_BINARY_K: the variable's value slot */
    int64_t k;             /* constant, value slot or instruction index */
    const ExprNode *node;  /* XS_BLOCK, XA_TID: the leaf */
} SimInsn;

/* The deepest stack a program may use (deeper trees keep the tree walk). */
#define SIM_CODE_DEPTH 32

struct SimExprCode {
    int32_t len;           /* instructions */
    bool scaled_lane;      /* affine code of the form u + lane part * K: XA_SCALAR,
                            * XA_TID, XA_BINARY_K, XA_BINARY, XA_END (an
                            * address, a base plus the thread index times an
                            * element), which root_affine runs without the loop */
    int8_t straight;       /* scalar code for a uniform root, or the scaled_lane
                            * form's uniform part: code_straight_len's, or -1 */
    bool test;             /* scalar code for a uniform root of code_test's form */
    SimInsn insn[];        /* from 0: scalar code for a uniform root, affine
                            * code for a varying one; then the affine code's
                            * scalar subprograms */
};

/* Runs the scalar code from instruction start: scalar_eval of its tree. */
static bool code_scalar(const SimInsn *code, int64_t start, const SimEvalEnv *env, int64_t *out)
{
    int64_t stack[SIM_CODE_DEPTH];
    int64_t *sp = stack;   /* the next free slot; sp[-1] is the top */
    for (const SimInsn *i = code + start;; i++) {
        switch ((SimInsnCode) i->code) {
        case XS_CONST:
            *sp++ = i->k;
            break;
        case XS_VAR:
            *sp++ = env->vals[i->k];
            break;
        case XS_VAR_BINARY_K:
            if (!scalar_binary(i->op, env->vals[i->var], i->k, sp++)) {
                return false;
            }
            break;
        case XS_WARP:
            *sp++ = env->warp;
            break;
        case XS_BLOCK:
            *sp++ = program_index_value(i->node, env->block_id);
            break;
        case XS_UNARY:
            if (sim_arith_unary(i->op, sp[-1], &sp[-1]) != SIM_ARITH_OK) {
                return false;
            }
            break;
        case XS_ADD:
            sp--;
            if (__builtin_add_overflow(sp[-1], sp[0], &sp[-1])) {
                return false;
            }
            break;
        case XS_SUB:
            sp--;
            if (__builtin_sub_overflow(sp[-1], sp[0], &sp[-1])) {
                return false;
            }
            break;
        case XS_MUL:
            sp--;
            if (__builtin_mul_overflow(sp[-1], sp[0], &sp[-1])) {
                return false;
            }
            break;
        case XS_BINARY:
            sp--;
            if (!scalar_binary(i->op, sp[-1], sp[0], &sp[-1])) {
                return false;
            }
            break;
        case XS_ADD_K:
            if (__builtin_add_overflow(sp[-1], i->k, &sp[-1])) {
                return false;
            }
            break;
        case XS_SUB_K:
            if (__builtin_sub_overflow(sp[-1], i->k, &sp[-1])) {
                return false;
            }
            break;
        case XS_MUL_K:
            if (__builtin_mul_overflow(sp[-1], i->k, &sp[-1])) {
                return false;
            }
            break;
        case XS_BINARY_K:
            if (!scalar_binary(i->op, sp[-1], i->k, &sp[-1])) {
                return false;
            }
            break;
        case XS_ADD_V:
            if (__builtin_add_overflow(sp[-1], env->vals[i->k], &sp[-1])) {
                return false;
            }
            break;
        case XS_SUB_V:
            if (__builtin_sub_overflow(sp[-1], env->vals[i->k], &sp[-1])) {
                return false;
            }
            break;
        case XS_MUL_V:
            if (__builtin_mul_overflow(sp[-1], env->vals[i->k], &sp[-1])) {
                return false;
            }
            break;
        case XS_BINARY_V:
            if (!scalar_binary(i->op, sp[-1], env->vals[i->k], &sp[-1])) {
                return false;
            }
            break;
        case XS_ANDOR:
            if ((sp[-1] != 0) != (i->op == TK_ANDAND)) {
                sp[-1] = sp[-1] != 0;
                i = code + i->k - 1;
            } else {
                sp--;
            }
            break;
        case XS_BOOL:
            sp[-1] = sp[-1] != 0;
            break;
        case XS_JZ:
            sp--;
            if (sp[0] == 0) {
                i = code + i->k - 1;
            }
            break;
        case XS_JMP:
            i = code + i->k - 1;
            break;
        case XS_END:
            *out = sp[-1];
            return true;
        default:
            /* XS_FAIL (the affine instructions never appear here). */
            return false;
        }
    }
}

/* How many constant operations (XS_ADD_K, XS_SUB_K, XS_MUL_K) follow the
 * v op K that starts the scalar code at i before its end, at most 2 (an
 * index times a row and an element, plus an offset), or -1 where the code
 * is not of that form. */
static int code_straight_len(const SimInsn *i)
{
    if (i[0].code != XS_VAR_BINARY_K) {
        return -1;
    }
    int n = 0;
    while (n < 2 && (i[1 + n].code == XS_ADD_K || i[1 + n].code == XS_SUB_K || i[1 + n].code == XS_MUL_K)) {
        n++;
    }
    return i[1 + n].code == XS_END ? n : -1;
}

/* Runs the scalar code at i of code_straight_len n (>= 0) as code_scalar
 * does, the same operations in the same order, without its loop and
 * stack.  Out of line, as code_scalar is: inlined, its registers gave
 * sim_eval_uniform_node a frame that every v op K root paid. */
G_GNUC_NO_INLINE static bool code_straight(const SimInsn *i, int n, const SimEvalEnv *env, int64_t *out)
{
    int64_t v;
    if (!scalar_binary(i->op, env->vals[i->var], i->k, &v)) {
        return false;
    }
    for (int j = 1; j <= n; j++) {
        bool over;
        if (i[j].code == XS_ADD_K) {
            over = __builtin_add_overflow(v, i[j].k, &v);
        } else if (i[j].code == XS_SUB_K) {
            over = __builtin_sub_overflow(v, i[j].k, &v);
        } else {
            over = __builtin_mul_overflow(v, i[j].k, &v);
        }
        if (over) {
            return false;
        }
    }
    *out = v;
    return true;
}

/* Whether the scalar code at i is v1 op K1 && v2 op (v3 op K3) (or ||):
 * XS_VAR_BINARY_K, XS_ANDOR to the end, XS_VAR, XS_VAR_BINARY_K, XS_BINARY,
 * XS_BOOL, XS_END (a producer loop's test, fetch < n && fetch < i +
 * stages). */
static bool code_test_form(const SimInsn *i)
{
    return i[0].code == XS_VAR_BINARY_K && i[1].code == XS_ANDOR && i[1].k == 6 && i[2].code == XS_VAR &&
           i[3].code == XS_VAR_BINARY_K && i[4].code == XS_BINARY && i[5].code == XS_BOOL && i[6].code == XS_END;
}

/* Runs scalar code of code_test_form at i as code_scalar does, the same
 * operations in the same order, without its loop and stack (out of line,
 * as code_straight). */
G_GNUC_NO_INLINE static bool code_test(const SimInsn *i, const SimEvalEnv *env, int64_t *out)
{
    int64_t a, b;
    if (!scalar_binary(i[0].op, env->vals[i[0].var], i[0].k, &a)) {
        return false;
    }
    if ((a != 0) != (i[1].op == TK_ANDAND)) {
        /* The left side decides (XS_ANDOR's jump to the end). */
        *out = a != 0;
        return true;
    }
    if (!scalar_binary(i[3].op, env->vals[i[3].var], i[3].k, &b) ||
        !scalar_binary(i[4].op, env->vals[i[2].k], b, &b)) {
        return false;
    }
    *out = b != 0;
    return true;
}

/* Runs the affine code from instruction 0: affine_eval of its tree. */
static bool code_affine(const SimInsn *code, const SimEvalEnv *env, SimAffine *out)
{
    SimAffine stack[SIM_CODE_DEPTH];
    SimAffine *sp = stack; /* the next free slot; sp[-1] is the top */
    for (const SimInsn *i = code;; i++) {
        switch ((SimInsnCode) i->code) {
        case XA_CONST:
            sp->base = i->k;
            sp->stride = 0;
            sp->uniform = true;
            sp++;
            break;
        case XA_UVAR:
            sp->base = env->vals[i->k];
            sp->stride = 0;
            sp->uniform = true;
            sp++;
            break;
        case XA_SCALAR:
            if (!code_scalar(code, i->k, env, &sp->base)) {
                return false;
            }
            sp->stride = 0;
            sp->uniform = true;
            sp++;
            break;
        case XA_VAR:
            if (!affine_var(env->vals + i->k, sp)) {
                return false;
            }
            sp++;
            break;
        case XA_TID:
            if (!affine_tid(i->node, env, sp)) {
                return false;
            }
            sp++;
            break;
        case XA_LANE:
            sp->base = 0;
            sp->stride = 1;
            sp->uniform = false;
            sp++;
            break;
        case XA_UNARY:
            if (!affine_unary(i->op, sp[-1], &sp[-1])) {
                return false;
            }
            break;
        case XA_BINARY:
            sp--;
            if (!affine_binary(i->op, sp[-1], sp[0], &sp[-1])) {
                return false;
            }
            break;
        case XA_BINARY_K: {
            SimAffine k = { i->k, 0, true };
            if (!affine_binary(i->op, sp[-1], k, &sp[-1])) {
                return false;
            }
            break;
        }
        case XA_ANDOR:
            if (!sp[-1].uniform) {
                return false;
            }
            if ((sp[-1].base != 0) != (i->op == TK_ANDAND)) {
                sp[-1].base = sp[-1].base != 0;
                sp[-1].stride = 0;
                i = code + i->k - 1;
            } else {
                sp--;
            }
            break;
        case XA_BOOL:
            if (!sp[-1].uniform) {
                return false;
            }
            sp[-1].base = sp[-1].base != 0;
            sp[-1].stride = 0;
            break;
        case XA_JZ:
            sp--;
            if (sp[0].stride != 0) {
                return false;
            }
            if (sp[0].base == 0) {
                i = code + i->k - 1;
            }
            break;
        case XA_JMP:
            i = code + i->k - 1;
            break;
        case XA_END:
            *out = sp[-1];
            return true;
        default:
            /* XA_FAIL (the scalar instructions never appear here). */
            return false;
        }
    }
}

/* A program under construction. */
typedef struct {
    GArray *insn;          /* SimInsn */
    int depth;             /* the stack's depth at the end of insn */
    int max_depth;         /* the deepest it gets, any subprogram's included */
    GArray *subs;          /* XA_SCALAR instructions awaiting their subprogram:
                            * (instruction index, node) as SimInsn k, node */
    int32_t landed;        /* the latest jump target set (code_land), or -1:
                            * an instruction there may not be folded into the
                            * one before it */
} CodeBuilder;

static int32_t code_emit(CodeBuilder *b, SimInsnCode code, int32_t op, int64_t k, const ExprNode *node, int push)
{
    SimInsn i = { (int32_t) code, op, 0, k, node };
    g_array_append_val(b->insn, i);
    b->depth += push;
    b->max_depth = MAX(b->max_depth, b->depth);
    return (int32_t) b->insn->len - 1;
}

/* Sets the target of the jump at index at to the next instruction. */
static void code_land(CodeBuilder *b, int32_t at)
{
    g_array_index(b->insn, SimInsn, at).k = b->insn->len;
    b->landed = (int32_t) b->insn->len;
}

/* x op k is x, and never fails: x + 0, x - 0, x * 1 (nothing to emit). */
static inline bool scalar_identity(int op, int64_t k)
{
    return ((op == '+' || op == '-') && k == 0) || (op == '*' && k == 1);
}

/* Folds a multiply of the top by k into the instruction before, when that
 * multiplies by a constant too ((x * k1) * k -> x * (k1 * k)) and no jump
 * lands between them.  The exact product is the same, and so is whether it
 * fails: where x * k1 overflows, |x * k1 * k| >= |x * k1| exceeds the range
 * too unless k is -1 (2^63 * -1 is INT64_MIN) or 0, which are left as they
 * are, as is a k1 * k that overflows.  Returns whether it folded. */
static bool code_fold_mul(CodeBuilder *b, int64_t k)
{
    guint n = b->insn->len;
    if (k == 0 || k == -1 || n == 0 || b->landed == (int32_t) n) {
        return false;
    }
    SimInsn *last = &g_array_index(b->insn, SimInsn, n - 1);
    int64_t product;
    if (!(last->code == XS_MUL_K || (last->code == XS_VAR_BINARY_K && last->op == '*')) ||
        __builtin_mul_overflow(last->k, k, &product)) {
        return false;
    }
    last->k = product;
    return true;
}

/* A constant or a uniform variable: an operand an instruction can name. */
static inline bool is_operand(const ExprNode *n)
{
    return n->kind == EN_CONST || (n->kind == EN_VAR && !n->varying);
}

/* Scalar code of n, as scalar_eval walks it. */
static void emit_scalar(CodeBuilder *b, const ExprNode *n)
{
    switch ((ExprNodeKind) n->kind) {
    case EN_CONST:
        code_emit(b, XS_CONST, 0, n->value, NULL, 1);
        return;
    case EN_VAR:
        code_emit(b, n->varying ? XS_FAIL : XS_VAR, 0, n->var, NULL, 1);
        return;
    case EN_TID:
    case EN_LANE:
        code_emit(b, XS_FAIL, 0, 0, NULL, 1);
        return;
    case EN_WARP:
        code_emit(b, XS_WARP, 0, 0, NULL, 1);
        return;
    case EN_BLOCK_ID:
        code_emit(b, XS_BLOCK, 0, 0, n, 1);
        return;
    case EN_UNARY:
        emit_scalar(b, n->a);
        code_emit(b, XS_UNARY, n->op, 0, NULL, 0);
        return;
    case EN_BINARY: {
        if (n->op == TK_ANDAND || n->op == TK_OROR) {
            emit_scalar(b, n->a);
            int32_t jump = code_emit(b, XS_ANDOR, n->op, 0, NULL, -1);
            emit_scalar(b, n->b);
            code_emit(b, XS_BOOL, 0, 0, NULL, 0);
            code_land(b, jump);
            return;
        }
        const ExprNode *l = n->a, *r = n->b;
        if ((n->op == '+' || n->op == '*') && is_operand(l) &&
            (!is_operand(r) || (l->kind == EN_CONST && r->kind == EN_VAR))) {
            /* K + e, v * e, and K + v, K * v: the operands swapped, to
             * take the forms below (v op K one instruction).  The same
             * value and the same overflow (the exact sum or product does
             * not depend on the order), and the constant or variable
             * cannot fail where e does not. */
            l = n->b;
            r = n->a;
        }
        if (l->kind == EN_VAR && !l->varying && r->kind == EN_CONST) {
            /* v op K (a counter against its bound, a counter plus one):
             * one instruction. */
            int32_t at = code_emit(b, XS_VAR_BINARY_K, n->op, r->value, NULL, 1);
            g_array_index(b->insn, SimInsn, at).var = l->var;
            return;
        }
        emit_scalar(b, l);
        /* A constant or uniform variable on the right (an index times an
         * element size): one instruction instead of a push and an
         * operation, the same operands. */
        int family = n->op == '+' ? 0 : n->op == '-' ? 1 : n->op == '*' ? 2 : 3;
        if (r->kind == EN_CONST) {
            /* Nothing for x + 0 (an offset of zero), and x * k1 * k2 as
             * one multiply (an index times a row, times an element). */
            if (!scalar_identity(n->op, r->value) && !(n->op == '*' && code_fold_mul(b, r->value))) {
                code_emit(b, (SimInsnCode) (XS_ADD_K + family), n->op, r->value, NULL, 0);
            }
        } else if (r->kind == EN_VAR && !r->varying) {
            code_emit(b, (SimInsnCode) (XS_ADD_V + family), n->op, r->var, NULL, 0);
        } else {
            emit_scalar(b, r);
            code_emit(b, (SimInsnCode) (XS_ADD + family), n->op, 0, NULL, -1);
        }
        return;
    }
    case EN_TERNARY: {
        emit_scalar(b, n->a);
        int32_t to_else = code_emit(b, XS_JZ, 0, 0, NULL, -1);
        emit_scalar(b, n->b);
        int32_t to_end = code_emit(b, XS_JMP, 0, 0, NULL, 0);
        b->depth--;
        code_land(b, to_else);
        emit_scalar(b, n->c);
        code_land(b, to_end);
        return;
    }
    }
    g_assert_not_reached();
}

/* Affine code of n, as affine_eval walks it. */
static void emit_affine(CodeBuilder *b, const ExprNode *n)
{
    if (!n->varying) {
        if (n->kind == EN_CONST) {
            code_emit(b, XA_CONST, 0, n->value, NULL, 1);
        } else if (n->kind == EN_VAR) {
            code_emit(b, XA_UVAR, 0, n->var, NULL, 1);
        } else {
            int32_t at = code_emit(b, XA_SCALAR, 0, 0, NULL, 1);
            SimInsn sub = { 0, 0, 0, at, n };
            g_array_append_val(b->subs, sub);
        }
        return;
    }
    switch ((ExprNodeKind) n->kind) {
    case EN_CONST:
    case EN_WARP:
    case EN_BLOCK_ID:
        code_emit(b, XA_FAIL, 0, 0, NULL, 1);
        return;
    case EN_VAR:
        code_emit(b, XA_VAR, 0, n->var, NULL, 1);
        return;
    case EN_TID:
        code_emit(b, XA_TID, 0, 0, n, 1);
        return;
    case EN_LANE:
        code_emit(b, XA_LANE, 0, 0, NULL, 1);
        return;
    case EN_UNARY:
        emit_affine(b, n->a);
        code_emit(b, XA_UNARY, n->op, 0, NULL, 0);
        return;
    case EN_BINARY: {
        emit_affine(b, n->a);
        if (n->op == TK_ANDAND || n->op == TK_OROR) {
            int32_t jump = code_emit(b, XA_ANDOR, n->op, 0, NULL, -1);
            emit_affine(b, n->b);
            code_emit(b, XA_BOOL, 0, 0, NULL, 0);
            code_land(b, jump);
            return;
        }
        if (n->b->kind == EN_CONST) {
            /* An element size, a row length: affine_eval's operand
             * (k, 0, uniform) in the instruction. */
            code_emit(b, XA_BINARY_K, n->op, n->b->value, NULL, 0);
        } else {
            emit_affine(b, n->b);
            code_emit(b, XA_BINARY, n->op, 0, NULL, -1);
        }
        return;
    }
    case EN_TERNARY: {
        emit_affine(b, n->a);
        int32_t to_else = code_emit(b, XA_JZ, 0, 0, NULL, -1);
        emit_affine(b, n->b);
        int32_t to_end = code_emit(b, XA_JMP, 0, 0, NULL, 0);
        b->depth--;
        code_land(b, to_else);
        emit_affine(b, n->c);
        code_land(b, to_end);
        return;
    }
    }
    g_assert_not_reached();
}

SimExprCode *sim_expr_compile(const ExprNode *n)
{
    CodeBuilder b = { g_array_new(FALSE, FALSE, sizeof(SimInsn)), 0, 0, g_array_new(FALSE, FALSE, sizeof(SimInsn)),
                      -1 };
    if (!n->varying) {
        emit_scalar(&b, n);
        code_emit(&b, XS_END, 0, 0, NULL, 0);
    } else {
        emit_affine(&b, n);
        code_emit(&b, XA_END, 0, 0, NULL, 0);
        /* Each uniform subtree's scalar code, on a stack of its own. */
        for (guint s = 0; s < b.subs->len; s++) {
            const SimInsn *sub = &g_array_index(b.subs, SimInsn, s);
            code_land(&b, (int32_t) sub->k);
            b.depth = 0;
            emit_scalar(&b, sub->node);
            code_emit(&b, XS_END, 0, 0, NULL, 0);
        }
    }
    SimExprCode *code = NULL;
    if (b.max_depth <= SIM_CODE_DEPTH) {
        code = g_malloc(sizeof *code + b.insn->len * sizeof(SimInsn));
        code->len = (int32_t) b.insn->len;
        memcpy(code->insn, b.insn->data, b.insn->len * sizeof(SimInsn));
        const SimInsn *i = code->insn;
        code->scaled_lane = n->varying && code->len >= 5 && i[0].code == XA_SCALAR && i[1].code == XA_TID &&
                            i[2].code == XA_BINARY_K && i[3].code == XA_BINARY && i[4].code == XA_END;
        code->straight = (int8_t) (!n->varying ? code_straight_len(i)
                                   : code->scaled_lane ? code_straight_len(i + i[0].k) : -1);
        code->test = !n->varying && code->len == 7 && code_test_form(i);
    }
    g_array_free(b.insn, TRUE);
    g_array_free(b.subs, TRUE);
    return code;
}

/* scalar_operand of a root (!n->varying): its flat form where it has one. */
static inline bool root_scalar(const ExprNode *n, const SimEvalEnv *env, int64_t *out)
{
    if (n->kind == EN_CONST) {
        *out = n->value;
        return true;
    }
    if (n->kind == EN_VAR) {
        *out = env->vals[n->var];
        return true;
    }
    if (n->code != NULL) {
        /* v op K (a loop's test, a counter plus one), and that times or
         * plus constants (an index's offset): without the loop. */
        const SimInsn *i = n->code->insn;
        if (n->code->straight == 0) {
            return scalar_binary(i->op, env->vals[i->var], i->k, out);
        }
        if (n->code->straight > 0) {
            return code_straight(i, n->code->straight, env, out);
        }
        if (n->code->test) {
            return code_test(i, env, out);
        }
        return code_scalar(i, 0, env, out);
    }
    return scalar_eval(n, env, out);
}

/* affine_eval of a root: its flat form where it has one. */
static inline bool root_affine(const ExprNode *n, const SimEvalEnv *env, SimAffine *out)
{
    if (!n->varying) {
        out->stride = 0;
        out->uniform = true;
        return root_scalar(n, env, &out->base);
    }
    if (n->code != NULL && n->code->scaled_lane) {
        /* code_affine's steps for its five instructions, in order, without
         * its loop: the uniform part (its scalar code; a straight one without
         * that loop either, as root_scalar), the lane part, times K, and their
         * sum (or whatever the two operators are). */
        const SimInsn *i = n->code->insn;
        SimAffine u = { 0, 0, true }, lane, k = { i[2].k, 0, true };
        const SimInsn *sub = i + i[0].k;
        if (n->code->straight == 0 ? !scalar_binary(sub->op, env->vals[sub->var], sub->k, &u.base)
            : n->code->straight > 0 ? !code_straight(sub, n->code->straight, env, &u.base)
                                    : !code_scalar(i, i[0].k, env, &u.base)) {
            return false;
        }
        return affine_tid(i[1].node, env, &lane) && affine_binary(i[2].op, lane, k, &lane) &&
               affine_binary(i[3].op, u, lane, out);
    }
    if (n->code != NULL) {
        return code_affine(n->code->insn, env, out);
    }
    return affine_eval(n, env, out);
}

/* The lane-by-lane evaluator (see sim_eval). */
static SimArithStatus eval_lanes(const ExprNode *n, const SimEvalEnv *env, LaneMask mask,
                                 SimLaneValue *out, const ExprNode **bad_node, int *bad_lane)
{
    SimArithStatus st = SIM_ARITH_OK;
    switch ((ExprNodeKind) n->kind) {
    case EN_CONST:
        out->uniform = true;
        out->s = n->value;
        return SIM_ARITH_OK;
    case EN_VAR:
        /* n->var is the variable's first slot; a varying one has 32. */
        if (!n->varying) {
            out->uniform = true;
            out->s = env->vals[n->var];
        } else {
            out->uniform = false;
            memcpy(out->v, env->vals + n->var, sizeof out->v);
        }
        return SIM_ARITH_OK;
    case EN_TID:
        out->uniform = false;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            out->v[l] = program_index_value(n, env->tid0 + l);
        }
        return SIM_ARITH_OK;
    case EN_LANE:
        out->uniform = false;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            out->v[l] = l;
        }
        return SIM_ARITH_OK;
    case EN_WARP:
        out->uniform = true;
        out->s = env->warp;
        return SIM_ARITH_OK;
    case EN_BLOCK_ID:
        out->uniform = true;
        out->s = program_index_value(n, env->block_id);
        return SIM_ARITH_OK;
    case EN_UNARY: {
        st = eval_lanes(n->a, env, mask, out, bad_node, bad_lane);
        if (st != SIM_ARITH_OK) {
            return st;
        }
        if (out->uniform) {
            st = sim_arith_unary(n->op, out->s, &out->s);
            if (st != SIM_ARITH_OK) {
                *bad_node = n;
                *bad_lane = lowest_lane(mask);
            }
            return st;
        }
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (mask & (1u << l)) {
                st = sim_arith_unary(n->op, out->v[l], &out->v[l]);
                if (st != SIM_ARITH_OK) {
                    *bad_node = n;
                    *bad_lane = l;
                    return st;
                }
            }
        }
        return SIM_ARITH_OK;
    }
    case EN_BINARY: {
        SimLaneValue rhs;
        st = eval_lanes(n->a, env, mask, out, bad_node, bad_lane);
        if (st != SIM_ARITH_OK) {
            return st;
        }
        LaneMask rmask = mask;
        if (n->op == TK_ANDAND || n->op == TK_OROR) {
            /* Short-circuit: the right side runs only where it decides
             * (everywhere or nowhere when the left side is uniform). */
            rmask = 0;
            if (out->uniform) {
                rmask = (out->s != 0) == (n->op == TK_ANDAND) ? mask : 0;
            }
            for (int l = 0; !out->uniform && l < SIM_WARP_SIZE; l++) {
                if (mask & (1u << l)) {
                    bool lhs = sim_lane_value(out, l) != 0;
                    if (lhs == (n->op == TK_ANDAND)) {
                        rmask |= 1u << l;
                    }
                }
            }
            if (rmask == 0) {
                if (out->uniform) {
                    out->s = out->s != 0;
                } else {
                    for (int l = 0; l < SIM_WARP_SIZE; l++) {
                        out->v[l] = out->v[l] != 0;
                    }
                }
                return SIM_ARITH_OK;
            }
        }
        st = eval_lanes(n->b, env, rmask, &rhs, bad_node, bad_lane);
        if (st != SIM_ARITH_OK) {
            return st;
        }
        if (out->uniform && rhs.uniform) {
            st = sim_arith_binary(n->op, out->s, rhs.s, &out->s);
            if (st != SIM_ARITH_OK) {
                *bad_node = n;
                *bad_lane = lowest_lane(mask);
            }
            return st;
        }
        if (out->uniform) {
            int64_t s = out->s;
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                out->v[l] = s;
            }
            out->uniform = false;
        }
        if (n->op != TK_ANDAND && n->op != TK_OROR) {
            st = lanes_binary(n->op, out->v, &rhs, mask, bad_lane);
            if (st != SIM_ARITH_OK) {
                *bad_node = n;
            }
            return st;
        }
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (!(mask & (1u << l))) {
                continue;
            }
            int64_t b = sim_lane_value(&rhs, l);
            if (!(rmask & (1u << l))) {
                out->v[l] = out->v[l] != 0;
                continue;
            }
            st = sim_arith_binary(n->op, out->v[l], b, &out->v[l]);
            if (st != SIM_ARITH_OK) {
                *bad_node = n;
                *bad_lane = l;
                return st;
            }
        }
        return SIM_ARITH_OK;
    }
    case EN_TERNARY: {
        SimLaneValue cond, other;
        st = eval_lanes(n->a, env, mask, &cond, bad_node, bad_lane);
        if (st != SIM_ARITH_OK) {
            return st;
        }
        if (cond.uniform) {
            return eval_lanes(cond.s ? n->b : n->c, env, mask, out, bad_node, bad_lane);
        }
        LaneMask tmask = 0;
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if ((mask & (1u << l)) && cond.v[l]) {
                tmask |= 1u << l;
            }
        }
        LaneMask fmask = mask & ~tmask;
        if (fmask == 0) {
            return eval_lanes(n->b, env, tmask, out, bad_node, bad_lane);
        }
        if (tmask == 0) {
            return eval_lanes(n->c, env, fmask, out, bad_node, bad_lane);
        }
        st = eval_lanes(n->b, env, tmask, out, bad_node, bad_lane);
        if (st == SIM_ARITH_OK) {
            st = eval_lanes(n->c, env, fmask, &other, bad_node, bad_lane);
        }
        if (st != SIM_ARITH_OK) {
            return st;
        }
        if (out->uniform) {
            int64_t s = out->s;
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                out->v[l] = s;
            }
            out->uniform = false;
        }
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (fmask & (1u << l)) {
                out->v[l] = sim_lane_value(&other, l);
            }
        }
        return SIM_ARITH_OK;
    }
    }
    g_assert_not_reached();
}

bool sim_eval_affine(const ExprNode *n, const SimEvalEnv *env, int64_t *base, int64_t *stride)
{
    /* sim_eval's closed form for a full mask (a uniform node's one number
     * is scalar_eval's, as on sim_eval's uniform path). */
    SimAffine a;
    if (!root_affine(n, env, &a)) {
        return false;
    }
    *base = a.base;
    *stride = a.stride;
    return true;
}

bool sim_eval_uniform_node(const ExprNode *n, const SimEvalEnv *env, int64_t *out)
{
    return !n->varying && root_scalar(n, env, out);
}

/* A converged warp's expression that is affine in the lane (an address
 * base + thread index x element size, a loop counter, a constant) is
 * computed in closed form, without a pass over the lanes per node; anything
 * else, and any expression where some lane's arithmetic may fail, goes
 * lane by lane.  A partial warp takes the closed form only for a uniform
 * result: a varying one's inactive lanes would differ from what the
 * lane-by-lane evaluator leaves there. */
SimArithStatus sim_eval(const ExprNode *n, const SimEvalEnv *env, LaneMask mask,
                        SimLaneValue *out, const ExprNode **bad_node, int *bad_lane)
{
    SimAffine a;
    if (mask != 0 && !n->varying) {
        /* The commonest case, a uniform expression: what affine_eval
         * would give, without its frame. */
        if (root_scalar(n, env, &out->s)) {
            out->uniform = true;
            return SIM_ARITH_OK;
        }
        return eval_lanes(n, env, mask, out, bad_node, bad_lane);
    }
    if (mask != 0 && root_affine(n, env, &a) && (a.uniform || mask == 0xffffffffu)) {
        out->uniform = a.uniform;
        out->s = a.base;
        if (!a.uniform) {
            for (int l = 0; l < SIM_WARP_SIZE; l++) {
                out->v[l] = a.base + l * a.stride;
            }
        }
        return SIM_ARITH_OK;
    }
    return eval_lanes(n, env, mask, out, bad_node, bad_lane);
}
