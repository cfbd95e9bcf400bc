/* sm_messages.c: how the SM names what it reports in error messages and
 * warnings (a warp's lanes, an mbarrier) and the run's warnings, each kept
 * once (declared in sm_internal.h).  No timing lives here. */
#include "models/sm_internal.h"

#include <stdarg.h>

char *sm_describe_lanes(const Warp *w, LaneMask m)
{
    if (m == 0) {
        /* No lanes to name (the warp's threads have exited). */
        return g_strdup_printf("warp %d (block %d)", w->index, w->block);
    }
    GString *s = g_string_new(NULL);
    int first = -1;
    for (int l = 0; l <= SIM_WARP_SIZE; l++) {
        bool on = l < SIM_WARP_SIZE && (m & (1u << l));
        if (on && first < 0) {
            first = l;
        } else if (!on && first >= 0) {
            if (s->len) {
                g_string_append_c(s, ',');
            }
            if (first == l - 1) {
                g_string_append_printf(s, "%d", first);
            } else {
                g_string_append_printf(s, "%d-%d", first, l - 1);
            }
            first = -1;
        }
    }
    char *out = g_strdup_printf("warp %d (block %d) lanes %s (threads %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT ")",
                                w->index, w->block, s->str, w->tid0 + __builtin_ctz(m), w->tid0 + 31 - __builtin_clz(m));
    g_string_free(s, TRUE);
    return out;
}

char *sm_describe_mbar(const Sm *sm, int32_t block, int32_t mbar)
{
    const Program *p = sm->prog;
    const Block *b = &sm->blocks[block];
    if (mbar < (int32_t) p->barriers->len) {
        return g_strdup_printf("barrier '%s'", g_array_index(p->barriers, ProgBarrier, mbar).name);
    }
    for (guint i = 0; i < p->pstates->len; i++) {
        const ProgPState *ps = &g_array_index(p->pstates, ProgPState, i);
        int32_t base = b->pstate_base[i];
        if (mbar >= base && mbar < base + 2 * ps->stages) {
            int32_t k = mbar - base;
            return g_strdup_printf("stage %d's %s barrier of pipeline_shared_state '%s'", k / 2,
                                   k % 2 == 0 ? "produced" : "consumed", ps->name);
        }
    }
    return g_strdup("an mbarrier");
}

void sm_warn(Sm *sm, const char *key, const char *fmt, ...)
{
    if (g_hash_table_contains(sm->warned, key)) {
        return;
    }
    g_hash_table_add(sm->warned, g_strdup(key));
    va_list ap;
    va_start(ap, fmt);
    g_ptr_array_add(sm->stats.warnings, g_strdup_vprintf(fmt, ap));
    va_end(ap);
}
