/* cli_common.c: helpers shared by the verbs. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "sim/cli/cli.h"

#include "sim/core/fileio.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

const char *cli_prefix(void)
{
    const char *name = g_get_prgname();
    return name != NULL && g_str_has_prefix(name, "smpipe") ? name : "smpipe";
}

int cli_fail(GError *error)
{
    int status = sim_error_exit_status(error);
    fprintf(stderr, "%s: %s\n", cli_prefix(), error->message);
    g_error_free(error);
    return status;
}

/* The absolute name of an output file (newly allocated): its folder
 * resolved (links, "..") and its base name, so that two spellings of one
 * file compare equal. */
static char *output_identity(const char *path)
{
    g_autofree char *dir = g_path_get_dirname(path);
    g_autofree char *base = g_path_get_basename(path);
    char *real = realpath(dir, NULL);
    char *id = g_build_filename(real != NULL ? real : dir, base, NULL);
    free(real);
    return id;
}

bool cli_check_outputs(const CliOutput *outs, guint n, GError **error)
{
    for (guint i = 0; i < n; i++) {
        if (outs[i].path == NULL) {
            continue;
        }
        bool out_i = strcmp(outs[i].path, "-") == 0;
        /* A device (/dev/null) takes any number of writers. */
        struct stat st;
        bool device = !out_i && stat(outs[i].path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
        g_autofree char *id_i = out_i || device ? NULL : output_identity(outs[i].path);
        for (guint k = 0; k < i; k++) {
            if (outs[k].path == NULL) {
                continue;
            }
            bool out_k = strcmp(outs[k].path, "-") == 0;
            bool device_k = !out_k && stat(outs[k].path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
            g_autofree char *id_k = out_k || device_k ? NULL : output_identity(outs[k].path);
            if (out_i && out_k) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s - and %s - would both write to standard output:"
                            " send one of them to a file", outs[k].option, outs[i].option);
                return false;
            }
            if (id_i != NULL && id_k != NULL && strcmp(id_i, id_k) == 0) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s and %s both name %s: one would overwrite the"
                            " other", outs[k].option, outs[i].option, outs[i].path);
                return false;
            }
        }
        if (out_i) {
            continue;
        }
        /* Open (a temporary name beside it, or the device itself) and
         * drop it: what the real write will do, without touching the
         * file. */
        SimOutput o;
        if (!sim_output_open(&o, outs[i].path, error)) {
            g_prefix_error(error, "%s ", outs[i].option);
            return false;
        }
        sim_output_abort(&o);
    }
    return true;
}

bool cli_parse(GOptionContext *ctx, int *argc, char ***argv, int *status)
{
    GError *err = NULL;
    if (!g_option_context_parse(ctx, argc, argv, &err)) {
        fprintf(stderr, "%s: %s\n", cli_prefix(), err->message);
        g_error_free(err);
        *status = SIM_EXIT_BAD_INPUT;
        return false;
    }
    return true;
}

bool cli_parse_trace(GOptionContext *ctx, const char *verb, int *argc, char ***argv, int *status)
{
    if (!cli_parse(ctx, argc, argv, status)) {
        return false;
    }
    if (*argc != 2) {
        fprintf(stderr, "smpipe %s: expected one TRACE file (see smpipe %s --help)\n", verb, verb);
        *status = SIM_EXIT_BAD_INPUT;
        return false;
    }
    return true;
}

void cli_note_unused_params(const SimRun *r, const char *trace_path, const GPtrArray *sets)
{
    for (guint i = 0; sets != NULL && i < sets->len; i++) {
        const char *set = g_ptr_array_index(sets, i);
        const char *eq = strchr(set, '=');
        for (guint k = 0; eq != NULL && k < r->prog->unused_params->len; k++) {
            const char *name = g_ptr_array_index(r->prog->unused_params, k);
            if (strlen(name) == (size_t) (eq - set) && strncmp(set, name, (size_t) (eq - set)) == 0) {
                fprintf(stderr, "smpipe: note: %s does not use parameter '%s': --set %s changes nothing\n",
                        trace_path, name, set);
            }
        }
    }
}

void cli_add_limit_options(GOptionContext *ctx, CliLimits *l)
{
    l->max_cycles = (gint64) SIM_DEFAULT_MAX_CYCLES;
    l->max_ops = (gint64) SIM_DEFAULT_MAX_OPS;
    GOptionEntry entries[] = {
        { "max-cycles", 0, 0, G_OPTION_ARG_INT64, &l->max_cycles, "Watchdog: stop a program still running at this"
          " cycle, 0 = never [2e9]", "N" },
        { "max-ops", 0, 0, G_OPTION_ARG_INT64, &l->max_ops, "Stop a program that has interpreted this many warp"
          " operations, 0 = never [1e9]", "N" },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
    };
    g_option_context_add_main_entries(ctx, entries, NULL);
}

bool cli_apply_limits(const char *verb, const CliLimits *l, SmOptions *o)
{
    if (l->max_cycles < 0 || l->max_ops < 0) {
        fprintf(stderr, "smpipe %s: --%s must not be negative\n", verb, l->max_cycles < 0 ? "max-cycles" : "max-ops");
        return false;
    }
    o->max_cycles = (SimCycle) l->max_cycles;
    o->max_ops = (uint64_t) l->max_ops;
    return true;
}

void cli_add_arch_options(GOptionContext *ctx, CliArchOptions *o, const char *arch_help, const char *set_help)
{
    GOptionEntry entries[3];
    int n = 0;
    if (arch_help != NULL) {
        entries[n++] = (GOptionEntry) { "arch", 'a', 0, G_OPTION_ARG_STRING, &o->arch, arch_help, "NAME|FILE" };
    }
    if (set_help != NULL) {
        entries[n++] = (GOptionEntry) { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &o->sets, set_help, "NAME=VALUE" };
    }
    entries[n] = (GOptionEntry) { NULL, 0, 0, 0, NULL, NULL, NULL };
    g_option_context_add_main_entries(ctx, entries, NULL);
}

GPtrArray *cli_arch_sets(CliArchOptions *o)
{
    if (o->set_list == NULL) {
        o->set_list = g_ptr_array_new();
        for (int i = 0; o->sets != NULL && o->sets[i] != NULL; i++) {
            g_ptr_array_add(o->set_list, o->sets[i]);
        }
    }
    return o->set_list;
}

void cli_arch_options_clear(CliArchOptions *o)
{
    if (o->set_list != NULL) {
        g_ptr_array_free(o->set_list, TRUE);
    }
    g_strfreev(o->sets);
    g_free(o->arch);
    memset(o, 0, sizeof *o);
}

bool cli_load_arch(const char *arch, const GPtrArray *sets, const GPtrArray *extra, ArchParams *out,
                   ArchSources *sources, GError **error)
{
    g_autoptr(GArray) params = g_array_new(FALSE, FALSE, sizeof(ProgParamOverride));
    g_autoptr(GPtrArray) arch_sets = g_ptr_array_new();
    if (!sim_split_sets(sets, params, arch_sets, error)) {
        return false;
    }
    for (guint i = 0; extra != NULL && i < extra->len; i++) {
        g_ptr_array_add(arch_sets, g_ptr_array_index(extra, i));
    }
    return arch_load_sourced(arch != NULL ? arch : SIM_DEFAULT_ARCH, arch_sets, out, sources, error);
}

void cli_report_info(const SimRun *r, const Trace *t, SimEngineKind engine, GArray *values, ReportInfo *info)
{
    memset(info, 0, sizeof *info);
    info->trace = t->path;
    info->source = t->lines;
    info->trace_sha256 = t->sha256;
    info->arch = r->arch.name;
    arch_sha256(&r->arch, info->arch_sha256);
    info->clock_mhz = r->arch.clock_mhz;
    info->param_names = r->prog->param_names;
    for (guint i = 0; i < r->prog->param_names->len; i++) {
        int64_t v = program_param(r->prog, g_ptr_array_index(r->prog->param_names, i), 0);
        g_array_append_val(values, v);
    }
    info->param_values = values;
    info->arch_sets = r->arch_sets;
    info->smem_per_block = sm_smem_per_block(r->prog, &r->arch);
    info->engine = engine == SIM_ENGINE_EVENT ? "event" : "stepped";
}
