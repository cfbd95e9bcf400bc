/* cli_plot_sweep.c: `smpipe plot SWEEP.csv -o FILE.png|svg|pdf`: cycles
 * and the hidden copy fraction against the swept parameter, one line per
 * combination of the other varied parameters, the recommended stage count
 * marked.  The data goes to FILE.dat first (kept: it is what gnuplot
 * draws), then scripts/sweep.gp draws it into a temporary file that is
 * renamed to FILE.  Without gnuplot, the data file is still written and
 * the message says how to install it. */
#include "sim/cli/cli.h"

#include "sim/drivers/sweep.h"

#include <math.h>
#include <stdio.h>

static bool is_integer(const char *s)
{
    char *end = NULL;
    if (*s == '\0') {
        return false;
    }
    g_ascii_strtoll(s, &end, 10);
    return *end == '\0';
}

static void append_double(GString *out, double v)
{
    char b[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append(out, g_ascii_formatd(b, sizeof b, "%.6g", v));
}

/* Whether the numeric x column spans a factor of at least `factor` with
 * every value positive (powers of two: a logarithmic axis reads better). */
static bool spans_factor(const SweepTable *t, const char *x, double factor)
{
    int xc = sweep_table_column(t, x);
    double lo = INFINITY, hi = 0.0;
    for (guint i = 0; i < t->rows->len; i++) {
        const SweepRow *r = g_ptr_array_index(t->rows, i);
        double v = g_ascii_strtod(g_ptr_array_index(r->fields, xc), NULL);
        if (v <= 0.0) {
            return false;
        }
        lo = MIN(lo, v);
        hi = MAX(hi, v);
    }
    return hi >= factor * lo;
}

/* Writes the data file's text: one block per series, then the recommended
 * points when the x axis is stages.  *nseries, *titles (space separated)
 * and *categorical describe it for the script. */
static bool plot_data(const SweepTable *t, const char *x, double tolerance, GString *data, guint *nseries,
                      GString *titles, bool *categorical, bool *rec, GError **error)
{
    int xc = sweep_table_column(t, x);
    /* sweep_recommend groups the ok rows by the other axes, sorted by x. */
    g_autoptr(GPtrArray) groups = sweep_recommend(t, x, tolerance, error);
    if (groups == NULL) {
        return false;
    }
    /* A word-valued axis is drawn in order of first appearance. */
    *categorical = false;
    g_autoptr(GPtrArray) order = g_ptr_array_new();
    for (guint i = 0; i < t->rows->len; i++) {
        const SweepRow *r = g_ptr_array_index(t->rows, i);
        const char *v = g_ptr_array_index(r->fields, xc);
        *categorical |= !is_integer(v);
        if (!g_ptr_array_find_with_equal_func(order, v, g_str_equal, NULL)) {
            g_ptr_array_add(order, (gpointer) v);
        }
    }
    *rec = strcmp(x, "stages") == 0 && !*categorical;
    *nseries = 0;
    g_autoptr(GString) marks = g_string_new(NULL);
    for (guint k = 0; k < groups->len; k++) {
        const SweepGroup *g = g_ptr_array_index(groups, k);
        if (g->rows->len == 0) {
            continue;
        }
        /* Titles are words of the script's list: no spaces or quotes. */
        g_autofree char *title = g->others[0] ? g_strdelimit(g_strdup(g->others), " ", ',') : g_strdup("all");
        g_strcanon(title, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-=,", '_');
        g_string_append_printf(titles, "%s%s", titles->len ? " " : "", title);
        g_string_append_printf(data, "%s# series %u: %s\n", *nseries ? "\n\n" : "", *nseries, title);
        /* Word axes keep their first-appearance order, not sorted. */
        g_autoptr(GArray) rows = g_array_copy(g->rows);
        if (*categorical) {
            for (guint i = 1; i < rows->len; i++) {
                for (guint j = i; j > 0 && g_array_index(rows, guint, j - 1) > g_array_index(rows, guint, j); j--) {
                    guint tmp = g_array_index(rows, guint, j);
                    g_array_index(rows, guint, j) = g_array_index(rows, guint, j - 1);
                    g_array_index(rows, guint, j - 1) = tmp;
                }
            }
        }
        for (guint i = 0; i < rows->len; i++) {
            const SweepRow *r = g_ptr_array_index(t->rows, g_array_index(rows, guint, i));
            const char *v = g_ptr_array_index(r->fields, xc);
            guint pos = 0;
            g_ptr_array_find_with_equal_func(order, v, g_str_equal, &pos);
            if (*categorical) {
                g_string_append_printf(data, "%u ", pos);
            } else {
                g_string_append_printf(data, "%s ", v);
            }
            g_string_append_printf(data, "%s ", sweep_row_field(t, r, "cycles"));
            append_double(data, g_ascii_strtod(sweep_row_field(t, r, "hidden_copy_fraction"), NULL));
            g_string_append_printf(data, " %s\n", v);
        }
        if (*rec && g->recommended >= 0) {
            const SweepRow *r = g_ptr_array_index(t->rows, g_array_index(g->rows, guint, g->recommended));
            g_string_append_printf(marks, "%s %s\n", (const char *) g_ptr_array_index(r->fields, xc),
                                   sweep_row_field(t, r, "cycles"));
        }
        (*nseries)++;
    }
    if (*nseries == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "no point of the sweep ran: nothing to draw");
        return false;
    }
    if (*rec) {
        g_string_append_printf(data, "\n\n# recommended %s (tolerance %g%%)\n%s", x, tolerance, marks->str);
    }
    return true;
}

int cli_plot_sweep(int argc, char **argv)
{
    g_autofree char *output = NULL;
    g_autofree char *x = NULL;
    gdouble tolerance = 2.0;
    GOptionEntry entries[] = {
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "The picture to write (FILE.dat gets the data)",
          "FILE.png|svg|pdf" },
        { "x", 'x', 0, G_OPTION_ARG_STRING, &x, "The varied parameter on the x axis [stages if varied, else the"
          " first]", "NAME" },
        { "tolerance", 0, 0, G_OPTION_ARG_DOUBLE, &tolerance, "Mark the fewest stages within PCT percent of the best"
          " [2]", "PCT" },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("SWEEP.csv - draw a sweep's cycles against the swept"
                                                         " parameter");
    g_option_context_add_main_entries(ctx, entries, NULL);
    int status;
    if (!cli_parse(ctx, &argc, &argv, &status)) {
        return status;
    }
    if (argc != 2 || output == NULL) {
        fprintf(stderr, "smpipe plot: expected SWEEP.csv -o FILE.png|svg|pdf\n");
        return SIM_EXIT_BAD_INPUT;
    }
    if (cli_picture_format(output) == NULL) {
        fprintf(stderr, "smpipe plot: %s: the picture's name must end in .png, .svg or .pdf\n", output);
        return SIM_EXIT_BAD_INPUT;
    }
    if (!isfinite(tolerance) || tolerance < 0.0) {
        fprintf(stderr, "smpipe plot: --tolerance takes a percentage >= 0\n");
        return SIM_EXIT_BAD_INPUT;
    }
    GError *err = NULL;
    g_autofree char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(argv[1], &text, &len, &err)) {
        g_autoptr(GError) e = g_steal_pointer(&err);
        g_set_error(&err, SIM_ERROR, SIM_ERROR_INPUT, "%s", e->message);
        return cli_fail(err);
    }
    g_autoptr(SweepTable) t = sweep_table_parse(argv[1], text, len, false, NULL, &err);
    if (t == NULL || !sweep_table_sort(t, &err)) {
        return cli_fail(err);
    }
    if (x == NULL) {
        int sc = sweep_table_column(t, "stages");
        x = g_strdup(sc >= 1 && sc <= (int) t->naxes ? "stages" : g_ptr_array_index(t->columns, 1));
    }
    int xc = sweep_table_column(t, x);
    if (xc < 1 || xc > (int) t->naxes || t->naxes == 0) {
        fprintf(stderr, "smpipe plot: %s did not vary %s\n", argv[1], x);
        return SIM_EXIT_BAD_INPUT;
    }
    g_autoptr(GString) data = g_string_new(NULL);
    g_autoptr(GString) titles = g_string_new(NULL);
    guint nseries = 0;
    bool categorical = false, rec = false;
    if (!plot_data(t, x, tolerance, data, &nseries, titles, &categorical, &rec, &err)) {
        g_prefix_error(&err, "%s: ", argv[1]);
        return cli_fail(err);
    }
    const char *dot = strrchr(output, '.');
    g_autofree char *stem = g_strndup(output, dot - output);
    g_autofree char *datafile = g_strconcat(stem, ".dat", NULL);
    g_autoptr(GString) head = g_string_new(NULL);
    g_string_append_printf(head, "# smpipe plot %s: x=%s; columns: x cycles hidden_fraction label\n", argv[1], x);
    g_string_prepend(data, head->str);
    if (!sim_write_file(datafile, data->str, data->len, &err)) {
        return cli_fail(err);
    }
    g_autoptr(GString) vars = g_string_new(NULL);
    cli_gp_define(vars, "datafile", datafile);
    cli_gp_define(vars, "xname", x);
    cli_gp_define(vars, "titles", titles->str);
    g_string_append_printf(vars, "; nseries = %u; rec = %d; categorical = %d; logx = %d", nseries, rec, categorical,
                           !categorical && spans_factor(t, x, 16.0));
    /* The title names the CSV's trace and architecture (its provenance). */
    const char *trace = sweep_table_meta(t, "trace");
    const char *arch = sweep_table_meta(t, "arch");
    g_autofree char *source = trace == NULL ? g_strdup("") : g_strdup_printf("%s on %s", trace, arch ? arch : "?");
    cli_gp_define(vars, "source", source);
    if (!cli_gnuplot_draw("sweep.gp", vars->str, output, datafile, &err)) {
        return cli_plot_fail(err);
    }
    return 0;
}
