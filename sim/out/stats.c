/* stats.c: names of the statistics' vocabulary and small helpers. */
#include "sim/out/stats.h"

static const struct {
    const char *name;
    const char *nsight;
    const char *help;
} states[WS__COUNT] = {
    [WS_ISSUING] = { "issuing", "Selected", "issued an instruction" },
    [WS_NOT_SELECTED] = { "not_selected", "Not Selected", "ready, but the scheduler picked another warp" },
    [WS_DEPENDENCY] = { "dependency", "Wait / Short Scoreboard", "waiting for an earlier instruction's result (compute latency)" },
    [WS_MATH_THROTTLE] = { "math_throttle", "Math Pipe Throttle", "the instruction's execution pipe is busy" },
    [WS_MIO_THROTTLE] = { "mio_throttle", "MIO Throttle", "a shared-memory load or store waits for the warp's path to shared memory, busy with its last one" },
    [WS_BANK_CONFLICT] = { "bank_conflict", "MIO Throttle (shared-memory replays)", "shared-memory access replaying after a bank conflict" },
    [WS_COPY_THROTTLE] = { "copy_throttle", "LG Throttle", "the async-copy path is full: too many requests in flight" },
    [WS_MEMORY] = { "memory", "Long Scoreboard", "waiting for global memory (a load or a synchronous copy)" },
    [WS_CONSUMER_WAIT] = { "consumer_wait", "Long Scoreboard / Barrier (mbarrier try_wait)", "pipeline consumer_wait: the stage's copies have not landed" },
    [WS_PRODUCER_ACQUIRE] = { "producer_acquire", "Barrier (mbarrier try_wait)", "pipeline producer_acquire: every stage is in use" },
    [WS_BLOCK_BARRIER] = { "block_barrier", "Barrier", "waiting at __syncthreads / block.sync / __syncwarp" },
    [WS_MBARRIER] = { "mbarrier", "Barrier (mbarrier try_wait)", "waiting on a cuda::barrier phase" },
    [WS_ASYNC_WAIT] = { "async_wait", "LG Throttle / Long Scoreboard (cp.async.wait_group)", "cooperative_groups::wait: cp.async groups outstanding" },
    [WS_DIVERGENT] = { "divergent", "(no counterpart: Branch Resolving is closest)", "this side of a divergent branch waits at reconvergence for the other side" },
    [WS_EXITED] = { "exited", "(not resident in Nsight)", "all threads of the warp have exited" },
};

const char *sim_warp_state_name(SimWarpState s)
{
    return states[s].name;
}

const char *sim_warp_state_help(SimWarpState s)
{
    return states[s].help;
}

const char *sim_warp_state_nsight(SimWarpState s)
{
    return states[s].nsight;
}

const char *sim_role_name(SimRole r)
{
    static const char *names[ROLE__COUNT] = { "none", "producer", "consumer", "both", "mixed" };
    return names[r];
}

const char *sim_copy_dir_name(SimCopyDir d)
{
    static const char *names[SIM_DIR__COUNT] = { "global_to_shared", "shared_to_shared", "shared_to_global",
                                                 "global_to_global" };
    return names[d];
}

const char *sim_stage_step_name(int step)
{
    static const char *names[STAGE_STEP__COUNT] = { "fill", "land", "idle", "consume" };
    return names[step];
}

void sim_dist_add(SimDist *d, uint64_t v)
{
    if (d->count == 0 || v < d->min) {
        d->min = v;
    }
    if (v > d->max) {
        d->max = v;
    }
    d->count++;
    d->sum += v;
    int k = v == 0 ? 0 : 64 - __builtin_clzll(v);
    d->bucket[k]++;
}

double sim_dist_mean(const SimDist *d)
{
    return d->count ? (double) d->sum / (double) d->count : 0.0;
}

uint64_t sim_dist_quantile(const SimDist *d, double q)
{
    if (d->count == 0) {
        return 0;
    }
    uint64_t want = (uint64_t) (q * (double) d->count);
    if (want >= d->count) {
        want = d->count - 1;
    }
    uint64_t seen = 0;
    for (int k = 0; k <= 64; k++) {
        seen += d->bucket[k];
        if (seen > want) {
            uint64_t upper = k == 0 ? 0 : k == 64 ? UINT64_MAX : (UINT64_C(1) << k) - 1;
            return MIN(MAX(upper, d->min), d->max);
        }
    }
    return d->max;
}

void sim_stats_init(SimStats *s, int64_t warps)
{
    memset(s, 0, sizeof *s);
    s->warps = warps;
    s->warp_state = g_new0(uint64_t, (size_t) warps * WS__COUNT);
    s->stages = g_ptr_array_new_with_free_func((GDestroyNotify) sim_stage_stats_free);
    s->warnings = g_ptr_array_new_with_free_func(g_free);
    s->cl_pipes = g_ptr_array_new_with_free_func((GDestroyNotify) sim_cl_pipe_stats_free);
}

void sim_stats_clear(SimStats *s)
{
    g_free(s->warp_state);
    g_free(s->line_state);
    if (s->line_stage != NULL) {
        for (int64_t l = 0; l <= s->lines; l++) {
            g_free(s->line_stage[l]);
        }
        g_free(s->line_stage);
    }
    if (s->stages) {
        g_ptr_array_free(s->stages, TRUE);
    }
    if (s->warnings) {
        g_ptr_array_free(s->warnings, TRUE);
    }
    if (s->cl_pipes) {
        g_ptr_array_free(s->cl_pipes, TRUE);
    }
    memset(s, 0, sizeof *s);
}

SimStageStats *sim_stage_stats_new(const char *name, int64_t stages)
{
    SimStageStats *st = g_new0(SimStageStats, 1);
    st->name = g_strdup(name);
    st->stages = stages;
    st->occupancy = g_new0(uint64_t, (size_t) stages + 1);
    return st;
}

void sim_stage_stats_free(SimStageStats *st)
{
    g_free(st->name);
    g_free(st->occupancy);
    g_free(st);
}

static void dist_merge(SimDist *d, const SimDist *e)
{
    if (e->count == 0) {
        return;
    }
    d->min = d->count ? MIN(d->min, e->min) : e->min;
    d->max = MAX(d->max, e->max);
    d->count += e->count;
    d->sum += e->sum;
    for (int k = 0; k <= 64; k++) {
        d->bucket[k] += e->bucket[k];
    }
}

void sim_stage_stats_merge(SimStageStats *into, const SimStageStats *from)
{
    into->instances += from->instances;
    for (int s = 0; s < STAGE_STEP__COUNT; s++) {
        dist_merge(&into->step[s], &from->step[s]);
    }
    dist_merge(&into->exposed, &from->exposed);
    for (int64_t k = 0; k <= MIN(into->stages, from->stages); k++) {
        into->occupancy[k] += from->occupancy[k];
    }
}

SimClPipeStats *sim_cl_pipe_stats_new(const char *name, int64_t capacity, int64_t packet_bytes)
{
    SimClPipeStats *st = g_new0(SimClPipeStats, 1);
    st->name = g_strdup(name);
    st->capacity = capacity;
    st->packet_bytes = packet_bytes;
    st->nbins = MIN(capacity, (int64_t) 32) + 1;
    st->bins = g_new0(uint64_t, (size_t) st->nbins);
    return st;
}

void sim_cl_pipe_stats_free(SimClPipeStats *st)
{
    g_free(st->name);
    g_free(st->bins);
    g_free(st);
}
