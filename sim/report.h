/* report.h: what `smpipe run` prints: a readable report, a JSON document
 * (schema in docs/statistics.schema.json) and a flat CSV row.  Every field
 * is defined in docs/statistics.md. */
#pragma once

#include "sim/stats.h"

typedef enum {
    REPORT_BY_NONE,
    REPORT_BY_WARP,
    REPORT_BY_ROLE
} ReportBy;

typedef struct {
    const char *trace;          /* path */
    const char *arch;           /* architecture name */
    double clock_mhz;
    const GPtrArray *param_names;   /* char*, sorted */
    const GArray *param_values;     /* int64_t, same order */
    const GPtrArray *arch_sets;     /* char* "section.key=value" applied */
    int64_t smem_per_block;     /* bytes, reserve included */
    const char *engine;         /* "event" or "stepped" */
} ReportInfo;

/* One line: the verdict on what bounds the run.  Newly allocated. */
char *report_verdict(const SimStats *s);

void report_text(const SimStats *s, const ReportInfo *info, ReportBy by, GString *out);
void report_json(const SimStats *s, const ReportInfo *info, ReportBy by, GString *out);

/* CSV: the column names (after any leading columns the caller adds) and
 * one row of values, comma separated, no newline. */
void report_csv_header(const ReportInfo *info, GString *out);
void report_csv_row(const SimStats *s, const ReportInfo *info, GString *out);

/* The fraction of copy time hidden behind compute, in [0, 1]. */
double report_hidden_fraction(const SimStats *s);
/* Copy-busy cycles with no compute issuing. */
uint64_t report_exposed_cycles(const SimStats *s);
