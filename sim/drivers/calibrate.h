/* calibrate.h: `smpipe calibrate`: turns the RESULT lines of the
 * calibration microbenchmarks (scripts/calib/run_all.sh, keys described in
 * docs/calibration/README.md) into an architecture file.  The base file's
 * text is kept line for line; each key with a measurement gets the measured
 * value and a "# source: [CAL] measured DATE by smpipe calibrate" comment in
 * place of its old source comment; every other key keeps its value and its
 * source. */
#pragma once

#include <glib.h>
#include <stdbool.h>

/* Rewrites ini_text (an architecture file) with the measurements in
 * results_text (a calib_results.txt; results_name names it in comments and
 * errors).  Appends the new file to out and one line per changed key to
 * report.  Returns FALSE with *error set (SIM_ERROR_INPUT) when the results
 * hold no RESULT line or a value is malformed. */
bool calib_rewrite(const char *ini_text, const char *results_text, const char *results_name, GString *out,
                   GString *report, GError **error);

/* The arch keys calibrate can set, NULL-terminated (for docs and tests). */
const char *const *calib_keys(void);
