/* test_program.c: instantiation, typing, uniformity and loop expansion. */
#include "test_util.h"

static Program *compile(const char *text, const char *const *sets, char **msg)
{
    Trace *t = parse_ok(text);
    GArray *ov = g_array_new(FALSE, FALSE, sizeof(ProgParamOverride));
    for (int i = 0; sets && sets[i]; i += 2) {
        ProgParamOverride o = { sets[i], g_ascii_strtoll(sets[i + 1], NULL, 10) };
        g_array_append_val(ov, o);
    }
    GError *err = NULL;
    Program *p = program_new(t, ov, 1, &err);
    g_array_free(ov, TRUE);
    *msg = err ? g_strdup(err->message) : NULL;
    g_clear_error(&err);
    if (p == NULL) {
        trace_free(t);
    }
    return p;
}

static void free_prog(Program *p)
{
    Trace *t = (Trace *) p->trace;
    program_free(p);
    trace_free(t);
}

static const ProgVar *var_named(const Program *p, const char *name)
{
    for (guint i = 0; i < p->vars->len; i++) {
        const ProgVar *v = &g_array_index(p->vars, ProgVar, i);
        if (strcmp(v->name, name) == 0) {
            return v;
        }
    }
    ck_abort_msg("no variable %s", name);
    return NULL;
}

START_TEST(uniformity)
{
    char *msg;
    Program *p = compile("smpipe 1\nblock 64\nvar u = 3\nvar t = threadIdx.x\nvar w = warp_id * 2\n"
                         "for i in 0 .. 4\n  u += i\nend\n"
                         "var c = 0\nif threadIdx.x < 5\n  c = 1\nend\n"
                         "var late = 0\nvar src = 0\nfor k in 0 .. 2\n  late = src\n  src = threadIdx.x\nend\n",
                         NULL, &msg);
    ck_assert_msg(p != NULL, "%s", msg);
    ck_assert(!var_named(p, "u")->varying);
    ck_assert(var_named(p, "t")->varying);
    ck_assert(!var_named(p, "w")->varying);
    ck_assert(!var_named(p, "i")->varying);
    ck_assert(var_named(p, "c")->varying);      /* assigned under a lane-dependent branch */
    ck_assert(var_named(p, "late")->varying);   /* found by the fixed point */
    free_prog(p);
}
END_TEST

/* A lane-dependent branch around a pipeline wait lets a warp's paths run
 * apart (sched.wait_yields): through the loops around it, the loop's own
 * counter included, and through everything after it, so what those assign
 * is kept per lane; what comes before it stays uniform. */
START_TEST(loops_whose_paths_run_apart_are_varying)
{
    char *msg;
    Program *p = compile("smpipe 1\nblock 64\n"
                         "shared cuda::pipeline_shared_state<cuda::thread_scope::thread_scope_block, 2> st\n"
                         "var block = cooperative_groups::this_thread_block()\n"
                         "var role = threadIdx.x % 2 == 0 ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer\n"
                         "var pipe = cuda::make_pipeline(block, &st, role)\n"
                         "var m = 0\nfor k in 0 .. 4\n  m += 1\n  if threadIdx.x < 5\n    m += 0\n  end\nend\n"
                         "var n = 0\n"
                         "for b in 0 .. 4\n  n += 1\n"
                         "  if (role == cuda::pipeline_role::consumer)\n    pipe.consumer_wait()\n"
                         "    pipe.consumer_release()\n  end\nend\n"
                         "var after = 1\n",
                         NULL, &msg);
    ck_assert_msg(p != NULL, "%s", msg);
    ck_assert(!var_named(p, "k")->varying);
    ck_assert(var_named(p, "b")->varying);
    ck_assert(var_named(p, "n")->varying);
    ck_assert(var_named(p, "after")->varying);
    free_prog(p);
}
END_TEST

START_TEST(block_and_grid_shapes)
{
    /* block X, Y, Z and grid X, Y, Z; `grid` and `block` stay names of
     * groups in statements. */
    const char *text = "smpipe 1\nparam blocks = 6\nblock 8, 4, 2\ngrid 3, 2\nglobal int a[64 * gridDim.y]\n"
                       "var grid = cooperative_groups::this_grid()\nvar y = threadIdx.y\nvar by = blockIdx.y\n"
                       "var n = grid.size()\nblock.sync()\n";
    Trace *t = parse_ok(text);
    GError *err = NULL;
    Program *p = program_new(t, NULL, 6, &err);
    ck_assert_msg(p != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(p->block_threads, 64);
    ck_assert_int_eq(p->warps, 2);
    ck_assert_int_eq(p->block_dim[0], 8);
    ck_assert_int_eq(p->block_dim[1], 4);
    ck_assert_int_eq(p->block_dim[2], 2);
    ck_assert_int_eq(p->grid_dim[0], 3);
    ck_assert_int_eq(p->grid_dim[1], 2);
    ck_assert_int_eq(p->grid_dim[2], 1);
    ck_assert_int_eq(g_array_index(p->buffers, ProgBuffer, 0).count, 128);
    ck_assert(var_named(p, "y")->varying);
    ck_assert(!var_named(p, "by")->varying);
    ck_assert(p->grid_declared);
    program_free(p);
    trace_free(t);
    /* The runner checks the grid against the resident blocks, and takes
     * their number from it when neither sm.blocks nor blocks says. */
    TestRun tr;
    const char *run = "smpipe 1\nblock 32\ngrid 2, 2\nassert(gridDim.y == 2 && blockIdx.y == grid.block_rank() / 2)\n";
    ck_assert_msg(run_text(&tr, run, NULL), "%s", tr.msg);
    ck_assert_int_eq(tr_stats(&tr)->blocks, 4);
    ck_assert_int_eq(tr.run.arch.blocks, 4);
    test_run_clear(&tr);
    const char *three[] = { "sm.blocks=3", NULL };
    ck_assert(!run_text(&tr, run, three));
    ck_assert_int_eq(tr.status, 2);
    ck_assert_msg(strstr(tr.msg, "test.trace:3:1: the grid has 4 blocks (2 x 2 x 1) but the SM runs 3") != NULL, "%s",
                  tr.msg);
    test_run_clear(&tr);
    /* Without a grid declaration the grid is sm.blocks blocks along x; y and
     * z of a one-dimensional block are 0 and 1. */
    char *msg;
    p = compile("smpipe 1\nblock 32\nglobal int a[gridDim.x + blockDim.y + blockDim.z + gridDim.z]\n", NULL, &msg);
    ck_assert_msg(p != NULL, "%s", msg);
    ck_assert_int_eq(p->grid_dim[0], 1);
    ck_assert_int_eq(g_array_index(p->buffers, ProgBuffer, 0).count, 4);
    free_prog(p);
    /* The x, y and z limits and the product. */
    ck_assert_ptr_null(compile("smpipe 1\nblock 64, 32\n", NULL, &msg));
    ck_assert_msg(strstr(msg, "a block has 1 to 1024 threads, not 2048") != NULL, "%s", msg);
    g_free(msg);
    ck_assert_ptr_null(compile("smpipe 1\nblock 32, 0\n", NULL, &msg));
    ck_assert_msg(strstr(msg, "test.trace:2:11: the block's y size must be 1 to 1024, not 0") != NULL, "%s", msg);
    g_free(msg);
}
END_TEST

START_TEST(compute_operands)
{
    /* compute(CLASS, n, x, y, z): the operands, the result type and the
     * chains (one per 32-bit word of x, per 64-bit word for dfma, one for
     * hmma); n counts per chain. */
    char *msg;
    Program *p = compile("smpipe 1\nblock 32\nshared int4 s[64]\nshared int t[64]\n"
                         "var a = load(s + threadIdx.x)\nvar b = load(t + threadIdx.x)\n"
                         "var f = compute(ffma, 5, a, b)\nvar d = compute(dfma, 5, a)\nvar h = compute(hmma, 5, b, a, f)\n"
                         "compute(imad, 5, 2)\n", NULL, &msg);
    ck_assert_msg(p != NULL, "%s", msg);
    int seen = 0;
    for (guint i = 0; i < p->ops->len; i++) {
        const Op *op = &g_array_index(p->ops, Op, i);
        if (op->code != OP_COMPUTE) {
            continue;
        }
        const char *cls = g_ptr_array_index(p->classes, op->value);
        if (strcmp(cls, "imad") == 0) {
            ck_assert_int_eq(op->sub, COMPUTE_PLAIN);
            ck_assert_int_eq(op->obj, -1);
            ck_assert_int_eq(op->e[1]->value, 2);
            seen++;
            continue;
        }
        ck_assert_int_eq(op->sub, COMPUTE_OPERANDS);
        const ProgVar *x = &g_array_index(p->vars, ProgVar, op->obj);
        const ProgVar *r = &g_array_index(p->vars, ProgVar, op->var);
        ck_assert_uint_eq(r->type.elem.size, x->type.elem.size);
        int64_t chains = strcmp(cls, "ffma") == 0 ? 4 : strcmp(cls, "dfma") == 0 ? 2 : 1;
        ck_assert_int_eq(op->e[1]->value, chains);
        ck_assert_int_eq(op->e[0]->value, 5 * chains);
        ck_assert(program_op_reads(op, op->obj));
        if (strcmp(cls, "hmma") == 0) {
            ck_assert_str_eq(x->name, "b");
            ck_assert_str_eq(g_array_index(p->vars, ProgVar, op->in[0]).name, "a");
            ck_assert_str_eq(g_array_index(p->vars, ProgVar, op->in[1]).name, "f");
        }
        seen++;
    }
    ck_assert_int_eq(seen, 4);
    free_prog(p);
    ck_assert_ptr_null(compile("smpipe 1\nblock 32\nshared int s[32]\nvar a = load(s)\n"
                               "var b = compute(ffma, 1, a, a, a, a)\n", NULL, &msg));
    ck_assert_msg(strstr(msg, "compute takes 2 to 5 arguments, not 6") != NULL, "%s", msg);
    g_free(msg);
}
END_TEST

START_TEST(parameters_and_ranges)
{
    char *msg;
    const char *text = "smpipe 1\nparam n = 4 in 1..8\nparam m = n * 2\nblock 32\n";
    Program *p = compile(text, NULL, &msg);
    ck_assert_int_eq(program_param(p, "m", 0), 8);
    free_prog(p);
    const char *set_bad[] = { "n", "9", NULL };
    ck_assert_ptr_null(compile(text, set_bad, &msg));
    ck_assert_msg(strstr(msg, "out of its range 1..8") != NULL, "%s", msg);
    g_free(msg);
    const char *set_unknown[] = { "nope", "1", NULL };
    ck_assert_ptr_null(compile(text, set_unknown, &msg));
    ck_assert_msg(strstr(msg, "has no parameter 'nope' (it has: n, m)") != NULL, "%s", msg);
    g_free(msg);
}
END_TEST

START_TEST(types_and_pointers)
{
    char *msg;
    Program *p = compile("smpipe 1\nblock 32\ntype T = elem(16)\nshared T a[64]\nglobal int g[64]\n"
                         "var pa = a + 2\nvar d = (a + 5) - (a + 1)\n", NULL, &msg);
    ck_assert_msg(p != NULL, "%s", msg);
    /* a + 2 scales by sizeof(T) = 16; (a+5)-(a+1) counts elements. */
    const Op *op = &g_array_index(p->ops, Op, 0);
    ck_assert_int_eq(op->e[0]->kind, EN_CONST);
    ck_assert_int_eq(op->e[0]->value, 32);
    const Op *op2 = &g_array_index(p->ops, Op, 1);
    ck_assert_int_eq(op2->e[0]->value, 4);
    free_prog(p);
    ck_assert_ptr_null(compile("smpipe 1\nblock 32\ntype T = elem(3)\n", NULL, &msg));
    ck_assert_ptr_nonnull(strstr(msg, "elem(3) is not a type"));
    g_free(msg);
    ck_assert_ptr_null(compile("smpipe 1\nblock 32\nshared int a[4]\nglobal int4 g[4]\nbarrier b\n"
                               "memcpy_async(a, g, 16, b)\n", NULL, &msg));
    ck_assert_ptr_nonnull(strstr(msg, "one element type"));
    g_free(msg);
    ck_assert_ptr_null(compile("smpipe 1\nblock 32\nshared int a[4]\nvar x = a * 2\n", NULL, &msg));
    ck_assert_ptr_nonnull(strstr(msg, "cannot combine a pointer and an integer"));
    g_free(msg);
    ck_assert_ptr_null(compile("smpipe 1\nblock 2000\n", NULL, &msg));
    ck_assert_ptr_nonnull(strstr(msg, "1 to 1024 threads"));
    g_free(msg);
    ck_assert_ptr_null(compile("smpipe 1\nblock 32\nvar y = z\n", NULL, &msg));
    ck_assert_ptr_nonnull(strstr(msg, "test.trace:3:9: unknown name 'z'"));
    g_free(msg);
}
END_TEST

START_TEST(loops_stream_without_unrolling)
{
    /* A million iterations compile to a handful of operations and run. */
    const char *text = "smpipe 1\nparam n = 1000000\nblock 32\nvar x = 0\nfor i in 0 .. n\n  x += 1\nend\n"
                       "assert(x == n)\n";
    char *msg;
    Program *p = compile(text, NULL, &msg);
    ck_assert_msg(p != NULL, "%s", msg);
    ck_assert_uint_lt(p->ops->len, 16);
    free_prog(p);
    TestRun tr;
    bool ok = run_text(&tr, text, NULL);
    ck_assert_msg(ok, "%s", tr.msg);
    /* Each iteration: the loop test, the increment and the jump back, one
     * issue slot each (sched.control_issue = 1). */
    ck_assert_uint_ge(tr_stats(&tr)->cycles, 3000000);
    test_run_clear(&tr);
}
END_TEST

START_TEST(divergent_loops_reconverge)
{
    /* Lanes run different trip counts, then meet again. */
    const char *text = "smpipe 1\nblock 32\nglobal int out[32]\nvar s = 0\nfor (var i = 0; i < threadIdx.x; ++i)\n"
                       "  s += i\nend\nassert(s == threadIdx.x * (threadIdx.x - 1) / 2)\n";
    TestRun tr;
    bool ok = run_text(&tr, text, NULL);
    ck_assert_msg(ok, "%s", tr.msg);
    test_run_clear(&tr);
}
END_TEST

/* On sm_80 the cp.async commit-group sequence is shared by the warp:
 * diverged commits advance it once per thread, so a later wait_prior
 * counts the other lanes' groups too and waits longer. */
START_TEST(sm80_warp_shared_commit_groups)
{
    const char *text = "smpipe 1\nblock 32\nshared int s[256]\nglobal int g[4096]\nvar p = make_pipeline()\n"
                       "if threadIdx.x < 16\n  for k in 0 .. 4\n    p.producer_acquire()\n"
                       "    memcpy_async(thread, s + k * 32 + threadIdx.x, g + k * 1024 + threadIdx.x * 8, 4, p)\n"
                       "    p.producer_commit()\n  end\nend\n"
                       "if threadIdx.x >= 16\n  p.producer_acquire()\n"
                       "  memcpy_async(thread, s + 200 + threadIdx.x - 16, g + 3000, 4, p)\n  p.producer_commit()\n"
                       "  pipeline_consumer_wait_prior<1>(p)\nend\n";
    const char *shared_groups[] = { "cp_async.warp_shared_groups=true", NULL };
    const char *own_groups[] = { "cp_async.warp_shared_groups=false", NULL };
    TestRun a, b;
    ck_assert_msg(run_text(&a, text, shared_groups), "%s", a.msg);
    ck_assert_msg(run_text(&b, text, own_groups), "%s", b.msg);
    /* With its own sequence, wait_prior<1> of the upper lanes waits for
     * nothing (their one group is the newest); with the shared sequence
     * their group is older than the others' 64 and must complete. */
    ck_assert_uint_gt(tr_stats(&a)->state_total[WS_CONSUMER_WAIT], tr_stats(&b)->state_total[WS_CONSUMER_WAIT]);
    test_run_clear(&a);
    test_run_clear(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("program");
    TCase *tc = tcase_create("compile");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, uniformity);
    tcase_add_test(tc, loops_whose_paths_run_apart_are_varying);
    tcase_add_test(tc, block_and_grid_shapes);
    tcase_add_test(tc, compute_operands);
    tcase_add_test(tc, parameters_and_ranges);
    tcase_add_test(tc, types_and_pointers);
    tcase_add_test(tc, loops_stream_without_unrolling);
    tcase_add_test(tc, divergent_loops_reconverge);
    tcase_add_test(tc, sm80_warp_shared_commit_groups);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
