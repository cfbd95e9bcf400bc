/* test_util.h: helpers shared by the Check suites. */
#pragma once

#include <check.h>
#include <glib.h>

#include "sim/drivers/runner.h"
#include "sim/out/report.h"

/* Runs a Check suite and returns the process exit status. */
static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}

/* One behaviour of a unit: its TCase's name and its test. */
typedef struct {
    const char *name;
    const TTest *test;
} TestCase;

/* Runs suite `name` of one TCase per behaviour; returns the exit status. */
static inline int run_cases(const char *name, const TestCase *cases, size_t n)
{
    Suite *s = suite_create(name);
    for (size_t i = 0; i < n; i++) {
        TCase *tc = tcase_create(cases[i].name);
        tcase_add_test(tc, cases[i].test);
        suite_add_tcase(s, tc);
    }
    return run_suite(s);
}

/* NULL-terminated "name=value" sets (may be NULL) as a new array of the
 * same strings (borrowed). */
static inline GPtrArray *test_set_list(const char *const *sets)
{
    GPtrArray *sl = g_ptr_array_new();
    for (int i = 0; sets && sets[i]; i++) {
        g_ptr_array_add(sl, (gpointer) sets[i]);
    }
    return sl;
}

/* Parses a trace from text; fails the test on a parse error. */
static inline Trace *parse_ok(const char *text)
{
    GError *err = NULL;
    Trace *t = trace_parse_string("test.trace", text, strlen(text), &err);
    ck_assert_msg(t != NULL, "parse failed: %s", err ? err->message : "?");
    return t;
}

/* Parses text expecting an error; returns the message (to free). */
static inline char *parse_err(const char *text)
{
    GError *err = NULL;
    Trace *t = trace_parse_string("test.trace", text, strlen(text), &err);
    ck_assert_msg(t == NULL, "expected a parse error for:\n%s", text);
    char *m = g_strdup(err->message);
    g_error_free(err);
    return m;
}

/* A simulation of a trace text, owning both. */
typedef struct {
    Trace *trace;
    SimRun run;
    char *msg;      /* error message, or NULL on success */
    int status;     /* exit status the CLI would give */
} TestRun;

/* Runs a trace text (named path in messages) with NULL-terminated
 * "name=value" sets and the options o gives (its sets are replaced);
 * on failure tr->msg and tr->status say why. */
static inline bool run_text_options(TestRun *tr, const char *path, const char *text, const char *const *sets,
                                    SimRunOptions *o)
{
    GError *err = NULL;
    memset(tr, 0, sizeof *tr);
    tr->trace = trace_parse_string(path, text, strlen(text), &err);
    if (tr->trace == NULL) {
        tr->msg = g_strdup(err->message);
        tr->status = sim_error_exit_status(err);
        g_error_free(err);
        return false;
    }
    GPtrArray *sl = test_set_list(sets);
    o->sets = sl;
    bool ok = sim_run_trace(tr->trace, o, &tr->run, &err);
    g_ptr_array_free(sl, TRUE);
    o->sets = NULL;
    if (!ok) {
        tr->msg = g_strdup(err->message);
        tr->status = sim_error_exit_status(err);
        g_error_free(err);
    }
    return ok;
}

/* Runs a trace text (named path in messages) on an architecture (NULL:
 * h100) with NULL-terminated "name=value" sets, an engine, the two limits
 * (0 = none) and, when asked, the functional model (the data the program
 * moves). */
static inline bool run_text_arch_full(TestRun *tr, const char *path, const char *text, const char *arch,
                                      const char *const *sets, SimEngineKind engine, SimCycle max_cycles,
                                      uint64_t max_ops, bool functional)
{
    SimRunOptions o;
    memset(&o, 0, sizeof o);
    o.arch = arch;
    o.sm.engine = engine;
    o.sm.race_check = true;
    o.sm.max_cycles = max_cycles;
    o.sm.max_ops = max_ops;
    o.sm.functional = functional;
    o.sm.check_invariants = true;
    return run_text_options(tr, path, text, sets, &o);
}

/* The same on h100. */
static inline bool run_text_full(TestRun *tr, const char *path, const char *text, const char *const *sets,
                                 SimEngineKind engine, SimCycle max_cycles, uint64_t max_ops, bool functional)
{
    return run_text_arch_full(tr, path, text, NULL, sets, engine, max_cycles, max_ops, functional);
}

/* The same as test.trace, without the functional model. */
static inline bool run_text_limits(TestRun *tr, const char *text, const char *const *sets, SimEngineKind engine,
                                   SimCycle max_cycles, uint64_t max_ops)
{
    return run_text_full(tr, "test.trace", text, sets, engine, max_cycles, max_ops, false);
}

/* The same with the engine given and a watchdog at 1e8 cycles. */
static inline bool run_text_engine(TestRun *tr, const char *text, const char *const *sets, SimEngineKind engine)
{
    return run_text_limits(tr, text, sets, engine, 100000000, 0);
}

static inline bool run_text(TestRun *tr, const char *text, const char *const *sets)
{
    return run_text_engine(tr, text, sets, SIM_ENGINE_EVENT);
}

/* Runs a trace text on an architecture (NULL: h100) with NULL-terminated
 * "name=value" sets; fails the test if the run fails. */
static inline void run_arch_ok(TestRun *tr, const char *text, const char *arch, const char *const *sets)
{
    bool ok = run_text_arch_full(tr, "test.trace", text, arch, sets, SIM_ENGINE_EVENT, 100000000, 0, false);
    ck_assert_msg(ok, "%s", tr->msg ? tr->msg : "");
}

static inline void test_run_clear(TestRun *tr)
{
    sim_run_clear(&tr->run);
    trace_free(tr->trace);
    g_free(tr->msg);
    memset(tr, 0, sizeof *tr);
}

/* The statistics of a successful run. */
static inline const SimStats *tr_stats(const TestRun *tr)
{
    return sm_stats(tr->run.sm);
}

/* The warp-cycles a valid program's run spends issuing with the
 * NULL-terminated sets; fails the test if the run fails. */
static inline uint64_t issuing_cycles(const char *text, const char *const *sets)
{
    TestRun tr;
    ck_assert_msg(run_text(&tr, text, sets), "%s", tr.msg ? tr.msg : "");
    uint64_t c = tr_stats(&tr)->state_total[WS_ISSUING];
    test_run_clear(&tr);
    return c;
}

/* The cycles of a valid program's run with the NULL-terminated sets; fails
 * the test if the run fails. */
static inline uint64_t valid_run_cycles(const char *text, const char *const *sets)
{
    TestRun tr;
    ck_assert_msg(run_text(&tr, text, sets), "%s", tr.msg ? tr.msg : "");
    uint64_t c = tr_stats(&tr)->cycles;
    test_run_clear(&tr);
    return c;
}

/* A hand-made memory path for the unit suites' fake-clock tests: latencies
 * 30/200/500 (L1/L2/DRAM), 128-byte lines of 32-byte sectors, 64 L1 lines,
 * 1 MiB of L2 in 16-way sets, one active SM, the given bandwidths (bytes
 * per clock) and source; every other key 0 (the suite sets what its unit
 * needs). */
static inline ArchParams test_mem_arch(double l2_sm, double l2, double dram, MemSource source)
{
    ArchParams a;
    memset(&a, 0, sizeof a);
    a.l1_latency = 30;
    a.l2_latency = 200;
    a.dram_latency = 500;
    a.line_bytes = 128;
    a.sector_bytes = 32;
    a.l1_lines = 64;
    a.l2_bytes_per_clk_sm = l2_sm;
    a.l2_bytes_per_clk = l2;
    a.dram_bytes_per_clk = dram;
    a.dram_write_cost = 1.0;
    a.l2_bytes = 1 << 20;
    a.l2_assoc = 16;
    a.l2_dirty_fraction = 1.0;
    a.active_sms = 1;
    a.source = source;
    a.flushed = true;
    return a;
}

/* The ReportInfo of a test run: its trace name, architecture and parameter
 * values (appended to values, which must outlive info), and an engine
 * label.  Unlike cli_report_info it leaves out the --set keys and the
 * shared memory per block, so that golden files do not depend on them. */
static inline void test_report_info(const TestRun *tr, const char *trace, const char *engine, GArray *values,
                                    ReportInfo *info)
{
    memset(info, 0, sizeof *info);
    info->trace = trace;
    info->arch = tr->run.arch.name;
    info->clock_mhz = tr->run.arch.clock_mhz;
    info->param_names = tr->run.prog->param_names;
    for (guint i = 0; i < info->param_names->len; i++) {
        int64_t v = program_param(tr->run.prog, g_ptr_array_index(info->param_names, i), 0);
        g_array_append_val(values, v);
    }
    info->param_values = values;
    info->engine = engine;
}

/* Reads a file under the source tree; returns newly allocated text. */
static inline char *read_source(const char *rel)
{
    char *path = g_build_filename(SRCDIR, rel, NULL);
    char *text = NULL;
    gsize len = 0;
    gboolean ok = g_file_get_contents(path, &text, &len, NULL);
    ck_assert_msg(ok, "cannot read %s", path);
    g_free(path);
    return text;
}
