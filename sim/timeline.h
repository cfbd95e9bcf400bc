/* timeline.h: a sink for what happened when, fed by the models while they
 * run and written as it goes (Chrome trace event JSON for Perfetto, and
 * gnuplot data files).  Nothing is kept in memory beyond one buffered line
 * per output, so a run of any length has a bounded footprint.
 *
 * Tracks are registered once (a track per warp, per pipeline stage, per
 * copy-engine lane); slices on one track must be emitted in order and must
 * not overlap, which the models guarantee (copy lanes are assigned so that
 * overlapping copies go to different tracks). */
#pragma once

#include "sim/simtypes.h"

typedef struct SimTimeline SimTimeline;

typedef enum {
    TRACK_WARP,
    TRACK_STAGE,
    TRACK_COPY
} SimTrackKind;

/* Opens the outputs: a Chrome/Perfetto JSON file (json_path, may be NULL)
 * and a gnuplot data directory (data_dir, may be NULL); clock_mhz is
 * recorded in the metadata.  Files are written under temporary names and
 * renamed when closed.  Returns NULL with *error set on failure. */
SimTimeline *sim_timeline_open(const char *json_path, const char *data_dir, double clock_mhz,
                               SimCycle from, SimCycle to, GError **error);

/* Registers a track; returns its id.  group orders tracks in the viewer. */
int sim_timeline_track(SimTimeline *t, SimTrackKind kind, const char *name, int sort_index);

/* A slice [start, end) named `name` on a track. */
void sim_timeline_slice(SimTimeline *t, int track, const char *name, SimCycle start, SimCycle end);

/* A counter sample: `name` has `value` from cycle t on. */
void sim_timeline_counter(SimTimeline *t, const char *name, SimCycle at, int64_t value);

/* Finishes and renames the files.  Returns false with *error on I/O errors. */
bool sim_timeline_close(SimTimeline *t, GError **error);
/* Discards partial files (after a failed run). */
void sim_timeline_abort(SimTimeline *t);
