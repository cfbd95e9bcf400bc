/* sweep.h: parameter sweeps, the parts `smpipe sweep`, `merge` and `plot`
 * share: the space of points (--vary lists and their Cartesian product),
 * shards of it, the CSV table a sweep writes (read back by merge, resume
 * and plot), the blocks per SM a configuration leaves, and the stage-count
 * recommendation.
 *
 * The CSV of a sweep (docs in README.md, "Sweeps") starts with provenance
 * lines "# KEY: VALUE" (report_csv_provenance: smpipe version, format, the
 * trace and its SHA-256, the fixed parameters, the architecture and the
 * SHA-256 of its resolved values), then has one header line and one line
 * per point:
 *
 *   point,AXIS1,...,AXISk,status,<report_csv_header columns>,blocks_per_sm,occupancy_limit,error
 *
 * `point` is the index of the point in the whole Cartesian product (the
 * first --vary varies slowest), so rows sort back into the unsharded order
 * whatever shard or job produced them.  `status` is ok, rejected (the
 * configuration cannot be set up: it does not fit the SM, or the trace
 * rejects the combination), failed (the simulated program broke a rule:
 * misuse, deadlock, race) or limit (the watchdog); the statistics columns
 * of a point that is not ok are empty and `error` holds the first line of
 * its message (the trace named by its base name, so that rows do not
 * depend on the directory the sweep ran in). */
#pragma once

#include "models/arch.h"
#include "sim/lang/program.h"

/* Most points one sweep may have, and most values one list may have. */
#define SWEEP_MAX_POINTS 1000000u
#define SWEEP_MAX_VALUES 100000u

/* One --vary NAME=LIST. */
typedef struct {
    char *name;          /* trace parameter, or architecture key section.key (owned) */
    bool arch;           /* name is an architecture key (it has a '.') */
    GPtrArray *values;   /* char*, in list order, integers in decimal (owned) */
} SweepAxis;

/* Parses LIST: items separated by commas, each a value or a range A..B or
 * A..B:STEP of integers (inclusive, STEP > 0).  With integers, every value
 * must be an integer; otherwise words such as dram or 93.2 are kept as
 * written.  Appends newly allocated strings to values.  Returns false with
 * *error set (SIM_ERROR_INPUT) on an empty item, a malformed or empty
 * range, a repeated value or too many values. */
bool sweep_parse_list(const char *list, bool integers, GPtrArray *values, GError **error);

/* Parses a --vary argument NAME=LIST.  Trace parameters (names without a
 * '.') take integers.  Returns a new axis, or NULL with *error set. */
SweepAxis *sweep_axis_parse(const char *arg, GError **error);
void sweep_axis_free(SweepAxis *axis);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SweepAxis, sweep_axis_free)

/* The number of points of the product of axes (SweepAxis*) in *count.
 * Returns false with *error set when it exceeds SWEEP_MAX_POINTS. */
bool sweep_count_points(const GPtrArray *axes, guint *count, GError **error);
/* The value index on each axis of a point (idx has axes->len entries); the
 * last axis varies fastest. */
void sweep_point_indices(const GPtrArray *axes, guint point, guint *idx);

/* --shard I/N: the points whose index is I-1 modulo N (I counts from 1),
 * so every shard gets a share of every region of the space. */
typedef struct {
    guint index;   /* 1..count */
    guint count;
} SweepShard;

/* Parses "I/N".  Returns false with *error set unless 1 <= I <= N. */
bool sweep_shard_parse(const char *text, SweepShard *out, GError **error);
bool sweep_shard_has(const SweepShard *shard, guint point);


typedef struct {
    guint point;        /* the point column */
    char *line;         /* the row as written, without its newline (owned) */
    GPtrArray *fields;  /* char* (owned) */
} SweepRow;

/* A sweep's CSV, as read back.  Invariants: every row has as many fields
 * as the header has columns; columns[0] is "point" and columns[naxes + 1]
 * is "status". */
typedef struct {
    GPtrArray *meta;    /* char*: the leading "# KEY: VALUE" lines, without their newlines (owned) */
    char *header;       /* the header line, without its newline (owned) */
    GPtrArray *columns; /* char* (owned) */
    guint naxes;        /* varied columns: columns 1..naxes */
    GPtrArray *rows;    /* SweepRow*, in file order until sorted (owned) */
} SweepTable;

/* Parses a sweep CSV.  path names it in messages.  With allow_torn, a last
 * line without its newline (a sweep interrupted while writing) is dropped
 * and *torn set; otherwise it is an error.  Returns a new table, or NULL
 * with *error set (SIM_ERROR_INPUT). */
SweepTable *sweep_table_parse(const char *path, const char *text, gsize len, bool allow_torn, bool *torn,
                              GError **error);
void sweep_table_free(SweepTable *table);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SweepTable, sweep_table_free)

/* The VALUE of a "# KEY: VALUE" line of the table, or NULL. */
const char *sweep_table_meta(const SweepTable *table, const char *key);

/* Checks that table (read from path) has provenance lines in this smpipe's
 * format (REPORT_FORMAT).  Returns false with *error set otherwise. */
bool sweep_table_check_format(const SweepTable *table, const char *path, GError **error);

/* Checks that table (read from path) was made by the same smpipe in this
 * format (sweep_table_check_format), from a trace with the same content, with the same fixed
 * parameters, on the same architecture (name and resolved values) as the
 * provenance lines want (a table, or the lines a sweep would write).
 * Returns false with *error set (SIM_ERROR_INPUT) naming the first
 * difference. */
bool sweep_table_same_origin(const SweepTable *table, const char *path, const SweepTable *want,
                             const char *want_name, GError **error);

/* Sorts the rows by point, dropping exact duplicates.  Returns false with
 * *error set when two rows of one point differ. */
bool sweep_table_sort(SweepTable *table, GError **error);
/* The index of a column, or -1. */
int sweep_table_column(const SweepTable *table, const char *name);
/* A row's field in a named column ("" when the table has no such column). */
const char *sweep_row_field(const SweepTable *table, const SweepRow *row, const char *column);
/* Writes the provenance lines, the header and the rows, each ending in a
 * newline. */
void sweep_table_format(const SweepTable *table, GString *out);

/* The blocks of a program that fit on one SM at once: the least over
 * shared memory, threads, warps, registers and the arch's max_blocks.
 * *limit names the resource that binds (shared_memory, threads, warps,
 * registers, max_blocks; the first in that order on a tie, static). */
int64_t sweep_blocks_per_sm(const Program *prog, const ArchParams *arch, const char **limit);

/* The recommendation for one combination of the axes other than the
 * stage axis. */
typedef struct {
    char *others;        /* "threads=128 mem.source=l2", "" when only the stage axis varies (owned) */
    GArray *rows;        /* guint: table rows with status ok, by increasing stage count */
    guint failed;        /* points of the combination that are not ok */
    int recommended;     /* index into rows: the smallest stage count within the tolerance; -1 if none ran */
    int best;            /* index into rows: the fewest cycles (smallest stage count on a tie); -1 */
} SweepGroup;

void sweep_group_free(SweepGroup *group);

/* The rule: in each combination of the other axes, the smallest value of
 * the axis column whose cycles are within tolerance_pct percent of the
 * combination's fewest.  Returns a new array owning the combinations
 * (SweepGroup*, in the order they first appear in the table, which must
 * be sorted; rows index the table, which must outlive them), or NULL with
 * *error set when the table does not vary axis. */
GPtrArray *sweep_recommend(const SweepTable *table, const char *axis, double tolerance_pct, GError **error);

/* The stage count a row has on the axis. */
int64_t sweep_row_int(const SweepTable *table, const SweepRow *row, const char *column);

/* The fastest point of each copy engine in one combination of the axes
 * other than the engine axis and the stage axis. */
typedef struct {
    char *others;      /* "threads=128", "" when no other axis varies (owned) */
    const char *axis;  /* the engine axis's column name (borrowed from the table) */
    int row[2];        /* table rows: the fastest cp.async point, the fastest bulk-copy point */
} SweepEngines;

void sweep_engines_free(SweepEngines *engines);

/* When an axis picks the copy engine (every ok point of one of its values
 * copies mostly with cp.async, every one of another mostly with bulk copies:
 * the cp_async_bytes and bulk_bytes columns), the fastest point of each
 * engine per combination of the other axes, stage_axis (may be NULL or not
 * varied) left out.  Returns a new array owning the combinations that ran
 * both engines (SweepEngines*, in table order; empty when no axis picks the
 * engine); rows index the table, which must outlive them. */
GPtrArray *sweep_engines(const SweepTable *table, const char *stage_axis);

/* Writes for humans which engine is faster in a combination, by how much,
 * and what bounds each point, arch_cp and arch_bulk being the two points'
 * architectures.  Each line ends in a newline. */
void sweep_explain_engines(const SweepTable *table, const SweepEngines *engines, const ArchParams *arch_cp,
                           const ArchParams *arch_bulk, double tolerance_pct, GString *out);

/* Writes the recommendation of a group for humans: the count and its cost,
 * the reason in one line, the back-of-envelope estimate (latency x
 * bandwidth / bytes per stage) from arch (the group's architecture) and
 * where the simulation differs from it.  Each line ends in a newline. */
void sweep_explain(const SweepTable *table, const char *axis, const SweepGroup *group, const ArchParams *arch,
                   double tolerance_pct, GString *out);
