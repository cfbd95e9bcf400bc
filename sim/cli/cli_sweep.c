/* cli_sweep.c: `smpipe sweep` (run a trace over the Cartesian product of
 * --vary lists, in parallel, and recommend a stage count) and `smpipe
 * merge` (join the CSV files of sharded sweeps).
 *
 * Every point is an independent simulation: the parsed trace is shared
 * read-only between the worker threads (program_new only reads it; names
 * are interned with the thread-safe g_intern_string), and each point
 * builds its own architecture, program and SM.  Rows therefore do not
 * depend on which thread ran them, and the CSV is written in point order,
 * so the bytes are the same whatever --jobs is.
 *
 * While it runs, a sweep appends each finished row to its CSV (a journal
 * that --resume reads back), then rewrites the file in point order under a
 * temporary name; an interrupted sweep leaves complete rows only, and a
 * resumed one ends with the same bytes as an uninterrupted run. */
#include "sim/cli/cli.h"
#include "sim/out/csv.h"

#include "sim/drivers/sweep.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

/* The most rows the readable summary lists. */
#define SUMMARY_ROWS 100

/* What the worker threads share; read-only while they run. */
typedef struct {
    const Trace *trace;
    const char *trace_path;
    const char *arch;          /* name or path, NULL = h100 */
    const GPtrArray *sets;     /* char* --set assignments */
    const GPtrArray *axes;     /* SweepAxis* */
    const GPtrArray *points;   /* CliPoint*: the points, when not the product of axes (cli_sweep_points) */
    SmOptions sm;
    guint nstats;              /* statistics columns of report_csv_header */
    GAsyncQueue *done;         /* PointResult*, pushed by the workers */
} SweepCtx;

typedef struct {
    guint point;
    char *line;                /* the CSV row, no newline (owned) */
    bool ok;
} PointResult;

static const char *status_name(const GError *e)
{
    if (e->domain == SIM_ERROR && e->code == SIM_ERROR_INPUT) {
        return "rejected";
    }
    if (e->domain == SIM_ERROR && e->code == SIM_ERROR_LIMIT) {
        return "limit";
    }
    return "failed";
}

/* The --set assignments of one point (newly allocated, owning its
 * strings): the fixed ones, then NAME=VALUE of each axis.  values gets the
 * point's values, comma separated. */
static GPtrArray *point_sets(const SweepCtx *c, guint point, GString *values)
{
    g_autofree guint *idx = g_new(guint, c->axes->len);
    if (c->points == NULL) {
        sweep_point_indices(c->axes, point, idx);
    }
    GPtrArray *sets = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; c->sets != NULL && i < c->sets->len; i++) {
        g_ptr_array_add(sets, g_strdup(g_ptr_array_index(c->sets, i)));
    }
    if (c->points != NULL) {
        const CliPoint *p = g_ptr_array_index(c->points, point);
        g_string_append_printf(values, ",%s", p->cells);
        for (guint i = 0; i < p->sets->len; i++) {
            g_ptr_array_add(sets, g_strdup(g_ptr_array_index(p->sets, i)));
        }
    }
    for (guint i = 0; c->points == NULL && i < c->axes->len; i++) {
        const SweepAxis *a = g_ptr_array_index(c->axes, i);
        const char *v = g_ptr_array_index(a->values, idx[i]);
        g_string_append_printf(values, ",%s", v);
        g_ptr_array_add(sets, g_strdup_printf("%s=%s", a->name, v));
    }
    return sets;
}

/* The CSV row of one point (newly allocated); *ok when it ran. */
static char *point_row(const SweepCtx *c, guint point, bool *ok)
{
    g_autoptr(GString) row = g_string_new(NULL);
    g_string_append_printf(row, "%u", point);
    g_autoptr(GPtrArray) sets = point_sets(c, point, row);
    SimRunOptions o;
    memset(&o, 0, sizeof o);
    o.arch = c->arch;
    o.sets = sets;
    o.sm = c->sm;
    SimRun r;
    GError *err = NULL;
    *ok = sim_run_trace(c->trace, &o, &r, &err);
    g_string_append_printf(row, ",%s,", *ok ? "ok" : status_name(err));
    if (*ok) {
        g_autoptr(GArray) values = g_array_new(FALSE, FALSE, sizeof(int64_t));
        ReportInfo info;
        cli_report_info(&r, c->trace, c->sm.engine, values, &info);
        report_csv_row(sm_stats(r.sm), &info, row);
    } else {
        /* A point that did not run has no statistics. */
        for (guint i = 1; i < c->nstats; i++) {
            g_string_append_c(row, ',');
        }
    }
    if (r.prog != NULL) {
        const char *limit = NULL;
        int64_t blocks = sweep_blocks_per_sm(r.prog, &r.arch, &limit);
        g_string_append_printf(row, ",%" G_GINT64_FORMAT ",%s,", blocks, limit);
    } else {
        g_string_append(row, ",,,");
    }
    if (err != NULL) {
        /* The first line of the message, naming the trace by its base
         * name so that rows do not depend on where the sweep ran. */
        const char *msg = err->message;
        g_autofree char *base = g_path_get_basename(c->trace_path);
        g_autoptr(GString) first = g_string_new(NULL);
        if (g_str_has_prefix(msg, c->trace_path) && msg[strlen(c->trace_path)] == ':') {
            g_string_append(first, base);
            msg += strlen(c->trace_path);
        }
        const char *nl = strchr(msg, '\n');
        g_string_append_len(first, msg, nl ? nl - msg : (gssize) strlen(msg));
        csv_append_field(row, g_strstrip(first->str));
        g_error_free(err);
    }
    sim_run_clear(&r);
    return g_string_free(g_steal_pointer(&row), FALSE);
}

static void point_worker(gpointer data, gpointer user)
{
    const SweepCtx *c = user;
    PointResult *res = g_new0(PointResult, 1);
    res->point = GPOINTER_TO_UINT(data) - 1;
    res->line = point_row(c, res->point, &res->ok);
    g_async_queue_push(c->done, res);
}

/* Checks the --vary names and every value before anything runs: a name the
 * trace or the architecture does not know, or a value it rejects on its
 * own, is malformed input (exit 2), not a failing point. */
static bool validate_axes(const Trace *t, const char *arch, const GPtrArray *sets, const GPtrArray *axes,
                          GError **error)
{
    ArchParams base;
    if (!cli_load_arch(arch, sets, NULL, &base, NULL, error)) {
        return false;
    }
    g_autoptr(GString) names = g_string_new(NULL);
    for (guint i = 0; i < t->decls->len; i++) {
        const Decl *d = g_ptr_array_index(t->decls, i);
        if (d->kind == DECL_PARAM) {
            g_string_append_printf(names, "%s%s", names->len ? ", " : "", d->name);
        }
    }
    for (guint i = 0; i < axes->len; i++) {
        const SweepAxis *a = g_ptr_array_index(axes, i);
        for (guint k = 0; k < i; k++) {
            if (strcmp(((const SweepAxis *) g_ptr_array_index(axes, k))->name, a->name) == 0) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--vary %s is given twice", a->name);
                return false;
            }
        }
        for (guint k = 0; sets != NULL && k < sets->len; k++) {
            const char *s = g_ptr_array_index(sets, k);
            if (g_str_has_prefix(s, a->name) && s[strlen(a->name)] == '=') {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s is both varied (--vary) and set (--set %s)",
                            a->name, s);
                return false;
            }
        }
        if (a->arch && !arch_has_key(a->name)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--vary %s: not an architecture key (smpipe arch show"
                        " lists them)", a->name);
            return false;
        }
        bool declared = false;
        for (guint k = 0; !a->arch && k < t->decls->len; k++) {
            const Decl *d = g_ptr_array_index(t->decls, k);
            declared |= d->kind == DECL_PARAM && strcmp(d->name, a->name) == 0;
        }
        if (!a->arch && !declared) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--vary %s: %s has no parameter '%s' (it has: %s)",
                        a->name, t->path, a->name, names->len ? names->str : "none");
            return false;
        }
        for (guint v = 0; v < a->values->len; v++) {
            const char *value = g_ptr_array_index(a->values, v);
            g_autofree char *assign = g_strdup_printf("%s=%s", a->name, value);
            bool ok;
            if (a->arch) {
                ArchParams ap;
                g_autoptr(GPtrArray) extra = g_ptr_array_new();
                g_ptr_array_add(extra, assign);
                ok = cli_load_arch(arch, sets, extra, &ap, NULL, error);
            } else {
                /* Built as a point is (sim_run_program: the trace's own
                 * `param blocks` counts). */
                g_autoptr(GPtrArray) point_sets = g_ptr_array_new();
                for (guint k = 0; sets != NULL && k < sets->len; k++) {
                    g_ptr_array_add(point_sets, g_ptr_array_index(sets, k));
                }
                g_ptr_array_add(point_sets, assign);
                SimRunOptions o;
                memset(&o, 0, sizeof o);
                o.arch = arch;
                o.sets = point_sets;
                SimRun r;
                ok = sim_run_program(t, &o, &r, error);
                sim_run_clear(&r);
            }
            if (!ok) {
                /* arch_load names the assignment as a --set. */
                g_autofree char *as_set = g_strdup_printf("--set %s: ", assign);
                if (error != NULL && *error != NULL && g_str_has_prefix((*error)->message, as_set)) {
                    g_autofree char *rest = g_strdup((*error)->message + strlen(as_set));
                    g_free((*error)->message);
                    (*error)->message = g_steal_pointer(&rest);
                }
                g_prefix_error(error, "--vary %s: ", assign);
                return false;
            }
        }
    }
    return true;
}

/* The start of the sweep's CSV (newly allocated): the provenance lines
 * (the trace's parameters other than the varied ones, the architecture
 * with the --set keys only, the number of points of the whole sweep, all
 * shards together) and the header line, without a final newline; and the
 * number of statistics columns in it. */
static char *sweep_header(const Trace *t, const char *arch, const GPtrArray *sets, const GPtrArray *axes,
                          guint npoints, guint *nstats, GError **error)
{
    SimRunOptions o;
    memset(&o, 0, sizeof o);
    o.arch = arch;
    o.sets = sets;
    SimRun base;
    if (!sim_run_program(t, &o, &base, error)) {
        sim_run_clear(&base);
        return NULL;
    }
    g_autoptr(GArray) values = g_array_new(FALSE, FALSE, sizeof(int64_t));
    ReportInfo info;
    cli_report_info(&base, t, SIM_ENGINE_EVENT, values, &info);
    g_autoptr(GPtrArray) varied = g_ptr_array_new();
    for (guint i = 0; i < axes->len; i++) {
        g_ptr_array_add(varied, ((const SweepAxis *) g_ptr_array_index(axes, i))->name);
    }
    g_autoptr(GString) h = g_string_new(NULL);
    report_csv_provenance(&info, varied, h);
    g_string_append_printf(h, "# points: %u\n", npoints);
    g_autoptr(GString) stats = g_string_new(NULL);
    report_csv_header(&info, stats);
    sim_run_clear(&base);
    *nstats = 1;
    for (const char *p = stats->str; *p; p++) {
        *nstats += *p == ',';
    }
    g_string_append(h, "point");
    for (guint i = 0; i < axes->len; i++) {
        g_string_append_printf(h, ",%s", ((const SweepAxis *) g_ptr_array_index(axes, i))->name);
    }
    g_string_append_printf(h, ",status,%s,blocks_per_sm,occupancy_limit,error", stats->str);
    return g_string_free(g_steal_pointer(&h), FALSE);
}

/* Reads the rows a previous run of this sweep left in path into lines
 * (indexed by point).  A missing file holds no rows. */
static bool resume_read(const char *path, const SweepTable *want, const GPtrArray *axes, guint npoints,
                        const SweepShard *shard, char **lines, GError **error)
{
    g_autofree char *text = NULL;
    gsize len = 0;
    GError *err = NULL;
    if (!g_file_get_contents(path, &text, &len, &err)) {
        bool missing = g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOENT);
        if (!missing) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--resume: %s", err->message);
        }
        g_error_free(err);
        return missing;
    }
    bool torn = false;
    g_autoptr(SweepTable) t = sweep_table_parse(path, text, len, true, &torn, error);
    if (t == NULL) {
        return false;
    }
    if (!sweep_table_same_origin(t, path, want, "this sweep", error)) {
        g_prefix_error(error, "--resume ");
        return false;
    }
    if (strcmp(t->header, want->header) != 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--resume %s: its header differs from this sweep's (another"
                    " sweep's CSV, other --vary names, or another version of smpipe)", path);
        return false;
    }
    if (!sweep_table_sort(t, error)) {
        g_prefix_error(error, "--resume %s: ", path);
        return false;
    }
    g_autofree guint *idx = g_new(guint, axes->len);
    for (guint i = 0; i < t->rows->len; i++) {
        SweepRow *r = g_ptr_array_index(t->rows, i);
        if (r->point >= npoints || !sweep_shard_has(shard, r->point)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--resume %s: point %u is not in this sweep%s", path,
                        r->point, shard->count > 1 ? " shard" : "");
            return false;
        }
        sweep_point_indices(axes, r->point, idx);
        for (guint k = 0; k < axes->len; k++) {
            const SweepAxis *a = g_ptr_array_index(axes, k);
            const char *want = g_ptr_array_index(a->values, idx[k]);
            if (strcmp(g_ptr_array_index(r->fields, k + 1), want) != 0) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--resume %s: point %u has %s=%s, but this sweep's"
                            " point %u has %s=%s: not the same --vary lists", path, r->point, a->name,
                            (const char *) g_ptr_array_index(r->fields, k + 1), r->point, a->name, want);
                return false;
            }
        }
        lines[r->point] = g_steal_pointer(&r->line);
        r->line = g_strdup("");
    }
    if (torn) {
        fprintf(stderr, "smpipe sweep: %s: dropped an incomplete last row\n", path);
    }
    return true;
}

static void progress(guint done, guint total, gint64 *last)
{
    gint64 now = g_get_monotonic_time();
    if (done != total && now - *last < 100000) {
        return;
    }
    *last = now;
    int width = 30;
    int filled = total ? (int) ((guint64) done * (guint64) width / total) : width;
    fprintf(stderr, "\rsmpipe sweep [");
    for (int i = 0; i < width; i++) {
        fputc(i < filled ? '#' : '.', stderr);
    }
    fprintf(stderr, "] %u/%u points", done, total);
    if (done == total) {
        fputs("\r\033[K", stderr);
    }
    fflush(stderr);
}

/* The readable table of the points (at most SUMMARY_ROWS). */
static void summary(const SweepTable *t, GString *out)
{
    guint n = t->naxes;
    g_autofree int *width = g_new0(int, n);
    for (guint c = 0; c < n; c++) {
        width[c] = MAX(6, (int) strlen(g_ptr_array_index(t->columns, c + 1)));
        for (guint i = 0; i < t->rows->len && i < SUMMARY_ROWS; i++) {
            const SweepRow *r = g_ptr_array_index(t->rows, i);
            width[c] = MAX(width[c], (int) strlen(g_ptr_array_index(r->fields, c + 1)));
        }
    }
    for (guint c = 0; c < n; c++) {
        g_string_append_printf(out, "%*s  ", width[c], (const char *) g_ptr_array_index(t->columns, c + 1));
    }
    g_string_append_printf(out, "%12s  %6s  %9s  %s\n", "cycles", "hidden", "blocks/SM", "status");
    for (guint i = 0; i < t->rows->len && i < SUMMARY_ROWS; i++) {
        const SweepRow *r = g_ptr_array_index(t->rows, i);
        for (guint c = 0; c < n; c++) {
            g_string_append_printf(out, "%*s  ", width[c], (const char *) g_ptr_array_index(r->fields, c + 1));
        }
        const char *status = g_ptr_array_index(r->fields, n + 1);
        const char *hidden = sweep_row_field(t, r, "hidden_copy_fraction");
        g_autofree char *hidden3 = *hidden ? g_strdup_printf("%.3f", g_ascii_strtod(hidden, NULL)) : g_strdup("");
        g_string_append_printf(out, "%12s  %6s  %9s  %s", sweep_row_field(t, r, "cycles"), hidden3,
                               sweep_row_field(t, r, "blocks_per_sm"), status);
        if (strcmp(status, "ok") != 0) {
            g_string_append_printf(out, ": %s", sweep_row_field(t, r, "error"));
        }
        g_string_append_c(out, '\n');
    }
    if (t->rows->len > SUMMARY_ROWS) {
        g_string_append_printf(out, "... and %u more points in the CSV\n", t->rows->len - SUMMARY_ROWS);
    }
}

/* The architecture of a point into *ap: --set (sets) plus the point's
 * varied architecture keys.  Returns false with *error set. */
static bool row_arch(const SweepTable *t, const SweepRow *r, const char *arch, const GPtrArray *sets, ArchParams *ap,
                     GError **error)
{
    g_autoptr(GPtrArray) varied = g_ptr_array_new_with_free_func(g_free);
    for (guint c = 1; c <= t->naxes; c++) {
        const char *name = g_ptr_array_index(t->columns, c);
        if (strchr(name, '.') != NULL) {
            g_ptr_array_add(varied, g_strdup_printf("%s=%s", name, (const char *) g_ptr_array_index(r->fields, c)));
        }
    }
    return cli_load_arch(arch, sets, varied, ap, NULL, error);
}

/* Recommends a stage count per combination of the other axes. */
static bool recommend(const SweepTable *t, const char *arch, const GPtrArray *sets, double tolerance, GString *out,
                      GError **error)
{
    g_autoptr(GPtrArray) groups = sweep_recommend(t, "stages", tolerance, error);
    if (groups == NULL) {
        return false;
    }
    for (guint k = 0; k < groups->len; k++) {
        const SweepGroup *g = g_ptr_array_index(groups, k);
        ArchParams ap;
        memset(&ap, 0, sizeof ap);
        /* The group's architecture: --set plus its varied keys. */
        if (g->rows->len > 0 &&
            !row_arch(t, g_ptr_array_index(t->rows, g_array_index(g->rows, guint, 0)), arch, sets, &ap, error)) {
            return false;
        }
        if (k > 0) {
            g_string_append_c(out, '\n');
        }
        sweep_explain(t, "stages", g, &ap, tolerance, out);
    }
    return true;
}

/* When an axis picks the copy engine: the faster engine per combination
 * of the other axes (the stage axis aside) and what bounds each. */
static bool compare_engines(const SweepTable *t, const char *arch, const GPtrArray *sets, double tolerance,
                            GString *out, GError **error)
{
    g_autoptr(GPtrArray) engines = sweep_engines(t, "stages");
    for (guint k = 0; k < engines->len; k++) {
        const SweepEngines *e = g_ptr_array_index(engines, k);
        ArchParams ap[2];
        for (int i = 0; i < 2; i++) {
            if (!row_arch(t, g_ptr_array_index(t->rows, (guint) e->row[i]), arch, sets, &ap[i], error)) {
                return false;
            }
        }
        g_string_append_c(out, '\n');
        sweep_explain_engines(t, e, &ap[0], &ap[1], tolerance, out);
    }
    return true;
}

static bool write_text(const char *path, const GString *text, GError **error)
{
    return sim_write_file(path, text->str, text->len, error);
}

/* A sweep being run: what cli_sweep parsed, and what running it holds. */
typedef struct {
    SweepCtx ctx;              /* shared with the workers */
    SweepShard shard;
    guint npoints;
    const char *header;        /* the provenance lines and the header line, no final newline */
    const char *resume;        /* --resume FILE or NULL */
    const char *out;           /* where the CSV goes ("-" = stdout) or NULL */
    const char *report;        /* where the report goes (-o; "-" = stdout) or NULL */
    gint jobs;                 /* 0 = one per core */
    double tolerance;
    bool dry_run;              /* check every point, simulate none */
    char **lines;              /* [npoints] CSV rows by point, NULL = not run (owned) */
    FILE *journal;             /* rows appended as they finish, or NULL */
    GThreadPool *pool;
} SweepRunState;

static void sweep_run_state_clear(SweepRunState *s)
{
    if (s->pool != NULL) {
        /* Drop the points not started, wait for the running ones. */
        g_thread_pool_free(s->pool, TRUE, TRUE);
    }
    if (s->journal != NULL) {
        fclose(s->journal);
    }
    if (s->ctx.done != NULL) {
        PointResult *left;
        while ((left = g_async_queue_try_pop(s->ctx.done)) != NULL) {
            g_free(left->line);
            g_free(left);
        }
        g_async_queue_unref(s->ctx.done);
    }
    for (guint p = 0; s->lines != NULL && p < s->npoints; p++) {
        g_free(s->lines[p]);
    }
    g_free(s->lines);
}

/* --dry-run: builds every point still to run (program and SM, as a point
 * starts) without simulating it, and says which a sweep would reject.
 * Writes nothing.  Returns the exit status: 0, the sweep can start. */
static int sweep_dry_run(const SweepRunState *s)
{
    guint todo = 0, rejected = 0;
    for (guint p = 0; p < s->npoints; p++) {
        if (s->lines[p] != NULL || !sweep_shard_has(&s->shard, p)) {
            continue;
        }
        todo++;
        g_autoptr(GString) values = g_string_new(NULL);
        g_autoptr(GPtrArray) sets = point_sets(&s->ctx, p, values);
        SimRunOptions o;
        memset(&o, 0, sizeof o);
        o.arch = s->ctx.arch;
        o.sets = sets;
        o.sm = s->ctx.sm;
        SimRun r;
        GError *err = NULL;
        if (!sim_run_prepare(s->ctx.trace, &o, &r, &err)) {
            /* The point's NAME=VALUE assignments: the last of its sets. */
            g_autoptr(GString) names = g_string_new(NULL);
            for (guint i = sets->len - s->ctx.axes->len; i < sets->len; i++) {
                g_string_append_printf(names, "%s%s", names->len ? " " : "", (const char *) sets->pdata[i]);
            }
            const char *nl = strchr(err->message, '\n');
            fprintf(stderr, "smpipe sweep: --dry-run: point %u (%s) would be %s: %.*s\n", p, names->str,
                    status_name(err), nl ? (int) (nl - err->message) : (int) strlen(err->message), err->message);
            rejected++;
            g_error_free(err);
        }
        sim_run_clear(&r);
    }
    printf("dry run: %u of %u points to run%s, %u would be rejected; nothing was simulated or written\n", todo,
           s->npoints, s->shard.count > 1 ? " in this shard" : "", rejected);
    return 0;
}

/* Runs the points not done yet, writes the CSV and prints the summary and
 * the recommendation.  Returns the exit status. */
static int sweep_execute(SweepRunState *s)
{
    GError *err = NULL;
    s->lines = g_new0(char *, s->npoints);
    s->ctx.done = g_async_queue_new();
    if (s->resume != NULL) {
        g_autofree char *start = g_strdup_printf("%s\n", s->header);
        g_autoptr(SweepTable) want = sweep_table_parse("sweep", start, strlen(start), false, NULL, &err);
        if (want == NULL || !resume_read(s->resume, want, s->ctx.axes, s->npoints, &s->shard, s->lines, &err)) {
            return cli_fail(err);
        }
    }
    if (s->dry_run) {
        return sweep_dry_run(s);
    }
    /* Start the journal: the header and the rows already done. */
    g_autoptr(GString) text = g_string_new(NULL);
    g_string_append_printf(text, "%s\n", s->header);
    guint todo = 0;
    for (guint p = 0; p < s->npoints; p++) {
        if (s->lines[p] != NULL) {
            g_string_append_printf(text, "%s\n", s->lines[p]);
        } else if (sweep_shard_has(&s->shard, p)) {
            todo++;
        }
    }
    if (s->out != NULL && strcmp(s->out, "-") != 0) {
        if (!write_text(s->out, text, &err)) {
            return cli_fail(err);
        }
        s->journal = fopen(s->out, "a");
        if (s->journal == NULL) {
            fprintf(stderr, "smpipe sweep: cannot append to %s\n", s->out);
            return SIM_EXIT_BAD_INPUT;
        }
    }
    if (todo > 0) {
        gint threads = s->jobs > 0 ? s->jobs : (gint) g_get_num_processors();
        s->pool = g_thread_pool_new(point_worker, &s->ctx, (gint) MIN((guint) threads, todo), FALSE, &err);
        if (s->pool == NULL) {
            return cli_fail(err);
        }
        for (guint p = 0; p < s->npoints; p++) {
            if (s->lines[p] == NULL && sweep_shard_has(&s->shard, p)) {
                g_thread_pool_push(s->pool, GUINT_TO_POINTER(p + 1), NULL);
            }
        }
    }
    bool bar = isatty(fileno(stderr)) && todo > 1;
    gint64 last = 0;
    guint failed = 0;
    for (guint got = 0; got < todo; got++) {
        PointResult *res = g_async_queue_pop(s->ctx.done);
        s->lines[res->point] = res->line;
        failed += !res->ok;
        bool written = s->journal == NULL || (fprintf(s->journal, "%s\n", res->line) > 0 && fflush(s->journal) == 0);
        g_free(res);
        if (!written) {
            fprintf(stderr, "smpipe sweep: cannot append to %s\n", s->out);
            return SIM_EXIT_BAD_INPUT;
        }
        if (bar) {
            progress(got + 1, todo, &last);
        }
    }

    /* The final CSV, in point order, replaces the journal. */
    g_string_truncate(text, 0);
    g_string_append_printf(text, "%s\n", s->header);
    for (guint p = 0; p < s->npoints; p++) {
        if (s->lines[p] != NULL) {
            g_string_append_printf(text, "%s\n", s->lines[p]);
        }
    }
    if (s->journal != NULL) {
        fclose(s->journal);
        s->journal = NULL;
    }
    if (s->out != NULL && !write_text(s->out, text, &err)) {
        return cli_fail(err);
    }
    g_autoptr(SweepTable) table = sweep_table_parse("sweep", text->str, text->len, false, NULL, &err);
    if (table == NULL) {
        return cli_fail(err);
    }
    g_autoptr(GString) human = g_string_new(NULL);
    summary(table, human);
    int stages = sweep_table_column(table, "stages");
    if (stages > 0 && stages <= (int) table->naxes && s->shard.count > 1) {
        /* Part of the points would give a wrong answer. */
        g_string_append_printf(human, "\nshard %u/%u: no recommendation from part of the points; merge the shards,"
                               " then run this sweep with --resume MERGED.csv (nothing is simulated again)\n",
                               s->shard.index, s->shard.count);
    } else {
        if (stages > 0 && stages <= (int) table->naxes) {
            g_string_append_c(human, '\n');
            if (!recommend(table, s->ctx.arch, s->ctx.sets, s->tolerance, human, &err)) {
                return cli_fail(err);
            }
        }
        if (s->shard.count == 1 && !compare_engines(table, s->ctx.arch, s->ctx.sets, s->tolerance, human, &err)) {
            return cli_fail(err);
        }
    }
    if (s->report != NULL) {
        if (!write_text(s->report, human, &err)) {
            return cli_fail(err);
        }
    } else {
        fputs(human->str, s->out != NULL && strcmp(s->out, "-") == 0 ? stderr : stdout);
        fflush(stdout);
    }
    if (failed > 0) {
        fprintf(stderr, "smpipe sweep: %u of %u points did not run (their status and error columns say why)\n",
                failed, todo);
    }
    /* Rows that did not run, these or resumed ones: the CSV is complete,
     * the sweep is not. */
    for (guint i = 0; i < table->rows->len; i++) {
        const SweepRow *r = g_ptr_array_index(table->rows, i);
        if (strcmp(g_ptr_array_index(r->fields, table->naxes + 1), "ok") != 0) {
            return CLI_EXIT_INCOMPLETE;
        }
    }
    return 0;
}

void cli_point_free(CliPoint *p)
{
    if (p != NULL) {
        g_free(p->cells);
        g_ptr_array_free(p->sets, TRUE);
        g_free(p);
    }
}

SweepTable *cli_sweep_points(const Trace *t, const char *trace_path, const char *arch, const GPtrArray *sets,
                             const char *const *columns, guint ncolumns, const GPtrArray *points,
                             const SmOptions *sm, gint jobs, GError **error)
{
    /* The header: axes that carry only their names. */
    g_autoptr(GPtrArray) axes = g_ptr_array_new_with_free_func((GDestroyNotify) sweep_axis_free);
    for (guint i = 0; i < ncolumns; i++) {
        SweepAxis *a = g_new0(SweepAxis, 1);
        a->name = g_strdup(columns[i]);
        a->values = g_ptr_array_new_with_free_func(g_free);
        g_ptr_array_add(axes, a);
    }
    guint nstats = 0;
    g_autofree char *header = sweep_header(t, arch, sets, axes, points->len, &nstats, error);
    if (header == NULL) {
        return NULL;
    }
    SweepCtx c;
    memset(&c, 0, sizeof c);
    c.trace = t;
    c.trace_path = trace_path;
    c.arch = arch;
    c.sets = sets;
    c.axes = axes;
    c.points = points;
    c.sm = *sm;
    c.nstats = nstats;
    c.done = g_async_queue_new();
    g_autofree char **lines = g_new0(char *, points->len + 1);
    if (points->len > 0) {
        gint threads = jobs > 0 ? jobs : (gint) g_get_num_processors();
        GThreadPool *pool = g_thread_pool_new(point_worker, &c, (gint) MIN((guint) threads, points->len), FALSE,
                                              error);
        if (pool == NULL) {
            g_async_queue_unref(c.done);
            return NULL;
        }
        for (guint p = 0; p < points->len; p++) {
            g_thread_pool_push(pool, GUINT_TO_POINTER(p + 1), NULL);
        }
        for (guint got = 0; got < points->len; got++) {
            PointResult *res = g_async_queue_pop(c.done);
            lines[res->point] = res->line;
            g_free(res);
        }
        g_thread_pool_free(pool, FALSE, TRUE);
    }
    g_async_queue_unref(c.done);
    /* The rows in point order, as a sweep's CSV. */
    g_autoptr(GString) text = g_string_new(NULL);
    g_string_append_printf(text, "%s\n", header);
    for (guint p = 0; p < points->len; p++) {
        g_string_append_printf(text, "%s\n", lines[p]);
        g_free(lines[p]);
    }
    return sweep_table_parse("points", text->str, text->len, false, NULL, error);
}

int cli_sweep(int argc, char **argv)
{
    g_auto(GStrv) vary = NULL;
    g_auto(CliArchOptions) ao = { 0 };
    g_autofree char *csv = NULL;
    g_autofree char *shard_text = NULL;
    g_autofree char *resume = NULL;
    g_autofree char *output = NULL;
    gint jobs = 0;
    gboolean dry_run = FALSE;
    gdouble tolerance = 2.0;
    CliLimits limits;
    GOptionEntry entries[] = {
        { "vary", 'v', 0, G_OPTION_ARG_STRING_ARRAY, &vary, "Vary a trace parameter or an architecture key over a"
          " list: 1,2,4 or 1..8 or 64..512:64 or dram,l2 (repeat for a product)", "NAME=LIST" },
        { "csv", 0, 0, G_OPTION_ARG_FILENAME, &csv, "Write one CSV row per point (- for stdout)", "FILE|-" },
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the summary and the recommendation to FILE [stdout,"
          " or stderr with --csv -]", "FILE|-" },
        { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "Points simulated at once [one per core]", "N" },
        { "tolerance", 0, 0, G_OPTION_ARG_DOUBLE, &tolerance, "Recommend the fewest stages within PCT percent of the"
          " best cycles [2]", "PCT" },
        { "shard", 0, 0, G_OPTION_ARG_STRING, &shard_text, "Run only shard I of N (points I-1, I-1+N, ...)", "I/N" },
        { "resume", 0, 0, G_OPTION_ARG_FILENAME, &resume, "Skip the points already in FILE and complete it (the CSV"
          " goes there unless --csv says otherwise)", "FILE.csv" },
        { "dry-run", 0, 0, G_OPTION_ARG_NONE, &dry_run, "Check every point (its program and its fit on the SM)"
          " without simulating or writing anything", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("TRACE - run a trace over parameter ranges and recommend a"
                                                         " stage count");
    cli_add_arch_options(ctx, &ao, CLI_ARCH_HELP, CLI_SET_HELP " for every point");
    g_option_context_add_main_entries(ctx, entries, NULL);
    cli_add_limit_options(ctx, &limits);
    int status;
    if (!cli_parse_trace(ctx, "sweep", &argc, &argv, &status)) {
        return status;
    }
    if (vary == NULL) {
        fprintf(stderr, "smpipe sweep: nothing to vary: give --vary NAME=LIST, e.g. --vary stages=1..8\n");
        return SIM_EXIT_BAD_INPUT;
    }
    if (jobs < 0) {
        /* 0, the default, is one per core. */
        fprintf(stderr, "smpipe sweep: --jobs must be at least 1 (or 0: one per core)\n");
        return SIM_EXIT_BAD_INPUT;
    }
    if (!isfinite(tolerance) || tolerance < 0.0) {
        fprintf(stderr, "smpipe sweep: --tolerance takes a percentage >= 0\n");
        return SIM_EXIT_BAD_INPUT;
    }
    SmOptions sm_limits;
    memset(&sm_limits, 0, sizeof sm_limits);
    if (!cli_apply_limits("sweep", &limits, &sm_limits)) {
        return SIM_EXIT_BAD_INPUT;
    }
    if (resume != NULL && strcmp(resume, "-") == 0) {
        fprintf(stderr, "smpipe sweep: --resume takes a file, not standard input\n");
        return SIM_EXIT_BAD_INPUT;
    }
    GError *err = NULL;
    /* A --resume file that is also the output is checked as it is read. */
    const CliOutput outs[] = { { "--output", output }, { "--csv", csv } };
    if (!cli_check_outputs(outs, G_N_ELEMENTS(outs), &err)) {
        return cli_fail(err);
    }
    SweepRunState s;
    memset(&s, 0, sizeof s);
    s.shard = (SweepShard) { 1, 1 };
    if (shard_text != NULL && !sweep_shard_parse(shard_text, &s.shard, &err)) {
        return cli_fail(err);
    }
    g_autoptr(GPtrArray) axes = g_ptr_array_new_with_free_func((GDestroyNotify) sweep_axis_free);
    for (int i = 0; vary[i] != NULL; i++) {
        SweepAxis *a = sweep_axis_parse(vary[i], &err);
        if (a == NULL) {
            return cli_fail(err);
        }
        g_ptr_array_add(axes, a);
    }
    if (!sweep_count_points(axes, &s.npoints, &err)) {
        return cli_fail(err);
    }
    const char *path = argv[1];
    g_autoptr(Trace) t = trace_parse_file(path, &err);
    if (t == NULL) {
        return cli_fail(err);
    }
    const char *arch = ao.arch;
    GPtrArray *set_list = cli_arch_sets(&ao);
    guint nstats = 0;
    g_autofree char *header = NULL;
    if (!validate_axes(t, arch, set_list, axes, &err) ||
        (header = sweep_header(t, arch, set_list, axes, s.npoints, &nstats, &err)) == NULL) {
        return cli_fail(err);
    }
    s.ctx.trace = t;
    s.ctx.trace_path = path;
    s.ctx.arch = arch;
    s.ctx.sets = set_list;
    s.ctx.axes = axes;
    s.ctx.nstats = nstats;
    s.ctx.sm.engine = SIM_ENGINE_EVENT;
    s.ctx.sm.max_cycles = sm_limits.max_cycles;
    s.ctx.sm.max_ops = sm_limits.max_ops;
    s.ctx.sm.race_check = true;
    s.header = header;
    s.resume = resume;
    s.out = csv != NULL ? csv : resume;
    s.report = output;
    s.dry_run = dry_run;
    s.jobs = jobs;
    s.tolerance = tolerance;
    int rc = sweep_execute(&s);
    sweep_run_state_clear(&s);
    return rc;
}

/* Counts points from..to-1 as missing in *n, listing the first 8 in list. */
static void note_missing(GString *list, guint *n, guint from, guint to)
{
    for (guint p = from; p < to; p++, (*n)++) {
        if (*n < 8) {
            g_string_append_printf(list, "%s%u", *n ? ", " : "", p);
        }
    }
}

int cli_merge(int argc, char **argv)
{
    g_autofree char *output = NULL;
    GOptionEntry entries[] = {
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the merged CSV to FILE [stdout]", "FILE" },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("SHARD.csv... - join the CSV files of sharded sweeps, in"
                                                         " the order of the unsharded sweep");
    g_option_context_add_main_entries(ctx, entries, NULL);
    int status;
    if (!cli_parse(ctx, &argc, &argv, &status)) {
        return status;
    }
    if (argc < 2) {
        fprintf(stderr, "smpipe merge: expected the CSV files of a sweep's shards\n");
        return SIM_EXIT_BAD_INPUT;
    }
    GError *err = NULL;
    const CliOutput outs[] = { { "--output", output } };
    if (!cli_check_outputs(outs, G_N_ELEMENTS(outs), &err)) {
        return cli_fail(err);
    }
    g_autoptr(SweepTable) all = NULL;
    for (int i = 1; i < argc; i++) {
        g_autofree char *text = NULL;
        gsize len = 0;
        if (!g_file_get_contents(argv[i], &text, &len, &err)) {
            g_autoptr(GError) e = g_steal_pointer(&err);
            g_set_error(&err, SIM_ERROR, SIM_ERROR_INPUT, "%s", e->message);
            return cli_fail(err);
        }
        SweepTable *t = sweep_table_parse(argv[i], text, len, false, NULL, &err);
        if (t == NULL) {
            return cli_fail(err);
        }
        if (all == NULL ? !sweep_table_check_format(t, argv[i], &err)
                        : !sweep_table_same_origin(t, argv[i], all, argv[1], &err)) {
            /* Shards of one sweep come from one trace, one set of fixed
             * parameters and one architecture. */
            sweep_table_free(t);
            fprintf(stderr, "smpipe merge: %s\n", err->message);
            g_error_free(err);
            return SIM_EXIT_BAD_INPUT;
        }
        if (all == NULL) {
            all = t;
            continue;
        }
        const char *tn = sweep_table_meta(t, "points");
        const char *an = sweep_table_meta(all, "points");
        if (g_strcmp0(tn, an) != 0) {
            fprintf(stderr, "smpipe merge: %s: from a sweep of %s points, %s from one of %s: not shards of one sweep\n",
                    argv[i], tn ? tn : "an unknown number of", argv[1], an ? an : "an unknown number of");
            sweep_table_free(t);
            return SIM_EXIT_BAD_INPUT;
        }
        bool same = strcmp(t->header, all->header) == 0;
        if (same) {
            while (t->rows->len > 0) {
                g_ptr_array_add(all->rows, g_ptr_array_steal_index(t->rows, 0));
            }
        }
        sweep_table_free(t);
        if (!same) {
            fprintf(stderr, "smpipe merge: %s: its header differs from %s's: not shards of one sweep\n", argv[i],
                    argv[1]);
            return SIM_EXIT_BAD_INPUT;
        }
    }
    if (!sweep_table_sort(all, &err)) {
        return cli_fail(err);
    }
    /* The sweep's points ('# points:'; a CSV without the line shows only
     * the gaps before its last row): a shard left out? */
    guint64 npoints = 0;
    const char *np = sweep_table_meta(all, "points");
    if (np != NULL && !g_ascii_string_to_unsigned(np, 10, 0, G_MAXUINT, &npoints, NULL)) {
        fprintf(stderr, "smpipe merge: %s: '# points: %s' is not a number of points\n", argv[1], np);
        return SIM_EXIT_BAD_INPUT;
    }
    g_autoptr(GString) missing = g_string_new(NULL);
    guint nmissing = 0, expect = 0;
    for (guint i = 0; i < all->rows->len; i++) {
        guint p = ((const SweepRow *) g_ptr_array_index(all->rows, i))->point;
        if (np != NULL && p >= npoints) {
            fprintf(stderr, "smpipe merge: point %u is not in a sweep of %s points\n", p, np);
            return SIM_EXIT_BAD_INPUT;
        }
        note_missing(missing, &nmissing, expect, p);
        expect = p + 1;
    }
    note_missing(missing, &nmissing, expect, (guint) npoints);
    if (nmissing > 0) {
        fprintf(stderr, "smpipe merge: warning: %u point%s missing (%s%s): is a shard left out?\n", nmissing,
                nmissing == 1 ? " is" : "s are", missing->str, nmissing > 8 ? ", ..." : "");
    }
    g_autoptr(GString) out = g_string_new(NULL);
    sweep_table_format(all, out);
    if (!sim_write_file(output ? output : "-", out->str, out->len, &err)) {
        return cli_fail(err);
    }
    return nmissing > 0 ? CLI_EXIT_INCOMPLETE : 0;
}
