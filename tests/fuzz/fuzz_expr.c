/* fuzz_expr.c: libFuzzer harness of the expression compiler and the
 * lane-parallel evaluator (sim/lang/expr_eval.c).
 *
 * Input: 16 bytes of evaluation context (active lanes, warp, block, a seed
 * for the variables' values), then one line of trace-language expression,
 * compiled as `var r = EXPR` in a small program that declares parameters,
 * functions, a buffer and uniform and varying variables.
 *
 * Properties checked: the compiled tree is well formed (a node that is not
 * `varying` has no varying operand); the evaluator agrees with a plain
 * one-lane reference evaluator written here, lane by lane, in value and in
 * error: with all lanes active it succeeds exactly when every active lane
 * does, and the lane it blames fails in the reference with the same error;
 * with one lane active it gives the reference's result; a uniform tree gives
 * every lane the same result; checked arithmetic agrees with 128-bit
 * arithmetic. */
#include "fuzz_common.h"

#include "sim/lang/expr_eval.h"
#include "sim/lang/parser.h"

static const char prelude[] =
    "smpipe 1\n"
    "block 1024\n"
    "param P = 7\n"
    "param N = -3\n"
    "param BIG = 9223372036854775807\n"
    "def f(a) = a * 2 + 1\n"
    "def g(a, b) = a < b ? a : b\n"
    "shared int buf[64]\n"
    "var u = warp_id\n"
    "var v = threadIdx.x\n"
    "var w = lane_id - 16\n"
    "var p = buf + 1\n"
    "var r = ";

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A variable value: mostly small, sometimes at the edges of int64. */
static int64_t some_value(uint64_t *seed)
{
    uint64_t r = splitmix(seed);
    static const int64_t edges[] = { 0, 1, -1, 2, 31, 32, 63, 64, INT64_MAX, INT64_MIN, INT64_MAX - 1,
                                     INT64_MIN + 1, INT32_MAX, INT32_MIN, 1 << 20 };
    switch (r % 4) {
    case 0:
        return edges[(r >> 8) % G_N_ELEMENTS(edges)];
    case 1:
        return (int64_t) (r >> 2);
    default:
        return (int64_t) ((r >> 8) % 200) - 100;
    }
}

static void check_arith(int op, int64_t a, int64_t b, SimArithStatus st, int64_t r)
{
    __int128 x = a, y = b, z = 0;
    bool exact = true;
    switch (op) {
    case '+': z = x + y; break;
    case '-': z = x - y; break;
    case '*': z = x * y; break;
    case '/':
    case '%':
        if (b == 0) {
            FUZZ_CHECK(st == SIM_ARITH_DIV_ZERO, "%lld / 0", (long long) a);
            return;
        }
        z = op == '/' ? x / y : x % y;
        break;
    default:
        exact = false;
        break;
    }
    if (exact) {
        bool fits = z >= INT64_MIN && z <= INT64_MAX;
        FUZZ_CHECK(fits ? st == SIM_ARITH_OK && r == (int64_t) z : st == SIM_ARITH_OVERFLOW,
                   "%lld %c %lld: status %d, result %lld", (long long) a, op, (long long) b, st, (long long) r);
    }
}

/* One lane, recursively, as the language defines it. */
static SimArithStatus ref_eval(const ExprNode *n, const SimEvalEnv *env, int lane, int64_t *out)
{
    int64_t a = 0, b = 0;
    SimArithStatus st;
    switch ((ExprNodeKind) n->kind) {
    case EN_CONST:
        *out = n->value;
        return SIM_ARITH_OK;
    case EN_VAR:
        *out = env->vals[n->var + (n->varying ? lane : 0)];
        return SIM_ARITH_OK;
    case EN_TID:
        *out = program_index_value(n, env->tid0 + lane);
        return SIM_ARITH_OK;
    case EN_LANE:
        *out = lane;
        return SIM_ARITH_OK;
    case EN_WARP:
        *out = env->warp;
        return SIM_ARITH_OK;
    case EN_BLOCK_ID:
        *out = program_index_value(n, env->block_id);
        return SIM_ARITH_OK;
    case EN_UNARY:
        st = ref_eval(n->a, env, lane, &a);
        return st != SIM_ARITH_OK ? st : sim_arith_unary(n->op, a, out);
    case EN_BINARY:
        st = ref_eval(n->a, env, lane, &a);
        if (st != SIM_ARITH_OK) {
            return st;
        }
        if ((n->op == TK_ANDAND && a == 0) || (n->op == TK_OROR && a != 0)) {
            *out = a != 0;
            return SIM_ARITH_OK;
        }
        st = ref_eval(n->b, env, lane, &b);
        if (st != SIM_ARITH_OK) {
            return st;
        }
        st = sim_arith_binary(n->op, a, b, out);
        check_arith(n->op, a, b, st, *out);
        return st;
    case EN_TERNARY:
        st = ref_eval(n->a, env, lane, &a);
        return st != SIM_ARITH_OK ? st : ref_eval(a ? n->b : n->c, env, lane, out);
    }
    FUZZ_CHECK(false, "node kind %d", n->kind);
    return SIM_ARITH_OK;
}

static void check_tree(const ExprNode *n, int depth)
{
    FUZZ_CHECK(depth < 10000, "expression tree too deep");
    FUZZ_CHECK(n->kind <= EN_TERNARY, "node kind %d", n->kind);
    if (n->kind == EN_TID || n->kind == EN_LANE) {
        FUZZ_CHECK(n->varying, "a lane index that is not varying");
    }
    const ExprNode *kids[3] = { n->a, n->b, n->c };
    for (int i = 0; i < 3; i++) {
        if (kids[i] != NULL) {
            FUZZ_CHECK(n->varying || !kids[i]->varying, "a uniform node with a varying operand");
            check_tree(kids[i], depth + 1);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 16 || size > 4096) {
        return 0;
    }
    LaneMask mask = (LaneMask) data[0] | (LaneMask) data[1] << 8 | (LaneMask) data[2] << 16 |
                    (LaneMask) data[3] << 24;
    if (mask == 0) {
        mask = 1;
    }
    int64_t warp = data[4] % 32;
    int64_t block = data[5] % 2;
    uint64_t seed = 0;
    memcpy(&seed, data + 8, sizeof seed);
    const char *expr = (const char *) data + 16;
    size_t len = size - 16;
    const char *nl = memchr(expr, '\n', len);
    if (nl != NULL) {
        len = (size_t) (nl - expr);
    }
    g_autoptr(GString) text = g_string_new(prelude);
    g_string_append_len(text, expr, (gssize) len);
    g_string_append_c(text, '\n');

    GError *err = NULL;
    g_autoptr(Trace) t = trace_parse_string("fuzz.trace", text->str, text->len, &err);
    if (t == NULL) {
        fuzz_check_error(err);
        g_error_free(err);
        return 0;
    }
    g_autoptr(Program) prog = program_new(t, NULL, 2, &err);
    if (prog == NULL) {
        fuzz_check_error(err);
        g_error_free(err);
        return 0;
    }
    FUZZ_CHECK(prog->ops->len >= 2, "no operations");
    const Op *op = &g_array_index(prog->ops, Op, prog->ops->len - 2);
    const ProgVar *rv = &g_array_index(prog->vars, ProgVar, prog->vars->len - 1);
    if (op->code != OP_ASSIGN || strcmp(rv->name, "r") != 0 || op->e[0] == NULL) {
        return 0; /* an operation such as load(p), not a pure expression */
    }
    const ExprNode *root = op->e[0];
    check_tree(root, 0);

    int64_t *vals = g_new0(int64_t, MAX(prog->value_slots, 1));
    for (int32_t i = 0; i < prog->value_slots; i++) {
        vals[i] = some_value(&seed);
    }
    /* Uniform variables hold one value for the warp by construction. */
    SimEvalEnv env = { vals, warp * SIM_WARP_SIZE, warp, block };

    SimArithStatus ref_st[SIM_WARP_SIZE];
    int64_t ref_v[SIM_WARP_SIZE];
    bool all_ok = true;
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        ref_v[l] = 0;
        ref_st[l] = ref_eval(root, &env, l, &ref_v[l]);
        if ((mask & (1u << l)) && ref_st[l] != SIM_ARITH_OK) {
            all_ok = false;
        }
        if (!root->varying && l > 0) {
            FUZZ_CHECK(ref_st[l] == ref_st[0] && (ref_st[l] != SIM_ARITH_OK || ref_v[l] == ref_v[0]),
                       "a uniform expression differs between lanes 0 and %d", l);
        }
    }

    SimLaneValue full;
    const ExprNode *bad = NULL;
    int bad_lane = -1;
    SimArithStatus st = sim_eval(root, &env, mask, &full, &bad, &bad_lane);
    FUZZ_CHECK((st == SIM_ARITH_OK) == all_ok, "all lanes: status %d, the reference %s", st,
               all_ok ? "succeeds" : "fails");
    if (st == SIM_ARITH_OK) {
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            if (mask & (1u << l)) {
                FUZZ_CHECK(sim_lane_value(&full, l) == ref_v[l], "lane %d: %lld, the reference %lld", l,
                           (long long) sim_lane_value(&full, l), (long long) ref_v[l]);
            }
        }
    } else {
        FUZZ_CHECK(bad != NULL && bad_lane >= 0 && bad_lane < SIM_WARP_SIZE && (mask & (1u << bad_lane)),
                   "the failure names no active lane (%d)", bad_lane);
        FUZZ_CHECK(ref_st[bad_lane] == st, "lane %d blamed for status %d; the reference gives %d", bad_lane, st,
                   ref_st[bad_lane]);
    }
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        if (!(mask & (1u << l))) {
            continue;
        }
        SimLaneValue one;
        st = sim_eval(root, &env, 1u << l, &one, &bad, &bad_lane);
        FUZZ_CHECK(st == ref_st[l], "lane %d alone: status %d, the reference %d", l, st, ref_st[l]);
        if (st == SIM_ARITH_OK) {
            FUZZ_CHECK(sim_lane_value(&one, l) == ref_v[l], "lane %d alone: %lld, the reference %lld", l,
                       (long long) sim_lane_value(&one, l), (long long) ref_v[l]);
        } else {
            FUZZ_CHECK(bad_lane == l, "lane %d alone, but lane %d blamed", l, bad_lane);
        }
    }
    g_free(vals);
    return 0;
}
