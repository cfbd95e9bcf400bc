/* main.c: the smpipe command: `smpipe VERB [options]`, one GOptionContext
 * per verb.  Results go to stdout, diagnostics to stderr.  Exit status: 0
 * success, 1 the simulated program is invalid (misuse, deadlock, race
 * treated as an error, watchdog), 2 bad input. */
#include "sim/cli/cli.h"

#include "sim/core/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} verbs[] = {
    { "run", cli_run, "simulate a trace and report cycles, stalls and overlap" },
    { "check", cli_check, "parse, expand and validate a trace without simulating it" },
    { "sweep", cli_sweep, "run a trace over parameter ranges and recommend a stage count" },
    { "merge", cli_merge, "join the CSV files of sharded sweeps" },
    { "sensitivity", cli_sensitivity, "rank the architecture keys by how much a trace's cycles depend on them" },
    { "plot", cli_plot, "draw an overlap timeline (or a sweep) with gnuplot" },
    { "arch", cli_arch, "list or show architecture files" },
    { "cuda", cli_cuda, "generate a CUDA program that implements a trace" },
    { "validate", cli_validate, "run a trace on a real GPU and compare with the simulation" },
    { "calibrate", cli_calibrate, "run the microbenchmarks on a real GPU and write an architecture file" },
};

static void usage(FILE *f)
{
    fprintf(f, "Usage: smpipe VERB [OPTIONS]\n\n"
               "smpipe simulates one GPU SM's asynchronous-copy pipeline hardware running a\n"
               "cuda::pipeline program described by a trace (docs/trace-format.md).\n\nVerbs:\n");
    for (size_t i = 0; i < G_N_ELEMENTS(verbs); i++) {
        fprintf(f, "  %-11s %s\n", verbs[i].name, verbs[i].help);
    }
    fprintf(f, "\n'smpipe help VERB' (or 'smpipe VERB --help') describes a verb's options; 'smpipe version'\n"
               "prints the version.  A TRACE or input file named '-' is read from standard input.\n");
}

static bool verb_known(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(verbs); i++) {
        if (strcmp(name, verbs[i].name) == 0) {
            return true;
        }
    }
    return false;
}

int main(int argc, char **argv)
{
    sim_temp_install_cleanup();
    if (argc < 2) {
        usage(stderr);
        return SIM_EXIT_BAD_INPUT;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "version") == 0) {
        printf("smpipe %s\n", SMPIPE_VERSION);
        return 0;
    }
    /* `smpipe help VERB` is `smpipe VERB --help`. */
    static char help_opt[] = "--help";
    char *help_argv[] = { argv[0], NULL, help_opt, NULL };
    if (strcmp(argv[1], "help") == 0 && argc > 2) {
        if (argc > 3) {
            fprintf(stderr, "smpipe help: expected one VERB, not %d words\n", argc - 2);
            return SIM_EXIT_BAD_INPUT;
        }
        help_argv[1] = argv[2];
        argc = 3;
        argv = help_argv;
        if (!verb_known(argv[1])) {
            fprintf(stderr, "smpipe help: unknown verb '%s'\n\n", argv[1]);
            usage(stderr);
            return SIM_EXIT_BAD_INPUT;
        }
    } else if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(verbs); i++) {
        if (strcmp(argv[1], verbs[i].name) == 0) {
            /* --help's usage line then reads "smpipe VERB [OPTION...]". */
            g_autofree char *prgname = g_strdup_printf("smpipe %s", verbs[i].name);
            g_set_prgname(prgname);
            int status = verbs[i].fn(argc - 1, argv + 1);
            /* A report that could not be written (a full disk, a closed
             * pipe) is an error, never a silent success. */
            errno = 0;
            if (status == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
                fprintf(stderr, "smpipe: cannot write to standard output%s%s\n", errno ? ": " : "",
                        errno ? g_strerror(errno) : "");
                return SIM_EXIT_BAD_INPUT;
            }
            return status;
        }
    }
    fprintf(stderr, "smpipe: unknown verb '%s'\n\n", argv[1]);
    usage(stderr);
    return SIM_EXIT_BAD_INPUT;
}
