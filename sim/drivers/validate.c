/* validate.c: the steps of `smpipe validate` (see validate.h). */
#include "sim/drivers/validate.h"

#include "sim/core/fileio.h"
#include "sim/drivers/cuda_gen.h"
#include "sim/out/csv.h"
#include "sim/out/jsonw.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST_VALUES 100000
#define MAX_POINTS 100000
/* The manifest --emit writes: 2 added trace_sha256.  --results reads 1 and 2,
 * and results.json in the format 1 of the generated programs. */
#define MANIFEST_FORMAT 2
#define RESULTS_FORMAT 1
/* Measured cycles above this are not a count a GPU can have taken (2^53:
 * the largest a double holds exactly; about 52 days at 2 GHz). */
#define MAX_MEASURED_CYCLES 9007199254740992.0

/* ----------------------------------------------------------------- lists */

static bool parse_int(const char *s, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0') {
        return false;
    }
    *out = (int64_t) v;
    return true;
}

static bool list_fail(GError **error, const char *text, const char *why, const char *item)
{
    g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "'%s': %s%s%s%s (a list is 1,2,4 or 1..8 or 64..512:64)", text, why,
                item ? " '" : "", item ? item : "", item ? "'" : "");
    return false;
}

bool validate_parse_list(const char *text, GArray *out, GError **error)
{
    g_auto(GStrv) items = g_strsplit(text, ",", -1);
    if (items[0] == NULL) {
        return list_fail(error, text, "the list is empty", NULL);
    }
    guint start = out->len;
    for (int i = 0; items[i] != NULL; i++) {
        char *item = g_strstrip(items[i]);
        if (*item == '\0') {
            return list_fail(error, text, "an item is empty", NULL);
        }
        char *dots = strstr(item, "..");
        int64_t a, b, step = 1;
        if (dots == NULL) {
            if (!parse_int(item, &a)) {
                return list_fail(error, text, "not an integer:", item);
            }
            b = a;
        } else {
            g_autofree char *lo = g_strndup(item, dots - item);
            g_autofree char *hi = g_strdup(dots + 2);
            char *colon = strchr(hi, ':');
            if (colon != NULL) {
                *colon = '\0';
                if (!parse_int(colon + 1, &step) || step <= 0) {
                    return list_fail(error, text, "the step must be a positive integer in", item);
                }
            }
            if (!parse_int(g_strstrip(lo), &a) || !parse_int(g_strstrip(hi), &b)) {
                return list_fail(error, text, "a range is A..B or A..B:STEP with integers, not", item);
            }
            if (b < a) {
                return list_fail(error, text, "a range must not run backwards:", item);
            }
        }
        /* (b - a) / step + 1 values, counted without overflow. */
        uint64_t count = ((uint64_t) b - (uint64_t) a) / (uint64_t) step + 1;
        if (count > MAX_LIST_VALUES || out->len - start + count > MAX_LIST_VALUES) {
            return list_fail(error, text, "more than 100000 values", NULL);
        }
        for (uint64_t k = 0; k < count; k++) {
            int64_t v = (int64_t) ((uint64_t) a + k * (uint64_t) step);
            g_array_append_val(out, v);
        }
    }
    return true;
}

char *validate_parse_vary(const char *arg, GArray *out, GError **error)
{
    const char *eq = strchr(arg, '=');
    if (eq == NULL || eq == arg) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--vary %s: expected NAME=LIST (stages=1..8)", arg);
        return NULL;
    }
    GError *err = NULL;
    if (!validate_parse_list(eq + 1, out, &err)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--vary %s: %s", arg, err->message);
        g_error_free(err);
        return NULL;
    }
    return g_strndup(arg, eq - arg);
}

/* ----------------------------------------------------------------- plans */

static void free_array(gpointer p)
{
    g_array_free(p, TRUE);
}

void validate_plan_init(ValidatePlan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->vary_names = g_ptr_array_new_with_free_func(g_free);
    plan->vary_values = g_ptr_array_new_with_free_func(free_array);
    plan->repeats = 9;
}

void validate_plan_clear(ValidatePlan *plan)
{
    g_ptr_array_free(plan->vary_names, TRUE);
    g_ptr_array_free(plan->vary_values, TRUE);
    memset(plan, 0, sizeof *plan);
}

/* The points: sets (char*, owned) per point, the first --vary slowest. */
static GPtrArray *plan_points(const ValidatePlan *plan, GPtrArray *labels, GError **error)
{
    guint n = plan->vary_names->len;
    uint64_t total = 1;
    for (guint i = 0; i < n; i++) {
        total *= ((GArray *) g_ptr_array_index(plan->vary_values, i))->len;
        if (total > MAX_POINTS) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "the --vary lists make more than %d points", MAX_POINTS);
            return NULL;
        }
    }
    GPtrArray *points = g_ptr_array_new_with_free_func((GDestroyNotify) g_ptr_array_unref);
    g_autofree guint *idx = g_new0(guint, n + 1);
    for (uint64_t p = 0; p < total; p++) {
        GPtrArray *sets = g_ptr_array_new_with_free_func(g_free);
        GString *label = g_string_new(NULL);
        for (guint i = 0; plan->sets != NULL && i < plan->sets->len; i++) {
            g_ptr_array_add(sets, g_strdup(g_ptr_array_index(plan->sets, i)));
        }
        for (guint i = 0; i < n; i++) {
            GArray *vals = g_ptr_array_index(plan->vary_values, i);
            char *s = g_strdup_printf("%s=%" G_GINT64_FORMAT, (const char *) g_ptr_array_index(plan->vary_names, i),
                                      g_array_index(vals, int64_t, idx[i]));
            g_string_append_printf(label, "%s%s", i ? " " : "", s);
            g_ptr_array_add(sets, s);
        }
        g_ptr_array_add(points, sets);
        g_ptr_array_add(labels, g_string_free(label, FALSE));
        /* Odometer, last name fastest. */
        for (guint i = n; i-- > 0;) {
            GArray *vals = g_ptr_array_index(plan->vary_values, i);
            if (++idx[i] < vals->len) {
                break;
            }
            idx[i] = 0;
        }
    }
    return points;
}

static char *trace_base(const char *path)
{
    g_autofree char *base = g_path_get_basename(path);
    return g_str_has_suffix(base, ".trace") ? g_strndup(base, strlen(base) - 6) : g_strdup(base);
}

static const char run_sh[] =
    "#!/bin/sh\n"
    "# run.sh: written by `smpipe validate --emit`.  Builds the measurement program for\n"
    "# this machine's GPU (unless it is built already) and runs it: results.json.\n"
    "# Then, where smpipe is: smpipe validate TRACE --results THIS_DIRECTORY\n"
    "set -u\n"
    "cd \"$(dirname \"$0\")\"\n"
    "prog=%s\n"
    "NVCC=${NVCC:-nvcc}\n"
    "command -v \"$NVCC\" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc\n"
    "if [ ! -x \"./$prog\" ]; then\n"
    "    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')\n"
    "    if [ -z \"$cc\" ]; then\n"
    "        echo \"run.sh: nvidia-smi finds no GPU\" >&2\n"
    "        exit 2\n"
    "    fi\n"
    "    \"$NVCC\" -O3 -std=c++17 -arch=sm_$cc -o \"$prog\" \"$prog.cu\" || exit 2\n"
    "fi\n"
    "status=0\n"
    "\"./$prog\" %s --repeats %d > results.json.tmp || status=$?\n"
    "mv results.json.tmp results.json\n"
    "exit $status\n";

bool validate_emit(const Trace *t, const ValidatePlan *plan, const char *dir, GError **error)
{
    g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) point_sets = plan_points(plan, labels, error);
    if (point_sets == NULL) {
        return false;
    }
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: cannot create the directory: %s", dir, g_strerror(errno));
        return false;
    }
    g_autoptr(GPtrArray) points = g_ptr_array_new_with_free_func((GDestroyNotify) cuda_gen_point_free);
    for (guint k = 0; k < point_sets->len; k++) {
        CudaGenPoint *p = cuda_gen_point_new(t, plan->arch, g_ptr_array_index(point_sets, k),
                                             g_ptr_array_index(labels, k), error);
        if (p == NULL) {
            return false;
        }
        g_ptr_array_add(points, p);
    }
    g_autofree char *name = trace_base(plan->trace_path);
    g_autofree char *cu = g_strdup_printf("%s.cu", name);
    g_autofree char *cu_path = g_build_filename(dir, cu, NULL);
    CudaGenOptions opt = { plan->trace_path, cu, !plan->warm, plan->repeats, 2 };
    g_autoptr(GString) code = g_string_new(NULL);
    if (!cuda_gen_program((CudaGenPoint *const *) points->pdata, points->len, &opt, code, error)) {
        return false;
    }
    g_autoptr(GByteArray) ref = g_byte_array_new();
    cuda_gen_reference((CudaGenPoint *const *) points->pdata, points->len, ref);
    g_autofree char *ref_path = g_strdup_printf("%s.ref", cu_path);

    g_autoptr(GString) m = g_string_new(NULL);
    JsonW j;
    jsonw_init_string(&j, m, true);
    jsonw_begin_object(&j);
    jsonw_key(&j, "tool");
    jsonw_string(&j, "smpipe validate");
    jsonw_key(&j, "format");
    jsonw_int(&j, MANIFEST_FORMAT);
    jsonw_key(&j, "trace");
    jsonw_string(&j, plan->trace_path);
    /* The trace's content: --results refuses another trace's folder. */
    jsonw_key(&j, "trace_sha256");
    jsonw_string(&j, t->sha256);
    /* The architecture as given (a name or an .ini path), to simulate with
     * later, and the name it resolved to. */
    jsonw_key(&j, "arch");
    jsonw_string(&j, plan->arch != NULL ? plan->arch : SIM_DEFAULT_ARCH);
    jsonw_key(&j, "arch_name");
    jsonw_string(&j, ((CudaGenPoint *) g_ptr_array_index(points, 0))->run.arch.name);
    jsonw_key(&j, "mode");
    jsonw_string(&j, plan->warm ? "warm" : "cold");
    jsonw_key(&j, "repeats");
    jsonw_int(&j, plan->repeats);
    jsonw_key(&j, "program");
    jsonw_string(&j, cu);
    jsonw_key(&j, "sets");
    jsonw_begin_array(&j);
    for (guint i = 0; plan->sets != NULL && i < plan->sets->len; i++) {
        jsonw_string(&j, g_ptr_array_index(plan->sets, i));
    }
    jsonw_end_array(&j);
    jsonw_key(&j, "vary");
    jsonw_begin_array(&j);
    for (guint i = 0; i < plan->vary_names->len; i++) {
        GArray *vals = g_ptr_array_index(plan->vary_values, i);
        jsonw_begin_object(&j);
        jsonw_key(&j, "name");
        jsonw_string(&j, g_ptr_array_index(plan->vary_names, i));
        jsonw_key(&j, "values");
        jsonw_begin_array(&j);
        for (guint v = 0; v < vals->len; v++) {
            jsonw_int(&j, g_array_index(vals, int64_t, v));
        }
        jsonw_end_array(&j);
        jsonw_end_object(&j);
    }
    jsonw_end_array(&j);
    jsonw_key(&j, "points");
    jsonw_begin_array(&j);
    for (guint k = 0; k < points->len; k++) {
        GPtrArray *sets = g_ptr_array_index(point_sets, k);
        jsonw_begin_object(&j);
        jsonw_key(&j, "index");
        jsonw_int(&j, k);
        jsonw_key(&j, "label");
        jsonw_string(&j, g_ptr_array_index(labels, k));
        jsonw_key(&j, "sets");
        jsonw_begin_array(&j);
        for (guint i = 0; i < sets->len; i++) {
            jsonw_string(&j, g_ptr_array_index(sets, i));
        }
        jsonw_end_array(&j);
        jsonw_end_object(&j);
    }
    jsonw_end_array(&j);
    jsonw_end_object(&j);
    g_string_append_c(m, '\n');
    g_autofree char *manifest = g_build_filename(dir, "manifest.json", NULL);
    g_autofree char *script = g_strdup_printf(run_sh, name, plan->warm ? "--no-flush-l2" : "--flush-l2", plan->repeats);
    g_autofree char *script_path = g_build_filename(dir, "run.sh", NULL);
    if (!sim_write_file(cu_path, code->str, code->len, error) ||
        !sim_write_file(ref_path, (const char *) ref->data, ref->len, error) ||
        !sim_write_file(manifest, m->str, m->len, error) ||
        !sim_write_file(script_path, script, strlen(script), error)) {
        return false;
    }
    if (g_chmod(script_path, 0755) != 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s", script_path, g_strerror(errno));
        return false;
    }
    return true;
}

/* --------------------------------------------------------------- collect */

typedef struct {
    bool present;
    char *status;          /* ok, check-failed, ... (owned) */
    double cycles, cycles_min, cycles_max, kernel_ms;
    JsonObject *params;    /* the trace parameters it was measured with (borrowed from results.json), or NULL */
} Measured;

static JsonNode *load_json(const char *path, JsonParser *parser, GError **error)
{
    GError *err = NULL;
    if (!json_parser_load_from_file(parser, path, &err)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s", path, err->message);
        g_error_free(err);
        return NULL;
    }
    JsonNode *root = json_parser_get_root(parser);
    if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: not a JSON object", path);
        return NULL;
    }
    return root;
}

static const char *obj_string(JsonObject *o, const char *key)
{
    JsonNode *n = o ? json_object_get_member(o, key) : NULL;
    return n != NULL && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
               ? json_node_get_string(n) : NULL;
}

static bool obj_number(JsonObject *o, const char *key, double *out)
{
    JsonNode *n = o ? json_object_get_member(o, key) : NULL;
    if (n == NULL || !JSON_NODE_HOLDS_VALUE(n)) {
        return false;
    }
    GType t = json_node_get_value_type(n);
    if (t == G_TYPE_INT64) {
        *out = (double) json_node_get_int(n);
        return true;
    }
    if (t == G_TYPE_DOUBLE) {
        *out = json_node_get_double(n);
        return true;
    }
    return false;
}

static JsonArray *obj_array(JsonObject *o, const char *key)
{
    JsonNode *n = o ? json_object_get_member(o, key) : NULL;
    return n != NULL && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

static void measured_clear(gpointer p)
{
    g_free(((Measured *) p)->status);
}

/* gnuplot script for the CSV: simulated against measured, and both per point. */
static char *plot_script(const char *title, int col_measured, int col_sim, double lo, double hi)
{
    return g_strdup_printf(
        "# validation.gp: written by smpipe validate; run `gnuplot validation.gp` here.\n"
        "set terminal pngcairo noenhanced size 1400,560 font ',10'\n"
        "set output 'validation.png'\n"
        "set datafile separator ','\n"
        "set multiplot layout 1,2 title '%s'\n"
        "set grid\n"
        "set key bottom right\n"
        "set xrange [%.0f:%.0f]\n"
        "set yrange [%.0f:%.0f]\n"
        "set size square\n"
        "set xlabel 'measured cycles (GPU, clock64)'\n"
        "set ylabel 'simulated cycles'\n"
        "plot 'validation.csv' skip 1 using %d:%d with points pt 7 ps 0.9 title 'points', \\\n"
        "     x with lines dt 2 lc rgb 'gray40' title 'simulated = measured'\n"
        "set autoscale\n"
        "set key top right\n"
        "set size nosquare\n"
        "set xlabel 'point (row of validation.csv)'\n"
        "set ylabel 'cycles'\n"
        "plot 'validation.csv' skip 1 using 1:%d with linespoints pt 7 ps 0.7 title 'measured', \\\n"
        "     '' skip 1 using 1:%d with linespoints pt 6 ps 0.7 title 'simulated'\n"
        "unset multiplot\n",
        title, lo, hi, lo, hi, col_measured, col_sim, col_measured, col_sim);
}

/* The value of NAME in a point's sets, or NULL. */
static const char *set_value(GPtrArray *sets, const char *name)
{
    size_t n = strlen(name);
    for (guint i = sets->len; i-- > 0;) {
        const char *s = g_ptr_array_index(sets, i);
        if (strncmp(s, name, n) == 0 && s[n] == '=') {
            return s + n + 1;
        }
    }
    return NULL;
}

static char *short_hash(const char *h)
{
    return h == NULL ? g_strdup("no sha256") : g_strdup_printf("sha256 %.12s", h);
}

/* Checks that the folder (its manifest man, read from mpath, and results
 * res, from rpath) is in a format this smpipe reads and was measured from
 * trace t: the same content where the manifest has its hash (format 2),
 * the same file name in format 1; that results.json names a trace of the
 * manifest's file name and has the manifest's points (labels by index).
 * Returns false with *error set otherwise. */
static bool check_origin(const Trace *t, const char *dir, JsonObject *man, const char *mpath, JsonObject *res,
                         const char *rpath, GError **error)
{
    double mf = 0, rf = 0;
    if (!obj_number(man, "format", &mf) || (mf != 1 && mf != MANIFEST_FORMAT)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: format %g, not one this smpipe reads (1 or %d)", mpath, mf,
                    MANIFEST_FORMAT);
        return false;
    }
    if (!obj_number(res, "format", &rf) || rf != RESULTS_FORMAT) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: format %g, not one this smpipe reads (%d)", rpath, rf,
                    RESULTS_FORMAT);
        return false;
    }
    JsonArray *mpoints = obj_array(man, "points");
    JsonArray *rpoints = obj_array(res, "points");
    if (json_array_get_length(mpoints) == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: no points to compare", mpath);
        return false;
    }
    const char *mtrace = obj_string(man, "trace");
    const char *mhash = obj_string(man, "trace_sha256");
    g_autofree char *mbase = g_path_get_basename(mtrace ? mtrace : "");
    g_autofree char *tbase = g_path_get_basename(t->path);
    if (mhash != NULL ? strcmp(mhash, t->sha256) != 0 : strcmp(mbase, tbase) != 0) {
        g_autofree char *a = short_hash(mhash);
        g_autofree char *b = short_hash(t->sha256);
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: measured from another trace (%s, %s), not %s (%s)", dir,
                    mtrace ? mtrace : "none", a, t->path, b);
        return false;
    }
    const char *rtrace = obj_string(res, "trace");
    g_autofree char *rbase = g_path_get_basename(rtrace ? rtrace : "");
    if (rtrace != NULL && strcmp(rbase, mbase) != 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: measured %s, the manifest's trace is %s: not the results"
                    " of this manifest", rpath, rtrace, mtrace ? mtrace : "none");
        return false;
    }
    for (guint i = 0; rpoints != NULL && i < json_array_get_length(rpoints); i++) {
        JsonObject *o = json_array_get_object_element(rpoints, i);
        double idx;
        if (o == NULL || !obj_number(o, "index", &idx) || idx < 0 || idx >= json_array_get_length(mpoints)) {
            continue;
        }
        const char *rl = obj_string(o, "label");
        const char *ml = obj_string(json_array_get_object_element(mpoints, (guint) idx), "label");
        if (rl != NULL && ml != NULL && strcmp(rl, ml) != 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: point %u is '%s', the manifest's point %u is '%s': not"
                        " the results of this manifest", rpath, (guint) idx, rl, (guint) idx, ml);
            return false;
        }
    }
    return true;
}

/* A measured count: finite, above 0 and below MAX_MEASURED_CYCLES. */
static bool plausible_cycles(double c)
{
    return isfinite(c) && c > 0 && c <= MAX_MEASURED_CYCLES;
}

/* Checks the numbers of measured point k (m, read from o in rpath):
 * cycles a GPU can have counted, the fastest run no slower than the
 * slowest.  Returns false with *error set otherwise. */
static bool check_measured(const Measured *m, JsonObject *o, guint k, const char *label, const char *rpath,
                           GError **error)
{
    if (!m->present) {
        return true;
    }
    const char *keys[] = { "cycles", "cycles_min", "cycles_max", "sm_cycles" };
    for (guint i = 0; i < G_N_ELEMENTS(keys); i++) {
        double v;
        if (obj_number(o, keys[i], &v) && !plausible_cycles(v)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: point %u (%s): %s %g is not a count of cycles"
                        " (above 0, at most 2^53)", rpath, k, label ? label : "", keys[i], v);
            return false;
        }
    }
    double lo, hi;
    if (obj_number(o, "cycles_min", &lo) && obj_number(o, "cycles_max", &hi) && lo > hi) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: point %u (%s): cycles_min %.0f exceeds cycles_max %.0f",
                    rpath, k, label ? label : "", lo, hi);
        return false;
    }
    return true;
}

/* Checks that point k (label) is simulated with the trace parameters it
 * was measured with (m->params): a --set of a trace parameter, or a trace
 * whose defaults changed, would compare another program.  Returns false
 * with *error set otherwise. */
static bool check_params(const Measured *m, const Program *prog, guint k, const char *label, GError **error)
{
    if (m->params == NULL) {
        return true;
    }
    g_autoptr(GList) names = json_object_get_members(m->params);
    names = g_list_sort(names, (GCompareFunc) strcmp);
    for (GList *l = names; l != NULL; l = l->next) {
        double v;
        if (!obj_number(m->params, l->data, &v)) {
            continue;
        }
        bool known = false;
        for (guint i = 0; i < prog->param_names->len && !known; i++) {
            known = strcmp(g_ptr_array_index(prog->param_names, i), l->data) == 0;
        }
        int64_t s = program_param(prog, l->data, 0);
        if (!known || (double) s != v) {
            g_autofree char *sim = known ? g_strdup_printf("%" G_GINT64_FORMAT, s) : g_strdup("(no such parameter)");
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "point %u (%s): measured with %s=%.0f, simulated with %s=%s"
                        " (a --set of a trace parameter, or an edited trace)", k, label, (const char *) l->data, v,
                        (const char *) l->data, sim);
            return false;
        }
    }
    return true;
}

bool validate_collect(const Trace *t, const char *dir, const char *arch, const GPtrArray *sets, const char *out_dir,
                      GString *summary, GError **error)
{
    g_autofree char *mpath = g_build_filename(dir, "manifest.json", NULL);
    g_autofree char *rpath = g_build_filename(dir, "results.json", NULL);
    g_autoptr(JsonParser) mp = json_parser_new();
    g_autoptr(JsonParser) rp = json_parser_new();
    JsonNode *mroot = load_json(mpath, mp, error);
    if (mroot == NULL) {
        return false;
    }
    JsonNode *rroot = load_json(rpath, rp, error);
    if (rroot == NULL) {
        return false;
    }
    JsonObject *man = json_node_get_object(mroot);
    JsonObject *res = json_node_get_object(rroot);
    const char *mode = obj_string(man, "mode");
    const char *march = obj_string(man, "arch");
    JsonArray *mpoints = obj_array(man, "points");
    JsonArray *rpoints = obj_array(res, "points");
    if (mode == NULL || march == NULL || mpoints == NULL || g_strcmp0(obj_string(man, "tool"), "smpipe validate") != 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: not a manifest written by smpipe validate --emit", mpath);
        return false;
    }
    if (rpoints == NULL || g_strcmp0(obj_string(res, "tool"), "smpipe cuda") != 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: not the output of a program written by smpipe", rpath);
        return false;
    }
    if (!check_origin(t, dir, man, mpath, res, rpath, error)) {
        return false;
    }
    bool warm = strcmp(mode, "warm") == 0;
    JsonObject *gpu = json_object_has_member(res, "gpu") ? json_object_get_object_member(res, "gpu") : NULL;
    const char *gpu_name = obj_string(gpu, "name");
    guint n = json_array_get_length(mpoints);
    g_autoptr(GArray) meas = g_array_new(FALSE, TRUE, sizeof(Measured));
    g_array_set_clear_func(meas, measured_clear);
    g_array_set_size(meas, n);
    for (guint i = 0; i < json_array_get_length(rpoints); i++) {
        JsonObject *o = json_array_get_object_element(rpoints, i);
        double idx;
        if (o == NULL || !obj_number(o, "index", &idx) || idx < 0 || idx >= n) {
            continue;
        }
        Measured *m = &g_array_index(meas, Measured, (guint) idx);
        const char *st = obj_string(o, "status");
        m->status = g_strdup(st ? st : "?");
        /* One SM's span (programs since the whole-GPU campaign); older
         * results have the launch's span, the same for one block. */
        m->present = obj_number(o, "sm_cycles", &m->cycles) || obj_number(o, "cycles", &m->cycles);
        obj_number(o, "cycles_min", &m->cycles_min);
        obj_number(o, "cycles_max", &m->cycles_max);
        obj_number(o, "kernel_ms", &m->kernel_ms);
        JsonNode *pn = json_object_get_member(o, "params");
        m->params = pn != NULL && JSON_NODE_HOLDS_OBJECT(pn) ? json_node_get_object(pn) : NULL;
        const char *label = obj_string(json_array_get_object_element(mpoints, (guint) idx), "label");
        if (!check_measured(m, o, (guint) idx, label, rpath, error)) {
            return false;
        }
    }

    /* Simulate every point. */
    g_autoptr(GArray) sim = g_array_new(FALSE, TRUE, sizeof(uint64_t));
    g_autoptr(GPtrArray) all_sets = g_ptr_array_new_with_free_func((GDestroyNotify) g_ptr_array_unref);
    g_autoptr(GPtrArray) labels = g_ptr_array_new();
    g_autoptr(GPtrArray) param_names = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GArray) param_values = g_array_new(FALSE, TRUE, sizeof(int64_t));
    g_autofree char *arch_name = NULL;
    for (guint k = 0; k < n; k++) {
        JsonObject *o = json_array_get_object_element(mpoints, k);
        JsonArray *ps = obj_array(o, "sets");
        const char *label = obj_string(o, "label");
        if (ps == NULL || label == NULL) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: point %u has no sets or label", mpath, k);
            return false;
        }
        GPtrArray *s = g_ptr_array_new_with_free_func(g_free);
        for (guint i = 0; i < json_array_get_length(ps); i++) {
            const char *v = json_array_get_string_element(ps, i);
            g_ptr_array_add(s, g_strdup(v ? v : ""));
        }
        g_ptr_array_add(s, g_strdup(warm ? "mem.source=l2" : "mem.source=dram"));
        for (guint i = 0; sets != NULL && i < sets->len; i++) {
            g_ptr_array_add(s, g_strdup(g_ptr_array_index(sets, i)));
        }
        g_ptr_array_add(all_sets, s);
        g_ptr_array_add(labels, (gpointer) label);
        SimRunOptions so;
        memset(&so, 0, sizeof so);
        so.arch = arch != NULL ? arch : march;
        so.sets = s;
        so.sm.engine = SIM_ENGINE_EVENT;
        so.sm.max_cycles = UINT64_C(2000000000);
        SimRun r;
        GError *err = NULL;
        if (!sim_run_trace(t, &so, &r, &err)) {
            g_set_error(error, SIM_ERROR, err->code, "point %u (%s): %s", k, label, err->message);
            g_error_free(err);
            sim_run_clear(&r);
            return false;
        }
        const Measured *m = &g_array_index(meas, Measured, k);
        if (!check_params(m, r.prog, k, label, error)) {
            sim_run_clear(&r);
            return false;
        }
        uint64_t cycles = sm_stats(r.sm)->cycles;
        g_array_append_val(sim, cycles);
        if (k == 0) {
            arch_name = g_strdup(r.arch.name);
            for (guint i = 0; i < r.prog->param_names->len; i++) {
                g_ptr_array_add(param_names, g_strdup(g_ptr_array_index(r.prog->param_names, i)));
            }
        }
        for (guint i = 0; i < param_names->len; i++) {
            int64_t v = program_param(r.prog, g_ptr_array_index(param_names, i), 0);
            g_array_append_val(param_values, v);
        }
        sim_run_clear(&r);
    }

    /* Varied architecture keys get columns of their own. */
    g_autoptr(GPtrArray) arch_cols = g_ptr_array_new();
    JsonArray *vary = obj_array(man, "vary");
    bool vary_stages = false;
    for (guint i = 0; vary != NULL && i < json_array_get_length(vary); i++) {
        const char *name = obj_string(json_array_get_object_element(vary, i), "name");
        if (name != NULL && strchr(name, '.') != NULL) {
            g_ptr_array_add(arch_cols, (gpointer) name);
        }
        vary_stages |= g_strcmp0(name, "stages") == 0;
    }

    g_autoptr(GString) csv = g_string_new("point,trace,arch,mode,gpu");
    for (guint i = 0; i < arch_cols->len; i++) {
        g_string_append_printf(csv, ",%s", (const char *) g_ptr_array_index(arch_cols, i));
    }
    for (guint i = 0; i < param_names->len; i++) {
        g_string_append_printf(csv, ",%s", (const char *) g_ptr_array_index(param_names, i));
    }
    g_string_append(csv, ",measured_cycles,measured_min,measured_max,kernel_ms,simulated_cycles,error_pct,check\n");
    int col_measured = 6 + (int) arch_cols->len + (int) param_names->len;
    int col_sim = col_measured + 4;
    double sum_ape = 0, max_ape = -1, hi = 0;
    guint counted = 0, failed_checks = 0, missing = 0;
    const char *worst = NULL;
    for (guint k = 0; k < n; k++) {
        const Measured *m = &g_array_index(meas, Measured, k);
        uint64_t s = g_array_index(sim, uint64_t, k);
        g_string_append_printf(csv, "%u,", k);
        csv_append_field(csv, obj_string(man, "trace") ? obj_string(man, "trace") : t->path);
        g_string_append_printf(csv, ",%s,%s,", arch_name, mode);
        csv_append_field(csv, gpu_name ? gpu_name : "");
        for (guint i = 0; i < arch_cols->len; i++) {
            const char *v = set_value(g_ptr_array_index(all_sets, k), g_ptr_array_index(arch_cols, i));
            g_string_append_printf(csv, ",%s", v ? v : "");
        }
        for (guint i = 0; i < param_names->len; i++) {
            g_string_append_printf(csv, ",%" G_GINT64_FORMAT,
                                   g_array_index(param_values, int64_t, k * param_names->len + i));
        }
        bool ok = m->present && g_strcmp0(m->status, "ok") == 0;
        if (m->present && m->cycles > 0) {
            hi = MAX(hi, MAX(m->cycles, (double) s));
        }
        if (m->present) {
            double err_pct = m->cycles > 0 ? 100.0 * ((double) s - m->cycles) / m->cycles : 0;
            g_string_append_printf(csv, ",%.0f,%.0f,%.0f,%.6f,%" G_GUINT64_FORMAT ",%.2f,%s\n", m->cycles, m->cycles_min,
                                   m->cycles_max, m->kernel_ms, s, err_pct, m->status);
            if (ok && m->cycles > 0) {
                sum_ape += fabs(err_pct);
                counted++;
                if (fabs(err_pct) > max_ape) {
                    max_ape = fabs(err_pct);
                    worst = g_ptr_array_index(labels, k);
                }
            }
            failed_checks += !ok;
        } else {
            g_string_append_printf(csv, ",,,,,%" G_GUINT64_FORMAT ",,%s\n", s, m->status ? m->status : "not-measured");
            missing++;
        }
    }

    g_string_append_printf(summary, "%s on %s, %s (%u points), simulated with %s:\n", t->path,
                           gpu_name ? gpu_name : "an unknown GPU", warm ? "warm L2" : "cold DRAM (L2 flushed)", n,
                           arch_name);
    if (counted > 0) {
        g_string_append_printf(summary, "  mean absolute percentage error %.1f%% over %u points (largest %.1f%% at %s)\n",
                               sum_ape / counted, counted, max_ape, worst && *worst ? worst : "the only point");
    } else {
        g_string_append(summary, "  no point was measured with a passing check: no error to report\n");
    }
    if (failed_checks > 0 || missing > 0) {
        g_string_append_printf(summary, "  left out: %u point%s whose output check failed, %u not measured\n",
                               failed_checks, failed_checks == 1 ? "" : "s", missing);
    }
    if (vary_stages) {
        /* Points that differ only in stages: is the fastest stage count the
         * simulator's fastest? */
        g_autoptr(GHashTable) groups = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func(g_free);
        typedef struct {
            double best_m, best_s;
            double m_at_s;       /* measured cycles at the simulator's fastest */
            const char *m_stages, *s_stages;
        } Best;
        g_autoptr(GArray) bests = g_array_new(FALSE, TRUE, sizeof(Best));
        for (guint k = 0; k < n; k++) {
            const Measured *m = &g_array_index(meas, Measured, k);
            if (!m->present || g_strcmp0(m->status, "ok") != 0) {
                continue;
            }
            g_auto(GStrv) words = g_strsplit(g_ptr_array_index(labels, k), " ", -1);
            GString *key = g_string_new(NULL);
            const char *st = NULL;
            for (int w = 0; words[w]; w++) {
                if (g_str_has_prefix(words[w], "stages=")) {
                    st = set_value(g_ptr_array_index(all_sets, k), "stages");
                } else {
                    g_string_append_printf(key, "%s%s", key->len ? " " : "", words[w]);
                }
            }
            gpointer gi;
            guint g;
            if (g_hash_table_lookup_extended(groups, key->str, NULL, &gi)) {
                g = GPOINTER_TO_UINT(gi);
                g_string_free(key, TRUE);
            } else {
                g = bests->len;
                Best b = { INFINITY, INFINITY, INFINITY, NULL, NULL };
                g_array_append_val(bests, b);
                g_ptr_array_add(order, g_strdup(key->str));
                g_hash_table_insert(groups, g_string_free(key, FALSE), GUINT_TO_POINTER(g));
            }
            Best *b = &g_array_index(bests, Best, g);
            double sc = (double) g_array_index(sim, uint64_t, k);
            if (m->cycles < b->best_m) {
                b->best_m = m->cycles;
                b->m_stages = st;
            }
            if (sc < b->best_s) {
                b->best_s = sc;
                b->m_at_s = m->cycles;
                b->s_stages = st;
            }
        }
        /* A stage count whose measured time is within 2% of the fastest is
         * as good as the fastest: the runs spread by about that much. */
        guint right = 0, close = 0;
        g_string_append(summary, "  fastest stage count, measured vs simulated (and the measured cycles at the"
                                 " simulator's choice):\n");
        for (guint g = 0; g < bests->len; g++) {
            const Best *b = &g_array_index(bests, Best, g);
            bool same = g_strcmp0(b->m_stages, b->s_stages) == 0;
            bool near = b->m_at_s <= b->best_m * 1.02;
            right += same;
            close += near;
            const char *key = g_ptr_array_index(order, g);
            g_string_append_printf(summary, "    %-40s measured %s (%.0f cycles), simulated %s (%.0f cycles; measured %.0f,"
                                   " %+.1f%%)%s\n", *key ? key : "(all points)", b->m_stages ? b->m_stages : "?",
                                   b->best_m, b->s_stages ? b->s_stages : "?", b->best_s, b->m_at_s,
                                   100.0 * (b->m_at_s - b->best_m) / b->best_m,
                                   same ? "" : near ? "  (within 2%)" : "  <- wrong");
        }
        g_string_append_printf(summary, "  the fastest stage count is predicted exactly in %u of %u groups, within 2%% of"
                               " the fastest in %u of %u\n", right, bests->len, close, bests->len);
    }

    if (g_mkdir_with_parents(out_dir, 0755) != 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: cannot create the directory: %s", out_dir,
                    g_strerror(errno));
        return false;
    }
    g_autofree char *csv_path = g_build_filename(out_dir, "validation.csv", NULL);
    g_autofree char *gp_path = g_build_filename(out_dir, "validation.gp", NULL);
    g_autofree char *sum_path = g_build_filename(out_dir, "summary.txt", NULL);
    g_autofree char *title = g_strdup_printf("%s: %s vs smpipe %s, %s, MAPE %.1f%%", t->path,
                                             gpu_name ? gpu_name : "GPU", arch_name, warm ? "warm L2" : "cold DRAM",
                                             counted ? sum_ape / counted : 0.0);
    for (char *c = title; *c; c++) {
        if (*c == '\'') {
            *c = ' ';
        }
    }
    if (!(hi > 0)) {
        hi = 10;
    }
    g_autofree char *gp = plot_script(title, col_measured, col_sim, 0.0, ceil(hi * 1.05));
    if (!sim_write_file(csv_path, csv->str, csv->len, error) || !sim_write_file(gp_path, gp, strlen(gp), error)) {
        return false;
    }
    /* The plot, where gnuplot is installed. */
    const char *argv[] = { "gnuplot", "validation.gp", NULL };
    gint wait = 0;
    g_autofree char *gp_err = NULL;
    GError *err = NULL;
    if (!g_spawn_sync(out_dir, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                      &gp_err, &wait, &err)) {
        g_string_append_printf(summary, "  no plot: %s (validation.gp is written)\n", err->message);
        g_error_free(err);
    } else if (!g_spawn_check_wait_status(wait, NULL)) {
        g_string_append_printf(summary, "  no plot: gnuplot failed: %s\n", gp_err ? g_strstrip(gp_err) : "");
    }
    g_autofree char *png_path = g_build_filename(out_dir, "validation.png", NULL);
    g_string_append_printf(summary, "  wrote %s, %s%s\n", csv_path, gp_path,
                           g_file_test(png_path, G_FILE_TEST_EXISTS) ? " and validation.png" : "");
    return sim_write_file(sum_path, summary->str, summary->len, error);
}

/* -------------------------------------------------------------- machine */

bool validate_have_gpu(char **why)
{
    const char *smi = g_getenv("SMPIPE_NVIDIA_SMI");
    const char *argv[] = { smi ? smi : "nvidia-smi", "-L", NULL };
    g_autofree char *out = NULL;
    gint wait = 0;
    GError *err = NULL;
    if (!g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out,
                      NULL, &wait, &err)) {
        *why = g_strdup_printf("no NVIDIA GPU: %s cannot run (%s)", argv[0], err->message);
        g_error_free(err);
        return false;
    }
    if (!g_spawn_check_wait_status(wait, NULL) || out == NULL || strstr(out, "GPU ") == NULL) {
        *why = g_strdup_printf("no NVIDIA GPU: `%s -L` lists none", argv[0]);
        return false;
    }
    return true;
}

char *validate_find_nvcc(void)
{
    const char *env = g_getenv("NVCC");
    if (env != NULL && *env) {
        return g_find_program_in_path(env);
    }
    char *p = g_find_program_in_path("nvcc");
    if (p == NULL && g_file_test("/usr/local/cuda/bin/nvcc", G_FILE_TEST_IS_EXECUTABLE)) {
        p = g_strdup("/usr/local/cuda/bin/nvcc");
    }
    return p;
}
