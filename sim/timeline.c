/* timeline.c: the streaming Chrome trace-event writer (Perfetto, chrome://tracing).
 * Timestamps are cycles (one "microsecond" of the viewer is one cycle); the
 * SM clock is recorded in the metadata so durations can be converted. */
#include "sim/timeline.h"

#include "sim/jsonw.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

struct SimTimeline {
    char *json_path;
    char *json_tmp;
    FILE *json;
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
        t->json_path = g_strdup(json_path);
        t->json_tmp = g_strdup_printf("%s.tmp%d", json_path, (int) getpid());
        t->json = fopen(t->json_tmp, "w");
        if (t->json == NULL) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: cannot write: %s", json_path, g_strerror(errno));
            g_free(t->json_path);
            g_free(t->json_tmp);
            g_free(t->data_dir);
            g_free(t);
            return NULL;
        }
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
    g_free(t->json_path);
    g_free(t->json_tmp);
    g_free(t->data_dir);
    g_free(t);
}

bool sim_timeline_close(SimTimeline *t, GError **error)
{
    bool ok = true;
    if (t->json != NULL) {
        fputs("\n]}\n", t->json);
        ok = fflush(t->json) == 0 && !ferror(t->json);
        ok = fclose(t->json) == 0 && ok;
        if (ok && rename(t->json_tmp, t->json_path) != 0) {
            ok = false;
        }
        if (!ok) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: write failed: %s", t->json_path, g_strerror(errno));
            remove(t->json_tmp);
        }
    }
    timeline_free(t);
    return ok;
}

void sim_timeline_abort(SimTimeline *t)
{
    if (t->json != NULL) {
        fclose(t->json);
        remove(t->json_tmp);
    }
    timeline_free(t);
}
