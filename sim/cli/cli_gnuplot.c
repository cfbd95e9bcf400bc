/* cli_gnuplot.c: drawing a picture with gnuplot and a script of scripts/,
 * shared by `smpipe plot` (timelines and sweeps) and `smpipe sensitivity`:
 * finding the script, quoting values for `gnuplot -e`, drawing into a
 * temporary name renamed once gnuplot succeeded, and the messages when
 * gnuplot is missing or fails. */
#include "sim/cli/cli.h"
#include "sim/core/fileio.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The picture formats: the name's extension and gnuplot's terminal. */
static const char *const picture_formats[][2] = {
    { "png", "pngcairo" },
    { "svg", "svg" },
    { "pdf", "pdfcairo" },
};

const char *cli_picture_format(const char *path)
{
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot != NULL && i < G_N_ELEMENTS(picture_formats); i++) {
        if (g_ascii_strcasecmp(dot + 1, picture_formats[i][0]) == 0) {
            return picture_formats[i][0];
        }
    }
    return NULL;
}

/* gnuplot's terminal for a format cli_picture_format returned. */
static const char *terminal_of(const char *fmt)
{
    for (size_t i = 0; i < G_N_ELEMENTS(picture_formats); i++) {
        if (strcmp(fmt, picture_formats[i][0]) == 0) {
            return picture_formats[i][1];
        }
    }
    return NULL;
}

char *cli_find_script(const char *name)
{
    g_auto(GStrv) dirs = sim_data_dirs();
    for (size_t i = 0; dirs[i] != NULL; i++) {
        char *p = g_build_filename(dirs[i], "scripts", name, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_REGULAR)) {
            return p;
        }
        g_free(p);
    }
    return NULL;
}

void cli_gp_define(GString *defs, const char *name, const char *value)
{
    g_string_append_printf(defs, "%s%s = '", defs->len > 0 ? "; " : "", name);
    for (const char *p = value; *p; p++) {
        if (*p == '\'') {
            g_string_append_c(defs, '\'');
        }
        g_string_append_c(defs, *p);
    }
    g_string_append_c(defs, '\'');
}

/* Cairo stamps PDF files with the time they were made (and this cairo
 * ignores SOURCE_DATE_EPOCH): overwrite the date with a fixed one of the
 * same length, so the cross-reference offsets stay valid and the same
 * input gives the same bytes. */
static bool pdf_fix_date(const char *path, GError **error)
{
    g_autofree char *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &data, &len, error)) {
        return false;
    }
    static const char key[] = "/CreationDate (D:";
    static const char fixed[] = "19700101000000";
    const size_t klen = sizeof key - 1, flen = sizeof fixed - 1;
    bool changed = false;
    for (gsize i = 0; i + klen + flen <= len; i++) {
        if (memcmp(data + i, key, klen) == 0) {
            char *d = data + i + klen;
            size_t n = 0;
            while (n < flen && g_ascii_isdigit(d[n])) {
                n++;
            }
            if (n == flen) {
                memcpy(d, fixed, flen);
                changed = true;
            }
        }
    }
    return !changed || g_file_set_contents(path, data, (gssize) len, error);
}

/* defs with the picture's outfile, fmt and term appended: a new string. */
static GString *picture_defs(const char *defs, const char *outfile, const char *fmt)
{
    GString *all = g_string_new(defs);
    cli_gp_define(all, "outfile", outfile);
    cli_gp_define(all, "fmt", fmt);
    cli_gp_define(all, "term", terminal_of(fmt));
    return all;
}

bool cli_gnuplot_draw(const char *script_name, const char *defs, const char *out, const char *data, GError **error)
{
    const char *fmt = cli_picture_format(out);
    if (fmt == NULL) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: the picture's name must end in .png, .svg or .pdf", out);
        return false;
    }
    g_autofree char *script = cli_find_script(script_name);
    g_autofree char *gnuplot = g_find_program_in_path("gnuplot");
    if (gnuplot == NULL || script == NULL) {
        g_autoptr(GString) by_hand = picture_defs(defs, out, fmt);
        g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT,
                    "%s: not drawn: %s; the data is in %s (draw it with: gnuplot -e \"%s\" %s)", out,
                    gnuplot == NULL ? "gnuplot is not installed (apt-get install gnuplot-nox)"
                                    : "the gnuplot script was not found (set SMPIPE_DATADIR)",
                    data, by_hand->str, script != NULL ? script : script_name);
        return false;
    }
    /* gnuplot draws into a temporary name (with the picture's extension),
     * renamed once it succeeded: a failure leaves no half-drawn picture. */
    g_autofree char *tmp = g_strdup_printf("%s.tmp%d.%s", out, (int) getpid(), fmt);
    g_autoptr(GString) all = picture_defs(defs, tmp, fmt);
    const char *argv[] = { gnuplot, "-e", all->str, script, NULL };
    /* Cairo dates PDF files; a fixed date keeps the same input giving the
     * same bytes. */
    g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "SOURCE_DATE_EPOCH", "0", TRUE);
    g_autofree char *child_out = NULL;
    g_autofree char *child_err = NULL;
    int wait_status = 0;
    GError *err = NULL;
    if (!g_spawn_sync(NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &child_out, &child_err, &wait_status,
                      &err) ||
        !g_spawn_check_wait_status(wait_status, &err)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: gnuplot failed (%s)%s%s; the data is in %s", out,
                    err->message, child_err != NULL && *child_err ? ":\n" : "", child_err ? g_strchomp(child_err) : "",
                    data);
        g_error_free(err);
        g_remove(tmp);
        return false;
    }
    if (strcmp(fmt, "pdf") == 0 && !pdf_fix_date(tmp, &err)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s", out, err->message);
        g_error_free(err);
        g_remove(tmp);
        return false;
    }
    if (g_rename(tmp, out) != 0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: cannot write: %s", out, g_strerror(errno));
        g_remove(tmp);
        return false;
    }
    return true;
}

int cli_plot_fail(GError *error)
{
    if (g_error_matches(error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT)) {
        fprintf(stderr, "%s: %s\n", cli_prefix(), error->message);
        g_error_free(error);
        return CLI_EXIT_NO_GNUPLOT;
    }
    return cli_fail(error);
}
