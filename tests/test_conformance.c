/* test_conformance.c: the data side of tests/conformance (NVIDIA's
 * libcudacxx pipeline and memcpy_async tests ported as traces; the command
 * side, `smpipe run` on both engines and `smpipe cuda`, is
 * test_conformance.sh).  Each trace runs with the functional model for
 * every '# sets:' line, on both engines, and its '# expect-data:' lines
 * must hold:
 *   # expect-data: DST = SRC                every byte of global buffer DST
 *                                           is SRC's initial data
 *   # expect-data: DST[a..b] = SRC[c..d]    elements a..b of DST are
 *                                           elements c..d of SRC before the
 *                                           run (SRC = DST: left untouched)
 * Global buffers start as sm_initial_word(buffer, word), the pattern the
 * generated CUDA program fills them with.  A trace whose '# expect-exit:'
 * is not 0 breaks a precondition on purpose: both engines must fail with
 * that status and its '# expect:' messages. */
#include "test_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/sm.h"

/* The index of the global buffer called `name` (fails the test otherwise). */
static int32_t buffer_named(const Program *prog, const char *name, const char *file)
{
    for (guint i = 0; i < prog->buffers->len; i++) {
        const ProgBuffer *b = &g_array_index(prog->buffers, ProgBuffer, i);
        if (strcmp(b->name, name) == 0) {
            ck_assert_msg(b->space == SPACE_GLOBAL, "%s: expect-data names '%s', not a global buffer", file, name);
            return (int32_t) i;
        }
    }
    ck_abort_msg("%s: expect-data names '%s', which is not a buffer", file, name);
    return -1;
}

/* Parses "name" or "name[a..b]" (elements; the whole buffer without []):
 * returns the buffer and sets *from and *to. */
static int32_t side(const Program *prog, const char *text, const char *file, int64_t *from, int64_t *to)
{
    g_autofree char *s = g_strstrip(g_strdup(text));
    char *br = strchr(s, '[');
    if (br != NULL) {
        *br = '\0';
        int got = sscanf(br + 1, "%" SCNd64 "..%" SCNd64 "]", from, to);
        ck_assert_msg(got == 2, "%s: bad range in '%s'", file, text);
    }
    int32_t b = buffer_named(prog, g_strstrip(s), file);
    const ProgBuffer *pb = &g_array_index(prog->buffers, ProgBuffer, b);
    if (br == NULL) {
        *from = 0;
        *to = pb->count - 1;
    }
    ck_assert_msg(*from >= 0 && *from <= *to && *to < pb->count, "%s: range outside '%s'", file, pb->name);
    return b;
}

/* The byte at offset `at` of global buffer b before the run. */
static uint8_t initial_byte(int32_t b, int64_t at)
{
    return (uint8_t) (sm_initial_word(b, at / 4) >> (8 * (at % 4)));
}

/* Checks one '# expect-data:' line against the run's global memory. */
static void check_data(const TestRun *tr, const char *line, const char *file, const char *sets)
{
    const Program *prog = tr->run.prog;
    g_auto(GStrv) parts = g_strsplit(line, "=", 2);
    ck_assert_msg(parts[0] && parts[1], "%s: expected DST = SRC in '%s'", file, line);
    int64_t df, dt, sf, st;
    int32_t d = side(prog, parts[0], file, &df, &dt);
    int32_t s = side(prog, parts[1], file, &sf, &st);
    const ProgBuffer *db = &g_array_index(prog->buffers, ProgBuffer, d);
    const ProgBuffer *sb = &g_array_index(prog->buffers, ProgBuffer, s);
    int64_t esz = db->bytes / db->count;
    ck_assert_msg(esz == sb->bytes / sb->count && dt - df == st - sf, "%s: '%s' compares unequal sizes", file, line);
    int64_t n;
    const uint8_t *data = sm_global_data(tr->run.sm, d, &n);
    ck_assert_int_eq(n, db->bytes);
    for (int64_t k = 0; k < (dt - df + 1) * esz; k++) {
        uint8_t want = initial_byte(s, sf * esz + k);
        ck_assert_msg(data[df * esz + k] == want, "%s (%s): '%s': byte %" G_GINT64_FORMAT " of %s is 0x%02x, expected 0x%02x",
                      file, sets, line, df * esz + k, db->name, data[df * esz + k], want);
    }
}

/* Runs tests/conformance/NAME for each of its '# sets:' lines, on both
 * engines with the functional model, and checks its expectations. */
static void check_trace(const char *dir, const char *name)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(path, &text, NULL, NULL));
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    GPtrArray *configs = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *datas = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *expects = g_ptr_array_new_with_free_func(g_free);
    int expect_exit = -1;
    bool cited = false;
    for (int i = 0; lines[i]; i++) {
        if (g_str_has_prefix(lines[i], "# sets:")) {
            g_ptr_array_add(configs, g_strstrip(g_strdup(lines[i] + 7)));
        } else if (g_str_has_prefix(lines[i], "# expect-data:")) {
            g_ptr_array_add(datas, g_strstrip(g_strdup(lines[i] + 14)));
        } else if (g_str_has_prefix(lines[i], "# expect:")) {
            g_ptr_array_add(expects, g_strstrip(g_strdup(lines[i] + 9)));
        } else if (g_str_has_prefix(lines[i], "# expect-exit:")) {
            expect_exit = atoi(lines[i] + 14);
        }
        cited |= strstr(lines[i], "NVIDIA/cccl") != NULL && g_str_has_prefix(lines[i], "#");
    }
    ck_assert_msg(cited, "%s: no comment cites the upstream NVIDIA/cccl file", name);
    ck_assert_msg(expect_exit >= 0, "%s: no '# expect-exit:' line", name);
    ck_assert_msg(expect_exit != 0 || datas->len > 0, "%s: no '# expect-data:' line", name);
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
        for (guint k = 0; expect_exit == 0 && k < datas->len; k++) {
            check_data(&ev, g_ptr_array_index(datas, k), name, cfg);
            check_data(&stp, g_ptr_array_index(datas, k), name, cfg);
        }
        test_run_clear(&ev);
        test_run_clear(&stp);
        g_ptr_array_free(sl, TRUE);
    }
    g_ptr_array_free(configs, TRUE);
    g_ptr_array_free(datas, TRUE);
    g_ptr_array_free(expects, TRUE);
}

START_TEST(every_ported_test_moves_the_expected_data)
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

/* The checker itself can fail: a copy whose destination is not its source
 * is found. */
START_TEST(a_wrong_expectation_is_found)
{
    const char *text = "smpipe 1\nblock 32\nglobal int a[32]\nglobal int b[32]\nglobal int c[32]\n"
                       "var p = make_pipeline()\np.producer_acquire()\n"
                       "memcpy_async(thread, b + threadIdx.x, a + threadIdx.x, 4, p)\n"
                       "p.producer_commit()\np.consumer_wait()\np.consumer_release()\n";
    TestRun tr;
    ck_assert(run_text_full(&tr, "t.trace", text, NULL, SIM_ENGINE_EVENT, 100000000, 0, true));
    int64_t n;
    const uint8_t *data = sm_global_data(tr.run.sm, 1, &n);
    int64_t same_as_a = 0;
    int64_t same_as_c = 0;
    for (int64_t k = 0; k < n; k++) {
        same_as_a += data[k] == initial_byte(0, k);
        same_as_c += data[k] == initial_byte(2, k);
    }
    ck_assert_int_eq(same_as_a, n);
    ck_assert_int_lt(same_as_c, n);
    test_run_clear(&tr);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("conformance");
    TCase *tc = tcase_create("data");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, every_ported_test_moves_the_expected_data);
    tcase_add_test(tc, a_wrong_expectation_is_found);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
