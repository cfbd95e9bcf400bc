/* csv.c: CSV fields, quoted and split (see csv.h). */
#include "sim/out/csv.h"

#include <string.h>

void csv_append_field(GString *out, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        g_string_append(out, s);
        return;
    }
    g_string_append_c(out, '"');
    for (; *s; s++) {
        if (*s == '"') {
            g_string_append_c(out, '"');
        }
        g_string_append_c(out, *s);
    }
    g_string_append_c(out, '"');
}

bool csv_split_line(const char *line, GPtrArray *fields)
{
    g_autoptr(GString) f = g_string_new(NULL);
    const char *p = line;
    for (;;) {
        g_string_truncate(f, 0);
        if (*p == '"') {
            for (p++;; p++) {
                if (*p == '\0') {
                    return false;
                }
                if (*p == '"') {
                    if (p[1] != '"') {
                        p++;
                        break;
                    }
                    p++;
                }
                g_string_append_c(f, *p);
            }
            if (*p != ',' && *p != '\0') {
                return false;
            }
        } else {
            while (*p != '\0' && *p != ',') {
                g_string_append_c(f, *p++);
            }
        }
        g_ptr_array_add(fields, g_strdup(f->str));
        if (*p == '\0') {
            return true;
        }
        p++;
    }
}
