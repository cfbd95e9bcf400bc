/* engine.h: the simulation clock and event dispatch loop.
 *
 * The engine knows nothing of hardware: models schedule handlers at future
 * cycles and the engine calls them in (cycle, sequence) order.  An event is
 * removed before its handler runs, so a handler may schedule new events,
 * itself included.  Two interchangeable loops exist:
 *   SIM_ENGINE_EVENT   jumps the clock straight to the next event (cost grows
 *                      with the number of events, not of cycles);
 *   SIM_ENGINE_STEPPED a deliberately simple reference that advances one
 *                      cycle at a time and scans an unsorted list; it must
 *                      give byte-identical results and exists to prove it. */
#pragma once

#include "sim/core/event_queue.h"

typedef enum {
    SIM_ENGINE_EVENT,
    SIM_ENGINE_STEPPED
} SimEngineKind;

typedef struct {
    SimEngineKind kind;
    SimCycle now;            /* current cycle */
    SimCycle max_cycles;     /* watchdog: stop with an error past it; 0 = none */
    SimEventQueue queue;     /* pending events (event engine) */
    GArray *stepped;         /* pending SimEvent in insertion order (stepped) */
    size_t stepped_live;     /* live entries in stepped */
    uint64_t next_seq;       /* stepped engine's sequence counter */
    uint64_t dispatched;     /* events handled so far */
    bool stop;               /* set by a handler to end the run early */
    /* Optional (NULL: every event counts): false for an event that can no
     * longer do anything, such as the time-out of a wait that already
     * ended.  Such events are dropped unseen and uncounted, so that they
     * neither keep a finished run going (the stepped loop would step to
     * them) nor trip the watchdog.  Once false, it must stay false. */
    bool (*live)(const SimEvent *ev);
    GError *error;           /* first error raised by a handler, owned */
} SimEngine;

void sim_engine_init(SimEngine *e, SimEngineKind kind);
void sim_engine_clear(SimEngine *e);

/* Schedules fn(target, arg) at cycle (>= now). */
void sim_engine_schedule(SimEngine *e, SimCycle cycle, SimEventFn fn,
                         void *target, uint64_t arg);

/* Records err (taking ownership) as the run's error unless one is already
 * recorded, and stops the run. */
void sim_engine_fail(SimEngine *e, GError *err);

/* Runs until no event is left, a handler stops the run, or the watchdog
 * fires.  Returns false with *error set on failure. */
bool sim_engine_run(SimEngine *e, GError **error);

/* True when an event is pending for cycle `at` (both loops answer alike,
 * so models may use it without making the engines diverge). */
bool sim_engine_pending_at(const SimEngine *e, SimCycle at);

/* Parses "event" or "stepped". */
bool sim_engine_kind_parse(const char *s, SimEngineKind *out);
