/* test_conformance.c: the data side of tests/conformance (NVIDIA's
 * libcudacxx pipeline and memcpy_async tests ported as traces; the command
 * side, `smpipe run` on both engines and `smpipe cuda`, is
 * test_conformance.sh).  Each trace runs with the functional model for
 * every '# sets:' line, on both engines, which must agree: its 'expect'
 * statements (the values the upstream test asserts; a valid trace has at
 * least one) must hold.  The generated CUDA program checks the same
 * statements on a GPU.  A trace whose '# expect-exit:' is not 0 breaks a
 * precondition on purpose: both engines must fail with that status and its
 * '# expect:' messages. */
#include "test_util.h"

#include <stdlib.h>

/* Runs tests/conformance/NAME for each of its '# sets:' lines, on both
 * engines with the functional model, and checks its expectations. */
static void check_trace(const char *dir, const char *name)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(path, &text, NULL, NULL));
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    GPtrArray *configs = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *expects = g_ptr_array_new_with_free_func(g_free);
    int expect_exit = -1;
    bool cited = false;
    int asserts = 0;
    for (int i = 0; lines[i]; i++) {
        if (g_str_has_prefix(lines[i], "# sets:")) {
            g_ptr_array_add(configs, g_strstrip(g_strdup(lines[i] + 7)));
        } else if (g_str_has_prefix(lines[i], "# expect:")) {
            g_ptr_array_add(expects, g_strstrip(g_strdup(lines[i] + 9)));
        } else if (g_str_has_prefix(lines[i], "# expect-exit:")) {
            expect_exit = atoi(lines[i] + 14);
        }
        cited |= strstr(lines[i], "NVIDIA/cccl") != NULL && g_str_has_prefix(lines[i], "#");
        asserts += g_str_has_prefix(g_strchug(lines[i]), "expect ");
    }
    ck_assert_msg(cited, "%s: no comment cites the upstream NVIDIA/cccl file", name);
    ck_assert_msg(expect_exit >= 0, "%s: no '# expect-exit:' line", name);
    ck_assert_msg(expect_exit != 0 || asserts > 0, "%s: no 'expect' statement (the upstream test's assertions)", name);
    ck_assert_msg(expect_exit == 0 || expects->len > 0, "%s: no '# expect:' line", name);
    if (configs->len == 0) {
        g_ptr_array_add(configs, g_strdup(""));
    }
    for (guint c = 0; c < configs->len; c++) {
        const char *cfg = g_ptr_array_index(configs, c);
        g_auto(GStrv) sets = g_strsplit_set(cfg, " ", -1);
        GPtrArray *sl = g_ptr_array_new();
        for (int k = 0; sets[k]; k++) {
            if (sets[k][0] != '\0') {
                g_ptr_array_add(sl, sets[k]);
            }
        }
        g_ptr_array_add(sl, NULL);
        TestRun ev;
        TestRun stp;
        run_text_full(&ev, name, text, (const char *const *) sl->pdata, SIM_ENGINE_EVENT, 100000000, 0, true);
        run_text_full(&stp, name, text, (const char *const *) sl->pdata, SIM_ENGINE_STEPPED, 100000000, 0, true);
        ck_assert_msg(ev.status == expect_exit, "%s (%s): exit %d, expected %d: %s", name, cfg, ev.status, expect_exit,
                      ev.msg ? ev.msg : "");
        ck_assert_msg(stp.status == expect_exit, "%s (%s, stepped): exit %d, expected %d: %s", name, cfg, stp.status,
                      expect_exit, stp.msg ? stp.msg : "");
        for (guint k = 0; k < expects->len; k++) {
            const char *want = g_ptr_array_index(expects, k);
            ck_assert_msg(ev.msg && strstr(ev.msg, want), "%s (%s): the message lacks '%s'", name, cfg, want);
            ck_assert_msg(stp.msg && strcmp(ev.msg, stp.msg) == 0, "%s (%s): the engines differ", name, cfg);
        }
        if (expect_exit == 0) {
            ck_assert_msg(tr_stats(&ev)->cycles == tr_stats(&stp)->cycles, "%s (%s): the engines differ", name, cfg);
        }
        test_run_clear(&ev);
        test_run_clear(&stp);
        g_ptr_array_free(sl, TRUE);
    }
    g_ptr_array_free(configs, TRUE);
    g_ptr_array_free(expects, TRUE);
}

START_TEST(every_ported_test_holds_its_expectations)
{
    g_autofree char *dir = g_build_filename(SRCDIR, "tests", "conformance", NULL);
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
    ck_assert_uint_ge(names->len, 1);
    for (guint i = 0; i < names->len; i++) {
        check_trace(dir, g_ptr_array_index(names, i));
    }
    g_ptr_array_free(names, TRUE);
}
END_TEST

/* The check can fail: a ported trace with one expected value changed
 * (memcpy_async.trace's destination after the void* copy, 24 -> 25) is
 * refused by both engines, naming the element. */
START_TEST(a_wrong_expectation_is_found)
{
    g_autofree char *path = g_build_filename(SRCDIR, "tests", "conformance", "memcpy_async.trace", NULL);
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(path, &text, NULL, NULL));
    char *at = strstr(text, "expect gd[i] == 24");
    ck_assert_ptr_nonnull(at);
    at[strlen("expect gd[i] == 2")] = '5';
    const SimEngineKind engines[] = { SIM_ENGINE_EVENT, SIM_ENGINE_STEPPED };
    for (size_t e = 0; e < G_N_ELEMENTS(engines); e++) {
        TestRun tr;
        run_text_full(&tr, "memcpy_async.trace", text, NULL, engines[e], 100000000, 0, true);
        ck_assert_int_eq(tr.status, 1);
        ck_assert_msg(tr.msg && strstr(tr.msg, "expect failed: gd[0] is 24, expected 25"), "%s", tr.msg ? tr.msg : "");
        test_run_clear(&tr);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("conformance");
    TCase *tc = tcase_create("data");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, every_ported_test_holds_its_expectations);
    tcase_add_test(tc, a_wrong_expectation_is_found);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
