/* jsonw.h: a small streaming JSON writer.  Keys come out in the order the
 * caller writes them and numbers in a fixed format, so the same data always
 * gives the same bytes; nothing is buffered beyond the output GString or
 * FILE, so it also serves the timeline writer for arbitrarily long runs.
 * The statistics document (report.c) keeps it too, though it is small:
 * json-glib's generator writes `"key" : value` and numbers in its own
 * format, so moving would change the bytes of every committed golden file
 * (tests/golden) and documented example; sensitivity's JSON, which has no
 * golden, is built with json-glib, and every JSON smpipe reads is parsed
 * with it. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    GString *buf;     /* output: appended to (if FILE is NULL) */
    FILE *file;       /* or written to */
    int depth;
    bool first[32];   /* no element written yet at this depth */
    bool pending[32]; /* a key was written at this depth; its value follows */
    bool pretty;
    bool error;       /* a write failed */
} JsonW;

void jsonw_init_string(JsonW *j, GString *buf, bool pretty);
void jsonw_init_file(JsonW *j, FILE *f, bool pretty);
void jsonw_begin_object(JsonW *j);
void jsonw_end_object(JsonW *j);
void jsonw_begin_array(JsonW *j);
void jsonw_end_array(JsonW *j);
/* Starts a member of the current object. */
void jsonw_key(JsonW *j, const char *key);
void jsonw_int(JsonW *j, int64_t v);
void jsonw_uint(JsonW *j, uint64_t v);
/* A double with up to 6 significant digits (%.6g), never NaN/Inf (null). */
void jsonw_double(JsonW *j, double v);
void jsonw_string(JsonW *j, const char *s);
void jsonw_bool(JsonW *j, bool v);
void jsonw_null(JsonW *j);
/* Escapes s as a JSON string (with quotes) into out. */
void jsonw_escape(GString *out, const char *s);
