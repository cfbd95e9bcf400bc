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
    TRACK_COPY
} SimTrackKind;

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
 * stage or copy track.  Empty slices are dropped; slices are clipped to the
 * window. */
void sim_timeline_slice(SimTimeline *t, int track, const char *name, SimCycle start, SimCycle end);
/* The same for a copy of `bytes` bytes (written to the slice's args). */
void sim_timeline_copy_slice(SimTimeline *t, int track, const char *name, SimCycle start, SimCycle end,
                             int64_t bytes);

/* A warp track's slice: the warp spent [start, end) in `state`, running
 * threads of `role`. */
void sim_timeline_warp_slice(SimTimeline *t, int track, SimWarpState state, SimRole role, SimCycle start,
                             SimCycle end);

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
