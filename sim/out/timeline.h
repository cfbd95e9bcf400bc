/* timeline.h: a sink for what happened when, fed by the models while they
 * run and written as it goes: Chrome trace-event JSON (ui.perfetto.dev,
 * chrome://tracing) and the data files of the gnuplot picture
 * (scripts/timeline.gp).  docs/timelines.md describes both.
 *
 * Streaming: slices are written the moment they are emitted.  What the sink
 * keeps is bounded by the SM, never by the run's length: one record per
 * track and per counter, the counter changes dated at or after the current
 * cycle (copies in flight, stages open), and, for --by role pictures, a
 * fixed number of time bins that merge pairwise as the run grows.
 *
 * Tracks are registered once (a track per warp, per pipeline stage, per
 * copy-engine lane); slices on one track must be emitted in order and must
 * not overlap, which the models guarantee (copy lanes are assigned so that
 * overlapping copies go to different tracks). */
#pragma once

#include "sim/core/simtypes.h"
#include "sim/out/stats.h"

typedef struct SimTimeline SimTimeline;

typedef enum {
    TRACK_WARP,
    TRACK_STAGE,
    TRACK_COPY,
    TRACK_BARRIER            /* instant events of barrier phases (no slices) */
} SimTrackKind;

/* What a slice is about, written to its args; a field that does not apply
 * is 0, -1 or NULL as said.  Strings are borrowed for the call. */
typedef struct {
    uint32_t line;           /* trace line of the operation, 0: none (written "FILE:LINE") */
    int64_t stage;           /* pipeline stage slot, or -1 */
    const char *barrier;     /* the barrier involved, or NULL */
    int64_t bytes;           /* a copy's size, or -1 */
    int64_t phase;           /* a barrier's phase (mbarrier) or generation (__syncthreads), or -1 */
} SimSliceArgs;

#define SIM_SLICE_ARGS_INIT { 0, -1, NULL, -1, -1 }

/* What a flow arrow joins: a copy and the wait that consumes it, matched
 * by the object both name (a stage instance, a barrier phase) in a block. */
typedef enum {
    FLOW_STAGE,              /* obj: pipeline slot; instance: stage instance (commits) */
    FLOW_BARRIER,            /* obj: mbarrier; instance: its phase */
    FLOW_GROUP               /* a warp's cp.async commit groups (thread-scope pipelines, cooperative_groups):
                              * block: the warp (SM-wide); obj: 0; instance: the group's number */
} SimFlowKind;

/* What to write.  Strings are borrowed for the duration of the call. */
typedef struct {
    const char *json_path;   /* Chrome trace-event JSON file, or NULL */
    const char *data_dir;    /* existing directory for the gnuplot data files, or NULL */
    double clock_mhz;        /* SM clock, recorded in the metadata */
    SimCycle from, to;       /* window: only [from, to) is written; to = SIM_CYCLE_NEVER: to the end */
    bool by_role;            /* picture rows per role of the running threads, not per warp */
    const char *trace;       /* metadata: the trace's path (may be NULL) */
    const char *arch;        /* metadata: the architecture's name (may be NULL) */
} SimTimelineOptions;

/* Opens the outputs.  Files are written under temporary names and renamed
 * when closed.  Returns a new sink (free it with sim_timeline_close or
 * sim_timeline_abort), or NULL with *error set. */
SimTimeline *sim_timeline_open(const SimTimelineOptions *o, GError **error);

/* Registers a track (name is copied) and returns its id; registering the
 * same kind and name again returns the same id.  sort_index orders tracks
 * in the viewer. */
int sim_timeline_track(SimTimeline *t, SimTrackKind kind, const char *name, int sort_index);

/* A slice [start, end) named `name` (a static or long-lived string) on a
 * stage or copy track, with args (may be NULL: none but its cycles).
 * Empty slices are dropped; slices are clipped to the window. */
void sim_timeline_slice(SimTimeline *t, int track, const char *name, SimCycle start, SimCycle end,
                        const SimSliceArgs *args);

/* A warp track's slice: the warp spent [start, end) in `state`, running
 * threads of `role`, at the operation args describe (may be NULL).  The
 * picture joins adjacent slices of one state. */
void sim_timeline_warp_slice(SimTimeline *t, int track, SimWarpState state, SimRole role, SimCycle start,
                             SimCycle end, const SimSliceArgs *args);

/* The start of a flow arrow: a copy on track `track` landing at cycle
 * `done` (its slice is [.., done)) feeds (kind, block, obj, instance).  Kept
 * until a wait names the same object (sim_timeline_flow_end). */
void sim_timeline_flow_start(SimTimeline *t, SimFlowKind kind, int32_t block, int32_t obj, uint64_t instance,
                             int track, SimCycle done);
/* A wait on warp track `track` passed at cycle `at` on (kind, block, obj,
 * instance): writes an arrow from each copy kept for it, and forgets those
 * and the copies of earlier instances of the same object.  A copy's arrow
 * goes to the first wait that passes on its object. */
void sim_timeline_flow_end(SimTimeline *t, SimFlowKind kind, int32_t block, int32_t obj, uint64_t instance,
                           int track, SimCycle at);
/* The same for a wait that completes every instance up to `instance` at
 * once (cp.async.wait_group N: all but the N newest groups): an arrow from
 * each copy kept for any of them. */
void sim_timeline_flow_end_through(SimTimeline *t, SimFlowKind kind, int32_t block, int32_t obj, uint64_t instance,
                                   int track, SimCycle at);

/* An instant event `name` (copied) at cycle `at` on track `track`, e.g. a
 * barrier phase completing; args as for slices (may be NULL). */
void sim_timeline_instant(SimTimeline *t, int track, const char *name, SimCycle at, const SimSliceArgs *args);

/* Changes counter `name` (a static string; registered on first use) by
 * delta at cycle `at`.  `now` is the simulation's current cycle: the caller
 * promises that no later call has an `at` before it (at >= now), which lets
 * every change before now be written. */
void sim_timeline_counter_add(SimTimeline *t, const char *name, SimCycle now, SimCycle at, int64_t delta);

/* Writes what is pending, finishes and renames the files, and frees t.
 * Returns false with *error on I/O errors (the files are then removed). */
bool sim_timeline_close(SimTimeline *t, GError **error);

/* Discards the partial files (after a failed run) and frees t. */
void sim_timeline_abort(SimTimeline *t);
