/* cli_todo.c: verbs not built yet. */
#include "sim/cli.h"

#include <stdio.h>

static int not_yet(const char *verb)
{
    fprintf(stderr, "smpipe %s: not available in this build yet\n", verb);
    return SIM_EXIT_BAD_INPUT;
}

int cli_sweep(int argc, char **argv)
{
    (void) argc;
    (void) argv;
    return not_yet("sweep");
}

int cli_merge(int argc, char **argv)
{
    (void) argc;
    (void) argv;
    return not_yet("merge");
}

int cli_plot_trace(int argc, char **argv)
{
    (void) argc;
    (void) argv;
    return not_yet("plot");
}

int cli_plot_sweep(int argc, char **argv)
{
    (void) argc;
    (void) argv;
    return not_yet("plot (sweep CSV)");
}

bool cli_plot_timeline(const char *data_dir, const char *out, const SimRun *r, const char *trace, GError **error)
{
    (void) data_dir;
    (void) r;
    (void) trace;
    g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: plotting is not available in this build yet", out);
    return false;
}
