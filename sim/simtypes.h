/* simtypes.h: basic types shared by the engine, the trace language and the
 * models: simulated time and the error domain of user-facing failures. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* Simulated time, in SM clock cycles. */
typedef uint64_t SimCycle;

#define SIM_CYCLE_NEVER UINT64_MAX

/* Exit statuses of the smpipe command (see README). */
enum {
    SIM_EXIT_OK = 0,
    SIM_EXIT_INVALID_PROGRAM = 1, /* pipeline misuse, deadlock, race as error */
    SIM_EXIT_BAD_INPUT = 2        /* unreadable or malformed input, bad option */
};

#define SIM_ERROR (sim_error_quark())
GQuark sim_error_quark(void);

typedef enum {
    SIM_ERROR_INPUT,   /* malformed trace, config or option: exit 2 */
    SIM_ERROR_PROGRAM, /* the simulated program broke a rule: exit 1 */
    SIM_ERROR_LIMIT    /* a configured limit was exceeded: exit 1 */
} SimErrorCode;

/* Maps an error to the process exit status. */
int sim_error_exit_status(const GError *error);
