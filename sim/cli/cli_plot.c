/* cli_plot.c: `smpipe plot` dispatches on what it is given: a sweep's CSV
 * file is drawn as cycles against the swept parameter, anything else is a
 * trace whose overlap timeline is drawn. */
#include "sim/cli/cli.h"

int cli_plot(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-' && g_str_has_suffix(argv[i], ".csv")) {
            return cli_plot_sweep(argc, argv);
        }
        if (argv[i][0] != '-' && (strcmp(argv[i - 1], "-o") == 0 || strcmp(argv[i - 1], "--output") == 0)) {
            continue;
        }
    }
    return cli_plot_trace(argc, argv);
}
