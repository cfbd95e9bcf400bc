/* csv.h: the CSV fields of smpipe's outputs (the sweep's, sensitivity's,
 * validate's), RFC 4180: one module quotes them on writing and splits
 * them on reading.  Rows are single lines (smpipe writes no field with a
 * line break unquoted, and reads one row per line). */
#pragma once

#include <glib.h>
#include <stdbool.h>

/* Appends s to out as one CSV field, quoted (quotes doubled) when it holds
 * a comma, a quote or a line break. */
void csv_append_field(GString *out, const char *s);

/* Splits one line into its fields, appended to fields (newly allocated
 * char*; fields must free them).  Returns false when a quoted field is not
 * closed or is followed by something other than a comma. */
bool csv_split_line(const char *line, GPtrArray *fields);
