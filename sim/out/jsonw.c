/* jsonw.c: the streaming JSON writer. */
#include "sim/out/jsonw.h"

#include <math.h>

static void put(JsonW *j, const char *s, size_t n)
{
    if (j->file != NULL) {
        if (fwrite(s, 1, n, j->file) != n) {
            j->error = true;
        }
    } else {
        g_string_append_len(j->buf, s, (gssize) n);
    }
}

static void puts_(JsonW *j, const char *s)
{
    put(j, s, strlen(s));
}

static void newline(JsonW *j)
{
    if (!j->pretty) {
        return;
    }
    puts_(j, "\n");
    for (int i = 0; i < j->depth; i++) {
        puts_(j, "  ");
    }
}

/* Separator before a value that is an array element. */
static void element(JsonW *j)
{
    if (j->depth > 0 && j->first[j->depth] == false) {
        puts_(j, ",");
    }
    if (j->depth > 0) {
        j->first[j->depth] = false;
        newline(j);
    }
}

void jsonw_init_string(JsonW *j, GString *buf, bool pretty)
{
    memset(j, 0, sizeof *j);
    j->buf = buf;
    j->pretty = pretty;
}

void jsonw_init_file(JsonW *j, FILE *f, bool pretty)
{
    memset(j, 0, sizeof *j);
    j->file = f;
    j->pretty = pretty;
}

/* After jsonw_key the next value follows the colon directly. */
static void value_start(JsonW *j)
{
    if (j->depth > 0 && j->pending[j->depth]) {
        j->pending[j->depth] = false; /* consumed the pending key */
        return;
    }
    element(j);
}

void jsonw_key(JsonW *j, const char *key)
{
    element(j);
    GString *s = g_string_new(NULL);
    jsonw_escape(s, key);
    g_string_append(s, j->pretty ? ": " : ":");
    put(j, s->str, s->len);
    g_string_free(s, TRUE);
    j->pending[j->depth] = true;
}

void jsonw_begin_object(JsonW *j)
{
    value_start(j);
    puts_(j, "{");
    j->depth++;
    g_assert(j->depth < 31);
    j->first[j->depth] = true;
    j->pending[j->depth] = false;
}

void jsonw_end_object(JsonW *j)
{
    bool empty = j->first[j->depth];
    j->depth--;
    if (!empty) {
        newline(j);
    }
    puts_(j, "}");
    if (j->depth == 0) {
        puts_(j, j->pretty ? "\n" : "");
    }
}

void jsonw_begin_array(JsonW *j)
{
    value_start(j);
    puts_(j, "[");
    j->depth++;
    g_assert(j->depth < 31);
    j->first[j->depth] = true;
    j->pending[j->depth] = false;
}

void jsonw_end_array(JsonW *j)
{
    bool empty = j->first[j->depth];
    j->depth--;
    if (!empty) {
        newline(j);
    }
    puts_(j, "]");
}

void jsonw_int(JsonW *j, int64_t v)
{
    char b[32];
    value_start(j);
    g_snprintf(b, sizeof b, "%" G_GINT64_FORMAT, v);
    puts_(j, b);
}

void jsonw_uint(JsonW *j, uint64_t v)
{
    char b[32];
    value_start(j);
    g_snprintf(b, sizeof b, "%" G_GUINT64_FORMAT, v);
    puts_(j, b);
}

void jsonw_double(JsonW *j, double v)
{
    value_start(j);
    if (!isfinite(v)) {
        puts_(j, "null");
        return;
    }
    char b[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd(b, sizeof b, "%.6g", v);
    puts_(j, b);
}

void jsonw_string(JsonW *j, const char *s)
{
    value_start(j);
    GString *o = g_string_new(NULL);
    jsonw_escape(o, s);
    put(j, o->str, o->len);
    g_string_free(o, TRUE);
}

void jsonw_bool(JsonW *j, bool v)
{
    value_start(j);
    puts_(j, v ? "true" : "false");
}

void jsonw_null(JsonW *j)
{
    value_start(j);
    puts_(j, "null");
}

void jsonw_escape(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
        switch (*p) {
        case '"': g_string_append(out, "\\\""); break;
        case '\\': g_string_append(out, "\\\\"); break;
        case '\n': g_string_append(out, "\\n"); break;
        case '\t': g_string_append(out, "\\t"); break;
        case '\r': g_string_append(out, "\\r"); break;
        default:
            if (*p < 0x20 || *p >= 0x7f) {
                g_string_append_printf(out, "\\u%04x", *p);
            } else {
                g_string_append_c(out, (char) *p);
            }
        }
    }
    g_string_append_c(out, '"');
}
