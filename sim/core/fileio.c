/* fileio.c: the bounded file reader, the registry of temporary files that
 * a fatal signal removes, and output files renamed into place. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "sim/core/fileio.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char **sim_data_dirs_for(const char *env, const char *exe, const char *build_dir, const char *src_dir,
                         const char *data_dir)
{
    GPtrArray *dirs = g_ptr_array_new();
    if (env != NULL && *env != '\0') {
        g_ptr_array_add(dirs, g_strdup(env));
    }
    /* The build directory as the kernel names the executable (links resolved). */
    char *real_build = realpath(build_dir, NULL);
    const char *b = real_build != NULL ? real_build : build_dir;
    size_t n = strlen(b);
    bool in_build = exe == NULL || (strncmp(exe, b, n) == 0 && exe[n] == '/');
    free(real_build);
    g_ptr_array_add(dirs, g_strdup(in_build ? src_dir : data_dir));
    g_ptr_array_add(dirs, g_strdup(in_build ? data_dir : src_dir));
    g_ptr_array_add(dirs, NULL);
    return (char **) g_ptr_array_free(dirs, FALSE);
}

char **sim_data_dirs(void)
{
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    return sim_data_dirs_for(g_getenv("SMPIPE_DATADIR"), exe, SMPIPE_BUILDDIR, SMPIPE_SRCDIR, SMPIPE_DATADIR);
}

bool sim_read_file(const char *path, gsize max_bytes, char **text, gsize *len, GError **error)
{
    *text = NULL;
    *len = 0;
    bool in = strcmp(path, "-") == 0;
    FILE *f = in ? stdin : fopen(path, "rb");
    if (f == NULL) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: cannot open: %s", path, g_strerror(errno));
        return false;
    }
    /* Read in chunks rather than trusting the size a stat reports: a pipe
     * or a device (/dev/zero) has none, and must not exhaust memory. */
    GByteArray *buf = g_byte_array_new();
    guint8 chunk[65536];
    bool ok = true;
    for (;;) {
        size_t n = fread(chunk, 1, sizeof chunk, f);
        if (n > 0) {
            if (buf->len + n > max_bytes) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: the file is larger than the limit of %"
                            G_GSIZE_FORMAT " bytes", path, max_bytes);
                ok = false;
                break;
            }
            g_byte_array_append(buf, chunk, (guint) n);
        }
        if (n < sizeof chunk) {
            if (ferror(f)) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: cannot read: %s", path, g_strerror(errno));
                ok = false;
            }
            break;
        }
    }
    if (!in) {
        fclose(f);
    }
    if (!ok) {
        g_byte_array_free(buf, TRUE);
        return false;
    }
    *len = buf->len;
    g_byte_array_append(buf, (const guint8 *) "", 1);
    *text = (char *) g_byte_array_free(buf, FALSE);
    return true;
}

/* The registry is a fixed array so that the signal handler can walk it
 * without allocating; updates block the signals it handles. */
static const char *volatile temp_paths[SIM_TEMP_MAX];
static const int temp_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void temp_block(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < G_N_ELEMENTS(temp_signals); i++) {
        sigaddset(&set, temp_signals[i]);
    }
    sigprocmask(SIG_BLOCK, &set, old);
}

void sim_temp_add(const char *path)
{
    sigset_t old;
    temp_block(&old);
    for (size_t i = 0; i < SIM_TEMP_MAX; i++) {
        if (temp_paths[i] == NULL) {
            temp_paths[i] = path;
            break;
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

void sim_temp_remove(const char *path)
{
    sigset_t old;
    temp_block(&old);
    for (size_t i = 0; i < SIM_TEMP_MAX; i++) {
        if (temp_paths[i] == path) {
            temp_paths[i] = NULL;
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

static void temp_cleanup(int sig)
{
    /* Only async-signal-safe calls: unlink, signal, raise. */
    for (size_t i = 0; i < SIM_TEMP_MAX; i++) {
        if (temp_paths[i] != NULL) {
            unlink(temp_paths[i]);
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void sim_temp_install_cleanup(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(temp_signals); i++) {
        /* A signal the parent made us ignore (nohup, a background job's
         * SIGINT) stays ignored. */
        struct sigaction old;
        if (sigaction(temp_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) {
            continue;
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = temp_cleanup;
        sigemptyset(&sa.sa_mask);
        sigaction(temp_signals[i], &sa, NULL);
    }
}

static void output_free(SimOutput *o)
{
    if (o->tmp != NULL) {
        sim_temp_remove(o->tmp);
    }
    g_free(o->path);
    g_free(o->tmp);
    memset(o, 0, sizeof o[0]);
}

bool sim_output_open(SimOutput *o, const char *path, GError **error)
{
    memset(o, 0, sizeof o[0]);
    struct stat st;
    bool in_place = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    if (in_place) {
        o->path = g_strdup(path);
        o->f = fopen(path, "wb");
    } else {
        char *target = realpath(path, NULL);
        o->path = g_strdup(target != NULL ? target : path);
        free(target);
        o->tmp = g_strdup_printf("%s.tmp%d", o->path, (int) getpid());
        /* Registered before it exists: a signal between creating and
         * registering the file would leave it behind. */
        sim_temp_add(o->tmp);
        o->f = fopen(o->tmp, "wb");
    }
    if (o->f == NULL) {
        int saved = errno;
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: cannot write: %s", path, g_strerror(saved));
        output_free(o);
        return false;
    }
    return true;
}

bool sim_output_close(SimOutput *o, GError **error)
{
    errno = 0;
    bool ok = fflush(o->f) == 0 && !ferror(o->f);
    int saved = errno;
    if (fclose(o->f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && o->tmp != NULL && rename(o->tmp, o->path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: write failed: %s", o->path,
                    saved ? g_strerror(saved) : "I/O error");
        if (o->tmp != NULL) {
            remove(o->tmp);
        }
    }
    output_free(o);
    return ok;
}

void sim_output_abort(SimOutput *o)
{
    fclose(o->f);
    if (o->tmp != NULL) {
        remove(o->tmp);
    }
    output_free(o);
}

bool sim_write_file(const char *path, const char *data, gsize len, GError **error)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "cannot write to standard output");
            return false;
        }
        return true;
    }
    /* A temporary name renamed when complete (see SimOutput). */
    SimOutput o;
    if (!sim_output_open(&o, path, error)) {
        return false;
    }
    if (fwrite(data, 1, len, o.f) != len) {
        /* sim_output_close reports the stream's error. */
    }
    return sim_output_close(&o, error);
}
