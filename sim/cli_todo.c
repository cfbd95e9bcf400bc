/* cli_todo.c: verbs not built yet. */
#include "sim/cli.h"

#include <stdio.h>

static int not_yet(const char *verb)
{
    fprintf(stderr, "smpipe %s: not available in this build yet\n", verb);
    return SIM_EXIT_BAD_INPUT;
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
