/* cli.h: the verbs of the smpipe command and what they share. */
#pragma once

#include "sim/core/fileio.h"
#include "sim/drivers/runner.h"
#include "sim/drivers/sweep.h"
#include "sim/out/report.h"
#include "sim/out/timeline.h"

int cli_run(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_sweep(int argc, char **argv);
int cli_merge(int argc, char **argv);
int cli_plot(int argc, char **argv);
/* The two halves of `smpipe plot`: a trace's timeline, a sweep's CSV. */
int cli_plot_trace(int argc, char **argv);
int cli_plot_sweep(int argc, char **argv);
int cli_arch(int argc, char **argv);
int cli_cuda(int argc, char **argv);
int cli_validate(int argc, char **argv);
int cli_calibrate(int argc, char **argv);
int cli_sensitivity(int argc, char **argv);

/* Prints "smpipe VERB: message" (the program name main sets, else
 * "smpipe") to stderr and returns the exit status; frees error. */
int cli_fail(GError *error);
/* "smpipe VERB" while a verb runs (main sets the program name), else "smpipe". */
const char *cli_prefix(void);


/* One file a verb will write: the option that names it (for messages,
 * "--json") and its path ("-" = standard output; NULL = not asked for). */
typedef struct {
    const char *option;
    const char *path;
} CliOutput;

/* Checks, before anything is simulated, that every output of outs[0..n)
 * can be written (its folder exists and takes a new file; it is not a
 * folder) and that no two go to the same file or both to standard output.
 * Returns false with *error set (SIM_ERROR_INPUT, naming the options). */
bool cli_check_outputs(const CliOutput *outs, guint n, GError **error);

/* Parses a verb's options.  Returns false (after printing the error) on a
 * bad option; *status then holds the exit status. */
bool cli_parse(GOptionContext *ctx, int *argc, char ***argv, int *status);
/* cli_parse for a verb that takes exactly one TRACE argument (argv[1]);
 * says so, naming the verb, when there is not exactly one. */
bool cli_parse_trace(GOptionContext *ctx, const char *verb, int *argc, char ***argv, int *status);

/* --max-cycles and --max-ops, shared by the verbs that simulate. */
typedef struct {
    gint64 max_cycles;
    gint64 max_ops;
} CliLimits;

/* Adds the two options to ctx's main group, with their defaults stored in
 * *l (which must outlive the parse). */
void cli_add_limit_options(GOptionContext *ctx, CliLimits *l);
/* False, after saying so for VERB, when a limit is negative; else copies
 * them into *o. */
bool cli_apply_limits(const char *verb, const CliLimits *l, SmOptions *o);

/* --arch and --set, parsed in one place for every verb that takes them,
 * so that they mean the same everywhere: -a names the architecture (a
 * bundled name or an .ini path), each -s assigns a trace parameter
 * (NAME=VALUE) or an architecture key (section.key=VALUE). */
typedef struct {
    char *arch;          /* --arch, or NULL (h100) (owned) */
    char **sets;         /* --set values, NULL-terminated, or NULL (owned) */
    GPtrArray *set_list; /* char*: sets, made by cli_arch_sets (owned; strings borrowed from sets) */
} CliArchOptions;

/* The options' shared help; a verb may extend it ("... for every point"). */
#define CLI_ARCH_HELP "Architecture name (a100, h100, h200) or .ini path [h100]"
#define CLI_SET_HELP "Set a trace parameter or an architecture key (section.key)"

/* Adds --arch with arch_help and --set with set_help to ctx's main group
 * (NULL help: that option is not the verb's).  The parse stores into *o,
 * which must be zeroed (g_auto does it) and outlive the parse; free it
 * with cli_arch_options_clear. */
void cli_add_arch_options(GOptionContext *ctx, CliArchOptions *o, const char *arch_help, const char *set_help);
/* After the parse: the --set assignments in order (char*, never NULL;
 * owned by o). */
GPtrArray *cli_arch_sets(CliArchOptions *o);
/* Frees what the parse and cli_arch_sets stored in o, and zeroes it. */
void cli_arch_options_clear(CliArchOptions *o);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(CliArchOptions, cli_arch_options_clear)

/* Loads the architecture `arch` names (NULL: h100) with the architecture
 * keys of sets (char*, --set; trace parameters among them are checked,
 * then left to the program) and then those of extra (char*, may be NULL),
 * into *out, and where each value came from into sources (may be NULL).
 * Returns false with *error set (SIM_ERROR_INPUT). */
bool cli_load_arch(const char *arch, const GPtrArray *sets, const GPtrArray *extra, ArchParams *out,
                   ArchSources *sources, GError **error);

/* Tells on stderr which --set assignments (sets: char*) name a trace
 * parameter that the compiled program never uses. */
void cli_note_unused_params(const SimRun *r, const char *trace_path, const GPtrArray *sets);

/* Fills a ReportInfo from a prepared run of trace t (param values are
 * stored in values, which must outlive info; t's path and hash are
 * borrowed). */
void cli_report_info(const SimRun *r, const Trace *t, SimEngineKind engine, GArray *values, ReportInfo *info);

/* Exit status of `smpipe plot` and `run --plot` when gnuplot is missing:
 * the run succeeded and its timeline data files were written. */
#define CLI_EXIT_NO_GNUPLOT 3
/* Exit status of a `sweep` whose CSV is complete but holds points that did
 * not run (failed, rejected, limit), and of a `merge` whose shards leave
 * points out: the files are written, and a script can tell. */
#define CLI_EXIT_INCOMPLETE 4

/* The timeline outputs of one run (cli_timeline.c). */
typedef struct {
    const char *json;        /* Chrome/Perfetto JSON path, or NULL */
    const char *plot;        /* picture path (.png/.svg/.pdf), or NULL */
    const char *data_dir;    /* where the picture's data files go; NULL: a temporary directory */
    SimCycle from, to;       /* window; to = SIM_CYCLE_NEVER: to the end */
    bool by_role;            /* picture rows per role rather than per warp */
} CliTimelineRequest;

/* Opens the timeline sink for a run of trace with options o (the clock
 * comes from preparing the run).  *data_dir receives the picture's data
 * directory (newly allocated; NULL without a picture).  Returns the sink
 * (the caller closes or aborts it) or NULL with *error set. */
SimTimeline *cli_timeline_open(const Trace *trace, const SimRunOptions *o, const CliTimelineRequest *req,
                               char **data_dir, GError **error);

/* Draws the timeline data under data_dir into out (png/svg/pdf) with
 * gnuplot and scripts/timeline.gp; deletes the data files afterwards unless
 * keep_data.  Without gnuplot the error is G_SPAWN_ERROR_NOENT and says
 * where the data is (see cli_plot_fail). */
bool cli_plot_timeline(const char *data_dir, bool keep_data, const char *out, const SimRun *r, const char *trace,
                       bool by_role, GError **error);

/* Drawing with gnuplot (cli_gnuplot.c). */

/* The picture format ("png", "svg", "pdf") path's extension names, or NULL. */
const char *cli_picture_format(const char *path);
/* scripts/NAME (NAME may hold a folder) in the data directories, in the
 * order of sim_data_dirs: a newly allocated path, or NULL. */
char *cli_find_script(const char *name);
/* Appends "NAME = 'VALUE'" (quotes doubled; "; " first unless defs is
 * empty) to defs, the definitions given to gnuplot -e. */
void cli_gp_define(GString *defs, const char *name, const char *value);
/* Draws out (.png/.svg/.pdf) with scripts/SCRIPT_NAME: runs gnuplot -e with
 * defs plus outfile (a temporary name beside out, renamed to out once
 * gnuplot succeeded), fmt (png/svg/pdf) and term (pngcairo/svg/pdfcairo).
 * data names the drawn data for messages.  The same input gives the same
 * bytes (a PDF's date is fixed).  Errors: G_SPAWN_ERROR_NOENT when gnuplot
 * or the script is missing (the message says how to draw by hand; see
 * cli_plot_fail), SIM_ERROR_INPUT when gnuplot fails (with what it
 * printed) or out cannot be written. */
bool cli_gnuplot_draw(const char *script_name, const char *defs, const char *out, const char *data, GError **error);
/* cli_fail for the plot verbs: exit CLI_EXIT_NO_GNUPLOT when gnuplot is missing. */
int cli_plot_fail(GError *error);

/* One point of a list of points run as a sweep (cli_sweep_points). */
typedef struct {
    char *cells;        /* its axis columns' values, comma separated, as the row shows them (owned) */
    GPtrArray *sets;    /* char*: assignments applied after the shared --set list (owned) */
} CliPoint;

void cli_point_free(CliPoint *p);

/* Runs each point (CliPoint*) of points as a sweep runs its points, on
 * jobs threads (0: one per core), and returns the table of the rows in
 * point order (columns: point, the ncolumns names, status and the sweep's
 * statistics), or NULL with *error set when the base configuration (sets
 * alone) cannot be set up.  A point that fails has its status and error in
 * its row.  The rows do not depend on jobs. */
SweepTable *cli_sweep_points(const Trace *t, const char *trace_path, const char *arch, const GPtrArray *sets,
                             const char *const *columns, guint ncolumns, const GPtrArray *points,
                             const SmOptions *sm, gint jobs, GError **error);
