/* test_step.h: one operation family of the interpreter driven alone
 * (test_pipe_exec.c, test_cl_exec.c).  A trace text is compiled and an SM
 * assembled for it, but never run: the test is the scheduler and the
 * clock.  It calls the family's exec function for the split, operation
 * and cycle it chooses, then reads what the step left: the split's state,
 * the events it scheduled (a wake-up, an asynchronous arrival), the rule
 * it reported.  Nothing else issues: no warp is queued, so no arbitration
 * runs unless the test fires an event that queues one. */
#pragma once

#include "test_util.h"

#include "models/sm_internal.h"

/* An operation family's exec function (pipe_exec, cl_exec). */
typedef StepResult (*BenchExec)(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost);

typedef struct {
    Trace *trace;
    SimRun run;     /* the architecture and the program (run.sm stays NULL) */
    Sm *sm;         /* assembled, never run (owned) */
    BenchExec exec;
} Bench;

/* Compiles text for arch (NULL: h100) with the NULL-terminated
 * "name=value" sets and assembles an SM (race detector off, the
 * functional model as asked) whose steps exec runs; fails the test when
 * either fails. */
static inline void bench_open(Bench *b, const char *text, const char *arch, const char *const *sets, bool functional,
                              BenchExec exec)
{
    GError *err = NULL;
    memset(b, 0, sizeof *b);
    b->trace = parse_ok(text);
    g_autoptr(GPtrArray) sl = test_set_list(sets);
    SimRunOptions o;
    memset(&o, 0, sizeof o);
    o.arch = arch;
    o.sets = sl;
    ck_assert_msg(sim_run_program(b->trace, &o, &b->run, &err), "%s", err ? err->message : "");
    SmOptions so;
    memset(&so, 0, sizeof so);
    so.engine = SIM_ENGINE_EVENT;
    so.functional = functional;
    so.check_invariants = true;
    b->sm = sm_new(b->run.prog, &b->run.arch, &so, &err);
    ck_assert_msg(b->sm != NULL, "%s", err ? err->message : "");
    b->exec = exec;
}

static inline void bench_close(Bench *b)
{
    sm_free(b->sm);
    sim_run_clear(&b->run);
    trace_free(b->trace);
    memset(b, 0, sizeof *b);
}

static inline Warp *bench_warp(Bench *b, int32_t wi)
{
    return &b->sm->warps[wi];
}

/* The n-th operation (from 0, in program order) with code `code`. */
static inline const Op *bench_op(Bench *b, OpCode code, int n)
{
    int left = n;
    for (guint i = 0; i < b->run.prog->ops->len; i++) {
        const Op *op = sm_op(b->sm, (int32_t) i);
        if (op->code == code && left-- == 0) {
            return op;
        }
    }
    ck_abort_msg("no operation %s number %d", op_code_name(code), n);
    return NULL;
}

static inline int32_t bench_pc(Bench *b, const Op *op)
{
    return (int32_t) (op - sm_op(b->sm, 0));
}

/* One step of split si of warp wi at operation op, at cycle t (the clock
 * moves there): a split that has not started an operation is put at op
 * first, as the interpreter's control flow would.  *cost receives the
 * issue slots used. */
static inline StepResult bench_step_split(Bench *b, int32_t wi, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    Sm *sm = b->sm;
    Warp *w = &sm->warps[wi];
    Split *s = &w->split[si];
    ck_assert_msg(sm->engine.error == NULL, "a step after the run failed: %s", sm->engine.error->message);
    sm->engine.now = t;
    if (s->step == 0 && s->status == SPLIT_RUNNABLE) {
        s->pc = bench_pc(b, op);
    }
    *cost = 0;
    return b->exec(sm, w, si, op, t, cost);
}

/* The same for the warp's first split (a converged warp). */
static inline StepResult bench_step(Bench *b, int32_t wi, const Op *op, SimCycle t, int64_t *cost)
{
    return bench_step_split(b, wi, 0, op, t, cost);
}

/* Steps warp wi's first split at op from cycle t, each step at the cycle
 * the last one made it ready, until it leaves op; fails the test if it
 * blocks or fails.  Returns the cycle it left op. */
static inline SimCycle bench_through(Bench *b, int32_t wi, const Op *op, SimCycle t)
{
    Split *s = &bench_warp(b, wi)->split[0];
    int32_t pc = bench_pc(b, op);
    s->step = 0;
    for (int guard = 0; guard < 16; guard++) {
        int64_t cost;
        StepResult r = bench_step(b, wi, op, t, &cost);
        ck_assert_msg(r != STEP_STOP, "%s stopped: %s", op_code_name(op->code), b->sm->engine.error->message);
        ck_assert_msg(s->status == SPLIT_RUNNABLE, "%s blocked at cycle %" G_GUINT64_FORMAT, op_code_name(op->code),
                      t);
        if (r == STEP_ISSUED) {
            t = MAX(s->ready_at, t + (SimCycle) cost);
        }
        if (s->pc != pc) {
            return t;
        }
    }
    ck_abort_msg("%s did not finish", op_code_name(op->code));
    return t;
}

/* The run's error message (a rule the unit reported), or NULL. */
static inline const char *bench_error(const Bench *b)
{
    return b->sm->engine.error != NULL ? b->sm->engine.error->message : NULL;
}

/* Fails the test unless the step reported an error containing `text`. */
static inline void bench_assert_error(const Bench *b, const char *text)
{
    const char *msg = bench_error(b);
    ck_assert_msg(msg != NULL, "expected an error containing \"%s\"", text);
    ck_assert_msg(strstr(msg, text) != NULL, "expected \"%s\" in: %s", text, msg);
}

/* Warp wi's step at op at cycle t must report a rule containing text. */
static inline void bench_step_fails(Bench *b, int32_t wi, const Op *op, SimCycle t, const char *text)
{
    int64_t cost;
    ck_assert_int_eq(bench_step(b, wi, op, t, &cost), STEP_STOP);
    bench_assert_error(b, text);
}

/* Whether an event acts on a warp (a wake-up or a time-out) rather than
 * on the SM (an asynchronous arrival); its split is then *split. */
static inline bool bench_event_warp(Bench *b, const SimEvent *ev, int32_t *warp, int32_t *split)
{
    for (int32_t i = 0; i < b->sm->nwarps; i++) {
        if (ev->target == &b->sm->warps[i]) {
            *warp = i;
            *split = (int32_t) ev->arg;
            return true;
        }
    }
    return false;
}

/* Runs an event at its cycle. */
static inline void bench_fire(Bench *b, const SimEvent *ev)
{
    b->sm->engine.now = ev->cycle;
    ev->fn(ev->target, ev->arg, ev->cycle);
}

/* The earliest pending event that acts on a warp, taken out of the queue
 * into *ev without running it; the SM's events before it (asynchronous
 * arrivals, which may complete a phase and schedule wake-ups) run at their
 * cycles first.  False when no warp event is pending.  No warp may be
 * queued then: an SM event could be an arbitration, which would issue. */
static inline bool bench_next_warp_event(Bench *b, SimEvent *ev)
{
    while (sim_event_queue_pop(&b->sm->engine.queue, ev)) {
        int32_t w, s;
        if (bench_event_warp(b, ev, &w, &s)) {
            return true;
        }
        for (int32_t i = 0; i < b->sm->nwarps; i++) {
            ck_assert_msg(!b->sm->warps[i].queued, "warp %d is queued: the bench would let it issue", i);
        }
        bench_fire(b, ev);
    }
    return false;
}

/* The next warp event must be the wake-up of warp wi's split si at cycle
 * `at`: the test, as the scheduler, lets the split run from then. */
static inline void bench_expect_wake(Bench *b, int32_t wi, int32_t si, SimCycle at)
{
    SimEvent ev;
    int32_t w, s;
    ck_assert_msg(bench_next_warp_event(b, &ev), "no event pending; expected warp %d's wake-up", wi);
    ck_assert(bench_event_warp(b, &ev, &w, &s));
    ck_assert_msg(w == wi && s == si && ev.cycle == at, "warp %d split %d at %" G_GUINT64_FORMAT "; expected warp %d"
                  " split %d at %" G_GUINT64_FORMAT, w, s, ev.cycle, wi, si, at);
    Split *sp = &bench_warp(b, wi)->split[si];
    ck_assert_int_eq(sp->status, SPLIT_BLOCKED);
    /* What the SM's wake-up does to the split, without queueing the warp. */
    sp->status = SPLIT_RUNNABLE;
    sim_engine_timer_cancel(&b->sm->engine, &sp->deadline);
    sp->ready_at = at;
    sp->wait = WAIT_NONE;
}
