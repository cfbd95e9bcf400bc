/* cli_calibrate.c: `smpipe calibrate`: runs the calibration microbenchmarks
 * on this machine's GPU (or reads their results) and writes an architecture
 * file with the measured values (sim/drivers/calibrate.h). */
#include "sim/cli/cli.h"
#include "sim/drivers/calibrate.h"
#include "sim/drivers/validate.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <unistd.h>

/* Runs run_all.sh into a new directory; returns calib_results.txt's path. */
static char *run_benchmarks(GError **error)
{
    /* Installed with smpipe (DATADIR/smpipe/scripts/calib): it builds the
     * benchmarks in a temporary directory, so it may sit read-only. */
    g_autofree char *script = cli_find_script("calib/run_all.sh");
    if (script == NULL) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT,
                    "scripts/calib/run_all.sh not found (set SMPIPE_DATADIR to the smpipe source tree or the"
                    " installed share/smpipe)");
        return NULL;
    }
    g_autofree char *dir = g_dir_make_tmp("smpipe-calib-XXXXXX", error);
    if (dir == NULL) {
        return NULL;
    }
    const char *argv[] = { "bash", script, NULL };
    g_auto(GStrv) envp = g_environ_setenv(g_get_environ(), "OUT", dir, TRUE);
    g_autofree char *nvcc = validate_find_nvcc();
    if (nvcc != NULL && g_getenv("NVCC") == NULL) {
        envp = g_environ_setenv(envp, "NVCC", nvcc, TRUE);
    }
    fprintf(stderr, "smpipe calibrate: running %s (output in %s)\n", script, dir);
    gint wait = 0;
    if (!g_spawn_sync(NULL, (char **) argv, envp, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                      NULL, &wait, error)) {
        return NULL;
    }
    char *res = g_build_filename(dir, "calib_results.txt", NULL);
    if (!g_file_test(res, G_FILE_TEST_IS_REGULAR)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s wrote no %s", script, res);
        g_free(res);
        return NULL;
    }
    return res;
}

int cli_calibrate(int argc, char **argv)
{
    g_auto(CliArchOptions) ao = { 0 };
    g_autofree char *out = NULL;
    g_autofree char *from = NULL;
    GOptionEntry entries[] = {
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "The architecture file to write (required)", "FILE.ini" },
        { "from-results", 0, 0, G_OPTION_ARG_FILENAME, &from, "Use a calib_results.txt instead of running the benchmarks", "FILE" },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("--arch NAME|FILE -o FILE.ini - measure this GPU and write an"
                                                         " architecture file");
    g_option_context_set_description(ctx,
        "Runs scripts/calib/run_all.sh (needs an NVIDIA GPU and nvcc), maps its RESULT lines to architecture\n"
        "keys (docs/calibration/README.md) and writes the --arch file with the measured values, each with a\n"
        "'# source: [CAL] measured DATE by smpipe calibrate' comment.  Keys it cannot measure keep their\n"
        "values and sources.");
    cli_add_arch_options(ctx, &ao, "The architecture file to start from, name or .ini (required)", NULL);
    g_option_context_add_main_entries(ctx, entries, NULL);
    int status;
    if (!cli_parse(ctx, &argc, &argv, &status)) {
        return status;
    }
    const char *arch = ao.arch;
    if (argc != 1 || arch == NULL || out == NULL) {
        fprintf(stderr, "smpipe calibrate: expected --arch NAME -o FILE.ini [--from-results FILE]\n");
        return SIM_EXIT_BAD_INPUT;
    }
    g_autofree char *base = arch_find_file(arch);
    if (base == NULL) {
        fprintf(stderr, "smpipe calibrate: no architecture file for '%s' (smpipe arch list)\n", arch);
        return SIM_EXIT_BAD_INPUT;
    }
    GError *err = NULL;
    g_autofree char *results = NULL;
    if (from != NULL) {
        results = g_strdup(from);
    } else {
        g_autofree char *why = NULL;
        if (!validate_have_gpu(&why)) {
            fprintf(stderr, "smpipe calibrate: %s; run scripts/calib/run_all.sh on a GPU machine and use"
                            " --from-results calib_results.txt\n", why);
            return SIM_EXIT_BAD_INPUT;
        }
        results = run_benchmarks(&err);
        if (results == NULL) {
            return cli_fail(err);
        }
    }
    g_autofree char *ini = NULL;
    g_autofree char *res = NULL;
    if (!g_file_get_contents(base, &ini, NULL, &err) || !g_file_get_contents(results, &res, NULL, &err)) {
        g_prefix_error(&err, "smpipe calibrate: ");
        fprintf(stderr, "%s\n", err->message);
        g_error_free(err);
        return SIM_EXIT_BAD_INPUT;
    }
    g_autoptr(GString) text = g_string_new(NULL);
    g_autoptr(GString) report = g_string_new(NULL);
    if (!calib_rewrite(ini, res, results, text, report, &err)) {
        return cli_fail(err);
    }
    /* The new file must load before it replaces anything. */
    g_autofree char *tmp = NULL;
    gint fd = g_file_open_tmp("smpipe-calib-XXXXXX.ini", &tmp, &err);
    if (fd < 0) {
        return cli_fail(err);
    }
    close(fd);
    ArchParams check;
    bool ok = sim_write_file(tmp, text->str, text->len, &err) && arch_load(tmp, NULL, &check, &err);
    g_unlink(tmp);
    if (!ok) {
        g_prefix_error(&err, "the calibrated file does not load: ");
        return cli_fail(err);
    }
    if (!sim_write_file(out, text->str, text->len, &err)) {
        return cli_fail(err);
    }
    printf("wrote %s from %s and %s:\n%s", out, base, results, report->str);
    return 0;
}
