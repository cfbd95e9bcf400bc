/* pipeline.h: cuda::pipeline, as libcudacxx implements it (cuda/pipeline).
 *
 * Block scope (pipeline_shared_state<thread_scope_block, S>): S stages of
 * {produced, consumed} mbarriers in shared memory plus a reference count.
 * Each thread keeps head, tail (uint8_t), consumed_parity = 1 and
 * produced_parity = 0.
 *   make_pipeline(group, state)          both barriers expect group.size()
 *   make_pipeline(group, state, count)   produced expects count, consumed size - count
 *   make_pipeline(group, state, role)    producers counted, then as above
 *   producer_acquire  consumed[head].wait_parity(consumed_parity)
 *   producer_commit   cp.async.mbarrier.arrive + produced[head].arrive();
 *                     ++head, wrapping to 0 and flipping consumed_parity
 *   consumer_wait     produced[tail].wait_parity(produced_parity)
 *   consumer_release  consumed[tail].arrive(); ++tail, wrapping, flipping
 *                     produced_parity
 *   quit              refcount -= (warp-aggregated) count; the last thread
 *                     invalidates the barriers and gets true
 * From this the FIFO of the seeds follows: a producer blocks in acquire
 * while all S stages are in use; a stage is pushed when every producer has
 * committed and ready when their copies landed; it is popped when every
 * consumer has released it.
 *
 * Thread scope (make_pipeline()): no shared state; head and tail count
 * cp.async commit groups; consumer_wait waits for group head - tail - 1
 * (at most 8 can be named: wait_group takes 0..8, so with more outstanding
 * it waits for more than needed).
 *
 * On top of the library's behaviour this unit keeps each thread's protocol
 * state so that misuse is reported (SPEC tags in pipeline.c and
 * pipe_exec.c, which runs the protocol as warps execute it). */
#pragma once

#include "models/barrier.h"
#include "sim/core/simtypes.h"

/* A pipeline's statistics record (sim/out/stats.h, which pipeline.c uses). */
typedef struct SimStageStats SimStageStats;

/* The most commit groups a thread-scope wait can leave outstanding:
 * libcudacxx's wait_group switch names 0..8 (consumer_wait and
 * pipeline_consumer_wait_prior<N> both cap at it). */
#define PIPE_WAIT_GROUP_MAX 8

/* Threads of a warp (SIM_WARP_SIZE; a unit header includes only sim/core). */
#define PIPE_WARP_LANES 32

/* Per-thread flags. */
enum {
    PT_MADE = 1,        /* make_pipeline returned for this thread */
    PT_ACTIVE = 2,      /* not quit */
    PT_ACQUIRED = 4,    /* producer holds the head stage (acquired, not committed) */
    PT_WAITED = 8,      /* consumer waited on the tail stage (not released) */
    PT_CPARITY = 16,    /* consumed_phase_parity */
    PT_PPARITY = 32     /* produced_phase_parity */
};

enum {
    ROLEBIT_PRODUCER = 1,
    ROLEBIT_CONSUMER = 2
};

/* The life of one stage instance (slot reuse), for statistics. */
typedef struct {
    bool open;              /* acquired and not yet released */
    SimCycle acquired, committed, ready, waited, released;
    bool has_commit, has_ready, has_wait;
    uint64_t exposed;       /* warp-cycles consumers waited on it */
} StageLife;

typedef struct {
    bool block_scope;
    int32_t make_op;        /* the make_pipeline operation */
    int32_t pstate;         /* block scope: index in Program.pstates */
    int64_t stages;
    int32_t mbar_base;      /* produced[s] = mbar_base + 2s, consumed[s] = + 1 */
    PipeMode mode;
    int64_t threads;        /* block size */
    int64_t producers, consumers;
    int64_t refcount;
    bool live;              /* made and not destroyed by the last quit */
    /* make_pipeline's collective: threads arrived, and the argument. */
    int64_t arrived;
    int64_t arg;
    int64_t arg_first_tid;
    int64_t producer_votes; /* role form */
    /* Per thread (always exact, whatever agree says). */
    uint8_t *head, *tail, *flags, *role;
    uint32_t *commits;      /* stages this thread committed (monotonic) */
    uint32_t *releases;     /* stages this thread released (monotonic) */
    uint32_t *waits;        /* stages this thread passed consumer_wait on (monotonic) */
    /* Per warp of the block (warp k: threads k * PIPE_WARP_LANES on, fewer
     * in a last partial warp): 1 when every thread of the warp has the
     * same head, tail, flags, role, commits, releases and waits, so that
     * its first thread's state answers for all of them (pipe_warp_agrees).
     * A step every thread of an agreeing warp takes moves them together and
     * keeps it; any other change updates thread by thread and looks again
     * (pipe_check_agreement is the invariant). */
    uint8_t *agree;
    /* Statistics. */
    StageLife *life;        /* per slot */
    uint64_t *occupancy_time; /* cycles with k stages open, k = 0..stages */
    int64_t open_stages;
    SimCycle occupancy_since;
    SimStageStats *stats;   /* owned: made by its first block make_pipeline and
                             * kept across remakes, so every instance counts */
} Pipe;

void pipe_init(Pipe *p, bool block_scope, int32_t make_op, int64_t threads);
void pipe_clear(Pipe *p);

/* Starts a block-scope pipeline on shared state `pstate` with S stages whose
 * barriers start at mbar_base (called when make_pipeline's group has
 * synchronised).  Returns NULL or the rule broken (static string). */
const char *pipe_block_make(Pipe *p, MBarrier *mbars, int32_t pstate, int64_t stages, int32_t mbar_base,
                            PipeMode mode, int64_t producers, SimCycle now);

/* Per-thread set-up when make_pipeline returns for thread tid. */
void pipe_thread_made(Pipe *p, int64_t tid, uint8_t role_bits);

/* True when every thread of the warp whose first thread is tid0 has the
 * same protocol state: thread tid0's answers for any of its lanes. */
static inline bool pipe_warp_agrees(const Pipe *p, int64_t tid0)
{
    return p->agree[tid0 / PIPE_WARP_LANES] != 0;
}

/* The protocol's per-thread steps, for lanes `mask` of the warp whose first
 * thread is tid0 (bit l: thread tid0 + l): one update for the warp when
 * every thread of an agreeing warp takes it, else thread by thread.
 *   pipe_lanes_flags     flags |= set, then &= ~clear
 *   pipe_lanes_commit    producer_commit: not acquired, commits + 1, head
 *                        to the next stage (block scope: wrapping flips
 *                        the consumed parity; thread scope: uint8 ++)
 *   pipe_lanes_waited    consumer_wait passed: waited, waits + 1 (thread
 *                        scope: tail + 1)
 *   pipe_lanes_release   consumer_release: not waited, releases + 1 (block
 *                        scope: tail to the next stage, wrapping flips the
 *                        produced parity)
 *   pipe_lanes_wait_prior  wait_prior<prior>: tail = head - prior, waited */
void pipe_lanes_flags(Pipe *p, int64_t tid0, uint32_t mask, uint8_t set, uint8_t clear);
void pipe_lanes_commit(Pipe *p, int64_t tid0, uint32_t mask);
void pipe_lanes_waited(Pipe *p, int64_t tid0, uint32_t mask);
void pipe_lanes_release(Pipe *p, int64_t tid0, uint32_t mask);
void pipe_lanes_wait_prior(Pipe *p, int64_t tid0, uint32_t mask, int64_t prior);

/* Looks again whether the threads of the warp holding thread tid agree,
 * after a change made to some of them directly (a role fixed by first
 * use). */
void pipe_warp_recheck(Pipe *p, int64_t tid);

/* The invariant: NULL when the warp whose first thread is tid0 agrees
 * exactly when agree says so, else a static description of the breach.
 * O(32): for assertions and tests. */
const char *pipe_check_agreement(const Pipe *p, int64_t tid0);

static inline MBarrier *pipe_produced(const Pipe *p, MBarrier *mbars, int64_t slot)
{
    return &mbars[p->mbar_base + 2 * slot];
}

static inline MBarrier *pipe_consumed(const Pipe *p, MBarrier *mbars, int64_t slot)
{
    return &mbars[p->mbar_base + 2 * slot + 1];
}

/* Checks the protocol for an operation by thread tid; role bits the
 * operation needs (ROLEBIT_*).  Returns NULL or the rule broken. */
const char *pipe_check_role(Pipe *p, int64_t tid, uint8_t role_bits);

/* Records a stage being opened (first acquire of an instance) or closed,
 * for the occupancy statistics. */
void pipe_stage_open(Pipe *p, int64_t slot, SimCycle now);
void pipe_stage_close(Pipe *p, int64_t slot, SimCycle now);

/* Finalises the occupancy time at the end of the run and adds it to the
 * pipeline's stage statistics, if it has any.  Called once. */
void pipe_finish(Pipe *p, SimCycle end);

/* End of run, for a block pipeline with statistics: pipe_finish, then adds
 * its stage record to into (the sum over the pipelines made on one
 * pipeline_shared_state, the caller's).  Called once. */
void pipe_stats_merge(Pipe *p, SimCycle end, SimStageStats *into);
