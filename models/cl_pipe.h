/* cl_pipe.h: an OpenCL 2.0 pipe object (`pipe gentype p`) and the
 * reservation bookkeeping its built-ins imply (seed document
 * opencl-work-group-pipes.txt; OpenCL C 2.0 "Pipe Functions").
 *
 * A pipe of C packets is a ring of C packet slots in global memory plus a
 * header of four monotonic packet counters (one 128-byte line):
 *   wres  packets reserved for writing: the next write reservation starts here
 *   wcom  packets committed by writers: readers may reserve below it
 *   rres  packets reserved for reading
 *   rcom  packets committed by readers: their slots are free again
 * so that rcom <= rres <= wcom <= wres <= rcom + C always holds.
 *   reserve_write(n)  succeeds iff wres + n <= rcom + C and takes [wres, wres + n)
 *   reserve_read(n)   succeeds iff rres + n <= wcom and takes [rres, rres + n)
 *   commit            marks the reservation; wcom (rcom) then advances over
 *                     every committed reservation at the front, so packets
 *                     enter (leave) the pipe in reservation order as one
 *                     contiguous set (SPEC clpipe-commit-1)
 * Reservations are taken in the order the operations reach the header, so
 * those of one work-group or work-item lie in the pipe in its program order
 * (SPEC clpipe-order-1).  A failed reservation changes nothing and yields
 * the invalid id 0.
 *
 * Packet k lives in slot k mod C.  A bitmap remembers which slots were
 * written since their write reservation, so that reading a reserved packet
 * nobody wrote can be reported (its contents are undefined).
 *
 * Timing is not modelled by ClPipe itself: cl_exec (cl_exec.c) charges each header operation as an
 * atomic (an L2 round trip through the memory path) and packets as global
 * loads and stores.  This unit keeps state and statistics only, so it can
 * be tested alone (tests/test_cl_pipe.c). */
#pragma once

#include "sim/core/simtypes.h"

/* A pipe's statistics record and a run's statistics (sim/out/stats.h,
 * which cl_pipe.c uses). */
typedef struct SimClPipeStats SimClPipeStats;
typedef struct SimStats SimStats;

/* A reservation: open (not committed), or committed and waiting for an
 * older one of the same direction to commit too. */
typedef struct {
    int64_t id;          /* reserve_id_t value, > 0, unique in the run */
    int32_t block;       /* the work-group that made it */
    int64_t tid;         /* the work-item (thread of the block), or -1 for a work-group reservation */
    bool write;
    bool plain;          /* made inside read_pipe/write_pipe(p, ptr) */
    bool committed;
    int64_t start;       /* first packet (a counter value, not a slot) */
    int64_t n;           /* packets */
    SrcLoc loc;          /* the reserving call */
} ClReservation;

/* Invariant: rcom <= rres <= wcom <= wres <= rcom + capacity; `writes`
 * (`reads`) hold the reservations covering [wcom, wres) ([rcom, rres)),
 * contiguous and oldest first. */
typedef struct {
    int64_t capacity;        /* packets */
    int64_t packet_bytes;
    int32_t nblocks;
    int64_t threads;         /* work-items per work-group */
    int64_t wres, wcom, rres, rcom;
    GArray *writes;          /* ClReservation */
    GArray *reads;           /* ClReservation */
    uint8_t *written;        /* bitmap per slot */
    uint8_t *last_failed;    /* per owner and direction: the previous attempt failed */
    SimCycle since;          /* occupancy accounted up to here */
    SimClPipeStats *stats;   /* owned until cl_pipe_take_stats */
    int64_t timeline_value;  /* occupancy last given to the timeline */
} ClPipe;

/* Sets up an empty pipe for nblocks work-groups of `threads` work-items. */
void cl_pipe_init(ClPipe *p, const char *name, int64_t capacity, int64_t packet_bytes, int32_t nblocks,
                  int64_t threads);
void cl_pipe_clear(ClPipe *p);

/* Slots in use (reserved or holding packets). */
static inline int64_t cl_pipe_occupancy(const ClPipe *p)
{
    return p->wres - p->rcom;
}

/* Tries to reserve n packets (1 <= n <= capacity) at cycle now for work-item
 * tid of work-group block (tid -1: the work-group).  On success records the
 * reservation with the given id, copies it to *out (may be NULL) and returns
 * true; otherwise counts a failure and returns false. */
bool cl_pipe_reserve(ClPipe *p, bool write, int64_t n, int32_t block, int64_t tid, bool plain, int64_t id,
                     SrcLoc loc, SimCycle now, ClReservation *out);

/* The reservation with this id that is still tracked (open, or committed
 * behind an older one), or NULL. */
ClReservation *cl_pipe_find(ClPipe *p, int64_t id);

/* The open plain reservation of work-item tid of block in a direction. */
ClReservation *cl_pipe_find_plain(ClPipe *p, int32_t block, int64_t tid, bool write);

/* Commits the open reservation `id` at cycle now and advances the pipe over
 * every committed reservation at the front. */
void cl_pipe_commit(ClPipe *p, int64_t id, SimCycle now);

/* Open, non-plain reservations that count against work-item tid of block
 * (its own and its work-group's, CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS);
 * tid -1 gives the most any work-item of the block has. */
int64_t cl_pipe_active(const ClPipe *p, int32_t block, int64_t tid);

/* The slot of packet `index` of a reservation. */
static inline int64_t cl_pipe_slot(const ClPipe *p, const ClReservation *r, int64_t index)
{
    return (r->start + index) % p->capacity;
}

/* Marks a reserved packet written / asks whether it was. */
void cl_pipe_mark_written(ClPipe *p, int64_t slot);
bool cl_pipe_is_written(const ClPipe *p, int64_t slot);

/* Closes the occupancy accounting at cycle end. */
void cl_pipe_finish(ClPipe *p, SimCycle end);

/* Hands the statistics over.  Returns them (the caller owns them). */
SimClPipeStats *cl_pipe_take_stats(ClPipe *p);

/* End of run: closes the occupancy accounting at end and hands the pipe's
 * record to st (appended to st->cl_pipes, which owns it from then on). */
void cl_pipe_stats_merge(ClPipe *p, SimCycle end, SimStats *st);
