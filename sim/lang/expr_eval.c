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
        /* The commonest operators without a call (sim_arith_binary's
         * checks; a failure falls back as any other). */
        switch (n->op) {
        case '+':
            return !__builtin_add_overflow(a, b, out);
        case '-':
            return !__builtin_sub_overflow(a, b, out);
        case '*':
            return !__builtin_mul_overflow(a, b, out);
        default:
            return sim_arith_binary(n->op, a, b, out) == SIM_ARITH_OK;
        }
    case EN_TERNARY:
        return scalar_operand(n->a, env, &a) && scalar_operand(a ? n->b : n->c, env, out);
    }
    g_assert_not_reached();
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
    case EN_VAR: {
        const int64_t *v = env->vals + n->var;
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
    case EN_TID: {
        int64_t first = env->tid0;
        int64_t last = env->tid0 + SIM_WARP_SIZE - 1;
        if (n->value == 0) {
            return affine_make(first, 1, false, out);
        }
        /* (linear / op) % var: one value for the warp when the quotient
         * does not change across it, consecutive ones when op is 1 and the
         * remainder does not wrap. */
        if (first >= 0 && first / n->op == last / n->op) {
            return affine_make(program_index_value(n, first), 0, false, out);
        }
        if (first >= 0 && n->op == 1 && first % n->var + SIM_WARP_SIZE - 1 < n->var) {
            return affine_make(program_index_value(n, first), 1, false, out);
        }
        return false;
    }
    case EN_LANE:
        return affine_make(0, 1, false, out);
    case EN_UNARY: {
        SimAffine a;
        if (!affine_eval(n->a, env, &a)) {
            return false;
        }
        if (a.uniform) {
            int64_t r;
            return sim_arith_unary(n->op, a.base, &r) == SIM_ARITH_OK && affine_make(r, 0, true, out);
        }
        if (n->op == '-') {
            /* -v fails only for INT64_MIN, which can only be an end lane. */
            int64_t last = a.base + (SIM_WARP_SIZE - 1) * a.stride;
            return a.base != INT64_MIN && last != INT64_MIN && affine_make(-a.base, -a.stride, false, out);
        }
        if (a.stride == 0) {
            int64_t r;
            return sim_arith_unary(n->op, a.base, &r) == SIM_ARITH_OK && affine_make(r, 0, false, out);
        }
        return false;
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
        if (!affine_eval(n->b, env, &b)) {
            return false;
        }
        bool uniform = a.uniform && b.uniform;
        int64_t base, stride;
        switch (n->op) {
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
            return sim_arith_binary(n->op, a.base, b.base, &base) == SIM_ARITH_OK &&
                   affine_make(base, 0, uniform, out);
        }
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
    if (!affine_eval(n, env, &a)) {
        return false;
    }
    *base = a.base;
    *stride = a.stride;
    return true;
}

bool sim_eval_uniform(const ExprNode *n, const SimEvalEnv *env, int64_t *out)
{
    return !n->varying && scalar_operand(n, env, out);
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
        if (scalar_operand(n, env, &out->s)) {
            out->uniform = true;
            return SIM_ARITH_OK;
        }
        return eval_lanes(n, env, mask, out, bad_node, bad_lane);
    }
    if (mask != 0 && affine_eval(n, env, &a) && (a.uniform || mask == 0xffffffffu)) {
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
