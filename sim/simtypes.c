/* simtypes.c: the error domain and the bounded file reader. */
#include "sim/simtypes.h"

#include <errno.h>
#include <stdio.h>

G_DEFINE_QUARK(sim-error-quark, sim_error)

int sim_error_exit_status(const GError *error)
{
    if (error != NULL && error->domain == SIM_ERROR &&
        (error->code == SIM_ERROR_PROGRAM || error->code == SIM_ERROR_LIMIT)) {
        return SIM_EXIT_INVALID_PROGRAM;
    }
    return SIM_EXIT_BAD_INPUT;
}

bool sim_read_file(const char *path, gsize max_bytes, char **text, gsize *len, GError **error)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
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
    fclose(f);
    if (!ok) {
        g_byte_array_free(buf, TRUE);
        return false;
    }
    *len = buf->len;
    g_byte_array_append(buf, (const guint8 *) "", 1);
    *text = (char *) g_byte_array_free(buf, FALSE);
    return true;
}
