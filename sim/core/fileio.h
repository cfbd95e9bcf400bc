/* fileio.h: reading input files with a size limit, and writing output
 * files so that nobody ever sees half of one (docs/reliability.md). */
#pragma once

#include "sim/core/simtypes.h"

#include <stdio.h>

/* Files being written under a temporary name (renamed when complete).  A
 * process killed by SIGINT, SIGTERM or SIGHUP removes them before it dies,
 * once sim_temp_install_cleanup has run, so an interrupted run leaves
 * neither a half-written output nor its temporary file.  At most
 * SIM_TEMP_MAX at a time; the path must stay valid until removed. */
#define SIM_TEMP_MAX 256
void sim_temp_add(const char *path);
void sim_temp_remove(const char *path);
void sim_temp_install_cleanup(void);

/* An output file being written.  A new or regular file is written under
 * the temporary name PATH.tmpPID (registered with sim_temp_add) and renamed
 * over PATH when complete, so that readers never see a part of it and an
 * interrupted or failed run leaves nothing behind.  A path that exists and
 * is not a regular file (/dev/null, /dev/stdout, a FIFO) is written in
 * place: renaming over it would replace the device.  A symbolic link is
 * followed: the file it names is replaced, the link stays. */
typedef struct {
    FILE *f;       /* write here */
    char *path;    /* the file replaced at close (owned) */
    char *tmp;     /* the temporary name, or NULL when written in place (owned) */
} SimOutput;

/* Returns false with *error set (SIM_ERROR_INPUT, naming the path). */
bool sim_output_open(SimOutput *o, const char *path, GError **error);
/* Flushes, closes and renames; on failure removes the temporary file and
 * returns false with *error set.  Frees o's fields either way. */
bool sim_output_close(SimOutput *o, GError **error);
/* Closes and removes the temporary file (a failed run). */
void sim_output_abort(SimOutput *o);

/* Reads a whole file (a trace, an architecture file) of at most max_bytes
 * into *text (newly allocated, NUL-terminated; free with g_free) and *len;
 * path "-" reads standard input.
 * Returns false with *error set (SIM_ERROR_INPUT, naming the path) when the
 * file cannot be read or is larger than max_bytes. */
/* The directories smpipe finds its data in (arch/, scripts/), in the order
 * to look: $SMPIPE_DATADIR when set; then, for an executable inside the
 * build directory it was built in, the source tree before the installed
 * data directory, and for any other (an installed smpipe) the installed
 * data directory first.  Returns a new NULL-terminated vector. */
char **sim_data_dirs(void);
/* The same for given values (tests): env ($SMPIPE_DATADIR, may be NULL),
 * exe (the executable's resolved path; NULL: unknown, taken as the build
 * tree), and the build, source and installed data directories. */
char **sim_data_dirs_for(const char *env, const char *exe, const char *build_dir, const char *src_dir,
                         const char *data_dir);

bool sim_read_file(const char *path, gsize max_bytes, char **text, gsize *len, GError **error);

/* Writes data to path ("-" = stdout) under a temporary name, renamed when
 * complete, so an interrupted run never leaves a half-written file. */
bool sim_write_file(const char *path, const char *data, gsize len, GError **error);
