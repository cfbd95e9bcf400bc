/* test_reliability.c: hostile input, limits and determinism: each test is
 * a finding of the fuzzers or of the reliability review (docs/errors.md,
 * "Limits"), kept so that it cannot come back. */
#include "test_util.h"

#include "sim/lang/expr_eval.h"

#include <glib/gstdio.h>

/* A byte that is not printable ASCII is quoted as '?', so that a message
 * stays UTF-8 and carries no terminal control codes (fuzz_trace finding). */
START_TEST(non_ascii_bytes_are_masked_in_messages)
{
    g_autofree char *m = parse_err("smpipe 1\nblock 32\nvar x = \xff\x1b[2J 1\n");
    ck_assert_msg(g_utf8_validate(m, -1, NULL), "not UTF-8: %s", m);
    ck_assert_ptr_null(strchr(m, '\x1b'));
    ck_assert_ptr_nonnull(strstr(m, "unexpected byte 0xff"));
    ck_assert_ptr_nonnull(strstr(m, "var x = ??[2J 1"));

    /* The deadlock report quotes the lines where threads wait. */
    TestRun tr;
    ck_assert(!run_text(&tr, "smpipe 1\nblock 64\nshared pipeline_shared_state<block, 2> st\n"
                             "var p = make_pipeline(block, st, 32)\nif threadIdx.x >= 32\n"
                             "    p.consumer_wait() # \xff\x1b[2J\nend\n", NULL));
    ck_assert_ptr_nonnull(strstr(tr.msg, "deadlock"));
    ck_assert_msg(g_utf8_validate(tr.msg, -1, NULL), "not UTF-8: %s", tr.msg);
    ck_assert_ptr_null(strchr(tr.msg, '\x1b'));
    test_run_clear(&tr);
}
END_TEST

/* Warnings are sorted by their text; sorting once compared the bytes of
 * the pointers, so the order changed with the heap (fuzz_trace finding:
 * the two engines printed the same warnings in different orders). */
START_TEST(warnings_are_sorted_by_text)
{
    const char *text =
        "smpipe 1\nblock 64\nshared int s[128]\nglobal int g[1024]\nvar p = make_pipeline()\nvar fetch = 0\n"
        "for c in 0 .. 6\n"
        "    while fetch < 6 && fetch < c + 2\n"
        "        p.producer_acquire()\n"
        "        memcpy_async(thread, s + (fetch % 2) * 64 + threadIdx.x, g + fetch * 64 + threadIdx.x, 4, p)\n"
        "        p.producer_commit()\n"
        "        fetch += 1\n"
        "    end\n"
        "    p.consumer_wait()\n"
        "    __syncthreads()\n"
        "    var x = load(s + (threadIdx.x + 32) % 64)\n"
        "    var y = load(s + 64 + (threadIdx.x + 32) % 64)\n"
        "    var z = load(s + (threadIdx.x + 1) % 64)\n"
        "    var q = load(s + 64 + (threadIdx.x + 3) % 64)\n"
        "    p.consumer_release()\n"
        "end\n";
    for (int engine = 0; engine < 2; engine++) {
        TestRun tr;
        ck_assert(run_text_engine(&tr, text, NULL, engine ? SIM_ENGINE_STEPPED : SIM_ENGINE_EVENT));
        const GPtrArray *w = tr_stats(&tr)->warnings;
        ck_assert_uint_ge(w->len, 5);
        for (guint i = 1; i < w->len; i++) {
            ck_assert_int_lt(strcmp(g_ptr_array_index(w, i - 1), g_ptr_array_index(w, i)), 0);
        }
        test_run_clear(&tr);
    }
}
END_TEST

/* Not inlined: GCC 12 at -O3 then takes the text for a pointer into the
 * variable whose address g_file_get_contents received (-Wdangling-pointer). */
G_GNUC_NO_INLINE static char *arch_text(void)
{
    g_autofree char *path = g_build_filename(SRCDIR, "arch", "h100.ini", NULL);
    char *text = NULL;
    ck_assert(g_file_get_contents(path, &text, NULL, NULL));
    return text;
}

/* Loads h100.ini with one line replaced; returns the error (to free) or
 * NULL when it loads. */
static char *arch_with(const char *from, const char *to)
{
    g_autofree char *text = arch_text();
    const char *at = strstr(text, from);
    ck_assert_msg(at != NULL, "h100.ini has no '%s'", from);
    GString *s = g_string_new_len(text, at - text);
    g_string_append(s, to);
    g_string_append(s, at + strlen(from));
    ArchParams a;
    GError *err = NULL;
    bool ok = arch_load_data("x.ini", s->str, s->len, NULL, &a, &err);
    g_string_free(s, TRUE);
    if (ok) {
        return NULL;
    }
    char *m = g_strdup(err->message);
    g_error_free(err);
    return m;
}

/* NaN passed every range check, and a huge value for an integer key was
 * converted to int64_t before the check (undefined behaviour). */
START_TEST(arch_numbers_outside_any_range_are_rejected)
{
    const char *bad[] = { "latency = nan", "latency = NAN", "latency = 1e300", "latency = -1e300", "latency = inf" };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *m = arch_with("latency = 23", bad[i]);
        ck_assert_msg(m != NULL, "%s was accepted", bad[i]);
        ck_assert_msg(strstr(m, "out of range") || strstr(m, "whole number"), "%s: %s", bad[i], m);
    }
    g_autofree char *m = arch_with("clock_mhz = 1980", "clock_mhz = nan");
    ck_assert_ptr_nonnull(m);
    ck_assert_ptr_nonnull(strstr(m, "out of range"));
}
END_TEST

/* arch_load_data (the fuzzers' entry point) and arch_load agree. */
START_TEST(arch_from_memory_equals_arch_from_file)
{
    g_autofree char *path = g_build_filename(SRCDIR, "arch", "h100.ini", NULL);
    g_autofree char *text = arch_text();
    ArchParams a, b;
    ck_assert(arch_load(path, NULL, &a, NULL));
    ck_assert(arch_load_data(path, text, strlen(text), NULL, &b, NULL));
    g_autoptr(GString) fa = g_string_new(NULL);
    g_autoptr(GString) fb = g_string_new(NULL);
    arch_format(&a, fa);
    arch_format(&b, fb);
    ck_assert_str_eq(fa->str, fb->str);
}
END_TEST

/* A trace or an architecture file without an end (a device, a pipe) is
 * refused once it passes the size limit instead of filling memory. */
START_TEST(endless_files_are_refused)
{
    GError *err = NULL;
    Trace *t = trace_parse_file("/dev/zero", &err);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(strstr(err->message, "larger than the limit"));
    g_clear_error(&err);
    ArchParams a;
    ck_assert(!arch_load("/dev/zero", NULL, &a, &err));
    ck_assert_ptr_nonnull(strstr(err->message, "/dev/zero"));
    g_clear_error(&err);
}
END_TEST

/* Instantiates text; returns the error message (to free), NULL on success. */
static char *compile_err(const char *text)
{
    Trace *t = parse_ok(text);
    GError *err = NULL;
    Program *p = program_new(t, NULL, 1, &err);
    char *m = NULL;
    if (p == NULL) {
        ck_assert_int_eq(sim_error_exit_status(err), SIM_EXIT_BAD_INPUT);
        m = g_strdup(err->message);
        g_error_free(err);
    }
    program_free(p);
    trace_free(t);
    return m;
}

/* A long 'else if' chain nests as deeply as its length: 200000 links
 * overflowed the stack of the parser (fuzz finding).  256 are allowed. */
START_TEST(long_else_if_chains_are_an_error)
{
    for (int n = 256; n <= 100000; n += 100000 - 256) {
        GString *s = g_string_new("smpipe 1\nblock 32\nvar x = 0\nif x == 0\n    x = 1\n");
        for (int i = 0; i < n; i++) {
            g_string_append_printf(s, "else if x == %d\n    x = 1\n", i);
        }
        g_string_append(s, "end\n");
        if (n == 256) {
            g_autofree char *m = compile_err(s->str);
            ck_assert_msg(m == NULL, "%s", m);
        } else {
            g_autofree char *m = parse_err(s->str);
            ck_assert_ptr_nonnull(strstr(m, "more than 256 'else if' in a row"));
            ck_assert_ptr_nonnull(strstr(m, "test.trace:518:6:"));
        }
        g_string_free(s, TRUE);
    }
}
END_TEST

/* A def that uses its parameter four times, nested 15 deep, compiled for
 * ever (4^15 inlined bodies): the nodes a program may have are bounded. */
START_TEST(exponential_inlining_is_an_error)
{
    GString *s = g_string_new("smpipe 1\nblock 32\ndef f0(a) = a + 1\n");
    for (int i = 1; i < 16; i++) {
        g_string_append_printf(s, "def f%d(a) = f%d(a) + f%d(a) + f%d(a) + f%d(a)\n", i, i - 1, i - 1, i - 1, i - 1);
    }
    g_string_append(s, "var x = f15(threadIdx.x)\n");
    g_autofree char *m = compile_err(s->str);
    ck_assert_ptr_nonnull(m);
    ck_assert_msg(strstr(m, "more than 1000000 nodes") != NULL, "%s", m);
    g_string_free(s, TRUE);
}
END_TEST

/* f(f(...f(x))) with f(a) = a + a compiles to a small graph whose every
 * evaluation visits 2^18 nodes: the run would never end. */
START_TEST(expressions_too_large_to_evaluate_are_an_error)
{
    g_autofree char *m = compile_err(
        "smpipe 1\nblock 32\ndef f(a) = a + a\n"
        "var x = f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(threadIdx.x))))))))))))))))))\n");
    ck_assert_ptr_nonnull(m);
    ck_assert_msg(strstr(m, "one evaluation visits more than 100000 nodes") != NULL, "%s", m);
    /* Fifteen levels (65535 nodes) are still allowed. */
    g_autofree char *ok = compile_err(
        "smpipe 1\nblock 32\ndef f(a) = a + a\n"
        "var x = f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(threadIdx.x)))))))))))))))\n");
    ck_assert_msg(ok == NULL, "%s", ok);
}
END_TEST

/* Which variables vary between threads is settled by repeated passes; a
 * chain of assignments running backwards through a loop needs one per link
 * (4000 links took minutes and gigabytes).  The work is bounded. */
START_TEST(uniformity_analysis_is_bounded)
{
    GString *s = g_string_new("smpipe 1\nblock 32\n");
    const int n = 4000;
    for (int i = 0; i < n; i++) {
        g_string_append_printf(s, "var a%d = 0\n", i);
    }
    g_string_append(s, "var i = 0\nwhile i < 2\n");
    for (int i = n - 1; i > 0; i--) {
        g_string_append_printf(s, "    a%d = a%d\n", i, i - 1);
    }
    g_string_append(s, "    a0 = threadIdx.x\n    i += 1\nend\n");
    g_autofree char *m = compile_err(s->str);
    ck_assert_ptr_nonnull(m);
    ck_assert_msg(strstr(m, "did not settle after") != NULL, "%s", m);
    g_string_free(s, TRUE);
}
END_TEST

/* A trace given in memory (the library API) larger than 16 MiB. */
START_TEST(trace_size_limit)
{
    gsize len = (16u << 20) + 1;
    char *text = g_malloc(len);
    memset(text, '\n', len);
    memcpy(text, "smpipe 1\n", 9);
    GError *err = NULL;
    Trace *t = trace_parse_string("big.trace", text, len, &err);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(strstr(err->message, "big.trace: trace larger than 16 MiB"));
    g_error_free(err);
    g_free(text);
}
END_TEST

/* An architecture file (a regular file: --arch takes no devices) over 1 MiB. */
START_TEST(arch_file_size_limit)
{
    g_autofree char *text = arch_text();
    GString *s = g_string_new(text);
    while (s->len <= ARCH_MAX_FILE_BYTES) {
        g_string_append(s, "# padding, padding, padding, padding, padding, padding, padding\n");
    }
    g_autofree char *dir = g_dir_make_tmp("smpipe-test-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "big.ini", NULL);
    ck_assert(g_file_set_contents(path, s->str, (gssize) s->len, NULL));
    g_string_free(s, TRUE);
    ArchParams a;
    GError *err = NULL;
    ck_assert(!arch_load(path, NULL, &a, &err));
    ck_assert_msg(strstr(err->message, "the file is larger than the limit of 1048576 bytes") != NULL, "%s",
                  err->message);
    g_error_free(err);
    g_remove(path);
    g_rmdir(dir);
}
END_TEST

/* A program that compiles to more than 1e6 operations (__syncwarp makes
 * no expression nodes, so the operation limit is the one reached). */
START_TEST(too_many_operations)
{
    GString *s = g_string_new("smpipe 1\nblock 32\n");
    for (int i = 0; i <= 1000000; i++) {
        g_string_append(s, "__syncwarp()\n");
    }
    g_autofree char *m = compile_err(s->str);
    ck_assert_ptr_nonnull(m);
    ck_assert_msg(strstr(m, "the program compiles to more than 1000000 operations") != NULL, "%s", m);
    g_string_free(s, TRUE);
}
END_TEST

/* INT64_MIN % -1 is 0, not an overflow (fuzz_expr finding); the quotient
 * INT64_MIN / -1 does overflow. */
START_TEST(remainder_of_int64_min_by_minus_one)
{
    int64_t r = 1;
    ck_assert_int_eq(sim_arith_binary('%', INT64_MIN, -1, &r), SIM_ARITH_OK);
    ck_assert_int_eq(r, 0);
    ck_assert_int_eq(sim_arith_binary('/', INT64_MIN, -1, &r), SIM_ARITH_OVERFLOW);
    g_autofree char *m = compile_err("smpipe 1\nblock 32\nvar x = (-9223372036854775807 - 1) % -1\nassert(x == 0)\n");
    ck_assert_msg(m == NULL, "%s", m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reliability");
    TCase *tc = tcase_create("findings");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, non_ascii_bytes_are_masked_in_messages);
    tcase_add_test(tc, warnings_are_sorted_by_text);
    tcase_add_test(tc, arch_numbers_outside_any_range_are_rejected);
    tcase_add_test(tc, arch_from_memory_equals_arch_from_file);
    tcase_add_test(tc, endless_files_are_refused);
    tcase_add_test(tc, long_else_if_chains_are_an_error);
    tcase_add_test(tc, exponential_inlining_is_an_error);
    tcase_add_test(tc, expressions_too_large_to_evaluate_are_an_error);
    tcase_add_test(tc, uniformity_analysis_is_bounded);
    tcase_add_test(tc, trace_size_limit);
    tcase_add_test(tc, arch_file_size_limit);
    tcase_add_test(tc, too_many_operations);
    tcase_add_test(tc, remainder_of_int64_min_by_minus_one);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
