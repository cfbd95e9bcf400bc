/* test_programs.c: runs every program under tests/programs.  Each states
 * what must happen in comment lines at its top:
 *   # expect-exit: N          exit status the CLI gives (0, 1 or 2)
 *   # expect: TEXT            the error message contains TEXT
 *   # expect-warning: TEXT    a warning of the run contains TEXT
 *   # expect-no-warnings      the run gives no warning at all
 *   # set: NAME=VALUE         a --set assignment
 *   # max-cycles: N           the watchdog (--max-cycles) [1e8]
 *   # max-ops: N              the operation limit (--max-ops) [none]
 * Every program also runs on the cycle-stepped engine, which must give the
 * same result byte for byte.
 * One misuse, deadlock or race per file.  The examples of the error
 * catalogue (tests/errors, docs/errors.md) run here too, except those that
 * need the command line (tests/test_errors.sh runs all of them). */
#include "test_util.h"

/* The JSON statistics of a finished run, or its error message. */
static char *outcome(const TestRun *tr)
{
    if (tr->msg != NULL) {
        return g_strdup_printf("exit %d: %s", tr->status, tr->msg);
    }
    ReportInfo info;
    g_autoptr(GArray) values = g_array_new(FALSE, FALSE, sizeof(int64_t));
    test_report_info(tr, "test.trace", "either", values, &info);
    GString *s = g_string_new(NULL);
    report_json(tr_stats(tr), &info, REPORT_BY_WARP, s);
    return g_string_free(s, FALSE);
}

/* True for an example that only the smpipe command can run: it changes the
 * command line or the output, or holds a NUL byte (tests/test_errors.sh). */
static bool needs_cli(const char *text, gsize len)
{
    return strlen(text) != len || strstr(text, "\n# argv:") || strstr(text, "\n# args:") ||
           strstr(text, "\n# stdout:") || strstr(text, "\n# env:");
}

static void check_program(const char *dir, const char *name)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autofree char *text = NULL;
    gsize len = 0;
    ck_assert(g_file_get_contents(path, &text, &len, NULL));
    if (needs_cli(text, len)) {
        return;
    }
    int expect_exit = -1;
    bool no_warnings = false;
    SimCycle max_cycles = 100000000;
    uint64_t max_ops = 0;
    GPtrArray *expects = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *warns = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *sets = g_ptr_array_new_with_free_func(g_free);
    char **lines = g_strsplit(text, "\n", -1);
    for (int i = 0; lines[i]; i++) {
        const char *l = lines[i];
        if (g_str_has_prefix(l, "# expect-exit:")) {
            expect_exit = atoi(l + 14);
        } else if (g_str_has_prefix(l, "# expect:")) {
            g_ptr_array_add(expects, g_strstrip(g_strdup(l + 9)));
        } else if (g_str_has_prefix(l, "# expect-no-warnings")) {
            no_warnings = true;
        } else if (g_str_has_prefix(l, "# expect-warning:")) {
            g_ptr_array_add(warns, g_strstrip(g_strdup(l + 17)));
        } else if (g_str_has_prefix(l, "# max-cycles:")) {
            max_cycles = g_ascii_strtoull(l + 13, NULL, 10);
        } else if (g_str_has_prefix(l, "# max-ops:")) {
            max_ops = g_ascii_strtoull(l + 10, NULL, 10);
        } else if (g_str_has_prefix(l, "# set:")) {
            g_ptr_array_add(sets, g_strstrip(g_strdup(l + 6)));
        }
    }
    g_strfreev(lines);
    ck_assert_msg(expect_exit >= 0, "%s: no '# expect-exit:' line", name);
    g_ptr_array_add(sets, NULL);
    TestRun tr;
    run_text_limits(&tr, text, (const char *const *) sets->pdata, SIM_ENGINE_EVENT, max_cycles, max_ops);
    ck_assert_msg(tr.status == expect_exit, "%s: exit %d, expected %d; message: %s", name, tr.status, expect_exit,
                  tr.msg ? tr.msg : "(none)");
    for (guint i = 0; i < expects->len; i++) {
        const char *want = g_ptr_array_index(expects, i);
        ck_assert_msg(tr.msg && strstr(tr.msg, want), "%s: the message lacks \"%s\":\n%s", name, want,
                      tr.msg ? tr.msg : "(none)");
    }
    /* The cycle-stepped reference engine gives the same result, byte for
     * byte (determinism across engines). */
    {
        TestRun ts;
        run_text_limits(&ts, text, (const char *const *) sets->pdata, SIM_ENGINE_STEPPED, max_cycles, max_ops);
        g_autofree char *a = outcome(&tr);
        g_autofree char *b = outcome(&ts);
        ck_assert_msg(strcmp(a, b) == 0, "%s: the engines differ:\n--- event\n%s\n--- stepped\n%s", name, a, b);
        test_run_clear(&ts);
    }
    for (guint i = 0; i < warns->len; i++) {
        const char *want = g_ptr_array_index(warns, i);
        bool found = false;
        const SimStats *st = tr.run.sm ? sm_stats(tr.run.sm) : NULL;
        for (guint k = 0; st && k < st->warnings->len; k++) {
            found |= strstr(g_ptr_array_index(st->warnings, k), want) != NULL;
        }
        ck_assert_msg(found, "%s: no warning contains \"%s\"", name, want);
    }
    if (no_warnings) {
        const SimStats *st = tr.run.sm ? sm_stats(tr.run.sm) : NULL;
        ck_assert_msg(st != NULL && st->warnings->len == 0, "%s: expected no warning, got: %s", name,
                      st && st->warnings->len ? (const char *) g_ptr_array_index(st->warnings, 0) : "(no run)");
    }
    test_run_clear(&tr);
    g_ptr_array_free(expects, TRUE);
    g_ptr_array_free(warns, TRUE);
    g_ptr_array_free(sets, TRUE);
}

/* g_ptr_array_sort passes pointers to the elements (char **). */
static gint compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Runs every .trace of tests/SUBDIR; there must be at least `least`. */
static void check_dir(const char *subdir, guint least)
{
    g_autofree char *dir = g_build_filename(SRCDIR, "tests", subdir, NULL);
    GDir *d = g_dir_open(dir, 0, NULL);
    ck_assert_ptr_nonnull(d);
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const char *n;
    while ((n = g_dir_read_name(d)) != NULL) {
        if (g_str_has_suffix(n, ".trace")) {
            g_ptr_array_add(names, g_strdup(n));
        }
    }
    g_dir_close(d);
    g_ptr_array_sort(names, compare_names);
    ck_assert_uint_ge(names->len, least);
    for (guint i = 0; i < names->len; i++) {
        check_program(dir, g_ptr_array_index(names, i));
    }
    g_ptr_array_free(names, TRUE);
}

START_TEST(every_program_behaves_as_stated)
{
    check_dir("programs", 20);
}
END_TEST

/* The examples of the error catalogue (docs/errors.md). */
START_TEST(every_error_example_behaves_as_stated)
{
    check_dir("errors", 100);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("programs");
    TCase *tc = tcase_create("expectations");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, every_program_behaves_as_stated);
    tcase_add_test(tc, every_error_example_behaves_as_stated);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
