/* runner.c: one simulation from a parsed trace. */
#include "sim/drivers/runner.h"

#include <errno.h>
#include <string.h>

bool sim_split_sets(const GPtrArray *sets, GArray *params, GPtrArray *arch_sets, GError **error)
{
    for (guint i = 0; sets != NULL && i < sets->len; i++) {
        const char *s = g_ptr_array_index(sets, i);
        /* Assignments are quoted in messages and parameter names printed
         * in reports: printable ASCII only. */
        for (const char *c = s; *c != '\0'; c++) {
            if (!(*c >= 0x20 && *c < 0x7f)) {
                g_autofree char *shown = g_strdup(s);
                g_strcanon(shown, " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
                           "abcdefghijklmnopqrstuvwxyz{|}~", '?');
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--set %s: holds a byte that is not printable ASCII",
                            shown);
                return false;
            }
        }
        const char *eq = strchr(s, '=');
        if (eq == NULL || eq == s) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--set %s: expected NAME=VALUE", s);
            return false;
        }
        g_autofree char *name = g_strndup(s, eq - s);
        if (strchr(name, '.') != NULL) {
            g_ptr_array_add(arch_sets, (gpointer) s);
            continue;
        }
        char *end = NULL;
        errno = 0;
        long long v = strtoll(eq + 1, &end, 0);
        if (eq[1] == 'x') {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--set %s: relative values (xFACTOR) apply to architecture"
                        " keys; trace parameters take integers", s);
            return false;
        }
        if (errno != 0 || end == eq + 1 || *end != '\0') {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--set %s: trace parameters take integers", s);
            return false;
        }
        /* The name is a borrowed pointer into sets' string: keep one copy
         * alive by storing the pointer right after the '=' split. */
        ProgParamOverride o = { NULL, (int64_t) v };
        g_array_append_val(params, o);
        g_array_index(params, ProgParamOverride, params->len - 1).name = g_intern_string(name);
    }
    return true;
}

/* The assignment of sets (char*) that sets KEY ("section.key="), or NULL. */
static const char *set_of(const GPtrArray *sets, const char *key)
{
    for (guint i = 0; i < sets->len; i++) {
        if (g_str_has_prefix(g_ptr_array_index(sets, i), key)) {
            return g_ptr_array_index(sets, i);
        }
    }
    return NULL;
}

int64_t sim_grid_blocks(const ArchParams *a)
{
    return a->grid > 0 ? a->grid : a->blocks;
}

bool sim_resolve_launch(ArchParams *a, GPtrArray *arch_sets, GError **error)
{
    if (a->grid == 0) {
        return true;
    }
    if (a->grid < a->blocks) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "launch.grid=%" G_GINT64_FORMAT " is smaller than the %"
                    G_GINT64_FORMAT " blocks resident on the simulated SM (sm.blocks)", a->grid, a->blocks);
        return false;
    }
    /* The other SMs run the same kernel on their own blocks at the same
     * time, so they share L2 and DRAM: as many SMs as the grid fills, at
     * most the chip's, unless --set mem.active_sms said otherwise. */
    if (set_of(arch_sets, "mem.active_sms=") != NULL) {
        return true;
    }
    int64_t busy = MIN(a->sms, (a->grid + a->blocks - 1) / a->blocks);
    if (busy != a->active_sms) {
        a->active_sms = busy;
        g_ptr_array_add(arch_sets, g_strdup_printf("mem.active_sms=%" G_GINT64_FORMAT, busy));
    }
    return true;
}

/* Whether the trace has a `grid` declaration. */
static bool trace_declares_grid(const Trace *t)
{
    for (guint i = 0; i < t->decls->len; i++) {
        if (((const Decl *) g_ptr_array_index(t->decls, i))->kind == DECL_GRID) {
            return true;
        }
    }
    return false;
}

bool sim_run_program(const Trace *t, const SimRunOptions *o, SimRun *out, GError **error)
{
    memset(out, 0, sizeof *out);
    out->arch_sets = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GArray) params = g_array_new(FALSE, FALSE, sizeof(ProgParamOverride));
    g_autoptr(GPtrArray) arch_sets = g_ptr_array_new();
    if (!sim_split_sets(o->sets, params, arch_sets, error)) {
        return false;
    }
    for (guint i = 0; i < arch_sets->len; i++) {
        g_ptr_array_add(out->arch_sets, g_strdup(g_ptr_array_index(arch_sets, i)));
    }
    if (!arch_load(o->arch ? o->arch : SIM_DEFAULT_ARCH, arch_sets, &out->arch, error)) {
        return false;
    }
    /* A trace that needs several resident blocks (producer and consumer
     * work-groups) says so with `param blocks = N`.  An explicit --set
     * sm.blocks must agree with it. */
    int64_t want;
    if (program_peek_param(t, params, "blocks", &want) && want != out->arch.blocks) {
        const char *given = set_of(arch_sets, "sm.blocks=");
        if (given != NULL) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: --set %s disagrees with the trace's parameter"
                        " blocks=%" G_GINT64_FORMAT " (set blocks=N instead)", t->path, given, want);
            return false;
        }
        if (want < 1 || want > 64) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: parameter blocks=%" G_GINT64_FORMAT " asks for 1 to 64"
                        " resident blocks", t->path, want);
            return false;
        }
        out->arch.blocks = want;
        g_ptr_array_add(out->arch_sets, g_strdup_printf("sm.blocks=%" G_GINT64_FORMAT, want));
    }
    /* A trace that declares `grid X, Y, Z` runs X * Y * Z resident blocks
     * unless sm.blocks or the parameter blocks says how many. */
    bool blocks_set = program_peek_param(t, params, "blocks", &want) || set_of(arch_sets, "sm.blocks=") != NULL;
    if (!blocks_set && trace_declares_grid(t)) {
        g_autoptr(Program) peek = program_new(t, params, out->arch.blocks, NULL);
        int64_t n = peek != NULL && peek->grid_declared ? peek->grid_dim[0] * peek->grid_dim[1] * peek->grid_dim[2] : 0;
        if (n >= 1 && n <= 64 && n != out->arch.blocks) {
            out->arch.blocks = n;
            g_ptr_array_add(out->arch_sets, g_strdup_printf("sm.blocks=%" G_GINT64_FORMAT, n));
        }
    }
    if (!sim_resolve_launch(&out->arch, out->arch_sets, error)) {
        return false;
    }
    out->prog = program_new(t, params, sim_grid_blocks(&out->arch), error);
    if (out->prog == NULL) {
        return false;
    }
    sm_arch_for_program(out->prog, &out->arch);
    return true;
}

bool sim_run_prepare(const Trace *t, const SimRunOptions *o, SimRun *out, GError **error)
{
    if (!sim_run_program(t, o, out, error)) {
        return false;
    }
    const Program *p = out->prog;
    int64_t grid = p->grid_dim[0] * p->grid_dim[1] * p->grid_dim[2];
    if (p->grid_declared && grid != out->arch.blocks) {
        trace_set_error(error, SIM_ERROR_INPUT, t, p->grid_loc,
                        "the grid has %" G_GINT64_FORMAT " blocks (%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT " x %"
                        G_GINT64_FORMAT ") but the SM runs %" G_GINT64_FORMAT " (sm.blocks): leave sm.blocks and the"
                        " parameter blocks unset, or make them %" G_GINT64_FORMAT, grid, p->grid_dim[0],
                        p->grid_dim[1], p->grid_dim[2], out->arch.blocks, grid);
        return false;
    }
    out->sm = sm_new(out->prog, &out->arch, &o->sm, error);
    return out->sm != NULL;
}

bool sim_run_trace(const Trace *t, const SimRunOptions *o, SimRun *out, GError **error)
{
    if (!sim_run_prepare(t, o, out, error)) {
        return false;
    }
    return sm_run(out->sm, error);
}

void sim_run_clear(SimRun *r)
{
    sm_free(r->sm);
    program_free(r->prog);
    if (r->arch_sets) {
        g_ptr_array_free(r->arch_sets, TRUE);
    }
    memset(r, 0, sizeof *r);
}

bool sim_launch_estimate(const Trace *t, const SimRunOptions *o, const SimRun *run, SimLaunch *out, GError **error)
{
    memset(out, 0, sizeof *out);
    const ArchParams *a = &run->arch;
    if (a->grid == 0) {
        return true;
    }
    out->grid = a->grid;
    out->per_wave = a->sms * a->blocks;
    out->full_waves = a->grid / out->per_wave;
    out->wave_cycles = run->sm != NULL ? sm_stats(run->sm)->cycles : 0;
    out->tail_blocks = a->grid % out->per_wave;
    if (out->tail_blocks > 0) {
        /* The block scheduler fills SMs breadth first: one block on each SM,
         * then a second... A trace that needs its blocks together says
         * `param blocks` and keeps them. */
        g_autoptr(GArray) none = g_array_new(FALSE, FALSE, sizeof(ProgParamOverride));
        int64_t fixed;
        out->tail_per_sm = program_peek_param(t, none, "blocks", &fixed)
                               ? a->blocks : (out->tail_blocks + a->sms - 1) / a->sms;
        out->tail_sms = MIN(a->sms, (out->tail_blocks + out->tail_per_sm - 1) / out->tail_per_sm);
        g_autoptr(GPtrArray) sets = g_ptr_array_new_with_free_func(g_free);
        for (guint i = 0; o->sets != NULL && i < o->sets->len; i++) {
            const char *s = g_ptr_array_index(o->sets, i);
            if (!g_str_has_prefix(s, "sm.blocks=") && !g_str_has_prefix(s, "launch.grid=") &&
                !g_str_has_prefix(s, "mem.active_sms=")) {
                g_ptr_array_add(sets, g_strdup(s));
            }
        }
        if (out->tail_per_sm != a->blocks) {
            g_ptr_array_add(sets, g_strdup_printf("sm.blocks=%" G_GINT64_FORMAT, out->tail_per_sm));
        }
        g_ptr_array_add(sets, g_strdup_printf("launch.grid=%" G_GINT64_FORMAT, out->tail_blocks));
        SimRunOptions to = *o;
        to.sets = sets;
        to.sm.timeline = NULL;
        SimRun tail;
        bool ok = sim_run_trace(t, &to, &tail, error);
        if (ok) {
            out->tail_cycles = sm_stats(tail.sm)->cycles;
        } else {
            g_prefix_error(error, "the launch's tail wave (%" G_GINT64_FORMAT " blocks, %" G_GINT64_FORMAT
                           " per SM): ", out->tail_blocks, out->tail_per_sm);
        }
        sim_run_clear(&tail);
        if (!ok) {
            return false;
        }
    }
    out->cycles = (uint64_t) out->full_waves * out->wave_cycles + out->tail_cycles;
    out->overhead_us = a->launch_overhead_us;
    out->us = (double) out->cycles / a->clock_mhz + out->overhead_us;
    return true;
}
