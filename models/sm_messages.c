/* sm_messages.c: how the SM names what it reports in error messages and
 * warnings (a warp's lanes, an mbarrier, a deadlock's waiting paths) and
 * the run's warnings, each kept once (declared in sm_internal.h).  No
 * timing lives here. */
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

/* ------------------------------------------------------------ deadlock */

static const char *status_word(SplitStatus st)
{
    switch (st) {
    case SPLIT_RUNNABLE: return "runnable";
    case SPLIT_BLOCKED: return "blocked";
    case SPLIT_PARKED: return "waiting at reconvergence";
    case SPLIT_FREE: return "free";
    }
    return "?";
}

/* What a blocked split waits for, in words. */
static char *describe_wait(Sm *sm, Warp *w, Split *s)
{
    Block *b = &sm->blocks[w->block];
    switch (s->wait) {
    case WAIT_MBAR: {
        MBarrier *m = &b->mbars[s->wait_obj];
        g_autofree char *what = sm_describe_mbar(sm, w->block, s->wait_obj);
        if (!m->valid) {
            return g_strdup_printf("%s, which is not initialised", what);
        }
        return g_strdup_printf("%s to complete phase %" G_GUINT64_FORMAT " (%s %" G_GUINT64_FORMAT "): %"
                               G_GINT64_FORMAT " of %" G_GINT64_FORMAT " arrivals still missing%s", what, m->phase,
                               s->wait_token ? "token of phase" : "parity", s->wait_value, m->pending, m->expected,
                               m->tx != 0 ? ", transaction bytes outstanding" : "");
    }
    case WAIT_BLOCK_BAR:
        return g_strdup_printf("__syncthreads: %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " live threads arrived",
                               b->bar.arrived, b->bar.expected);
    case WAIT_COLLECTIVE: {
        Pipe *p = &b->pipes[s->wait_obj];
        return g_strdup_printf("make_pipeline's group sync: %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT
                               " live threads arrived", p->arrived, b->live_threads);
    }
    case WAIT_SYNCWARP:
        return g_strdup_printf("__syncwarp: lanes arrived 0x%08x of 0x%08x", w->syncwarp_arrived, w->live);
    case WAIT_CL_GROUP:
        return g_strdup_printf("the work-group pipe function: %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT
                               " work-items arrived", b->cl_arrived, b->threads);
    case WAIT_NONE:
        break;
    }
    return g_strdup("nothing");
}

/* sm_internal.h. */
void sm_deadlock_error(Sm *sm, GError **error)
{
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "deadlock at cycle %" G_GUINT64_FORMAT ": %" G_GINT64_FORMAT
                           " warp(s) still have live threads and nothing pending can wake them",
                           sm->engine.now, sm->live_warps);
    const Trace *t = sm->prog->trace;
    int shown = 0;
    for (int32_t i = 0; i < sm->nwarps && shown < 24; i++) {
        Warp *w = &sm->warps[i];
        if (w->live == 0) {
            continue;
        }
        for (int k = 0; k < MAX_SPLITS; k++) {
            Split *sp = &w->split[k];
            if (sp->status == SPLIT_FREE) {
                continue;
            }
            /* A thread in make_pipeline's group sync has moved past the
             * call (it resumes after it): name the make_pipeline. */
            int32_t pc = sp->status == SPLIT_BLOCKED && sp->wait == WAIT_COLLECTIVE
                             ? sm->blocks[w->block].pipes[sp->wait_obj].make_op
                             : sp->pc;
            const Op *op = &g_array_index(sm->prog->ops, Op, pc);
            g_autofree char *lanes = sm_describe_lanes(w, sp->mask);
            g_autofree char *wait = sp->status == SPLIT_BLOCKED ? describe_wait(sm, w, sp) : NULL;
            const char *line = op->loc.line >= 1 && op->loc.line <= t->lines->len
                                   ? g_ptr_array_index(t->lines, op->loc.line - 1) : "";
            g_autofree char *text = g_strstrip(g_strdup(line));
            g_string_append_printf(s, "\n  %s: %s at %s:%u (%s): %s\n      %s", lanes, status_word(sp->status),
                                   t->path, op->loc.line, op_code_name(op->code),
                                   wait ? wait : sp->status == SPLIT_PARKED ? "waits for the other side of its branch"
                                                                           : "ready",
                                   text);
            shown++;
        }
    }
    if (shown >= 24) {
        g_string_append(s, "\n  ...");
    }
    g_set_error_literal(error, SIM_ERROR, SIM_ERROR_PROGRAM, s->str);
    g_string_free(s, TRUE);
}
