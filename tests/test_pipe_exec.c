/* test_pipe_exec.c: cuda::pipeline's protocol as a warp runs it
 * (models/pipe_exec.c), driven alone (test_step.h): the test steps one
 * pipeline operation at a time at the cycles it chooses and stands in for
 * the rest of the SM.  Copies are stubs: a thread's cp.asyncs "land" at
 * the cycle the test writes into the warp's lane_open (before a
 * thread-scope commit) or lane_copies (before a block-scope one, through
 * land_at, which keeps the warp's copies_max with them).  One
 * TCase per behaviour: make_pipeline's group sync, acquire, commit, the
 * two scopes' waits, wait_for's deadline, release, quit, roles, and what
 * the stage statistics record. */
#include "test_step.h"

#include "models/barrier.h"
#include "models/pipe_exec.h"
#include "sim/out/stats.h"

#define ALL 0xffffffffu

/* A unified block pipeline of STAGES stages for a block of THREADS. */
#define UNIFIED(THREADS, STAGES)                                                                                       \
    "smpipe 1\nblock " #THREADS "\nshared pipeline_shared_state<block, " #STAGES "> st\n"                              \
    "var p = make_pipeline(block, st)\np.producer_acquire()\np.producer_commit()\n"                                    \
    "var ok = p.consumer_wait_for(5000)\np.consumer_wait()\np.consumer_release()\nvar last = p.quit()\n"

/* A thread-scope pipeline: each thread its own, on cp.async groups. */
#define THREAD_PIPE                                                                                                    \
    "smpipe 1\nblock 32\nvar p = make_pipeline()\np.producer_acquire()\np.producer_commit()\np.consumer_wait()\n"      \
    "p.consumer_release()\npipeline_consumer_wait_prior<10>(p)\npipeline_consumer_wait_prior<0>(p)\n"                  \
    "var last = p.quit()\n"

/* Lane l's copies land at cycle c (a block-scope commit's stub). */
static void land_at(Warp *w, int l, SimCycle c)
{
    w->lane_copies[l] = c;
    w->copies_max = MAX(w->copies_max, c);
}

/* The unit's two step functions, dispatched as warp.c does. */
static StepResult pipe_step(Sm *sm, Warp *w, int32_t si, const Op *op, SimCycle t, int64_t *cost)
{
    if (op->code == OP_MAKE_PIPE_BLOCK) {
        *cost = 1;
        return pipe_exec_make_block(sm, w, si, op, t);
    }
    return pipe_exec(sm, w, si, op, t, cost);
}

static void open_pipe(Bench *b, const char *text)
{
    bench_open(b, text, NULL, NULL, false, pipe_step);
}

static Pipe *pipe0(Bench *b)
{
    return &b->sm->blocks[0].pipes[0];
}

/* When make_pipeline releases its group: after its syncs and rank 0's
 * initialisation of 2 x stages barriers. */
static SimCycle release_at(Bench *b, SimCycle last_arrival, int64_t syncs, int64_t stages)
{
    const ArchParams *a = &b->sm->arch;
    return last_arrival + (SimCycle) syncs * block_barrier_cost(a, b->run.prog->warps) +
           (SimCycle) (2 * stages * a->mbar_arrive);
}

/* Every warp of block 0 reaches its n-th make_pipeline at cycle t (the
 * last arrives at t); returns the release. */
static SimCycle make_all(Bench *b, int n, SimCycle t, int64_t syncs, int64_t stages)
{
    const Op *make = bench_op(b, OP_MAKE_PIPE_BLOCK, n);
    int32_t warps = (int32_t) b->run.prog->warps;
    for (int32_t wi = 0; wi < warps; wi++) {
        int64_t cost;
        ck_assert_int_eq(bench_step(b, wi, make, t, &cost), STEP_ISSUED);
        ck_assert_ptr_null(bench_error(b));
    }
    SimCycle at = release_at(b, t, syncs, stages);
    for (int32_t wi = 0; wi < warps; wi++) {
        bench_expect_wake(b, wi, 0, at);
    }
    return at;
}

/* The value of variable `var` in lane l of warp wi. */
static int64_t var_lane(Bench *b, int32_t wi, int32_t var, int l)
{
    const ProgVar *v = sm_var(b->sm, var);
    return bench_warp(b, wi)->vals[v->slot + (v->varying ? l : 0)];
}

/* Thread-scope set-up: make_pipeline() returned for every lane (warp.c
 * does this for OP_MAKE_PIPE_THREAD). */
static void thread_made(Bench *b)
{
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        pipe_thread_made(pipe0(b), l, ROLEBIT_PRODUCER | ROLEBIT_CONSUMER);
    }
}

/* ------------------------------------------------------- make_pipeline */

/* The group waits in make_pipeline until its last thread arrives, then
 * all resume after one block sync and the barriers' initialisation. */
START_TEST(make_pipeline_releases_after_sync_and_init)
{
    Bench b;
    open_pipe(&b, UNIFIED(64, 2));
    const Op *make = bench_op(&b, OP_MAKE_PIPE_BLOCK, 0);
    int64_t cost;
    ck_assert_int_eq(bench_step(&b, 0, make, 100, &cost), STEP_ISSUED);
    Split *s = &bench_warp(&b, 0)->split[0];
    ck_assert_int_eq(s->status, SPLIT_BLOCKED);
    ck_assert_int_eq(s->wait, WAIT_COLLECTIVE);
    ck_assert_int_eq(s->wait_state, WS_BLOCK_BARRIER);
    ck_assert_int_eq(s->pc, bench_pc(&b, make) + 1);
    ck_assert_uint_eq(sim_event_queue_peek_cycle(&b.sm->engine.queue), SIM_CYCLE_NEVER);
    ck_assert(!pipe0(&b)->live);
    ck_assert_int_eq(bench_step(&b, 1, make, 130, &cost), STEP_ISSUED);
    ck_assert(pipe0(&b)->live);
    ck_assert_int_eq(pipe0(&b)->refcount, 64);
    ck_assert_int_eq(pipe0(&b)->producers, 64);
    SimCycle at = release_at(&b, 130, 1, 2);
    ck_assert_uint_eq(at, 130 + block_barrier_cost(&b.sm->arch, 2) + 4 * (SimCycle) b.sm->arch.mbar_arrive);
    bench_expect_wake(&b, 0, 0, at);
    bench_expect_wake(&b, 1, 0, at);
    bench_close(&b);
}
END_TEST

/* The role form synchronises the group three times (libcudacxx counts
 * the producers between syncs). */
START_TEST(make_pipeline_role_form_syncs_three_times)
{
    Bench b;
    open_pipe(&b, "smpipe 1\nblock 64\nshared pipeline_shared_state<block, 3> st\n"
                  "var p = make_pipeline(block, st, threadIdx.x < 32 ? producer : consumer)\np.producer_acquire()\n");
    make_all(&b, 0, 200, 3, 3);
    ck_assert_int_eq(pipe0(&b)->producers, 32);
    ck_assert_int_eq(pipe0(&b)->consumers, 32);
    ck_assert_int_eq(b.sm->blocks[0].thread_role[0], ROLEBIT_PRODUCER);
    ck_assert_int_eq(b.sm->blocks[0].thread_role[63], ROLEBIT_CONSUMER);
    bench_close(&b);
}
END_TEST

/* The group's arguments and call site must agree. */
START_TEST(make_pipeline_rules)
{
    Bench b;
    int64_t cost;
    open_pipe(&b, "smpipe 1\nblock 64\nshared pipeline_shared_state<block, 2> st\n"
                  "var p = make_pipeline(block, st, threadIdx.x < 32 ? 8 : 16)\n");
    const Op *make = bench_op(&b, OP_MAKE_PIPE_BLOCK, 0);
    ck_assert_int_eq(bench_step(&b, 0, make, 10, &cost), STEP_ISSUED);
    bench_step_fails(&b, 1, make, 10,
                     "make_pipeline's producer_count differs across the group (8 in thread 0, 16 here): undefined"
                     " behaviour (SPEC make-pipeline-2)");
    bench_close(&b);

    open_pipe(&b, "smpipe 1\nblock 64\nshared pipeline_shared_state<block, 2> st\n"
                  "var p = make_pipeline(block, st, threadIdx.x / 1024 - 1)\n");
    bench_step_fails(&b, 0, bench_op(&b, OP_MAKE_PIPE_BLOCK, 0), 10, "make_pipeline's producer_count is negative (-1)");
    bench_close(&b);

    /* SPEC make-pipeline-3: producer_count below the group's size. */
    open_pipe(&b, "smpipe 1\nblock 64\nshared pipeline_shared_state<block, 2> st\n"
                  "var p = make_pipeline(block, st, threadIdx.x / 1024 + 64)\n");
    make = bench_op(&b, OP_MAKE_PIPE_BLOCK, 0);
    ck_assert_int_eq(bench_step(&b, 0, make, 10, &cost), STEP_ISSUED);
    bench_step(&b, 1, make, 10, &cost);
    bench_assert_error(&b, "make-pipeline-3");
    bench_close(&b);

    open_pipe(&b, "smpipe 1\nblock 64\nshared pipeline_shared_state<block, 2> st\nif threadIdx.x < 32\n"
                  "    var p = make_pipeline(block, st)\nelse\n    var q = make_pipeline(block, st)\nend\n");
    ck_assert_int_eq(bench_step(&b, 0, bench_op(&b, OP_MAKE_PIPE_BLOCK, 0), 10, &cost), STEP_ISSUED);
    bench_step_fails(&b, 1, bench_op(&b, OP_MAKE_PIPE_BLOCK, 1), 10,
                     "make_pipeline is collective: threads of the group call it at line 5 and at line 7");
    bench_close(&b);

    open_pipe(&b, "smpipe 1\nblock 32\nshared pipeline_shared_state<block, 2> st\nvar p = make_pipeline(block, st)\n"
                  "var q = make_pipeline(block, st)\n");
    make_all(&b, 0, 10, 1, 2);
    bench_step(&b, 0, bench_op(&b, OP_MAKE_PIPE_BLOCK, 1), 500, &cost);
    bench_assert_error(&b, "make_pipeline on pipeline_shared_state 'st', which the pipeline made at line 4 still uses");
    bench_close(&b);
}
END_TEST

/* ------------------------------------------------------------- acquire */

/* A block-scope acquire is a wait_parity call: its first try_wait passes
 * the SM's mbarrier unit (one every barrier.mbarrier_wait_interval
 * cycles) and the call costs barrier.wait_call, or wait_call_copies while
 * the warp's copies are in flight; a free stage then opens. */
START_TEST(acquire_is_one_wait_call)
{
    Bench b;
    open_pipe(&b, UNIFIED(64, 2));
    make_all(&b, 0, 0, 1, 2);
    /* Tell the two costs apart (h100 measures both at 114). */
    b.sm->arch.mbar_test_copies = b.sm->arch.mbar_test + 56;
    const ArchParams *a = &b.sm->arch;
    const Op *acq = bench_op(&b, OP_PIPE_ACQUIRE, 0);
    Warp *w1 = bench_warp(&b, 1);
    land_at(w1, 3, 100000);
    int64_t cost;
    ck_assert_int_eq(bench_step(&b, 0, acq, 1000, &cost), STEP_ISSUED);
    ck_assert_int_eq(cost, 1);
    Split *s0 = &bench_warp(&b, 0)->split[0];
    ck_assert_uint_eq(s0->ready_at, 1000 + (SimCycle) a->mbar_test);
    ck_assert_int_eq(s0->wait_state, WS_PRODUCER_ACQUIRE);
    ck_assert_int_eq(s0->pc, bench_pc(&b, acq));
    /* The second warp's try_wait queues behind the first in the unit. */
    ck_assert_int_eq(bench_step(&b, 1, acq, 1000, &cost), STEP_ISSUED);
    ck_assert_uint_eq(w1->split[0].ready_at, 1000 + (SimCycle) (a->mbar_wait_interval + a->mbar_test_copies));
    /* The stage is free (a fresh consumed phase passes): it opens. */
    ck_assert_int_eq(bench_step(&b, 0, acq, s0->ready_at, &cost), STEP_CONTINUE);
    ck_assert_int_eq(s0->pc, bench_pc(&b, acq) + 1);
    ck_assert_int_eq(s0->step, 0);
    Pipe *p = pipe0(&b);
    ck_assert(p->flags[0] & PT_ACQUIRED);
    ck_assert(!(p->flags[32] & PT_ACQUIRED));
    ck_assert(p->life[0].open);
    ck_assert_uint_eq(p->life[0].acquired, 1000 + (SimCycle) a->mbar_test);
    bench_close(&b);
}
END_TEST

/* With every stage committed and none released, acquire blocks on the
 * head stage's consumed barrier. */
START_TEST(acquire_blocks_on_a_full_pipeline)
{
    Bench b;
    open_pipe(&b, UNIFIED(32, 1));
    make_all(&b, 0, 0, 1, 1);
    const Op *acq = bench_op(&b, OP_PIPE_ACQUIRE, 0);
    SimCycle t = bench_through(&b, 0, acq, 1000);
    t = bench_through(&b, 0, bench_op(&b, OP_PIPE_COMMIT, 0), t);
    int64_t cost;
    ck_assert_int_eq(bench_step(&b, 0, acq, t, &cost), STEP_ISSUED);
    Split *s = &bench_warp(&b, 0)->split[0];
    SimCycle poll = s->ready_at;
    ck_assert_int_eq(bench_step(&b, 0, acq, poll, &cost), STEP_ISSUED);
    ck_assert_int_eq(s->status, SPLIT_BLOCKED);
    ck_assert_int_eq(s->wait, WAIT_MBAR);
    ck_assert_int_eq(s->wait_state, WS_PRODUCER_ACQUIRE);
    Pipe *p = pipe0(&b);
    ck_assert_ptr_eq(&b.sm->blocks[0].mbars[s->wait_obj], pipe_consumed(p, b.sm->blocks[0].mbars, 0));
    ck_assert_uint_eq(s->blocked_since, poll + 1);
    ck_assert_uint_eq(b.sm->stats.mbar_waits, 1);
    bench_close(&b);
}
END_TEST

/* -------------------------------------------------------------- commit */

/* A block-scope commit is two operations of the mbarrier unit
 * (cp.async.mbarrier.arrive, then arrive): 2 issue cycles; the head moves
 * on, and the stage is ready when the producers' copies have landed. */
START_TEST(block_commit_arrives_when_copies_land)
{
    Bench b;
    open_pipe(&b, UNIFIED(64, 2));
    make_all(&b, 0, 0, 1, 2);
    const Op *acq = bench_op(&b, OP_PIPE_ACQUIRE, 0);
    const Op *commit = bench_op(&b, OP_PIPE_COMMIT, 0);
    for (int32_t wi = 0; wi < 2; wi++) {
        bench_through(&b, wi, acq, 1000);
        Warp *w = bench_warp(&b, wi);
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            land_at(w, l, 4000 + (SimCycle) wi * 100);
        }
        int64_t cost;
        ck_assert_int_eq(bench_step(&b, wi, commit, 2000, &cost), STEP_ISSUED);
        ck_assert_int_eq(cost, 2);
        ck_assert_uint_eq(w->split[0].ready_at, 2002);
        ck_assert_int_eq(w->split[0].wait_state, WS_DEPENDENCY);
        ck_assert_int_eq(w->split[0].pc, bench_pc(&b, commit) + 1);
    }
    Pipe *p = pipe0(&b);
    ck_assert_int_eq(p->head[0], 1);
    ck_assert_int_eq(p->head[63], 1);
    ck_assert(!(p->flags[0] & PT_ACQUIRED));
    ck_assert_uint_eq(p->life[0].committed, 2000);
    MBarrier *produced = pipe_produced(p, b.sm->blocks[0].mbars, 0);
    ck_assert_uint_eq(produced->phase, 0);
    /* The copies' arrivals (no warp event follows) complete the phase at
     * the later one's landing. */
    SimEvent ev;
    ck_assert(!bench_next_warp_event(&b, &ev));
    ck_assert_uint_eq(produced->phase, 1);
    ck_assert(p->life[0].has_ready);
    ck_assert_uint_eq(p->life[0].ready, 4100);
    ck_assert_uint_eq(b.sm->stats.mbar_phases, 1);
    bench_close(&b);
}
END_TEST

/* A thread-scope commit is cp.async.commit_group: one issue cycle, one
 * group holding the copies since the last commit. */
START_TEST(thread_commit_closes_a_group)
{
    Bench b;
    open_pipe(&b, THREAD_PIPE);
    thread_made(&b);
    Warp *w = bench_warp(&b, 0);
    bench_through(&b, 0, bench_op(&b, OP_PIPE_ACQUIRE, 0), 10);
    w->lane_open[0] = 700;
    w->lane_open[5] = 900;
    int64_t cost;
    ck_assert_int_eq(bench_step(&b, 0, bench_op(&b, OP_PIPE_COMMIT, 0), 20, &cost), STEP_ISSUED);
    ck_assert_int_eq(cost, 1);
    ck_assert_uint_eq(w->split[0].ready_at, 21);
    ck_assert_uint_eq(w->groups->len, 1);
    ck_assert_uint_eq(g_array_index(w->groups, CpGroup, 0).done, 900);
    ck_assert_uint_eq(w->lane_open[5], 0);
    Pipe *p = pipe0(&b);
    ck_assert_int_eq(p->head[7], 1);
    ck_assert_int_eq(p->commits[7], 1);
    ck_assert(!(p->flags[7] & PT_ACQUIRED));
    bench_close(&b);
}
END_TEST

/* Lanes of a warp that run a step apart keep their own protocol state:
 * the warp's threads no longer agree (models/pipeline.h), each lane is
 * checked and moved on its own, and they agree again once the other lanes
 * caught up.  A commit by the whole warp while only half of it acquired
 * names the first lane that did not: lane 16, not lane 0, whose state
 * answers for the warp only while its threads agree. */
START_TEST(diverged_lanes_keep_their_own_state)
{
    for (int caught_up = 0; caught_up < 2; caught_up++) {
        Bench b;
        open_pipe(&b, UNIFIED(32, 2));
        make_all(&b, 0, 0, 1, 2);
        Warp *w = bench_warp(&b, 0);
        Pipe *p = pipe0(&b);
        const Op *acq = bench_op(&b, OP_PIPE_ACQUIRE, 0);
        const Op *commit = bench_op(&b, OP_PIPE_COMMIT, 0);
        ck_assert(pipe_warp_agrees(p, 0));
        w->split[0].mask = 0x0000ffffu;
        SimCycle t = bench_through(&b, 0, acq, 1000);
        ck_assert(!pipe_warp_agrees(p, 0));
        ck_assert(p->flags[15] & PT_ACQUIRED);
        ck_assert(!(p->flags[16] & PT_ACQUIRED));
        ck_assert(p->life[0].open);
        if (caught_up) {
            w->split[0].mask = 0xffff0000u;
            t = bench_through(&b, 0, acq, t);
            ck_assert(pipe_warp_agrees(p, 0));
            ck_assert_uint_eq(p->life[0].acquired, 1000 + (SimCycle) b.sm->arch.mbar_test);
        }
        w->split[0].mask = ALL;
        if (!caught_up) {
            bench_step_fails(&b, 0, commit, t, "lanes 16 (threads 16..16)");
            bench_close(&b);
            continue;
        }
        bench_through(&b, 0, commit, t);
        ck_assert(pipe_warp_agrees(p, 0));
        ck_assert_int_eq(p->head[0], 1);
        ck_assert_int_eq(p->head[31], 1);
        ck_assert_int_eq(p->commits[20], 1);
        ck_assert(!(p->flags[20] & PT_ACQUIRED));
        bench_close(&b);
    }
}
END_TEST

/* A fresh pipeline's first operation `code` fails with `msg`, in both
 * scopes (a thread's own pipeline, then a block's once made). */
static void first_op_fails(OpCode code, const char *msg)
{
    Bench b;
    open_pipe(&b, THREAD_PIPE);
    thread_made(&b);
    bench_step_fails(&b, 0, bench_op(&b, code, 0), 10, msg);
    bench_close(&b);
    open_pipe(&b, UNIFIED(32, 2));
    make_all(&b, 0, 0, 1, 2);
    bench_step_fails(&b, 0, bench_op(&b, code, 0), 1000, msg);
    bench_close(&b);
}

/* SPEC pipeline-commit-1, in both scopes. */
START_TEST(commit_needs_acquire)
{
    first_op_fails(OP_PIPE_COMMIT,
                   "producer_commit without producer_acquire: a producer acquires the head stage before committing to"
                   " it (SPEC pipeline-commit-1)");
}
END_TEST

/* ------------------------------------------------- thread-scope waits */

/* Commits n groups, group k landing at 1000 + 100 k. */
static void commit_groups(Bench *b, int n)
{
    Warp *w = bench_warp(b, 0);
    for (int k = 0; k < n; k++) {
        bench_through(b, 0, bench_op(b, OP_PIPE_ACQUIRE, 0), 10);
        for (int l = 0; l < SIM_WARP_SIZE; l++) {
            w->lane_open[l] = 1000 + 100 * (SimCycle) k;
        }
        bench_through(b, 0, bench_op(b, OP_PIPE_COMMIT, 0), 10);
    }
}

/* consumer_wait is wait_group min(head - tail - 1, 8): with 10 stages
 * committed it waits for the 2 oldest groups, not the first alone. */
START_TEST(thread_wait_leaves_at_most_8_groups)
{
    Bench b;
    open_pipe(&b, THREAD_PIPE);
    thread_made(&b);
    commit_groups(&b, 10);
    const Op *wait = bench_op(&b, OP_PIPE_WAIT, 0);
    int64_t cost;
    ck_assert_int_eq(bench_step(&b, 0, wait, 50, &cost), STEP_ISSUED);
    Split *s = &bench_warp(&b, 0)->split[0];
    ck_assert_int_eq(cost, 1);
    ck_assert_int_eq(s->aux, 8);
    ck_assert_uint_eq(s->ready_at, 1100);
    ck_assert_int_eq(s->wait_state, WS_CONSUMER_WAIT);
    ck_assert_int_eq(bench_step(&b, 0, wait, 1100, &cost), STEP_CONTINUE);
    ck_assert_int_eq(s->pc, bench_pc(&b, wait) + 1);
    Pipe *p = pipe0(&b);
    ck_assert_int_eq(p->tail[0], 1);
    ck_assert_int_eq(p->waits[31], 1);
    ck_assert(p->flags[31] & PT_WAITED);
    bench_close(&b);
}
END_TEST

/* The wait instruction itself takes cp_async.wait_cycles: landed groups
 * do not make it free. */
START_TEST(thread_wait_takes_wait_cycles)
{
    Bench b;
    open_pipe(&b, THREAD_PIPE);
    thread_made(&b);
    commit_groups(&b, 2);
    int64_t cost;
    const Op *wait = bench_op(&b, OP_PIPE_WAIT, 0);
    ck_assert_int_eq(bench_step(&b, 0, wait, 5000, &cost), STEP_ISSUED);
    ck_assert_int_gt(b.sm->arch.cp_async_wait, 1);
    ck_assert_uint_eq(bench_warp(&b, 0)->split[0].ready_at, 5000 + (SimCycle) b.sm->arch.cp_async_wait);
    bench_close(&b);
}
END_TEST

/* pipeline_consumer_wait_prior<N> is one wait_group N (its count is a
 * template argument: no switch over the pending count as in consumer_wait),
 * so on landed groups it takes cp_async.wait_prior_cycles, not
 * cp_async.wait_cycles. */
START_TEST(wait_prior_takes_its_own_cycles)
{
    Bench b;
    open_pipe(&b, THREAD_PIPE);
    thread_made(&b);
    commit_groups(&b, 2);
    ck_assert_int_gt(b.sm->arch.cp_async_wait_prior, 1);
    ck_assert_int_ne(b.sm->arch.cp_async_wait_prior, b.sm->arch.cp_async_wait);
    int64_t cost;
    const Op *prior0 = bench_op(&b, OP_PIPE_WAIT_PRIOR, 1);
    ck_assert_int_eq(prior0->value, 0);
    ck_assert_int_eq(bench_step(&b, 0, prior0, 5000, &cost), STEP_ISSUED);
    ck_assert_uint_eq(bench_warp(&b, 0)->split[0].ready_at, 5000 + (SimCycle) b.sm->arch.cp_async_wait_prior);
    bench_close(&b);
}
END_TEST

/* pipeline_consumer_wait_prior<N> waits with min(N, 8) pending and sets
 * the tail N stages behind the head. */
START_TEST(wait_prior_leaves_at_most_8_groups)
{
    Bench b;
    open_pipe(&b, THREAD_PIPE);
    thread_made(&b);
    commit_groups(&b, 10);
    const Op *prior10 = bench_op(&b, OP_PIPE_WAIT_PRIOR, 0);
    ck_assert_int_eq(prior10->value, 10);
    int64_t cost;
    Split *s = &bench_warp(&b, 0)->split[0];
    ck_assert_int_eq(bench_step(&b, 0, prior10, 50, &cost), STEP_ISSUED);
    ck_assert_int_eq(s->aux, 8);
    ck_assert_uint_eq(s->ready_at, 1100);
    ck_assert_int_eq(bench_step(&b, 0, prior10, 1100, &cost), STEP_CONTINUE);
    ck_assert_int_eq(pipe0(&b)->tail[0], 0);
    ck_assert(pipe0(&b)->flags[0] & PT_WAITED);
    /* <0>: every group. */
    const Op *prior0 = bench_op(&b, OP_PIPE_WAIT_PRIOR, 1);
    ck_assert_int_eq(bench_step(&b, 0, prior0, 1200, &cost), STEP_ISSUED);
    ck_assert_uint_eq(s->ready_at, 1900);
    ck_assert_int_eq(bench_step(&b, 0, prior0, 1900, &cost), STEP_CONTINUE);
    ck_assert_int_eq(pipe0(&b)->tail[0], 10);
    bench_close(&b);

    open_pipe(&b, "smpipe 1\nblock 32\nshared pipeline_shared_state<block, 2> st\nvar p = make_pipeline(block, st)\n"
                  "pipeline_consumer_wait_prior<1>(p)\n");
    make_all(&b, 0, 0, 1, 2);
    bench_step_fails(&b, 0, bench_op(&b, OP_PIPE_WAIT_PRIOR, 0), 1000,
                     "pipeline_consumer_wait_prior takes a pipeline<thread_scope_thread>");
    bench_close(&b);
}
END_TEST

/* SPEC pipeline-wait-1: nothing committed and unwaited, in both scopes. */
START_TEST(wait_on_an_empty_pipeline)
{
    first_op_fails(OP_PIPE_WAIT,
                   "consumer_wait on an empty pipeline: this thread has no committed stage left to wait for (SPEC"
                   " pipeline-wait-1)");
}
END_TEST

/* -------------------------------------------------- block-scope waits */

/* One warp produces stage 0 with copies landing at `land`: make at 0,
 * acquire at 1000, commit at 1300.  Returns the acquire's end. */
static SimCycle produce_stage(Bench *b, SimCycle land)
{
    make_all(b, 0, 0, 1, g_array_index(b->run.prog->pstates, ProgPState, 0).stages);
    SimCycle acquired = bench_through(b, 0, bench_op(b, OP_PIPE_ACQUIRE, 0), 1000);
    Warp *w = bench_warp(b, 0);
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        land_at(w, l, land);
    }
    int64_t cost;
    ck_assert_int_eq(bench_step(b, 0, bench_op(b, OP_PIPE_COMMIT, 0), 1300, &cost), STEP_ISSUED);
    return acquired;
}

/* A consumer waits on the stage's produced barrier until its phase
 * completes, resumes after the wake-up, and the stage's life is recorded
 * when its consumers release it: fill (acquire to commit), land (commit
 * to ready), idle (ready to the first wait passing), consume (to the
 * release) and the exposed wait. */
START_TEST(block_wait_blocks_until_the_stage_lands)
{
    Bench b;
    open_pipe(&b, UNIFIED(32, 2));
    const ArchParams *a = &b.sm->arch;
    SimCycle acquired = produce_stage(&b, 6000);
    const Op *wait = bench_op(&b, OP_PIPE_WAIT, 0);
    int64_t cost;
    ck_assert_int_eq(bench_step(&b, 0, wait, 1400, &cost), STEP_ISSUED);
    Split *s = &bench_warp(&b, 0)->split[0];
    /* Copies in flight: the wait call costs wait_call_copies. */
    SimCycle poll = 1400 + (SimCycle) a->mbar_test_copies;
    ck_assert_uint_eq(s->ready_at, poll);
    ck_assert_int_eq(s->wait_state, WS_CONSUMER_WAIT);
    ck_assert_uint_lt(poll, 6000);
    ck_assert_int_eq(bench_step(&b, 0, wait, poll, &cost), STEP_ISSUED);
    ck_assert_int_eq(s->status, SPLIT_BLOCKED);
    ck_assert_int_eq(s->wait, WAIT_MBAR);
    ck_assert_int_eq(s->wait_state, WS_CONSUMER_WAIT);
    /* sm_90's try_wait suspends: the waiter resumes mbarrier_wake after
     * the phase completes. */
    SimCycle woken = 6000 + (SimCycle) a->mbar_wake;
    bench_expect_wake(&b, 0, 0, woken);
    ck_assert_int_eq(bench_step(&b, 0, wait, woken, &cost), STEP_CONTINUE);
    ck_assert_int_eq(s->pc, bench_pc(&b, wait) + 1);
    Pipe *p = pipe0(&b);
    ck_assert_int_eq(p->waits[0], 1);
    ck_assert_uint_eq(p->life[0].waited, woken);
    ck_assert_uint_eq(p->life[0].exposed, woken - (poll + 1));
    const Op *release = bench_op(&b, OP_PIPE_RELEASE, 0);
    ck_assert_int_eq(bench_step(&b, 0, release, woken + 100, &cost), STEP_ISSUED);
    ck_assert_int_eq(cost, 1);
    ck_assert_uint_eq(s->ready_at, woken + 101);
    ck_assert_int_eq(p->tail[0], 1);
    ck_assert(!p->life[0].open);
    const SimStageStats *st = p->stats;
    ck_assert_uint_eq(st->instances, 1);
    ck_assert_uint_eq(st->step[STAGE_STEP_FILL].sum, 1300 - acquired);
    ck_assert_uint_eq(st->step[STAGE_STEP_LAND].sum, 6000 - 1300);
    ck_assert_uint_eq(st->step[STAGE_STEP_IDLE].sum, woken - 6000);
    ck_assert_uint_eq(st->step[STAGE_STEP_CONSUME].sum, 100);
    ck_assert_uint_eq(st->exposed.sum, woken - (poll + 1));
    bench_close(&b);
}
END_TEST

/* consumer_wait_for(d): the deadline is d after the call; when it passes
 * first the call returns 0 and the waiter leaves the barrier. */
START_TEST(wait_for_times_out)
{
    Bench b;
    open_pipe(&b, UNIFIED(32, 1));
    produce_stage(&b, 10000);
    const Op *wait_for = bench_op(&b, OP_PIPE_WAIT_FOR, 0);
    int64_t cost;
    Split *s = &bench_warp(&b, 0)->split[0];
    ck_assert_int_eq(bench_step(&b, 0, wait_for, 2000, &cost), STEP_ISSUED);
    ck_assert_int_eq(s->aux2, 7000);
    ck_assert_int_eq(bench_step(&b, 0, wait_for, s->ready_at, &cost), STEP_ISSUED);
    ck_assert_int_eq(s->status, SPLIT_BLOCKED);
    MBarrier *produced = pipe_produced(pipe0(&b), b.sm->blocks[0].mbars, 0);
    ck_assert_uint_eq(produced->waiters->len, 1);
    SimEvent ev;
    int32_t wi, si;
    ck_assert(bench_next_warp_event(&b, &ev));
    ck_assert(bench_event_warp(&b, &ev, &wi, &si));
    ck_assert_uint_eq(ev.cycle, 7000);
    bench_fire(&b, &ev);
    ck_assert_int_eq(s->status, SPLIT_RUNNABLE);
    ck_assert_uint_eq(produced->waiters->len, 0);
    ck_assert_int_eq(bench_step(&b, 0, wait_for, 7000, &cost), STEP_CONTINUE);
    ck_assert_int_eq(s->pc, bench_pc(&b, wait_for) + 1);
    ck_assert_int_eq(var_lane(&b, 0, wait_for->var, 9), 0);
    bench_close(&b);
}
END_TEST

/* When the stage is ready first, wait_for returns 1 and its deadline no
 * longer does anything. */
START_TEST(wait_for_ready_before_the_deadline)
{
    Bench b;
    open_pipe(&b, UNIFIED(32, 1));
    produce_stage(&b, 3000);
    const Op *wait_for = bench_op(&b, OP_PIPE_WAIT_FOR, 0);
    int64_t cost;
    Split *s = &bench_warp(&b, 0)->split[0];
    ck_assert_int_eq(bench_step(&b, 0, wait_for, 2000, &cost), STEP_ISSUED);
    ck_assert_int_eq(bench_step(&b, 0, wait_for, s->ready_at, &cost), STEP_ISSUED);
    SimCycle woken = 3000 + (SimCycle) b.sm->arch.mbar_wake;
    bench_expect_wake(&b, 0, 0, woken);
    ck_assert_int_eq(bench_step(&b, 0, wait_for, woken, &cost), STEP_CONTINUE);
    ck_assert_int_eq(var_lane(&b, 0, wait_for->var, 0), 1);
    int32_t pc = s->pc;
    /* The deadline's event, if any is left, changes nothing. */
    SimEvent ev;
    if (bench_next_warp_event(&b, &ev)) {
        ck_assert_uint_eq(ev.cycle, 7000);
        bench_fire(&b, &ev);
    }
    ck_assert_int_eq(s->pc, pc);
    ck_assert_int_eq(s->status, SPLIT_RUNNABLE);
    ck_assert_int_eq(s->step, 0);
    bench_close(&b);
}
END_TEST

/* consumer_wait_until takes an absolute cycle; a negative duration is
 * no wait at all. */
START_TEST(wait_until_takes_a_cycle)
{
    Bench b;
    open_pipe(&b, "smpipe 1\nblock 32\nshared pipeline_shared_state<block, 1> st\nvar p = make_pipeline(block, st)\n"
                  "p.producer_acquire()\np.producer_commit()\nvar a = p.consumer_wait_until(6543)\n"
                  "var c = p.consumer_wait_for(-5)\n");
    produce_stage(&b, 10000);
    int64_t cost;
    Split *s = &bench_warp(&b, 0)->split[0];
    ck_assert_int_eq(bench_step(&b, 0, bench_op(&b, OP_PIPE_WAIT_FOR, 0), 2000, &cost), STEP_ISSUED);
    ck_assert_int_eq(s->aux2, 6543);
    s->step = 0;
    ck_assert_int_eq(bench_step(&b, 0, bench_op(&b, OP_PIPE_WAIT_FOR, 1), 2000, &cost), STEP_ISSUED);
    ck_assert_int_eq(s->aux2, 2000);
    bench_close(&b);
}
END_TEST

/* ------------------------------------------------------------- release */

/* SPEC pipeline-release-1; a thread-scope release is bookkeeping only. */
START_TEST(release_needs_a_wait)
{
    Bench b;
    int64_t cost;
    open_pipe(&b, UNIFIED(32, 2));
    make_all(&b, 0, 0, 1, 2);
    bench_step_fails(&b, 0, bench_op(&b, OP_PIPE_RELEASE, 0), 1000,
                     "consumer_release without consumer_wait: a consumer waits for the tail stage before releasing it"
                     " (SPEC pipeline-release-1)");
    bench_close(&b);

    open_pipe(&b, THREAD_PIPE);
    thread_made(&b);
    commit_groups(&b, 1);
    bench_through(&b, 0, bench_op(&b, OP_PIPE_WAIT, 0), 2000);
    ck_assert_int_eq(bench_step(&b, 0, bench_op(&b, OP_PIPE_RELEASE, 0), 3000, &cost), STEP_CONTINUE);
    ck_assert_int_eq(cost, 0);
    ck_assert_int_eq(pipe0(&b)->releases[4], 1);
    ck_assert(!(pipe0(&b)->flags[4] & PT_WAITED));
    bench_close(&b);
}
END_TEST

/* ---------------------------------------------------------------- quit */

/* quit() is warp-aggregated: the thread that drops the last reference
 * (the lowest lane of the last warp) gets 1 and the barriers are
 * destroyed; quitting twice is an error, but the destructor skips threads
 * that quit. */
START_TEST(quit_last_reference)
{
    Bench b;
    open_pipe(&b, "smpipe 1\nblock 64\nshared pipeline_shared_state<block, 2> st\nif threadIdx.x < 1024\n"
                  "    var p = make_pipeline(block, st)\n    var last = p.quit()\n    var again = p.quit()\nend\n");
    make_all(&b, 0, 0, 1, 2);
    const Op *quit = bench_op(&b, OP_PIPE_QUIT, 0);
    int64_t cost;
    ck_assert_int_eq(bench_step(&b, 0, quit, 1000, &cost), STEP_ISSUED);
    ck_assert_int_eq(cost, 1);
    Pipe *p = pipe0(&b);
    ck_assert_int_eq(p->refcount, 32);
    ck_assert(p->live);
    ck_assert_int_eq(var_lane(&b, 0, quit->var, 0), 0);
    ck_assert_int_eq(bench_step(&b, 1, quit, 1010, &cost), STEP_ISSUED);
    ck_assert_int_eq(p->refcount, 0);
    ck_assert(!p->live);
    ck_assert(!pipe_produced(p, b.sm->blocks[0].mbars, 1)->valid);
    ck_assert_int_eq(var_lane(&b, 1, quit->var, 0), 1);
    ck_assert_int_eq(var_lane(&b, 1, quit->var, 1), 0);
    /* The destructor at the block's end: nothing left to quit. */
    const Op *dtor = bench_op(&b, OP_PIPE_QUIT, 2);
    ck_assert_int_eq(dtor->sub, 1);
    ck_assert_int_eq(bench_step(&b, 0, dtor, 1100, &cost), STEP_ISSUED);
    ck_assert_ptr_null(bench_error(&b));
    bench_step_fails(&b, 0, bench_op(&b, OP_PIPE_QUIT, 1), 1200, "quit() on a pipeline this thread has already quit");
    bench_close(&b);

    /* Thread scope: quit() returns 1. */
    open_pipe(&b, THREAD_PIPE);
    thread_made(&b);
    quit = bench_op(&b, OP_PIPE_QUIT, 0);
    ck_assert_int_eq(bench_step(&b, 0, quit, 10, &cost), STEP_ISSUED);
    ck_assert_int_eq(var_lane(&b, 0, quit->var, 17), 1);
    bench_close(&b);
}
END_TEST

/* Threads that exit quit the block pipelines they are in: the last
 * destroys it. */
START_TEST(exiting_threads_quit)
{
    Bench b;
    open_pipe(&b, UNIFIED(64, 2));
    make_all(&b, 0, 0, 1, 2);
    Pipe *p = pipe0(&b);
    pipe_lanes_exit(b.sm, bench_warp(&b, 0), 0x0000ffffu, 500);
    ck_assert_int_eq(p->refcount, 48);
    pipe_lanes_exit(b.sm, bench_warp(&b, 0), ALL, 600);
    ck_assert_int_eq(p->refcount, 32);
    ck_assert(p->live);
    pipe_lanes_exit(b.sm, bench_warp(&b, 1), ALL, 700);
    ck_assert(!p->live);
    ck_assert(!pipe_consumed(p, b.sm->blocks[0].mbars, 0)->valid);
    bench_close(&b);
}
END_TEST

/* --------------------------------------------------------------- roles */

/* Partitioned by count, a thread's first operation fixes its role
 * (SPEC pipeline-role-1); after quit() a thread takes no part (SPEC
 * pipeline-quit-2). */
START_TEST(roles_are_fixed_by_the_first_operation)
{
    Bench b;
    open_pipe(&b, "smpipe 1\nblock 64\nshared pipeline_shared_state<block, 2> st\n"
                  "var p = make_pipeline(block, st, 32)\np.producer_acquire()\np.consumer_wait()\n"
                  "var last = p.quit()\n");
    make_all(&b, 0, 0, 1, 2);
    bench_through(&b, 0, bench_op(&b, OP_PIPE_ACQUIRE, 0), 1000);
    ck_assert_int_eq(b.sm->blocks[0].thread_role[5], ROLEBIT_PRODUCER);
    int64_t cost;
    ck_assert_int_eq(bench_step(&b, 1, bench_op(&b, OP_PIPE_WAIT, 0), 1000, &cost), STEP_ISSUED);
    ck_assert_int_eq(b.sm->blocks[0].thread_role[40], ROLEBIT_CONSUMER);
    bench_warp(&b, 0)->split[0].step = 0;
    bench_step_fails(&b, 0, bench_op(&b, OP_PIPE_WAIT, 0), 2000,
                     "consumer_wait: a producer thread performs a consumer operation: a thread's role cannot change"
                     " (SPEC pipeline-role-1)");
    bench_close(&b);

    open_pipe(&b, THREAD_PIPE);
    thread_made(&b);
    bench_step(&b, 0, bench_op(&b, OP_PIPE_QUIT, 0), 10, &cost);
    bench_step_fails(&b, 0, bench_op(&b, OP_PIPE_ACQUIRE, 0), 20,
                     "producer_acquire: the pipeline is used after this thread called quit() (SPEC pipeline-quit-2)");
    bench_close(&b);
}
END_TEST

int main(void)
{
    const TestCase cases[] = {
        { "make_pipeline group sync", make_pipeline_releases_after_sync_and_init },
        { "make_pipeline role form", make_pipeline_role_form_syncs_three_times },
        { "make_pipeline rules", make_pipeline_rules },
        { "acquire wait call", acquire_is_one_wait_call },
        { "acquire full pipeline", acquire_blocks_on_a_full_pipeline },
        { "block commit", block_commit_arrives_when_copies_land },
        { "thread commit", thread_commit_closes_a_group },
        { "commit rule", commit_needs_acquire },
        { "diverged lanes", diverged_lanes_keep_their_own_state },
        { "thread wait cap", thread_wait_leaves_at_most_8_groups },
        { "thread wait cycles", thread_wait_takes_wait_cycles },
        { "wait_prior cap", wait_prior_leaves_at_most_8_groups },
        { "wait_prior cycles", wait_prior_takes_its_own_cycles },
        { "empty pipeline", wait_on_an_empty_pipeline },
        { "block wait and stage life", block_wait_blocks_until_the_stage_lands },
        { "wait_for time-out", wait_for_times_out },
        { "wait_for ready", wait_for_ready_before_the_deadline },
        { "wait_until", wait_until_takes_a_cycle },
        { "release", release_needs_a_wait },
        { "quit", quit_last_reference },
        { "thread exit", exiting_threads_quit },
        { "roles", roles_are_fixed_by_the_first_operation },
    };
    return run_cases("pipe_exec", cases, G_N_ELEMENTS(cases));
}
