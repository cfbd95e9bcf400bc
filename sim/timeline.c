/* timeline.c: the streaming Chrome trace-event writer (Perfetto, chrome://tracing).
 * Timestamps are cycles (one "microsecond" of the viewer is one cycle); the
 * SM clock is recorded in the metadata so durations can be converted. */
#include "sim/timeline.h"

#include "sim/fileio.h"

#include "sim/jsonw.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

struct SimTimeline {
    SimOutput out;     /* the JSON file, under a temporary name until closed */
    FILE *json;        /* out.f, or NULL when no JSON is written */
    char *data_dir;
    SimCycle from, to;
    int ntracks;
    bool first;
};

SimTimeline *sim_timeline_open(const char *json_path, const char *data_dir, double clock_mhz, SimCycle from,
                               SimCycle to, GError **error)
{
    SimTimeline *t = g_new0(SimTimeline, 1);
    t->from = from;
    t->to = to;
    t->first = true;
    t->data_dir = g_strdup(data_dir);
    if (json_path != NULL) {
        /* sim_output_open: renamed when complete, never a device replaced. */
        if (!sim_output_open(&t->out, json_path, error)) {
            g_free(t->data_dir);
            g_free(t);
            return NULL;
        }
        t->json = t->out.f;
        fprintf(t->json, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock_mhz\":%.1f,\"time_unit\":\"cycle\"},"
                         "\"traceEvents\":[\n", clock_mhz);
        fprintf(t->json, "{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"SM 0\"}}");
        t->first = false;
    }
    return t;
}

static void event_sep(SimTimeline *t)
{
    if (!t->first) {
        fputs(",\n", t->json);
    }
    t->first = false;
}

int sim_timeline_track(SimTimeline *t, SimTrackKind kind, const char *name, int sort_index)
{
    (void) kind;
    int id = ++t->ntracks;
    if (t->json != NULL) {
        GString *n = g_string_new(NULL);
        jsonw_escape(n, name);
        event_sep(t);
        fprintf(t->json, "{\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":%s}},\n"
                         "{\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
                id, n->str, id, sort_index);
        g_string_free(n, TRUE);
    }
    return id;
}

void sim_timeline_slice(SimTimeline *t, int track, const char *name, SimCycle start, SimCycle end)
{
    if (t->json == NULL || end <= start || end <= t->from || start >= t->to) {
        return;
    }
    event_sep(t);
    fprintf(t->json, "{\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"name\":\"%s\",\"ts\":%" G_GUINT64_FORMAT
                     ",\"dur\":%" G_GUINT64_FORMAT "}", track, name, start, end - start);
}

void sim_timeline_counter(SimTimeline *t, const char *name, SimCycle at, int64_t value)
{
    if (t->json == NULL || at < t->from || at >= t->to) {
        return;
    }
    event_sep(t);
    fprintf(t->json, "{\"ph\":\"C\",\"pid\":0,\"name\":\"%s\",\"ts\":%" G_GUINT64_FORMAT ",\"args\":{\"value\":%"
                     G_GINT64_FORMAT "}}", name, at, value);
}

static void timeline_free(SimTimeline *t)
{
    g_free(t->data_dir);
    g_free(t);
}

bool sim_timeline_close(SimTimeline *t, GError **error)
{
    bool ok = true;
    if (t->json != NULL) {
        fputs("\n]}\n", t->json);
        ok = sim_output_close(&t->out, error);
    }
    timeline_free(t);
    return ok;
}

void sim_timeline_abort(SimTimeline *t)
{
    if (t->json != NULL) {
        sim_output_abort(&t->out);
    }
    timeline_free(t);
}
