/* cli_validate.c: `smpipe validate`: runs a trace's points on a real GPU and
 * compares them with the simulation (sim/drivers/validate.h). */
#include "sim/cli/cli.h"
#include "sim/drivers/validate.h"

#include <stdio.h>

int cli_validate(int argc, char **argv)
{
    g_auto(CliArchOptions) ao = { 0 };
    g_auto(GStrv) varies = NULL;
    g_autofree char *out = NULL;
    g_autofree char *emit = NULL;
    g_autofree char *results = NULL;
    gboolean warm = FALSE;
    gint repeats = 9;
    GOptionEntry entries[] = {
        { "vary", 'v', 0, G_OPTION_ARG_STRING_ARRAY, &varies, "Measure every value of a parameter or architecture key: LIST is 1,2,4 or 1..8 or 64..512:64 (the first --vary varies slowest)", "NAME=LIST" },
        { "warm", 0, 0, G_OPTION_ARG_NONE, &warm, "Measure with the data L2-resident (no flush) and simulate mem.source=l2 [cold: L2 flushed, mem.source=dram]", NULL },
        { "repeats", 'r', 0, G_OPTION_ARG_INT, &repeats, "Timed launches per point (the median is kept) [9]", "N" },
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Where the CSV, plot and summary go [validation-TRACE, or the --results directory]", "DIR" },
        /* The old name of --output, kept for scripts. */
        { "out", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &out, NULL, "DIR" },
        { "emit", 0, 0, G_OPTION_ARG_FILENAME, &emit, "Only write the program, reference, manifest and run.sh to DIR (no GPU needed)", "DIR" },
        { "results", 0, 0, G_OPTION_ARG_FILENAME, &results, "Only compare: read DIR/manifest.json and DIR/results.json (from DIR/run.sh) and simulate", "DIR" },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("TRACE - run a trace on a real GPU and compare with the simulation");
    g_option_context_set_description(ctx,
        "On a machine with an NVIDIA GPU and nvcc, validate writes one CUDA program with a kernel per\n"
        "point, builds it for the GPU, runs it and compares the measured cycles with the simulated ones.\n"
        "The steps can be split: --emit DIR here, DIR/run.sh on the GPU machine, --results DIR here.\n"
        "Outputs: validation.csv (one row per point), validation.png (gnuplot), summary.txt.");
    cli_add_arch_options(ctx, &ao, "Architecture to simulate with (name or .ini) [h100, or the manifest's]",
                         CLI_SET_HELP " for every point");
    g_option_context_add_main_entries(ctx, entries, NULL);
    int status;
    if (!cli_parse_trace(ctx, "validate", &argc, &argv, &status)) {
        return status;
    }
    if (emit != NULL && results != NULL) {
        fprintf(stderr, "smpipe validate: --emit and --results are two separate steps: give one\n");
        return SIM_EXIT_BAD_INPUT;
    }
    if (repeats < 1 || repeats > 100000) {
        fprintf(stderr, "smpipe validate: --repeats takes 1..100000\n");
        return SIM_EXIT_BAD_INPUT;
    }
    const char *path = argv[1];
    GError *err = NULL;
    g_autoptr(Trace) t = trace_parse_file(path, &err);
    if (t == NULL) {
        return cli_fail(err);
    }
    GPtrArray *set_list = cli_arch_sets(&ao);
    if (results != NULL) {
        if (varies != NULL) {
            fprintf(stderr, "smpipe validate: --results takes the points from DIR/manifest.json: drop --vary\n");
            return SIM_EXIT_BAD_INPUT;
        }
        g_autoptr(GString) summary = g_string_new(NULL);
        if (!validate_collect(t, results, ao.arch, set_list, out ? out : results, summary, &err)) {
            return cli_fail(err);
        }
        fputs(summary->str, stdout);
        return 0;
    }

    ValidatePlan plan;
    validate_plan_init(&plan);
    plan.trace_path = path;
    plan.arch = ao.arch;
    plan.sets = set_list;
    plan.warm = warm;
    plan.repeats = repeats;
    for (int i = 0; varies && varies[i]; i++) {
        GArray *vals = g_array_new(FALSE, FALSE, sizeof(int64_t));
        char *name = validate_parse_vary(varies[i], vals, &err);
        if (name == NULL) {
            g_array_free(vals, TRUE);
            validate_plan_clear(&plan);
            return cli_fail(err);
        }
        g_ptr_array_add(plan.vary_names, name);
        g_ptr_array_add(plan.vary_values, vals);
    }
    int rc = 0;
    if (emit != NULL) {
        if (!validate_emit(t, &plan, emit, &err)) {
            rc = cli_fail(err);
        } else {
            printf("wrote %s: the program, its reference, manifest.json and run.sh\n"
                   "next: run %s/run.sh on a machine with the GPU, then\n"
                   "      smpipe validate %s --results %s\n", emit, emit, path, emit);
        }
        validate_plan_clear(&plan);
        return rc;
    }

    /* Both steps here: this machine needs a GPU and nvcc. */
    g_autofree char *why = NULL;
    g_autofree char *nvcc = validate_find_nvcc();
    if (!validate_have_gpu(&why)) {
        fprintf(stderr, "smpipe validate: %s; use --emit DIR here and --results DIR after DIR/run.sh on a GPU machine\n",
                why);
        validate_plan_clear(&plan);
        return SIM_EXIT_BAD_INPUT;
    }
    if (nvcc == NULL) {
        fprintf(stderr, "smpipe validate: nvcc not found ($NVCC, PATH, /usr/local/cuda/bin)\n");
        validate_plan_clear(&plan);
        return SIM_EXIT_BAD_INPUT;
    }
    g_autofree char *base = g_path_get_basename(path);
    g_autofree char *dir = out ? g_strdup(out) : g_strdup_printf("validation-%s", base);
    if (!validate_emit(t, &plan, dir, &err)) {
        validate_plan_clear(&plan);
        return cli_fail(err);
    }
    validate_plan_clear(&plan);
    g_autofree char *script = g_build_filename(dir, "run.sh", NULL);
    const char *sh_argv[] = { "sh", script, NULL };
    const char *env_nvcc = g_getenv("NVCC");
    g_auto(GStrv) envp = g_environ_setenv(g_get_environ(), "NVCC", env_nvcc ? env_nvcc : nvcc, TRUE);
    gint wait = 0;
    if (!g_spawn_sync(NULL, (char **) sh_argv, envp, G_SPAWN_SEARCH_PATH | G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL,
                      NULL, NULL, &wait, &err)) {
        return cli_fail(err);
    }
    if (!g_spawn_check_wait_status(wait, NULL)) {
        g_autofree char *res = g_build_filename(dir, "results.json", NULL);
        if (!g_file_test(res, G_FILE_TEST_EXISTS)) {
            fprintf(stderr, "smpipe validate: %s failed before measuring anything\n", script);
            return SIM_EXIT_BAD_INPUT;
        }
        fprintf(stderr, "smpipe validate: %s reported a failure; comparing what was measured\n", script);
        rc = SIM_EXIT_INVALID_PROGRAM;
    }
    g_autoptr(GString) summary = g_string_new(NULL);
    if (!validate_collect(t, dir, ao.arch, NULL, dir, summary, &err)) {
        return cli_fail(err);
    }
    fputs(summary->str, stdout);
    return rc;
}
