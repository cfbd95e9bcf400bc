/* cli_timeline.c: overlap timelines from the command line: `smpipe plot
 * TRACE -o FILE.png|svg|pdf` and the timeline outputs of `smpipe run`
 * (--timeline, --plot).  The simulation streams its timeline into data
 * files (sim/out/timeline.c); gnuplot draws them with scripts/timeline.gp.
 * docs/timelines.md describes the outputs. */
#include "sim/cli/cli.h"

#include "sim/out/timeline.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>

/* Whether name is a data file the timeline sink writes. */
static bool is_data_file(const char *name)
{
    return strcmp(name, "layout.gp") == 0 ||
           ((g_str_has_prefix(name, "slices-") || g_str_has_prefix(name, "counter-")) &&
            g_str_has_suffix(name, ".dat"));
}

/* Removes the timeline data files in dir, and dir itself if asked and
 * then empty. */
static void remove_data_files(const char *dir, bool remove_dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d == NULL) {
        return;
    }
    const char *name;
    while ((name = g_dir_read_name(d)) != NULL) {
        if (is_data_file(name)) {
            g_autofree char *p = g_build_filename(dir, name, NULL);
            g_remove(p);
        }
    }
    g_dir_close(d);
    if (remove_dir) {
        g_rmdir(dir);
    }
}

SimTimeline *cli_timeline_open(const Trace *trace, const SimRunOptions *o, const CliTimelineRequest *req,
                               char **data_dir, GError **error)
{
    *data_dir = NULL;
    if (req->plot != NULL && cli_picture_format(req->plot) == NULL) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: the picture's name must end in .png, .svg or .pdf",
                    req->plot);
        return NULL;
    }
    /* The clock is known once the architecture is loaded: prepare a run
     * without running it. */
    SimRun probe;
    if (!sim_run_prepare(trace, o, &probe, error)) {
        sim_run_clear(&probe);
        return NULL;
    }
    g_autofree char *dir = NULL;
    if (req->plot != NULL) {
        if (req->data_dir != NULL) {
            if (g_mkdir_with_parents(req->data_dir, 0755) != 0) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: cannot create the directory: %s", req->data_dir,
                            g_strerror(errno));
                sim_run_clear(&probe);
                return NULL;
            }
            /* Stale files of an earlier run would mislead whoever reads them. */
            remove_data_files(req->data_dir, false);
            dir = g_strdup(req->data_dir);
        } else {
            GError *err = NULL;
            dir = g_dir_make_tmp("smpipe-plot-XXXXXX", &err);
            if (dir == NULL) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "cannot create a temporary directory: %s",
                            err->message);
                g_error_free(err);
                sim_run_clear(&probe);
                return NULL;
            }
        }
    }
    SimTimelineOptions to = {
        .json_path = req->json,
        .data_dir = dir,
        .clock_mhz = probe.arch.clock_mhz,
        .from = req->from,
        .to = req->to,
        .by_role = req->by_role,
        .trace = trace->path,
        .arch = probe.arch.name,
    };
    SimTimeline *tl = sim_timeline_open(&to, error);
    sim_run_clear(&probe);
    if (tl == NULL) {
        if (dir != NULL && req->data_dir == NULL) {
            g_rmdir(dir);
        }
        return NULL;
    }
    *data_dir = g_steal_pointer(&dir);
    return tl;
}

/* The picture's title: trace, architecture, parameters, cycles. */
static char *picture_title(const SimRun *r, const char *trace, bool by_role)
{
    GString *s = g_string_new(NULL);
    g_autofree char *base = g_path_get_basename(trace);
    g_string_append_printf(s, "%s on %s", base, r->arch.name);
    const GPtrArray *names = r->prog->param_names;
    for (guint i = 0; i < names->len; i++) {
        const char *n = g_ptr_array_index(names, i);
        g_string_append_printf(s, "%s%s=%" G_GINT64_FORMAT, i == 0 ? " (" : " ", n, program_param(r->prog, n, 0));
    }
    if (names->len > 0) {
        g_string_append_c(s, ')');
    }
    for (guint i = 0; r->arch_sets != NULL && i < r->arch_sets->len; i++) {
        g_string_append_printf(s, " %s", (const char *) g_ptr_array_index(r->arch_sets, i));
    }
    g_string_append_printf(s, ": %" G_GUINT64_FORMAT " cycles%s", sm_stats(r->sm)->cycles,
                           by_role ? ", warps by role" : "");
    return g_string_free(s, FALSE);
}

bool cli_plot_timeline(const char *data_dir, bool keep_data, const char *out, const SimRun *r, const char *trace,
                       bool by_role, GError **error)
{
    g_autofree char *title = picture_title(r, trace, by_role);
    g_autoptr(GString) defs = g_string_new(NULL);
    cli_gp_define(defs, "datadir", data_dir);
    cli_gp_define(defs, "plot_title", title);
    if (!cli_gnuplot_draw("timeline.gp", defs->str, out, data_dir, error)) {
        return false;
    }
    if (!keep_data) {
        remove_data_files(data_dir, true);
    }
    return true;
}


/* Parses a cycle option's value (a non-negative integer). */
static bool parse_cycle(const char *opt, const char *s, SimCycle *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = g_ascii_strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-') {
        fprintf(stderr, "smpipe plot: %s takes a cycle number, not '%s'\n", opt, s);
        return false;
    }
    *out = (SimCycle) v;
    return true;
}

int cli_plot_trace(int argc, char **argv)
{
    g_auto(CliArchOptions) ao = { 0 };
    g_autofree char *output = NULL;
    g_autofree char *from_s = NULL;
    g_autofree char *to_s = NULL;
    g_autofree char *by = NULL;
    g_autofree char *data = NULL;
    g_autofree char *timeline = NULL;
    CliLimits limits;
    GOptionEntry entries[] = {
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "The picture to write (required)", "FILE.png|svg|pdf" },
        { "from", 0, 0, G_OPTION_ARG_STRING, &from_s, "Draw from this cycle on [0]", "CYCLE" },
        { "to", 0, 0, G_OPTION_ARG_STRING, &to_s, "Draw up to this cycle [the end]", "CYCLE" },
        { "by", 0, 0, G_OPTION_ARG_STRING, &by, "One row per warp, or per role of the running threads [warp]",
          "warp|role" },
        { "data", 0, 0, G_OPTION_ARG_FILENAME, &data, "Keep the gnuplot data files in this directory", "DIR" },
        { "timeline", 't', 0, G_OPTION_ARG_FILENAME, &timeline, "Also write the Chrome/Perfetto timeline of the window",
          "FILE.json" },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("TRACE -o FILE.png|svg|pdf - draw a trace's overlap timeline");
    cli_add_arch_options(ctx, &ao, CLI_ARCH_HELP, CLI_SET_HELP);
    g_option_context_add_main_entries(ctx, entries, NULL);
    cli_add_limit_options(ctx, &limits);
    g_option_context_set_description(ctx, "Rows: one per warp (or role), one per copy-engine lane, and the pipeline's"
                                           " stage occupancy.\nWithout gnuplot the data files are still written and"
                                           " the exit status is 3.\nSee docs/timelines.md.\n\n"
                                           "smpipe plot SWEEP.csv -o FILE.png|svg|pdf [-x NAME] [--tolerance PCT] draws"
                                           " a sweep's CSV instead\n(smpipe plot SWEEP.csv --help lists its"
                                           " options).");
    int status;
    if (!cli_parse_trace(ctx, "plot", &argc, &argv, &status)) {
        return status;
    }
    if (output == NULL) {
        fprintf(stderr, "smpipe plot: say where the picture goes: -o FILE.png|svg|pdf\n");
        return SIM_EXIT_BAD_INPUT;
    }
    CliTimelineRequest req = { timeline, output, data, 0, SIM_CYCLE_NEVER, false };
    if ((from_s != NULL && !parse_cycle("--from", from_s, &req.from)) ||
        (to_s != NULL && !parse_cycle("--to", to_s, &req.to))) {
        return SIM_EXIT_BAD_INPUT;
    }
    if (req.to <= req.from) {
        fprintf(stderr, "smpipe plot: --to (%" G_GUINT64_FORMAT ") must be after --from (%" G_GUINT64_FORMAT ")\n",
                req.to, req.from);
        return SIM_EXIT_BAD_INPUT;
    }
    if (by != NULL && strcmp(by, "role") != 0 && strcmp(by, "warp") != 0) {
        fprintf(stderr, "smpipe plot: --by takes warp or role, not '%s'\n", by);
        return SIM_EXIT_BAD_INPUT;
    }
    req.by_role = by != NULL && strcmp(by, "role") == 0;
    SmOptions sm_limits;
    memset(&sm_limits, 0, sizeof sm_limits);
    if (!cli_apply_limits("plot", &limits, &sm_limits)) {
        return SIM_EXIT_BAD_INPUT;
    }
    const char *path = argv[1];
    GError *err = NULL;
    const CliOutput outs[] = { { "--output", output }, { "--timeline", timeline } };
    if (!cli_check_outputs(outs, G_N_ELEMENTS(outs), &err)) {
        return cli_fail(err);
    }
    g_autoptr(Trace) t = trace_parse_file(path, &err);
    if (t == NULL) {
        return cli_fail(err);
    }
    SimRunOptions o;
    memset(&o, 0, sizeof o);
    o.arch = ao.arch;
    o.sets = cli_arch_sets(&ao);
    o.sm.engine = SIM_ENGINE_EVENT;
    o.sm.max_cycles = sm_limits.max_cycles;
    o.sm.max_ops = sm_limits.max_ops;
    o.sm.race_check = true;
    g_autofree char *data_dir = NULL;
    SimTimeline *tl = cli_timeline_open(t, &o, &req, &data_dir, &err);
    if (tl == NULL) {
        return cli_fail(err);
    }
    o.sm.timeline = tl;
    SimRun r;
    if (!sim_run_trace(t, &o, &r, &err)) {
        sim_timeline_abort(tl);
        if (data == NULL) {
            remove_data_files(data_dir, true);
        }
        sim_run_clear(&r);
        return cli_fail(err);
    }
    if (!sim_timeline_close(tl, &err)) {
        if (data == NULL) {
            remove_data_files(data_dir, true);
        }
        sim_run_clear(&r);
        return cli_fail(err);
    }
    int rc = 0;
    if (!cli_plot_timeline(data_dir, data != NULL, output, &r, path, req.by_role, &err)) {
        rc = cli_plot_fail(err);
    }
    sim_run_clear(&r);
    return rc;
}
