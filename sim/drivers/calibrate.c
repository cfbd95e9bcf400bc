/* calibrate.c: calibration results -> architecture file (see calibrate.h). */
#include "sim/drivers/calibrate.h"

#include "sim/core/simtypes.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    CAL_INT,     /* rounded to an integer */
    CAL_DOUBLE   /* one decimal */
} CalKind;

/* Where each architecture key's measurement comes from: a RESULT key, the
 * device line of the results header ("device:KEY"), or a difference of two
 * RESULT keys ("A-B"). */
typedef struct {
    const char *arch_key;
    const char *source;
    CalKind kind;
    const char *what;
} CalMap;

static const CalMap cal_map[] = {
    { "arch.sm_version", "device:cc", CAL_INT, "compute capability" },
    { "arch.clock_mhz", "arch.clock_mhz", CAL_DOUBLE, "clock64 over %globaltimer" },
    { "sm.smem_bytes", "device:smem_per_sm", CAL_INT, "sharedMemPerMultiprocessor" },
    { "sm.smem_per_block", "device:smem_optin_per_block", CAL_INT, "sharedMemPerBlockOptin" },
    { "smem.latency", "smem.latency", CAL_INT, "dependent LDS chain" },
    { "l1.latency", "l1.latency", CAL_INT, "ld.global.ca pointer chase" },
    { "l2.latency", "l2.latency", CAL_INT, "ld.global.cg pointer chase, L2-resident" },
    { "l2.bytes_per_clk_sm", "l2.bytes_per_clk_sm", CAL_DOUBLE, "cp.async.cg, one block, L2-resident" },
    { "l2.bytes_per_clk", "l2.bytes_per_clk_total", CAL_DOUBLE, "all SMs, L2-resident" },
    { "l2.bytes", "device:l2_bytes", CAL_INT, "l2CacheSize" },
    { "dram.latency", "dram.latency", CAL_INT, "pointer chase after an L2 flush, TLB warm" },
    { "dram.bytes_per_clk", "dram.bytes_per_clk_total", CAL_DOUBLE, "all SMs streaming with cp.async" },
    { "cp_async.issue_cycles", "cp_async.issue_interval_16B", CAL_INT, "back-to-back warp-wide LDGSTS" },
    { "cp_async.extra_latency", "cp_async.latency_l2.16B-l2.latency", CAL_INT, "cp.async.cg latency minus ld.global.cg latency" },
    { "bulk.bytes_per_clk", "bulk.bytes_per_clk_l2.65536B", CAL_DOUBLE, "one block, one thread, 64 KiB bulk copies" },
    { "barrier.syncthreads_base", "barrier.syncthreads_base", CAL_INT, "bar.sync loop, least squares over warps" },
    { "barrier.syncthreads_per_warp", "barrier.syncthreads_per_warp", CAL_INT, "bar.sync loop, least squares over warps" },
    { "barrier.mbarrier_arrive", "mbarrier.arrive_cycles_raw", CAL_INT, "warp-wide arrive, token used" },
    { "barrier.mbarrier_wake", "mbarrier.wake_latency_try_wait", CAL_INT, "try_wait loop resuming after another warp's arrive" },
    { "barrier.wait_call", "mbarrier.try_wait_cycles", CAL_INT, "try_wait on a completed phase" },
    { "inst.imad.latency", "inst.imad.latency", CAL_INT, "dependent IMAD chain" },
    { "inst.imad.interval", "inst.imad.interval", CAL_INT, "IMAD issue interval, 8 warps per sub-partition" },
    { "inst.ffma.latency", "inst.ffma.latency", CAL_INT, "dependent FFMA chain" },
    { "inst.ffma.interval", "inst.ffma.interval", CAL_INT, "FFMA issue interval, 8 warps per sub-partition" },
};

const char *const *calib_keys(void)
{
    static const char *keys[G_N_ELEMENTS(cal_map) + 1];
    for (size_t i = 0; i < G_N_ELEMENTS(cal_map); i++) {
        keys[i] = cal_map[i].arch_key;
    }
    keys[G_N_ELEMENTS(cal_map)] = NULL;
    return keys;
}

static bool parse_double(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = g_ascii_strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !isfinite(v)) {
        return false;
    }
    *out = v;
    return true;
}

/* The results file: RESULT values by key, the device line's fields, date, GPU. */
typedef struct {
    GHashTable *values;   /* key -> double* (owned) */
    GHashTable *device;   /* key -> char* (owned) */
    char *date;           /* YYYY-MM-DD or NULL */
    char *gpu;
} CalResults;

static void results_clear(CalResults *r)
{
    g_hash_table_unref(r->values);
    g_hash_table_unref(r->device);
    g_free(r->date);
    g_free(r->gpu);
}

/* Splits "k=v k2="v 2" ..." into the table. */
static void parse_fields(const char *s, GHashTable *into)
{
    while (*s) {
        while (*s == ' ' || *s == '\t') {
            s++;
        }
        const char *eq = strchr(s, '=');
        const char *sp = strpbrk(s, " \t");
        if (eq == NULL || (sp != NULL && sp < eq)) {
            if (sp == NULL) {
                return;
            }
            s = sp;
            continue;
        }
        g_autofree char *key = g_strndup(s, eq - s);
        const char *v = eq + 1;
        const char *end;
        char *val;
        if (*v == '"') {
            end = strchr(v + 1, '"');
            end = end ? end : v + strlen(v);
            val = g_strndup(v + 1, end - v - 1);
            end = *end ? end + 1 : end;
        } else {
            end = strpbrk(v, " \t");
            end = end ? end : v + strlen(v);
            val = g_strndup(v, end - v);
        }
        g_hash_table_replace(into, g_steal_pointer(&key), val);
        s = end;
    }
}

static bool parse_results(const char *text, const char *name, CalResults *r, GError **error)
{
    r->values = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    r->device = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    r->date = NULL;
    r->gpu = NULL;
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (int i = 0; lines[i] != NULL; i++) {
        char *l = g_strstrip(lines[i]);
        if (g_str_has_prefix(l, "# date_utc:")) {
            const char *d = l + strlen("# date_utc:");
            while (*d == ' ') {
                d++;
            }
            g_free(r->date);
            r->date = g_strndup(d, MIN(strlen(d), 10));
        } else if (g_str_has_prefix(l, "# gpu:")) {
            g_free(r->gpu);
            r->gpu = g_strdup(g_strstrip(l + strlen("# gpu:")));
        } else if (g_str_has_prefix(l, "# INFO device ")) {
            parse_fields(l + strlen("# INFO device "), r->device);
        } else if (g_str_has_prefix(l, "RESULT ")) {
            /* RESULT key=K value=V unit=U note=... */
            g_autoptr(GHashTable) f = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
            const char *note = strstr(l, " note=");
            g_autofree char *head = note ? g_strndup(l, note - l) : g_strdup(l);
            parse_fields(head + strlen("RESULT "), f);
            const char *k = g_hash_table_lookup(f, "key");
            const char *v = g_hash_table_lookup(f, "value");
            double d;
            if (k == NULL || v == NULL || !parse_double(v, &d)) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%d: a RESULT line needs key=NAME value=NUMBER", name,
                            i + 1);
                return false;
            }
            double *box = g_new(double, 1);
            *box = d;
            g_hash_table_replace(r->values, g_strdup(k), box);
        }
    }
    if (g_hash_table_size(r->values) == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT,
                    "%s: no RESULT lines: not a calibration results file (scripts/calib/run_all.sh writes calib_results.txt)",
                    name);
        return false;
    }
    return true;
}

/* The measurement for one map entry, if the results have it. */
static bool cal_value(const CalResults *r, const CalMap *m, double *out)
{
    if (g_str_has_prefix(m->source, "device:")) {
        const char *v = g_hash_table_lookup(r->device, m->source + 7);
        if (v == NULL) {
            return false;
        }
        if (strcmp(m->source, "device:cc") == 0) {
            /* "9.0" -> 90 */
            int major = 0, minor = 0;
            if (sscanf(v, "%d.%d", &major, &minor) != 2) {
                return false;
            }
            *out = major * 10 + minor;
            return true;
        }
        return parse_double(v, out);
    }
    const char *minus = strchr(m->source, '-');
    if (minus != NULL) {
        g_autofree char *a = g_strndup(m->source, minus - m->source);
        const double *va = g_hash_table_lookup(r->values, a);
        const double *vb = g_hash_table_lookup(r->values, minus + 1);
        if (va == NULL || vb == NULL) {
            return false;
        }
        *out = MAX(0.0, *va - *vb);
        return true;
    }
    const double *v = g_hash_table_lookup(r->values, m->source);
    if (v == NULL) {
        return false;
    }
    *out = *v;
    return true;
}

static const CalMap *find_map(const char *key)
{
    for (size_t i = 0; i < G_N_ELEMENTS(cal_map); i++) {
        if (strcmp(cal_map[i].arch_key, key) == 0) {
            return &cal_map[i];
        }
    }
    return NULL;
}

bool calib_rewrite(const char *ini_text, const char *results_text, const char *results_name, GString *out,
                   GString *report, GError **error)
{
    CalResults r;
    if (!parse_results(results_text, results_name, &r, error)) {
        results_clear(&r);
        return false;
    }
    const char *date = r.date != NULL ? r.date : "(date unknown)";
    const char *gpu = r.gpu != NULL ? r.gpu : "an unknown GPU";
    g_string_append_printf(out, "# Calibrated by smpipe calibrate from %s\n# (%s, %s): the keys whose source says"
                                " \"by smpipe calibrate\" were measured\n# there; the others keep their sources.\n",
                           results_name, gpu, date);
    g_auto(GStrv) lines = g_strsplit(ini_text, "\n", -1);
    guint n = g_strv_length(lines);
    /* A trailing newline leaves an empty last piece. */
    if (n > 0 && lines[n - 1][0] == '\0') {
        n--;
    }
    g_autoptr(GPtrArray) pending = g_ptr_array_new(); /* comment lines not yet written */
    g_autofree char *section = NULL;
    guint changed = 0;
    for (guint i = 0; i < n; i++) {
        const char *raw = lines[i];
        g_autofree char *l = g_strstrip(g_strdup(raw));
        if (l[0] == '#' || l[0] == ';') {
            g_ptr_array_add(pending, (gpointer) raw);
            continue;
        }
        const CalMap *m = NULL;
        g_autofree char *key = NULL;
        g_autofree char *old = NULL;
        if (l[0] == '[') {
            char *close = strchr(l, ']');
            g_free(section);
            section = close ? g_strndup(l + 1, close - l - 1) : g_strdup(l + 1);
        } else if (l[0] != '\0' && strchr(l, '=') != NULL && section != NULL) {
            const char *eq = strchr(l, '=');
            g_autofree char *k = g_strstrip(g_strndup(l, eq - l));
            old = g_strstrip(g_strdup(eq + 1));
            key = g_strdup_printf("%s.%s", section, k);
            m = find_map(key);
        }
        double v;
        bool fitted = false;
        for (guint p = 0; m != NULL && p < pending->len; p++) {
            fitted |= strstr(g_ptr_array_index(pending, p), "[FIT]") != NULL;
        }
        if (m != NULL && fitted && cal_value(&r, m, &v)) {
            /* Fitted against whole kernels (scripts/fit_arch.py): the
             * microbenchmark alone would undo the fit.  Kept, and said. */
            g_string_append_printf(report, "  %-30s %12s kept: its source is [FIT] (measured %.6g, %s)\n", key, old, v,
                                   m->source);
            m = NULL;
        }
        if (m != NULL && cal_value(&r, m, &v)) {
            /* Replace the key's comment block and value. */
            char num[64];
            if (m->kind == CAL_INT) {
                g_snprintf(num, sizeof num, "%.0f", round(v));
            } else {
                g_ascii_formatd(num, sizeof num, "%.1f", v);
            }
            const char *dot = strrchr(key, '.');
            g_string_append_printf(out, "# source: [CAL] measured %s by smpipe calibrate: %s = %.6g (%s) on %s (was %s)\n",
                                   date, m->source, v, m->what, gpu, old);
            g_string_append_printf(out, "%s = %s\n", dot + 1, num);
            g_string_append_printf(report, "  %-30s %12s -> %-12s (%s)\n", key, old, num, m->source);
            g_ptr_array_set_size(pending, 0);
            changed++;
            continue;
        }
        for (guint p = 0; p < pending->len; p++) {
            g_string_append_printf(out, "%s\n", (const char *) g_ptr_array_index(pending, p));
        }
        g_ptr_array_set_size(pending, 0);
        g_string_append_printf(out, "%s\n", raw);
    }
    for (guint p = 0; p < pending->len; p++) {
        g_string_append_printf(out, "%s\n", (const char *) g_ptr_array_index(pending, p));
    }
    if (changed == 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: none of its RESULT keys maps to an architecture key",
                    results_name);
        results_clear(&r);
        return false;
    }
    results_clear(&r);
    return true;
}
