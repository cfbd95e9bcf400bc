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

int cli_plot_sweep(int argc, char **argv)
{
    (void) argc;
    (void) argv;
    return not_yet("plot (sweep CSV)");
}

int cli_cuda(int argc, char **argv)
{
    (void) argc;
    (void) argv;
    return not_yet("cuda");
}

int cli_validate(int argc, char **argv)
{
    (void) argc;
    (void) argv;
    return not_yet("validate");
}

int cli_calibrate(int argc, char **argv)
{
    (void) argc;
    (void) argv;
    return not_yet("calibrate");
}
