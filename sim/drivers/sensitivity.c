/* sensitivity.c: perturbed values, elasticities and the ranking of
 * `smpipe sensitivity` (see sensitivity.h); tested on their own in
 * tests/test_sensitivity.c. */
#include "sim/drivers/sensitivity.h"

#include <math.h>
#include <string.h>

SensKey *sens_key_new(const char *name, guint index, bool integer, double base, const char *base_text,
                      const char *source)
{
    SensKey *k = g_new0(SensKey, 1);
    k->name = g_strdup(name);
    k->index = index;
    k->integer = integer;
    k->base = base;
    k->base_text = g_strdup(base_text);
    k->source = g_intern_string(source);
    for (int e = 0; e < 2; e++) {
        k->end[e].value = base;
        k->end[e].status = "unchanged";
        k->end[e].stages = -1;
    }
    return k;
}

void sens_key_free(SensKey *k)
{
    if (k == NULL) {
        return;
    }
    for (int e = 0; e < 2; e++) {
        g_free(k->end[e].text);
        g_free(k->end[e].error);
    }
    g_free(k->name);
    g_free(k->base_text);
    g_free(k);
}

bool sens_key_is_launch(const char *name)
{
    return strcmp(name, "sm.blocks") == 0 || strcmp(name, "sm.regs_per_thread") == 0 ||
           g_str_has_prefix(name, "launch.");
}

bool sens_perturb(double base, bool integer, double lo, double hi, double factor, char **text, double *value,
                  bool *widened)
{
    *widened = false;
    if (base == 0.0) {
        return false;
    }
    double v = base * factor;
    if (integer) {
        v = round(v);
        if (v == base) {
            v = factor < 1.0 ? base - 1.0 : base + 1.0;
            *widened = true;
        }
    }
    v = CLAMP(v, lo, hi);
    if (v == base || !isfinite(v)) {
        *widened = false;
        return false;
    }
    if (integer) {
        *text = g_strdup_printf("%" G_GINT64_FORMAT, (int64_t) v);
    } else {
        /* Six significant digits: the value set is the one written (83.88,
         * not 83.880000000000010), and the elasticity uses it. */
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        *text = g_strdup(g_ascii_formatd(buf, sizeof buf, "%.6g", v));
    }
    *value = g_ascii_strtod(*text, NULL);
    return *value != base;
}

void sens_end_measure(SensEnd *e, double base_value, guint64 base_cycles)
{
    e->change_pct = base_value != 0.0 ? (e->value - base_value) / base_value * 100.0 : 0.0;
    e->cycles_pct = base_cycles > 0 ? ((double) e->cycles - (double) base_cycles) / (double) base_cycles * 100.0
                                    : 0.0;
    e->elasticity = e->change_pct != 0.0 ? e->cycles_pct / e->change_pct : 0.0;
}

static int compare_keys(gconstpointer pa, gconstpointer pb)
{
    const SensKey *a = *(const SensKey *const *) pa;
    const SensKey *b = *(const SensKey *const *) pb;
    bool ra = a->rank > 0, rb = b->rank > 0;
    if (ra != rb) {
        return ra ? -1 : 1;
    }
    if (a->score != b->score) {
        return a->score > b->score ? -1 : 1;
    }
    return strcmp(a->name, b->name);
}

void sens_rank(GPtrArray *keys)
{
    for (guint i = 0; i < keys->len; i++) {
        SensKey *k = g_ptr_array_index(keys, i);
        k->score = 0.0;
        k->rank = 0;
        for (int e = 0; e < 2; e++) {
            if (strcmp(k->end[e].status, "ok") == 0) {
                k->score = MAX(k->score, fabs(k->end[e].elasticity));
                /* Any positive value marks "ran" until the ranks are set. */
                k->rank = 1;
            }
        }
    }
    g_ptr_array_sort(keys, compare_keys);
    guint rank = 0;
    for (guint i = 0; i < keys->len; i++) {
        SensKey *k = g_ptr_array_index(keys, i);
        if (k->rank > 0) {
            k->rank = ++rank;
        }
    }
}
