/* test_arch.c: architecture files load completely, reject unknown keys and
 * bad values, accept overrides, and round-trip through `arch show`. */
#include "test_util.h"

#include "models/arch.h"
#include "sim/core/fileio.h"

#include <math.h>
#include <stdio.h>

/* Where arch files and scripts are looked for: an installed smpipe reads
 * its prefix's share/smpipe before the source tree it was built from; one
 * run from the build directory reads the source tree first; the
 * environment comes before both. */
START_TEST(installed_smpipe_prefers_its_prefix)
{
    const char *build = "/nonexistent/src/build";
    g_auto(GStrv) installed = sim_data_dirs_for(NULL, "/opt/x/bin/smpipe", build, "/nonexistent/src",
                                                "/opt/x/share/smpipe");
    ck_assert_uint_eq(g_strv_length(installed), 2);
    ck_assert_str_eq(installed[0], "/opt/x/share/smpipe");
    ck_assert_str_eq(installed[1], "/nonexistent/src");
    g_auto(GStrv) built = sim_data_dirs_for(NULL, "/nonexistent/src/build/smpipe", build, "/nonexistent/src",
                                            "/opt/x/share/smpipe");
    ck_assert_str_eq(built[0], "/nonexistent/src");
    /* A sibling folder whose name starts like the build folder's is not in it. */
    g_auto(GStrv) sibling = sim_data_dirs_for(NULL, "/nonexistent/src/build2/smpipe", build, "/nonexistent/src",
                                              "/opt/x/share/smpipe");
    ck_assert_str_eq(sibling[0], "/opt/x/share/smpipe");
    g_auto(GStrv) env = sim_data_dirs_for("/env", "/opt/x/bin/smpipe", build, "/nonexistent/src",
                                          "/opt/x/share/smpipe");
    ck_assert_uint_eq(g_strv_length(env), 3);
    ck_assert_str_eq(env[0], "/env");
    ck_assert_str_eq(env[1], "/opt/x/share/smpipe");
    /* This test runs from the build directory: the source tree first. */
    g_auto(GStrv) here = sim_data_dirs();
    ck_assert_str_eq(here[g_getenv("SMPIPE_DATADIR") != NULL && *g_getenv("SMPIPE_DATADIR") ? 1 : 0], SMPIPE_SRCDIR);
}
END_TEST

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

/* A slower SM clock: what lies beyond the SM keeps its nanoseconds (fewer
 * cycles of latency, more bytes a cycle), what lies inside keeps its
 * cycles. */
START_TEST(memory_keeps_its_nanoseconds_at_another_clock)
{
    ArchParams a;
    GError *err = NULL;
    ck_assert_msg(arch_load("h100", NULL, &a, &err), "%s", err ? err->message : "");
    ArchParams b = a;
    arch_at_clock(&b, a.clock_mhz / 2);
    ck_assert_double_eq_tol(b.clock_mhz, a.clock_mhz / 2, 1e-9);
    ck_assert_int_eq(b.l2_latency, (a.l2_latency + 1) / 2);
    ck_assert_int_eq(b.dram_latency, (a.dram_latency + 1) / 2);
    for (int q = 0; q < ARCH_DRAM_QUANTILES; q++) {
        ck_assert_int_eq(b.dram_quantile[q], (a.dram_quantile[q] + 1) / 2);
    }
    ck_assert_double_eq_tol(b.dram_queue_cycles, a.dram_queue_cycles / 2, 1e-9);
    ck_assert_double_eq_tol(b.dram_write_queue, a.dram_write_queue / 2, 1e-9);
    ck_assert_double_eq_tol(b.dram_bytes_per_clk, a.dram_bytes_per_clk * 2, 1e-9);
    ck_assert_double_eq_tol(b.l2_bytes_per_clk, a.l2_bytes_per_clk * 2, 1e-9);
    ck_assert_double_eq_tol(b.l2_bytes_per_clk_sm, a.l2_bytes_per_clk_sm * 2, 1e-9);
    ck_assert_int_eq(b.smem_latency, a.smem_latency);
    ck_assert_int_eq(b.l1_latency, a.l1_latency);
    ck_assert_int_eq(b.cp_async_wait, a.cp_async_wait);
    /* The bundled Hopper files measured the clock of a kernel with MMAs. */
    ck_assert(a.mma_clock_ratio > 0 && a.mma_clock_ratio < 1);
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
    /* The latency spread's quantiles must not decrease, and its block must
     * be a power of two. */
    g_ptr_array_set_size(sets, 0);
    g_ptr_array_add(sets, "dram.latency_p75=600");
    ck_assert(!arch_load("h100", sets, &a, &err));
    ck_assert_ptr_nonnull(strstr(err->message, "each must be at least the one before"));
    g_clear_error(&err);
    g_ptr_array_set_size(sets, 0);
    g_ptr_array_add(sets, "dram.spread_bytes=3000");
    ck_assert(!arch_load("h100", sets, &a, &err));
    ck_assert_ptr_nonnull(strstr(err->message, "dram.spread_bytes must be a power of two, not 3000"));
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

/* A scratch directory for derived files (newly allocated path). */
static char *scratch_dir(void)
{
    char *dir = g_dir_make_tmp("smpipe-arch-XXXXXX", NULL);
    ck_assert_ptr_nonnull(dir);
    return dir;
}

static void write_in(const char *dir, const char *name, const char *text)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    ck_assert(g_file_set_contents(path, text, -1, NULL));
}

static void remove_dir(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *n;
    while (d != NULL && (n = g_dir_read_name(d)) != NULL) {
        g_autofree char *p = g_build_filename(dir, n, NULL);
        remove(p);
    }
    if (d != NULL) {
        g_dir_close(d);
    }
    remove(dir);
}

START_TEST(relative_values_scale_the_value_before_them)
{
    ArchParams h, a;
    GError *err = NULL;
    ck_assert(arch_load("h100", NULL, &h, &err));
    g_autoptr(GPtrArray) sets = g_ptr_array_new();
    g_ptr_array_add(sets, "dram.latency=x2");
    g_ptr_array_add(sets, "l2.bytes_per_clk_sm=x0.5");
    g_ptr_array_add(sets, "inst.imad.latency=x1.5");
    g_ptr_array_add(sets, "dram.latency=x1.5");
    ck_assert_msg(arch_load("h100", sets, &a, &err), "%s", err ? err->message : "");
    /* In order: x2 then x1.5 of that; integers round to the nearest. */
    ck_assert_int_eq(a.dram_latency, (int64_t) round((double) (h.dram_latency * 2) * 1.5));
    ck_assert(a.l2_bytes_per_clk_sm == h.l2_bytes_per_clk_sm * 0.5);
    int imad = arch_class_index(&h, "imad");
    ck_assert_int_eq(a.classes[imad].latency, (int64_t) round((double) h.classes[imad].latency * 1.5));
    g_ptr_array_set_size(sets, 0);
    g_ptr_array_add(sets, "mem.source=x2");
    ck_assert(!arch_load("h100", sets, &a, &err));
    ck_assert_ptr_nonnull(strstr(err->message, "applies to numeric keys only"));
    g_clear_error(&err);
    /* A name may start with x: it is no factor. */
    g_ptr_array_set_size(sets, 0);
    g_ptr_array_add(sets, "arch.name=x2");
    ck_assert(arch_load("h100", sets, &a, &err));
    ck_assert_str_eq(a.name, "x2");
}
END_TEST

START_TEST(derived_file_is_its_base_with_its_overrides)
{
    g_autofree char *dir = scratch_dir();
    write_in(dir, "wide.ini", "[arch]\nbase = h100\n\n[l2]\nbytes_per_clk_sm = x2\n\n[inst.ffma]\nlatency = 7\n");
    /* A derived file may derive from another, by a path relative to it. */
    write_in(dir, "wider.ini", "[arch]\nbase = wide.ini\nname = wider\n[dram]\nlatency = 1000\n");
    g_autofree char *wide = g_build_filename(dir, "wide.ini", NULL);
    g_autofree char *wider = g_build_filename(dir, "wider.ini", NULL);
    ArchParams d, want;
    GError *err = NULL;
    g_autoptr(ArchSources) src = arch_sources_new();
    ck_assert_msg(arch_load_sourced(wider, NULL, &d, src, &err), "%s", err ? err->message : "");
    g_autoptr(GPtrArray) sets = g_ptr_array_new();
    g_ptr_array_add(sets, "arch.name=wider");
    g_ptr_array_add(sets, "l2.bytes_per_clk_sm=x2");
    g_ptr_array_add(sets, "inst.ffma.latency=7");
    g_ptr_array_add(sets, "dram.latency=1000");
    ck_assert(arch_load("h100", sets, &want, &err));
    ck_assert_int_eq(memcmp(&d, &want, sizeof d), 0);
    /* Every value says where it came from. */
    g_autofree char *h100 = arch_find_file("h100");
    ck_assert_str_eq(arch_sources_get(src, (guint) arch_key_find("l2.bytes_per_clk_sm")), wide);
    ck_assert_str_eq(arch_sources_get(src, (guint) arch_key_find("inst.ffma.latency")), wide);
    ck_assert_str_eq(arch_sources_get(src, (guint) arch_key_find("dram.latency")), wider);
    ck_assert_str_eq(arch_sources_get(src, (guint) arch_key_find("arch.name")), wider);
    ck_assert_str_eq(arch_sources_get(src, (guint) arch_key_find("l2.latency")), h100);
    ck_assert_str_eq(arch_sources_get(src, (guint) arch_key_find("inst.ffma.interval")), h100);
    /* Without a name, a derived file is named after its file. */
    ck_assert(arch_load(wide, NULL, &d, &err));
    ck_assert_str_eq(d.name, "wide");
    /* arch show of a derived file loads back to the same values. */
    g_autoptr(GString) shown = g_string_new(NULL);
    arch_format_sources(&d, src, shown);
    ck_assert_ptr_nonnull(strstr(shown->str, "# from "));
    write_in(dir, "shown.ini", shown->str);
    g_autofree char *shown_path = g_build_filename(dir, "shown.ini", NULL);
    ck_assert(arch_load(shown_path, NULL, &want, &err));
    ck_assert_int_eq(memcmp(&d, &want, sizeof d), 0);
    remove_dir(dir);
}
END_TEST

START_TEST(missing_and_circular_bases_are_refused)
{
    g_autofree char *dir = scratch_dir();
    write_in(dir, "a.ini", "[arch]\nbase = b.ini\n");
    write_in(dir, "b.ini", "[arch]\nbase = ./a.ini\n");
    write_in(dir, "lost.ini", "[arch]\nbase = nowhere.ini\n");
    g_autofree char *a = g_build_filename(dir, "a.ini", NULL);
    g_autofree char *lost = g_build_filename(dir, "lost.ini", NULL);
    ArchParams p;
    GError *err = NULL;
    ck_assert(!arch_load(a, NULL, &p, &err));
    ck_assert_msg(strstr(err->message, "circular base (a.ini -> b.ini -> a.ini)") != NULL, "%s", err->message);
    ck_assert(g_str_has_prefix(err->message, dir));
    g_clear_error(&err);
    ck_assert(!arch_load(lost, NULL, &p, &err));
    ck_assert_ptr_nonnull(strstr(err->message, "lost.ini: [arch] base = nowhere.ini: no such architecture"));
    g_clear_error(&err);
    remove_dir(dir);
}
END_TEST

START_TEST(base_chain_depth_is_limited)
{
    g_autofree char *dir = scratch_dir();
    for (int i = 0; i <= ARCH_MAX_BASE_DEPTH + 1; i++) {
        g_autofree char *name = g_strdup_printf("d%d.ini", i);
        g_autofree char *text = i == 0 ? g_strdup("[arch]\nbase = h100\n")
                                       : g_strdup_printf("[arch]\nbase = d%d.ini\n", i - 1);
        write_in(dir, name, text);
    }
    ArchParams p;
    GError *err = NULL;
    /* d15 has 16 bases (d14 ... d0, h100), d16 one more. */
    g_autofree char *ok = g_build_filename(dir, "d15.ini", NULL);
    ck_assert_msg(arch_load(ok, NULL, &p, &err), "%s", err ? err->message : "");
    g_autofree char *deep = g_build_filename(dir, "d16.ini", NULL);
    ck_assert(!arch_load(deep, NULL, &p, &err));
    ck_assert_msg(strstr(err->message, "more than 16 levels of base files") != NULL, "%s", err->message);
    g_clear_error(&err);
    remove_dir(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("arch");
    TCase *dirs = tcase_create("data_dirs");
    tcase_add_test(dirs, installed_smpipe_prefers_its_prefix);
    suite_add_tcase(s, dirs);
    TCase *tc = tcase_create("files");
    tcase_add_test(tc, bundled_files_load);
    tcase_add_test(tc, overrides);
    tcase_add_test(tc, memory_keeps_its_nanoseconds_at_another_clock);
    tcase_add_test(tc, show_round_trips_and_files_are_checked);
    tcase_add_test(tc, every_value_cites_a_source);
    tcase_add_test(tc, relative_values_scale_the_value_before_them);
    tcase_add_test(tc, derived_file_is_its_base_with_its_overrides);
    tcase_add_test(tc, missing_and_circular_bases_are_refused);
    tcase_add_test(tc, base_chain_depth_is_limited);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
