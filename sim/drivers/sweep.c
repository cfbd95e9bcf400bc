/* sweep.c: the space of a parameter sweep, its shards, its CSV table and
 * the stage-count recommendation (see sweep.h).  Nothing here runs a
 * simulation: cli_sweep.c does, and the rule is tested on hand-made tables
 * (tests/test_sweep.c). */
#include "sim/drivers/sweep.h"

#include "models/sm.h"
#include "sim/out/csv.h"
#include "sim/out/report.h"
#include "sim/out/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- lists */

static bool parse_int(const char *s, int64_t *out)
{
    if (*s == '\0' || g_ascii_isspace(*s)) {
        return false;
    }
    char *end = NULL;
    errno = 0;
    gint64 v = g_ascii_strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0') {
        return false;
    }
    *out = v;
    return true;
}

static bool is_word(const char *s)
{
    for (; *s; s++) {
        if (!g_ascii_isalnum(*s) && strchr("._+-", *s) == NULL) {
            return false;
        }
    }
    return true;
}

/* Appends the values of the range item (text around "..") to values. */
static bool parse_range(const char *item, const char *dots, GPtrArray *values, GError **error)
{
    g_autofree char *lo_text = g_strndup(item, dots - item);
    const char *rest = dots + 2;
    const char *colon = strchr(rest, ':');
    g_autofree char *hi_text = colon ? g_strndup(rest, colon - rest) : g_strdup(rest);
    int64_t lo, hi, step = 1;
    if (!parse_int(lo_text, &lo) || !parse_int(hi_text, &hi) || (colon && !parse_int(colon + 1, &step))) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT,
                    "'%s' is not a range: write LOW..HIGH or LOW..HIGH:STEP with integers", item);
        return false;
    }
    if (step <= 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "range '%s': the step must be positive", item);
        return false;
    }
    if (lo > hi) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "range '%s' is empty: a range runs from low to high", item);
        return false;
    }
    guint64 n = ((guint64) hi - (guint64) lo) / (guint64) step + 1;
    if (n > SWEEP_MAX_VALUES || values->len + n > SWEEP_MAX_VALUES) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "range '%s' has %" G_GUINT64_FORMAT " values; a list may have"
                    " at most %u", item, n, SWEEP_MAX_VALUES);
        return false;
    }
    for (guint64 k = 0; k < n; k++) {
        g_ptr_array_add(values, g_strdup_printf("%" G_GINT64_FORMAT, (int64_t) ((guint64) lo + k * (guint64) step)));
    }
    return true;
}

bool sweep_parse_list(const char *list, bool integers, GPtrArray *values, GError **error)
{
    guint first = values->len;
    g_auto(GStrv) items = g_strsplit(list, ",", -1);
    if (items[0] == NULL) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "the list is empty");
        return false;
    }
    for (int i = 0; items[i] != NULL; i++) {
        char *item = g_strstrip(items[i]);
        if (*item == '\0') {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "item %d of the list is empty", i + 1);
            return false;
        }
        const char *dots = strstr(item, "..");
        int64_t v;
        if (dots != NULL) {
            if (!parse_range(item, dots, values, error)) {
                return false;
            }
        } else if (parse_int(item, &v)) {
            g_ptr_array_add(values, g_strdup_printf("%" G_GINT64_FORMAT, v));
        } else if (integers && item[0] == 'x') {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "'%s': relative values (xFACTOR) apply to architecture"
                        " keys; trace parameters take integers", item);
            return false;
        } else if (integers) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "'%s' is not an integer (trace parameters take integers)",
                        item);
            return false;
        } else if (!is_word(item)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "'%s' is not a value: use letters, digits and . _ + -",
                        item);
            return false;
        } else {
            g_ptr_array_add(values, g_strdup(item));
        }
        if (values->len > SWEEP_MAX_VALUES) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "a list may have at most %u values", SWEEP_MAX_VALUES);
            return false;
        }
    }
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = first; i < values->len; i++) {
        const char *v = g_ptr_array_index(values, i);
        if (!g_hash_table_add(seen, (gpointer) v)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s appears twice in the list", v);
            return false;
        }
    }
    return true;
}

SweepAxis *sweep_axis_parse(const char *arg, GError **error)
{
    const char *eq = strchr(arg, '=');
    if (eq == NULL || eq == arg) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--vary %s: expected NAME=LIST, e.g. stages=1..8", arg);
        return NULL;
    }
    g_autoptr(SweepAxis) axis = g_new0(SweepAxis, 1);
    axis->name = g_strndup(arg, eq - arg);
    axis->arch = strchr(axis->name, '.') != NULL;
    axis->values = g_ptr_array_new_with_free_func(g_free);
    if (!is_word(axis->name)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--vary %s: '%s' is not a parameter name", arg, axis->name);
        return NULL;
    }
    if (!sweep_parse_list(eq + 1, !axis->arch, axis->values, error)) {
        g_prefix_error(error, "--vary %s: ", arg);
        return NULL;
    }
    return g_steal_pointer(&axis);
}

void sweep_axis_free(SweepAxis *axis)
{
    if (axis == NULL) {
        return;
    }
    g_free(axis->name);
    if (axis->values != NULL) {
        g_ptr_array_free(axis->values, TRUE);
    }
    g_free(axis);
}

bool sweep_count_points(const GPtrArray *axes, guint *count, GError **error)
{
    guint64 n = 1;
    for (guint i = 0; i < axes->len; i++) {
        const SweepAxis *a = g_ptr_array_index(axes, i);
        n *= a->values->len;
        if (n > SWEEP_MAX_POINTS) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "the sweep has more than %u points: shorten the lists",
                        SWEEP_MAX_POINTS);
            return false;
        }
    }
    *count = (guint) n;
    return true;
}

void sweep_point_indices(const GPtrArray *axes, guint point, guint *idx)
{
    for (guint i = axes->len; i-- > 0;) {
        const SweepAxis *a = g_ptr_array_index(axes, i);
        idx[i] = point % a->values->len;
        point /= a->values->len;
    }
}

/* --------------------------------------------------------------- shards */

bool sweep_shard_parse(const char *text, SweepShard *out, GError **error)
{
    const char *slash = strchr(text, '/');
    int64_t i = 0, n = 0;
    g_autofree char *i_text = slash ? g_strndup(text, slash - text) : NULL;
    if (slash == NULL || !parse_int(i_text, &i) || !parse_int(slash + 1, &n) || n < 1 || n > SWEEP_MAX_POINTS ||
        i < 1 || i > n) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--shard %s: expected I/N with 1 <= I <= N, e.g. 2/8", text);
        return false;
    }
    out->index = (guint) i;
    out->count = (guint) n;
    return true;
}

bool sweep_shard_has(const SweepShard *shard, guint point)
{
    return shard->count <= 1 || point % shard->count == shard->index - 1;
}

/* ------------------------------------------- the CSV table (sim/csv.c splits its lines) */

static void row_free(gpointer p)
{
    SweepRow *r = p;
    g_free(r->line);
    g_ptr_array_free(r->fields, TRUE);
    g_free(r);
}

void sweep_table_free(SweepTable *table)
{
    if (table == NULL) {
        return;
    }
    g_free(table->header);
    if (table->meta != NULL) {
        g_ptr_array_free(table->meta, TRUE);
    }
    if (table->columns != NULL) {
        g_ptr_array_free(table->columns, TRUE);
    }
    if (table->rows != NULL) {
        g_ptr_array_free(table->rows, TRUE);
    }
    g_free(table);
}

SweepTable *sweep_table_parse(const char *path, const char *text, gsize len, bool allow_torn, bool *torn,
                              GError **error)
{
    if (torn != NULL) {
        *torn = false;
    }
    if (memchr(text, '\0', len) != NULL) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: not a sweep CSV (it holds NUL bytes)", path);
        return NULL;
    }
    g_autofree char *copy = g_strndup(text, len);
    g_auto(GStrv) lines = g_strsplit(copy, "\n", -1);
    guint nlines = g_strv_length(lines);
    if (nlines == 0 || lines[0][0] == '\0') {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: empty file, not a sweep CSV", path);
        return NULL;
    }
    g_autoptr(SweepTable) t = g_new0(SweepTable, 1);
    t->meta = g_ptr_array_new_with_free_func(g_free);
    t->columns = g_ptr_array_new_with_free_func(g_free);
    t->rows = g_ptr_array_new_with_free_func(row_free);
    /* The provenance lines; h is the header's line. */
    guint h = 0;
    for (; h + 1 < nlines && lines[h][0] == '#'; h++) {
        g_strchomp(lines[h]);
        g_ptr_array_add(t->meta, g_strdup(lines[h]));
    }
    if (lines[h][0] == '\0') {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: empty file, not a sweep CSV", path);
        return NULL;
    }
    if (nlines == h + 1) {
        /* The header itself has no newline: a sweep stopped at once. */
        if (!allow_torn) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: the header line is incomplete", path);
            return NULL;
        }
    }
    g_strchomp(lines[h]);
    t->header = g_strdup(lines[h]);
    if (!csv_split_line(t->header, t->columns) || t->columns->len < 3 ||
        strcmp(g_ptr_array_index(t->columns, 0), "point") != 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%u: not a sweep CSV: the header must start with 'point'",
                     path, h + 1);
        return NULL;
    }
    int status = sweep_table_column(t, "status");
    if (status < 1) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%u: not a sweep CSV: the header has no 'status' column",
                    path, h + 1);
        return NULL;
    }
    t->naxes = (guint) status - 1;
    for (guint i = h + 1; i < nlines; i++) {
        char *line = lines[i];
        bool last = i + 1 == nlines;
        if (last && line[0] == '\0') {
            break;
        }
        if (last) {
            /* No newline after it: a row cut short by an interruption. */
            if (allow_torn) {
                if (torn != NULL) {
                    *torn = true;
                }
                break;
            }
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%u: the last row is incomplete (an interrupted sweep?"
                        " finish it with smpipe sweep --resume)", path, i + 1);
            return NULL;
        }
        g_strchomp(line);
        SweepRow *r = g_new0(SweepRow, 1);
        r->line = g_strdup(line);
        r->fields = g_ptr_array_new_with_free_func(g_free);
        g_ptr_array_add(t->rows, r);
        int64_t point;
        if (!csv_split_line(line, r->fields) || r->fields->len != t->columns->len) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%u: the row has %u fields, the header %u", path, i + 1,
                        r->fields->len, t->columns->len);
            return NULL;
        }
        if (!parse_int(g_ptr_array_index(r->fields, 0), &point) || point < 0 || point >= SWEEP_MAX_POINTS) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%u: '%s' is not a point index", path, i + 1,
                        (const char *) g_ptr_array_index(r->fields, 0));
            return NULL;
        }
        r->point = (guint) point;
    }
    return g_steal_pointer(&t);
}

static gint row_cmp(gconstpointer a, gconstpointer b)
{
    const SweepRow *x = *(SweepRow *const *) a;
    const SweepRow *y = *(SweepRow *const *) b;
    if (x->point != y->point) {
        return x->point < y->point ? -1 : 1;
    }
    return strcmp(x->line, y->line);
}

bool sweep_table_sort(SweepTable *table, GError **error)
{
    g_ptr_array_sort(table->rows, row_cmp);
    for (guint i = 1; i < table->rows->len;) {
        const SweepRow *prev = g_ptr_array_index(table->rows, i - 1);
        const SweepRow *r = g_ptr_array_index(table->rows, i);
        if (r->point != prev->point) {
            i++;
            continue;
        }
        if (strcmp(r->line, prev->line) != 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "point %u has two different rows (from different sweeps?)",
                        r->point);
            return false;
        }
        g_ptr_array_remove_index(table->rows, i);
    }
    return true;
}

int sweep_table_column(const SweepTable *table, const char *name)
{
    for (guint i = 0; i < table->columns->len; i++) {
        if (strcmp(g_ptr_array_index(table->columns, i), name) == 0) {
            return (int) i;
        }
    }
    return -1;
}

const char *sweep_row_field(const SweepTable *table, const SweepRow *row, const char *column)
{
    int c = sweep_table_column(table, column);
    return c < 0 ? "" : g_ptr_array_index(row->fields, c);
}

const char *sweep_table_meta(const SweepTable *table, const char *key)
{
    gsize n = strlen(key);
    for (guint i = 0; table->meta != NULL && i < table->meta->len; i++) {
        const char *m = g_ptr_array_index(table->meta, i);
        if (strncmp(m, "# ", 2) == 0 && strncmp(m + 2, key, n) == 0 && m[2 + n] == ':') {
            return m[3 + n] == ' ' ? m + 4 + n : m + 3 + n;
        }
    }
    return NULL;
}

/* The first 12 digits of a hash, for messages. */
static char *short_hash(const char *h)
{
    return h == NULL ? g_strdup("none") : g_strdup_printf("sha256 %.12s", h);
}

static bool same(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

bool sweep_table_check_format(const SweepTable *table, const char *path, GError **error)
{
    const char *format = sweep_table_meta(table, "format");
    if (format == NULL || sweep_table_meta(table, "smpipe") == NULL) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: no provenance lines ('# smpipe:', '# format:'): made by"
                    " an older smpipe, or not by smpipe", path);
        return false;
    }
    int64_t n;
    if (!parse_int(format, &n) || n != REPORT_FORMAT) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: format %s, not this smpipe's format %d", path, format,
                    REPORT_FORMAT);
        return false;
    }
    return true;
}

bool sweep_table_same_origin(const SweepTable *table, const char *path, const SweepTable *want,
                             const char *want_name, GError **error)
{
    if (!sweep_table_check_format(table, path, error)) {
        return false;
    }
    const char *version = sweep_table_meta(table, "smpipe");
    if (!same(version, sweep_table_meta(want, "smpipe"))) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: made by smpipe %s, %s by smpipe %s: the statistics may"
                    " differ", path, version, want_name, sweep_table_meta(want, "smpipe"));
        return false;
    }
    const char *th = sweep_table_meta(table, "trace_sha256");
    const char *wh = sweep_table_meta(want, "trace_sha256");
    if (!same(th, wh)) {
        g_autofree char *a = short_hash(th);
        g_autofree char *b = short_hash(wh);
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: made from another trace (%s, %s), not %s's (%s, %s)", path,
                    sweep_table_meta(table, "trace"), a, want_name, sweep_table_meta(want, "trace"), b);
        return false;
    }
    const char *tp = sweep_table_meta(table, "params");
    const char *wp = sweep_table_meta(want, "params");
    if (!same(tp, wp)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: made with other fixed parameters (%s), not %s's (%s)",
                    path, tp && *tp ? tp : "none", want_name, wp && *wp ? wp : "none");
        return false;
    }
    const char *ta = sweep_table_meta(table, "arch");
    const char *wa = sweep_table_meta(want, "arch");
    const char *tah = sweep_table_meta(table, "arch_sha256");
    const char *wah = sweep_table_meta(want, "arch_sha256");
    if (!same(ta, wa) || !same(tah, wah)) {
        g_autofree char *a = short_hash(tah);
        g_autofree char *b = short_hash(wah);
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: made on another architecture (%s, %s), not %s's (%s, %s)",
                    path, ta ? ta : "none", a, want_name, wa ? wa : "none", b);
        return false;
    }
    return true;
}

void sweep_table_format(const SweepTable *table, GString *out)
{
    for (guint i = 0; table->meta != NULL && i < table->meta->len; i++) {
        g_string_append(out, g_ptr_array_index(table->meta, i));
        g_string_append_c(out, '\n');
    }
    g_string_append(out, table->header);
    g_string_append_c(out, '\n');
    for (guint i = 0; i < table->rows->len; i++) {
        const SweepRow *r = g_ptr_array_index(table->rows, i);
        g_string_append(out, r->line);
        g_string_append_c(out, '\n');
    }
}

/* ------------------------------------------------------------ occupancy */

int64_t sweep_blocks_per_sm(const Program *prog, const ArchParams *arch, const char **limit)
{
    int64_t smem = sm_smem_per_block(prog, arch);
    int64_t warps = MAX(1, prog->warps);
    /* Registers are allocated per warp in units of 256 (as sm.c checks). */
    int64_t regs_per_warp = (arch->regs_per_thread * 32 + 255) / 256 * 256;
    const struct {
        const char *name;
        int64_t blocks;
    } by[] = {
        { "shared_memory", smem > arch->smem_per_block ? 0 : arch->smem_bytes / MAX(1, smem) },
        { "threads", arch->max_threads / MAX(1, prog->block_threads) },
        { "warps", arch->max_warps / warps },
        { "registers", regs_per_warp > 0 ? arch->registers / (regs_per_warp * warps) : arch->max_blocks },
        { "max_blocks", arch->max_blocks },
    };
    size_t k = 0;
    for (size_t i = 1; i < G_N_ELEMENTS(by); i++) {
        if (by[i].blocks < by[k].blocks) {
            k = i;
        }
    }
    if (limit != NULL) {
        *limit = by[k].name;
    }
    return by[k].blocks;
}

/* ------------------------------------------------------- recommendation */

void sweep_group_free(SweepGroup *group)
{
    if (group == NULL) {
        return;
    }
    g_free(group->others);
    g_array_free(group->rows, TRUE);
    g_free(group);
}

static double row_num(const SweepTable *t, const SweepRow *r, const char *column)
{
    const char *s = sweep_row_field(t, r, column);
    return *s ? g_ascii_strtod(s, NULL) : 0.0;
}

int64_t sweep_row_int(const SweepTable *t, const SweepRow *r, const char *column)
{
    const char *s = sweep_row_field(t, r, column);
    return *s ? g_ascii_strtoll(s, NULL, 10) : 0;
}

static guint64 row_cycles(const SweepTable *t, const SweepRow *r)
{
    return g_ascii_strtoull(sweep_row_field(t, r, "cycles"), NULL, 10);
}

static const SweepRow *group_row(const SweepTable *t, const SweepGroup *g, int i)
{
    return g_ptr_array_index(t->rows, g_array_index(g->rows, guint, i));
}

GPtrArray *sweep_recommend(const SweepTable *table, const char *axis, double tolerance_pct, GError **error)
{
    int ax = sweep_table_column(table, axis);
    if (ax < 1 || ax > (int) table->naxes) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "the sweep does not vary %s", axis);
        return NULL;
    }
    if (sweep_table_column(table, "cycles") < 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "the sweep CSV has no cycles column");
        return NULL;
    }
    g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func((GDestroyNotify) sweep_group_free);
    g_autoptr(GHashTable) by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GString) key = g_string_new(NULL);
    for (guint i = 0; i < table->rows->len; i++) {
        const SweepRow *r = g_ptr_array_index(table->rows, i);
        g_string_truncate(key, 0);
        for (guint c = 1; c <= table->naxes; c++) {
            if ((int) c != ax) {
                g_string_append_printf(key, "%s%s=%s", key->len ? " " : "",
                                       (const char *) g_ptr_array_index(table->columns, c),
                                       (const char *) g_ptr_array_index(r->fields, c));
            }
        }
        SweepGroup *g = g_hash_table_lookup(by_key, key->str);
        if (g == NULL) {
            g = g_new0(SweepGroup, 1);
            g->others = g_strdup(key->str);
            g->rows = g_array_new(FALSE, FALSE, sizeof(guint));
            g->recommended = g->best = -1;
            g_ptr_array_add(groups, g);
            g_hash_table_insert(by_key, g_strdup(key->str), g);
        }
        if (strcmp(g_ptr_array_index(r->fields, table->naxes + 1), "ok") != 0) {
            g->failed++;
            continue;
        }
        /* Insert by increasing stage count. */
        int64_t s = sweep_row_int(table, r, axis);
        guint at = g->rows->len;
        while (at > 0 && sweep_row_int(table, g_ptr_array_index(table->rows, g_array_index(g->rows, guint, at - 1)),
                                       axis) > s) {
            at--;
        }
        g_array_insert_val(g->rows, at, i);
    }
    for (guint k = 0; k < groups->len; k++) {
        SweepGroup *g = g_ptr_array_index(groups, k);
        if (g->rows->len == 0) {
            continue;
        }
        g->best = 0;
        for (guint i = 1; i < g->rows->len; i++) {
            if (row_cycles(table, group_row(table, g, (int) i)) < row_cycles(table, group_row(table, g, g->best))) {
                g->best = (int) i;
            }
        }
        /* cycles <= best x (1 + pct / 100), scaled by 100 so that round
         * percentages compare exactly. */
        double limit = (double) row_cycles(table, group_row(table, g, g->best)) * (100.0 + tolerance_pct);
        for (guint i = 0; i < g->rows->len; i++) {
            if ((double) row_cycles(table, group_row(table, g, (int) i)) * 100.0 <= limit) {
                g->recommended = (int) i;
                break;
            }
        }
    }
    return g_steal_pointer(&groups);
}

static double pct(double part, double whole)
{
    return whole > 0.0 ? 100.0 * part / whole : 0.0;
}

/* Warp-cycles of a row in a stall state. */
static double stall(const SweepTable *t, const SweepRow *r, SimWarpState k)
{
    g_autofree char *col = g_strconcat("stall_", sim_warp_state_name(k), NULL);
    return row_num(t, r, col);
}

static double stall_total(const SweepTable *t, const SweepRow *r)
{
    double total = 0.0;
    for (int k = 0; k < WS__COUNT; k++) {
        if (k != WS_EXITED) {
            total += stall(t, r, k);
        }
    }
    return total;
}

/* The copy bandwidth one SM can have from the configured source, in bytes
 * per cycle; *what names the binding limit (static). */
static double sm_bandwidth(const ArchParams *a, bool bulk, const char **what)
{
    double active = (double) MAX(1, a->active_sms);
    double bw = a->l2_bytes_per_clk_sm;
    *what = "SM-to-L2 link, l2.bytes_per_clk_sm";
    if (a->l2_bytes_per_clk / active < bw) {
        bw = a->l2_bytes_per_clk / active;
        *what = "L2 share, l2.bytes_per_clk / mem.active_sms";
    }
    if (a->source == MEM_SOURCE_DRAM && a->dram_bytes_per_clk / active < bw) {
        bw = a->dram_bytes_per_clk / active;
        *what = "DRAM share, dram.bytes_per_clk / mem.active_sms";
    }
    if (bulk && a->bulk_bytes_per_clk < bw) {
        bw = a->bulk_bytes_per_clk;
        *what = "bulk copy engine, bulk.bytes_per_clk";
    }
    return bw;
}

/* What bounds a point, in words, from its stall shares (one clause). */
static void describe_bound(const SweepTable *t, const SweepRow *r, double bandwidth, GString *out)
{
    /* The bound is run's (report_bound), from the row's stall columns;
     * the words add what the sweep's columns show. */
    uint64_t states[WS__COUNT];
    for (int k = 0; k < WS__COUNT; k++) {
        states[k] = (uint64_t) MAX(0.0, stall(t, r, k));
    }
    SimWarpState top;
    ReportBound bound = report_bound(states, &top);
    double total = stall_total(t, r);
    double latency = stall(t, r, WS_CONSUMER_WAIT) + stall(t, r, WS_ASYNC_WAIT);
    double throttle = stall(t, r, WS_COPY_THROTTLE);
    double compute = stall(t, r, WS_ISSUING) + stall(t, r, WS_NOT_SELECTED) + stall(t, r, WS_DEPENDENCY) +
                     stall(t, r, WS_MATH_THROTTLE);
    double achieved = row_num(t, r, "achieved_bytes_per_cycle");
    double cycles = row_num(t, r, "cycles");
    switch (bound) {
    case BOUND_NOTHING:
        g_string_append(out, "nothing ran");
        break;
    case BOUND_COPY_BANDWIDTH:
        g_string_append_printf(out, "copy bandwidth: the copies move %.1f of the %.1f B/cycle an SM gets (%.0f%% of"
                               " warp-cycles wait for room in the copy path or for copies)", achieved, bandwidth,
                               pct(latency + throttle, total));
        break;
    case BOUND_COPY_LATENCY:
        g_string_append_printf(out, "copy latency: %.0f%% of warp-cycles still wait for copies, but another stage"
                               " gains less than the tolerance", pct(latency, total));
        if (bandwidth > 0.0 && achieved >= 0.75 * bandwidth) {
            g_string_append_printf(out, " (the copies already move %.1f of the %.1f B/cycle an SM gets: bandwidth"
                                   " sets the pace)", achieved, bandwidth);
        } else {
            g_string_append(out, " (the first stages' copies are exposed at any count)");
        }
        break;
    case BOUND_COMPUTE: {
        double compute_busy = row_num(t, r, "compute_busy_cycles");
        double fill = row_num(t, r, "stage_fill_mean");
        /* Hardly any of the instructions computes (a cycle issues at most
         * one per sub-partition, so this undercounts by up to 4x). */
        if (compute_busy < 0.1 * row_num(t, r, "instructions")) {
            g_string_append_printf(out, "compute bound, by issue: %.0f%% of warp-cycles issue or wait on results, but"
                                   " compute issues in only %.0f%% of cycles: issuing the copies", pct(compute, total),
                                   pct(compute_busy, cycles));
            if (fill > 0.0) {
                g_string_append_printf(out, " (%.0f cycles to fill a stage)", fill);
            }
            g_string_append(out, " and the loads and stores around them set the pace, which more stages do not"
                            " shorten");
        } else {
            g_string_append_printf(out, "compute bound: %.0f%% of warp-cycles issue, wait on instruction latency or"
                                   " for the scheduler", pct(compute, total));
        }
        break;
    }
    case BOUND_CONSUMER:
        g_string_append_printf(out, "consumer bound: %.0f%% of warp-cycles wait in producer_acquire for a free stage:"
                               " the consumers' work sets the pace", pct(stall(t, r, WS_PRODUCER_ACQUIRE), total));
        break;
    case BOUND_SYNC:
        g_string_append_printf(out, "synchronisation: %.0f%% of warp-cycles wait at block barriers or cuda::barrier"
                               " phases", pct(stall(t, r, WS_BLOCK_BARRIER) + stall(t, r, WS_MBARRIER), total));
        break;
    case BOUND_SMEM:
        if (top == WS_MIO_THROTTLE) {
            g_string_append_printf(out, "shared-memory path: %.0f%% of warp-cycles wait for their warp's last load or"
                                   " store", pct(stall(t, r, WS_MIO_THROTTLE), total));
        } else {
            g_string_append_printf(out, "shared-memory bank conflicts: %.0f%% of warp-cycles replay",
                                   pct(stall(t, r, WS_BANK_CONFLICT), total));
        }
        break;
    case BOUND_MEMORY:
        g_string_append_printf(out, "memory latency: %.0f%% of warp-cycles wait for global memory",
                               pct(stall(t, r, WS_MEMORY), total));
        break;
    case BOUND_DIVERGENCE:
        g_string_append_printf(out, "divergence: %.0f%% of warp-cycles wait for the other side of a branch",
                               pct(stall(t, r, WS_DIVERGENT), total));
        break;
    }
    (void) top;
}

/* What the state's fall means when a stage is added. */
static const char *meaning(SimWarpState k)
{
    switch (k) {
    case WS_CONSUMER_WAIT:
    case WS_ASYNC_WAIT:
        return "copy latency hidden";
    case WS_PRODUCER_ACQUIRE:
        return "producers find a free stage sooner";
    case WS_COPY_THROTTLE:
        return "fewer copies wait for room";
    case WS_BLOCK_BARRIER:
    case WS_MBARRIER:
        return "less barrier waiting";
    default:
        return "fewer stalls";
    }
}

void sweep_explain(const SweepTable *table, const char *axis, const SweepGroup *group, const ArchParams *arch,
                   double tolerance_pct, GString *out)
{
    const SweepTable *t = table;
    const SweepGroup *g = group;
    g_autofree char *who = g->others[0] ? g_strdup_printf(" (%s)", g->others) : g_strdup("");
    if (g->recommended < 0) {
        g_string_append_printf(out, "recommended %s%s: none: no point ran (%u did not; see the status column)\n",
                               axis, who, g->failed);
        return;
    }
    const SweepRow *rec = group_row(t, g, g->recommended);
    const SweepRow *best = group_row(t, g, g->best);
    const SweepRow *first = group_row(t, g, 0);
    int64_t n = sweep_row_int(t, rec, axis);
    guint64 rec_cycles = row_cycles(t, rec);
    guint64 best_cycles = row_cycles(t, best);
    g_string_append_printf(out, "recommended %s: %" G_GINT64_FORMAT "%s: %" G_GUINT64_FORMAT " cycles", axis, n, who,
                           rec_cycles);
    if (best != rec) {
        g_string_append_printf(out, ", within %g%% of the best, %" G_GUINT64_FORMAT " at %s=%" G_GINT64_FORMAT,
                               tolerance_pct, best_cycles, axis, sweep_row_int(t, best, axis));
    } else {
        g_string_append(out, ", the best");
    }
    g_string_append_c(out, '\n');

    /* What it costs. */
    int64_t smem = sweep_row_int(t, rec, "smem_per_block");
    g_string_append_printf(out, "  cost: %" G_GINT64_FORMAT " bytes of shared memory per block", smem);
    int64_t n_first = sweep_row_int(t, first, axis);
    int64_t smem_first = sweep_row_int(t, first, "smem_per_block");
    if (n > n_first && smem > smem_first) {
        g_string_append_printf(out, " (%" G_GINT64_FORMAT " per %s)", (smem - smem_first) / (n - n_first),
                               strcmp(axis, "stages") == 0 ? "stage" : "step");
    }
    g_string_append_printf(out, ", %s blocks per SM (limited by %s", sweep_row_field(t, rec, "blocks_per_sm"),
                           sweep_row_field(t, rec, "occupancy_limit"));
    if (strcmp(sweep_row_field(t, rec, "occupancy_limit"), "shared_memory") != 0 && smem > 0) {
        g_string_append_printf(out, "; shared memory alone allows %" G_GINT64_FORMAT, arch->smem_bytes / smem);
    }
    g_string_append(out, ")\n");

    /* Why: what the last stage bought, and why more do not help. */
    bool bulk = row_num(t, rec, "bulk_bytes") > row_num(t, rec, "cp_async_bytes");
    const char *bw_what = NULL;
    double bw = sm_bandwidth(arch, bulk, &bw_what);
    g_string_append(out, "  why: ");
    if (g->rows->len > 1 && row_cycles(t, first) == row_cycles(t, group_row(t, g, (int) g->rows->len - 1)) &&
        row_cycles(t, first) == best_cycles) {
        g_string_append_printf(out, "the %s count does not change the cycles (does the trace use '%s'?)\n", axis,
                               axis);
        return;
    } else if (g->recommended == 0) {
        g_string_append_printf(out, "%s=%" G_GINT64_FORMAT " is already within %g%% of the best, so more do not pay"
                               " for their shared memory: ", axis, n, tolerance_pct);
        describe_bound(t, rec, bw, out);
        g_string_append_c(out, '\n');
    } else {
        const SweepRow *prev = group_row(t, g, g->recommended - 1);
        double saved = (double) row_cycles(t, prev) - (double) rec_cycles;
        int drop = -1;
        double most = 0.0;
        for (int k = 0; k < WS__COUNT; k++) {
            double d = stall(t, prev, k) - stall(t, rec, k);
            if (k != WS_EXITED && k != WS_ISSUING && d > most) {
                most = d;
                drop = k;
            }
        }
        g_string_append_printf(out, "%" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT " saves %.0f cycles (%.1f%%)",
                               sweep_row_int(t, prev, axis), n, saved, pct(saved, (double) row_cycles(t, prev)));
        if (drop >= 0) {
            g_string_append_printf(out, " as %s falls from %.0f to %.0f warp-cycles (%.0f%% -> %.0f%% of all: %s)",
                                   sim_warp_state_name(drop), stall(t, prev, drop), stall(t, rec, drop),
                                   pct(stall(t, prev, drop), stall_total(t, prev)),
                                   pct(stall(t, rec, drop), stall_total(t, rec)), meaning(drop));
        }
        if (g->recommended + 1 < (int) g->rows->len) {
            g_string_append_printf(out, "; beyond %" G_GINT64_FORMAT ", more gain under %g%%: ", n, tolerance_pct);
            describe_bound(t, rec, bw, out);
        }
        g_string_append_c(out, '\n');
    }
    if (g->rows->len > 1 && g->recommended + 1 == (int) g->rows->len) {
        g_string_append_printf(out, "  note: the cycles still fall at the largest %s value tried: extend the range\n", axis);
    }

    /* The back-of-envelope estimate. */
    bool l2 = arch->source == MEM_SOURCE_L2;
    bool cp_async = row_num(t, rec, "cp_async_bytes") > 0.0;
    double latency = (double) (l2 ? arch->l2_latency : arch->dram_latency) +
                     (cp_async ? (double) arch->cp_async_extra_latency : 0.0);
    double copied = row_num(t, rec, "cp_async_bytes") + row_num(t, rec, "bulk_bytes") + row_num(t, rec, "sync_bytes");
    double instances = row_num(t, rec, "stage_instances");
    double per_stage = 0.0;
    const char *per_stage_from = "copied bytes / stage instances";
    if (instances > 0.0) {
        per_stage = copied / instances;
    } else if (n > 0 && smem > arch->smem_reserved) {
        /* Thread-scope pipelines count no stage instances: the stage
         * buffers are most of the block's shared memory. */
        per_stage = (double) (smem - arch->smem_reserved) / (double) n;
        per_stage_from = "shared memory / stages: no stage instances counted";
    }
    if (copied <= 0.0 || per_stage <= 0.0 || bw <= 0.0) {
        g_string_append(out, "  estimate: none: the points copy nothing asynchronously\n");
        return;
    }
    double est = latency * bw / per_stage;
    int64_t n_est = (int64_t) ceil(est - 1e-9);
    g_string_append_printf(out, "  estimate: %.0f cycles %s latency (%s%s) x %.1f B/cycle (%s) / %.0f B per stage (%s)"
                           " = %.1f -> %" G_GINT64_FORMAT " stages\n", latency, l2 ? "L2" : "DRAM",
                           l2 ? "l2.latency" : "dram.latency", cp_async ? " + cp_async.extra_latency" : "", bw,
                           bw_what, per_stage, per_stage_from, est, n_est);

    /* Where and why the simulation differs. */
    double fill = row_num(t, rec, "stage_fill_mean");
    double land = row_num(t, rec, "stage_land_mean");
    double consume = row_num(t, rec, "stage_consume_mean");
    double copy_time = per_stage / bw;
    g_string_append(out, "  simulation vs estimate: ");
    if (llabs(n - n_est) <= MAX(1, n_est / 5)) {
        g_string_append_printf(out, "they agree (%" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT "): the copies must keep"
                               " latency x bandwidth bytes in flight\n", n, n_est);
        return;
    }
    g_string_append_printf(out, "%" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT ": ", n, n_est);
    if (n < n_est) {
        /* Stages the run copies in all (thread-scope pipelines count no
         * instances: from the bytes). */
        double copied_stages = instances > 0.0 ? instances : copied / per_stage;
        const char *sep = "fewer, because ";
        bool said = false;
        if (consume > copy_time && fill + land > 0.0) {
            g_string_append_printf(out, "%seach stage takes %.0f cycles to consume, %.0fx its %.1f-cycle copy at %.1f"
                                   " B/cycle, so the stages in flight need only cover a stage's measured"
                                   " acquire-to-ready time, %.0f cycles (%.0f / %.0f = %.1f stages ahead), not fill"
                                   " the link", sep, consume, consume / copy_time, copy_time, bw, fill + land,
                                   fill + land, consume, (fill + land) / consume);
            sep = "; and ";
            said = true;
        }
        if (copied_stages <= est) {
            g_string_append_printf(out, "%sthe whole run copies only %.0f stages, so the estimate's count can never"
                                   " be in flight", sep, copied_stages);
            sep = "; and ";
            said = true;
        }
        double inflight = (double) (arch->cp_async_max_inflight * arch->line_bytes);
        if (cp_async && inflight / per_stage < est && inflight / per_stage <= 2.0 * (double) n) {
            g_string_append_printf(out, "%sthe copy path holds at most %.0f B of cp.async requests in flight"
                                   " (cp_async.max_inflight), %.1f stages' worth", sep, inflight, inflight / per_stage);
            said = true;
        }
        if (!said) {
            g_string_append(out, "fewer: ");
            describe_bound(t, rec, bw, out);
        }
    } else if (fill + land > 0.0) {
        g_string_append_printf(out, "more, because a stage takes %.0f cycles from acquire to ready (fill %.0f + land"
                               " %.0f), beyond the %.0f-cycle memory latency: copy issue (%" G_GINT64_FORMAT
                               " cycles per memcpy_async call), queueing and barrier hand-offs add to it",
                               fill + land, fill, land, latency, arch->cp_async_call);
    } else {
        g_string_append_printf(out, "more, because per-stage costs beyond the memory latency (copy issue, %"
                               G_GINT64_FORMAT " cycles per memcpy_async call; waits) lengthen each stage;"
                               " thread-scope pipelines have no per-stage timing to show it", arch->cp_async_call);
    }
    g_string_append_c(out, '\n');
}

/* ------------------------------------------------------------ copy engines */

void sweep_engines_free(SweepEngines *engines)
{
    if (engines == NULL) {
        return;
    }
    g_free(engines->others);
    g_free(engines);
}

/* The copy engine a point mostly uses: 0 cp.async, 1 bulk copies, -1 none
 * (it copies nothing asynchronously, or did not run). */
static int row_engine(const SweepTable *t, const SweepRow *r)
{
    if (strcmp(g_ptr_array_index(r->fields, t->naxes + 1), "ok") != 0) {
        return -1;
    }
    double cp = row_num(t, r, "cp_async_bytes");
    double bulk = row_num(t, r, "bulk_bytes");
    return bulk > cp ? 1 : cp > 0.0 ? 0 : -1;
}

/* Whether axis column c picks the engine: each of its values gives one
 * engine in every point that copies, and both engines occur. */
static bool picks_engine(const SweepTable *t, guint c)
{
    g_autoptr(GHashTable) engine_of = g_hash_table_new(g_str_hash, g_str_equal);
    bool seen[2] = { false, false };
    for (guint i = 0; i < t->rows->len; i++) {
        const SweepRow *r = g_ptr_array_index(t->rows, i);
        int e = row_engine(t, r);
        if (e < 0) {
            continue;
        }
        const char *v = g_ptr_array_index(r->fields, c);
        gpointer had;
        if (g_hash_table_lookup_extended(engine_of, v, NULL, &had) && GPOINTER_TO_INT(had) != e) {
            return false;
        }
        g_hash_table_insert(engine_of, (gpointer) v, GINT_TO_POINTER(e));
        seen[e] = true;
    }
    return seen[0] && seen[1];
}

GPtrArray *sweep_engines(const SweepTable *table, const char *stage_axis)
{
    const SweepTable *t = table;
    GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify) sweep_engines_free);
    int stage = stage_axis != NULL ? sweep_table_column(t, stage_axis) : -1;
    if (sweep_table_column(t, "cycles") < 0) {
        return out;
    }
    guint ax = 0;
    for (guint c = 1; c <= t->naxes && ax == 0; c++) {
        if ((int) c != stage && picks_engine(t, c)) {
            ax = c;
        }
    }
    if (ax == 0) {
        return out;
    }
    g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify) sweep_engines_free);
    g_autoptr(GHashTable) by_key = g_hash_table_new(g_str_hash, g_str_equal);
    g_autoptr(GString) key = g_string_new(NULL);
    for (guint i = 0; i < t->rows->len; i++) {
        const SweepRow *r = g_ptr_array_index(t->rows, i);
        int e = row_engine(t, r);
        if (e < 0) {
            continue;
        }
        g_string_truncate(key, 0);
        for (guint c = 1; c <= t->naxes; c++) {
            if (c != ax && (int) c != stage) {
                g_string_append_printf(key, "%s%s=%s", key->len ? " " : "",
                                       (const char *) g_ptr_array_index(t->columns, c),
                                       (const char *) g_ptr_array_index(r->fields, c));
            }
        }
        SweepEngines *g = g_hash_table_lookup(by_key, key->str);
        if (g == NULL) {
            g = g_new0(SweepEngines, 1);
            g->others = g_strdup(key->str);
            g->axis = g_ptr_array_index(t->columns, ax);
            g->row[0] = g->row[1] = -1;
            g_ptr_array_add(all, g);
            g_hash_table_insert(by_key, g->others, g);
        }
        if (g->row[e] < 0 || row_cycles(t, r) < row_cycles(t, g_ptr_array_index(t->rows, (guint) g->row[e]))) {
            g->row[e] = (int) i;
        }
    }
    for (guint k = 0; k < all->len; k++) {
        SweepEngines *g = g_ptr_array_index(all, k);
        if (g->row[0] >= 0 && g->row[1] >= 0) {
            g_ptr_array_add(out, g_ptr_array_steal_index(all, k));
            k--;
        }
    }
    return out;
}

/* "cp.async (engine=0, stages=4)": an engine's name and the point's values
 * of the axes that the combination does not fix. */
static char *engine_point(const SweepTable *t, const SweepEngines *e, int engine)
{
    const SweepRow *r = g_ptr_array_index(t->rows, (guint) e->row[engine]);
    GString *s = g_string_new(engine == 0 ? "cp.async" : "bulk copies");
    g_string_append(s, " (");
    bool first = true;
    for (guint c = 1; c <= t->naxes; c++) {
        const char *name = g_ptr_array_index(t->columns, c);
        g_autofree char *pair = g_strdup_printf("%s=%s", name, (const char *) g_ptr_array_index(r->fields, c));
        /* Skip the fixed axes: whole words of others. */
        const char *at = strstr(e->others, pair);
        size_t n = strlen(pair);
        if (at != NULL && (at == e->others || at[-1] == ' ') && (at[n] == '\0' || at[n] == ' ')) {
            continue;
        }
        g_string_append_printf(s, "%s%s", first ? "" : ", ", pair);
        first = false;
    }
    g_string_append_c(s, ')');
    return g_string_free(s, FALSE);
}

void sweep_explain_engines(const SweepTable *table, const SweepEngines *engines, const ArchParams *arch_cp,
                           const ArchParams *arch_bulk, double tolerance_pct, GString *out)
{
    const SweepTable *t = table;
    const SweepEngines *e = engines;
    const SweepRow *r[2] = { g_ptr_array_index(t->rows, (guint) e->row[0]),
                             g_ptr_array_index(t->rows, (guint) e->row[1]) };
    const ArchParams *arch[2] = { arch_cp, arch_bulk };
    guint64 cycles[2] = { row_cycles(t, r[0]), row_cycles(t, r[1]) };
    int fast = cycles[1] < cycles[0] ? 1 : 0;
    int slow = 1 - fast;
    g_autofree char *who = e->others[0] ? g_strdup_printf(" (%s)", e->others) : g_strdup("");
    g_autofree char *fast_name = engine_point(t, e, fast);
    g_autofree char *slow_name = engine_point(t, e, slow);
    double gain = pct((double) cycles[slow] - (double) cycles[fast], (double) cycles[slow]);
    g_string_append_printf(out, "faster copy engine%s: %s: %" G_GUINT64_FORMAT " cycles, %.1f%% fewer than %s: %"
                           G_GUINT64_FORMAT, who, fast_name, cycles[fast], gain, slow_name, cycles[slow]);
    if (gain <= tolerance_pct) {
        g_string_append_printf(out, "; within the %g%% tolerance, so either engine will do", tolerance_pct);
    }
    g_string_append_c(out, '\n');
    /* Where the gap comes from: the state the slower point spends the most
     * warp-cycles more in. */
    int gap = -1;
    double most = 0.0;
    for (int k = 0; k < WS__COUNT; k++) {
        double d = stall(t, r[slow], k) - stall(t, r[fast], k);
        if (k != WS_EXITED && d > most) {
            most = d;
            gap = k;
        }
    }
    if (gap >= 0 && cycles[slow] > cycles[fast]) {
        g_string_append_printf(out, "  the gap: the %s point spends %.0f warp-cycles more in %s (%.0f vs %.0f)\n",
                               slow == 0 ? "cp.async" : "bulk-copy", most, sim_warp_state_name(gap),
                               stall(t, r[slow], gap), stall(t, r[fast], gap));
    }
    /* What bounds each, fastest first. */
    const int order[2] = { fast, slow };
    for (int i = 0; i < 2; i++) {
        int k = order[i];
        const char *bw_what = NULL;
        double bw = sm_bandwidth(arch[k], k == 1, &bw_what);
        g_autofree char *name = engine_point(t, e, k);
        g_string_append_printf(out, "  %s: copies at %.1f B/cycle of the %.1f B/cycle the %s allows; ", name,
                               row_num(t, r[k], "achieved_bytes_per_cycle"), bw, bw_what);
        describe_bound(t, r[k], bw, out);
        g_string_append_c(out, '\n');
    }
}
