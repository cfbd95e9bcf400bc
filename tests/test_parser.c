/* test_parser.c: the trace language's syntax and its diagnostics. */
#include "test_util.h"

#include "sim/lang/parser.h"

#define HDR "smpipe 1\nblock 32\n"

START_TEST(header_is_required)
{
    g_autofree char *m = parse_err("block 32\n");
    ck_assert_ptr_nonnull(strstr(m, "test.trace:1:1:"));
    ck_assert_ptr_nonnull(strstr(m, "smpipe 1"));
    g_autofree char *v = parse_err("smpipe 2\n");
    ck_assert_ptr_nonnull(strstr(v, "test.trace:1:8:"));
}
END_TEST

START_TEST(error_points_at_line_and_column_with_caret)
{
    g_autofree char *m = parse_err(HDR "var x = 1\nvar y = (x + * 2)\n");
    ck_assert_msg(strstr(m, "test.trace:4:14:") != NULL, "%s", m);
    /* The line is shown, then a caret under column 14. */
    ck_assert_ptr_nonnull(strstr(m, "var y = (x + * 2)"));
    const char *caret = strstr(m, "^");
    ck_assert_ptr_nonnull(caret);
    const char *nl = caret;
    while (nl > m && nl[-1] != '\n') {
        nl--;
    }
    ck_assert_int_eq((int) (caret - nl), 4 + 13);
}
END_TEST

START_TEST(blocks_need_end)
{
    g_autofree char *m = parse_err(HDR "for i in 0 .. 3\nvar a = i\n");
    ck_assert_ptr_nonnull(strstr(m, "test.trace:3:1:"));
    ck_assert_ptr_nonnull(strstr(m, "no 'end'"));
    g_autofree char *e = parse_err(HDR "end\n");
    ck_assert_ptr_nonnull(strstr(e, "'end' without an open block"));
}
END_TEST

START_TEST(statement_forms_parse)
{
    Trace *t = parse_ok(HDR "param n = 4 in 0..10\n"
                            "var a = 1 // comment\n"
                            "a += 2; a++\n"
                            "--a\n"
                            "for (var i = 0; i < n; ++i)\n  a = a * 2\nend\n"
                            "for j in 0 .. n step 2\nend\n"
                            "while a > 100\n a -= 1\nend\n"
                            "if (a == 1) return\n"
                            "if a > 2 then\nelse if a > 1\nelif a > 0\nelse\nend\n"
                            "/* block\n comment */ var b = a ? 1 : 2\n");
    ck_assert_uint_eq(t->body->len, 10);
    trace_free(t);
}
END_TEST

START_TEST(numbers_and_names)
{
    Trace *t = parse_ok(HDR "var a = 0x10 + 0b11 + 1'000 + 1_000 + 7ull\nvar b = cuda::std::min(a, 3)\n");
    trace_free(t);
    g_autofree char *big = parse_err(HDR "var a = 99999999999999999999\n");
    ck_assert_ptr_nonnull(strstr(big, "too large"));
    g_autofree char *bad = parse_err(HDR "var a = 12abc\n");
    ck_assert_ptr_nonnull(strstr(bad, "test.trace:3:11:"));
    g_autofree char *ch = parse_err(HDR "var a = $\n");
    ck_assert_ptr_nonnull(strstr(ch, "unexpected character '$'"));
}
END_TEST

START_TEST(declarations)
{
    Trace *t = parse_ok("smpipe 1\nparam s = 2\nblock 64\ntype T = elem(16)\nshared T buf[s * 64] align 128\n"
                        "global int g[1024]\nshared cuda::pipeline_shared_state<cuda::thread_scope_block, s> st\n"
                        "pipeline_shared_state<block, 3> st2\nshared cuda::barrier<cuda::thread_scope_block> bar\n"
                        "barrier bar2\ndef f(a, b) = a * b\n");
    ck_assert_uint_eq(t->decls->len, 10);
    trace_free(t);
    g_autofree char *m = parse_err("smpipe 1\nblock 32\nif 1\nshared int x[4]\nend\n");
    ck_assert_ptr_nonnull(strstr(m, "top level"));
    g_autofree char *sc = parse_err("smpipe 1\nblock 32\npipeline_shared_state<device, 2> st\n");
    ck_assert_ptr_nonnull(strstr(sc, "thread_scope_block"));
}
END_TEST

START_TEST(block_and_grid_shapes)
{
    /* block X, Y, Z and grid X, Y, Z are declarations; grid.sync() and an
     * assignment to a variable named grid are statements. */
    Trace *t = parse_ok("smpipe 1\nblock 8, 4, 2\ngrid 3, 2\ngrid.sync()\nvar grid = 1\ngrid = 2\n");
    ck_assert_uint_eq(t->decls->len, 2);
    const Decl *b = g_ptr_array_index(t->decls, 0);
    const Decl *g = g_ptr_array_index(t->decls, 1);
    ck_assert_int_eq(b->kind, DECL_BLOCK);
    ck_assert(b->a != NULL && b->b != NULL && b->c != NULL);
    ck_assert_int_eq(g->kind, DECL_GRID);
    ck_assert(g->a != NULL && g->b != NULL && g->c == NULL);
    ck_assert_uint_eq(t->body->len, 3);
    trace_free(t);
    g_autofree char *m = parse_err("smpipe 1\nblock 8, 4,\n");
    ck_assert_msg(strstr(m, "test.trace:2:") != NULL && strstr(m, "expected an expression") != NULL, "%s", m);
}
END_TEST

START_TEST(element_stores_and_expect)
{
    /* buf[i] = v is store(buf + i, v); expect buf[i] == v is expect(buf +
     * i, v); a variable named expect stays a variable. */
    Trace *t = parse_ok("smpipe 1\nblock 32\nbuf[threadIdx.x * 2] = 7 + 1\nexpect buf[3] == -1\n"
                        "var expect = 1\nexpect = 2\nexpect++\n");
    ck_assert_uint_eq(t->body->len, 5);
    const char *names[] = { "store", "expect" };
    for (int i = 0; i < 2; i++) {
        const Stmt *s = g_ptr_array_index(t->body, i);
        ck_assert_int_eq(s->kind, ST_EXPR);
        ck_assert_int_eq(s->a->kind, EX_CALL);
        ck_assert_str_eq(s->a->a->name, names[i]);
        ck_assert_uint_eq(s->a->args->len, 2);
        const Expr *ptr = g_ptr_array_index(s->a->args, 0);
        ck_assert_int_eq(ptr->kind, EX_BINARY);
        ck_assert_int_eq(ptr->op, '+');
        ck_assert_str_eq(ptr->a->name, "buf");
        ck_assert_uint_eq(s->loc.line, (uint32_t) (3 + i));
        ck_assert_uint_eq(s->loc.col, 1);
    }
    const Expr *idx = ((const Expr *) g_ptr_array_index(((const Stmt *) g_ptr_array_index(t->body, 0))->a->args, 0))->b;
    ck_assert_int_eq(idx->kind, EX_BINARY);
    ck_assert_int_eq(idx->op, '*');
    const Expr *want = g_ptr_array_index(((const Stmt *) g_ptr_array_index(t->body, 1))->a->args, 1);
    ck_assert_int_eq(want->kind, EX_UNARY);
    for (guint i = 2; i < 5; i++) {
        const Stmt *s = g_ptr_array_index(t->body, i);
        ck_assert_int_eq(s->kind, i == 2 ? ST_VAR : ST_ASSIGN);
        ck_assert_str_eq(s->name, "expect");
    }
    trace_free(t);
    g_autofree char *a = parse_err("smpipe 1\nblock 32\ns[1] += 2\n");
    ck_assert_msg(strstr(a, "test.trace:3:6: expected '=' (an element is written with buf[i] = value)") != NULL, "%s", a);
    g_autofree char *b = parse_err("smpipe 1\nblock 32\nexpect s[1] = 2\n");
    ck_assert_msg(strstr(b, "test.trace:3:13: expected '==' (expect buf[i] == value)") != NULL, "%s", b);
    g_autofree char *c = parse_err("smpipe 1\nblock 32\nexpect x == 2\n");
    ck_assert_msg(strstr(c, "test.trace:3:8: expect takes an element and a value") != NULL, "%s", c);
    /* Indexing stays refused inside expressions. */
    g_autofree char *d = parse_err("smpipe 1\nblock 32\nvar x = load(s[1])\n");
    ck_assert_msg(strstr(d, "indexing is not supported") != NULL, "%s", d);
}
END_TEST

START_TEST(void_casts)
{
    /* (void *) p, (const void *) p and (void const *) p parse into one
     * call of PARSER_VOID_CAST on p; (void) p and (int *) p do not. */
    Trace *t = parse_ok("smpipe 1\nblock 32\nmemcpy_async((void *) (d + 1), (const void *) s, 4, p)\n"
                        "memcpy_async((void const *) d, s, 4, p)\n");
    const Stmt *a = g_ptr_array_index(t->body, 0);
    for (guint i = 0; i < 2; i++) {
        const Expr *e = g_ptr_array_index(a->a->args, i);
        ck_assert_int_eq(e->kind, EX_CALL);
        ck_assert_str_eq(e->a->name, PARSER_VOID_CAST);
        ck_assert_uint_eq(e->args->len, 1);
        const Expr *inner = g_ptr_array_index(e->args, 0);
        ck_assert_int_eq(inner->kind, i == 0 ? EX_BINARY : EX_NAME);
    }
    const Stmt *b = g_ptr_array_index(t->body, 1);
    ck_assert_str_eq(((const Expr *) g_ptr_array_index(b->a->args, 0))->a->name, PARSER_VOID_CAST);
    trace_free(t);
    g_autofree char *m = parse_err("smpipe 1\nblock 32\nmemcpy_async((void) d, s, 4, p)\n");
    ck_assert_msg(strstr(m, "test.trace:3:21: expected ',' or ')'") != NULL, "%s", m);
}
END_TEST

START_TEST(deep_nesting_is_an_error)
{
    GString *s = g_string_new("smpipe 1\nblock 32\nvar a = ");
    for (int i = 0; i < 200; i++) {
        g_string_append_c(s, '(');
    }
    g_string_append(s, "1");
    for (int i = 0; i < 200; i++) {
        g_string_append_c(s, ')');
    }
    g_string_append_c(s, '\n');
    g_autofree char *m = parse_err(s->str);
    ck_assert_ptr_nonnull(strstr(m, "nesting deeper"));
    g_string_free(s, TRUE);
}
END_TEST

START_TEST(binary_input_is_rejected)
{
    GError *err = NULL;
    const char text[] = "smpipe 1\n\0block 32\n";
    Trace *t = trace_parse_string("bin.trace", text, sizeof text - 1, &err);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(strstr(err->message, "NUL"));
    g_error_free(err);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("parser");
    TCase *tc = tcase_create("syntax");
    tcase_add_test(tc, header_is_required);
    tcase_add_test(tc, error_points_at_line_and_column_with_caret);
    tcase_add_test(tc, blocks_need_end);
    tcase_add_test(tc, statement_forms_parse);
    tcase_add_test(tc, numbers_and_names);
    tcase_add_test(tc, declarations);
    tcase_add_test(tc, block_and_grid_shapes);
    tcase_add_test(tc, element_stores_and_expect);
    tcase_add_test(tc, void_casts);
    tcase_add_test(tc, deep_nesting_is_an_error);
    tcase_add_test(tc, binary_input_is_rejected);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
