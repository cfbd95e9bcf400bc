/* test_expr.c: checked arithmetic and lane-parallel evaluation. */
#include "test_util.h"

#include "sim/lang/expr_eval.h"
#include "sim/lang/parser.h"

START_TEST(arithmetic_is_checked)
{
    int64_t r;
    ck_assert_int_eq(sim_arith_binary('+', INT64_MAX, 1, &r), SIM_ARITH_OVERFLOW);
    ck_assert_int_eq(sim_arith_binary('-', INT64_MIN, 1, &r), SIM_ARITH_OVERFLOW);
    ck_assert_int_eq(sim_arith_binary('*', INT64_C(1) << 40, INT64_C(1) << 40, &r), SIM_ARITH_OVERFLOW);
    ck_assert_int_eq(sim_arith_binary('/', 1, 0, &r), SIM_ARITH_DIV_ZERO);
    ck_assert_int_eq(sim_arith_binary('%', 1, 0, &r), SIM_ARITH_DIV_ZERO);
    ck_assert_int_eq(sim_arith_binary('/', INT64_MIN, -1, &r), SIM_ARITH_OVERFLOW);
    ck_assert_int_eq(sim_arith_binary(TK_SHL, 1, 64, &r), SIM_ARITH_SHIFT);
    ck_assert_int_eq(sim_arith_binary(TK_SHL, INT64_C(1) << 62, 1, &r), SIM_ARITH_OVERFLOW);
    ck_assert_int_eq(sim_arith_unary('-', INT64_MIN, &r), SIM_ARITH_OVERFLOW);
    ck_assert_int_eq(sim_arith_binary('%', -7, 3, &r), SIM_ARITH_OK);
    ck_assert_int_eq(r, -1); /* C semantics */
    ck_assert_int_eq(sim_arith_binary(TK_SHR, -8, 1, &r), SIM_ARITH_OK);
    ck_assert_int_eq(r, -4);
}
END_TEST

/* Compiles `var v = EXPR` in a one-warp program and evaluates it; *bad_lane
 * is the lane an error names. */
static void eval_lanes_at(const char *expr, LaneMask mask, SimLaneValue *out, SimArithStatus *st, int *bad_lane)
{
    g_autofree char *text = g_strdup_printf("smpipe 1\nparam p = 5\nblock 32\nvar v = %s\n", expr);
    Trace *t = parse_ok(text);
    GError *err = NULL;
    Program *p = program_new(t, NULL, 1, &err);
    ck_assert_msg(p != NULL, "%s", err ? err->message : "");
    const Op *op = &g_array_index(p->ops, Op, 0);
    ck_assert_int_eq(op->code, OP_ASSIGN);
    int64_t vals[64] = { 0 };
    SimEvalEnv env = { vals, 0, 0, 0 };
    const ExprNode *bad = NULL;
    int lane = -1;
    *st = sim_eval(op->e[0], &env, mask, out, &bad, &lane);
    *bad_lane = lane;
    program_free(p);
    trace_free(t);
}

static void eval_lanes(const char *expr, LaneMask mask, SimLaneValue *out, SimArithStatus *st)
{
    int lane;
    eval_lanes_at(expr, mask, out, st, &lane);
}

START_TEST(lanes_and_constants)
{
    SimLaneValue v;
    SimArithStatus st;
    eval_lanes("p * 2 + 1", 0xffffffffu, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    ck_assert(v.uniform);
    ck_assert_int_eq(v.s, 11);
    eval_lanes("threadIdx.x * 3 + p", 0xffffffffu, &v, &st);
    ck_assert(!v.uniform);
    for (int l = 0; l < 32; l++) {
        ck_assert_int_eq(v.v[l], l * 3 + 5);
    }
    eval_lanes("threadIdx.x % 2 == 0 ? 100 : threadIdx.x", 0xffffffffu, &v, &st);
    ck_assert_int_eq(v.v[4], 100);
    ck_assert_int_eq(v.v[5], 5);
    eval_lanes("min(threadIdx.x, 7)", 0xffffffffu, &v, &st);
    ck_assert_int_eq(v.v[3], 3);
    ck_assert_int_eq(v.v[20], 7);
}
END_TEST

START_TEST(short_circuit_and_inactive_lanes)
{
    SimLaneValue v;
    SimArithStatus st;
    /* Lane 0 would divide by zero, but && does not evaluate it there. */
    eval_lanes("threadIdx.x != 0 && 100 / threadIdx.x > 10", 0xffffffffu, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    ck_assert_int_eq(v.v[0], 0);
    ck_assert_int_eq(v.v[5], 1);
    ck_assert_int_eq(v.v[20], 0);
    /* An inactive lane never raises an error. */
    eval_lanes("100 / threadIdx.x", 0xfffffffeu, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    eval_lanes("100 / threadIdx.x", 0xffffffffu, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_DIV_ZERO);
}
END_TEST

/* A uniform left side of && or || decides for every lane at once: the
 * right side runs everywhere or nowhere (p is 5). */
START_TEST(uniform_left_side_short_circuits_every_lane)
{
    SimLaneValue v;
    SimArithStatus st;
    eval_lanes("p == 5 || 100 / (threadIdx.x - 6) > 0", 0xffffffffu, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    ck_assert(v.uniform);
    ck_assert_int_eq(v.s, 1);
    eval_lanes("p != 5 && 100 / (threadIdx.x - 6) > 0", 0xffffffffu, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    ck_assert_int_eq(sim_lane_value(&v, 6), 0);
    eval_lanes("p == 5 && threadIdx.x > 3", 0x0000fff0u, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    ck_assert_int_eq(sim_lane_value(&v, 4), 1);
    ck_assert_int_eq(sim_lane_value(&v, 15), 1);
    eval_lanes("p == 5 && 100 / (threadIdx.x - 6) > 0", 0xffffffffu, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_DIV_ZERO);
}
END_TEST

/* An error in a varying operation names its first active lane that
 * fails, for each operator's own lane loop and for the generic one. */
START_TEST(lane_errors_name_the_first_failing_lane)
{
    static const struct {
        const char *expr;
        SimArithStatus st;
        int lane;              /* all lanes active */
        int lane_without_it;   /* that lane inactive */
    } cases[] = {
        { "threadIdx.x * 4611686018427387904", SIM_ARITH_OVERFLOW, 2, 3 },
        { "9223372036854775800 + threadIdx.x", SIM_ARITH_OVERFLOW, 8, 9 },
        { "-9223372036854775800 - threadIdx.x", SIM_ARITH_OVERFLOW, 9, 10 },
        { "100 / (threadIdx.x - 6)", SIM_ARITH_DIV_ZERO, 6, -1 },
        { "1 << (threadIdx.x + 50)", SIM_ARITH_SHIFT, 13, 14 },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        SimLaneValue v;
        SimArithStatus st;
        int lane;
        eval_lanes_at(cases[i].expr, 0xffffffffu, &v, &st, &lane);
        ck_assert_int_eq(st, cases[i].st);
        ck_assert_int_eq(lane, cases[i].lane);
        eval_lanes_at(cases[i].expr, ~(1u << cases[i].lane), &v, &st, &lane);
        if (cases[i].lane_without_it < 0) {
            ck_assert_int_eq(st, SIM_ARITH_OK);
        } else {
            ck_assert_int_eq(st, cases[i].st);
            ck_assert_int_eq(lane, cases[i].lane_without_it);
        }
    }
    /* Lanes below the failing one got their values. */
    SimLaneValue v;
    SimArithStatus st;
    eval_lanes("threadIdx.x * 3 - 9223372036854775800 * (threadIdx.x / 31)", 0x7fffffffu, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    ck_assert_int_eq(v.v[30], 90);
}
END_TEST

/* Evaluates the last statement's expression (`var v = ...`) of a program
 * for the lanes `mask` of a warp whose lane 0 is thread tid0, with variable
 * `a` (a varying one, if the program declares it) holding a_lanes; *bad_lane
 * is the lane an error names. */
static void eval_program_at(const char *text, int64_t tid0, const int64_t *a_lanes, LaneMask mask, SimLaneValue *out,
                            SimArithStatus *st, int *bad_lane)
{
    Trace *t = parse_ok(text);
    GError *err = NULL;
    Program *p = program_new(t, NULL, 1, &err);
    ck_assert_msg(p != NULL, "%s", err ? err->message : "");
    int64_t vals[256] = { 0 };
    for (guint i = 0; i < p->vars->len; i++) {
        const ProgVar *v = &g_array_index(p->vars, ProgVar, i);
        if (strcmp(v->name, "a") == 0 && a_lanes != NULL) {
            ck_assert(v->varying);
            memcpy(vals + v->slot, a_lanes, 32 * sizeof *a_lanes);
        }
    }
    const Op *op = &g_array_index(p->ops, Op, p->ops->len - 2);
    ck_assert_int_eq(op->code, OP_ASSIGN);
    SimEvalEnv env = { vals, tid0, tid0 / 32, 0 };
    const ExprNode *bad = NULL;
    *bad_lane = -1;
    *st = sim_eval(op->e[0], &env, mask, out, &bad, bad_lane);
    program_free(p);
    trace_free(t);
}

/* eval_program_at for a converged warp. */
static void eval_program(const char *text, int64_t tid0, const int64_t *a_lanes, SimLaneValue *out,
                         SimArithStatus *st)
{
    int lane;
    eval_program_at(text, tid0, a_lanes, 0xffffffffu, out, st, &lane);
}

/* A converged warp's expression that is affine in the lane is computed in
 * closed form; its values and uniformity are the lane-by-lane ones, and
 * anything not affine (a wrapping index, a varying variable whose lanes
 * are not evenly spaced) still gets each lane's value. */
START_TEST(affine_expressions_match_lane_by_lane)
{
    SimLaneValue v;
    SimArithStatus st;
    /* A 64 x 2 block: warp 1's threadIdx.x runs 32..63, its threadIdx.y is
     * 0 in every lane (varying, not uniform); warp 3's is 1. */
    const char *two_d = "smpipe 1\nblock 64, 2\nvar v = threadIdx.y == 1 ? threadIdx.x * 8 + threadIdx.y : -threadIdx.x\n";
    eval_program(two_d, 96, NULL, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    ck_assert(!v.uniform);
    for (int l = 0; l < 32; l++) {
        ck_assert_int_eq(v.v[l], (32 + l) * 8 + 1);
    }
    eval_program(two_d, 32, NULL, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    for (int l = 0; l < 32; l++) {
        ck_assert_int_eq(v.v[l], -(32 + l));
    }
    /* A 16 x 4 block: threadIdx.x wraps within a warp, threadIdx.y steps. */
    eval_program("smpipe 1\nblock 16, 4\nvar v = threadIdx.y * 100 + threadIdx.x\n", 32, NULL, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    for (int l = 0; l < 32; l++) {
        ck_assert_int_eq(v.v[l], (2 + l / 16) * 100 + l % 16);
    }
    /* A varying variable: evenly spaced lanes, then not. */
    const char *var = "smpipe 1\nblock 32\nvar a = threadIdx.x\nvar v = a * 4 + 1\n";
    int64_t a[32];
    for (int l = 0; l < 32; l++) {
        a[l] = 7 + 3 * l;
    }
    eval_program(var, 0, a, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    ck_assert(!v.uniform);
    for (int l = 0; l < 32; l++) {
        ck_assert_int_eq(v.v[l], 4 * (7 + 3 * l) + 1);
    }
    for (int l = 0; l < 32; l++) {
        a[l] = l * l;
    }
    eval_program(var, 0, a, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    for (int l = 0; l < 32; l++) {
        ck_assert_int_eq(v.v[l], 4 * l * l + 1);
    }
    /* A uniform expression stays uniform; one that overflows only in the
     * last lane is still an error there. */
    eval_program("smpipe 1\nblock 32\nvar v = blockIdx.x * 5 + (3 > 2 ? 7 : 1 / 0)\n", 0, NULL, &v, &st);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    ck_assert(v.uniform);
    ck_assert_int_eq(v.s, 7);
    /* A uniform expression that fails is still reported at the lowest
     * active lane; a && whose left side decides never runs its right. */
    int lane;
    const char *zero = "smpipe 1\nblock 32\nvar b = 0\nvar v = b < 1 && 7 / b > 0 ? 1 : 5 / b\n";
    eval_program_at(zero, 0, NULL, 0x000000f0u, &v, &st, &lane);
    ck_assert_int_eq(st, SIM_ARITH_DIV_ZERO);
    ck_assert_int_eq(lane, 4);
    eval_program_at("smpipe 1\nblock 32\nvar b = 0\nvar v = b > 0 && 7 / b > 0\n", 0, NULL, 0x000000f0u, &v, &st,
                    &lane);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    ck_assert(v.uniform);
    ck_assert_int_eq(v.s, 0);
    eval_lanes_at("9223372036854775777 + threadIdx.x", 0xffffffffu, &v, &st, &lane);
    ck_assert_int_eq(st, SIM_ARITH_OVERFLOW);
    ck_assert_int_eq(lane, 31);
    eval_lanes_at("9223372036854775777 + threadIdx.x", 0x7fffffffu, &v, &st, &lane);
    ck_assert_int_eq(st, SIM_ARITH_OK);
    ck_assert_int_eq(v.v[30], INT64_MAX);
}
END_TEST

START_TEST(constant_overflow_is_a_compile_error)
{
    Trace *t = parse_ok("smpipe 1\nblock 32\nvar v = 9223372036854775807 + 1\n");
    GError *err = NULL;
    Program *p = program_new(t, NULL, 1, &err);
    ck_assert_ptr_null(p);
    ck_assert_ptr_nonnull(strstr(err->message, "test.trace:3:"));
    ck_assert_ptr_nonnull(strstr(err->message, "overflow"));
    g_error_free(err);
    trace_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("expr");
    TCase *tc = tcase_create("eval");
    tcase_add_test(tc, arithmetic_is_checked);
    tcase_add_test(tc, lanes_and_constants);
    tcase_add_test(tc, short_circuit_and_inactive_lanes);
    tcase_add_test(tc, uniform_left_side_short_circuits_every_lane);
    tcase_add_test(tc, lane_errors_name_the_first_failing_lane);
    tcase_add_test(tc, affine_expressions_match_lane_by_lane);
    tcase_add_test(tc, constant_overflow_is_a_compile_error);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
