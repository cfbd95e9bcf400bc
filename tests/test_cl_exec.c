/* test_cl_exec.c: the OpenCL pipe built-ins as warps run them
 * (models/cl_exec.c), driven alone (test_step.h): the test steps one
 * built-in at a time at the cycles it chooses.  Timing is checked against
 * a twin: a second SM built from the same trace, in the same state, whose
 * memory path answers the accesses the cost model says a step makes (a
 * header atomic is one uncached sector read of the header line at L2).
 * One TCase per behaviour: header atomics, lane order, the plain forms,
 * the reserved forms, work-group functions, the rules of reservations, ids
 * and access, unwritten packets, the data moved and the end-of-run
 * warnings.  The pipe objects alone are tests/test_cl_pipe.c's. */
#include "test_step.h"

#include "models/barrier.h"
#include "models/cl_exec.h"
#include "models/ldst.h"
#include "sim/out/stats.h"

#define ALL 0xffffffffu

/* Per-work-item reservations of one packet each, on a pipe of 40: a block
 * of 64 fills it with its first 40 work-items. */
#define ITEMS                                                                                                          \
    "smpipe 1\nblock 64\npipe int p[40]\npipe int q[8]\nshared int s[64]\nvar rid = reserve_write_pipe(p, 1)\n"        \
    "var st = write_pipe(p, rid, 0, s + threadIdx.x)\ncommit_write_pipe(p, rid)\nvar rq = reserve_write_pipe(q, 1)\n"  \
    "commit_write_pipe(p, rq)\nwork_group_commit_write_pipe(p, rid)\n"

/* Two work-groups: 0 writes, 1 reads, with the plain forms. */
#define PLAIN                                                                                                          \
    "smpipe 1\nparam blocks = 2\nblock 64\npipe int p[40]\nshared int s[64]\n"                                         \
    "var sw = write_pipe(p, s + threadIdx.x)\nvar sr = read_pipe(p, s + threadIdx.x)\n"

/* A work-group function per direction. */
#define GROUP                                                                                                          \
    "smpipe 1\nblock 64\npipe int p[128]\nvar rid = work_group_reserve_write_pipe(p, 64)\n"                            \
    "work_group_commit_write_pipe(p, rid)\ncommit_write_pipe(p, rid)\n"

static void open_cl(Bench *b, const char *text, const char *const *sets, bool functional)
{
    bench_open(b, text, NULL, sets, functional, cl_exec);
}

/* b and its twin: two SMs built alike from text. */
static void open_twins(Bench *b, Bench *twin, const char *text)
{
    open_cl(b, text, NULL, false);
    open_cl(twin, text, NULL, false);
}

static ClPipe *clpipe(Bench *b, int k)
{
    return &b->sm->clpipes[k];
}

static int64_t var_lane(Bench *b, int32_t wi, int32_t var, int l)
{
    const ProgVar *v = sm_var(b->sm, var);
    return bench_warp(b, wi)->vals[v->slot + (v->varying ? l : 0)];
}

static void set_var(Bench *b, int32_t wi, int32_t var, int l, int64_t value)
{
    const ProgVar *v = sm_var(b->sm, var);
    bench_warp(b, wi)->vals[v->slot + (v->varying ? l : 0)] = value;
}

/* The header atomic of op's pipe at t, as the twin's memory path answers
 * it: one sector of the header line, uncached in L1. */
static SimCycle twin_atomic(Bench *twin, const Op *op, SimCycle t)
{
    const ProgPipe *pp = &g_array_index(twin->run.prog->pipes, ProgPipe, op->obj);
    return mem_path_read(&twin->sm->mem, t, (uint64_t) pp->header, twin->sm->arch.sector_bytes, false);
}

/* The global addresses of the slots lanes `m` of warp wi's packets (packet
 * first + lane) occupy in op's pipe. */
static void slot_addrs(Bench *b, const Op *op, int64_t first, LaneMask m, int64_t *addr)
{
    const ProgPipe *pp = &g_array_index(b->run.prog->pipes, ProgPipe, op->obj);
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        addr[l] = (m & (1u << l)) ? pp->base + ((first + l) % pp->capacity) * pp->elem.size : 0;
    }
}

/* ----------------------------------------------------- header atomics */

/* A reservation or a commit by work-items is one warp-aggregated atomic
 * on the pipe's header: one issue cycle, and the warp waits for the round
 * trip (a long one: memory). */
START_TEST(header_operations_cost_one_atomic)
{
    Bench b, twin;
    open_twins(&b, &twin, ITEMS);
    const Op *reserve = bench_op(&b, OP_CL_RESERVE, 0);
    const Op *commit = bench_op(&b, OP_CL_COMMIT, 0);
    int64_t cost;
    Split *s = &bench_warp(&b, 0)->split[0];
    ck_assert_int_eq(bench_step(&b, 0, reserve, 100, &cost), STEP_ISSUED);
    ck_assert_int_eq(cost, 1);
    SimCycle back = twin_atomic(&twin, reserve, 100);
    ck_assert_uint_gt(back, 100 + 100);
    ck_assert_uint_eq(s->ready_at, back);
    ck_assert_int_eq(s->wait_state, WS_MEMORY);
    ck_assert_int_eq(s->pc, bench_pc(&b, reserve) + 1);
    ck_assert_int_eq(bench_step(&b, 1, reserve, 100, &cost), STEP_ISSUED);
    ck_assert_uint_eq(bench_warp(&b, 1)->split[0].ready_at, twin_atomic(&twin, reserve, 100));
    ck_assert_int_eq(bench_step(&b, 0, commit, 5000, &cost), STEP_ISSUED);
    ck_assert_int_eq(cost, 1);
    ck_assert_uint_eq(s->ready_at, twin_atomic(&twin, commit, 5000));
    ck_assert_uint_eq(clpipe(&b, 0)->stats->atomics, 3);
    bench_close(&twin);
    bench_close(&b);
}
END_TEST

/* ------------------------------------------------- per-item reservations */

/* A warp's work-items reserve in lane order, each taking the run's next
 * id; those the pipe has no room for get the invalid id 0. */
START_TEST(items_reserve_in_lane_order)
{
    Bench b;
    open_cl(&b, ITEMS, NULL, false);
    const Op *reserve = bench_op(&b, OP_CL_RESERVE, 0);
    int64_t cost;
    bench_step(&b, 0, reserve, 100, &cost);
    bench_step(&b, 1, reserve, 110, &cost);
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        ck_assert_int_eq(var_lane(&b, 0, reserve->var, l), l + 1);
        ck_assert_int_eq(var_lane(&b, 1, reserve->var, l), l < 8 ? 33 + l : 0);
    }
    ClPipe *p = clpipe(&b, 0);
    ck_assert_int_eq(p->wres, 40);
    ck_assert_int_eq(cl_pipe_occupancy(p), 40);
    ck_assert_uint_eq(p->stats->reservations[1], 40);
    ck_assert_uint_eq(p->stats->failures[1], 24);
    ck_assert_int_eq(b.sm->cl_next_rid, 41);
    /* Writers are producers (--by role). */
    ck_assert_int_eq(b.sm->blocks[0].thread_role[63], ROLEBIT_PRODUCER);
    /* Each commits its own: the pipe holds 40 packets. */
    const Op *commit = bench_op(&b, OP_CL_COMMIT, 0);
    bench_warp(&b, 1)->split[0].mask = 0xffu;
    bench_step(&b, 0, commit, 1000, &cost);
    bench_step(&b, 1, commit, 1000, &cost);
    ck_assert_ptr_null(bench_error(&b));
    ck_assert_int_eq(p->wcom, 40);
    ck_assert_uint_eq(p->stats->packets[1], 40);
    bench_close(&b);
}
END_TEST

/* SPEC clpipe-reserve-1 and clpipe-max-active-1. */
START_TEST(reservation_rules)
{
    Bench b;
    int64_t cost;
    open_cl(&b, "smpipe 1\nblock 32\npipe int p[40]\nvar a = reserve_write_pipe(p, threadIdx.x / 1024)\n"
                "var c = reserve_write_pipe(p, 41)\n",
            NULL, false);
    bench_step_fails(&b, 0, bench_op(&b, OP_CL_RESERVE, 0), 10,
                     "reserve_write_pipe(p, 0): num_packets must be at least 1 (SPEC clpipe-reserve-1)");
    bench_close(&b);
    open_cl(&b, "smpipe 1\nblock 32\npipe int p[40]\nvar a = reserve_write_pipe(p, threadIdx.x / 1024)\n"
                "var c = reserve_write_pipe(p, 41)\n",
            NULL, false);
    bench_step_fails(&b, 0, bench_op(&b, OP_CL_RESERVE, 1), 10,
                     "reserve_write_pipe(p, 41): pipe 'p' holds 40 packets, so this reservation can never succeed (SPEC"
                     " clpipe-reserve-1)");
    bench_close(&b);

    const char *one[] = { "opencl.max_active_reservations=1", NULL };
    open_cl(&b, ITEMS, one, false);
    const Op *reserve = bench_op(&b, OP_CL_RESERVE, 0);
    ck_assert_int_eq(bench_step(&b, 0, reserve, 10, &cost), STEP_ISSUED);
    bench_step_fails(&b, 0, reserve, 1000,
                     "reserve_write_pipe: the work-item already has 1 open reservation on pipe 'p', the limit"
                     " CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS (opencl.max_active_reservations = 1;");
    bench_close(&b);

    open_cl(&b, "smpipe 1\nblock 32\npipe int p[128]\nvar a = reserve_write_pipe(p, 1)\n"
                "var g = work_group_reserve_write_pipe(p, 4)\n",
            one, false);
    ck_assert_int_eq(bench_step(&b, 0, bench_op(&b, OP_CL_RESERVE, 0), 10, &cost), STEP_ISSUED);
    bench_step_fails(&b, 0, bench_op(&b, OP_CL_RESERVE, 1), 1000,
                     "work_group_reserve_write_pipe: a work-item of the work-group already has 1 open reservation on"
                     " pipe 'p'");
    bench_close(&b);
}
END_TEST

/* SPEC clpipe-rid-1 .. 3: an id is valid, open, of its pipe, direction,
 * owner and form. */
START_TEST(reservation_id_rules)
{
    Bench b;
    int64_t cost;
    open_cl(&b, ITEMS, NULL, false);
    const Op *commit = bench_op(&b, OP_CL_COMMIT, 0);
    bench_step_fails(&b, 0, commit, 10,
                     "commit_write_pipe with an invalid reservation id: the reservation that returned it failed; test"
                     " it with is_valid_reserve_id first (SPEC clpipe-rid-1)");
    bench_close(&b);

    open_cl(&b, ITEMS, NULL, false);
    commit = bench_op(&b, OP_CL_COMMIT, 0);
    bench_step(&b, 0, bench_op(&b, OP_CL_RESERVE, 0), 10, &cost);
    bench_step(&b, 0, commit, 1000, &cost);
    bench_step_fails(&b, 0, commit, 2000,
                     "commit_write_pipe with reservation 1 of pipe 'p', which was already committed (SPEC"
                     " clpipe-rid-2)");
    bench_close(&b);

    open_cl(&b, ITEMS, NULL, false);
    bench_step(&b, 0, bench_op(&b, OP_CL_RESERVE, 1), 10, &cost);
    bench_step_fails(&b, 0, bench_op(&b, OP_CL_COMMIT, 1), 1000,
                     "commit_write_pipe on pipe 'p' with reservation 1, which belongs to pipe 'q' (SPEC clpipe-rid-3)");
    bench_close(&b);

    /* Lane 0 uses lane 1's id (as if passed through memory). */
    open_cl(&b, ITEMS, NULL, false);
    const Op *reserve = bench_op(&b, OP_CL_RESERVE, 0);
    bench_step(&b, 0, reserve, 10, &cost);
    set_var(&b, 0, reserve->var, 0, 2);
    bench_step_fails(&b, 0, bench_op(&b, OP_CL_COMMIT, 0), 1000,
                     "commit_write_pipe with reservation 2, which belongs to work-item 1 (SPEC clpipe-rid-3)");
    bench_close(&b);

    /* Every work-item passes work-item 0's id to the work-group commit. */
    open_cl(&b, ITEMS, NULL, false);
    reserve = bench_op(&b, OP_CL_RESERVE, 0);
    bench_step(&b, 0, reserve, 10, &cost);
    bench_step(&b, 1, reserve, 10, &cost);
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        set_var(&b, 0, reserve->var, l, 1);
        set_var(&b, 1, reserve->var, l, 1);
    }
    bench_step(&b, 0, bench_op(&b, OP_CL_COMMIT, 2), 1000, &cost);
    bench_step_fails(&b, 1, bench_op(&b, OP_CL_COMMIT, 2), 1000,
                     "work_group_commit_write_pipe takes a work-group reservation; reservation 1 was made by work-item"
                     " 0 at line 6: commit it with commit_write_pipe (SPEC clpipe-rid-3)");
    bench_close(&b);

    open_cl(&b, GROUP, NULL, false);
    const Op *wg = bench_op(&b, OP_CL_RESERVE, 0);
    bench_step(&b, 0, wg, 10, &cost);
    bench_step(&b, 1, wg, 10, &cost);
    bench_warp(&b, 0)->split[0].step = 0;
    bench_warp(&b, 0)->split[0].status = SPLIT_RUNNABLE;
    bench_step_fails(&b, 0, bench_op(&b, OP_CL_COMMIT, 1), 1000,
                     "commit_write_pipe takes the work-item's own reservation; reservation 1 was made by the work-group"
                     " at line 4: commit it with work_group_commit_write_pipe (SPEC clpipe-rid-3)");
    bench_close(&b);

    /* Another work-group's id; a read with a write reservation. */
    open_cl(&b, "smpipe 1\nparam blocks = 2\nblock 32\npipe int p[40]\nshared int s[32]\n"
                "var rid = reserve_write_pipe(p, 1)\ncommit_write_pipe(p, rid)\nvar x = read_pipe(p, rid, 0, s)\n",
            NULL, false);
    reserve = bench_op(&b, OP_CL_RESERVE, 0);
    bench_step(&b, 0, reserve, 10, &cost);
    set_var(&b, 1, reserve->var, 0, 1);
    bench_warp(&b, 1)->split[0].mask = 1;
    bench_step_fails(&b, 1, bench_op(&b, OP_CL_COMMIT, 0), 1000,
                     "commit_write_pipe with reservation 1, which work-group 0 made (SPEC clpipe-rid-3)");
    bench_close(&b);
    open_cl(&b, "smpipe 1\nblock 32\npipe int p[40]\nshared int s[32]\n"
                "var rid = reserve_write_pipe(p, 1)\nvar x = read_pipe(p, rid, 0, s + threadIdx.x)\n",
            NULL, false);
    bench_step(&b, 0, bench_op(&b, OP_CL_RESERVE, 0), 10, &cost);
    bench_step_fails(&b, 0, bench_op(&b, OP_CL_RW_RESERVED, 0), 1000,
                     "read_pipe with reservation 1, which reserved packets for writing at line 5 (SPEC clpipe-rid-3)");
    bench_close(&b);
}
END_TEST

/* SPEC clpipe-access-1: a work-group's first use of a pipe fixes its
 * direction. */
START_TEST(a_work_group_reads_or_writes_a_pipe)
{
    Bench b;
    open_cl(&b, PLAIN, NULL, false);
    bench_through(&b, 0, bench_op(&b, OP_CL_RW, 0), 10);
    bench_step_fails(&b, 1, bench_op(&b, OP_CL_RW, 1), 10,
                     "read_pipe: work-group 0 writes pipe 'p' at line 6; a kernel's pipe is read_only or write_only, so"
                     " one work-group cannot both read and write it (SPEC clpipe-access-1)");
    bench_close(&b);
}
END_TEST

/* ---------------------------------------------------------- plain forms */

/* write_pipe(p, ptr): the first step reserves a packet per work-item and
 * loads it from ptr, ready when both the load and the header atomic are
 * back; the second stores it into its slot and commits it (another
 * atomic).  Work-items that got no packet return -1. */
START_TEST(plain_write_reserves_moves_and_commits)
{
    Bench b, twin;
    open_twins(&b, &twin, PLAIN);
    const Op *wr = bench_op(&b, OP_CL_RW, 0);
    int64_t cost;
    Split *s = &bench_warp(&b, 0)->split[0];
    ck_assert_int_eq(bench_step(&b, 0, wr, 100, &cost), STEP_ISSUED);
    ck_assert_int_eq(cost, 1);
    ck_assert_int_eq(s->step, 1);
    SimCycle atomic = twin_atomic(&twin, wr, 100);
    ck_assert_uint_eq(s->ready_at, atomic);
    ClPipe *p = clpipe(&b, 0);
    ck_assert_int_eq(p->wres, 32);
    ck_assert_int_eq(p->wcom, 0);
    ck_assert_int_eq(bench_step(&b, 0, wr, atomic, &cost), STEP_ISSUED);
    ck_assert_int_eq(s->pc, bench_pc(&b, wr) + 1);
    ck_assert_int_eq(s->step, 0);
    int64_t slots[SIM_WARP_SIZE];
    slot_addrs(&twin, wr, 0, ALL, slots);
    ldst_global_write(twin.sm, atomic, slots, ALL, 4);
    ck_assert_uint_eq(s->ready_at, twin_atomic(&twin, wr, atomic));
    ck_assert_int_eq(p->wcom, 32);
    ck_assert(cl_pipe_is_written(p, 31));
    ck_assert_int_eq(var_lane(&b, 0, wr->var, 31), 0);
    /* The second warp: 8 packets of room. */
    bench_through(&b, 1, wr, 10000);
    for (int l = 0; l < SIM_WARP_SIZE; l++) {
        ck_assert_int_eq(var_lane(&b, 1, wr->var, l), l < 8 ? 0 : -1);
    }
    ck_assert_int_eq(p->wcom, 40);
    ck_assert_uint_eq(p->stats->failures[1], 24);
    bench_close(&twin);
    bench_close(&b);
}
END_TEST

/* read_pipe(p, ptr): reserve (an atomic), load the packet from its slot
 * (a global read), then store it to ptr and commit (an atomic): three
 * steps.  With nothing to read, work-items return -1 after the first. */
START_TEST(plain_read_reserves_loads_and_commits)
{
    Bench b, twin;
    open_twins(&b, &twin, PLAIN);
    const Op *wr = bench_op(&b, OP_CL_RW, 0);
    const Op *rd = bench_op(&b, OP_CL_RW, 1);
    int64_t cost;
    /* Work-group 1 (warp 2) finds the pipe empty. */
    SimCycle t = bench_through(&b, 2, rd, 50);
    ck_assert_int_eq(var_lane(&b, 2, rd->var, 0), -1);
    ck_assert_uint_eq(clpipe(&b, 0)->stats->failures[0], 32);
    ck_assert_uint_eq(t, twin_atomic(&twin, rd, 50) + 1);
    /* Work-group 0 writes 32 packets; the reader takes them. */
    bench_through(&b, 0, wr, 1000);
    Split *s = &bench_warp(&b, 3)->split[0];
    ck_assert_int_eq(bench_step(&b, 3, rd, 20000, &cost), STEP_ISSUED);
    ck_assert_int_eq(s->step, 1);
    ck_assert_int_eq(bench_step(&b, 3, rd, s->ready_at, &cost), STEP_ISSUED);
    ck_assert_int_eq(s->step, 2);
    SimCycle load_at = s->ready_at;
    ck_assert_int_eq(bench_step(&b, 3, rd, load_at, &cost), STEP_ISSUED);
    ck_assert_int_eq(s->pc, bench_pc(&b, rd) + 1);
    ck_assert_int_eq(var_lane(&b, 3, rd->var, 31), 0);
    ck_assert_int_eq(clpipe(&b, 0)->rcom, 32);
    ck_assert_uint_eq(clpipe(&b, 0)->stats->packets[0], 32);
    ck_assert_int_eq(b.sm->blocks[1].thread_role[40], ROLEBIT_CONSUMER);
    bench_close(&twin);
    bench_close(&b);
}
END_TEST

/* ------------------------------------------------------- reserved forms */

/* write_pipe(p, rid, i, ptr): load from ptr, then store into the slot
 * (ready the next cycle); SPEC clpipe-index-1 bounds the index. */
START_TEST(reserved_write_and_its_index)
{
    Bench b;
    open_cl(&b, ITEMS, NULL, false);
    bench_step(&b, 0, bench_op(&b, OP_CL_RESERVE, 0), 10, &(int64_t) { 0 });
    const Op *wr = bench_op(&b, OP_CL_RW_RESERVED, 0);
    int64_t cost;
    Split *s = &bench_warp(&b, 0)->split[0];
    ck_assert_int_eq(bench_step(&b, 0, wr, 1000, &cost), STEP_ISSUED);
    ck_assert_int_eq(s->step, 1);
    ck_assert_uint_gt(s->ready_at, 1000);
    ck_assert_uint_lt(s->ready_at, 1100);
    ck_assert_int_eq(s->wait_state, WS_DEPENDENCY);
    SimCycle t = s->ready_at;
    ck_assert_int_eq(bench_step(&b, 0, wr, t, &cost), STEP_ISSUED);
    ck_assert_uint_eq(s->ready_at, t + 1);
    ck_assert_int_eq(s->pc, bench_pc(&b, wr) + 1);
    ck_assert(cl_pipe_is_written(clpipe(&b, 0), 0));
    ck_assert(cl_pipe_is_written(clpipe(&b, 0), 31));
    bench_close(&b);

    open_cl(&b, "smpipe 1\nblock 32\npipe int p[40]\nshared int s[32]\nvar rid = reserve_write_pipe(p, 1)\n"
                "var x = write_pipe(p, rid, threadIdx.x % 2, s + threadIdx.x)\n",
            NULL, false);
    bench_step(&b, 0, bench_op(&b, OP_CL_RESERVE, 0), 10, &cost);
    bench_step_fails(&b, 0, bench_op(&b, OP_CL_RW_RESERVED, 0), 1000,
                     "write_pipe(p, 2, 1, ptr): the reservation holds 1 packet, indices 0..0 (SPEC clpipe-index-1)");
    bench_close(&b);
}
END_TEST

/* SPEC clpipe-unwritten-1: reading a reserved packet that no write_pipe
 * wrote is a warning, counted per pipe. */
START_TEST(reading_an_unwritten_packet_warns)
{
    Bench b, twin;
    const char *text = "smpipe 1\nparam blocks = 2\nblock 32\npipe int p[40]\nshared int s[32]\n"
                       "var w = reserve_write_pipe(p, 1)\ncommit_write_pipe(p, w)\n"
                       "var r = reserve_read_pipe(p, 1)\nvar x = read_pipe(p, r, 0, s + threadIdx.x)\n";
    open_twins(&b, &twin, text);
    int64_t cost;
    bench_step(&b, 0, bench_op(&b, OP_CL_RESERVE, 0), 10, &cost);
    bench_step(&b, 0, bench_op(&b, OP_CL_COMMIT, 0), 1000, &cost);
    bench_step(&b, 1, bench_op(&b, OP_CL_RESERVE, 1), 2000, &cost);
    ck_assert_int_eq(var_lane(&b, 1, bench_op(&b, OP_CL_RESERVE, 1)->var, 0), 33);
    const Op *rd = bench_op(&b, OP_CL_RW_RESERVED, 0);
    ck_assert_int_eq(bench_step(&b, 1, rd, 3000, &cost), STEP_ISSUED);
    /* The first step reads the slots (global loads). */
    int64_t slots[SIM_WARP_SIZE];
    slot_addrs(&twin, rd, 0, ALL, slots);
    twin_atomic(&twin, rd, 10);
    twin_atomic(&twin, rd, 1000);
    twin_atomic(&twin, rd, 2000);
    ck_assert_uint_eq(bench_warp(&b, 1)->split[0].ready_at, ldst_global_read(twin.sm, 3000, slots, ALL, 4));
    ck_assert_uint_eq(clpipe(&b, 0)->stats->unwritten_reads, 32);
    const GPtrArray *warn = b.sm->stats.warnings;
    ck_assert_uint_eq(warn->len, 1);
    ck_assert_msg(strstr(g_ptr_array_index(warn, 0), "line 9: read_pipe reads a packet of pipe 'p' that was reserved"
                                                     " for writing but never written") != NULL,
                  "%s", (const char *) g_ptr_array_index(warn, 0));
    bench_close(&twin);
    bench_close(&b);
}
END_TEST

/* The functional model: write_pipe copies ptr's element into its slot,
 * read_pipe copies it out, in reservation order. */
START_TEST(packets_carry_their_data)
{
    Bench b;
    open_cl(&b, PLAIN, NULL, true);
    int32_t *src = (int32_t *) b.sm->blocks[0].data_smem;
    for (int i = 0; i < 64; i++) {
        src[i] = 1000 + i;
    }
    bench_through(&b, 0, bench_op(&b, OP_CL_RW, 0), 10);
    bench_through(&b, 3, bench_op(&b, OP_CL_RW, 1), 10000);
    const int32_t *dst = (const int32_t *) b.sm->blocks[1].data_smem;
    for (int l = 0; l < 32; l++) {
        ck_assert_int_eq(dst[32 + l], 1000 + l);
        ck_assert_int_eq(dst[l], 0);
    }
    bench_close(&b);
}
END_TEST

/* --------------------------------------------------- work-group functions */

/* A work-group function gathers every work-item (a barrier), then work-item
 * 0's atomic changes the header and a second barrier hands the result
 * back: the work-group resumes two barrier costs and a round trip after
 * the last arrival. */
START_TEST(work_group_functions_gather_then_atomic)
{
    Bench b, twin;
    open_twins(&b, &twin, GROUP);
    const Op *reserve = bench_op(&b, OP_CL_RESERVE, 0);
    int64_t cost;
    ck_assert_int_eq(bench_step(&b, 0, reserve, 100, &cost), STEP_ISSUED);
    ck_assert_int_eq(cost, 1);
    Split *s = &bench_warp(&b, 0)->split[0];
    ck_assert_int_eq(s->status, SPLIT_BLOCKED);
    ck_assert_int_eq(s->wait, WAIT_CL_GROUP);
    ck_assert_int_eq(s->wait_state, WS_BLOCK_BARRIER);
    ck_assert_int_eq(clpipe(&b, 0)->wres, 0);
    ck_assert_uint_eq(sim_event_queue_peek_cycle(&b.sm->engine.queue), SIM_CYCLE_NEVER);
    ck_assert_int_eq(bench_step(&b, 1, reserve, 150, &cost), STEP_ISSUED);
    ck_assert_int_eq(clpipe(&b, 0)->wres, 64);
    SimCycle sync = block_barrier_cost(&b.sm->arch, 2);
    SimCycle at = twin_atomic(&twin, reserve, 150 + sync) + sync;
    bench_expect_wake(&b, 0, 0, at);
    bench_expect_wake(&b, 1, 0, at);
    ck_assert_int_eq(var_lane(&b, 0, reserve->var, 0), 1);
    ck_assert_int_eq(var_lane(&b, 1, reserve->var, 31), 1);
    ck_assert_int_eq(bench_step(&b, 0, reserve, at, &cost), STEP_CONTINUE);
    ck_assert_int_eq(s->pc, bench_pc(&b, reserve) + 1);
    ck_assert_int_eq(bench_step(&b, 1, reserve, at, &cost), STEP_CONTINUE);
    ck_assert_int_eq(b.sm->blocks[0].cl_pc, -1);
    /* The commit: the same shape. */
    const Op *commit = bench_op(&b, OP_CL_COMMIT, 0);
    bench_step(&b, 0, commit, 2000, &cost);
    bench_step(&b, 1, commit, 2010, &cost);
    ck_assert_int_eq(clpipe(&b, 0)->wcom, 64);
    at = twin_atomic(&twin, commit, 2010 + sync) + sync;
    bench_expect_wake(&b, 0, 0, at);
    bench_close(&twin);
    bench_close(&b);
}
END_TEST

/* SPEC clpipe-wg-1: every work-item reaches the same work-group function
 * with the same arguments, and none leaves while the others wait. */
START_TEST(work_group_function_rules)
{
    Bench b;
    int64_t cost;
    open_cl(&b, "smpipe 1\nblock 64\npipe int p[128]\nvar rid = work_group_reserve_write_pipe(p, threadIdx.x < 32 ?"
                " 64 : 32)\n",
            NULL, false);
    const Op *reserve = bench_op(&b, OP_CL_RESERVE, 0);
    bench_step(&b, 0, reserve, 10, &cost);
    bench_step_fails(&b, 1, reserve, 10,
                     "work_group_reserve_write_pipe: the work-items of work-group 0 pass different arguments:"
                     " num_packets = 64 in work-item 0 but 32 in work-item 32; a work-group function takes the same"
                     " arguments in every work-item (SPEC clpipe-wg-1)");
    bench_close(&b);

    open_cl(&b, GROUP, NULL, false);
    bench_step(&b, 0, bench_op(&b, OP_CL_RESERVE, 0), 10, &cost);
    bench_step_fails(&b, 1, bench_op(&b, OP_CL_COMMIT, 0), 10,
                     "work-group function work_group_commit_write_pipe reached while other work-items of work-group 0"
                     " wait in work_group_reserve_write_pipe at line 4: every work-item must reach the same call (SPEC"
                     " clpipe-wg-1)");
    bench_close(&b);

    open_cl(&b, GROUP, NULL, false);
    bench_step(&b, 0, bench_op(&b, OP_CL_RESERVE, 0), 10, &cost);
    cl_lanes_exit(b.sm, bench_warp(&b, 1), 0x3u);
    bench_assert_error(&b,
                       "these work-items exit while the rest of work-group 0 waits in work_group_reserve_write_pipe"
                       " here: a work-group function must be reached by every work-item (SPEC clpipe-wg-1)");
    bench_close(&b);

    open_cl(&b, GROUP, NULL, false);
    b.sm->blocks[0].live_threads -= 3;
    bench_step_fails(&b, 0, bench_op(&b, OP_CL_RESERVE, 0), 10,
                     "work_group_reserve_write_pipe is a work-group function, but 3 work-item(s) of work-group 0 exited"
                     " without reaching it (SPEC clpipe-wg-1)");
    bench_close(&b);
}
END_TEST

/* ------------------------------------------------------------ the end */

/* A reservation never committed is reported once the run ends. */
START_TEST(open_reservations_are_reported_at_the_end)
{
    Bench b;
    open_cl(&b, GROUP, NULL, false);
    const Op *reserve = bench_op(&b, OP_CL_RESERVE, 0);
    int64_t cost;
    bench_step(&b, 0, reserve, 10, &cost);
    bench_step(&b, 1, reserve, 10, &cost);
    cl_pipes_finish(b.sm);
    const GPtrArray *warn = b.sm->stats.warnings;
    ck_assert_uint_eq(warn->len, 1);
    ck_assert_str_eq(g_ptr_array_index(warn, 0), "line 4: work-group 0 reserved 64 packets of pipe 'p' for writing and"
                                                 " never committed them: the pipe stays blocked behind them");
    bench_close(&b);
}
END_TEST

int main(void)
{
    const TestCase cases[] = {
        { "header atomics", header_operations_cost_one_atomic },
        { "lane order", items_reserve_in_lane_order },
        { "reservation rules", reservation_rules },
        { "reservation id rules", reservation_id_rules },
        { "access direction", a_work_group_reads_or_writes_a_pipe },
        { "plain write", plain_write_reserves_moves_and_commits },
        { "plain read", plain_read_reserves_loads_and_commits },
        { "reserved write", reserved_write_and_its_index },
        { "unwritten packets", reading_an_unwritten_packet_warns },
        { "data", packets_carry_their_data },
        { "work-group functions", work_group_functions_gather_then_atomic },
        { "work-group rules", work_group_function_rules },
        { "end of run", open_reservations_are_reported_at_the_end },
    };
    return run_cases("cl_exec", cases, G_N_ELEMENTS(cases));
}
