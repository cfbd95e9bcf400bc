/* test_timeline.c: the timeline sink (sim/out/timeline.c) alone, and the
 * Chrome/Perfetto JSON and picture data of every bundled trace: well-formed
 * tracks (slices nest, in order), counters, metadata, windows, determinism,
 * and agreement with the statistics. */
#include "test_util.h"

#include "sim/out/timeline.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>

/* A scratch directory removed (with its files) by tmpdir_free. */
static char *tmpdir_new(void)
{
    char *d = g_dir_make_tmp("smpipe-test-timeline-XXXXXX", NULL);
    ck_assert(d != NULL);
    return d;
}

static void tmpdir_free(char *d)
{
    GDir *dir = g_dir_open(d, 0, NULL);
    if (dir != NULL) {
        const char *name;
        while ((name = g_dir_read_name(dir)) != NULL) {
            g_autofree char *p = g_build_filename(d, name, NULL);
            g_remove(p);
        }
        g_dir_close(dir);
    }
    g_rmdir(d);
    g_free(d);
}

/* Runs a bundled trace with a timeline; fails the test if the run fails. */
static void run_timeline(const char *rel, const char *const *sets, const SimTimelineOptions *topt, TestRun *tr)
{
    memset(tr, 0, sizeof *tr);
    g_autofree char *path = g_build_filename(SRCDIR, rel, NULL);
    GError *err = NULL;
    tr->trace = trace_parse_file(path, &err);
    ck_assert_msg(tr->trace != NULL, "%s: %s", rel, err ? err->message : "");
    g_autoptr(GPtrArray) sl = test_set_list(sets);
    SimRunOptions o;
    memset(&o, 0, sizeof o);
    o.sets = sl;
    o.sm.engine = SIM_ENGINE_EVENT;
    o.sm.race_check = true;
    o.sm.max_cycles = 100000000;
    SimTimeline *tl = sim_timeline_open(topt, &err);
    ck_assert_msg(tl != NULL, "%s", err ? err->message : "");
    o.sm.timeline = tl;
    bool ok = sim_run_trace(tr->trace, &o, &tr->run, &err);
    ck_assert_msg(ok, "%s: %s", rel, err ? err->message : "");
    ck_assert_msg(sim_timeline_close(tl, &err), "%s", err ? err->message : "");
}

static JsonParser *load_json(const char *path)
{
    JsonParser *p = json_parser_new();
    GError *err = NULL;
    ck_assert_msg(json_parser_load_from_file(p, path, &err), "%s: %s", path, err ? err->message : "");
    return p;
}

/* What validate_json learnt about a timeline. */
typedef struct {
    int slices;
    int copy_slices;
    int stage_tracks;
    int counters;
    int flows;               /* flow arrows (an "s" and an "f" each) */
    int instants;            /* barrier phase events */
    int staged_waits;        /* consumer_wait slices that name their stage */
    int64_t last_bytes_in_flight;
    int64_t last_stages;
    int64_t last_replays;
    bool saw_bytes, saw_stages, saw_replays;
} JsonFacts;

typedef struct {
    char *name;
    int sort_index;
    GArray *open_ends;       /* SimCycle: ends of the slices enclosing the last one */
    int64_t last_ts;
    SimCycle covered_to;     /* warp tracks: end of the contiguous cover */
    bool at_end;             /* warp tracks: the last slice was the wait at the program's end */
    uint64_t state_time[WS__COUNT];
} TidInfo;

static void tid_free(gpointer p)
{
    TidInfo *ti = p;
    g_free(ti->name);
    g_array_free(ti->open_ends, TRUE);
    g_free(ti);
}

static int state_by_name(const char *name)
{
    for (int s = 0; s < WS__COUNT; s++) {
        if (strcmp(name, sim_warp_state_name((SimWarpState) s)) == 0) {
            return s;
        }
    }
    return -1;
}

/* Checks a timeline file.  st: the run's statistics, compared when the
 * window [from, to) covers the run; max_stages: bound of "stages occupied". */
static JsonFacts validate_json(const char *path, const SimStats *st, double clock_mhz, SimCycle from, SimCycle to,
                               int64_t max_stages)
{
    JsonFacts f;
    memset(&f, 0, sizeof f);
    JsonParser *p = load_json(path);
    JsonObject *root = json_node_get_object(json_parser_get_root(p));
    ck_assert(root != NULL);
    ck_assert_str_eq(json_object_get_string_member(root, "displayTimeUnit"), "ns");
    JsonObject *meta = json_object_get_object_member(root, "otherData");
    ck_assert_msg(meta != NULL, "no otherData");
    ck_assert_str_eq(json_object_get_string_member(meta, "time_unit"), "us");
    ck_assert(json_object_has_member(meta, "clock_mhz"));
    ck_assert_double_eq_tol(json_object_get_double_member(meta, "clock_mhz"), clock_mhz, 0.05);
    JsonArray *ev = json_object_get_array_member(root, "traceEvents");
    ck_assert(ev != NULL);
    const SimCycle end = MIN(st->cycles, to);
    const bool whole = from == 0 && to >= st->cycles;

    GHashTable *tids = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, tid_free);
    GHashTable *counters = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    /* Copy slices' ends ("tid:end"), and each flow id's start and finish
     * ([tid, cycle] pairs). */
    GHashTable *copy_ends = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTable *flow_s = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    GHashTable *flow_f = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    int processes = 0;
    for (guint i = 0; i < json_array_get_length(ev); i++) {
        JsonObject *e = json_array_get_object_element(ev, i);
        ck_assert_msg(e != NULL, "event %u is not an object", i);
        const char *ph = json_object_get_string_member(e, "ph");
        const char *name = json_object_get_string_member(e, "name");
        ck_assert(ph != NULL && name != NULL && *name);
        ck_assert_int_eq(json_object_get_int_member(e, "pid"), 0);
        if (strcmp(ph, "M") == 0) {
            JsonObject *args = json_object_get_object_member(e, "args");
            ck_assert(args != NULL);
            int tid = (int) json_object_get_int_member(e, "tid");
            if (strcmp(name, "process_name") == 0) {
                processes++;
                continue;
            }
            TidInfo *ti = g_hash_table_lookup(tids, GINT_TO_POINTER(tid));
            if (strcmp(name, "thread_name") == 0) {
                ck_assert_msg(ti == NULL, "tid %d named twice", tid);
                ti = g_new0(TidInfo, 1);
                ti->name = g_strdup(json_object_get_string_member(args, "name"));
                ti->open_ends = g_array_new(FALSE, FALSE, sizeof(SimCycle));
                ti->last_ts = -1;
                ti->covered_to = from;
                g_hash_table_insert(tids, GINT_TO_POINTER(tid), ti);
                if (g_str_has_prefix(ti->name, "copy lane")) {
                    /* counted when used */
                } else if (strstr(ti->name, " stage ") != NULL) {
                    f.stage_tracks++;
                }
            } else {
                ck_assert_str_eq(name, "thread_sort_index");
                ck_assert_msg(ti != NULL, "tid %d sorted before being named", tid);
                ti->sort_index = (int) json_object_get_int_member(args, "sort_index");
            }
        } else if (strcmp(ph, "X") == 0) {
            int tid = (int) json_object_get_int_member(e, "tid");
            TidInfo *ti = g_hash_table_lookup(tids, GINT_TO_POINTER(tid));
            ck_assert_msg(ti != NULL, "slice on unnamed tid %d", tid);
            /* Real time at the clock; the cycles are in args. */
            JsonObject *sargs = json_object_get_object_member(e, "args");
            ck_assert_msg(sargs != NULL, "a slice without args");
            int64_t ts = json_object_get_int_member(sargs, "cycle");
            int64_t dur = json_object_get_int_member(sargs, "cycles");
            ck_assert_double_eq_tol(json_object_get_double_member(e, "ts"), (double) ts / clock_mhz, 1e-6);
            ck_assert_double_eq_tol(json_object_get_double_member(e, "dur"), (double) dur / clock_mhz, 2e-6);
            ck_assert_msg(dur > 0, "%s: empty slice at %" G_GINT64_FORMAT, ti->name, ts);
            ck_assert_msg((SimCycle) ts >= from && (SimCycle) (ts + dur) <= end, "%s: slice [%" G_GINT64_FORMAT
                          ", %" G_GINT64_FORMAT ") outside the window", ti->name, ts, ts + dur);
            ck_assert_msg(ts >= ti->last_ts, "%s: slice at %" G_GINT64_FORMAT " after one at %" G_GINT64_FORMAT,
                          ti->name, ts, ti->last_ts);
            ti->last_ts = ts;
            /* Nesting: a slice lies after or inside every slice still open. */
            while (ti->open_ends->len > 0 &&
                   g_array_index(ti->open_ends, SimCycle, ti->open_ends->len - 1) <= (SimCycle) ts) {
                g_array_set_size(ti->open_ends, ti->open_ends->len - 1);
            }
            if (ti->open_ends->len > 0) {
                SimCycle outer = g_array_index(ti->open_ends, SimCycle, ti->open_ends->len - 1);
                ck_assert_msg((SimCycle) (ts + dur) <= outer, "%s: slice [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                              ") overlaps one ending at %" G_GUINT64_FORMAT, ti->name, ts, ts + dur, outer);
            }
            SimCycle e_end = (SimCycle) (ts + dur);
            g_array_append_val(ti->open_ends, e_end);
            f.slices++;
            const char *cat = json_object_get_string_member(e, "cat");
            ck_assert(cat != NULL);
            if (json_object_has_member(sargs, "line")) {
                /* FILE:LINE of the operation. */
                const char *where = json_object_get_string_member(sargs, "line");
                const char *colon = where != NULL ? strrchr(where, ':') : NULL;
                ck_assert_msg(colon != NULL && colon > where && g_ascii_strtoll(colon + 1, NULL, 10) > 0,
                              "%s: args.line %s is not FILE:LINE", ti->name, where ? where : "(not a string)");
            }
            if (g_str_has_prefix(ti->name, "warp ")) {
                ck_assert_str_eq(cat, "warp");
                int s = state_by_name(name);
                ck_assert_msg(s >= 0, "unknown warp state %s", name);
                ck_assert_msg((SimCycle) ts == ti->covered_to, "%s: gap or overlap at %" G_GINT64_FORMAT
                              " (covered to %" G_GUINT64_FORMAT ")", ti->name, ts, ti->covered_to);
                ti->covered_to = e_end;
                ti->state_time[s] += (uint64_t) dur;
                if (s == WS_CONSUMER_WAIT && json_object_has_member(sargs, "stage")) {
                    f.staged_waits++;
                }
                /* A warp stopped at an operation says its line; the
                 * program's end has none: a warp waits there only for its
                 * compute chains (sched.chain_overlap), and then exits. */
                ck_assert_msg(!ti->at_end || s == WS_EXITED, "%s: %s at %" G_GINT64_FORMAT " after the wait at the end",
                              ti->name, name, ts);
                ti->at_end = s == WS_DEPENDENCY && !json_object_has_member(sargs, "line");
                ck_assert_msg(s == WS_EXITED || ti->at_end || json_object_has_member(sargs, "line"),
                              "%s: %s at %" G_GINT64_FORMAT " without a line", ti->name, name, ts);
            } else if (g_str_has_prefix(ti->name, "copy lane")) {
                ck_assert_str_eq(cat, "copy");
                /* A copy says its size. */
                ck_assert_msg(json_object_has_member(sargs, "bytes") &&
                              json_object_get_int_member(sargs, "bytes") > 0, "%s: a copy without bytes", ti->name);
                ck_assert(strcmp(name, "cp.async") == 0 || strcmp(name, "bulk copy") == 0);
                ck_assert_msg(json_object_has_member(sargs, "line"), "%s: a copy without its line", ti->name);
                g_hash_table_add(copy_ends, g_strdup_printf("%d:%" G_GINT64_FORMAT, tid, ts + dur));
                f.copy_slices++;
            } else {
                ck_assert_str_eq(cat, "stage");
                ck_assert(strcmp(name, "acquired") == 0 || strcmp(name, "in flight") == 0 ||
                          strcmp(name, "ready") == 0 || strcmp(name, "consumed") == 0);
            }
        } else if (strcmp(ph, "C") == 0) {
            /* ts is microseconds at the clock: back to cycles. */
            double us = json_object_get_double_member(e, "ts");
            int64_t ts = llround(us * clock_mhz);
            ck_assert_double_eq_tol(us, (double) ts / clock_mhz, 1e-6);
            JsonObject *args = json_object_get_object_member(e, "args");
            ck_assert(args != NULL && json_object_has_member(args, "value"));
            ck_assert_int_eq(json_node_get_value_type(json_object_get_member(args, "value")), G_TYPE_INT64);
            int64_t v = json_object_get_int_member(args, "value");
            ck_assert_msg((SimCycle) ts >= from && (SimCycle) ts < MAX(end, from + 1), "%s at %" G_GINT64_FORMAT
                          " outside the window", name, ts);
            int64_t *last = g_hash_table_lookup(counters, name);
            if (last == NULL) {
                last = g_new(int64_t, 2);
                last[0] = -1;
                last[1] = 0;
                g_hash_table_insert(counters, g_strdup(name), last);
                f.counters++;
            }
            ck_assert_msg(ts > last[0], "%s: sample at %" G_GINT64_FORMAT " after one at %" G_GINT64_FORMAT, name,
                          ts, last[0]);
            if (strcmp(name, "bytes in flight") == 0) {
                ck_assert_int_ge(v, 0);
                f.saw_bytes = true;
                f.last_bytes_in_flight = v;
            } else if (strcmp(name, "stages occupied") == 0) {
                ck_assert_int_ge(v, 0);
                ck_assert_int_le(v, max_stages);
                f.saw_stages = true;
                f.last_stages = v;
            } else if (strcmp(name, "bank conflict replays") == 0) {
                ck_assert_msg(v >= last[1], "bank conflict replays decreased");
                f.saw_replays = true;
                f.last_replays = v;
            } else if (g_str_has_prefix(name, "pipe ") && g_str_has_suffix(name, " occupancy")) {
                /* An OpenCL pipe's packets in use: never negative. */
                ck_assert_int_ge(v, 0);
            } else {
                ck_abort_msg("unknown counter %s", name);
            }
            last[0] = ts;
            last[1] = v;
        } else if (strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0) {
            /* A flow arrow's ends: cycle in args, ts at the clock. */
            JsonObject *args = json_object_get_object_member(e, "args");
            ck_assert(args != NULL);
            int64_t cyc = json_object_get_int_member(args, "cycle");
            ck_assert_double_eq_tol(json_object_get_double_member(e, "ts"), (double) cyc / clock_mhz, 1e-6);
            ck_assert_msg((SimCycle) cyc >= from && (SimCycle) cyc < MAX(end, from + 1), "flow end outside the window");
            ck_assert_str_eq(json_object_get_string_member(e, "cat"), "flow");
            if (ph[0] == 'f') {
                ck_assert_str_eq(json_object_get_string_member(e, "bp"), "e");
            }
            gint64 *id = g_new(gint64, 1);
            *id = json_object_get_int_member(e, "id");
            int64_t *v = g_new(int64_t, 2);
            v[0] = json_object_get_int_member(e, "tid");
            v[1] = cyc;
            GHashTable *h = ph[0] == 's' ? flow_s : flow_f;
            ck_assert_msg(!g_hash_table_contains(h, id), "flow %" G_GINT64_FORMAT " has two '%s'", *id, ph);
            g_hash_table_insert(h, id, v);
        } else if (strcmp(ph, "i") == 0) {
            /* A barrier phase: on a block's barrier track, with its phase. */
            int tid = (int) json_object_get_int_member(e, "tid");
            TidInfo *ti = g_hash_table_lookup(tids, GINT_TO_POINTER(tid));
            ck_assert_msg(ti != NULL && g_str_has_prefix(ti->name, "barriers (block "), "an instant off a barrier track");
            ck_assert_str_eq(json_object_get_string_member(e, "s"), "t");
            ck_assert_str_eq(json_object_get_string_member(e, "cat"), "barrier");
            JsonObject *args = json_object_get_object_member(e, "args");
            ck_assert(args != NULL && json_object_get_int_member(args, "phase") >= 0);
            ck_assert(json_object_has_member(args, "barrier") || json_object_has_member(args, "stage"));
            int64_t cyc = json_object_get_int_member(args, "cycle");
            ck_assert_double_eq_tol(json_object_get_double_member(e, "ts"), (double) cyc / clock_mhz, 1e-6);
            ck_assert((SimCycle) cyc >= from && (SimCycle) cyc < MAX(end, from + 1));
            f.instants++;
        } else {
            ck_abort_msg("unexpected event phase %s", ph);
        }
    }
    ck_assert_int_eq(processes, 1);
    /* Each flow starts in the last cycle of a copy slice and finishes on a
     * warp's track no earlier than the copy landed. */
    ck_assert_int_eq(g_hash_table_size(flow_s), g_hash_table_size(flow_f));
    GHashTableIter fit;
    gpointer fkey, fval;
    g_hash_table_iter_init(&fit, flow_s);
    while (g_hash_table_iter_next(&fit, &fkey, &fval)) {
        const int64_t *s = fval;
        const int64_t *fin = g_hash_table_lookup(flow_f, fkey);
        ck_assert_msg(fin != NULL, "flow %" G_GINT64_FORMAT " never finishes", *(gint64 *) fkey);
        g_autofree char *ce = g_strdup_printf("%d:%" G_GINT64_FORMAT, (int) s[0], s[1] + 1);
        ck_assert_msg(g_hash_table_contains(copy_ends, ce), "flow %" G_GINT64_FORMAT " does not start at a copy's end",
                      *(gint64 *) fkey);
        TidInfo *ti = g_hash_table_lookup(tids, GINT_TO_POINTER((int) fin[0]));
        ck_assert(ti != NULL && g_str_has_prefix(ti->name, "warp "));
        ck_assert_msg(fin[1] > s[1], "flow %" G_GINT64_FORMAT " goes back in time", *(gint64 *) fkey);
        f.flows++;
    }
    ck_assert_int_le(f.flows, f.copy_slices);
    g_hash_table_unref(copy_ends);
    g_hash_table_unref(flow_s);
    g_hash_table_unref(flow_f);
    /* Every warp's track covers the window; with the whole run, its states
     * add up to the statistics. */
    int warps = 0;
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, tids);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        TidInfo *ti = value;
        if (!g_str_has_prefix(ti->name, "warp ")) {
            continue;
        }
        warps++;
        ck_assert_msg(ti->covered_to == end, "%s covered to %" G_GUINT64_FORMAT ", not %" G_GUINT64_FORMAT,
                      ti->name, ti->covered_to, end);
        if (whole) {
            int w = ti->sort_index;
            ck_assert(w >= 0 && w < st->warps);
            for (int s = 0; s < WS__COUNT; s++) {
                ck_assert_msg(ti->state_time[s] == st->warp_state[(size_t) w * WS__COUNT + s],
                              "%s: %s %" G_GUINT64_FORMAT " in the timeline, %" G_GUINT64_FORMAT " in the statistics",
                              ti->name, sim_warp_state_name((SimWarpState) s), ti->state_time[s],
                              st->warp_state[(size_t) w * WS__COUNT + s]);
            }
        }
    }
    ck_assert_int_eq(warps, st->warps);
    if (whole) {
        ck_assert_int_eq(f.copy_slices, (int) (st->cp_async_instructions + st->bulk_copies));
        if (f.saw_bytes) {
            ck_assert_int_eq(f.last_bytes_in_flight, 0);
        }
        if (f.saw_stages) {
            ck_assert_int_eq(f.last_stages, 0);
        }
        ck_assert_int_eq(f.last_replays, (int64_t) (st->smem_wavefronts - st->smem_ideal_wavefronts));
        /* One instant per mbarrier phase and per __syncthreads. */
        ck_assert_int_eq(f.instants, (int) (st->mbar_phases + st->syncthreads));
    }
    g_hash_table_unref(tids);
    g_hash_table_unref(counters);
    g_object_unref(p);
    return f;
}

/* Stages of all block-scope pipelines of a run (the occupancy bound). */
static int64_t total_stages(const TestRun *tr)
{
    int64_t n = 0;
    for (guint i = 0; i < tr->run.prog->pstates->len; i++) {
        n += g_array_index(tr->run.prog->pstates, ProgPState, i).stages;
    }
    return n * tr->run.arch.blocks;
}

/* The bundled traces, sorted. */
static GPtrArray *bundled_traces(void)
{
    GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
    g_autofree char *dir = g_build_filename(SRCDIR, "traces", NULL);
    GDir *d = g_dir_open(dir, 0, NULL);
    ck_assert(d != NULL);
    const char *name;
    while ((name = g_dir_read_name(d)) != NULL) {
        if (g_str_has_suffix(name, ".trace")) {
            g_ptr_array_add(a, g_build_filename("traces", name, NULL));
        }
    }
    g_dir_close(d);
    g_ptr_array_sort(a, (GCompareFunc) g_strcmp0);
    return a;
}

static void check_trace(const char *rel, const char *const *sets)
{
    char *dir = tmpdir_new();
    g_autofree char *json = g_build_filename(dir, "t.json", NULL);
    SimTimelineOptions o = { .json_path = json, .data_dir = dir, .clock_mhz = 0, .from = 0, .to = SIM_CYCLE_NEVER };
    TestRun tr;
    /* The clock goes in the metadata: the bundled h100's at which smpipe
     * runs the trace (arch.clock_mhz x arch.mma_clock_ratio for one with an
     * hmma compute statement: sm_arch_for_program). */
    g_autofree char *path = g_build_filename(SRCDIR, rel, NULL);
    g_autofree char *src = NULL;
    ck_assert(g_file_get_contents(path, &src, NULL, NULL));
    double mhz = strstr(src, "compute(hmma") != NULL ? 1980.0 * 0.90606 : 1980.0;
    o.clock_mhz = mhz;
    o.arch = "h100";
    run_timeline(rel, sets, &o, &tr);
    ck_assert_double_eq_tol(tr.run.arch.clock_mhz, mhz, 0.05);
    JsonFacts f = validate_json(json, tr_stats(&tr), mhz, 0, SIM_CYCLE_NEVER, total_stages(&tr));
    ck_assert_msg(f.slices > 0 && f.counters > 0, "%s: %d slices, %d counters", rel, f.slices, f.counters);
    /* Every run that copies asynchronously has a bytes-in-flight counter
     * (the OpenCL pipe traces copy nothing asynchronously). */
    const SimStats *st = tr_stats(&tr);
    ck_assert_msg(f.saw_bytes || st->cp_async_instructions + st->bulk_copies == 0, "%s: no bytes in flight counter",
                  rel);
    /* Bulk copies and pipelines' copies (block scope: stages; thread
     * scope: cp.async groups) are waited for: arrows join them to their
     * waits, and consumers waiting name their stage. */
    bool block_pipes = tr.run.prog->pstates->len > 0;
    bool thread_pipes = false;
    for (guint i = 0; i < tr.run.prog->ops->len; i++) {
        thread_pipes |= g_array_index(tr.run.prog->ops, Op, i).code == OP_MAKE_PIPE_THREAD;
    }
    if (st->bulk_copies > 0 || ((block_pipes || thread_pipes) && st->cp_async_instructions > 0)) {
        ck_assert_msg(f.flows > 0, "%s: no flow from a copy to its wait", rel);
    }
    if (block_pipes && st->state_total[WS_CONSUMER_WAIT] > 0) {
        ck_assert_msg(f.staged_waits > 0, "%s: no consumer_wait names its stage", rel);
    }
    g_autofree char *layout = g_build_filename(dir, "layout.gp", NULL);
    ck_assert(g_file_test(layout, G_FILE_TEST_IS_REGULAR));
    test_run_clear(&tr);
    tmpdir_free(dir);
}

START_TEST(bundled_traces_are_well_formed)
{
    /* Under the sanitizers every bundled trace runs 4 batches rather than
     * its default (up to 64): the same kinds of events through the same
     * code, and JSON documents of at most 2.2 MB rather than 8.6 MB
     * (the test's CPU time under ASan here: 106 s before, 32 s after). */
#ifdef SMPIPE_TEST_SANITIZED
    const char *const *sets = (const char *const[]) { "batches=4", NULL };
#else
    const char *const *sets = NULL;
#endif
    g_autoptr(GPtrArray) traces = bundled_traces();
    ck_assert_int_ge(traces->len, 5);
    for (guint i = 0; i < traces->len; i++) {
        check_trace(g_ptr_array_index(traces, i), sets);
    }
}
END_TEST

START_TEST(variants_are_well_formed)
{
    /* Single and deep pipelines, two resident blocks (stage tracks per
     * block), wide copies and a bulk-copy source. */
    const char *const s1[] = { "stages=1", NULL };
    const char *const s4[] = { "stages=4", "threads=256", NULL };
    const char *const two[] = { "stages=3", "sm.blocks=2", NULL };
    const char *const wide[] = { "elem_bytes=16", "stages=2", NULL };
    check_trace("traces/with_staging_unified.trace", s1);
    check_trace("traces/with_staging_unified.trace", s4);
    check_trace("traces/with_staging_unified.trace", two);
    check_trace("traces/with_specialized_staging_unified.trace", two);
    check_trace("traces/with_staging.trace", wide);
}
END_TEST

START_TEST(stage_tracks_are_registered_once)
{
    char *dir = tmpdir_new();
    g_autofree char *json = g_build_filename(dir, "t.json", NULL);
    SimTimelineOptions o = { .json_path = json, .clock_mhz = 1980.0, .to = SIM_CYCLE_NEVER };
    const char *const two[] = { "stages=3", "sm.blocks=2", NULL };
    TestRun tr;
    run_timeline("traces/with_staging_unified.trace", two, &o, &tr);
    JsonFacts f = validate_json(json, tr_stats(&tr), 1980.0, 0, SIM_CYCLE_NEVER, total_stages(&tr));
    /* 3 stages in each of 2 blocks, however many batches pass through. */
    ck_assert_int_eq(f.stage_tracks, 6);
    test_run_clear(&tr);
    tmpdir_free(dir);
}
END_TEST

START_TEST(window_clips_everything)
{
    char *dir = tmpdir_new();
    g_autofree char *json = g_build_filename(dir, "w.json", NULL);
    SimTimelineOptions o = { .json_path = json, .data_dir = dir, .clock_mhz = 1980.0, .from = 1000, .to = 3000 };
    const char *const s[] = { "stages=4", NULL };
    TestRun tr;
    run_timeline("traces/with_staging_unified.trace", s, &o, &tr);
    ck_assert_uint_gt(tr_stats(&tr)->cycles, 3000);
    JsonFacts f = validate_json(json, tr_stats(&tr), 1980.0, 1000, 3000, total_stages(&tr));
    ck_assert_int_gt(f.slices, 0);
    /* Stages are in flight at cycle 1000: the counter starts there. */
    JsonParser *p = load_json(json);
    JsonArray *ev = json_object_get_array_member(json_node_get_object(json_parser_get_root(p)), "traceEvents");
    bool starts = false;
    for (guint i = 0; i < json_array_get_length(ev); i++) {
        JsonObject *e = json_array_get_object_element(ev, i);
        if (strcmp(json_object_get_string_member(e, "ph"), "C") == 0 &&
            strcmp(json_object_get_string_member(e, "name"), "stages occupied") == 0) {
            ck_assert_int_eq(llround(json_object_get_double_member(e, "ts") * 1980.0), 1000);
            ck_assert_int_gt(json_object_get_int_member(json_object_get_object_member(e, "args"), "value"), 0);
            starts = true;
            break;
        }
    }
    ck_assert(starts);
    g_object_unref(p);
    /* The picture data lies in the window too. */
    g_autofree char *issuing = g_build_filename(dir, "slices-issuing.dat", NULL);
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(issuing, &text, NULL, NULL));
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    int n = 0;
    for (int i = 0; lines[i] && *lines[i]; i++) {
        guint64 x0 = 0, x1 = 0;
        ck_assert_int_eq(sscanf(lines[i], "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &x0, &x1), 2);
        ck_assert(x0 >= 1000 && x1 <= 3000 && x1 > x0);
        n++;
    }
    ck_assert_int_gt(n, 0);
    g_autofree char *layout_path = g_build_filename(dir, "layout.gp", NULL);
    g_autofree char *layout = NULL;
    ck_assert(g_file_get_contents(layout_path, &layout, NULL, NULL));
    ck_assert_msg(strstr(layout, "t_from = 1000.0\nt_to = 3000.0\n") != NULL, "%s", layout);
    test_run_clear(&tr);
    tmpdir_free(dir);
}
END_TEST

static char *file_text(const char *path)
{
    char *text = NULL;
    ck_assert_msg(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
    return text;
}

START_TEST(same_run_same_bytes)
{
    char *dirs[2];
    char *texts[2], *layouts[2], *slices[2];
    const char *const s[] = { "stages=3", "sm.blocks=2", NULL };
    for (int k = 0; k < 2; k++) {
        dirs[k] = tmpdir_new();
        g_autofree char *json = g_build_filename(dirs[k], "d.json", NULL);
        SimTimelineOptions o = { .json_path = json, .data_dir = dirs[k], .clock_mhz = 1980.0,
                                 .to = SIM_CYCLE_NEVER, .trace = "x.trace", .arch = "h100" };
        TestRun tr;
        run_timeline("traces/with_specialized_staging_unified.trace", s, &o, &tr);
        test_run_clear(&tr);
        texts[k] = file_text(json);
        g_autofree char *l = g_build_filename(dirs[k], "layout.gp", NULL);
        layouts[k] = file_text(l);
        g_autofree char *c = g_build_filename(dirs[k], "slices-cp.async.dat", NULL);
        slices[k] = file_text(c);
    }
    ck_assert(strlen(texts[0]) > 1000);
    ck_assert_msg(strcmp(texts[0], texts[1]) == 0, "two runs wrote different timelines");
    ck_assert_str_eq(layouts[0], layouts[1]);
    ck_assert_str_eq(slices[0], slices[1]);
    for (int k = 0; k < 2; k++) {
        g_free(texts[k]);
        g_free(layouts[k]);
        g_free(slices[k]);
        tmpdir_free(dirs[k]);
    }
}
END_TEST

/* Per (bin, row) the stacked state fractions of binned rows add up to one;
 * returns how many (bin, row) stacks there are. */
static guint check_stacks(const char *dir)
{
    GHashTable *sums = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    while ((name = g_dir_read_name(d)) != NULL) {
        if (!g_str_has_prefix(name, "slices-") || strcmp(name, "slices-cp.async.dat") == 0) {
            continue;
        }
        g_autofree char *p = g_build_filename(dir, name, NULL);
        g_autofree char *text = file_text(p);
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        for (int i = 0; lines[i] && *lines[i]; i++) {
            guint64 x0, x1;
            int row;
            double f0, f1;
            ck_assert_int_eq(sscanf(lines[i], "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %d %lf %lf", &x0, &x1, &row,
                                    &f0, &f1), 5);
            ck_assert(f0 >= 0.0 && f1 <= 1.0 && f1 > f0 && x1 > x0);
            char *key = g_strdup_printf("%" G_GUINT64_FORMAT ":%d", x0, row);
            double *sum = g_hash_table_lookup(sums, key);
            if (sum == NULL) {
                sum = g_new0(double, 1);
                g_hash_table_insert(sums, key, sum);
            } else {
                g_free(key);
            }
            *sum += f1 - f0;
        }
    }
    g_dir_close(d);
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, sums);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        ck_assert_msg(fabs(*(double *) v - 1.0) < 1e-3, "bin %s stacks to %f", (char *) k, *(double *) v);
    }
    guint n = g_hash_table_size(sums);
    g_hash_table_unref(sums);
    return n;
}

START_TEST(role_rows_stack_to_one)
{
    char *dir = tmpdir_new();
    SimTimelineOptions o = { .data_dir = dir, .clock_mhz = 1980.0, .to = SIM_CYCLE_NEVER, .by_role = true };
    TestRun tr;
    run_timeline("traces/with_specialized_staging_unified.trace", NULL, &o, &tr);
    g_autofree char *layout_path = g_build_filename(dir, "layout.gp", NULL);
    g_autofree char *layout = file_text(layout_path);
    ck_assert_msg(strstr(layout, "'producer'") && strstr(layout, "'consumer'"), "%s", layout);
    ck_assert_msg(strstr(layout, "'warp 0'") == NULL, "warp rows in a role picture");
    ck_assert_msg(strstr(layout, "binned = 1") != NULL, "%s", layout);
    ck_assert_uint_gt(check_stacks(dir), 100);
    test_run_clear(&tr);
    tmpdir_free(dir);
}
END_TEST

START_TEST(long_runs_bin_warp_rows)
{
    /* Short runs keep exact slices; long ones draw warps from bins. */
    const char *const short_run[] = { "stages=2", NULL };
    const char *const long_run[] = { "stages=2", "batches=400", NULL };
    const char *const *runs[] = { short_run, long_run };
    for (int k = 0; k < 2; k++) {
        char *dir = tmpdir_new();
        SimTimelineOptions o = { .data_dir = dir, .clock_mhz = 1980.0, .to = SIM_CYCLE_NEVER };
        TestRun tr;
        run_timeline("traces/with_staging_unified.trace", runs[k], &o, &tr);
        g_autofree char *layout_path = g_build_filename(dir, "layout.gp", NULL);
        g_autofree char *layout = file_text(layout_path);
        ck_assert_msg(strstr(layout, k == 0 ? "binned = 0" : "binned = 1") != NULL, "%s", layout);
        ck_assert_msg(strstr(layout, "'warp 3'") != NULL, "%s", layout);
        if (k == 1) {
            ck_assert_uint_ge(check_stacks(dir), 4 * 512);
        }
        test_run_clear(&tr);
        tmpdir_free(dir);
    }
}
END_TEST

/* The sink alone: counter changes dated in the future are written in cycle
 * order once the clock passes them; tracks are deduplicated; slices are
 * clipped to the window. */
/* Each of want[0..n) appears in text, each after the one before. */
static void assert_in_order(const char *text, const char *const *want, size_t n)
{
    const char *at = text;
    for (size_t i = 0; i < n; i++) {
        const char *hit = strstr(at, want[i]);
        ck_assert_msg(hit != NULL, "missing or out of order: %s\nin:\n%s", want[i], text);
        at = hit + strlen(want[i]);
    }
}

START_TEST(sink_orders_counters_and_clips)
{
    char *dir = tmpdir_new();
    g_autofree char *json = g_build_filename(dir, "s.json", NULL);
    SimTimelineOptions o = { .json_path = json, .data_dir = dir, .clock_mhz = 1000.0, .from = 4, .to = 30 };
    GError *err = NULL;
    SimTimeline *t = sim_timeline_open(&o, &err);
    ck_assert(t != NULL);
    int a = sim_timeline_track(t, TRACK_COPY, "copy lane 0", 100000);
    int b = sim_timeline_track(t, TRACK_STAGE, "s stage 0 (block 0)", 50000);
    ck_assert_int_eq(sim_timeline_track(t, TRACK_COPY, "copy lane 0", 100000), a);
    ck_assert_int_ne(a, b);
    sim_timeline_counter_add(t, "bytes in flight", 0, 10, 5);
    sim_timeline_counter_add(t, "bytes in flight", 0, 2, 1);
    sim_timeline_counter_add(t, "bytes in flight", 0, 10, -1);
    sim_timeline_slice(t, a, "cp.async", 2, 12, NULL);
    sim_timeline_counter_add(t, "bytes in flight", 7, 12, -5);
    sim_timeline_slice(t, b, "acquired", 20, 40, NULL);
    /* A change dated before the clock is written at the clock. */
    sim_timeline_counter_add(t, "bytes in flight", 20, 15, 3);
    sim_timeline_slice(t, a, "cp.async", 40, 50, NULL);
    ck_assert(sim_timeline_close(t, &err));
    g_autofree char *text = file_text(json);
    /* Time in microseconds at 1000 MHz; cycles in the slices' args. */
    const char *want[] = {
        "{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"cat\":\"copy\",\"name\":\"cp.async\",\"ts\":0.004000,\"dur\":0.008000,"
        "\"args\":{\"cycle\":4,\"cycles\":8}}",
        "{\"ph\":\"X\",\"pid\":0,\"tid\":2,\"cat\":\"stage\",\"name\":\"acquired\",\"ts\":0.020000,\"dur\":0.010000,"
        "\"args\":{\"cycle\":20,\"cycles\":10}}",
        "{\"ph\":\"C\",\"pid\":0,\"name\":\"bytes in flight\",\"ts\":0.004000,\"args\":{\"value\":1}}",
        "{\"ph\":\"C\",\"pid\":0,\"name\":\"bytes in flight\",\"ts\":0.010000,\"args\":{\"value\":5}}",
        "{\"ph\":\"C\",\"pid\":0,\"name\":\"bytes in flight\",\"ts\":0.012000,\"args\":{\"value\":0}}",
        "{\"ph\":\"C\",\"pid\":0,\"name\":\"bytes in flight\",\"ts\":0.020000,\"args\":{\"value\":3}}",
    };
    assert_in_order(text, want, G_N_ELEMENTS(want));
    ck_assert_msg(strstr(text, "\"cycle\":40") == NULL, "a slice after the window was written");
    ck_assert_msg(strstr(text, "\"clock_mhz\":1000.0") != NULL, "no clock in the metadata");
    /* The picture data holds the counter's nonzero stretches. */
    g_autofree char *cpath = g_build_filename(dir, "counter-bytes_in_flight.dat", NULL);
    g_autofree char *ctext = file_text(cpath);
    ck_assert_str_eq(ctext, "4 10 1\n10 12 5\n20 30 3\n");
    tmpdir_free(dir);
}
END_TEST

/* Occurrences of needle in text.  Not inlined: GCC 12 at -O3 takes the
 * g_autofree text of the caller for dangling here (-Wdangling-pointer). */
G_GNUC_NO_INLINE static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle)) {
        n++;
    }
    return n;
}

START_TEST(sink_joins_flows_and_marks_phases)
{
    char *dir = tmpdir_new();
    g_autofree char *json = g_build_filename(dir, "f.json", NULL);
    SimTimelineOptions o = { .json_path = json, .clock_mhz = 1000.0, .from = 0, .to = SIM_CYCLE_NEVER,
                             .trace = "dir/k.trace" };
    GError *err = NULL;
    SimTimeline *t = sim_timeline_open(&o, &err);
    ck_assert(t != NULL);
    int lane = sim_timeline_track(t, TRACK_COPY, "copy lane 0", 100000);
    int warp = sim_timeline_track(t, TRACK_WARP, "warp 0 (block 0, threads 0-31)", 0);
    int bars = sim_timeline_track(t, TRACK_BARRIER, "barriers (block 0)", 90000);
    SimSliceArgs a = SIM_SLICE_ARGS_INIT;
    a.line = 7;
    a.stage = 1;
    a.bytes = 64;
    sim_timeline_slice(t, lane, "cp.async", 2, 10, &a);
    /* Two copies into stage instance 0, one into instance 1 of slot 3. */
    sim_timeline_flow_start(t, FLOW_STAGE, 0, 3, 0, lane, 10);
    sim_timeline_flow_start(t, FLOW_STAGE, 0, 3, 0, lane, 12);
    sim_timeline_flow_start(t, FLOW_STAGE, 0, 3, 1, lane, 15);
    /* Another block's stage and a barrier of the same numbers differ. */
    sim_timeline_flow_end(t, FLOW_STAGE, 1, 3, 0, warp, 20);
    sim_timeline_flow_end(t, FLOW_BARRIER, 0, 3, 0, warp, 20);
    sim_timeline_flow_end(t, FLOW_STAGE, 0, 3, 0, warp, 20);
    /* The first wait took them: a second consumer gets no arrow. */
    sim_timeline_flow_end(t, FLOW_STAGE, 0, 3, 0, warp, 21);
    /* A wait for a later instance forgets the earlier ones. */
    sim_timeline_flow_start(t, FLOW_BARRIER, 0, 2, 4, lane, 16);
    sim_timeline_flow_end(t, FLOW_BARRIER, 0, 2, 5, warp, 25);
    sim_timeline_flow_end(t, FLOW_BARRIER, 0, 2, 4, warp, 26);
    sim_timeline_flow_end(t, FLOW_STAGE, 0, 3, 1, warp, 30);
    /* cp.async groups 0 to 2 of warp 0; wait_group 1 takes 0 and 1 at
     * once, the next wait group 2. */
    sim_timeline_flow_start(t, FLOW_GROUP, 0, 3, 0, lane, 40);
    sim_timeline_flow_start(t, FLOW_GROUP, 0, 3, 1, lane, 41);
    sim_timeline_flow_start(t, FLOW_GROUP, 0, 3, 2, lane, 42);
    sim_timeline_flow_end_through(t, FLOW_GROUP, 0, 3, 1, warp, 45);
    sim_timeline_flow_end(t, FLOW_GROUP, 0, 3, 2, warp, 50);
    SimSliceArgs p = SIM_SLICE_ARGS_INIT;
    p.barrier = "bar";
    p.phase = 2;
    sim_timeline_instant(t, bars, "barrier 'bar': phase completed", 18, &p);
    ck_assert(sim_timeline_close(t, &err));
    g_autofree char *text = file_text(json);
    const char *want[] = {
        "\"args\":{\"cycle\":2,\"cycles\":8,\"line\":\"k.trace:7\",\"stage\":1,\"bytes\":64}}",
        "{\"ph\":\"s\",\"id\":1,\"pid\":0,\"tid\":1,\"cat\":\"flow\",\"name\":\"copy to wait\",\"ts\":0.009000,"
        "\"args\":{\"cycle\":9}}",
        "{\"ph\":\"f\",\"bp\":\"e\",\"id\":1,\"pid\":0,\"tid\":2,\"cat\":\"flow\",\"name\":\"copy to wait\","
        "\"ts\":0.020000,\"args\":{\"cycle\":20}}",
        "{\"ph\":\"s\",\"id\":2,\"pid\":0,\"tid\":1,\"cat\":\"flow\",\"name\":\"copy to wait\",\"ts\":0.011000,",
        "{\"ph\":\"f\",\"bp\":\"e\",\"id\":2,\"pid\":0,\"tid\":2,",
        "{\"ph\":\"s\",\"id\":3,\"pid\":0,\"tid\":1,\"cat\":\"flow\",\"name\":\"copy to wait\",\"ts\":0.014000,",
        "{\"ph\":\"f\",\"bp\":\"e\",\"id\":3,\"pid\":0,\"tid\":2,\"cat\":\"flow\",\"name\":\"copy to wait\","
        "\"ts\":0.030000,",
        "{\"ph\":\"i\",\"s\":\"t\",\"pid\":0,\"tid\":3,\"cat\":\"barrier\",\"name\":\"barrier 'bar': phase completed\","
        "\"ts\":0.018000,\"args\":{\"cycle\":18,\"barrier\":\"bar\",\"phase\":2}}",
    };
    assert_in_order(text, want, G_N_ELEMENTS(want));
    /* The groups' arrows: two into the wait_group at 45, one into the
     * wait at 50. */
    ck_assert(strstr(text, "\"ph\":\"s\",\"id\":4,\"pid\":0,\"tid\":1,\"cat\":\"flow\",\"name\":\"copy to wait\","
                           "\"ts\":0.039000") != NULL);
    ck_assert(strstr(text, "\"ph\":\"f\",\"bp\":\"e\",\"id\":5,\"pid\":0,\"tid\":2,\"cat\":\"flow\","
                           "\"name\":\"copy to wait\",\"ts\":0.045000") != NULL);
    ck_assert(strstr(text, "\"ph\":\"f\",\"bp\":\"e\",\"id\":6,\"pid\":0,\"tid\":2,\"cat\":\"flow\","
                           "\"name\":\"copy to wait\",\"ts\":0.050000") != NULL);
    ck_assert_int_eq(count_of(text, "\"ph\":\"s\""), 6);
    ck_assert_int_eq(count_of(text, "\"ph\":\"f\""), 6);
    /* Valid JSON. */
    JsonParser *parser = load_json(json);
    g_object_unref(parser);
    tmpdir_free(dir);
}
END_TEST

START_TEST(unwritable_outputs_fail_cleanly)
{
    SimTimelineOptions o = { .json_path = "/nonexistent-dir/x.json", .clock_mhz = 1.0, .to = SIM_CYCLE_NEVER };
    GError *err = NULL;
    ck_assert(sim_timeline_open(&o, &err) == NULL);
    ck_assert(err != NULL && strstr(err->message, "x.json") != NULL);
    g_error_free(err);
    err = NULL;
    SimTimelineOptions d = { .data_dir = "/nonexistent-dir", .clock_mhz = 1.0, .to = SIM_CYCLE_NEVER };
    SimTimeline *t = sim_timeline_open(&d, &err);
    ck_assert(t != NULL);
    int w = sim_timeline_track(t, TRACK_WARP, "warp 0 (block 0, threads 0-31)", 0);
    sim_timeline_warp_slice(t, w, WS_ISSUING, ROLE_NONE, 0, 5, NULL);
    ck_assert(!sim_timeline_close(t, &err));
    ck_assert(err != NULL);
    g_error_free(err);
}
END_TEST

static Suite *timeline_suite(void)
{
    Suite *s = suite_create("timeline");
    TCase *tc = tcase_create("sink");
    tcase_add_test(tc, sink_orders_counters_and_clips);
    tcase_add_test(tc, unwritable_outputs_fail_cleanly);
    tcase_add_test(tc, sink_joins_flows_and_marks_phases);
    suite_add_tcase(s, tc);
    tc = tcase_create("bundled");
    tcase_add_test(tc, bundled_traces_are_well_formed);
    tcase_add_test(tc, variants_are_well_formed);
    tcase_add_test(tc, stage_tracks_are_registered_once);
    suite_add_tcase(s, tc);
    tc = tcase_create("window");
    tcase_add_test(tc, window_clips_everything);
    suite_add_tcase(s, tc);
    tc = tcase_create("determinism");
    tcase_add_test(tc, same_run_same_bytes);
    suite_add_tcase(s, tc);
    tc = tcase_create("roles");
    tcase_add_test(tc, role_rows_stack_to_one);
    tcase_add_test(tc, long_runs_bin_warp_rows);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(timeline_suite());
}
