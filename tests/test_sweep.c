/* test_sweep.c: the pieces of a sweep that need no simulation: --vary
 * lists and ranges, the point order, shards, the CSV table (quoting,
 * interrupted files, sorting), blocks per SM, and the stage-count
 * recommendation rule on hand-made tables whose answer is known. */
#include "test_util.h"

#include "sim/out/csv.h"
#include "sim/drivers/sweep.h"

/* The values of a list joined by spaces, or "ERROR: message". */
static char *list(const char *text, bool integers)
{
    g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func(g_free);
    GError *err = NULL;
    if (!sweep_parse_list(text, integers, values, &err)) {
        char *m = g_strdup_printf("ERROR: %s", err->message);
        g_error_free(err);
        return m;
    }
    g_ptr_array_add(values, NULL);
    return g_strjoinv(" ", (char **) values->pdata);
}

#define ASSERT_LIST(text, integers, want)                                   \
    do {                                                                    \
        g_autofree char *got_ = list(text, integers);                       \
        ck_assert_msg(strcmp(got_, want) == 0, "%s: got '%s', want '%s'", text, got_, want); \
    } while (0)

#define ASSERT_LIST_ERROR(text, integers, part)                             \
    do {                                                                    \
        g_autofree char *got_ = list(text, integers);                       \
        ck_assert_msg(g_str_has_prefix(got_, "ERROR: ") && strstr(got_, part) != NULL, \
                      "%s: got '%s', want an error with '%s'", text, got_, part); \
    } while (0)

START_TEST(lists_and_ranges)
{
    ASSERT_LIST("1,2,4", true, "1 2 4");
    ASSERT_LIST("1..8", true, "1 2 3 4 5 6 7 8");
    ASSERT_LIST("64..512:64", true, "64 128 192 256 320 384 448 512");
    ASSERT_LIST("64..500:64", true, "64 128 192 256 320 384 448");
    ASSERT_LIST("5..5", true, "5");
    ASSERT_LIST("-2..2:2", true, "-2 0 2");
    ASSERT_LIST(" 1 , 3..4 ,16", true, "1 3 4 16");
    ASSERT_LIST("007,+8", true, "7 8");
    ASSERT_LIST("dram,l2", false, "dram l2");
    ASSERT_LIST("46.6,93.2,400..600:100", false, "46.6 93.2 400 500 600");
}
END_TEST

START_TEST(bad_lists_say_why)
{
    ASSERT_LIST_ERROR("", true, "the list is empty");
    ASSERT_LIST_ERROR("1,,2", true, "item 2 of the list is empty");
    ASSERT_LIST_ERROR("1,", true, "item 2 of the list is empty");
    ASSERT_LIST_ERROR("8..1", true, "'8..1' is empty");
    ASSERT_LIST_ERROR("1..8:0", true, "the step must be positive");
    ASSERT_LIST_ERROR("1..8:-2", true, "the step must be positive");
    ASSERT_LIST_ERROR("1..", true, "is not a range");
    ASSERT_LIST_ERROR("..4", true, "is not a range");
    ASSERT_LIST_ERROR("1...4", true, "is not a range");
    ASSERT_LIST_ERROR("a..b", false, "is not a range");
    ASSERT_LIST_ERROR("1..4:x", true, "is not a range");
    ASSERT_LIST_ERROR("two", true, "'two' is not an integer");
    ASSERT_LIST_ERROR("1.5", true, "'1.5' is not an integer");
    ASSERT_LIST_ERROR("1,2,1", true, "1 appears twice");
    ASSERT_LIST_ERROR("1..4,3", true, "3 appears twice");
    ASSERT_LIST_ERROR("1..1000000000", true, "at most");
    ASSERT_LIST_ERROR("dr am", false, "is not a value");
}
END_TEST

START_TEST(axes_split_names)
{
    GError *err = NULL;
    g_autoptr(SweepAxis) a = sweep_axis_parse("stages=1..3", &err);
    ck_assert_ptr_nonnull(a);
    ck_assert_str_eq(a->name, "stages");
    ck_assert(!a->arch);
    ck_assert_uint_eq(a->values->len, 3);
    g_autoptr(SweepAxis) b = sweep_axis_parse("mem.source=dram,l2", &err);
    ck_assert_ptr_nonnull(b);
    ck_assert(b->arch);
    ck_assert_str_eq(g_ptr_array_index(b->values, 1), "l2");
    ck_assert_ptr_null(sweep_axis_parse("stages", &err));
    ck_assert(strstr(err->message, "expected NAME=LIST") != NULL);
    g_clear_error(&err);
    /* Trace parameters take integers; the message names the option. */
    ck_assert_ptr_null(sweep_axis_parse("stages=dram", &err));
    ck_assert_msg(g_str_has_prefix(err->message, "--vary stages=dram: "), "%s", err->message);
    g_clear_error(&err);
}
END_TEST

START_TEST(points_in_order)
{
    GError *err = NULL;
    g_autoptr(GPtrArray) axes = g_ptr_array_new_with_free_func((GDestroyNotify) sweep_axis_free);
    g_ptr_array_add(axes, sweep_axis_parse("a=1..3", &err));
    g_ptr_array_add(axes, sweep_axis_parse("b=10,20", &err));
    guint n = 0;
    ck_assert(sweep_count_points(axes, &n, &err));
    ck_assert_uint_eq(n, 6);
    /* The first axis varies slowest. */
    const guint want[6][2] = { { 0, 0 }, { 0, 1 }, { 1, 0 }, { 1, 1 }, { 2, 0 }, { 2, 1 } };
    for (guint p = 0; p < n; p++) {
        guint idx[2];
        sweep_point_indices(axes, p, idx);
        ck_assert_uint_eq(idx[0], want[p][0]);
        ck_assert_uint_eq(idx[1], want[p][1]);
    }
    g_ptr_array_add(axes, sweep_axis_parse("c=1..100000", &err));
    g_ptr_array_add(axes, sweep_axis_parse("d=1..100", &err));
    ck_assert(!sweep_count_points(axes, &n, &err));
    ck_assert(strstr(err->message, "more than") != NULL);
    g_clear_error(&err);
}
END_TEST

START_TEST(shards_cover_every_point_once)
{
    GError *err = NULL;
    SweepShard s;
    ck_assert(sweep_shard_parse("2/3", &s, &err));
    ck_assert_uint_eq(s.index, 2);
    ck_assert_uint_eq(s.count, 3);
    const char *bad[] = { "0/3", "4/3", "3", "a/b", "1/0", "/3", "1/", "-1/3" };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        ck_assert_msg(!sweep_shard_parse(bad[i], &s, &err), "%s accepted", bad[i]);
        ck_assert(strstr(err->message, "expected I/N") != NULL);
        g_clear_error(&err);
    }
    for (guint p = 0; p < 50; p++) {
        int owners = 0;
        for (guint i = 1; i <= 3; i++) {
            SweepShard sh = { i, 3 };
            owners += sweep_shard_has(&sh, p);
        }
        ck_assert_int_eq(owners, 1);
    }
    SweepShard one = { 1, 1 };
    ck_assert(sweep_shard_has(&one, 7));
}
END_TEST

static SweepTable *table_ok(const char *text)
{
    GError *err = NULL;
    SweepTable *t = sweep_table_parse("t.csv", text, strlen(text), false, NULL, &err);
    ck_assert_msg(t != NULL, "%s", err ? err->message : "");
    return t;
}

static char *table_err(const char *text, bool allow_torn)
{
    GError *err = NULL;
    SweepTable *t = sweep_table_parse("t.csv", text, strlen(text), allow_torn, NULL, &err);
    ck_assert_msg(t == NULL, "accepted:\n%s", text);
    char *m = g_strdup(err->message);
    g_error_free(err);
    return m;
}

START_TEST(csv_quoting_round_trips)
{
    g_autoptr(GString) line = g_string_new("0,1,failed,");
    csv_append_field(line, "a.trace:3: x, y and \"z\"");
    ck_assert_str_eq(line->str, "0,1,failed,\"a.trace:3: x, y and \"\"z\"\"\"");
    g_autofree char *text = g_strdup_printf("point,stages,status,error\n%s\n", line->str);
    g_autoptr(SweepTable) t = table_ok(text);
    ck_assert_uint_eq(t->naxes, 1);
    ck_assert_uint_eq(t->rows->len, 1);
    const SweepRow *r = g_ptr_array_index(t->rows, 0);
    ck_assert_str_eq(sweep_row_field(t, r, "error"), "a.trace:3: x, y and \"z\"");
    ck_assert_str_eq(sweep_row_field(t, r, "nosuch"), "");
    /* Formatting writes the lines back as read. */
    g_autoptr(GString) out = g_string_new(NULL);
    sweep_table_format(t, out);
    ck_assert_str_eq(out->str, text);
    /* The splitter alone: quoted commas, empty fields, broken quotes. */
    g_autoptr(GPtrArray) f = g_ptr_array_new_with_free_func(g_free);
    ck_assert(csv_split_line("\"a,b\",,c", f));
    ck_assert_uint_eq(f->len, 3);
    ck_assert_str_eq(g_ptr_array_index(f, 0), "a,b");
    ck_assert_str_eq(g_ptr_array_index(f, 1), "");
    ck_assert(!csv_split_line("\"open", f));
    ck_assert(!csv_split_line("\"a\"x,b", f));
}
END_TEST

START_TEST(tables_reject_what_is_not_a_sweep)
{
    g_autofree char *e1 = table_err("", false);
    ck_assert(strstr(e1, "empty") != NULL);
    g_autofree char *e2 = table_err("cycles,warps\n1,2\n", false);
    ck_assert(strstr(e2, "must start with 'point'") != NULL);
    g_autofree char *e3 = table_err("point,stages,cycles\n0,1,2\n", false);
    ck_assert(strstr(e3, "no 'status' column") != NULL);
    g_autofree char *e4 = table_err("point,stages,status\n0,1\n", false);
    ck_assert_msg(strstr(e4, "t.csv:2: the row has 2 fields, the header 3") != NULL, "%s", e4);
    g_autofree char *e5 = table_err("point,stages,status\nx,1,ok\n", false);
    ck_assert(strstr(e5, "not a point index") != NULL);
    g_autofree char *e6 = table_err("point,stages,status\n0,1,\"ok\n", false);
    ck_assert(strstr(e6, "fields") != NULL);
}
END_TEST

START_TEST(interrupted_tables)
{
    const char *text = "point,stages,status\n1,2,ok\n0,1,ok\n2,3,o";
    /* A last line without its newline was cut short. */
    g_autofree char *e = table_err(text, false);
    ck_assert(strstr(e, "incomplete") != NULL);
    GError *err = NULL;
    bool torn = false;
    g_autoptr(SweepTable) t = sweep_table_parse("t.csv", text, strlen(text), true, &torn, &err);
    ck_assert_ptr_nonnull(t);
    ck_assert(torn);
    ck_assert_uint_eq(t->rows->len, 2);
    /* Rows come back in point order. */
    ck_assert(sweep_table_sort(t, &err));
    ck_assert_uint_eq(((SweepRow *) g_ptr_array_index(t->rows, 0))->point, 0);
    ck_assert_uint_eq(((SweepRow *) g_ptr_array_index(t->rows, 1))->point, 1);
}
END_TEST

START_TEST(sorting_drops_copies_and_refuses_conflicts)
{
    GError *err = NULL;
    g_autoptr(SweepTable) t = table_ok("point,stages,status\n2,3,ok\n0,1,ok\n2,3,ok\n1,2,ok\n");
    ck_assert(sweep_table_sort(t, &err));
    ck_assert_uint_eq(t->rows->len, 3);
    g_autoptr(SweepTable) c = table_ok("point,stages,status\n0,1,ok\n0,1,failed\n");
    ck_assert(!sweep_table_sort(c, &err));
    ck_assert(strstr(err->message, "point 0 has two different rows") != NULL);
    g_clear_error(&err);
}
END_TEST

static const char *occupancy_trace =
    "smpipe 1\n"
    "param threads = 128 in 1..1024\n"
    "param words = 1 in 1..100000\n"
    "block threads\n"
    "shared int buf[words]\n"
    "var x = 0\n";

static int64_t blocks_for(const char *threads, const char *words, const char **limit)
{
    GError *err = NULL;
    g_autoptr(Trace) t = parse_ok(occupancy_trace);
    ArchParams a;
    ck_assert(arch_load("h100", NULL, &a, &err));
    g_autoptr(GArray) o = g_array_new(FALSE, FALSE, sizeof(ProgParamOverride));
    ProgParamOverride p1 = { "threads", g_ascii_strtoll(threads, NULL, 10) };
    ProgParamOverride p2 = { "words", g_ascii_strtoll(words, NULL, 10) };
    g_array_append_val(o, p1);
    g_array_append_val(o, p2);
    g_autoptr(Program) prog = program_new(t, o, 1, &err);
    ck_assert_msg(prog != NULL, "%s", err ? err->message : "");
    return sweep_blocks_per_sm(prog, &a, limit);
}

START_TEST(blocks_per_sm_take_the_scarcest_resource)
{
    const char *limit = NULL;
    /* h100: 233472 B of shared memory per SM, 1024 reserved per block:
     * 25000 words = 100000 B + 1024 -> 2 blocks. */
    ck_assert_int_eq(blocks_for("128", "25000", &limit), 2);
    ck_assert_str_eq(limit, "shared_memory");
    /* 2048 threads per SM. */
    ck_assert_int_eq(blocks_for("1024", "1", &limit), 2);
    ck_assert_str_eq(limit, "threads");
    /* 32 blocks at most. */
    ck_assert_int_eq(blocks_for("32", "1", &limit), 32);
    ck_assert_str_eq(limit, "max_blocks");
    /* More than a block may have: none fits. */
    ck_assert_int_eq(blocks_for("32", "60000", &limit), 0);
    ck_assert_str_eq(limit, "shared_memory");
}
END_TEST

/* A sweep table with the columns the rule reads: stages x other, cycles,
 * statuses, and stall columns filled for the explanation. */
static SweepTable *hand_table(const char *const *rows)
{
    g_autoptr(GString) text = g_string_new("point,threads,stages,status,cycles,smem_per_block,cp_async_bytes,"
                                           "stage_instances,stall_consumer_wait,stall_dependency,blocks_per_sm,"
                                           "occupancy_limit,error\n");
    for (int i = 0; rows[i] != NULL; i++) {
        g_string_append_printf(text, "%s\n", rows[i]);
    }
    return table_ok(text->str);
}

static int64_t recommended(const SweepTable *t, const SweepGroup *g)
{
    if (g->recommended < 0) {
        return -1;
    }
    return sweep_row_int(t, g_ptr_array_index(t->rows, g_array_index(g->rows, guint, g->recommended)), "stages");
}

START_TEST(the_rule_picks_the_fewest_stages_within_tolerance)
{
    /* Cycles 1000, 600, 420, 410, 405, 400: the best is 400 at 6. */
    const char *rows[] = {
        "0,128,1,ok,1000,2000,8192,16,600,100,16,threads,",
        "1,128,2,ok,600,2500,8192,16,300,100,16,threads,",
        "2,128,3,ok,420,3000,8192,16,100,100,16,threads,",
        "3,128,4,ok,410,3500,8192,16,90,100,16,threads,",
        "4,128,5,ok,405,4000,8192,16,80,100,16,threads,",
        "5,128,6,ok,400,4500,8192,16,70,100,16,threads,",
        NULL
    };
    g_autoptr(SweepTable) t = hand_table(rows);
    GError *err = NULL;
    const struct {
        double tolerance;
        int64_t stages;
    } cases[] = { { 2.0, 5 }, { 0.0, 6 }, { 2.5, 4 }, { 5.0, 3 }, { 50.0, 2 }, { 200.0, 1 } };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GPtrArray) g = sweep_recommend(t, "stages", cases[i].tolerance, &err);
        ck_assert_ptr_nonnull(g);
        ck_assert_uint_eq(g->len, 1);
        const SweepGroup *g0 = g_ptr_array_index(g, 0);
        ck_assert_str_eq(g0->others, "threads=128");
        ck_assert_msg(recommended(t, g0) == cases[i].stages, "tolerance %g: %" G_GINT64_FORMAT ", want %"
                      G_GINT64_FORMAT, cases[i].tolerance, recommended(t, g0), cases[i].stages);
    }
    /* Only a varied column can be the stage axis. */
    ck_assert_ptr_null(sweep_recommend(t, "cycles", 2.0, &err));
    ck_assert(strstr(err->message, "does not vary cycles") != NULL);
    g_clear_error(&err);
}
END_TEST

START_TEST(the_rule_works_per_combination_and_skips_failures)
{
    /* Two thread counts, rows out of stage order; stages=2 of threads=256
     * failed, so its best among 1 and 3 is 3; ties go to fewer stages. */
    const char *rows[] = {
        "0,128,3,ok,500,0,0,0,0,0,16,threads,",
        "1,128,1,ok,900,0,0,0,0,0,16,threads,",
        "2,128,2,ok,500,0,0,0,0,0,16,threads,",
        "3,256,3,ok,700,0,0,0,0,0,8,threads,",
        "4,256,1,ok,1000,0,0,0,0,0,8,threads,",
        "5,256,2,failed,,,,,,,8,threads,deadlock",
        "6,512,1,rejected,,,,,,,,,too big",
        NULL
    };
    g_autoptr(SweepTable) t = hand_table(rows);
    GError *err = NULL;
    g_autoptr(GPtrArray) g = sweep_recommend(t, "stages", 2.0, &err);
    ck_assert_uint_eq(g->len, 3);
    const SweepGroup *a = g_ptr_array_index(g, 0), *b = g_ptr_array_index(g, 1), *c = g_ptr_array_index(g, 2);
    ck_assert_str_eq(a->others, "threads=128");
    ck_assert_int_eq(recommended(t, a), 2);
    ck_assert_int_eq(a->best, a->recommended);
    ck_assert_str_eq(b->others, "threads=256");
    ck_assert_int_eq(recommended(t, b), 3);
    ck_assert_uint_eq(b->failed, 1);
    ck_assert_int_eq(recommended(t, c), -1);
    ck_assert_uint_eq(c->failed, 1);
    ArchParams arch;
    ck_assert(arch_load("h100", NULL, &arch, &err));
    g_autoptr(GString) out = g_string_new(NULL);
    sweep_explain(t, "stages", c, &arch, 2.0, out);
    ck_assert_msg(strstr(out->str, "recommended stages (threads=512): none") != NULL, "%s", out->str);
}
END_TEST

/* The explanation of the recommendation (2% tolerance) for the sweep's
 * first group of points, on h100 unless arch is given. */
static char *explain_first(const SweepTable *t, const ArchParams *arch)
{
    GError *err = NULL;
    ArchParams h100;
    if (arch == NULL) {
        ck_assert(arch_load("h100", NULL, &h100, &err));
        arch = &h100;
    }
    g_autoptr(GPtrArray) g = sweep_recommend(t, "stages", 2.0, &err);
    ck_assert_msg(g != NULL, "%s", err ? err->message : "");
    g_autoptr(GString) out = g_string_new(NULL);
    sweep_explain(t, "stages", g_ptr_array_index(g, 0), arch, 2.0, out);
    return g_strdup(out->str);
}

START_TEST(the_explanation_has_cost_reason_and_estimate)
{
    const char *rows[] = {
        "0,128,1,ok,1000,1536,8192,16,600,100,16,threads,",
        "1,128,2,ok,600,2048,8192,16,300,100,16,threads,",
        "2,128,3,ok,420,2560,8192,16,10,400,16,threads,",
        "3,128,4,ok,415,3072,8192,16,5,400,16,threads,",
        NULL
    };
    g_autoptr(SweepTable) t = hand_table(rows);
    g_autofree char *out = explain_first(t, NULL);
    const char *want[] = {
        "recommended stages: 3 (threads=128): 420 cycles, within 2% of the best, 415 at stages=4\n",
        "cost: 2560 bytes of shared memory per block (512 per stage), 16 blocks per SM (limited by threads",
        ("why: 2 -> 3 saves 180 cycles (30.0%) as consumer_wait falls from 300 to 10 warp-cycles (75% -> 2% of all:"
         " copy latency hidden); beyond 3, more gain under 2%: compute bound"),
        /* (686 + 50) x 93.2 / (8192 / 16) = 134.0 */
        "estimate: 736 cycles DRAM latency", "/ 512 B per stage (copied bytes / stage instances) = 134.0 -> 134",
        "simulation vs estimate: 3 vs 134: fewer", "the whole run copies only 16 stages",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        ck_assert_msg(strstr(out, want[i]) != NULL, "'%s' not in:\n%s", want[i], out);
    }
    /* From L2 the latency is L2's. */
    ArchParams l2;
    GError *err = NULL;
    const char *sets[] = { "mem.source=l2" };
    g_autoptr(GPtrArray) ov = g_ptr_array_new();
    g_ptr_array_add(ov, (gpointer) sets[0]);
    ck_assert(arch_load("h100", ov, &l2, &err));
    g_autofree char *from_l2 = explain_first(t, &l2);
    ck_assert_msg(strstr(from_l2, "estimate: 334 cycles L2 latency") != NULL, "%s", from_l2);
}
END_TEST

START_TEST(a_count_that_changes_nothing_is_called_out)
{
    const char *rows[] = {
        "0,128,1,ok,500,1536,8192,16,0,100,16,threads,",
        "1,128,2,ok,500,2048,8192,16,0,100,16,threads,",
        "2,128,3,ok,500,2560,8192,16,0,100,16,threads,",
        NULL
    };
    g_autoptr(SweepTable) t = hand_table(rows);
    g_autofree char *out = explain_first(t, NULL);
    ck_assert_msg(strstr(out, "recommended stages: 1 (threads=128)") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "does not change the cycles") != NULL, "%s", out);
}
END_TEST

/* The reason a sweep stops at stages=2 (stages=3 gains under 2%), given
 * the statistics of stages=2: instructions, compute_busy_cycles,
 * achieved_bytes_per_cycle, then the dependency, copy_throttle,
 * consumer_wait and block_barrier warp-cycles. */
static char *reason(const char *stats2)
{
    g_autoptr(GString) text = g_string_new("point,stages,status,cycles,instructions,compute_busy_cycles,"
                                           "achieved_bytes_per_cycle,stall_dependency,stall_copy_throttle,"
                                           "stall_consumer_wait,stall_block_barrier,smem_per_block,blocks_per_sm,"
                                           "occupancy_limit,error\n"
                                           "0,1,ok,2000,1000,500,10,100,100,900,0,2048,16,threads,\n");
    g_string_append_printf(text, "1,2,ok,1000,%s,4096,16,threads,\n", stats2);
    g_string_append_printf(text, "2,3,ok,990,%s,6144,16,threads,\n", stats2);
    g_autoptr(SweepTable) t = table_ok(text->str);
    return explain_first(t, NULL);
}

#define ASSERT_REASON(stats2, want)                                                           \
    do {                                                                                      \
        g_autofree char *got_ = reason(stats2);                                               \
        ck_assert_msg(strstr(got_, "beyond 2, more gain under 2%: " want) != NULL, "%s", got_); \
    } while (0)

START_TEST(the_reason_names_the_bound)
{
    ASSERT_REASON("1000,500,10,800,50,100,0", "compute bound: ");
    /* The same stalls, but hardly any instruction computes. */
    ASSERT_REASON("1000,5,10,800,50,100,0", "compute bound, by issue: ");
    ASSERT_REASON("1000,500,10,100,800,100,0", "copy bandwidth: ");
    /* Waiting for copies that already use most of the 93.2 B/cycle link:
     * copy latency, as run's verdict says, with the bandwidth named. */
    ASSERT_REASON("1000,500,90,100,50,800,0", "copy latency: ");
    g_autofree char *bw = reason("1000,500,90,100,50,800,0");
    ck_assert_msg(strstr(bw, "the copies already move 90.0 of the 93.2 B/cycle") != NULL, "%s", bw);
    ASSERT_REASON("1000,500,10,100,50,800,0", "copy latency: ");
    ASSERT_REASON("1000,500,10,100,50,100,800", "synchronisation: ");
}
END_TEST

/* A sweep over engine (0: cp.async, 1: bulk copies) x stages, on h100. */
static char *engines_text(const char *const *rows, double tolerance, guint *count)
{
    g_autoptr(GString) text = g_string_new("point,engine,stages,status,cycles,cp_async_bytes,bulk_bytes,"
                                           "achieved_bytes_per_cycle,stall_dependency,stall_mbarrier,instructions,"
                                           "compute_busy_cycles,error\n");
    for (int i = 0; rows[i] != NULL; i++) {
        g_string_append_printf(text, "%s\n", rows[i]);
    }
    g_autoptr(SweepTable) t = table_ok(text->str);
    GError *err = NULL;
    ArchParams arch;
    ck_assert(arch_load("h100", NULL, &arch, &err));
    g_autoptr(GPtrArray) e = sweep_engines(t, "stages");
    *count = e->len;
    g_autoptr(GString) out = g_string_new(NULL);
    for (guint k = 0; k < e->len; k++) {
        sweep_explain_engines(t, g_ptr_array_index(e, k), &arch, &arch, tolerance, out);
    }
    return g_strdup(out->str);
}

START_TEST(the_faster_engine_is_named_with_its_reason)
{
    /* cp.async's best is 800 cycles at stages=2, the bulk copies' 900:
     * 11.1% fewer; the bulk points wait 350 warp-cycles on mbarriers. */
    const char *rows[] = {
        "0,0,1,ok,1000,8192,0,8,800,0,1000,500,",
        "1,0,2,ok,800,8192,0,10,700,0,1000,500,",
        "2,1,1,ok,1200,0,8192,6,600,500,1000,500,",
        "3,1,2,ok,900,0,8192,9,500,350,1000,500,",
        NULL
    };
    guint n = 0;
    g_autofree char *out = engines_text(rows, 2.0, &n);
    ck_assert_uint_eq(n, 1);
    const char *want[] = {
        "faster copy engine: cp.async (engine=0, stages=2): 800 cycles, 11.1% fewer than bulk copies (engine=1,"
        " stages=2): 900\n",
        "  the gap: the bulk-copy point spends 350 warp-cycles more in mbarrier (350 vs 0)\n",
        "  cp.async (engine=0, stages=2): copies at 10.0 B/cycle of the 93.2 B/cycle the SM-to-L2 link,"
        " l2.bytes_per_clk_sm allows; compute bound",
        "  bulk copies (engine=1, stages=2): copies at 9.0 B/cycle of the 93.2 B/cycle",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        ck_assert_msg(strstr(out, want[i]) != NULL, "'%s' not in:\n%s", want[i], out);
    }
    ck_assert_ptr_null(strstr(out, "either engine"));
    /* Within the tolerance either will do. */
    g_autofree char *loose = engines_text(rows, 20.0, &n);
    ck_assert_msg(strstr(loose, "; within the 20% tolerance, so either engine will do\n") != NULL, "%s", loose);
    /* The bulk copies faster: named first. */
    const char *bulk_wins[] = {
        "0,0,1,ok,1000,8192,0,8,800,0,1000,500,",
        "1,1,1,ok,500,0,8192,9,500,0,1000,500,",
        NULL
    };
    g_autofree char *b = engines_text(bulk_wins, 2.0, &n);
    ck_assert_msg(strstr(b, "faster copy engine: bulk copies (engine=1, stages=1): 500 cycles, 50.0% fewer than"
                            " cp.async (engine=0, stages=1): 1000\n") != NULL, "%s", b);
    ck_assert_msg(strstr(b, "the gap: the cp.async point spends 300 warp-cycles more in dependency") != NULL, "%s", b);
}
END_TEST

START_TEST(only_an_axis_that_picks_the_engine_compares)
{
    /* Both values of engine copy with cp.async: no engine axis. */
    const char *same[] = {
        "0,0,1,ok,1000,8192,0,8,800,0,1000,500,",
        "1,1,1,ok,900,8192,0,9,500,0,1000,500,",
        NULL
    };
    guint n = 9;
    g_autofree char *a = engines_text(same, 2.0, &n);
    ck_assert_uint_eq(n, 0);
    ck_assert_str_eq(a, "");
    /* A value whose points use both engines does not pick one; a point
     * that did not run is left out. */
    const char *mixed[] = {
        "0,0,1,ok,1000,8192,0,8,800,0,1000,500,",
        "1,0,2,ok,900,0,8192,9,500,0,1000,500,",
        "2,1,1,ok,900,0,8192,9,500,0,1000,500,",
        NULL
    };
    g_autofree char *b = engines_text(mixed, 2.0, &n);
    ck_assert_uint_eq(n, 0);
    ck_assert_str_eq(b, "");
    const char *failed[] = {
        "0,0,1,ok,1000,8192,0,8,800,0,1000,500,",
        "1,1,1,failed,,,,,,,,,deadlock",
        NULL
    };
    g_autofree char *c = engines_text(failed, 2.0, &n);
    ck_assert_uint_eq(n, 0);
    ck_assert_str_eq(c, "");
}
END_TEST

static Suite *sweep_suite(void)
{
    Suite *s = suite_create("sweep");
    struct {
        const char *name;
        const TTest *test;
    } cases[] = {
        { "lists", lists_and_ranges },
        { "bad_lists", bad_lists_say_why },
        { "axes", axes_split_names },
        { "points", points_in_order },
        { "shards", shards_cover_every_point_once },
        { "csv_quoting", csv_quoting_round_trips },
        { "not_a_sweep", tables_reject_what_is_not_a_sweep },
        { "interrupted", interrupted_tables },
        { "sorting", sorting_drops_copies_and_refuses_conflicts },
        { "blocks_per_sm", blocks_per_sm_take_the_scarcest_resource },
        { "rule", the_rule_picks_the_fewest_stages_within_tolerance },
        { "rule_groups", the_rule_works_per_combination_and_skips_failures },
        { "explanation", the_explanation_has_cost_reason_and_estimate },
        { "no_change", a_count_that_changes_nothing_is_called_out },
        { "reasons", the_reason_names_the_bound },
        { "engines", the_faster_engine_is_named_with_its_reason },
        { "engine_axis", only_an_axis_that_picks_the_engine_compares },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        TCase *tc = tcase_create(cases[i].name);
        tcase_add_test(tc, cases[i].test);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    return run_suite(sweep_suite());
}
