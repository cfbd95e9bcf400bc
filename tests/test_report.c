/* test_report.c: the verdict, the JSON document and the CSV row. */
#include "test_util.h"

#include <json-glib/json-glib.h>

/* The architecture's hash changes with any resolved value, not with the
 * way the values were written. */
START_TEST(arch_hash_covers_values_only)
{
    ArchParams a, b;
    char ha[65], hb[65];
    ck_assert(arch_load("h100", NULL, &a, NULL));
    arch_sha256(&a, ha);
    ck_assert_uint_eq(strlen(ha), 64);
    /* The same values from a file with other comments and spacing. */
    g_autofree char *path = g_build_filename(SRCDIR, "arch", "h100.ini", NULL);
    g_autofree char *text = NULL;
    gsize len = 0;
    ck_assert(g_file_get_contents(path, &text, &len, NULL));
    g_autofree char *other = g_strdup_printf("# another comment\n\n%s\n# the end\n", text);
    ck_assert(arch_load_data("copy.ini", other, strlen(other), NULL, &b, NULL));
    arch_sha256(&b, hb);
    ck_assert_str_eq(ha, hb);
    /* One value more or less. */
    g_autoptr(GPtrArray) sets = g_ptr_array_new();
    g_ptr_array_add(sets, "dram.latency=687");
    ck_assert(arch_load("h100", sets, &b, NULL));
    arch_sha256(&b, hb);
    ck_assert_str_ne(ha, hb);
    g_ptr_array_set_size(sets, 0);
    g_ptr_array_add(sets, "mem.source=l2");
    ck_assert(arch_load("h100", sets, &b, NULL));
    arch_sha256(&b, hb);
    ck_assert_str_ne(ha, hb);
}
END_TEST

START_TEST(verdicts)
{
    SimStats s;
    sim_stats_init(&s, 4);
    s.cycles = 1000;
    s.state_total[WS_CONSUMER_WAIT] = 2400;
    s.state_total[WS_ISSUING] = 1600;
    g_autofree char *v1 = report_verdict(&s);
    ck_assert_msg(g_str_has_prefix(v1, "copy-latency bound: 60%"), "%s", v1);
    memset(s.state_total, 0, sizeof s.state_total);
    s.state_total[WS_ISSUING] = 3000;
    s.state_total[WS_DEPENDENCY] = 1000;
    g_autofree char *v2 = report_verdict(&s);
    ck_assert_msg(g_str_has_prefix(v2, "compute bound"), "%s", v2);
    memset(s.state_total, 0, sizeof s.state_total);
    s.state_total[WS_COPY_THROTTLE] = 3000;
    s.state_total[WS_ISSUING] = 1000;
    g_autofree char *v3 = report_verdict(&s);
    ck_assert_msg(g_str_has_prefix(v3, "copy-bandwidth bound"), "%s", v3);
    sim_stats_clear(&s);
}
END_TEST

/* with_staging_unified: at 2 stages the copies are exposed and one more
 * stage is what the sweep finds; at 4 every stage is ready before its wait
 * (what is left is the warps' own code and the wait call), so the verdict
 * must not ask for more stages. */
START_TEST(verdict_follows_exposed_time)
{
    char *text = read_source("traces/with_staging_unified.trace");
    const char *two[] = { "stages=2", NULL };
    const char *four[] = { "stages=4", NULL };
    TestRun tr;
    ck_assert_msg(run_text(&tr, text, two), "%s", tr.msg);
    g_autofree char *v2 = report_verdict(sm_stats(tr.run.sm));
    ck_assert_msg(g_str_has_prefix(v2, "copy-latency bound") && strstr(v2, "would hide it"), "%s", v2);
    test_run_clear(&tr);
    ck_assert_msg(run_text(&tr, text, four), "%s", tr.msg);
    g_autofree char *v4 = report_verdict(sm_stats(tr.run.sm));
    ck_assert_msg(g_str_has_prefix(v4, "compute bound") || g_str_has_prefix(v4, "wait-overhead bound"), "%s", v4);
    test_run_clear(&tr);
    g_free(text);
}
END_TEST

START_TEST(json_and_csv_are_well_formed)
{
    char *text = read_source("traces/with_staging_unified.trace");
    TestRun tr;
    ck_assert_msg(run_text(&tr, text, NULL), "%s", tr.msg);
    GArray *values = g_array_new(FALSE, FALSE, sizeof(int64_t));
    ReportInfo info;
    test_report_info(&tr, "t", "event", values, &info);
    GString *j = g_string_new(NULL);
    report_json(tr_stats(&tr), &info, REPORT_BY_ROLE, j);
    JsonParser *p = json_parser_new();
    GError *err = NULL;
    ck_assert_msg(json_parser_load_from_data(p, j->str, -1, &err), "%s", err ? err->message : "");
    JsonObject *o = json_node_get_object(json_parser_get_root(p));
    const char *keys[] = { "cycles", "warps", "params", "stalls", "overlap", "stages", "copies", "smem", "barriers" };
    for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
        ck_assert_msg(json_object_has_member(o, keys[i]), "missing %s", keys[i]);
    }
    double hidden = json_object_get_double_member(json_object_get_object_member(o, "overlap"), "hidden_copy_fraction");
    ck_assert(hidden >= 0.0 && hidden <= 1.0);
    ck_assert_int_eq(json_object_get_int_member(json_object_get_object_member(o, "params"), "stages"), 2);
    g_object_unref(p);
    GString *h = g_string_new(NULL), *r = g_string_new(NULL);
    report_csv_header(&info, h);
    report_csv_row(tr_stats(&tr), &info, r);
    gchar **hc = g_strsplit(h->str, ",", -1), **rc = g_strsplit(r->str, ",", -1);
    ck_assert_uint_eq(g_strv_length(hc), g_strv_length(rc));
    g_strfreev(hc);
    g_strfreev(rc);
    g_string_free(h, TRUE);
    g_string_free(r, TRUE);
    g_string_free(j, TRUE);
    g_array_free(values, TRUE);
    test_run_clear(&tr);
    g_free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("formats");
    tcase_add_test(tc, verdicts);
    tcase_add_test(tc, verdict_follows_exposed_time);
    tcase_add_test(tc, json_and_csv_are_well_formed);
    tcase_add_test(tc, arch_hash_covers_values_only);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
