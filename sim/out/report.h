/* report.h: what `smpipe run` prints: a readable report, a JSON document
 * (schema in docs/statistics.schema.json) and a flat CSV row.  Every field
 * is defined in docs/statistics.md. */
#pragma once

#include "sim/out/stats.h"

typedef enum {
    REPORT_BY_NONE,
    REPORT_BY_WARP,
    REPORT_BY_ROLE,
    REPORT_BY_LINE      /* needs SimStats.line_state (SmOptions.by_line) */
} ReportBy;

/* The version of the output formats (JSON document, CSV files, validate's
 * manifest): 2 added the provenance (smpipe version, format, SHA-256 of
 * the trace and of the resolved architecture). */
#define REPORT_FORMAT 2

/* The whole launch (launch.grid) as waves of resident blocks: every SM
 * runs gpu.sms x sm.blocks blocks a wave as the simulated SM does, then the
 * remaining blocks, spread one per SM first, make a shorter tail wave
 * (simulated separately with its own blocks per SM and busy SMs); the
 * launch's time adds what no SM's cycles contain (launch.overhead_us). */
typedef struct {
    int64_t grid;             /* blocks in the launch; 0 = no launch given */
    int64_t per_wave;         /* gpu.sms x sm.blocks */
    int64_t full_waves;
    uint64_t wave_cycles;     /* one full wave: the simulated SM's cycles */
    int64_t tail_blocks;      /* blocks of the last, partial wave; 0 = none */
    int64_t tail_per_sm;      /* most blocks on one SM in the tail */
    int64_t tail_sms;         /* SMs the tail keeps busy */
    uint64_t tail_cycles;
    uint64_t cycles;          /* full_waves x wave_cycles + tail_cycles */
    double overhead_us;       /* launch.overhead_us: launch latency and block dispatch */
    double us;                /* cycles at arch.clock_mhz plus overhead_us */
} SimLaunch;

typedef struct {
    const char *trace;          /* path */
    const GPtrArray *source;    /* char*: the trace's lines, for --by line (may be NULL) */
    const char *trace_sha256;   /* SHA-256 of the trace file's bytes, hex; NULL = not known (tests) */
    const char *arch;           /* architecture name */
    char arch_sha256[65];       /* SHA-256 of the resolved architecture (models/arch.h arch_sha256); "" = not known */
    double clock_mhz;
    const GPtrArray *param_names;   /* char*, sorted */
    const GArray *param_values;     /* int64_t, same order */
    const GPtrArray *arch_sets;     /* char* "section.key=value" applied */
    int64_t smem_per_block;     /* bytes, reserve included */
    const char *engine;         /* "event" or "stepped" */
    const SimLaunch *launch;    /* the whole-launch estimate; NULL = none (borrowed) */
} ReportInfo;

/* One line: the verdict on what bounds the run.  Newly allocated. */
char *report_verdict(const SimStats *s);

void report_text(const SimStats *s, const ReportInfo *info, ReportBy by, GString *out);
void report_json(const SimStats *s, const ReportInfo *info, ReportBy by, GString *out);

/* Where the time went: one classification shared by run's verdict (text
 * and JSON) and the sweep's reasons.  The bound is the kind of the warp
 * state holding the most warp-cycles (exited left out; ties by state
 * order); waiting for copies counts only from 15% of warp-cycles on. */
typedef enum {
    BOUND_NOTHING,          /* no warp-cycles */
    BOUND_COPY_LATENCY,     /* consumer_wait, async_wait */
    BOUND_COPY_BANDWIDTH,   /* copy_throttle */
    BOUND_CONSUMER,         /* producer_acquire: the consumers set the pace */
    BOUND_SYNC,             /* block_barrier, mbarrier */
    BOUND_SMEM,             /* bank_conflict */
    BOUND_MEMORY,           /* memory */
    BOUND_DIVERGENCE,       /* divergent */
    BOUND_COMPUTE           /* issuing, not_selected, dependency, math_throttle, or copy waits under 15% */
} ReportBound;

/* The bound of warp-cycles per state (states[WS__COUNT]); *top gets the
 * state that decided it (WS_EXITED for BOUND_NOTHING). */
ReportBound report_bound(const uint64_t states[WS__COUNT], SimWarpState *top);

/* CSV provenance: lines "# KEY: VALUE" for smpipe (version), format
 * (REPORT_FORMAT), trace, trace_sha256, params (the trace's resolved
 * parameters, NAME=VALUE separated by spaces, leaving out the names in
 * skip, char*, which may be NULL), arch, arch_sha256 and arch_set (the
 * architecture keys set, when any).  Each line ends in a newline. */
void report_csv_provenance(const ReportInfo *info, const GPtrArray *skip, GString *out);

/* CSV: the column names (after any leading columns the caller adds) and
 * one row of values, comma separated, no newline. */
void report_csv_header(const ReportInfo *info, GString *out);
void report_csv_row(const SimStats *s, const ReportInfo *info, GString *out);

/* CSV of the --by view (by must not be REPORT_BY_NONE): a header line and
 * one line per warp (columns block, warp), role (role) or trace line with
 * warp-cycles (line, source; line 0 collects exited warps), each followed
 * by warp_cycles and one stall_STATE column per warp state.  Rows end in
 * newlines. */
void report_csv_by(const SimStats *s, const ReportInfo *info, ReportBy by, GString *out);

/* The fraction of copy time hidden behind compute, in [0, 1]. */
double report_hidden_fraction(const SimStats *s);
/* Copy-busy cycles with no compute issuing. */
uint64_t report_exposed_cycles(const SimStats *s);
