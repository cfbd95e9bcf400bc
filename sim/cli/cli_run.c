/* cli_run.c: `smpipe run` and `smpipe check`. */
#include "sim/cli/cli.h"

#include "sim/out/timeline.h"

#include <glib/gstdio.h>
#include <stdio.h>

int cli_run(int argc, char **argv)
{
    g_auto(CliArchOptions) ao = { 0 };
    g_autofree char *json = NULL;
    g_autofree char *csv = NULL;
    g_autofree char *by = NULL;
    g_autofree char *engine = NULL;
    g_autofree char *timeline = NULL;
    g_autofree char *plot = NULL;
    g_autofree char *output = NULL;
    CliLimits limits;
    gboolean no_race = FALSE;
    gboolean fail_on_race = FALSE;
    gboolean quiet = FALSE;
    GOptionEntry entries[] = {
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the report to FILE [stdout]", "FILE|-" },
        { "json", 0, 0, G_OPTION_ARG_STRING, &json, "Write the statistics as JSON (- for stdout)", "FILE|-" },
        { "csv", 0, 0, G_OPTION_ARG_STRING, &csv, "Write the statistics as one CSV row with a header, or with --by the view's table (- for stdout)", "FILE|-" },
        { "by", 0, 0, G_OPTION_ARG_STRING, &by, "Break the stall accounting down by warp, by role, or by trace line", "warp|role|line" },
        { "engine", 0, 0, G_OPTION_ARG_STRING, &engine, "Event-driven engine or the cycle-stepped reference [event]", "event|stepped" },
        { "no-race-check", 0, 0, G_OPTION_ARG_NONE, &no_race, "Do not run the pipeline race detector", NULL },
        { "fail-on-race", 0, 0, G_OPTION_ARG_NONE, &fail_on_race, "Exit 1 when the race detector found a race", NULL },
        { "timeline", 't', 0, G_OPTION_ARG_FILENAME, &timeline, "Write a Chrome/Perfetto trace-event timeline", "FILE.json" },
        { "plot", 'p', 0, G_OPTION_ARG_FILENAME, &plot, "Draw the overlap timeline with gnuplot (rows per warp, or per role with --by role)", "FILE.png|svg|pdf" },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print only the cycle count", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("TRACE - simulate a pipeline trace");
    cli_add_arch_options(ctx, &ao, CLI_ARCH_HELP, CLI_SET_HELP);
    g_option_context_add_main_entries(ctx, entries, NULL);
    cli_add_limit_options(ctx, &limits);
    int status;
    if (!cli_parse_trace(ctx, "run", &argc, &argv, &status)) {
        return status;
    }
    const char *path = argv[1];
    ReportBy report_by = REPORT_BY_NONE;
    if (by != NULL) {
        if (strcmp(by, "warp") == 0) {
            report_by = REPORT_BY_WARP;
        } else if (strcmp(by, "role") == 0) {
            report_by = REPORT_BY_ROLE;
        } else if (strcmp(by, "line") == 0) {
            report_by = REPORT_BY_LINE;
        } else {
            fprintf(stderr, "smpipe run: --by takes warp, role or line, not '%s'\n", by);
            return SIM_EXIT_BAD_INPUT;
        }
    }
    SimEngineKind kind = SIM_ENGINE_EVENT;
    if (engine != NULL && !sim_engine_kind_parse(engine, &kind)) {
        fprintf(stderr, "smpipe run: --engine takes event or stepped, not '%s'\n", engine);
        return SIM_EXIT_BAD_INPUT;
    }
    SimRunOptions o;
    memset(&o, 0, sizeof o);
    if (!cli_apply_limits("run", &limits, &o.sm)) {
        return SIM_EXIT_BAD_INPUT;
    }
    GError *err = NULL;
    const CliOutput outs[] = {
        { "--output", output }, { "--json", json }, { "--csv", csv }, { "--timeline", timeline }, { "--plot", plot }
    };
    if (!cli_check_outputs(outs, G_N_ELEMENTS(outs), &err)) {
        return cli_fail(err);
    }
    g_autoptr(Trace) t = trace_parse_file(path, &err);
    if (t == NULL) {
        return cli_fail(err);
    }
    o.arch = ao.arch;
    o.sets = cli_arch_sets(&ao);
    o.sm.engine = kind;
    o.sm.race_check = !no_race;
    o.sm.by_line = report_by == REPORT_BY_LINE;
    SimTimeline *tl = NULL;
    g_autofree char *plot_dir = NULL;
    if (timeline != NULL || plot != NULL) {
        CliTimelineRequest req = { timeline, plot, NULL, 0, SIM_CYCLE_NEVER, report_by == REPORT_BY_ROLE };
        tl = cli_timeline_open(t, &o, &req, &plot_dir, &err);
        if (tl == NULL) {
            return cli_fail(err);
        }
        o.sm.timeline = tl;
    }
    SimRun r;
    bool ok = sim_run_trace(t, &o, &r, &err);
    if (!ok) {
        if (tl != NULL) {
            sim_timeline_abort(tl);
        }
        if (plot_dir != NULL) {
            g_rmdir(plot_dir);
        }
        sim_run_clear(&r);
        return cli_fail(err);
    }
    if (tl != NULL && !sim_timeline_close(tl, &err)) {
        if (plot_dir != NULL) {
            g_rmdir(plot_dir);
        }
        sim_run_clear(&r);
        return cli_fail(err);
    }
    cli_note_unused_params(&r, path, o.sets);
    SimLaunch launch;
    if (!sim_launch_estimate(t, &o, &r, &launch, &err)) {
        if (plot_dir != NULL) {
            g_rmdir(plot_dir);
        }
        sim_run_clear(&r);
        return cli_fail(err);
    }
    const SimStats *st = sm_stats(r.sm);
    g_autoptr(GArray) values = g_array_new(FALSE, FALSE, sizeof(int64_t));
    ReportInfo info;
    cli_report_info(&r, t, kind, values, &info);
    info.launch = &launch;
    g_autoptr(GString) out = g_string_new(NULL);
    if (quiet) {
        g_string_append_printf(out, "%" G_GUINT64_FORMAT "\n", st->cycles);
    } else {
        report_text(st, &info, report_by, out);
    }
    bool json_stdout = json != NULL && strcmp(json, "-") == 0;
    bool csv_stdout = csv != NULL && strcmp(csv, "-") == 0;
    if (output != NULL) {
        if (!sim_write_file(output, out->str, out->len, &err)) {
            sim_run_clear(&r);
            return cli_fail(err);
        }
    } else if (!json_stdout && !csv_stdout) {
        /* Without -o the report gives standard output up to a JSON or
         * CSV document sent there. */
        fputs(out->str, stdout);
    }
    if (quiet || (output == NULL && (json_stdout || csv_stdout))) {
        /* The report's warnings are not on the screen: they go to stderr,
         * so that -q never hides a race. */
        for (guint i = 0; i < st->warnings->len; i++) {
            fprintf(stderr, "smpipe run: warning: %s\n", (const char *) g_ptr_array_index(st->warnings, i));
        }
    }
    if (json != NULL) {
        g_autoptr(GString) j = g_string_new(NULL);
        report_json(st, &info, report_by, j);
        if (!sim_write_file(json, j->str, j->len, &err)) {
            sim_run_clear(&r);
            return cli_fail(err);
        }
    }
    if (csv != NULL) {
        g_autoptr(GString) c = g_string_new(NULL);
        report_csv_provenance(&info, NULL, c);
        if (report_by != REPORT_BY_NONE) {
            /* With --by, the CSV is the view's table (a row per warp,
             * role or trace line). */
            report_csv_by(st, &info, report_by, c);
        } else {
            report_csv_header(&info, c);
            g_string_append_c(c, '\n');
            report_csv_row(st, &info, c);
            g_string_append_c(c, '\n');
        }
        if (!sim_write_file(csv, c->str, c->len, &err)) {
            sim_run_clear(&r);
            return cli_fail(err);
        }
    }
    int rc = 0;
    if (fail_on_race && st->race_warnings > 0) {
        fprintf(stderr, "smpipe run: the race detector found %" G_GUINT64_FORMAT " race occurrence%s: exit status 1"
                " (--fail-on-race)\n", st->race_warnings, st->race_warnings == 1 ? "" : "s");
        rc = SIM_EXIT_INVALID_PROGRAM;
    }
    if (plot != NULL) {
        if (!cli_plot_timeline(plot_dir, false, plot, &r, path, report_by == REPORT_BY_ROLE, &err)) {
            rc = cli_plot_fail(err);
        }
    }
    sim_run_clear(&r);
    return rc;
}

int cli_check(int argc, char **argv)
{
    g_auto(CliArchOptions) ao = { 0 };
    gboolean verbose = FALSE;
    GOptionEntry entries[] = {
        { "verbose", 0, 0, G_OPTION_ARG_NONE, &verbose, "List the compiled operations", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("TRACE - parse, expand and validate a trace");
    cli_add_arch_options(ctx, &ao, CLI_ARCH_HELP, CLI_SET_HELP);
    g_option_context_add_main_entries(ctx, entries, NULL);
    int status;
    if (!cli_parse_trace(ctx, "check", &argc, &argv, &status)) {
        return status;
    }
    GError *err = NULL;
    g_autoptr(Trace) t = trace_parse_file(argv[1], &err);
    if (t == NULL) {
        return cli_fail(err);
    }
    SimRunOptions o;
    memset(&o, 0, sizeof o);
    o.arch = ao.arch;
    o.sets = cli_arch_sets(&ao);
    SimRun r;
    if (!sim_run_prepare(t, &o, &r, &err)) {
        sim_run_clear(&r);
        return cli_fail(err);
    }
    cli_note_unused_params(&r, argv[1], o.sets);
    g_autoptr(GString) out = g_string_new(NULL);
    g_string_append_printf(out, "%s: ok: %" G_GINT64_FORMAT " threads per block, %" G_GINT64_FORMAT
                           " bytes of shared memory per block, %u operations\n", argv[1], r.prog->block_threads,
                           sm_smem_per_block(r.prog, &r.arch), r.prog->ops->len);
    if (verbose) {
        program_dump(r.prog, out);
    }
    fputs(out->str, stdout);
    sim_run_clear(&r);
    return 0;
}
