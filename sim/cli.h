/* cli.h: the verbs of the smpipe command and what they share. */
#pragma once

#include "sim/report.h"
#include "sim/runner.h"

int cli_run(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_sweep(int argc, char **argv);
int cli_merge(int argc, char **argv);
int cli_plot(int argc, char **argv);
/* The two halves of `smpipe plot`: a trace's timeline, a sweep's CSV. */
int cli_plot_trace(int argc, char **argv);
int cli_plot_sweep(int argc, char **argv);
int cli_arch(int argc, char **argv);
int cli_cuda(int argc, char **argv);
int cli_validate(int argc, char **argv);
int cli_calibrate(int argc, char **argv);

/* Prints "smpipe: message" to stderr and returns the exit status. */
int cli_fail(GError *error);

/* Writes data to path ("-" = stdout) under a temporary name, renamed when
 * complete, so an interrupted run never leaves a half-written file. */
bool cli_write_file(const char *path, const char *data, gsize len, GError **error);

/* Parses a verb's options.  Returns false (after printing the error) on a
 * bad option; *status then holds the exit status. */
bool cli_parse(GOptionContext *ctx, int *argc, char ***argv, int *status);

/* The --set assignments (a NULL-terminated vector, may be NULL) as a
 * GPtrArray of the same strings; the array is new, the strings borrowed. */
GPtrArray *cli_set_list(char **sets);

/* Fills a ReportInfo from a prepared run (param values are stored in
 * values, which must outlive info). */
void cli_report_info(const SimRun *r, const char *trace_path, SimEngineKind engine, GArray *values, ReportInfo *info);

/* Draws the timeline data written under data_dir into out (png/svg/pdf). */
bool cli_plot_timeline(const char *data_dir, const char *out, const SimRun *r, const char *trace, GError **error);
