/* report.c: text, JSON and CSV renderings of SimStats.  Nothing is printed
 * in hash-table order, so the same statistics always give the same bytes. */
#include "sim/out/report.h"

#include "sim/out/csv.h"
#include "sim/out/jsonw.h"

#include <errno.h>
#include <math.h>

double report_hidden_fraction(const SimStats *s)
{
    if (s->copy_busy == 0) {
        return 1.0;
    }
    return (double) s->both_busy / (double) s->copy_busy;
}

uint64_t report_exposed_cycles(const SimStats *s)
{
    return s->copy_busy >= s->both_busy ? s->copy_busy - s->both_busy : 0;
}

static uint64_t total_warp_cycles(const SimStats *s)
{
    uint64_t t = 0;
    for (int k = 0; k < WS__COUNT; k++) {
        t += s->state_total[k];
    }
    return t;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double) part / (double) whole : 0.0;
}

/* States ordered by warp-cycles, largest first (ties by enum order). */
static void sorted_row(const uint64_t *row, int order[WS__COUNT])
{
    for (int i = 0; i < WS__COUNT; i++) {
        order[i] = i;
    }
    for (int i = 1; i < WS__COUNT; i++) {
        int k = order[i];
        int j = i;
        while (j > 0 && row[order[j - 1]] < row[k]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
}

static void sorted_states(const SimStats *s, int order[WS__COUNT])
{
    sorted_row(s->state_total, order);
}

ReportBound report_bound(const uint64_t states[WS__COUNT], SimWarpState *top_state)
{
    uint64_t total = 0;
    for (int k = 0; k < WS__COUNT; k++) {
        total += k == WS_EXITED ? 0 : states[k];
    }
    *top_state = WS_EXITED;
    if (total == 0) {
        return BOUND_NOTHING;
    }
    int order[WS__COUNT];
    sorted_row(states, order);
    int top = order[0] == WS_EXITED ? order[1] : order[0];
    *top_state = (SimWarpState) top;
    uint64_t copy_wait = states[WS_CONSUMER_WAIT] + states[WS_ASYNC_WAIT];
    switch (top) {
    case WS_CONSUMER_WAIT:
    case WS_ASYNC_WAIT:
        return pct(copy_wait, total) >= 15.0 ? BOUND_COPY_LATENCY : BOUND_COMPUTE;
    case WS_COPY_THROTTLE:
        return BOUND_COPY_BANDWIDTH;
    case WS_PRODUCER_ACQUIRE:
        return BOUND_CONSUMER;
    case WS_BLOCK_BARRIER:
    case WS_MBARRIER:
        return BOUND_SYNC;
    case WS_BANK_CONFLICT:
    case WS_MIO_THROTTLE:
        return BOUND_SMEM;
    case WS_MEMORY:
        return BOUND_MEMORY;
    case WS_DIVERGENT:
        return BOUND_DIVERGENCE;
    default:
        return BOUND_COMPUTE;
    }
}

char *report_verdict(const SimStats *s)
{
    uint64_t total = total_warp_cycles(s) - s->state_total[WS_EXITED];
    SimWarpState top;
    ReportBound bound = report_bound(s->state_total, &top);
    if (bound == BOUND_NOTHING) {
        return g_strdup("nothing ran");
    }
    double f = pct(s->state_total[top], total);
    uint64_t compute = s->state_total[WS_ISSUING] + s->state_total[WS_DEPENDENCY] +
                       s->state_total[WS_MATH_THROTTLE] + s->state_total[WS_NOT_SELECTED];
    uint64_t copy_wait = s->state_total[WS_CONSUMER_WAIT] + s->state_total[WS_ASYNC_WAIT];
    if (bound == BOUND_COPY_LATENCY) {
        /* How many more stages would cover the exposed latency: each extra
         * stage starts its copies one consume-time earlier. */
        double consume = 0.0, exposed = 0.0;
        for (guint i = 0; i < s->stages->len; i++) {
            const SimStageStats *st = g_ptr_array_index(s->stages, i);
            consume = MAX(consume, sim_dist_mean(&st->step[STAGE_STEP_CONSUME]));
            if (st->instances > 0 && s->warps > 0) {
                exposed = MAX(exposed, (double) st->exposed.sum / (double) st->instances / (double) s->warps);
            }
        }
        if (consume <= 0.0) {
            /* Thread-scope pipelines: estimate from the share of time. */
            double w = (double) copy_wait / (double) total;
            consume = 1.0;
            exposed = w / MAX(1e-9, 1.0 - w);
        } else if (exposed < 0.05 * consume) {
            /* Every stage was ready (nearly) before its wait began: the
             * waiting is the wait call itself, which no stage count hides. */
            return g_strdup_printf("wait-overhead bound: %.0f%% of warp-cycles are in consumer_wait, but the stages were"
                                   " ready before their waits (%.0f cycles exposed per stage and warp): the time is"
                                   " the wait call itself, so more stages will not help",
                                   pct(copy_wait, total), exposed);
        }
        int more = (int) ceil(exposed / MAX(consume, 1.0) - 1e-9);
        if (more < 1) {
            more = 1;
        }
        return g_strdup_printf("copy-latency bound: %.0f%% of warp-cycles wait in %s; about %d more stage%s would hide it",
                               pct(copy_wait, total), top == WS_CONSUMER_WAIT ? "consumer_wait" : "cp.async.wait_group",
                               more, more == 1 ? "" : "s");
    }
    if (bound == BOUND_COPY_BANDWIDTH) {
        return g_strdup_printf("copy-bandwidth bound: %.0f%% of warp-cycles wait for room in the copy path; more stages"
                               " will not help", f);
    }
    if (bound == BOUND_CONSUMER) {
        return g_strdup_printf("consumer bound: %.0f%% of warp-cycles wait in producer_acquire for a free stage; the"
                               " consumers' work sets the pace, so more stages will not help", f);
    }
    if (bound == BOUND_SYNC) {
        return g_strdup_printf("synchronisation bound: %.0f%% of warp-cycles wait at %s", f,
                               top == WS_MBARRIER         ? "cuda::barrier phases"
                               : s->cl_pipes->len > 0 ? "block barriers and work-group pipe functions"
                                                      : "block barriers");
    }
    if (bound == BOUND_SMEM) {
        return g_strdup_printf("shared-memory bound: %.0f%% of warp-cycles %s", f,
                               top == WS_MIO_THROTTLE ? "wait for the warp's path to shared memory"
                                                      : "replay bank conflicts");
    }
    if (bound == BOUND_MEMORY) {
        return g_strdup_printf("memory-latency bound: %.0f%% of warp-cycles wait for global memory (loads or"
                               " synchronous copies)", f);
    }
    if (bound == BOUND_DIVERGENCE) {
        return g_strdup_printf("divergence bound: %.0f%% of warp-cycles wait for the other side of a branch", f);
    }
    return g_strdup_printf("compute bound: %.0f%% of warp-cycles issue, wait on instruction latency or for the"
                           " scheduler", pct(compute, total));
}

static void fmt_cycles(GString *out, const char *label, uint64_t v, const char *unit, const char *note)
{
    g_string_append_printf(out, "  %-28s %14" G_GUINT64_FORMAT " %-14s%s\n", label, v, unit, note ? note : "");
}

static void dist_line(GString *out, const char *label, const SimDist *d, const char *unit)
{
    if (d->count == 0) {
        g_string_append_printf(out, "    %-10s %10s\n", label, "-");
        return;
    }
    g_string_append_printf(out, "    %-10s %10.1f %10" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT " %10"
                           G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT "   %s\n", label, sim_dist_mean(d), d->min,
                           sim_dist_quantile(d, 0.5), sim_dist_quantile(d, 0.9), d->max, unit);
}

static uint64_t occupancy_total(const SimStageStats *st)
{
    uint64_t t = 0;
    for (int64_t k = 0; k <= st->stages; k++) {
        t += st->occupancy[k];
    }
    return t;
}

static double occupancy_mean(const SimStageStats *st)
{
    uint64_t t = occupancy_total(st);
    double sum = 0;
    for (int64_t k = 0; k <= st->stages; k++) {
        sum += (double) k * (double) st->occupancy[k];
    }
    return t ? sum / (double) t : 0.0;
}

static double cl_mean(const SimClPipeStats *p)
{
    return p->total_cycles ? (double) p->occupancy_sum / (double) p->total_cycles : 0.0;
}

/* The smallest occupancy histogram bin k holds (see SimClPipeStats.bins). */
static int64_t cl_bin_low(const SimClPipeStats *p, int64_t k)
{
    return (k * p->capacity + p->nbins - 2) / (p->nbins - 1);
}

static void cl_pipe_text(GString *out, const SimClPipeStats *p)
{
    static const char *dirs[2] = { "read", "write" };
    g_string_append_printf(out, "\nOpenCL pipe '%s': %" G_GINT64_FORMAT " packets of %" G_GINT64_FORMAT " bytes\n",
                           p->name, p->capacity, p->packet_bytes);
    g_string_append_printf(out, "    %-10s %12s %12s %12s %12s %14s\n", "direction", "reserved", "failed", "retries",
                           "packets", "bytes");
    for (int d = 1; d >= 0; d--) {
        g_string_append_printf(out, "    %-10s %12" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT
                               " %12" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT "\n", dirs[d], p->reservations[d],
                               p->failures[d], p->retries[d], p->packets[d],
                               p->packets[d] * (uint64_t) p->packet_bytes);
    }
    g_string_append_printf(out, "    header atomics %" G_GUINT64_FORMAT "; unwritten packets read %" G_GUINT64_FORMAT
                           "\n", p->atomics, p->unwritten_reads);
    g_string_append_printf(out, "    slots in use: mean %.2f, peak %" G_GINT64_FORMAT "; full %.1f%%, empty %.1f%% of"
                           " the time\n", cl_mean(p), p->peak, pct(p->full_cycles, p->total_cycles),
                           pct(p->empty_cycles, p->total_cycles));
    g_string_append(out, "    histogram (slots in use: share of time; empty ranges left out):");
    for (int64_t k = 0; k < p->nbins; k++) {
        if (p->bins[k] == 0) {
            continue;
        }
        int64_t lo = cl_bin_low(p, k), hi = k + 1 < p->nbins ? cl_bin_low(p, k + 1) - 1 : p->capacity;
        if (lo == hi) {
            g_string_append_printf(out, " %" G_GINT64_FORMAT ":%.0f%%", lo, pct(p->bins[k], p->total_cycles));
        } else {
            g_string_append_printf(out, " %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT ":%.0f%%", lo, hi,
                                   pct(p->bins[k], p->total_cycles));
        }
    }
    g_string_append_c(out, '\n');
}

/* Whether a memcpy_async copied in a direction other than global to
 * shared: the by-direction statistics are shown then (every bundled trace
 * copies global to shared only, and its report stays as it was). */
static bool other_directions(const SimStats *s)
{
    for (int d = 0; d < SIM_DIR__COUNT; d++) {
        if (d != SIM_DIR_GLOBAL_TO_SHARED && s->dir_calls[d] > 0) {
            return true;
        }
    }
    return false;
}

static double achieved_bpc(const SimStats *s)
{
    return s->cycles ? (double) (s->cp_async_bytes + s->bulk_bytes + s->sync_bytes) / (double) s->cycles : 0.0;
}

/* Removes the spaces that column padding leaves before line ends, from
 * byte `from` of out on. */
static void trim_line_ends(GString *out, gsize from)
{
    gsize w = from;
    for (gsize r = from; r < out->len; r++) {
        if (out->str[r] == '\n') {
            while (w > from && out->str[w - 1] == ' ') {
                w--;
            }
        }
        out->str[w++] = out->str[r];
    }
    g_string_truncate(out, w);
}

static void text_by_line(const SimStats *s, const ReportInfo *info, GString *out);

void report_text(const SimStats *s, const ReportInfo *info, ReportBy by, GString *out)
{
    gsize start = out->len;
    uint64_t total = total_warp_cycles(s);
    double us = info->clock_mhz > 0 ? (double) s->cycles / info->clock_mhz : 0.0;
    g_autofree char *verdict = report_verdict(s);
    g_string_append_printf(out, "%s on %s", info->trace, info->arch);
    for (guint i = 0; i < info->param_names->len; i++) {
        g_string_append_printf(out, "%s%s=%" G_GINT64_FORMAT, i ? " " : " (",
                               (const char *) g_ptr_array_index(info->param_names, i),
                               g_array_index(info->param_values, int64_t, i));
        if (i + 1 == info->param_names->len) {
            g_string_append_c(out, ')');
        }
    }
    g_string_append_c(out, '\n');
    for (guint i = 0; info->arch_sets && i < info->arch_sets->len; i++) {
        g_string_append_printf(out, "  with %s\n", (const char *) g_ptr_array_index(info->arch_sets, i));
    }
    g_string_append_printf(out, "\n  %-28s %14" G_GUINT64_FORMAT " %-14s(%.2f us at %.0f MHz)\n", "cycles", s->cycles,
                           "cycles", us, info->clock_mhz);
    g_string_append_printf(out, "  %-28s %14" G_GINT64_FORMAT " %-14s(%" G_GINT64_FORMAT " block%s x %" G_GINT64_FORMAT
                           " threads)\n", "warps", s->warps, "warps", s->blocks, s->blocks == 1 ? "" : "s",
                           s->threads_per_block);
    fmt_cycles(out, "instructions", s->instructions, "warp-instr", NULL);
    g_string_append_printf(out, "  verdict: %s\n", verdict);
    const SimLaunch *L = info->launch;
    if (L != NULL && L->grid > 0) {
        g_string_append_printf(out, "\nwhole launch (launch.grid = %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                               " blocks a wave)\n", L->grid, L->per_wave);
        g_string_append_printf(out, "  %-28s %14" G_GINT64_FORMAT " %-14s(%" G_GUINT64_FORMAT " cycles each)\n",
                               "full waves", L->full_waves, "waves", L->wave_cycles);
        if (L->tail_blocks > 0) {
            g_string_append_printf(out, "  %-28s %14" G_GUINT64_FORMAT " %-14s(%" G_GINT64_FORMAT " blocks, %"
                                   G_GINT64_FORMAT " SMs busy, at most %" G_GINT64_FORMAT " blocks on one)\n", "tail wave",
                                   L->tail_cycles, "cycles", L->tail_blocks, L->tail_sms, L->tail_per_sm);
        }
        g_string_append_printf(out, "  %-28s %14" G_GUINT64_FORMAT " %-14s(%.2f us at %.0f MHz)\n", "waves",
                               L->cycles, "cycles", L->us - L->overhead_us, info->clock_mhz);
        g_string_append_printf(out, "  %-28s %14.2f %-14s(waves plus %.2f us of launch overhead)\n", "launch", L->us,
                               "us", L->overhead_us);
    }

    int order[WS__COUNT];
    sorted_states(s, order);
    g_string_append_printf(out, "\nwhere the warp-cycles went (%" G_GUINT64_FORMAT " = %" G_GINT64_FORMAT
                           " warps x %" G_GUINT64_FORMAT " cycles)\n", total, s->warps, s->cycles);
    g_string_append_printf(out, "  %-18s %8s %16s   %s\n", "state", "share", "warp-cycles", "Nsight Compute");
    for (int i = 0; i < WS__COUNT; i++) {
        int k = order[i];
        if (s->state_total[k] == 0) {
            continue;
        }
        g_string_append_printf(out, "  %-18s %7.1f%% %16" G_GUINT64_FORMAT "   %s\n", sim_warp_state_name(k),
                               pct(s->state_total[k], total), s->state_total[k], sim_warp_state_nsight(k));
    }

    g_string_append(out, "\noverlap of copies and compute\n");
    fmt_cycles(out, "copy path busy", s->copy_busy, "cycles", NULL);
    fmt_cycles(out, "compute issuing", s->compute_busy, "cycles", NULL);
    fmt_cycles(out, "both", s->both_busy, "cycles", NULL);
    g_string_append_printf(out, "  %-28s %14.3f %-14s\n", "hidden copy fraction", report_hidden_fraction(s), "(0..1)");
    fmt_cycles(out, "exposed copy time", report_exposed_cycles(s), "cycles", " (copies in flight, nothing computing)");

    for (guint i = 0; i < s->stages->len; i++) {
        const SimStageStats *st = g_ptr_array_index(s->stages, i);
        uint64_t ot = occupancy_total(st);
        g_string_append_printf(out, "\npipeline '%s': %" G_GINT64_FORMAT " stages, %" G_GUINT64_FORMAT
                               " stage instances\n", st->name, st->stages, st->instances);
        g_string_append_printf(out, "    %-10s %10s %10s %10s %10s %10s\n", "step", "mean", "min", "p50", "p90", "max");
        for (int k = 0; k < STAGE_STEP__COUNT; k++) {
            dist_line(out, sim_stage_step_name(k), &st->step[k], "cycles");
        }
        dist_line(out, "exposed", &st->exposed, "warp-cycles (summed over the warps)");
        g_string_append_printf(out, "    stages in flight: mean %.2f; full %.1f%%, empty %.1f%% of the time\n",
                               occupancy_mean(st), pct(st->occupancy[st->stages], ot), pct(st->occupancy[0], ot));
        g_string_append(out, "    histogram:");
        for (int64_t k = 0; k <= st->stages && k <= 16; k++) {
            g_string_append_printf(out, " %" G_GINT64_FORMAT ":%.0f%%", k, pct(st->occupancy[k], ot));
        }
        g_string_append_c(out, '\n');
    }

    for (guint i = 0; i < s->cl_pipes->len; i++) {
        cl_pipe_text(out, g_ptr_array_index(s->cl_pipes, i));
    }

    g_string_append(out, "\ncopies\n");
    fmt_cycles(out, "cp.async (LDGSTS) bytes", s->cp_async_bytes, "bytes", NULL);
    fmt_cycles(out, "cp.async instructions", s->cp_async_instructions, "warp-instr", NULL);
    fmt_cycles(out, "cp.async line requests", s->cp_async_lines, "requests", NULL);
    fmt_cycles(out, "bulk copy (TMA) bytes", s->bulk_bytes, "bytes", NULL);
    fmt_cycles(out, "synchronous fallback bytes", s->sync_bytes, "bytes", NULL);
    g_string_append_printf(out, "  %-28s %14.2f %-14s(peak %.1f B/cycle, SM-to-L2 link)\n", "achieved copy rate",
                           achieved_bpc(s), "B/cycle", s->peak_bytes_per_clk);
    fmt_cycles(out, "throttled (copy path full)", s->throttled_cycles, "warp-cycles", NULL);
    if (other_directions(s)) {
        g_string_append(out, "\ncopies by direction (memcpy_async)\n");
        g_string_append_printf(out, "  %-20s %10s %14s %14s\n", "direction", "calls", "bytes", "synchronous");
        for (int d = 0; d < SIM_DIR__COUNT; d++) {
            static const char *const label[SIM_DIR__COUNT] = { "global -> shared", "shared -> shared",
                                                               "shared -> global", "global -> global" };
            g_string_append_printf(out, "  %-20s %10" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT
                                   "\n", label[d], s->dir_calls[d], s->dir_bytes[d], s->dir_sync_bytes[d]);
        }
    }

    g_string_append(out, "\nmemory path\n");
    fmt_cycles(out, "L1 hits", s->l1_hits, "requests", NULL);
    fmt_cycles(out, "L2 hits", s->l2_hits, "requests", NULL);
    fmt_cycles(out, "L2 misses (DRAM)", s->l2_misses, "requests", NULL);
    fmt_cycles(out, "bytes from DRAM", s->bytes_dram, "bytes", NULL);
    fmt_cycles(out, "bytes written", s->bytes_written, "bytes", NULL);
    fmt_cycles(out, "written back to DRAM", s->bytes_written_back, "bytes", NULL);

    g_string_append(out, "\nshared memory\n");
    fmt_cycles(out, "warp accesses", s->smem_accesses, "accesses", NULL);
    fmt_cycles(out, "wavefronts (port cycles)", s->smem_wavefronts, "cycles", NULL);
    fmt_cycles(out, "conflict-free would be", s->smem_ideal_wavefronts, "cycles", NULL);
    fmt_cycles(out, "accesses with conflicts", s->smem_conflict_accesses, "accesses", NULL);
    fmt_cycles(out, "worst conflict degree", s->smem_max_degree, "ways", NULL);
    fmt_cycles(out, "async-copy fill cycles", s->smem_fill_wavefronts, "cycles", NULL);

    g_string_append(out, "\nbarriers\n");
    fmt_cycles(out, "__syncthreads completed", s->syncthreads, "barriers", NULL);
    fmt_cycles(out, "block-barrier waiting", s->state_total[WS_BLOCK_BARRIER], "warp-cycles", NULL);
    fmt_cycles(out, "mbarrier phases completed", s->mbar_phases, "phases", NULL);
    fmt_cycles(out, "mbarrier waits that blocked", s->mbar_waits, "waits", NULL);

    if (by == REPORT_BY_LINE && s->line_state != NULL) {
        text_by_line(s, info, out);
    } else if (by == REPORT_BY_WARP) {
        g_string_append(out, "\nby warp (warp-cycles)\n  warp ");
        for (int k = 0; k < WS__COUNT; k++) {
            g_string_append_printf(out, " %14s", sim_warp_state_name(k));
        }
        g_string_append_c(out, '\n');
        for (int64_t w = 0; w < s->warps; w++) {
            g_string_append_printf(out, "  %4" G_GINT64_FORMAT " ", w);
            for (int k = 0; k < WS__COUNT; k++) {
                g_string_append_printf(out, " %14" G_GUINT64_FORMAT, s->warp_state[w * WS__COUNT + k]);
            }
            g_string_append_c(out, '\n');
        }
    } else if (by == REPORT_BY_ROLE) {
        g_string_append(out, "\nby role of the running threads (warp-cycles)\n  role     ");
        for (int k = 0; k < WS__COUNT; k++) {
            g_string_append_printf(out, " %14s", sim_warp_state_name(k));
        }
        g_string_append_c(out, '\n');
        for (int r = 0; r < ROLE__COUNT; r++) {
            uint64_t sum = 0;
            for (int k = 0; k < WS__COUNT; k++) {
                sum += s->role_state[r][k];
            }
            if (sum == 0) {
                continue;
            }
            g_string_append_printf(out, "  %-9s", sim_role_name(r));
            for (int k = 0; k < WS__COUNT; k++) {
                g_string_append_printf(out, " %14" G_GUINT64_FORMAT, s->role_state[r][k]);
            }
            g_string_append_c(out, '\n');
        }
    }
    if (s->warnings->len > 0) {
        g_string_append(out, "\nwarnings\n");
        for (guint i = 0; i < s->warnings->len; i++) {
            g_string_append_printf(out, "  %s\n", (const char *) g_ptr_array_index(s->warnings, i));
        }
    }
    trim_line_ends(out, start);
}

static void json_dist(JsonW *j, const char *key, const SimDist *d)
{
    jsonw_key(j, key);
    jsonw_begin_object(j);
    jsonw_key(j, "count");
    jsonw_uint(j, d->count);
    jsonw_key(j, "mean");
    jsonw_double(j, sim_dist_mean(d));
    jsonw_key(j, "min");
    jsonw_uint(j, d->count ? d->min : 0);
    jsonw_key(j, "p50");
    jsonw_uint(j, sim_dist_quantile(d, 0.5));
    jsonw_key(j, "p90");
    jsonw_uint(j, sim_dist_quantile(d, 0.9));
    jsonw_key(j, "max");
    jsonw_uint(j, d->max);
    jsonw_end_object(j);
}

/* The source text of trace line `line` (1-based), or "". */
static const char *source_line(const ReportInfo *info, int64_t line)
{
    if (info->source == NULL || line < 1 || line > (int64_t) info->source->len) {
        return "";
    }
    return g_ptr_array_index(info->source, line - 1);
}

static uint64_t row_sum(const uint64_t *row)
{
    uint64_t sum = 0;
    for (int k = 0; k < WS__COUNT; k++) {
        sum += row[k];
    }
    return sum;
}

/* The three largest states of a row of warp-cycles (sum > 0), with their
 * shares: "consumer_wait 80%, issuing 15%, ...".  Returns a new string. */
static GString *top_states(const uint64_t *row, uint64_t sum)
{
    GString *top = g_string_new(NULL);
    bool used[WS__COUNT] = { false };
    for (int n = 0; n < 3; n++) {
        int best = -1;
        for (int k = 0; k < WS__COUNT; k++) {
            if (!used[k] && row[k] > 0 && (best < 0 || row[k] > row[best])) {
                best = k;
            }
        }
        if (best < 0) {
            break;
        }
        used[best] = true;
        g_string_append_printf(top, "%s%s %.0f%%", n ? ", " : "", sim_warp_state_name(best),
                               100.0 * (double) row[best] / (double) sum);
    }
    return top;
}

/* Line l's warp-cycles on stage slot k (a row of WS__COUNT), or NULL when
 * the line is no pipeline call or never was at that stage. */
static const uint64_t *stage_row(const SimStats *s, int64_t l, int64_t k)
{
    if (s->line_stage == NULL || s->line_stage[l] == NULL) {
        return NULL;
    }
    const uint64_t *row = &s->line_stage[l][k * WS__COUNT];
    return row_sum(row) > 0 ? row : NULL;
}

/* --by line: one row per trace line with warp-cycles, in line order: its
 * total, share of all warp-cycles, its three largest states and its text;
 * under a pipeline call, a row per stage it worked on. */
static void text_by_line(const SimStats *s, const ReportInfo *info, GString *out)
{
    uint64_t all = row_sum(s->state_total);
    g_string_append(out, "\nby line (warp-cycles charged to the operation each warp is at; pipeline calls per stage)\n"
                         "  line     warp-cycles   share  largest states                                  source\n");
    for (int64_t l = 0; l <= s->lines; l++) {
        const uint64_t *row = &s->line_state[l * WS__COUNT];
        uint64_t sum = row_sum(row);
        if (sum == 0) {
            continue;
        }
        g_autoptr(GString) top = top_states(row, sum);
        g_autofree char *src = g_strstrip(g_strdup(l == 0 ? "(no operation: exited)" : source_line(info, l)));
        if (l == 0) {
            g_string_append(out, "     -");
        } else {
            g_string_append_printf(out, "  %4" G_GINT64_FORMAT, l);
        }
        g_string_append_printf(out, " %15" G_GUINT64_FORMAT " %6.1f%%  %-47s %s\n", sum,
                               all ? 100.0 * (double) sum / (double) all : 0.0, top->str, src);
        for (int64_t k = 0; k < s->line_stage_slots; k++) {
            const uint64_t *srow = stage_row(s, l, k);
            if (srow == NULL) {
                continue;
            }
            uint64_t ssum = row_sum(srow);
            g_autoptr(GString) stop = top_states(srow, ssum);
            g_autofree char *label = g_strdup_printf("stage %" G_GINT64_FORMAT, k);
            g_string_append_printf(out, "  %12s %7" G_GUINT64_FORMAT " %6.1f%%  %s\n", label, ssum,
                                   all ? 100.0 * (double) ssum / (double) all : 0.0, stop->str);
        }
    }
}

static void json_states(JsonW *j, const uint64_t *row)
{
    jsonw_begin_object(j);
    for (int k = 0; k < WS__COUNT; k++) {
        jsonw_key(j, sim_warp_state_name(k));
        jsonw_uint(j, row[k]);
    }
    jsonw_end_object(j);
}

static void json_cl_pipes(JsonW *j, const SimStats *s)
{
    static const char *dirs[2] = { "read", "write" };
    jsonw_key(j, "cl_pipes");
    jsonw_begin_array(j);
    for (guint i = 0; i < s->cl_pipes->len; i++) {
        const SimClPipeStats *p = g_ptr_array_index(s->cl_pipes, i);
        jsonw_begin_object(j);
        jsonw_key(j, "pipe");
        jsonw_string(j, p->name);
        jsonw_key(j, "capacity");
        jsonw_int(j, p->capacity);
        jsonw_key(j, "packet_bytes");
        jsonw_int(j, p->packet_bytes);
        for (int d = 1; d >= 0; d--) {
            jsonw_key(j, dirs[d]);
            jsonw_begin_object(j);
            jsonw_key(j, "reservations");
            jsonw_uint(j, p->reservations[d]);
            jsonw_key(j, "failures");
            jsonw_uint(j, p->failures[d]);
            jsonw_key(j, "retries");
            jsonw_uint(j, p->retries[d]);
            jsonw_key(j, "packets");
            jsonw_uint(j, p->packets[d]);
            jsonw_key(j, "bytes");
            jsonw_uint(j, p->packets[d] * (uint64_t) p->packet_bytes);
            jsonw_end_object(j);
        }
        jsonw_key(j, "header_atomics");
        jsonw_uint(j, p->atomics);
        jsonw_key(j, "unwritten_reads");
        jsonw_uint(j, p->unwritten_reads);
        jsonw_key(j, "peak_occupancy");
        jsonw_int(j, p->peak);
        jsonw_key(j, "mean_occupancy");
        jsonw_double(j, cl_mean(p));
        jsonw_key(j, "full_fraction");
        jsonw_double(j, p->total_cycles ? (double) p->full_cycles / (double) p->total_cycles : 0.0);
        jsonw_key(j, "empty_fraction");
        jsonw_double(j, p->total_cycles ? (double) p->empty_cycles / (double) p->total_cycles : 0.0);
        jsonw_key(j, "occupancy_bin_low");
        jsonw_begin_array(j);
        for (int64_t k = 0; k < p->nbins; k++) {
            jsonw_int(j, cl_bin_low(p, k));
        }
        jsonw_end_array(j);
        jsonw_key(j, "occupancy_cycles");
        jsonw_begin_array(j);
        for (int64_t k = 0; k < p->nbins; k++) {
            jsonw_uint(j, p->bins[k]);
        }
        jsonw_end_array(j);
        jsonw_end_object(j);
    }
    jsonw_end_array(j);
}

/* An architecture override's value as JSON: a number when it reads as one
 * (every numeric key), true or false, else a string (mem.source=l2). */
static void json_arch_value(JsonW *j, const char *v)
{
    char *end = NULL;
    errno = 0;
    gint64 i = g_ascii_strtoll(v, &end, 10);
    if (*v != '\0' && *end == '\0' && errno == 0) {
        jsonw_int(j, i);
        return;
    }
    double d = g_ascii_strtod(v, &end);
    if (*v != '\0' && *end == '\0' && isfinite(d)) {
        jsonw_double(j, d);
    } else if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
        jsonw_bool(j, v[0] == 't');
    } else {
        jsonw_string(j, v);
    }
}

void report_json(const SimStats *s, const ReportInfo *info, ReportBy by, GString *out)
{
    JsonW j;
    jsonw_init_string(&j, out, true);
    jsonw_begin_object(&j);
    jsonw_key(&j, "provenance");
    jsonw_begin_object(&j);
    jsonw_key(&j, "smpipe");
    jsonw_string(&j, SMPIPE_VERSION);
    jsonw_key(&j, "format");
    jsonw_int(&j, REPORT_FORMAT);
    jsonw_key(&j, "trace_sha256");
    jsonw_string(&j, info->trace_sha256 ? info->trace_sha256 : "");
    jsonw_key(&j, "arch_sha256");
    jsonw_string(&j, info->arch_sha256);
    jsonw_end_object(&j);
    jsonw_key(&j, "cycles");
    jsonw_uint(&j, s->cycles);
    jsonw_key(&j, "warps");
    jsonw_int(&j, s->warps);
    jsonw_key(&j, "blocks");
    jsonw_int(&j, s->blocks);
    jsonw_key(&j, "threads_per_block");
    jsonw_int(&j, s->threads_per_block);
    jsonw_key(&j, "trace");
    jsonw_string(&j, info->trace);
    jsonw_key(&j, "arch");
    jsonw_string(&j, info->arch);
    jsonw_key(&j, "clock_mhz");
    jsonw_double(&j, info->clock_mhz);
    jsonw_key(&j, "engine");
    jsonw_string(&j, info->engine);
    jsonw_key(&j, "params");
    jsonw_begin_object(&j);
    for (guint i = 0; i < info->param_names->len; i++) {
        jsonw_key(&j, g_ptr_array_index(info->param_names, i));
        jsonw_int(&j, g_array_index(info->param_values, int64_t, i));
    }
    for (guint i = 0; info->arch_sets && i < info->arch_sets->len; i++) {
        const char *a = g_ptr_array_index(info->arch_sets, i);
        const char *eq = strchr(a, '=');
        g_autofree char *k = g_strndup(a, eq - a);
        jsonw_key(&j, k);
        json_arch_value(&j, eq + 1);
    }
    jsonw_end_object(&j);
    jsonw_key(&j, "verdict");
    g_autofree char *verdict = report_verdict(s);
    jsonw_string(&j, verdict);
    if (info->launch != NULL && info->launch->grid > 0) {
        const SimLaunch *L = info->launch;
        jsonw_key(&j, "launch");
        jsonw_begin_object(&j);
        jsonw_key(&j, "grid");
        jsonw_int(&j, L->grid);
        jsonw_key(&j, "blocks_per_wave");
        jsonw_int(&j, L->per_wave);
        jsonw_key(&j, "full_waves");
        jsonw_int(&j, L->full_waves);
        jsonw_key(&j, "wave_cycles");
        jsonw_uint(&j, L->wave_cycles);
        jsonw_key(&j, "tail_blocks");
        jsonw_int(&j, L->tail_blocks);
        jsonw_key(&j, "tail_blocks_per_sm");
        jsonw_int(&j, L->tail_per_sm);
        jsonw_key(&j, "tail_sms");
        jsonw_int(&j, L->tail_sms);
        jsonw_key(&j, "tail_cycles");
        jsonw_uint(&j, L->tail_cycles);
        jsonw_key(&j, "cycles");
        jsonw_uint(&j, L->cycles);
        jsonw_key(&j, "overhead_us");
        jsonw_double(&j, L->overhead_us);
        jsonw_key(&j, "us");
        jsonw_double(&j, L->us);
        jsonw_end_object(&j);
    }
    jsonw_key(&j, "instructions");
    jsonw_begin_object(&j);
    jsonw_key(&j, "total");
    jsonw_uint(&j, s->instructions);
    jsonw_key(&j, "compute");
    jsonw_uint(&j, s->compute_instructions);
    jsonw_key(&j, "control");
    jsonw_uint(&j, s->control_instructions);
    jsonw_key(&j, "polls");
    jsonw_uint(&j, s->poll_instructions);
    jsonw_key(&j, "events");
    jsonw_uint(&j, s->events);
    jsonw_end_object(&j);
    jsonw_key(&j, "stalls");
    json_states(&j, s->state_total);
    jsonw_key(&j, "overlap");
    jsonw_begin_object(&j);
    jsonw_key(&j, "copy_busy_cycles");
    jsonw_uint(&j, s->copy_busy);
    jsonw_key(&j, "compute_busy_cycles");
    jsonw_uint(&j, s->compute_busy);
    jsonw_key(&j, "both_busy_cycles");
    jsonw_uint(&j, s->both_busy);
    jsonw_key(&j, "hidden_copy_fraction");
    jsonw_double(&j, report_hidden_fraction(s));
    jsonw_key(&j, "exposed_copy_cycles");
    jsonw_uint(&j, report_exposed_cycles(s));
    jsonw_end_object(&j);
    jsonw_key(&j, "stages");
    jsonw_begin_array(&j);
    for (guint i = 0; i < s->stages->len; i++) {
        const SimStageStats *st = g_ptr_array_index(s->stages, i);
        uint64_t ot = occupancy_total(st);
        jsonw_begin_object(&j);
        jsonw_key(&j, "pipeline");
        jsonw_string(&j, st->name);
        jsonw_key(&j, "stages");
        jsonw_int(&j, st->stages);
        jsonw_key(&j, "instances");
        jsonw_uint(&j, st->instances);
        for (int k = 0; k < STAGE_STEP__COUNT; k++) {
            json_dist(&j, sim_stage_step_name(k), &st->step[k]);
        }
        json_dist(&j, "exposed", &st->exposed);
        jsonw_key(&j, "occupancy_cycles");
        jsonw_begin_array(&j);
        for (int64_t k = 0; k <= st->stages; k++) {
            jsonw_uint(&j, st->occupancy[k]);
        }
        jsonw_end_array(&j);
        jsonw_key(&j, "mean_in_flight");
        jsonw_double(&j, occupancy_mean(st));
        jsonw_key(&j, "full_fraction");
        jsonw_double(&j, ot ? (double) st->occupancy[st->stages] / (double) ot : 0.0);
        jsonw_key(&j, "empty_fraction");
        jsonw_double(&j, ot ? (double) st->occupancy[0] / (double) ot : 0.0);
        jsonw_end_object(&j);
    }
    jsonw_end_array(&j);
    if (s->cl_pipes->len > 0) {
        json_cl_pipes(&j, s);
    }
    jsonw_key(&j, "copies");
    jsonw_begin_object(&j);
    jsonw_key(&j, "cp_async_bytes");
    jsonw_uint(&j, s->cp_async_bytes);
    jsonw_key(&j, "cp_async_instructions");
    jsonw_uint(&j, s->cp_async_instructions);
    jsonw_key(&j, "cp_async_lines");
    jsonw_uint(&j, s->cp_async_lines);
    jsonw_key(&j, "cp_async_sectors");
    jsonw_uint(&j, s->cp_async_sectors);
    jsonw_key(&j, "bulk_copies");
    jsonw_uint(&j, s->bulk_copies);
    jsonw_key(&j, "bulk_bytes");
    jsonw_uint(&j, s->bulk_bytes);
    jsonw_key(&j, "sync_copies");
    jsonw_uint(&j, s->sync_copies);
    jsonw_key(&j, "sync_bytes");
    jsonw_uint(&j, s->sync_bytes);
    jsonw_key(&j, "achieved_bytes_per_cycle");
    jsonw_double(&j, achieved_bpc(s));
    jsonw_key(&j, "peak_bytes_per_cycle");
    jsonw_double(&j, s->peak_bytes_per_clk);
    jsonw_key(&j, "throttled_warp_cycles");
    jsonw_uint(&j, s->throttled_cycles);
    if (other_directions(s)) {
        jsonw_key(&j, "by_direction");
        jsonw_begin_object(&j);
        for (int d = 0; d < SIM_DIR__COUNT; d++) {
            jsonw_key(&j, sim_copy_dir_name((SimCopyDir) d));
            jsonw_begin_object(&j);
            jsonw_key(&j, "calls");
            jsonw_uint(&j, s->dir_calls[d]);
            jsonw_key(&j, "bytes");
            jsonw_uint(&j, s->dir_bytes[d]);
            jsonw_key(&j, "sync_bytes");
            jsonw_uint(&j, s->dir_sync_bytes[d]);
            jsonw_end_object(&j);
        }
        jsonw_end_object(&j);
    }
    jsonw_end_object(&j);
    jsonw_key(&j, "memory");
    jsonw_begin_object(&j);
    jsonw_key(&j, "l1_hits");
    jsonw_uint(&j, s->l1_hits);
    jsonw_key(&j, "l2_hits");
    jsonw_uint(&j, s->l2_hits);
    jsonw_key(&j, "l2_misses");
    jsonw_uint(&j, s->l2_misses);
    jsonw_key(&j, "miss_merges");
    jsonw_uint(&j, s->merged);
    jsonw_key(&j, "bytes_l2");
    jsonw_uint(&j, s->bytes_l2);
    jsonw_key(&j, "bytes_dram");
    jsonw_uint(&j, s->bytes_dram);
    jsonw_key(&j, "bytes_written");
    jsonw_uint(&j, s->bytes_written);
    jsonw_key(&j, "bytes_written_back");
    jsonw_uint(&j, s->bytes_written_back);
    jsonw_key(&j, "l2_link_busy_cycles");
    jsonw_double(&j, s->link_busy);
    jsonw_key(&j, "dram_busy_cycles");
    jsonw_double(&j, s->dram_busy);
    jsonw_end_object(&j);
    jsonw_key(&j, "smem");
    jsonw_begin_object(&j);
    jsonw_key(&j, "accesses");
    jsonw_uint(&j, s->smem_accesses);
    jsonw_key(&j, "wavefronts");
    jsonw_uint(&j, s->smem_wavefronts);
    jsonw_key(&j, "ideal_wavefronts");
    jsonw_uint(&j, s->smem_ideal_wavefronts);
    jsonw_key(&j, "conflict_accesses");
    jsonw_uint(&j, s->smem_conflict_accesses);
    jsonw_key(&j, "max_conflict_degree");
    jsonw_uint(&j, s->smem_max_degree);
    jsonw_key(&j, "accesses_by_degree");
    jsonw_begin_array(&j);
    for (int k = 0; k <= 32; k++) {
        jsonw_uint(&j, s->smem_degree_hist[k]);
    }
    jsonw_end_array(&j);
    jsonw_key(&j, "fill_wavefronts");
    jsonw_uint(&j, s->smem_fill_wavefronts);
    jsonw_end_object(&j);
    jsonw_key(&j, "barriers");
    jsonw_begin_object(&j);
    jsonw_key(&j, "syncthreads");
    jsonw_uint(&j, s->syncthreads);
    jsonw_key(&j, "block_barrier_warp_cycles");
    jsonw_uint(&j, s->state_total[WS_BLOCK_BARRIER]);
    jsonw_key(&j, "mbarrier_phases");
    jsonw_uint(&j, s->mbar_phases);
    jsonw_key(&j, "mbarrier_blocking_waits");
    jsonw_uint(&j, s->mbar_waits);
    jsonw_key(&j, "mbarrier_warp_cycles");
    jsonw_uint(&j, s->state_total[WS_MBARRIER]);
    jsonw_end_object(&j);
    if (by == REPORT_BY_WARP) {
        jsonw_key(&j, "by_warp");
        jsonw_begin_array(&j);
        for (int64_t w = 0; w < s->warps; w++) {
            json_states(&j, &s->warp_state[w * WS__COUNT]);
        }
        jsonw_end_array(&j);
    } else if (by == REPORT_BY_LINE && s->line_state != NULL) {
        /* Lines with warp-cycles, in line order; line 0: exited warps. */
        jsonw_key(&j, "by_line");
        jsonw_begin_array(&j);
        for (int64_t l = 0; l <= s->lines; l++) {
            const uint64_t *row = &s->line_state[l * WS__COUNT];
            if (row_sum(row) == 0) {
                continue;
            }
            jsonw_begin_object(&j);
            jsonw_key(&j, "line");
            jsonw_int(&j, l);
            jsonw_key(&j, "source");
            g_autofree char *src = g_strstrip(g_strdup(source_line(info, l)));
            jsonw_string(&j, src);
            jsonw_key(&j, "warp_cycles");
            jsonw_uint(&j, row_sum(row));
            jsonw_key(&j, "states");
            json_states(&j, row);
            if (s->line_stage != NULL && s->line_stage[l] != NULL) {
                /* A pipeline call: the same per stage slot it worked on. */
                jsonw_key(&j, "stages");
                jsonw_begin_array(&j);
                for (int64_t k = 0; k < s->line_stage_slots; k++) {
                    const uint64_t *srow = stage_row(s, l, k);
                    if (srow == NULL) {
                        continue;
                    }
                    jsonw_begin_object(&j);
                    jsonw_key(&j, "stage");
                    jsonw_int(&j, k);
                    jsonw_key(&j, "warp_cycles");
                    jsonw_uint(&j, row_sum(srow));
                    jsonw_key(&j, "states");
                    json_states(&j, srow);
                    jsonw_end_object(&j);
                }
                jsonw_end_array(&j);
            }
            jsonw_end_object(&j);
        }
        jsonw_end_array(&j);
    } else if (by == REPORT_BY_ROLE) {
        jsonw_key(&j, "by_role");
        jsonw_begin_object(&j);
        for (int r = 0; r < ROLE__COUNT; r++) {
            jsonw_key(&j, sim_role_name(r));
            json_states(&j, s->role_state[r]);
        }
        jsonw_end_object(&j);
    }
    jsonw_key(&j, "race_warnings");
    jsonw_uint(&j, s->race_warnings);
    jsonw_key(&j, "warnings");
    jsonw_begin_array(&j);
    for (guint i = 0; i < s->warnings->len; i++) {
        jsonw_string(&j, g_ptr_array_index(s->warnings, i));
    }
    jsonw_end_array(&j);
    jsonw_end_object(&j);
}

static const char *csv_fixed[] = {
    "cycles", "warps", "instructions", "hidden_copy_fraction", "exposed_copy_cycles", "copy_busy_cycles",
    "compute_busy_cycles", "both_busy_cycles", "cp_async_bytes", "bulk_bytes", "sync_bytes",
    "achieved_bytes_per_cycle", "smem_conflict_accesses", "smem_wavefronts", "syncthreads", "mbarrier_phases",
    "stage_instances", "stage_fill_mean", "stage_land_mean", "stage_idle_mean", "stage_consume_mean",
    "stages_in_flight_mean", "smem_per_block", "race_warnings", "clpipe_packets_written", "clpipe_reserve_failures",
    "clpipe_occupancy_mean", NULL
};

void report_csv_provenance(const ReportInfo *info, const GPtrArray *skip, GString *out)
{
    g_string_append_printf(out, "# smpipe: %s\n# format: %d\n# trace: %s\n# trace_sha256: %s\n# params:", SMPIPE_VERSION,
                           REPORT_FORMAT, info->trace, info->trace_sha256 ? info->trace_sha256 : "");
    for (guint i = 0; i < info->param_names->len; i++) {
        const char *name = g_ptr_array_index(info->param_names, i);
        bool skipped = false;
        for (guint k = 0; skip != NULL && k < skip->len; k++) {
            skipped |= strcmp(g_ptr_array_index(skip, k), name) == 0;
        }
        if (!skipped) {
            g_string_append_printf(out, " %s=%" G_GINT64_FORMAT, name, g_array_index(info->param_values, int64_t, i));
        }
    }
    g_string_append_printf(out, "\n# arch: %s\n# arch_sha256: %s\n", info->arch, info->arch_sha256);
    if (info->arch_sets != NULL && info->arch_sets->len > 0) {
        g_string_append(out, "# arch_set:");
        for (guint i = 0; i < info->arch_sets->len; i++) {
            g_string_append_printf(out, " %s", (const char *) g_ptr_array_index(info->arch_sets, i));
        }
        g_string_append_c(out, '\n');
    }
}

void report_csv_header(const ReportInfo *info, GString *out)
{
    (void) info;
    bool first = true;
    for (int i = 0; csv_fixed[i]; i++) {
        g_string_append_printf(out, "%s%s", first ? "" : ",", csv_fixed[i]);
        first = false;
    }
    for (int k = 0; k < WS__COUNT; k++) {
        g_string_append_printf(out, ",stall_%s", sim_warp_state_name(k));
    }
}

/* ",warp_cycles,stall_..." of one row of warp-cycles per state, and the newline. */
static void csv_states(GString *out, const uint64_t *row)
{
    g_string_append_printf(out, ",%" G_GUINT64_FORMAT, row_sum(row));
    for (int k = 0; k < WS__COUNT; k++) {
        g_string_append_printf(out, ",%" G_GUINT64_FORMAT, row[k]);
    }
    g_string_append_c(out, '\n');
}

void report_csv_by(const SimStats *s, const ReportInfo *info, ReportBy by, GString *out)
{
    static const char *const keys[] = { [REPORT_BY_WARP] = "block,warp", [REPORT_BY_ROLE] = "role",
                                         [REPORT_BY_LINE] = "line,source,stage" };
    g_string_append_printf(out, "%s,warp_cycles", keys[by]);
    for (int k = 0; k < WS__COUNT; k++) {
        g_string_append_printf(out, ",stall_%s", sim_warp_state_name(k));
    }
    g_string_append_c(out, '\n');
    if (by == REPORT_BY_WARP) {
        int64_t per_block = s->blocks > 0 ? s->warps / s->blocks : s->warps;
        for (int64_t w = 0; w < s->warps; w++) {
            g_string_append_printf(out, "%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, w / per_block, w % per_block);
            csv_states(out, &s->warp_state[w * WS__COUNT]);
        }
    } else if (by == REPORT_BY_ROLE) {
        for (int r = 0; r < ROLE__COUNT; r++) {
            g_string_append(out, sim_role_name(r));
            csv_states(out, s->role_state[r]);
        }
    } else if (s->line_state != NULL) {
        /* The lines of by_line in the JSON: those with warp-cycles. */
        for (int64_t l = 0; l <= s->lines; l++) {
            const uint64_t *row = &s->line_state[l * WS__COUNT];
            if (row_sum(row) == 0) {
                continue;
            }
            g_autofree char *src = g_strstrip(g_strdup(source_line(info, l)));
            g_string_append_printf(out, "%" G_GINT64_FORMAT ",", l);
            csv_append_field(out, src);
            g_string_append_c(out, ',');
            csv_states(out, row);
            /* A pipeline call: a row per stage slot, after the line's. */
            for (int64_t k = 0; k < s->line_stage_slots; k++) {
                const uint64_t *srow = stage_row(s, l, k);
                if (srow != NULL) {
                    g_string_append_printf(out, "%" G_GINT64_FORMAT ",", l);
                    csv_append_field(out, src);
                    g_string_append_printf(out, ",%" G_GINT64_FORMAT, k);
                    csv_states(out, srow);
                }
            }
        }
    }
}

static void csv_double(GString *out, double v)
{
    char b[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append_c(out, ',');
    g_string_append(out, g_ascii_formatd(b, sizeof b, "%.6g", v));
}

void report_csv_row(const SimStats *s, const ReportInfo *info, GString *out)
{
    const SimStageStats *st = s->stages->len ? g_ptr_array_index(s->stages, 0) : NULL;
    g_string_append_printf(out, "%" G_GUINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GUINT64_FORMAT, s->cycles, s->warps,
                           s->instructions);
    csv_double(out, report_hidden_fraction(s));
    g_string_append_printf(out, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                           ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT, report_exposed_cycles(s),
                           s->copy_busy, s->compute_busy, s->both_busy, s->cp_async_bytes, s->bulk_bytes, s->sync_bytes);
    csv_double(out, achieved_bpc(s));
    g_string_append_printf(out, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                           ",%" G_GUINT64_FORMAT, s->smem_conflict_accesses, s->smem_wavefronts, s->syncthreads,
                           s->mbar_phases, st ? st->instances : 0);
    for (int k = 0; k < 4; k++) {
        csv_double(out, st ? sim_dist_mean(&st->step[k]) : 0.0);
    }
    csv_double(out, st ? occupancy_mean(st) : 0.0);
    g_string_append_printf(out, ",%" G_GINT64_FORMAT ",%" G_GUINT64_FORMAT, info->smem_per_block, s->race_warnings);
    /* OpenCL pipes: summed over pipes; the occupancy of the first. */
    uint64_t cl_packets = 0, cl_failures = 0;
    for (guint i = 0; i < s->cl_pipes->len; i++) {
        const SimClPipeStats *p = g_ptr_array_index(s->cl_pipes, i);
        cl_packets += p->packets[1];
        cl_failures += p->failures[0] + p->failures[1];
    }
    g_string_append_printf(out, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT, cl_packets, cl_failures);
    csv_double(out, s->cl_pipes->len ? cl_mean(g_ptr_array_index(s->cl_pipes, 0)) : 0.0);
    for (int k = 0; k < WS__COUNT; k++) {
        g_string_append_printf(out, ",%" G_GUINT64_FORMAT, s->state_total[k]);
    }
}
