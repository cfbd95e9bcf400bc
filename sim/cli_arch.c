/* cli_arch.c: `smpipe arch list` and `smpipe arch show NAME`. */
#include "sim/cli.h"

#include <stdio.h>

int cli_arch(int argc, char **argv)
{
    g_auto(GStrv) sets = NULL;
    GOptionEntry entries[] = {
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override a key before showing", "SECTION.KEY=VALUE" },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("list | show NAME|FILE - the architecture files");
    g_option_context_add_main_entries(ctx, entries, NULL);
    int status;
    if (!cli_parse(ctx, &argc, &argv, &status)) {
        return status;
    }
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        for (const char *const *b = arch_bundled(); *b; b++) {
            g_autofree char *file = arch_find_file(*b);
            printf("%-6s %s\n", *b, file ? file : "(not found)");
        }
        return 0;
    }
    if (argc != 3 || strcmp(argv[1], "show") != 0) {
        fprintf(stderr, "smpipe arch: expected 'list' or 'show NAME|FILE'\n");
        return SIM_EXIT_BAD_INPUT;
    }
    g_autoptr(GPtrArray) set_list = cli_set_list(sets);
    ArchParams a;
    GError *err = NULL;
    if (!arch_load(argv[2], set_list, &a, &err)) {
        return cli_fail(err);
    }
    g_autofree char *file = arch_find_file(argv[2]);
    g_autoptr(GString) out = g_string_new(NULL);
    g_string_append_printf(out, "# %s, resolved from %s\n", a.name, file);
    for (guint i = 0; i < set_list->len; i++) {
        g_string_append_printf(out, "# with --set %s\n", (const char *) g_ptr_array_index(set_list, i));
    }
    arch_format(&a, out);
    fputs(out->str, stdout);
    return 0;
}
