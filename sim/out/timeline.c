/* timeline.c: the streaming timeline sink (timeline.h): a Chrome trace-event
 * JSON writer (Perfetto, chrome://tracing) and the data files that
 * scripts/timeline.gp draws.
 *
 * Timestamps are real time: microseconds at the architecture's SM clock
 * (ts_us), so a viewer's durations read as the GPU's; each slice carries
 * its cycle and length in cycles in its args, and what it is about (trace
 * line, stage, barrier, bytes) where the model says.  Flow arrows join a
 * copy to the first wait that passes on what it fills; instant events mark
 * barrier phases.
 *
 * Invariants: every event written lies in the window [from, to) (slices are
 * clipped); on one track events are written in order of their start; a
 * counter's samples are written in cycle order, which is why changes dated
 * in the future wait in a small heap until the simulation's clock passes
 * them. */
#include "sim/out/timeline.h"

#include "sim/core/fileio.h"

#include "sim/out/jsonw.h"

#include <math.h>
#include <stdio.h>

/* Time bins of the picture's binned rows (roles, and warps of long runs);
 * they merge pairwise when the run outgrows them, so a bin is between
 * 1/BINS and 2/BINS of the run. */
#define BINS 1024
/* A warp row keeps its exact slices while it has at most this many in the
 * window (a few per pixel); beyond, warp rows are drawn from their bins. */
#define EXACT_SLICES_PER_ROW (2 * BINS)

/* Picture styles: the warp states, then the copy kinds. */
enum {
    STYLE_CP_ASYNC = WS__COUNT,
    STYLE_BULK,
    STYLE_OTHER_COPY,
    STYLE__COUNT
};

static const struct {
    const char *slug;        /* data file name part (the statistics' state name) */
    const char *legend;      /* the picture's legend */
    const char *color;       /* gnuplot rgb */
} style_info[STYLE__COUNT] = {
    [WS_ISSUING] = { "issuing", "issuing", "#1a7f37" },
    [WS_NOT_SELECTED] = { "not_selected", "not_selected (ready)", "#9be07a" },
    [WS_DEPENDENCY] = { "dependency", "dependency (compute latency)", "#5ab4ac" },
    [WS_MATH_THROTTLE] = { "math_throttle", "math_throttle (pipe busy)", "#2c7fb8" },
    [WS_MIO_THROTTLE] = { "mio_throttle", "mio_throttle (shared-memory path busy)", "#7b3294" },
    [WS_BANK_CONFLICT] = { "bank_conflict", "bank_conflict (replays)", "#c51b7d" },
    [WS_COPY_THROTTLE] = { "copy_throttle", "copy_throttle (copy path full)", "#fdb863" },
    [WS_MEMORY] = { "memory", "memory (global load)", "#8c510a" },
    [WS_CONSUMER_WAIT] = { "consumer_wait", "consumer_wait (stage not landed)", "#d7301f" },
    [WS_PRODUCER_ACQUIRE] = { "producer_acquire", "producer_acquire (no free stage)", "#f4a6a0" },
    [WS_BLOCK_BARRIER] = { "block_barrier", "block_barrier (__syncthreads)", "#6a51a3" },
    [WS_MBARRIER] = { "mbarrier", "mbarrier (barrier wait)", "#bcbddc" },
    [WS_ASYNC_WAIT] = { "async_wait", "async_wait (cp.async wait_group)", "#e7298a" },
    [WS_DIVERGENT] = { "divergent", "divergent (other branch runs)", "#969696" },
    [WS_EXITED] = { "exited", "exited", "#e8e8e8" },
    [STYLE_CP_ASYNC] = { "cp.async", "cp.async copy in flight", "#08519c" },
    [STYLE_BULK] = { "bulk_copy", "bulk copy in flight", "#6baed6" },
    [STYLE_OTHER_COPY] = { "other_copy", "other copy in flight", "#737373" },
};

/* A data file, opened on first use (SimOutput: under a temporary name,
 * renamed when done, removed if the run is interrupted). */
typedef struct {
    char *path;
    SimOutput out;           /* out.f is NULL until opened */
    bool failed;             /* could not be opened */
} OutFile;

typedef struct {
    SimTrackKind kind;
    char *name;
    int sort_index;
    bool drawn;              /* a picture box was written on it */
    uint64_t *bins;          /* warp tracks (picture per warp): [BINS][WS__COUNT] warp-cycles */
    /* Warp tracks: the picture box not yet written, extended while the
     * next slice continues it in the same state and role (slices split by
     * line, stage or barrier draw as one box, as before they were split). */
    int box_state;           /* its state, or -1: none */
    int box_role;
    SimCycle box_from, box_to;
} Track;

/* A copy waiting for the wait that consumes it (sim_timeline_flow_start). */
typedef struct {
    uint64_t instance;       /* the stage instance or barrier phase it fills */
    int track;               /* the copy's track */
    SimCycle done;           /* the cycle it landed */
} FlowSource;

typedef struct {
    const char *name;        /* static */
    int64_t value;           /* after the changes applied so far */
    int64_t max;             /* largest value reached */
    SimCycle since;          /* cycle `value` holds from */
    bool json_started;       /* a sample was written in the window */
    OutFile dat;             /* picture data: "x0 x1 value" for nonzero stretches */
} Counter;

/* A counter change dated at or after the watermark. */
typedef struct {
    SimCycle at;
    uint32_t counter;
    uint64_t seq;
    int64_t delta;
} Pending;

struct SimTimeline {
    char *json_path;
    SimOutput json_out;      /* the JSON file */
    FILE *json;              /* json_out.f, or NULL when no JSON is written */
    bool first_event;
    char *data_dir;          /* NULL when no picture data is written */
    double clock_mhz;
    char *trace, *arch;
    SimCycle from, to;
    SimCycle end;            /* latest cycle seen */
    bool by_role;
    GArray *tracks;          /* Track; track id = index + 1 */
    GHashTable *track_ids;   /* "kind:name" -> id */
    GArray *counters;        /* Counter */
    GArray *heap;            /* Pending, a binary min-heap on (at, counter, seq) */
    uint64_t seq;
    SimCycle watermark;      /* no counter change is dated before it */
    OutFile styles[STYLE__COUNT];
    OutFile layout;          /* layout.gp, written when closing */
    GString *scratch;
    char *trace_base;        /* the trace's file name, for args.line; "trace" when unknown */
    GHashTable *flows;       /* "kind:block:obj" -> GArray of FlowSource, in the order started */
    uint64_t next_flow;      /* id of the next flow arrow */
    /* --by role: role_bins[role][BINS][WS__COUNT] warp-cycles. */
    uint64_t *role_bins[ROLE__COUNT];
    SimCycle bin_width;      /* cycles per bin, from `from` on */
    uint64_t warp_boxes;     /* exact warp slices written to the picture data */
    int warp_rows;
    bool io_error;
};

/* ---------------------------------------------------------------- files */

static void out_init(OutFile *o, const char *path)
{
    o->path = g_strdup(path);
}

static FILE *out_file(SimTimeline *t, OutFile *o)
{
    if (o->out.f == NULL && !o->failed && !sim_output_open(&o->out, o->path, NULL)) {
        o->failed = true;
        t->io_error = true;
    }
    return o->out.f;
}

/* Drops what was written so far (the file is not created). */
static void out_discard(OutFile *o)
{
    if (o->out.f != NULL) {
        sim_output_abort(&o->out);
    }
}

/* Closes and renames (ok) or removes (!ok) the file; frees the name.
 * Returns false if a write failed. */
static bool out_finish(OutFile *o, bool ok)
{
    bool good = !o->failed;
    if (o->out.f != NULL) {
        if (ok) {
            good = sim_output_close(&o->out, NULL) && good;
        } else {
            sim_output_abort(&o->out);
        }
    }
    g_clear_pointer(&o->path, g_free);
    return good;
}

static char *slug(const char *name)
{
    char *s = g_ascii_strdown(name, -1);
    for (char *p = s; *p; p++) {
        if (!g_ascii_isalnum(*p) && *p != '.' && *p != '_') {
            *p = '_';
        }
    }
    return s;
}

/* ------------------------------------------------------------------ JSON */

static void json_sep(SimTimeline *t)
{
    if (!t->first_event) {
        fputs(",\n", t->json);
    }
    t->first_event = false;
}

static void json_meta_string(GString *out, const char *key, const char *value)
{
    jsonw_escape(out, key);
    g_string_append_c(out, ':');
    jsonw_escape(out, value);
    g_string_append_c(out, ',');
}

SimTimeline *sim_timeline_open(const SimTimelineOptions *o, GError **error)
{
    SimTimeline *t = g_new0(SimTimeline, 1);
    t->from = o->from;
    t->to = o->to;
    t->end = o->from;
    t->first_event = true;
    /* A clock of 0 (no architecture) leaves timestamps in cycles. */
    t->clock_mhz = o->clock_mhz > 0.0 ? o->clock_mhz : 1.0;
    t->by_role = o->by_role;
    t->trace = g_strdup(o->trace);
    t->trace_base = o->trace != NULL ? g_path_get_basename(o->trace) : g_strdup("trace");
    t->flows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_array_unref);
    t->arch = g_strdup(o->arch);
    t->data_dir = g_strdup(o->data_dir);
    t->tracks = g_array_new(FALSE, FALSE, sizeof(Track));
    t->track_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    t->counters = g_array_new(FALSE, FALSE, sizeof(Counter));
    t->heap = g_array_new(FALSE, FALSE, sizeof(Pending));
    t->scratch = g_string_new(NULL);
    if (t->data_dir != NULL) {
        for (int s = 0; s < STYLE__COUNT; s++) {
            g_autofree char *base = g_strdup_printf("slices-%s.dat", style_info[s].slug);
            g_autofree char *path = g_build_filename(t->data_dir, base, NULL);
            out_init(&t->styles[s], path);
        }
        if (t->by_role) {
            for (int r = 0; r < ROLE__COUNT; r++) {
                t->role_bins[r] = g_new0(uint64_t, (size_t) BINS * WS__COUNT);
            }
        }
        t->bin_width = 1;
    }
    if (o->json_path != NULL) {
        t->json_path = g_strdup(o->json_path);
        if (!sim_output_open(&t->json_out, o->json_path, error)) {
            sim_timeline_abort(t);
            return NULL;
        }
        t->json = t->json_out.f;
        GString *h = t->scratch;
        g_string_assign(h, "{\"displayTimeUnit\":\"ns\",\"otherData\":{");
        json_meta_string(h, "generator", "smpipe " SMPIPE_VERSION);
        json_meta_string(h, "time_unit", "us");
        g_string_append_printf(h, "\"clock_mhz\":%.1f,", t->clock_mhz);
        if (o->trace != NULL) {
            json_meta_string(h, "trace", o->trace);
        }
        if (o->arch != NULL) {
            json_meta_string(h, "arch", o->arch);
        }
        g_string_append_printf(h, "\"window_from\":%" G_GUINT64_FORMAT, o->from);
        if (o->to != SIM_CYCLE_NEVER) {
            g_string_append_printf(h, ",\"window_to\":%" G_GUINT64_FORMAT, o->to);
        }
        g_string_append(h, "},\"traceEvents\":[\n");
        fputs(h->str, t->json);
        json_sep(t);
        fputs("{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"SM 0\"}}", t->json);
    }
    return t;
}

/* ---------------------------------------------------------------- tracks */

static const char *kind_category(SimTrackKind kind)
{
    switch (kind) {
    case TRACK_WARP: return "warp";
    case TRACK_STAGE: return "stage";
    case TRACK_COPY: return "copy";
    case TRACK_BARRIER: return "barrier";
    }
    return "?";
}

int sim_timeline_track(SimTimeline *t, SimTrackKind kind, const char *name, int sort_index)
{
    g_autofree char *key = g_strdup_printf("%d:%s", (int) kind, name);
    gpointer found = g_hash_table_lookup(t->track_ids, key);
    if (found != NULL) {
        return GPOINTER_TO_INT(found);
    }
    Track tr = { kind, g_strdup(name), sort_index, false, NULL, -1, 0, 0, 0 };
    if (kind == TRACK_WARP && t->data_dir != NULL && !t->by_role) {
        tr.bins = g_new0(uint64_t, (size_t) BINS * WS__COUNT);
        t->warp_rows++;
    }
    g_array_append_val(t->tracks, tr);
    int id = (int) t->tracks->len;
    g_hash_table_insert(t->track_ids, g_steal_pointer(&key), GINT_TO_POINTER(id));
    if (t->json != NULL) {
        GString *n = t->scratch;
        g_string_truncate(n, 0);
        jsonw_escape(n, name);
        json_sep(t);
        fprintf(t->json, "{\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":%s}},\n"
                         "{\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
                id, n->str, id, sort_index);
    }
    return id;
}

/* Clips [*start, *end) to the window; false if nothing is left. */
static bool clip(const SimTimeline *t, SimCycle *start, SimCycle *end)
{
    *start = MAX(*start, t->from);
    *end = MIN(*end, t->to);
    return *end > *start;
}

/* Cycle c in picoseconds at the SM clock, rounded: the one conversion of
 * every timestamp, so that a slice ending at c and the next starting at c
 * meet exactly.  (Cycles up to 2^53 / 1e6 convert exactly in a double.) */
static uint64_t cycle_ps(const SimTimeline *t, SimCycle c)
{
    return (uint64_t) llround((double) c * 1e6 / t->clock_mhz);
}

/* Appends picoseconds ps as microseconds with 6 decimals. */
static void append_us(GString *out, uint64_t ps)
{
    g_string_append_printf(out, "%" G_GUINT64_FORMAT ".%06" G_GUINT64_FORMAT, ps / 1000000, ps % 1000000);
}

/* Appends the args fields a (may be NULL) gives, each after a comma. */
static void append_args(const SimTimeline *t, GString *n, const SimSliceArgs *a)
{
    if (a == NULL) {
        return;
    }
    if (a->line > 0) {
        g_autofree char *where = g_strdup_printf("%s:%u", t->trace_base, a->line);
        g_string_append(n, ",\"line\":");
        jsonw_escape(n, where);
    }
    if (a->stage >= 0) {
        g_string_append_printf(n, ",\"stage\":%" G_GINT64_FORMAT, a->stage);
    }
    if (a->barrier != NULL) {
        g_string_append(n, ",\"barrier\":");
        jsonw_escape(n, a->barrier);
    }
    if (a->bytes >= 0) {
        g_string_append_printf(n, ",\"bytes\":%" G_GINT64_FORMAT, a->bytes);
    }
    if (a->phase >= 0) {
        g_string_append_printf(n, ",\"phase\":%" G_GINT64_FORMAT, a->phase);
    }
}

static void json_slice(SimTimeline *t, int track, const char *name, SimCycle start, SimCycle end,
                       const SimSliceArgs *args)
{
    const Track *tr = &g_array_index(t->tracks, Track, track - 1);
    GString *n = t->scratch;
    g_string_truncate(n, 0);
    g_string_append_printf(n, "{\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"cat\":\"%s\",\"name\":", track,
                           kind_category(tr->kind));
    jsonw_escape(n, name);
    uint64_t ps0 = cycle_ps(t, start);
    g_string_append(n, ",\"ts\":");
    append_us(n, ps0);
    g_string_append(n, ",\"dur\":");
    append_us(n, cycle_ps(t, end) - ps0);
    g_string_append_printf(n, ",\"args\":{\"cycle\":%" G_GUINT64_FORMAT ",\"cycles\":%" G_GUINT64_FORMAT, start,
                           end - start);
    append_args(t, n, args);
    g_string_append(n, "}}");
    json_sep(t);
    fputs(n->str, t->json);
}

/* A picture box: [x0, x1) on row `row`, from fraction f0 to f1 of its height. */
static void data_box(SimTimeline *t, int style, SimCycle x0, SimCycle x1, int row, double f0, double f1)
{
    if (row >= 1 && row <= (int) t->tracks->len) {
        g_array_index(t->tracks, Track, row - 1).drawn = true;
    }
    FILE *f = out_file(t, &t->styles[style]);
    if (f == NULL) {
        return;
    }
    if (f0 == 0.0 && f1 == 1.0) {
        fprintf(f, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %d 0 1\n", x0, x1, row);
    } else {
        fprintf(f, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %d %.4f %.4f\n", x0, x1, row, f0, f1);
    }
}

void sim_timeline_slice(SimTimeline *t, int track, const char *name, SimCycle start, SimCycle end,
                        const SimSliceArgs *args)
{
    if (track < 1 || track > (int) t->tracks->len) {
        return;
    }
    t->end = MAX(t->end, end);
    if (!clip(t, &start, &end)) {
        return;
    }
    if (t->json != NULL) {
        json_slice(t, track, name, start, end, args);
    }
    const Track *tr = &g_array_index(t->tracks, Track, track - 1);
    if (t->data_dir != NULL && tr->kind == TRACK_COPY) {
        int style = strcmp(name, "cp.async") == 0 ? STYLE_CP_ASYNC
                    : strcmp(name, "bulk copy") == 0 ? STYLE_BULK
                                                     : STYLE_OTHER_COPY;
        data_box(t, style, start, end, track, 0.0, 1.0);
    }
}

static void bins_merge(uint64_t *bins)
{
    for (size_t b = 0; b < BINS / 2; b++) {
        for (size_t k = 0; k < WS__COUNT; k++) {
            bins[b * WS__COUNT + k] = bins[2 * b * WS__COUNT + k] + bins[(2 * b + 1) * WS__COUNT + k];
        }
    }
    memset(bins + (size_t) (BINS / 2) * WS__COUNT, 0, (size_t) (BINS / 2) * WS__COUNT * sizeof(uint64_t));
}

/* Makes every row's bins twice as wide. */
static void bins_coarsen(SimTimeline *t)
{
    for (int r = 0; r < ROLE__COUNT; r++) {
        if (t->role_bins[r] != NULL) {
            bins_merge(t->role_bins[r]);
        }
    }
    for (guint i = 0; i < t->tracks->len; i++) {
        Track *tr = &g_array_index(t->tracks, Track, i);
        if (tr->bins != NULL) {
            bins_merge(tr->bins);
        }
    }
    t->bin_width *= 2;
}

/* Adds [start, end) (inside the window) in `state` to a row's bins. */
static void bins_add(SimTimeline *t, uint64_t **bins, SimWarpState state, SimCycle start, SimCycle end)
{
    while (end - t->from > (SimCycle) BINS * t->bin_width) {
        bins_coarsen(t);
    }
    SimCycle w = t->bin_width;
    for (SimCycle b = (start - t->from) / w; b * w + t->from < end; b++) {
        SimCycle lo = MAX(start, t->from + b * w);
        SimCycle hi = MIN(end, t->from + (b + 1) * w);
        (*bins)[b * WS__COUNT + state] += hi - lo;
    }
}

/* Writes a warp track's pending picture box. */
static void warp_box_flush(SimTimeline *t, int track)
{
    Track *tr = &g_array_index(t->tracks, Track, track - 1);
    if (tr->box_state >= 0) {
        data_box(t, tr->box_state, tr->box_from, tr->box_to, track, 0.0, 1.0);
        t->warp_boxes++;
        tr->box_state = -1;
    }
}

void sim_timeline_warp_slice(SimTimeline *t, int track, SimWarpState state, SimRole role, SimCycle start,
                             SimCycle end, const SimSliceArgs *args)
{
    if (track < 1 || track > (int) t->tracks->len) {
        return;
    }
    t->end = MAX(t->end, end);
    if (!clip(t, &start, &end)) {
        return;
    }
    if (t->json != NULL) {
        json_slice(t, track, sim_warp_state_name(state), start, end, args);
    }
    if (t->data_dir != NULL) {
        if (t->by_role) {
            bins_add(t, &t->role_bins[role], state, start, end);
        } else {
            Track *tr = &g_array_index(t->tracks, Track, track - 1);
            bins_add(t, &tr->bins, state, start, end);
            if (tr->box_state == (int) state && tr->box_role == (int) role && tr->box_to == start) {
                tr->box_to = end;
            } else {
                warp_box_flush(t, track);
                tr->box_state = (int) state;
                tr->box_role = (int) role;
                tr->box_from = start;
                tr->box_to = end;
            }
        }
    }
}

/* ----------------------------------------------------- flows, instants */

/* The key of a flow's object in t->flows. */
static void flow_key(char *buf, size_t size, SimFlowKind kind, int32_t block, int32_t obj)
{
    g_snprintf(buf, size, "%d:%d:%d", (int) kind, (int) block, (int) obj);
}

void sim_timeline_flow_start(SimTimeline *t, SimFlowKind kind, int32_t block, int32_t obj, uint64_t instance,
                             int track, SimCycle done)
{
    /* The arrow starts in the copy's last cycle, inside its slice. */
    if (t->json == NULL || track < 1 || track > (int) t->tracks->len || done == 0 || done - 1 < t->from ||
        done - 1 >= t->to) {
        return;
    }
    char key[48];
    flow_key(key, sizeof key, kind, block, obj);
    GArray *a = g_hash_table_lookup(t->flows, key);
    if (a == NULL) {
        a = g_array_new(FALSE, FALSE, sizeof(FlowSource));
        g_hash_table_insert(t->flows, g_strdup(key), a);
    }
    FlowSource f = { instance, track, done };
    g_array_append_val(a, f);
}

/* One flow event: "s" (start) or "f" (finish, bound to the enclosing slice). */
static void json_flow(SimTimeline *t, const char *ph, uint64_t id, int track, SimCycle at)
{
    GString *n = t->scratch;
    g_string_printf(n, "{\"ph\":\"%s\",%s\"id\":%" G_GUINT64_FORMAT ",\"pid\":0,\"tid\":%d,\"cat\":\"flow\","
                    "\"name\":\"copy to wait\",\"ts\":", ph, ph[0] == 'f' ? "\"bp\":\"e\"," : "", id, track);
    append_us(n, cycle_ps(t, at));
    g_string_append_printf(n, ",\"args\":{\"cycle\":%" G_GUINT64_FORMAT "}}", at);
    json_sep(t);
    fputs(n->str, t->json);
}

static void flow_end(SimTimeline *t, SimFlowKind kind, int32_t block, int32_t obj, uint64_t instance, bool through,
                     int track, SimCycle at)
{
    if (t->json == NULL) {
        return;
    }
    char key[48];
    flow_key(key, sizeof key, kind, block, obj);
    GArray *a = g_hash_table_lookup(t->flows, key);
    if (a == NULL) {
        return;
    }
    bool in_window = track >= 1 && track <= (int) t->tracks->len && at >= t->from && at < t->to;
    guint kept = 0;
    for (guint i = 0; i < a->len; i++) {
        FlowSource f = g_array_index(a, FlowSource, i);
        if ((f.instance == instance || (through && f.instance < instance)) && in_window) {
            uint64_t id = ++t->next_flow;
            json_flow(t, "s", id, f.track, f.done - 1);
            json_flow(t, "f", id, track, MAX(at, f.done));
        } else if (f.instance > instance) {
            g_array_index(a, FlowSource, kept++) = f;
        }
    }
    g_array_set_size(a, kept);
}

void sim_timeline_flow_end(SimTimeline *t, SimFlowKind kind, int32_t block, int32_t obj, uint64_t instance,
                           int track, SimCycle at)
{
    flow_end(t, kind, block, obj, instance, false, track, at);
}

void sim_timeline_flow_end_through(SimTimeline *t, SimFlowKind kind, int32_t block, int32_t obj, uint64_t instance,
                                   int track, SimCycle at)
{
    flow_end(t, kind, block, obj, instance, true, track, at);
}

void sim_timeline_instant(SimTimeline *t, int track, const char *name, SimCycle at, const SimSliceArgs *args)
{
    if (t->json == NULL || track < 1 || track > (int) t->tracks->len) {
        return;
    }
    t->end = MAX(t->end, at);
    if (at < t->from || at >= t->to) {
        return;
    }
    const Track *tr = &g_array_index(t->tracks, Track, track - 1);
    GString *n = t->scratch;
    g_string_printf(n, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":0,\"tid\":%d,\"cat\":\"%s\",\"name\":", track,
                    kind_category(tr->kind));
    jsonw_escape(n, name);
    g_string_append(n, ",\"ts\":");
    append_us(n, cycle_ps(t, at));
    g_string_append_printf(n, ",\"args\":{\"cycle\":%" G_GUINT64_FORMAT, at);
    append_args(t, n, args);
    g_string_append(n, "}}");
    json_sep(t);
    fputs(n->str, t->json);
}

/* -------------------------------------------------------------- counters */

static bool pending_before(const Pending *a, const Pending *b)
{
    if (a->at != b->at) {
        return a->at < b->at;
    }
    if (a->counter != b->counter) {
        return a->counter < b->counter;
    }
    return a->seq < b->seq;
}

static void heap_push(GArray *h, Pending p)
{
    g_array_append_val(h, p);
    guint i = h->len - 1;
    Pending *a = (Pending *) h->data;
    while (i > 0) {
        guint parent = (i - 1) / 2;
        if (!pending_before(&a[i], &a[parent])) {
            break;
        }
        Pending tmp = a[i];
        a[i] = a[parent];
        a[parent] = tmp;
        i = parent;
    }
}

static Pending heap_pop(GArray *h)
{
    Pending *a = (Pending *) h->data;
    Pending top = a[0];
    a[0] = a[h->len - 1];
    g_array_set_size(h, h->len - 1);
    guint n = h->len;
    guint i = 0;
    for (;;) {
        guint l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && pending_before(&a[l], &a[m])) {
            m = l;
        }
        if (r < n && pending_before(&a[r], &a[m])) {
            m = r;
        }
        if (m == i) {
            break;
        }
        Pending tmp = a[i];
        a[i] = a[m];
        a[m] = tmp;
        i = m;
    }
    return top;
}

static void json_counter(SimTimeline *t, const Counter *c, SimCycle at, int64_t value)
{
    /* Every arg of a counter event is a series of its own: the cycle is
     * not repeated here (ts x clock_mhz gives it back). */
    GString *n = t->scratch;
    g_string_assign(n, "{\"ph\":\"C\",\"pid\":0,\"name\":");
    jsonw_escape(n, c->name);
    g_string_append(n, ",\"ts\":");
    append_us(n, cycle_ps(t, at));
    g_string_append_printf(n, ",\"args\":{\"value\":%" G_GINT64_FORMAT "}}", value);
    json_sep(t);
    fputs(n->str, t->json);
}

/* Ends the stretch during which c held its value, at cycle `at`. */
static void counter_stretch(SimTimeline *t, Counter *c, SimCycle at)
{
    SimCycle lo = c->since, hi = at;
    if (t->data_dir != NULL && c->value != 0 && clip(t, &lo, &hi)) {
        FILE *f = out_file(t, &c->dat);
        if (f != NULL) {
            fprintf(f, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT "\n", lo, hi, c->value);
        }
    }
    c->since = at;
}

/* Counter c takes `value` at cycle `at` (samples come in cycle order). */
static void counter_set(SimTimeline *t, Counter *c, SimCycle at, int64_t value)
{
    if (value == c->value) {
        return;
    }
    t->end = MAX(t->end, at);
    if (t->json != NULL && at >= t->from && at < t->to) {
        if (!c->json_started && at > t->from && c->value != 0) {
            /* The window opens with the value reached before it. */
            json_counter(t, c, t->from, c->value);
        }
        c->json_started = true;
        json_counter(t, c, at, value);
    }
    counter_stretch(t, c, at);
    c->value = value;
    c->max = MAX(c->max, value);
}

/* Applies every pending change dated before `limit`, one sample per
 * counter and cycle. */
static void counters_flush(SimTimeline *t, SimCycle limit)
{
    while (t->heap->len > 0 && g_array_index(t->heap, Pending, 0).at < limit) {
        Pending p = heap_pop(t->heap);
        Counter *c = &g_array_index(t->counters, Counter, p.counter);
        int64_t value = c->value + p.delta;
        while (t->heap->len > 0) {
            const Pending *next = &g_array_index(t->heap, Pending, 0);
            if (next->at != p.at || next->counter != p.counter) {
                break;
            }
            value += heap_pop(t->heap).delta;
        }
        counter_set(t, c, p.at, value);
    }
}

void sim_timeline_counter_add(SimTimeline *t, const char *name, SimCycle now, SimCycle at, int64_t delta)
{
    if (now > t->watermark) {
        t->watermark = now;
        counters_flush(t, now);
    }
    guint id;
    for (id = 0; id < t->counters->len; id++) {
        const char *n = g_array_index(t->counters, Counter, id).name;
        if (n == name || strcmp(n, name) == 0) {
            break;
        }
    }
    if (id == t->counters->len) {
        Counter c;
        memset(&c, 0, sizeof c);
        c.name = name;
        c.since = 0;
        if (t->data_dir != NULL) {
            g_autofree char *s = slug(name);
            g_autofree char *base = g_strdup_printf("counter-%s.dat", s);
            g_autofree char *path = g_build_filename(t->data_dir, base, NULL);
            out_init(&c.dat, path);
        }
        g_array_append_val(t->counters, c);
    }
    if (delta == 0) {
        return;
    }
    /* A caller breaking its promise would write samples out of order:
     * such a change is dated at the watermark instead. */
    Pending p = { MAX(at, t->watermark), id, t->seq++, delta };
    heap_push(t->heap, p);
}

/* ----------------------------------------------------------------- close */

/* Whether a row's bins hold anything. */
static bool bins_used(const uint64_t *bins)
{
    for (size_t k = 0; k < (size_t) BINS * WS__COUNT; k++) {
        if (bins[k] != 0) {
            return true;
        }
    }
    return false;
}

/* Writes a row's bins as stacked boxes: per bin, each state's share of the
 * row's warp-cycles in it, in the order of the states. */
static void bins_write(SimTimeline *t, const uint64_t *bins, int row, SimCycle end)
{
    SimCycle w = t->bin_width;
    for (SimCycle b = 0; b < BINS && t->from + b * w < end; b++) {
        const uint64_t *v = &bins[b * WS__COUNT];
        uint64_t total = 0;
        for (int s = 0; s < WS__COUNT; s++) {
            total += v[s];
        }
        uint64_t cum = 0;
        for (int s = 0; s < WS__COUNT && total > 0; s++) {
            if (v[s] != 0) {
                data_box(t, s, t->from + b * w, MIN(end, t->from + (b + 1) * w), row, (double) cum / (double) total,
                         (double) (cum + v[s]) / (double) total);
                cum += v[s];
            }
        }
    }
}

/* Rows from bins: one per role seen (--by role), or, when the run has too
 * many slices per warp to draw them one by one, one per warp in place of
 * its exact slices.  Returns whether warp rows are binned. */
static bool binned_rows(SimTimeline *t, SimCycle end, int first_row, int *row_of_role)
{
    int next = first_row;
    for (int r = 0; r < ROLE__COUNT; r++) {
        row_of_role[r] = t->role_bins[r] != NULL && bins_used(t->role_bins[r]) ? next++ : 0;
        if (row_of_role[r] != 0) {
            bins_write(t, t->role_bins[r], row_of_role[r], end);
        }
    }
    if (t->by_role || t->warp_rows == 0 || t->warp_boxes <= (uint64_t) t->warp_rows * EXACT_SLICES_PER_ROW) {
        return false;
    }
    /* Start the warp states' data over. */
    for (int s = 0; s < WS__COUNT; s++) {
        out_discard(&t->styles[s]);
    }
    for (guint i = 0; i < t->tracks->len; i++) {
        const Track *tr = &g_array_index(t->tracks, Track, i);
        if (tr->bins != NULL) {
            bins_write(t, tr->bins, (int) i + 1, end);
        }
    }
    return true;
}

/* A gnuplot single-quoted string. */
static void gp_string(GString *out, const char *s)
{
    g_string_append_c(out, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            g_string_append_c(out, '\'');
        }
        g_string_append_c(out, *p);
    }
    g_string_append_c(out, '\'');
}

static int compare_sort_index(const void *a, const void *b, void *data)
{
    const Track *tracks = data;
    const Track *x = &tracks[*(const int *) a - 1], *y = &tracks[*(const int *) b - 1];
    if (x->sort_index != y->sort_index) {
        return x->sort_index < y->sort_index ? -1 : 1;
    }
    return *(const int *) a - *(const int *) b;
}

/* The picture's short label of a track. */
static char *row_label(const Track *tr, bool many_blocks)
{
    int warp, block;
    if (tr->kind == TRACK_WARP && sscanf(tr->name, "warp %d (block %d", &warp, &block) == 2) {
        return many_blocks ? g_strdup_printf("block %d warp %d", block, warp) : g_strdup_printf("warp %d", warp);
    }
    return g_strdup(tr->name);
}

/* Lays out a band of rows from y down; returns the y below it. */
static double layout_band(GString *tics, const int *rows, int n, double y, double max_units,
                          double row_units, double *row_y, double *row_h, char **labels)
{
    if (n == 0) {
        return y;
    }
    double unit = MIN(row_units, max_units / n);
    int every = (n + 23) / 24;
    for (int i = 0; i < n; i++) {
        row_y[rows[i]] = y + i * unit + 0.1 * unit;
        row_h[rows[i]] = 0.8 * unit;
        if (i % every == 0) {
            if (tics->len > 0) {
                g_string_append(tics, ", ");
            }
            gp_string(tics, labels[i]);
            g_string_append_printf(tics, " %.4f", y + (i + 0.5) * unit);
        }
    }
    return y + n * unit;
}

/* Writes layout.gp: the rows, styles and range scripts/timeline.gp needs. */
static void write_layout(SimTimeline *t, SimCycle end)
{
    const int ntracks = (int) t->tracks->len;
    const int nrows = ntracks + ROLE__COUNT;
    const Track *tracks = (const Track *) t->tracks->data;
    int row_of_role[ROLE__COUNT] = { 0 };
    bool warps_binned = binned_rows(t, end, ntracks + 1, row_of_role);
    g_autofree double *row_y = g_new0(double, nrows + 1);
    g_autofree double *row_h = g_new0(double, nrows + 1);
    g_autofree int *warps = g_new0(int, nrows + 1);
    g_autofree int *lanes = g_new0(int, nrows + 1);
    g_autofree char **wlabels = g_new0(char *, nrows + 1);
    g_autofree char **llabels = g_new0(char *, nrows + 1);
    int nw = 0, nl = 0;
    bool many_blocks = false;
    for (int i = 0; i < ntracks; i++) {
        int warp, block;
        if (tracks[i].kind == TRACK_WARP && sscanf(tracks[i].name, "warp %d (block %d", &warp, &block) == 2 &&
            block > 0) {
            many_blocks = true;
        }
    }
    for (int i = 0; i < ntracks; i++) {
        if (tracks[i].kind == TRACK_WARP && !t->by_role) {
            warps[nw++] = i + 1;
        } else if (tracks[i].kind == TRACK_COPY && tracks[i].drawn) {
            lanes[nl++] = i + 1;
        }
    }
    g_qsort_with_data(warps, nw, sizeof(int), compare_sort_index, (gpointer) tracks);
    g_qsort_with_data(lanes, nl, sizeof(int), compare_sort_index, (gpointer) tracks);
    for (int i = 0; i < nw; i++) {
        wlabels[i] = row_label(&tracks[warps[i] - 1], many_blocks);
    }
    for (int i = 0; i < nl; i++) {
        llabels[i] = row_label(&tracks[lanes[i] - 1], false);
    }
    double row_units = 1.0;
    if (t->by_role) {
        for (int r = 0; r < ROLE__COUNT; r++) {
            if (row_of_role[r] != 0) {
                warps[nw] = row_of_role[r];
                wlabels[nw++] = g_strdup(sim_role_name((SimRole) r));
            }
        }
        row_units = 2.0;
    }

    GString *gp = g_string_new("# layout.gp: written by smpipe for scripts/timeline.gp (docs/timelines.md)\n");
    g_autoptr(GString) tics = g_string_new(NULL);
    double y = 0.0;
    y = layout_band(tics, warps, nw, y, 32.0, row_units, row_y, row_h, wlabels);
    double sep_copy = y + 0.3;
    y = nl > 0 ? layout_band(tics, lanes, nl, y + 0.6, 12.0, 0.6, row_y, row_h, llabels) : y;
    const Counter *occ = NULL;
    for (guint i = 0; i < t->counters->len; i++) {
        const Counter *c = &g_array_index(t->counters, Counter, i);
        if (strcmp(c->name, "stages occupied") == 0 && c->max > 0 && c->dat.out.f != NULL) {
            occ = c;
        }
    }
    double sep_occ = y + 0.3;
    double occ_y0 = 0.0, occ_h = 3.0;
    if (occ != NULL) {
        occ_y0 = y + 0.6 + occ_h;
        y = occ_y0;
        g_autofree char *label = g_strdup_printf("stages occupied (0-%" G_GINT64_FORMAT ")", occ->max);
        if (tics->len > 0) {
            g_string_append(tics, ", ");
        }
        gp_string(tics, label);
        g_string_append_printf(tics, " %.4f", occ_y0 - occ_h / 2);
    }
    g_string_append_printf(gp, "t_from = %" G_GUINT64_FORMAT ".0\nt_to = %" G_GUINT64_FORMAT ".0\n"
                           "clock_mhz = %.1f\ny_max = %.4f\n",
                           t->from, MAX(end, t->from + 1), t->clock_mhz, MAX(y + 0.2, 1.0));
    /* Rows drawn from bins show each state's share of a bin. */
    g_string_append_printf(gp, "binned = %d\nbin_cycles = %" G_GUINT64_FORMAT "\n", warps_binned || t->by_role,
                           t->bin_width);
    g_string_append_printf(gp, "array RowY[%d]\narray RowH[%d]\n", nrows, nrows);
    for (int i = 1; i <= nrows; i++) {
        if (row_h[i] > 0) {
            g_string_append_printf(gp, "RowY[%d] = %.4f; RowH[%d] = %.4f\n", i, row_y[i], i, row_h[i]);
        } else {
            g_string_append_printf(gp, "RowY[%d] = NaN; RowH[%d] = NaN\n", i, i);
        }
    }
    g_string_append_printf(gp, "set ytics (%s)\n", tics->str);
    if (nw > 0 && (nl > 0 || occ != NULL)) {
        g_string_append_printf(gp, "set arrow from graph 0, first %.4f to graph 1, first %.4f nohead"
                               " lc rgb '#808080' dt 2\n", sep_copy, sep_copy);
    }
    if (nl > 0 && occ != NULL) {
        g_string_append_printf(gp, "set arrow from graph 0, first %.4f to graph 1, first %.4f nohead"
                               " lc rgb '#808080' dt 2\n", sep_occ, sep_occ);
    }
    int nstyles = 0;
    GString *files = g_string_new(NULL);
    for (int s = 0; s < STYLE__COUNT; s++) {
        if (t->styles[s].out.f == NULL) {
            continue;
        }
        nstyles++;
        g_autofree char *base = g_path_get_basename(t->styles[s].path);
        const char *name = style_info[s].legend;
        g_string_append_printf(files, "StyleFile[%d] = ", nstyles);
        gp_string(files, base);
        g_string_append_printf(files, "; StyleName[%d] = ", nstyles);
        gp_string(files, name);
        g_string_append_printf(files, "; StyleColor[%d] = '%s'\n", nstyles, style_info[s].color);
    }
    g_string_append_printf(gp, "n_styles = %d\narray StyleFile[%d]\narray StyleName[%d]\narray StyleColor[%d]\n%s",
                           nstyles, MAX(nstyles, 1), MAX(nstyles, 1), MAX(nstyles, 1), files->str);
    if (occ != NULL) {
        g_autofree char *base = g_path_get_basename(occ->dat.path);
        g_string_append(gp, "n_occ = 1\nocc_file = ");
        gp_string(gp, base);
        g_string_append_printf(gp, "\nocc_y0 = %.4f\nocc_h = %.4f\nocc_max = %" G_GINT64_FORMAT ".0\n", occ_y0,
                               occ_h * 0.9, occ->max);
    } else {
        g_string_append(gp, "n_occ = 0\nocc_file = ''\nocc_y0 = 0\nocc_h = 1\nocc_max = 1\n");
    }
    g_string_free(files, TRUE);
    for (int i = 0; i <= nrows; i++) {
        g_free(wlabels[i]);
        g_free(llabels[i]);
    }
    g_autofree char *path = g_build_filename(t->data_dir, "layout.gp", NULL);
    out_init(&t->layout, path);
    FILE *f = out_file(t, &t->layout);
    if (f != NULL) {
        fputs(gp->str, f);
    }
    g_string_free(gp, TRUE);
}

/* Finishes (keep) or removes the data files and frees t.  Returns false if
 * a data file could not be written. */
static bool timeline_free(SimTimeline *t, bool keep)
{
    for (int s = 0; s < STYLE__COUNT; s++) {
        if (!out_finish(&t->styles[s], keep)) {
            t->io_error = true;
        }
    }
    if (!out_finish(&t->layout, keep)) {
        t->io_error = true;
    }
    for (guint i = 0; i < t->counters->len; i++) {
        if (!out_finish(&g_array_index(t->counters, Counter, i).dat, keep)) {
            t->io_error = true;
        }
    }
    for (guint i = 0; i < t->tracks->len; i++) {
        g_free(g_array_index(t->tracks, Track, i).name);
        g_free(g_array_index(t->tracks, Track, i).bins);
    }
    g_array_free(t->tracks, TRUE);
    g_hash_table_unref(t->track_ids);
    g_array_free(t->counters, TRUE);
    g_array_free(t->heap, TRUE);
    g_string_free(t->scratch, TRUE);
    for (int r = 0; r < ROLE__COUNT; r++) {
        g_free(t->role_bins[r]);
    }
    g_free(t->json_path);
    g_free(t->data_dir);
    g_free(t->trace);
    g_free(t->trace_base);
    g_hash_table_unref(t->flows);
    g_free(t->arch);
    bool ok = !t->io_error;
    g_free(t);
    return ok;
}

bool sim_timeline_close(SimTimeline *t, GError **error)
{
    counters_flush(t, SIM_CYCLE_NEVER);
    for (guint i = 0; i < t->tracks->len; i++) {
        warp_box_flush(t, (int) i + 1);
    }
    SimCycle end = MIN(t->end, t->to);
    for (guint i = 0; i < t->counters->len; i++) {
        Counter *c = &g_array_index(t->counters, Counter, i);
        if (t->json != NULL && !c->json_started && c->value != 0 && t->from < end) {
            /* Changed before the window only: it holds its value throughout. */
            json_counter(t, c, t->from, c->value);
        }
        counter_stretch(t, c, MAX(end, c->since));
    }
    if (t->data_dir != NULL) {
        write_layout(t, end);
    }
    g_autoptr(GError) json_error = NULL;
    bool ok = !t->io_error;
    if (t->json != NULL) {
        fputs("\n]}\n", t->json);
        if (ok) {
            ok = sim_output_close(&t->json_out, &json_error);
        } else {
            sim_output_abort(&t->json_out);
        }
        t->json = NULL;
    }
    /* Keep the data files only if everything was written. */
    g_autofree char *where = g_strdup(t->json_path != NULL ? t->json_path : t->data_dir);
    ok = timeline_free(t, ok) && ok;
    if (json_error != NULL) {
        g_propagate_error(error, g_steal_pointer(&json_error));
    } else if (!ok) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: timeline write failed", where);
    }
    return ok;
}

void sim_timeline_abort(SimTimeline *t)
{
    if (t->json != NULL) {
        sim_output_abort(&t->json_out);
    }
    (void) timeline_free(t, false);
}
