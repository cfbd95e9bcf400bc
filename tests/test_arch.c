/* test_arch.c: architecture files load completely, reject unknown keys and
 * bad values, accept overrides, and round-trip through `arch show`. */
#include "test_util.h"

#include "models/arch.h"

#include <stdio.h>

START_TEST(bundled_files_load)
{
    for (const char *const *b = arch_bundled(); *b; b++) {
        ArchParams a;
        GError *err = NULL;
        ck_assert_msg(arch_load(*b, NULL, &a, &err), "%s: %s", *b, err ? err->message : "");
        ck_assert_str_eq(a.name, *b);
        ck_assert_int_ge(arch_class_index(&a, "imad"), 0);
    }
}
END_TEST

START_TEST(overrides)
{
    ArchParams a;
    GError *err = NULL;
    GPtrArray *sets = g_ptr_array_new();
    g_ptr_array_add(sets, "dram.latency=1234");
    g_ptr_array_add(sets, "mem.source=l2");
    g_ptr_array_add(sets, "inst.ffma.latency=9");
    g_ptr_array_add(sets, "sched.policy=gto");
    ck_assert(arch_load("h100", sets, &a, &err));
    ck_assert_int_eq(a.dram_latency, 1234);
    ck_assert_int_eq(a.source, MEM_SOURCE_L2);
    ck_assert_int_eq(a.classes[arch_class_index(&a, "ffma")].latency, 9);
    ck_assert_int_eq(a.policy, SCHED_GTO);
    g_ptr_array_set_size(sets, 0);
    g_ptr_array_add(sets, "dram.latencyy=5");
    ck_assert(!arch_load("h100", sets, &a, &err));
    ck_assert_ptr_nonnull(strstr(err->message, "unknown architecture key 'dram.latencyy'"));
    g_clear_error(&err);
    g_ptr_array_set_size(sets, 0);
    g_ptr_array_add(sets, "sm.blocks=0");
    ck_assert(!arch_load("h100", sets, &a, &err));
    ck_assert_ptr_nonnull(strstr(err->message, "out of range"));
    g_clear_error(&err);
    g_ptr_array_set_size(sets, 0);
    g_ptr_array_add(sets, "mem.source=hbm");
    ck_assert(!arch_load("h100", sets, &a, &err));
    ck_assert_ptr_nonnull(strstr(err->message, "dram or l2"));
    g_clear_error(&err);
    ck_assert(!arch_load("b300", NULL, &a, &err));
    ck_assert_ptr_nonnull(strstr(err->message, "bundled: a100, h100, h200"));
    g_clear_error(&err);
    g_ptr_array_free(sets, TRUE);
}
END_TEST

START_TEST(show_round_trips_and_files_are_checked)
{
    ArchParams a, b;
    GError *err = NULL;
    ck_assert(arch_load("a100", NULL, &a, &err));
    GString *s = g_string_new(NULL);
    arch_format(&a, s);
    char *path = g_build_filename(g_get_tmp_dir(), "smpipe-arch-test.ini", NULL);
    ck_assert(g_file_set_contents(path, s->str, -1, NULL));
    ck_assert_msg(arch_load(path, NULL, &b, &err), "%s", err ? err->message : "");
    ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
    /* A file missing a key, or with an unknown one, is refused. */
    GString *bad = g_string_new(s->str);
    g_string_replace(bad, "latency = 459\n", "", 1);
    ck_assert(g_file_set_contents(path, bad->str, -1, NULL));
    ck_assert(!arch_load(path, NULL, &b, &err));
    ck_assert_ptr_nonnull(strstr(err->message, "missing key [dram] latency"));
    g_clear_error(&err);
    g_string_assign(bad, s->str);
    g_string_append(bad, "\n[dram]\nspeed = 3\n");
    ck_assert(g_file_set_contents(path, bad->str, -1, NULL));
    ck_assert(!arch_load(path, NULL, &b, &err));
    g_clear_error(&err);
    remove(path);
    g_free(path);
    g_string_free(s, TRUE);
    g_string_free(bad, TRUE);
}
END_TEST

START_TEST(every_value_cites_a_source)
{
    for (const char *const *b = arch_bundled(); *b; b++) {
        char *file = arch_find_file(*b);
        char *text = NULL;
        ck_assert(g_file_get_contents(file, &text, NULL, NULL));
        char **lines = g_strsplit(text, "\n", -1);
        for (int i = 0; lines[i]; i++) {
            const char *l = lines[i];
            if (l[0] == '\0' || l[0] == '#' || l[0] == '[') {
                continue;
            }
            /* The comment lines right above a key must contain "source:". */
            bool cited = false;
            for (int k = i - 1; k >= 0 && lines[k][0] == '#'; k--) {
                cited |= strstr(lines[k], "source:") != NULL;
            }
            ck_assert_msg(cited, "%s: '%s' has no '# source:' comment above it", file, l);
        }
        g_strfreev(lines);
        g_free(text);
        g_free(file);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("arch");
    TCase *tc = tcase_create("files");
    tcase_add_test(tc, bundled_files_load);
    tcase_add_test(tc, overrides);
    tcase_add_test(tc, show_round_trips_and_files_are_checked);
    tcase_add_test(tc, every_value_cites_a_source);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
