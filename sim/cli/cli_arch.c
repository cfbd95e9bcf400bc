/* cli_arch.c: `smpipe arch list`, `smpipe arch show NAME` and `smpipe arch
 * diff A B`. */
#include "sim/cli/cli.h"
#include "sim/core/fileio.h"

#include <stdio.h>
#include <string.h>

/* `arch diff A B`: the keys whose values differ, with both values and
 * where each came from (--set applies to both). */
static int arch_diff(const char *name_a, const char *name_b, const GPtrArray *set_list)
{
    ArchParams a, b;
    g_autoptr(ArchSources) sa = arch_sources_new();
    g_autoptr(ArchSources) sb = arch_sources_new();
    GError *err = NULL;
    if (!arch_load_sourced(name_a, set_list, &a, sa, &err) || !arch_load_sourced(name_b, set_list, &b, sb, &err)) {
        return cli_fail(err);
    }
    g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_free);
    int width[3] = { 3, (int) strlen(name_a), (int) strlen(name_b) };
    for (guint i = 0; i < arch_key_count(); i++) {
        g_autofree char *va = arch_key_value(&a, i);
        g_autofree char *vb = arch_key_value(&b, i);
        if (strcmp(va, vb) == 0) {
            continue;
        }
        char *name = arch_key_name(i);
        width[0] = MAX(width[0], (int) strlen(name));
        width[1] = MAX(width[1], (int) strlen(va));
        width[2] = MAX(width[2], (int) strlen(vb));
        g_ptr_array_add(rows, name);
    }
    g_autoptr(GString) out = g_string_new(NULL);
    g_string_append_printf(out, "# %u key%s differ%s between %s and %s\n", rows->len, rows->len == 1 ? "" : "s",
                           rows->len == 1 ? "s" : "", name_a, name_b);
    if (rows->len > 0) {
        g_string_append_printf(out, "%-*s  %-*s  %-*s  sources\n", width[0], "key", width[1], name_a, width[2],
                               name_b);
    }
    for (guint r = 0; r < rows->len; r++) {
        const char *name = g_ptr_array_index(rows, r);
        guint i = (guint) arch_key_find(name);
        g_autofree char *va = arch_key_value(&a, i);
        g_autofree char *vb = arch_key_value(&b, i);
        g_string_append_printf(out, "%-*s  %-*s  %-*s  %s | %s\n", width[0], name, width[1], va, width[2], vb,
                               arch_sources_get(sa, i), arch_sources_get(sb, i));
    }
    fputs(out->str, stdout);
    return 0;
}

int cli_arch(int argc, char **argv)
{
    g_auto(CliArchOptions) ao = { 0 };
    g_autoptr(GOptionContext) ctx = g_option_context_new("list | show NAME|FILE | diff A B - the architecture files");
    cli_add_arch_options(ctx, &ao, NULL, "Override a key (section.key) before showing");
    int status;
    if (!cli_parse(ctx, &argc, &argv, &status)) {
        return status;
    }
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        /* A bundled file missing is a broken installation: say where it
         * was looked for, and exit 2. */
        guint missing = 0;
        for (const char *const *b = arch_bundled(); *b; b++) {
            g_autofree char *file = arch_find_file(*b);
            printf("%-6s %s\n", *b, file ? file : "(not found)");
            missing += file == NULL;
        }
        if (missing > 0) {
            g_auto(GStrv) dirs = sim_data_dirs();
            g_autofree char *where = g_strjoinv("/arch, ", dirs);
            fprintf(stderr, "smpipe arch: %u bundled architecture file%s not found (looked in %s/arch; set"
                    " SMPIPE_DATADIR)\n", missing, missing == 1 ? "" : "s", where);
            return SIM_EXIT_BAD_INPUT;
        }
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "diff") == 0) {
        return arch_diff(argv[2], argv[3], cli_arch_sets(&ao));
    }
    if (argc != 3 || strcmp(argv[1], "show") != 0) {
        fprintf(stderr, "smpipe arch: expected 'list', 'show NAME|FILE' or 'diff A B'\n");
        return SIM_EXIT_BAD_INPUT;
    }
    const GPtrArray *set_list = cli_arch_sets(&ao);
    ArchParams a;
    GError *err = NULL;
    g_autoptr(ArchSources) src = arch_sources_new();
    if (!arch_load_sourced(argv[2], set_list, &a, src, &err)) {
        return cli_fail(err);
    }
    g_autofree char *file = arch_find_file(argv[2]);
    g_autoptr(GString) out = g_string_new(NULL);
    g_string_append_printf(out, "# %s, resolved from %s\n", a.name, file);
    for (guint i = 0; i < set_list->len; i++) {
        g_string_append_printf(out, "# with --set %s\n", (const char *) g_ptr_array_index(set_list, i));
    }
    arch_format_sources(&a, src, out);
    fputs(out->str, stdout);
    return 0;
}
