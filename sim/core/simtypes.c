/* simtypes.c: the error domain. */
#include "sim/core/simtypes.h"

G_DEFINE_QUARK(sim-error-quark, sim_error)

int sim_error_exit_status(const GError *error)
{
    if (error != NULL && error->domain == SIM_ERROR &&
        (error->code == SIM_ERROR_PROGRAM || error->code == SIM_ERROR_LIMIT)) {
        return SIM_EXIT_INVALID_PROGRAM;
    }
    return SIM_EXIT_BAD_INPUT;
}
