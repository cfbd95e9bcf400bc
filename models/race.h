/* race.h: the pipeline race detector.
 *
 * It tracks, for every 4-byte word of each block's shared memory, the last
 * asynchronous copy that wrote it (by which thread, synchronised through
 * what: a block-scope pipeline stage instance, a thread's cp.async commit
 * group, a cuda::barrier phase) and the last thread that read it.
 *   read-after-write: a thread reads a word whose async copy it has not
 *     waited for: neither its own consumer_wait / wait_group / barrier wait
 *     covers it, nor did such a wait by another thread precede a block
 *     barrier (__syncthreads) the reader has passed;
 *   write-after-read: an async copy overwrites a word another thread read
 *     with no block barrier in between and no pipeline release ordering the
 *     two (the CUDA guide warns of this for with_staging_scope_thread when
 *     compute() reads other warps' data).
 * Happens-before is tracked with per-thread block-barrier epochs: all
 * threads pass a block barrier together, so a thread at epoch e has seen
 * everything other threads did before arriving at barrier e. */
#pragma once

#include "sim/core/simtypes.h"

typedef struct RaceState RaceState;

typedef enum {
    RACE_TAG_STAGE,   /* obj = pipe slot, seq = stage instance */
    RACE_TAG_GROUP,   /* seq = the writer's commit group number */
    RACE_TAG_BARRIER  /* obj = mbarrier, seq = phase the copy completes */
} RaceTagKind;

typedef struct {
    RaceTagKind kind;
    int32_t obj;
    uint32_t seq;
    SrcLoc loc;       /* the copy's line */
} RaceTag;

/* Shadow state for `blocks` blocks of `block_threads` threads and
 * `smem_bytes` of shared memory, each with `pipes` pipeline objects and
 * `mbars` mbarriers. */
RaceState *race_new(int64_t block_threads, int64_t smem_bytes, int32_t blocks, int32_t pipes, int32_t mbars);
void race_free(RaceState *r);

/* An async copy by thread tid writes [off, off+size) of shared memory.
 * Returns a newly allocated warning for a write-after-read race, or NULL. */
char *race_async_write(RaceState *r, int32_t block, int64_t tid, int64_t off, int64_t size, RaceTag tag,
                       int32_t writer_pipe_stages);
/* An ordinary store (or a synchronous copy) by tid. */
void race_plain_write(RaceState *r, int32_t block, int64_t tid, int64_t off, int64_t size);
/* A load by tid at line `loc`.  Returns a newly allocated warning for a
 * read-after-write race, or NULL. */
char *race_read(RaceState *r, int32_t block, int64_t tid, int64_t off, int64_t size, SrcLoc loc);
/* A warp's load: for each bit l of lanes, in lane order, race_read by
 * thread tid0 + l of [off[l], off[l] + size).  Adds the lanes whose read
 * races to *races; returns a newly allocated warning for the first of
 * them, or NULL. */
char *race_read_lanes(RaceState *r, int32_t block, int64_t tid0, uint32_t lanes, const int64_t *off, int64_t size,
                      SrcLoc loc, uint64_t *races);
/* A warp's async copy: for each bit l of lanes, in lane order,
 * race_async_write by thread tid0 + l of [off[l], off[l] + size) with tag,
 * its sequence seq[l] (tag.seq for every lane when seq is NULL).  Adds the
 * lanes whose copy races to *races; returns a newly allocated warning for
 * the first of them, or NULL. */
char *race_async_write_lanes(RaceState *r, int32_t block, int64_t tid0, uint32_t lanes, const int64_t *off,
                             int64_t size, RaceTag tag, const uint32_t *seq, int32_t writer_pipe_stages,
                             uint64_t *races);

/* Synchronisation events. */
void race_stage_waited(RaceState *r, int32_t block, int64_t tid, int32_t pipe, uint32_t instance);
void race_stage_released(RaceState *r, int32_t block, int64_t tid, int32_t pipe);
/* The same for each bit l of lanes: thread tid0 + l (waited for instance[l]). */
void race_stage_waited_lanes(RaceState *r, int32_t block, int64_t tid0, uint32_t lanes, int32_t pipe,
                             const uint32_t *instance);
void race_stage_released_lanes(RaceState *r, int32_t block, int64_t tid0, uint32_t lanes, int32_t pipe);
void race_groups_waited(RaceState *r, int32_t block, int64_t tid, uint32_t complete_groups);
void race_group_committed(RaceState *r, int32_t block, int64_t tid);
uint32_t race_current_group(RaceState *r, int32_t block, int64_t tid);
/* pipeline_producer_commit(pipe, bar) by the threads tid0 + l for each
 * bit l of lanes: their commit-group copies so far arrive on mbarrier mbar
 * in its phase `phase`, so a wait that sees that phase complete sees them
 * too (as does their own wait for the group). */
void race_copies_arrive_on(RaceState *r, int32_t block, int64_t tid0, uint32_t lanes, int32_t mbar,
                           uint32_t phase);
void race_barrier_observed(RaceState *r, int32_t block, int64_t tid, int32_t mbar, uint64_t phases);
/* Lanes of warp tid0 passed a __syncwarp (tile 32) or a sync of tiles of
 * `tile` lanes: the copies of commit groups that a lane waited for before
 * it are visible to the other lanes of its tile. */
void race_warp_sync(RaceState *r, int32_t block, int64_t tid0, uint32_t lanes, int tile);
/* Thread tid arrives at the block barrier / passes it (generation gen). */
void race_block_arrive(RaceState *r, int32_t block, int64_t tid);
void race_block_pass(RaceState *r, int32_t block, int64_t tid, uint64_t gen);
/* The block barrier completed (generation gen): snapshot what is visible. */
void race_block_complete(RaceState *r, int32_t block, uint64_t gen, const uint64_t *mbar_phases, int32_t nmbars);
