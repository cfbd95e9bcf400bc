/* cli_cuda.c: `smpipe cuda`: writes the CUDA program of one or more traces
 * (sim/drivers/cuda_gen.h) and its reference file. */
#include "sim/cli/cli.h"
#include "sim/drivers/cuda_gen.h"

#include <stdio.h>

int cli_cuda(int argc, char **argv)
{
    g_auto(CliArchOptions) ao = { 0 };
    g_autofree char *out = NULL;
    gboolean flush = FALSE;
    gint repeats = 9;
    gint warmup = 2;
    GOptionEntry entries[] = {
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "The program to write, and FILE.cu.ref beside it [stdout, without the"
          " reference file]", "FILE.cu|-" },
        { "flush-l2", 0, 0, G_OPTION_ARG_NONE, &flush, "Flush L2 before each timed launch by default (cold DRAM)", NULL },
        { "repeats", 'r', 0, G_OPTION_ARG_INT, &repeats, "Timed launches per point by default [9]", "N" },
        { "warmup", 0, 0, G_OPTION_ARG_INT, &warmup, "Untimed launches first by default [2]", "N" },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("TRACE... - write a CUDA program that runs the trace on a GPU");
    g_option_context_set_description(ctx,
        "Each TRACE becomes one kernel of the program, with the same --set values.  The program fills\n"
        "global memory with the simulator's pattern, runs and times each kernel (clock64 per block,\n"
        "CUDA events per launch), checks every written buffer against the simulator's functional model\n"
        "and prints one JSON document (docs/cuda-backend.md).  Traces with OpenCL pipes are refused.");
    cli_add_arch_options(ctx, &ao, CLI_ARCH_HELP, CLI_SET_HELP);
    g_option_context_add_main_entries(ctx, entries, NULL);
    int status;
    if (!cli_parse(ctx, &argc, &argv, &status)) {
        return status;
    }
    if (argc < 2) {
        fprintf(stderr, "smpipe cuda: expected a TRACE file (see smpipe cuda --help)\n");
        return SIM_EXIT_BAD_INPUT;
    }
    if (out != NULL && strcmp(out, "-") == 0) {
        g_clear_pointer(&out, g_free);
    }
    if (out != NULL && !g_str_has_suffix(out, ".cu")) {
        fprintf(stderr, "smpipe cuda: name the program to write with -o FILE.cu\n");
        return SIM_EXIT_BAD_INPUT;
    }
    if (repeats < 1 || repeats > 100000 || warmup < 0 || warmup > 100000) {
        fprintf(stderr, "smpipe cuda: --repeats takes 1..100000 and --warmup 0..100000\n");
        return SIM_EXIT_BAD_INPUT;
    }
    g_autofree char *ref_path = out != NULL ? g_strdup_printf("%s.ref", out) : NULL;
    GError *err = NULL;
    /* FILE.cu.ref goes to the same folder. */
    const CliOutput outs[] = { { "--output", out } };
    if (!cli_check_outputs(outs, G_N_ELEMENTS(outs), &err)) {
        return cli_fail(err);
    }
    GPtrArray *set_list = cli_arch_sets(&ao);
    g_autoptr(GPtrArray) traces = g_ptr_array_new_with_free_func((GDestroyNotify) trace_free);
    g_autoptr(GPtrArray) points = g_ptr_array_new_with_free_func((GDestroyNotify) cuda_gen_point_free);
    g_autoptr(GString) paths = g_string_new(NULL);
    for (int i = 1; i < argc; i++) {
        Trace *t = trace_parse_file(argv[i], &err);
        if (t == NULL) {
            return cli_fail(err);
        }
        g_ptr_array_add(traces, t);
        CudaGenPoint *p = cuda_gen_point_new(t, ao.arch, set_list, "", &err);
        if (p == NULL) {
            return cli_fail(err);
        }
        g_ptr_array_add(points, p);
        g_string_append_printf(paths, "%s%s", i > 1 ? " " : "", argv[i]);
    }
    CudaGenOptions opt = { paths->str, out, flush, repeats, warmup };
    g_autoptr(GString) code = g_string_new(NULL);
    if (!cuda_gen_program((CudaGenPoint *const *) points->pdata, points->len, &opt, code, &err)) {
        return cli_fail(err);
    }
    if (out == NULL) {
        /* Without -o the program alone goes to stdout: it checks the
         * buffers by their hashes (the .ref file adds element by element
         * comparisons). */
        return sim_write_file("-", code->str, code->len, &err) ? 0 : cli_fail(err);
    }
    g_autoptr(GByteArray) ref = g_byte_array_new();
    cuda_gen_reference((CudaGenPoint *const *) points->pdata, points->len, ref);
    if (!sim_write_file(out, code->str, code->len, &err) ||
        !sim_write_file(ref_path, (const char *) ref->data, ref->len, &err)) {
        return cli_fail(err);
    }
    const CudaGenPoint *first = g_ptr_array_index(points, 0);
    g_autofree char *base = g_path_get_basename(out);
    printf("wrote %s (%u kernel%s) and %s\nbuild: nvcc -O3 -std=c++17 -arch=sm_%" G_GINT64_FORMAT " -o %.*s %s\n", out,
           points->len, points->len == 1 ? "" : "s", ref_path, first->run.arch.sm_version, (int) strlen(base) - 3, base,
           base);
    return 0;
}
