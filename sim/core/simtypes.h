/* simtypes.h: basic types shared by the engine, the trace language and the
 * models: simulated time, positions in a trace, the forms of make_pipeline,
 * and the error domain of user-facing failures. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* Simulated time, in SM clock cycles. */
typedef uint64_t SimCycle;

#define SIM_CYCLE_NEVER UINT64_MAX

/* A position in a trace file; lines and columns count from 1.  Models keep
 * it to name the line of what they report. */
typedef struct {
    uint32_t line;
    uint32_t col;
} SrcLoc;

/* The forms of make_pipeline: every thread both produces and consumes; the
 * first producer_count threads produce; each thread's pipeline_role says.
 * The trace language compiles them (an operation's sub), the pipeline unit
 * (models/pipeline.h) sets its barriers' counts by them. */
typedef enum {
    PIPE_MODE_UNIFIED,
    PIPE_MODE_PRODUCER_COUNT,
    PIPE_MODE_ROLE
} PipeMode;

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
