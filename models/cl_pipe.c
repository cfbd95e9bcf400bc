/* cl_pipe.c: OpenCL pipe objects: reservations, in-order commits, the
 * written-packet bitmap and the occupancy statistics (see cl_pipe.h).
 * cl_exec.c runs the pipe built-ins as warps execute them, with their cost
 * model.  Numbers: opencl.max_active_reservations (CL_DEVICE_PIPE_MAX_
 * ACTIVE_RESERVATIONS); the objects have no timing of their own. */
#include "models/cl_pipe.h"

#include "sim/out/stats.h"

#include <string.h>

void cl_pipe_init(ClPipe *p, const char *name, int64_t capacity, int64_t packet_bytes, int32_t nblocks,
                  int64_t threads)
{
    memset(p, 0, sizeof *p);
    p->capacity = capacity;
    p->packet_bytes = packet_bytes;
    p->nblocks = nblocks;
    p->threads = threads;
    p->writes = g_array_new(FALSE, FALSE, sizeof(ClReservation));
    p->reads = g_array_new(FALSE, FALSE, sizeof(ClReservation));
    p->written = g_new0(uint8_t, (size_t) (capacity + 7) / 8);
    /* Owners: the work-groups, then every work-item; two directions each. */
    p->last_failed = g_new0(uint8_t, (size_t) (nblocks + nblocks * threads) * 2);
    p->stats = sim_cl_pipe_stats_new(name, capacity, packet_bytes);
}

void cl_pipe_clear(ClPipe *p)
{
    if (p->writes != NULL) {
        g_array_free(p->writes, TRUE);
        g_array_free(p->reads, TRUE);
    }
    g_free(p->written);
    g_free(p->last_failed);
    if (p->stats != NULL) {
        sim_cl_pipe_stats_free(p->stats);
    }
    memset(p, 0, sizeof *p);
}

/* Adds [since, now) at the current occupancy to the statistics. */
static void account(ClPipe *p, SimCycle now)
{
    if (now <= p->since) {
        return;
    }
    SimClPipeStats *st = p->stats;
    uint64_t d = now - p->since;
    int64_t occ = cl_pipe_occupancy(p);
    st->total_cycles += d;
    st->occupancy_sum += d * (uint64_t) occ;
    st->bins[occ * (st->nbins - 1) / p->capacity] += d;
    if (occ == 0) {
        st->empty_cycles += d;
    }
    if (occ == p->capacity) {
        st->full_cycles += d;
    }
    p->since = now;
}

static size_t owner_index(const ClPipe *p, int32_t block, int64_t tid, bool write)
{
    size_t owner = tid < 0 ? (size_t) block : (size_t) p->nblocks + (size_t) block * (size_t) p->threads + (size_t) tid;
    return owner * 2 + (write ? 1 : 0);
}

bool cl_pipe_reserve(ClPipe *p, bool write, int64_t n, int32_t block, int64_t tid, bool plain, int64_t id,
                     SrcLoc loc, SimCycle now, ClReservation *out)
{
    SimClPipeStats *st = p->stats;
    int dir = write ? 1 : 0;
    uint8_t *failed_before = &p->last_failed[owner_index(p, block, tid, write)];
    if (*failed_before) {
        st->retries[dir]++;
    }
    bool ok = write ? p->wres + n <= p->rcom + p->capacity : p->rres + n <= p->wcom;
    *failed_before = !ok;
    if (!ok) {
        st->failures[dir]++;
        return false;
    }
    account(p, now);
    ClReservation r = { id, block, tid, write, plain, false, write ? p->wres : p->rres, n, loc };
    if (write) {
        for (int64_t k = 0; k < n; k++) {
            int64_t slot = (r.start + k) % p->capacity;
            p->written[slot / 8] &= (uint8_t) ~(1u << (slot % 8));
        }
        p->wres += n;
        g_array_append_val(p->writes, r);
    } else {
        p->rres += n;
        g_array_append_val(p->reads, r);
    }
    st->reservations[dir]++;
    st->peak = MAX(st->peak, cl_pipe_occupancy(p));
    if (out != NULL) {
        *out = r;
    }
    return true;
}

static ClReservation *find_in(GArray *a, int64_t id)
{
    for (guint i = 0; i < a->len; i++) {
        ClReservation *r = &g_array_index(a, ClReservation, i);
        if (r->id == id) {
            return r;
        }
    }
    return NULL;
}

ClReservation *cl_pipe_find(ClPipe *p, int64_t id)
{
    ClReservation *r = find_in(p->writes, id);
    return r != NULL ? r : find_in(p->reads, id);
}

ClReservation *cl_pipe_find_plain(ClPipe *p, int32_t block, int64_t tid, bool write)
{
    GArray *a = write ? p->writes : p->reads;
    for (guint i = 0; i < a->len; i++) {
        ClReservation *r = &g_array_index(a, ClReservation, i);
        if (r->plain && !r->committed && r->block == block && r->tid == tid) {
            return r;
        }
    }
    return NULL;
}

void cl_pipe_commit(ClPipe *p, int64_t id, SimCycle now)
{
    ClReservation *r = cl_pipe_find(p, id);
    g_assert(r != NULL && !r->committed);
    account(p, now);
    r->committed = true;
    bool write = r->write;
    GArray *a = write ? p->writes : p->reads;
    /* SPEC clpipe-commit-1: commits take effect in reservation order, each
     * as one contiguous set of packets. */
    guint done = 0;
    while (done < a->len && g_array_index(a, ClReservation, done).committed) {
        const ClReservation *c = &g_array_index(a, ClReservation, done);
        if (write) {
            p->wcom += c->n;
        } else {
            p->rcom += c->n;
        }
        p->stats->packets[write ? 1 : 0] += (uint64_t) c->n;
        done++;
    }
    if (done > 0) {
        g_array_remove_range(a, 0, done);
    }
}

/* Whether r counts against the active-reservation limit of block. */
static bool counts_active(const ClReservation *r, int32_t block)
{
    return !r->committed && !r->plain && r->block == block;
}

/* Open reservations of work-item tid of block itself (not its group's). */
static int64_t item_active(const ClPipe *p, int32_t block, int64_t tid)
{
    int64_t n = 0;
    GArray *lists[2] = { p->writes, p->reads };
    for (int k = 0; k < 2; k++) {
        for (guint i = 0; i < lists[k]->len; i++) {
            const ClReservation *r = &g_array_index(lists[k], ClReservation, i);
            n += counts_active(r, block) && r->tid == tid;
        }
    }
    return n;
}

int64_t cl_pipe_active(const ClPipe *p, int32_t block, int64_t tid)
{
    /* A work-group reservation counts as one for each of its work-items. */
    int64_t group = item_active(p, block, -1);
    if (tid >= 0) {
        return group + item_active(p, block, tid);
    }
    int64_t most = 0;
    GArray *lists[2] = { p->writes, p->reads };
    for (int k = 0; k < 2; k++) {
        for (guint i = 0; i < lists[k]->len; i++) {
            const ClReservation *r = &g_array_index(lists[k], ClReservation, i);
            if (counts_active(r, block) && r->tid >= 0) {
                most = MAX(most, item_active(p, block, r->tid));
            }
        }
    }
    return group + most;
}

void cl_pipe_mark_written(ClPipe *p, int64_t slot)
{
    p->written[slot / 8] |= (uint8_t) (1u << (slot % 8));
}

bool cl_pipe_is_written(const ClPipe *p, int64_t slot)
{
    return (p->written[slot / 8] >> (slot % 8)) & 1u;
}

void cl_pipe_finish(ClPipe *p, SimCycle end)
{
    account(p, end);
}

SimClPipeStats *cl_pipe_take_stats(ClPipe *p)
{
    SimClPipeStats *st = p->stats;
    p->stats = NULL;
    return st;
}

void cl_pipe_stats_merge(ClPipe *p, SimCycle end, SimStats *st)
{
    cl_pipe_finish(p, end);
    g_ptr_array_add(st->cl_pipes, cl_pipe_take_stats(p));
}
