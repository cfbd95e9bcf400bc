/* cli_sensitivity.c: `smpipe sensitivity TRACE`: which architecture key
 * bounds a run.  Every numeric key of the resolved architecture (those
 * --keys selects) is moved down and up by --step percent, one at a time;
 * the points run in parallel as a sweep's do (cli_sweep_points), and the
 * keys are ranked by the elasticity of the cycles to them (sensitivity.h).
 * When the trace has a `stages` parameter, the base and every end are also
 * run over --stages and the sweep's rule recommends a stage count at each.
 *
 * Which keys a run uses: the models copy the values they need when the SM
 * is built, so no record of reads exists per run; a key "matters" here when
 * moving it changes some statistic of the run.  Keys that change nothing
 * at either end are listed apart: the run does not read them, or they do
 * not bind at this step.
 *
 * Outputs: a table on stdout, --csv, --json (json-glib) and --plot, a
 * tornado chart of the top keys drawn by scripts/tornado.gp.  Every output
 * is the same whatever --jobs is: the rows come back in point order and
 * the ranking depends only on the numbers and the key names. */
#include "sim/cli/cli.h"
#include "sim/out/csv.h"

#include "sim/drivers/sensitivity.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>

/* The label of a variant in the points' "variant" column. */
#define BASE_LABEL "base"

typedef struct {
    const Trace *trace;
    const char *path;
    const char *arch;
    GPtrArray *sets;           /* char*: --set, borrowed */
    double step;               /* percent */
    gint jobs;
    double tolerance;
    SmOptions sm;
    bool has_stages;           /* the trace declares a stages parameter */
    GPtrArray *stage_values;   /* char*: --stages (owned) */
    const char *stages_text;   /* --stages as given */
    char *arch_name;           /* the resolved architecture's name (owned) */
    guint64 base_cycles;
    int64_t base_stages;       /* recommended at the base, -1 none */
    GPtrArray *keys;           /* SensKey* (owned) */
} Sens;

static void sens_clear(Sens *s)
{
    if (s->stage_values != NULL) {
        g_ptr_array_free(s->stage_values, TRUE);
    }
    if (s->keys != NULL) {
        g_ptr_array_free(s->keys, TRUE);
    }
    g_free(s->arch_name);
}

static CliPoint *point_new(const char *cells)
{
    CliPoint *p = g_new0(CliPoint, 1);
    p->cells = g_strdup(cells);
    p->sets = g_ptr_array_new_with_free_func(g_free);
    return p;
}

/* The variant label of an end: "dram.latency=617". */
static char *end_label(const SensKey *k, int e)
{
    return g_strdup_printf("%s=%s", k->name, k->end[e].text);
}

/* True when name matches one of the comma-separated globs of pattern. */
static bool key_selected(const char *pattern, const char *name)
{
    if (pattern == NULL) {
        return true;
    }
    g_auto(GStrv) globs = g_strsplit(pattern, ",", -1);
    for (int i = 0; globs[i] != NULL; i++) {
        if (g_pattern_match_simple(g_strstrip(globs[i]), name)) {
            return true;
        }
    }
    return false;
}

/* The keys to move and their ends.  Returns false with *error set when
 * the architecture does not load or --keys selects none. */
static bool choose_keys(Sens *s, const char *pattern, GError **error)
{
    ArchParams a;
    g_autoptr(ArchSources) src = arch_sources_new();
    if (!cli_load_arch(s->arch, s->sets, NULL, &a, src, error)) {
        return false;
    }
    s->arch_name = g_strdup(a.name);
    s->keys = g_ptr_array_new_with_free_func((GDestroyNotify) sens_key_free);
    for (guint i = 0; i < arch_key_count(); i++) {
        ArchKeyKind kind = arch_key_kind(i);
        g_autofree char *name = arch_key_name(i);
        if (kind == ARCH_KEY_OTHER || sens_key_is_launch(name) || !key_selected(pattern, name)) {
            continue;
        }
        double lo, hi;
        arch_key_range(i, &lo, &hi);
        g_autofree char *text = arch_key_value(&a, i);
        SensKey *k = sens_key_new(name, i, kind == ARCH_KEY_INT, arch_key_number(&a, i), text,
                                  arch_sources_get(src, i));
        for (int e = 0; e < 2; e++) {
            double factor = e == 0 ? 1.0 - s->step / 100.0 : 1.0 + s->step / 100.0;
            if (sens_perturb(k->base, k->integer, lo, hi, factor, &k->end[e].text, &k->end[e].value,
                             &k->end[e].widened)) {
                k->end[e].status = "pending";
            }
        }
        g_ptr_array_add(s->keys, k);
    }
    if (s->keys->len == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--keys %s: matches no numeric architecture key (smpipe arch"
                    " show lists them)", pattern);
        return false;
    }
    return true;
}

/* The statistics of a row as one string: every field from status to the
 * last before error (newly allocated). */
static char *row_stats(const SweepTable *t, const SweepRow *r)
{
    g_autoptr(GString) out = g_string_new(NULL);
    for (guint c = t->naxes + 1; c + 1 < r->fields->len; c++) {
        g_string_append_printf(out, "%s,", (const char *) g_ptr_array_index(r->fields, c));
    }
    return g_string_free(g_steal_pointer(&out), FALSE);
}

/* Runs the base and every end at the configured stage count. */
static bool run_ends(Sens *s, GError **error)
{
    g_autoptr(GPtrArray) points = g_ptr_array_new_with_free_func((GDestroyNotify) cli_point_free);
    g_ptr_array_add(points, point_new(BASE_LABEL));
    for (guint i = 0; i < s->keys->len; i++) {
        SensKey *k = g_ptr_array_index(s->keys, i);
        for (int e = 0; e < 2; e++) {
            if (k->end[e].text != NULL) {
                g_autofree char *label = end_label(k, e);
                CliPoint *p = point_new(label);
                g_ptr_array_add(p->sets, g_strdup(label));
                g_ptr_array_add(points, p);
            }
        }
    }
    const char *columns[] = { "variant" };
    g_autoptr(SweepTable) t = cli_sweep_points(s->trace, s->path, s->arch, s->sets, columns, 1, points, &s->sm,
                                               s->jobs, error);
    if (t == NULL) {
        return false;
    }
    const SweepRow *base = g_ptr_array_index(t->rows, 0);
    if (strcmp(sweep_row_field(t, base, "status"), "ok") != 0) {
        /* The base itself does not run: say why as a plain run would. */
        SimRunOptions o;
        memset(&o, 0, sizeof o);
        o.arch = s->arch;
        o.sets = s->sets;
        o.sm = s->sm;
        SimRun r;
        bool ok = sim_run_trace(s->trace, &o, &r, error);
        sim_run_clear(&r);
        if (ok) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "internal error: the base configuration ran alone but"
                        " not as a point");
        }
        return false;
    }
    s->base_cycles = g_ascii_strtoull(sweep_row_field(t, base, "cycles"), NULL, 10);
    g_autofree char *base_stats = row_stats(t, base);
    guint row = 1;
    for (guint i = 0; i < s->keys->len; i++) {
        SensKey *k = g_ptr_array_index(s->keys, i);
        for (int e = 0; e < 2; e++) {
            SensEnd *end = &k->end[e];
            if (end->text == NULL) {
                continue;
            }
            const SweepRow *r = g_ptr_array_index(t->rows, row++);
            const char *status = sweep_row_field(t, r, "status");
            end->status = g_intern_string(status);
            if (strcmp(status, "ok") != 0) {
                end->error = g_strdup(sweep_row_field(t, r, "error"));
                continue;
            }
            end->cycles = g_ascii_strtoull(sweep_row_field(t, r, "cycles"), NULL, 10);
            g_autofree char *stats = row_stats(t, r);
            end->effect = strcmp(stats, base_stats) != 0;
            sens_end_measure(end, k->base, s->base_cycles);
        }
    }
    return true;
}

/* Runs the base and every end that ran over --stages, and records the
 * stage count the sweep's rule recommends at each. */
static bool recommend_stages(Sens *s, GError **error)
{
    g_autoptr(GPtrArray) points = g_ptr_array_new_with_free_func((GDestroyNotify) cli_point_free);
    /* The stage count is the varied one: drop a --set stages=N. */
    g_autoptr(GPtrArray) sets = g_ptr_array_new();
    for (guint i = 0; s->sets != NULL && i < s->sets->len; i++) {
        if (!g_str_has_prefix(g_ptr_array_index(s->sets, i), "stages=")) {
            g_ptr_array_add(sets, g_ptr_array_index(s->sets, i));
        }
    }
    g_autoptr(GPtrArray) variants = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(variants, g_strdup(BASE_LABEL));
    for (guint i = 0; i < s->keys->len; i++) {
        SensKey *k = g_ptr_array_index(s->keys, i);
        for (int e = 0; e < 2; e++) {
            if (strcmp(k->end[e].status, "ok") == 0) {
                g_ptr_array_add(variants, end_label(k, e));
            }
        }
    }
    for (guint v = 0; v < variants->len; v++) {
        const char *label = g_ptr_array_index(variants, v);
        for (guint n = 0; n < s->stage_values->len; n++) {
            const char *stages = g_ptr_array_index(s->stage_values, n);
            g_autofree char *cells = g_strdup_printf("%s,%s", label, stages);
            CliPoint *p = point_new(cells);
            if (v > 0) {
                g_ptr_array_add(p->sets, g_strdup(label));
            }
            g_ptr_array_add(p->sets, g_strdup_printf("stages=%s", stages));
            g_ptr_array_add(points, p);
        }
    }
    const char *columns[] = { "variant", "stages" };
    g_autoptr(SweepTable) t = cli_sweep_points(s->trace, s->path, s->arch, sets, columns, 2, points, &s->sm, s->jobs,
                                               error);
    if (t == NULL) {
        return false;
    }
    g_autoptr(GPtrArray) groups = sweep_recommend(t, "stages", s->tolerance, error);
    if (groups == NULL) {
        return false;
    }
    /* Each variant's stage counts are consecutive rows: a group per variant. */
    g_autoptr(GHashTable) rec = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 0; i < groups->len; i++) {
        const SweepGroup *g = g_ptr_array_index(groups, i);
        if (g->recommended < 0) {
            continue;
        }
        const SweepRow *r = g_ptr_array_index(t->rows, g_array_index(g->rows, guint, (guint) g->recommended));
        int64_t n = sweep_row_int(t, r, "stages");
        g_hash_table_insert(rec, g_strdup(sweep_row_field(t, r, "variant")), GINT_TO_POINTER((int) n + 1));
    }
    s->base_stages = GPOINTER_TO_INT(g_hash_table_lookup(rec, BASE_LABEL)) - 1;
    for (guint i = 0; i < s->keys->len; i++) {
        SensKey *k = g_ptr_array_index(s->keys, i);
        for (int e = 0; e < 2; e++) {
            if (strcmp(k->end[e].status, "ok") == 0) {
                g_autofree char *label = end_label(k, e);
                k->end[e].stages = GPOINTER_TO_INT(g_hash_table_lookup(rec, label)) - 1;
            }
        }
    }
    return true;
}

/* ------------------------------------------------------------- outputs */

static void append_num(GString *out, double v, const char *format)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append(out, g_ascii_formatd(buf, sizeof buf, format, v));
}

/* "-" when an end's recommendation equals the base's, else the count. */
static char *stages_cell(const Sens *s, const SensEnd *e)
{
    if (!s->has_stages || strcmp(e->status, "ok") != 0) {
        return g_strdup("");
    }
    if (e->stages == s->base_stages) {
        return g_strdup("-");
    }
    return e->stages < 0 ? g_strdup("none") : g_strdup_printf("%" G_GINT64_FORMAT, e->stages);
}

static bool key_moved_cycles(const SensKey *k)
{
    for (int e = 0; e < 2; e++) {
        if (strcmp(k->end[e].status, "ok") == 0 && k->end[e].cycles_pct != 0.0) {
            return true;
        }
    }
    return false;
}

static bool key_effect(const SensKey *k)
{
    return k->end[0].effect || k->end[1].effect;
}

/* Appends ", name" lists: the keys for which want(k) holds. */
static void name_list(const Sens *s, bool (*want)(const SensKey *), GString *out, guint *count)
{
    *count = 0;
    for (guint i = 0; i < s->keys->len; i++) {
        const SensKey *k = g_ptr_array_index(s->keys, i);
        if (want(k)) {
            g_string_append_printf(out, "%s%s", (*count)++ ? ", " : "", k->name);
        }
    }
}

static bool ran_no_cycles_but_effect(const SensKey *k)
{
    return k->rank > 0 && !key_moved_cycles(k) && key_effect(k);
}

static bool ran_no_effect(const SensKey *k)
{
    return k->rank > 0 && !key_effect(k);
}

static void format_table(const Sens *s, GString *out)
{
    g_autofree char *step = g_strdup_printf("%g%%", s->step);
    g_string_append_printf(out, "%s on %s: %" G_GUINT64_FORMAT " cycles; each key moved -%s and +%s", s->path,
                           s->arch_name, s->base_cycles, step, step);
    for (guint i = 0; s->sets != NULL && i < s->sets->len; i++) {
        g_string_append_printf(out, "%s%s", i ? " " : " (with ", (const char *) g_ptr_array_index(s->sets, i));
        if (i + 1 == s->sets->len) {
            g_string_append_c(out, ')');
        }
    }
    g_string_append_c(out, '\n');
    if (s->has_stages) {
        g_string_append(out, "recommended stages: ");
        if (s->base_stages >= 0) {
            g_string_append_printf(out, "%" G_GINT64_FORMAT, s->base_stages);
        } else {
            g_string_append(out, "none (no stage count ran)");
        }
        g_string_append_printf(out, " (over stages=%s, within %g%% of the best); the stages columns show a count"
                               " only where it changes\n", s->stages_text, s->tolerance);
    }
    int kw = 3;
    guint shown = 0;
    for (guint i = 0; i < s->keys->len; i++) {
        const SensKey *k = g_ptr_array_index(s->keys, i);
        if (k->rank > 0 && key_moved_cycles(k)) {
            kw = MAX(kw, (int) strlen(k->name));
            shown++;
        }
    }
    g_string_append_c(out, '\n');
    if (shown == 0) {
        g_string_append_printf(out, "no key changes the cycles at -%s or +%s\n", step, step);
    } else {
        g_string_append_printf(out, "%4s  %-*s  %10s  %10s  %8s  %9s%s  %10s  %8s  %9s%s\n", "rank", kw, "key",
                               "value", "-step", "cycles", "elastic.", s->has_stages ? "  stages" : "", "+step",
                               "cycles", "elastic.", s->has_stages ? "  stages" : "");
    }
    for (guint i = 0; i < s->keys->len; i++) {
        const SensKey *k = g_ptr_array_index(s->keys, i);
        if (k->rank == 0 || !key_moved_cycles(k)) {
            continue;
        }
        g_string_append_printf(out, "%4u  %-*s  %10s", k->rank, kw, k->name, k->base_text);
        for (int e = 0; e < 2; e++) {
            const SensEnd *end = &k->end[e];
            g_autofree char *st = stages_cell(s, end);
            if (strcmp(end->status, "ok") == 0) {
                g_autofree char *pct = g_strdup_printf("%+.1f%%", end->cycles_pct);
                g_autofree char *el = g_strdup_printf("%.3f", end->elasticity);
                g_string_append_printf(out, "  %10s  %8s  %9s", end->text, pct, el);
            } else {
                g_string_append_printf(out, "  %10s  %8s  %9s", end->text ? end->text : "=", end->status, "");
            }
            if (s->has_stages) {
                g_string_append_printf(out, "  %6s", st);
            }
        }
        g_string_append_c(out, '\n');
    }
    /* The keys left out of the table, by what happened to them. */
    g_autoptr(GString) list = g_string_new(NULL);
    guint n = 0;
    name_list(s, ran_no_cycles_but_effect, list, &n);
    if (n > 0) {
        g_string_append_printf(out, "\nno change in cycles, other statistics change (%u): %s\n", n, list->str);
    }
    g_string_truncate(list, 0);
    name_list(s, ran_no_effect, list, &n);
    if (n > 0) {
        g_string_append_printf(out, "\nno statistic changes: the run does not read these keys, or they do not bind at"
                               " this step (%u): %s\n", n, list->str);
    }
    g_string_truncate(list, 0);
    n = 0;
    for (guint i = 0; i < s->keys->len; i++) {
        const SensKey *k = g_ptr_array_index(s->keys, i);
        if (k->end[0].widened || k->end[1].widened) {
            g_string_append_printf(list, "%s%s %s", n++ ? ", " : "", k->name, k->base_text);
            for (int e = 0; e < 2; e++) {
                if (k->end[e].widened) {
                    g_string_append_printf(list, "%s%s", e == 0 || !k->end[0].widened ? " -> " : "/",
                                           k->end[e].text);
                }
            }
        }
    }
    if (n > 0) {
        g_string_append_printf(out, "\nwhole-number keys whose %s step rounds to no change moved by one instead (the"
                               " elasticity uses the change made): %s\n", step, list->str);
    }
    bool head = false;
    for (guint i = 0; i < s->keys->len; i++) {
        const SensKey *k = g_ptr_array_index(s->keys, i);
        for (int e = 0; e < 2; e++) {
            const SensEnd *end = &k->end[e];
            const char *dir = e == 0 ? "-" : "+";
            if (strcmp(end->status, "ok") == 0) {
                continue;
            }
            if (!head) {
                g_string_append(out, "\nnot measured:\n");
                head = true;
            }
            if (end->text == NULL && k->base == 0.0) {
                g_string_append_printf(out, "  %s: its value is 0, which a relative step cannot move\n", k->name);
                break;
            } else if (end->text == NULL) {
                g_string_append_printf(out, "  %s %s%s: %s is at the end of the key's range\n", k->name, dir, step,
                                       k->base_text);
            } else {
                g_string_append_printf(out, "  %s=%s: %s: %s\n", k->name, end->text, end->status,
                                       end->error ? end->error : "");
            }
        }
    }
}

static void csv_end(GString *out, const Sens *s, const SensEnd *e)
{
    g_string_append_printf(out, ",%s,", e->text ? e->text : "");
    bool ok = strcmp(e->status, "ok") == 0;
    if (e->text != NULL) {
        append_num(out, e->change_pct, "%.6g");
    }
    g_string_append_c(out, ',');
    if (ok) {
        g_string_append_printf(out, "%" G_GUINT64_FORMAT ",", e->cycles);
        append_num(out, e->cycles_pct, "%.6g");
        g_string_append_c(out, ',');
        append_num(out, e->elasticity, "%.6g");
    } else {
        g_string_append(out, ",,");
    }
    g_string_append_c(out, ',');
    if (ok && s->has_stages && e->stages >= 0) {
        g_string_append_printf(out, "%" G_GINT64_FORMAT, e->stages);
    }
    g_string_append_printf(out, ",%s,%s,%s,", e->status, ok ? (e->effect ? "yes" : "no") : "",
                           e->widened ? "yes" : "no");
    csv_append_field(out, e->error ? e->error : "");
}

static void format_csv(const Sens *s, GString *out)
{
    g_string_append(out, "rank,key,value,source,score,base_cycles,base_stages");
    const char *ends[] = { "down", "up" };
    for (int e = 0; e < 2; e++) {
        g_string_append_printf(out, ",%1$s_value,%1$s_change_pct,%1$s_cycles,%1$s_cycles_pct,%1$s_elasticity,"
                               "%1$s_stages,%1$s_status,%1$s_effect,%1$s_widened,%1$s_error", ends[e]);
    }
    g_string_append_c(out, '\n');
    for (guint i = 0; i < s->keys->len; i++) {
        const SensKey *k = g_ptr_array_index(s->keys, i);
        if (k->rank > 0) {
            g_string_append_printf(out, "%u", k->rank);
        }
        g_string_append_printf(out, ",%s,%s,", k->name, k->base_text);
        csv_append_field(out, k->source);
        g_string_append_c(out, ',');
        append_num(out, k->score, "%.6g");
        g_string_append_printf(out, ",%" G_GUINT64_FORMAT ",", s->base_cycles);
        if (s->has_stages && s->base_stages >= 0) {
            g_string_append_printf(out, "%" G_GINT64_FORMAT, s->base_stages);
        }
        for (int e = 0; e < 2; e++) {
            csv_end(out, s, &k->end[e]);
        }
        g_string_append_c(out, '\n');
    }
}

static void json_end(JsonBuilder *b, const Sens *s, const SensEnd *e)
{
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "status");
    json_builder_add_string_value(b, e->status);
    if (e->text != NULL) {
        json_builder_set_member_name(b, "value");
        json_builder_add_double_value(b, e->value);
        json_builder_set_member_name(b, "change_pct");
        json_builder_add_double_value(b, e->change_pct);
        json_builder_set_member_name(b, "widened");
        json_builder_add_boolean_value(b, e->widened);
    }
    if (strcmp(e->status, "ok") == 0) {
        json_builder_set_member_name(b, "cycles");
        json_builder_add_int_value(b, (gint64) e->cycles);
        json_builder_set_member_name(b, "cycles_pct");
        json_builder_add_double_value(b, e->cycles_pct);
        json_builder_set_member_name(b, "elasticity");
        json_builder_add_double_value(b, e->elasticity);
        json_builder_set_member_name(b, "effect");
        json_builder_add_boolean_value(b, e->effect);
        if (s->has_stages) {
            json_builder_set_member_name(b, "stages");
            if (e->stages >= 0) {
                json_builder_add_int_value(b, e->stages);
            } else {
                json_builder_add_null_value(b);
            }
        }
    } else if (e->error != NULL) {
        json_builder_set_member_name(b, "error");
        json_builder_add_string_value(b, e->error);
    }
    json_builder_end_object(b);
}

static char *format_json(const Sens *s)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "trace");
    json_builder_add_string_value(b, s->path);
    json_builder_set_member_name(b, "arch");
    json_builder_add_string_value(b, s->arch_name);
    json_builder_set_member_name(b, "sets");
    json_builder_begin_array(b);
    for (guint i = 0; s->sets != NULL && i < s->sets->len; i++) {
        json_builder_add_string_value(b, g_ptr_array_index(s->sets, i));
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "step_pct");
    json_builder_add_double_value(b, s->step);
    json_builder_set_member_name(b, "base_cycles");
    json_builder_add_int_value(b, (gint64) s->base_cycles);
    if (s->has_stages) {
        json_builder_set_member_name(b, "base_stages");
        if (s->base_stages >= 0) {
            json_builder_add_int_value(b, s->base_stages);
        } else {
            json_builder_add_null_value(b);
        }
    }
    json_builder_set_member_name(b, "keys");
    json_builder_begin_array(b);
    for (guint i = 0; i < s->keys->len; i++) {
        const SensKey *k = g_ptr_array_index(s->keys, i);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "key");
        json_builder_add_string_value(b, k->name);
        json_builder_set_member_name(b, "rank");
        if (k->rank > 0) {
            json_builder_add_int_value(b, k->rank);
        } else {
            json_builder_add_null_value(b);
        }
        json_builder_set_member_name(b, "value");
        json_builder_add_double_value(b, k->base);
        json_builder_set_member_name(b, "integer");
        json_builder_add_boolean_value(b, k->integer);
        json_builder_set_member_name(b, "source");
        json_builder_add_string_value(b, k->source);
        json_builder_set_member_name(b, "score");
        json_builder_add_double_value(b, k->score);
        json_builder_set_member_name(b, "down");
        json_end(b, s, &k->end[0]);
        json_builder_set_member_name(b, "up");
        json_end(b, s, &k->end[1]);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    g_autoptr(JsonGenerator) gen = json_generator_new();
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    json_generator_set_root(gen, root);
    json_generator_set_pretty(gen, TRUE);
    gchar *text = json_generator_to_data(gen, NULL);
    char *with_newline = g_strconcat(text, "\n", NULL);
    g_free(text);
    return with_newline;
}

/* The tornado chart: writes FILE.dat (the top keys, "rank key down% up%")
 * and draws it with scripts/tornado.gp.  Returns the exit status. */
static int draw_plot(const Sens *s, const char *output, guint top)
{
    const char *dot = strrchr(output, '.');
    g_autofree char *stem = g_strndup(output, dot - output);
    g_autofree char *datafile = g_strconcat(stem, ".dat", NULL);
    g_autoptr(GString) data = g_string_new(NULL);
    g_string_append_printf(data, "# smpipe sensitivity %s on %s: %" G_GUINT64_FORMAT " cycles, step %g%%; columns:"
                           " rank key cycles_pct_down cycles_pct_up\n", s->path, s->arch_name, s->base_cycles, s->step);
    guint n = 0;
    for (guint i = 0; i < s->keys->len && n < top; i++) {
        const SensKey *k = g_ptr_array_index(s->keys, i);
        if (k->rank == 0 || !key_moved_cycles(k)) {
            continue;
        }
        n++;
        g_string_append_printf(data, "%u %s ", k->rank, k->name);
        for (int e = 0; e < 2; e++) {
            append_num(data, strcmp(k->end[e].status, "ok") == 0 ? k->end[e].cycles_pct : 0.0, "%.6g");
            g_string_append_c(data, e == 0 ? ' ' : '\n');
        }
    }
    GError *err = NULL;
    if (!sim_write_file(datafile, data->str, data->len, &err)) {
        return cli_fail(err);
    }
    g_autoptr(GString) vars = g_string_new(NULL);
    cli_gp_define(vars, "datafile", datafile);
    g_string_append_printf(vars, "; nkeys = %u; step = %g", n, s->step);
    g_autofree char *title = g_strdup_printf("%s on %s: %" G_GUINT64_FORMAT " cycles", s->path, s->arch_name,
                                             s->base_cycles);
    cli_gp_define(vars, "title", title);
    if (!cli_gnuplot_draw("tornado.gp", vars->str, output, datafile, &err)) {
        return cli_plot_fail(err);
    }
    return 0;
}

int cli_sensitivity(int argc, char **argv)
{
    g_auto(CliArchOptions) ao = { 0 };
    g_autofree char *keys = NULL;
    g_autofree char *csv = NULL;
    g_autofree char *json = NULL;
    g_autofree char *plot = NULL;
    g_autofree char *stages = NULL;
    gdouble step = 10.0;
    gdouble tolerance = 2.0;
    gint jobs = 0;
    gint top = 15;
    CliLimits limits;
    GOptionEntry entries[] = {
        { "keys", 'k', 0, G_OPTION_ARG_STRING, &keys, "Move only the keys matching these globs, e.g. 'dram.*,l2.*'"
          " [all numeric keys]", "PATTERN[,...]" },
        { "step", 0, 0, G_OPTION_ARG_DOUBLE, &step, "Move each key down and up by PCT percent [10]", "PCT" },
        { "stages", 0, 0, G_OPTION_ARG_STRING, &stages, "Stage counts over which the recommendation is made at each"
          " end, when the trace has a stages parameter [1..8]", "LIST" },
        { "tolerance", 0, 0, G_OPTION_ARG_DOUBLE, &tolerance, "Recommend the fewest stages within PCT percent of the"
          " best cycles [2]", "PCT" },
        { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "Points simulated at once [one per core]", "N" },
        { "csv", 0, 0, G_OPTION_ARG_FILENAME, &csv, "Write one CSV row per key (- for stdout)", "FILE|-" },
        { "json", 0, 0, G_OPTION_ARG_FILENAME, &json, "Write the keys as JSON (- for stdout)", "FILE|-" },
        { "plot", 0, 0, G_OPTION_ARG_FILENAME, &plot, "Draw a tornado chart of the top keys (gnuplot)",
          "FILE.png|svg|pdf" },
        { "top", 0, 0, G_OPTION_ARG_INT, &top, "Keys in the chart [15]", "N" },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("TRACE - rank the architecture keys by how much the cycles"
                                                         " depend on them");
    cli_add_arch_options(ctx, &ao, CLI_ARCH_HELP, CLI_SET_HELP " (xFACTOR scales a key) for every point");
    g_option_context_add_main_entries(ctx, entries, NULL);
    cli_add_limit_options(ctx, &limits);
    int status;
    if (!cli_parse_trace(ctx, "sensitivity", &argc, &argv, &status)) {
        return status;
    }
    if (!isfinite(step) || step <= 0.0 || step >= 100.0) {
        fprintf(stderr, "smpipe sensitivity: --step takes a percentage above 0 and below 100\n");
        return SIM_EXIT_BAD_INPUT;
    }
    if (jobs < 0 || top < 1) {
        fprintf(stderr, "smpipe sensitivity: --jobs and --top must be at least 1\n");
        return SIM_EXIT_BAD_INPUT;
    }
    if (!isfinite(tolerance) || tolerance < 0.0) {
        fprintf(stderr, "smpipe sensitivity: --tolerance takes a percentage >= 0\n");
        return SIM_EXIT_BAD_INPUT;
    }
    if (plot != NULL && cli_picture_format(plot) == NULL) {
        fprintf(stderr, "smpipe sensitivity: --plot %s: the name must end in .png, .svg or .pdf\n", plot);
        return SIM_EXIT_BAD_INPUT;
    }
    SmOptions sm_limits;
    memset(&sm_limits, 0, sizeof sm_limits);
    if (!cli_apply_limits("sensitivity", &limits, &sm_limits)) {
        return SIM_EXIT_BAD_INPUT;
    }
    GError *err = NULL;
    Sens s;
    memset(&s, 0, sizeof s);
    s.stage_values = g_ptr_array_new_with_free_func(g_free);
    if (!sweep_parse_list(stages ? stages : "1..8", true, s.stage_values, &err)) {
        g_prefix_error(&err, "--stages %s: ", stages);
        sens_clear(&s);
        return cli_fail(err);
    }
    s.stages_text = stages ? stages : "1..8";
    const char *path = argv[1];
    g_autoptr(Trace) t = trace_parse_file(path, &err);
    if (t == NULL) {
        sens_clear(&s);
        return cli_fail(err);
    }
    s.trace = t;
    s.path = path;
    s.arch = ao.arch;
    s.sets = cli_arch_sets(&ao);
    s.step = step;
    s.jobs = jobs;
    s.tolerance = tolerance;
    s.sm.engine = SIM_ENGINE_EVENT;
    s.sm.max_cycles = sm_limits.max_cycles;
    s.sm.max_ops = sm_limits.max_ops;
    s.sm.race_check = true;
    s.base_stages = -1;
    for (guint i = 0; i < t->decls->len; i++) {
        const Decl *d = g_ptr_array_index(t->decls, i);
        s.has_stages |= d->kind == DECL_PARAM && strcmp(d->name, "stages") == 0;
    }
    if (!choose_keys(&s, keys, &err) || !run_ends(&s, &err) || (s.has_stages && !recommend_stages(&s, &err))) {
        sens_clear(&s);
        return cli_fail(err);
    }
    sens_rank(s.keys);
    g_autoptr(GString) table = g_string_new(NULL);
    format_table(&s, table);
    g_autoptr(GString) csv_text = g_string_new(NULL);
    format_csv(&s, csv_text);
    g_autofree char *json_text = format_json(&s);
    bool table_to_stderr = (csv != NULL && strcmp(csv, "-") == 0) || (json != NULL && strcmp(json, "-") == 0);
    if ((csv != NULL && !sim_write_file(csv, csv_text->str, csv_text->len, &err)) ||
        (json != NULL && !sim_write_file(json, json_text, strlen(json_text), &err))) {
        sens_clear(&s);
        return cli_fail(err);
    }
    fputs(table->str, table_to_stderr ? stderr : stdout);
    fflush(stdout);
    int rc = plot != NULL ? draw_plot(&s, plot, (guint) top) : 0;
    sens_clear(&s);
    return rc;
}
