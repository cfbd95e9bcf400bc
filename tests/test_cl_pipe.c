/* test_cl_pipe.c: OpenCL pipes.  The pipe object alone against the rules
 * of the seed document (in-order commits, program order, room and data,
 * active reservations, unwritten packets, occupancy with a fake clock),
 * then whole programs: a hand-checkable fill and drain, the data the
 * bundled traces move, the report and the `blocks` parameter.  The misuse
 * diagnostics are tests/errors/cl_*.trace. */
#include "test_util.h"

#include "models/cl_pipe.h"
#include "models/sm.h"

#include <json-glib/json-glib.h>

static const SrcLoc here = { 1, 1 };

/* SPEC clpipe-commit-1: committed writes enter the pipe in reservation
 * order, each as one contiguous set; the same for reads leaving it. */
START_TEST(commits_take_effect_in_reservation_order)
{
    ClPipe p;
    cl_pipe_init(&p, "p", 8, 4, 2, 32);
    ck_assert(cl_pipe_reserve(&p, true, 3, 0, -1, false, 1, here, 0, NULL));
    ck_assert(cl_pipe_reserve(&p, true, 2, 1, -1, false, 2, here, 0, NULL));
    cl_pipe_commit(&p, 2, 10);
    /* The younger reservation is committed but waits for the older one. */
    ck_assert_int_eq(p.wcom, 0);
    ck_assert_ptr_nonnull(cl_pipe_find(&p, 2));
    ck_assert(cl_pipe_find(&p, 2)->committed);
    ck_assert(!cl_pipe_reserve(&p, false, 1, 1, -1, false, 3, here, 10, NULL));
    cl_pipe_commit(&p, 1, 20);
    ck_assert_int_eq(p.wcom, 5);
    ck_assert_ptr_null(cl_pipe_find(&p, 1));
    ck_assert_ptr_null(cl_pipe_find(&p, 2));
    ck_assert_uint_eq(p.stats->packets[1], 5);
    /* Reads: the same rule frees slots only in order. */
    ck_assert(cl_pipe_reserve(&p, false, 2, 1, -1, false, 4, here, 20, NULL));
    ck_assert(cl_pipe_reserve(&p, false, 3, 1, -1, false, 5, here, 20, NULL));
    cl_pipe_commit(&p, 5, 30);
    ck_assert_int_eq(p.rcom, 0);
    ck_assert_int_eq(cl_pipe_occupancy(&p), 5);
    cl_pipe_commit(&p, 4, 40);
    ck_assert_int_eq(p.rcom, 5);
    ck_assert_int_eq(cl_pipe_occupancy(&p), 0);
    ck_assert_uint_eq(p.stats->packets[0], 5);
    cl_pipe_clear(&p);
}
END_TEST

/* SPEC clpipe-order-1: reservations lie in the pipe in the order they are
 * made, so one owner's follow its program order, and reads get the packets
 * in the order they were written. */
START_TEST(reservations_follow_program_order)
{
    ClPipe p;
    ClReservation a, b, r;
    cl_pipe_init(&p, "p", 6, 4, 1, 32);
    ck_assert(cl_pipe_reserve(&p, true, 4, 0, 5, false, 1, here, 0, &a));
    ck_assert(cl_pipe_reserve(&p, true, 2, 0, 5, false, 2, here, 0, &b));
    ck_assert_int_eq(a.start, 0);
    ck_assert_int_eq(b.start, 4);
    ck_assert_int_eq(cl_pipe_slot(&p, &b, 1), 5);
    cl_pipe_commit(&p, 1, 1);
    cl_pipe_commit(&p, 2, 1);
    ck_assert(cl_pipe_reserve(&p, false, 3, 0, -1, false, 3, here, 2, &r));
    ck_assert_int_eq(r.start, 0);
    cl_pipe_commit(&p, 3, 3);
    /* Slots wrap around the ring. */
    ck_assert(cl_pipe_reserve(&p, true, 3, 0, -1, false, 4, here, 4, &a));
    ck_assert_int_eq(a.start, 6);
    ck_assert_int_eq(cl_pipe_slot(&p, &a, 0), 0);
    ck_assert_int_eq(cl_pipe_slot(&p, &a, 2), 2);
    cl_pipe_clear(&p);
}
END_TEST

/* Writes need room (slots not yet freed by a read commit), reads need
 * committed packets; a failure changes nothing and a retry is counted. */
START_TEST(room_and_data_and_retries)
{
    ClPipe p;
    cl_pipe_init(&p, "p", 4, 4, 2, 32);
    ck_assert(!cl_pipe_reserve(&p, false, 1, 1, -1, false, 1, here, 0, NULL));
    ck_assert(cl_pipe_reserve(&p, true, 3, 0, -1, false, 1, here, 0, NULL));
    ck_assert(!cl_pipe_reserve(&p, true, 2, 0, -1, false, 2, here, 0, NULL));
    ck_assert(!cl_pipe_reserve(&p, true, 2, 0, -1, false, 2, here, 0, NULL));
    ck_assert(cl_pipe_reserve(&p, true, 1, 0, -1, false, 2, here, 0, NULL));
    ck_assert_int_eq(cl_pipe_occupancy(&p), 4);
    /* Reserved but uncommitted packets cannot be read. */
    ck_assert(!cl_pipe_reserve(&p, false, 1, 1, -1, false, 3, here, 0, NULL));
    cl_pipe_commit(&p, 1, 1);
    ck_assert(cl_pipe_reserve(&p, false, 3, 1, -1, false, 3, here, 1, NULL));
    /* Read but uncommitted slots are not free yet. */
    ck_assert(!cl_pipe_reserve(&p, true, 1, 0, -1, false, 4, here, 1, NULL));
    const SimClPipeStats *st = p.stats;
    ck_assert_uint_eq(st->reservations[1], 2);
    ck_assert_uint_eq(st->failures[1], 3);
    ck_assert_uint_eq(st->retries[1], 2);  /* the 3rd and the 4th write attempt */
    ck_assert_uint_eq(st->reservations[0], 1);
    ck_assert_uint_eq(st->failures[0], 2);
    ck_assert_uint_eq(st->retries[0], 2);  /* the 2nd and the 3rd read attempt */
    ck_assert_int_eq(st->peak, 4);
    /* Plain reservations (read_pipe/write_pipe(p, ptr)) are found by owner. */
    cl_pipe_commit(&p, 3, 2);
    ck_assert(cl_pipe_reserve(&p, true, 1, 0, 7, true, 9, here, 2, NULL));
    ck_assert_ptr_nonnull(cl_pipe_find_plain(&p, 0, 7, true));
    ck_assert_ptr_null(cl_pipe_find_plain(&p, 0, 6, true));
    cl_pipe_clear(&p);
}
END_TEST

/* SPEC clpipe-max-active-1: open reservations per work-item and pipe; a
 * work-group reservation counts for each of its work-items; committed and
 * plain ones do not count. */
START_TEST(active_reservations_per_work_item)
{
    ClPipe p;
    cl_pipe_init(&p, "p", 64, 4, 2, 32);
    ck_assert_int_eq(cl_pipe_active(&p, 0, 3), 0);
    ck_assert(cl_pipe_reserve(&p, true, 4, 0, -1, false, 1, here, 0, NULL));
    ck_assert(cl_pipe_reserve(&p, true, 1, 0, 3, false, 2, here, 0, NULL));
    ck_assert(cl_pipe_reserve(&p, true, 1, 0, 3, false, 3, here, 0, NULL));
    ck_assert(cl_pipe_reserve(&p, true, 1, 0, 4, false, 4, here, 0, NULL));
    ck_assert(cl_pipe_reserve(&p, true, 1, 0, 5, true, 5, here, 0, NULL));
    ck_assert(cl_pipe_reserve(&p, true, 1, 1, -1, false, 6, here, 0, NULL));
    ck_assert_int_eq(cl_pipe_active(&p, 0, 3), 3);
    ck_assert_int_eq(cl_pipe_active(&p, 0, 4), 2);
    ck_assert_int_eq(cl_pipe_active(&p, 0, 5), 1);
    ck_assert_int_eq(cl_pipe_active(&p, 0, -1), 3);
    ck_assert_int_eq(cl_pipe_active(&p, 1, 3), 1);
    cl_pipe_commit(&p, 2, 1);
    ck_assert_int_eq(cl_pipe_active(&p, 0, 3), 2);
    cl_pipe_clear(&p);
}
END_TEST

/* SPEC clpipe-unwritten-1: the bitmap of written slots, cleared by each
 * write reservation. */
START_TEST(written_packets_are_tracked)
{
    ClPipe p;
    ClReservation a;
    cl_pipe_init(&p, "p", 2, 4, 1, 32);
    ck_assert(cl_pipe_reserve(&p, true, 2, 0, -1, false, 1, here, 0, &a));
    cl_pipe_mark_written(&p, cl_pipe_slot(&p, &a, 1));
    ck_assert(!cl_pipe_is_written(&p, 0));
    ck_assert(cl_pipe_is_written(&p, 1));
    cl_pipe_commit(&p, 1, 0);
    ck_assert(cl_pipe_reserve(&p, false, 2, 0, -1, false, 2, here, 0, NULL));
    cl_pipe_commit(&p, 2, 0);
    ck_assert(cl_pipe_reserve(&p, true, 1, 0, -1, false, 3, here, 0, &a));
    ck_assert_int_eq(cl_pipe_slot(&p, &a, 0), 0);
    ck_assert(cl_pipe_reserve(&p, true, 1, 0, -1, false, 4, here, 0, &a));
    ck_assert(!cl_pipe_is_written(&p, 1));
    cl_pipe_clear(&p);
}
END_TEST

/* Occupancy over time with a fake clock: slots in use, full and empty time,
 * the mean and the histogram. */
START_TEST(occupancy_over_time)
{
    ClPipe p;
    cl_pipe_init(&p, "p", 4, 8, 1, 32);
    ck_assert(cl_pipe_reserve(&p, true, 2, 0, -1, false, 1, here, 10, NULL));  /* 0 for 10 cycles */
    ck_assert(cl_pipe_reserve(&p, true, 2, 0, -1, false, 2, here, 30, NULL));  /* 2 for 20 */
    cl_pipe_commit(&p, 1, 60);                                                 /* 4 for 30 */
    cl_pipe_commit(&p, 2, 60);
    ck_assert(cl_pipe_reserve(&p, false, 4, 0, -1, false, 3, here, 70, NULL)); /* 4 for 10 */
    cl_pipe_commit(&p, 3, 90);                                                 /* 4 for 20 */
    cl_pipe_finish(&p, 100);                                                   /* 0 for 10 */
    SimClPipeStats *st = cl_pipe_take_stats(&p);
    ck_assert_ptr_null(p.stats);
    ck_assert_uint_eq(st->total_cycles, 100);
    ck_assert_uint_eq(st->empty_cycles, 20);
    ck_assert_uint_eq(st->full_cycles, 60);
    ck_assert_uint_eq(st->occupancy_sum, 2 * 20 + 4 * 60);
    ck_assert_int_eq(st->nbins, 5);
    ck_assert_uint_eq(st->bins[0], 20);
    ck_assert_uint_eq(st->bins[2], 20);
    ck_assert_uint_eq(st->bins[4], 60);
    ck_assert_uint_eq(st->packets[1], 4);
    ck_assert_uint_eq(st->packets[0], 4);
    sim_cl_pipe_stats_free(st);
    cl_pipe_clear(&p);
    /* Large pipes get 33 bins: bin k holds occupancy o with o * 32 / C == k. */
    cl_pipe_init(&p, "big", 1000, 4, 1, 32);
    ck_assert_int_eq(p.stats->nbins, 33);
    ck_assert(cl_pipe_reserve(&p, true, 1000, 0, -1, false, 1, here, 0, NULL));
    cl_pipe_finish(&p, 5);
    ck_assert_uint_eq(p.stats->bins[32], 5);
    ck_assert_uint_eq(p.stats->full_cycles, 5);
    cl_pipe_clear(&p);
}
END_TEST

/* Runs trace text with the functional model; fails the test on an error. */
static void run_functional(TestRun *tr, const char *path, const char *text, const char *const *sets,
                           SimEngineKind engine)
{
    ck_assert_msg(run_text_full(tr, path, text, sets, engine, 100000000, 0, true), "%s: %s", path, tr->msg);
}

static const uint32_t *buffer_words(const TestRun *tr, const char *name, gsize *nwords, int32_t *index)
{
    for (guint b = 0; b < tr->run.prog->buffers->len; b++) {
        if (strcmp(g_array_index(tr->run.prog->buffers, ProgBuffer, b).name, name) == 0) {
            int64_t n = 0;
            const uint8_t *d = sm_global_data(tr->run.sm, (int32_t) b, &n);
            ck_assert_ptr_nonnull(d);
            *nwords = (gsize) n / 4;
            *index = (int32_t) b;
            return (const uint32_t *) d;
        }
    }
    ck_abort_msg("no buffer %s", name);
    return NULL;
}

/* A hand-checkable fill and drain.  The pipe holds two batches of 32.  The
 * producer tries four batches without retrying: two fit, two fail (the 4th
 * attempt is a retry after the 3rd failed).  Then it hands a token through
 * a second pipe; only then the consumer tries three reads: two batches,
 * then one failure on the empty pipe.  Each work-group function is one
 * header atomic: 4 + 2 on the write side, 3 + 2 on the read side. */
static const char *fill_and_drain =
    "smpipe 1\n"
    "param blocks = 2\n"
    "block 32\n"
    "global int src[64]\n"
    "global int dst[64]\n"
    "pipe int p[64]\n"
    "pipe int token[1]\n"
    "var lid = get_local_id(0)\n"
    "if (get_group_id(0) == 0)\n"
    "    for (var b = 0; b < 4; ++b)\n"
    "        var rid = work_group_reserve_write_pipe(p, 32)\n"
    "        if (is_valid_reserve_id(rid))\n"
    "            write_pipe(p, rid, lid, src + b * 32 + lid)\n"
    "            work_group_commit_write_pipe(p, rid)\n"
    "        end\n"
    "    end\n"
    "    var t = work_group_reserve_write_pipe(token, 1)\n"
    "    write_pipe(token, t, 0, src)\n"
    "    work_group_commit_write_pipe(token, t)\n"
    "else\n"
    "    var t = work_group_reserve_read_pipe(token, 1)\n"
    "    while (!is_valid_reserve_id(t))\n"
    "        t = work_group_reserve_read_pipe(token, 1)\n"
    "    end\n"
    "    work_group_commit_read_pipe(token, t)\n"
    "    for (var b = 0; b < 3; ++b)\n"
    "        var rid = work_group_reserve_read_pipe(p, 32)\n"
    "        if (is_valid_reserve_id(rid))\n"
    "            read_pipe(p, rid, lid, dst + b * 32 + lid)\n"
    "            work_group_commit_read_pipe(p, rid)\n"
    "        end\n"
    "    end\n"
    "end\n";

START_TEST(pipe_fills_and_drains_by_hand)
{
    for (int e = 0; e < 2; e++) {
        TestRun tr;
        run_functional(&tr, "fill_and_drain.trace", fill_and_drain, NULL, e ? SIM_ENGINE_STEPPED : SIM_ENGINE_EVENT);
        const SimStats *s = tr_stats(&tr);
        ck_assert_int_eq(s->blocks, 2);
        ck_assert_uint_eq(s->cl_pipes->len, 2);
        const SimClPipeStats *p = g_ptr_array_index(s->cl_pipes, 0);
        ck_assert_str_eq(p->name, "p");
        ck_assert_uint_eq(p->reservations[1], 2);
        ck_assert_uint_eq(p->failures[1], 2);
        ck_assert_uint_eq(p->retries[1], 1);
        ck_assert_uint_eq(p->packets[1], 64);
        ck_assert_uint_eq(p->reservations[0], 2);
        ck_assert_uint_eq(p->failures[0], 1);
        ck_assert_uint_eq(p->retries[0], 0);
        ck_assert_uint_eq(p->packets[0], 64);
        ck_assert_uint_eq(p->atomics, 11);
        ck_assert_uint_eq(p->unwritten_reads, 0);
        ck_assert_int_eq(p->peak, 64);
        ck_assert_uint_gt(p->full_cycles, 0);
        ck_assert_uint_gt(p->empty_cycles, 0);
        ck_assert_uint_eq(p->total_cycles, s->cycles);
        uint64_t binsum = 0;
        for (int64_t k = 0; k < p->nbins; k++) {
            binsum += p->bins[k];
        }
        ck_assert_uint_eq(binsum, s->cycles);
        /* The stall accounting still covers every warp-cycle. */
        uint64_t sum = 0;
        for (int k = 0; k < WS__COUNT; k++) {
            sum += s->state_total[k];
        }
        ck_assert_uint_eq(sum, (uint64_t) s->warps * s->cycles);
        /* The packets arrive in order. */
        gsize ns, nd;
        int32_t bs, bd;
        const uint32_t *src = buffer_words(&tr, "src", &ns, &bs);
        const uint32_t *dst = buffer_words(&tr, "dst", &nd, &bd);
        ck_assert_uint_eq(ns, nd);
        ck_assert_int_eq(memcmp(src, dst, ns * 4), 0);
        test_run_clear(&tr);
    }
}
END_TEST

/* The bundled producer/consumer trace moves every packet in order:
 * out[i] = f^compute_iters(in[i]), f(x) = x * A + B. */
START_TEST(producer_consumer_moves_packets_in_order)
{
    g_autofree char *text = read_source("traces/cl_producer_consumer.trace");
    const char *sets[] = { "batches=7", "capacity=160", "compute_iters=5", NULL };
    TestRun tr;
    run_functional(&tr, "traces/cl_producer_consumer.trace", text, sets, SIM_ENGINE_EVENT);
    gsize n, m;
    int32_t bin, bout;
    const uint32_t *in = buffer_words(&tr, "global_in", &n, &bin);
    const uint32_t *out = buffer_words(&tr, "global_out", &m, &bout);
    ck_assert_uint_eq(n, 7 * 128);
    for (gsize i = 0; i < n; i++) {
        uint32_t x = sm_initial_word(bin, (int64_t) i);
        ck_assert_uint_eq(in[i], x);
        for (int k = 0; k < 5; k++) {
            x = x * SM_COMPUTE_A + SM_COMPUTE_B;
        }
        ck_assert_uint_eq(out[i], x);
    }
    /* capacity 160 holds one batch of 128: the producer must have stalled. */
    const SimClPipeStats *p = g_ptr_array_index(tr_stats(&tr)->cl_pipes, 0);
    ck_assert_uint_gt(p->failures[1], 0);
    ck_assert_uint_eq(p->packets[1], 7 * 128);
    ck_assert_uint_eq(p->packets[0], 7 * 128);
    ck_assert_int_eq(p->peak, 128);
    test_run_clear(&tr);
}
END_TEST

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return x < y ? -1 : x > y;
}

/* Several producers: the consumer gets every producer's packets exactly
 * once, batch by batch (each batch is one producer's contiguous set). */
START_TEST(multi_producer_delivers_every_packet_once)
{
    g_autofree char *text = read_source("traces/cl_multi_producer.trace");
    const char *sets[] = { "producers=3", "batches=4", "compute_iters=0", "threads=64", NULL };
    TestRun tr;
    run_functional(&tr, "traces/cl_multi_producer.trace", text, sets, SIM_ENGINE_EVENT);
    ck_assert_int_eq(tr_stats(&tr)->blocks, 4);
    gsize n, m;
    int32_t bin, bout;
    const uint32_t *in = buffer_words(&tr, "global_in", &n, &bin);
    const uint32_t *out = buffer_words(&tr, "global_out", &m, &bout);
    ck_assert_uint_eq(n, 3 * 4 * 64);
    ck_assert_uint_eq(m, n);
    /* Each output batch is one input batch, whole and in order. */
    for (gsize b = 0; b < n / 64; b++) {
        bool found = false;
        for (gsize a = 0; a < n / 64 && !found; a++) {
            found = memcmp(out + b * 64, in + a * 64, 64 * 4) == 0;
        }
        ck_assert_msg(found, "output batch %zu is no input batch", b);
    }
    uint32_t *x = g_memdup2(in, n * 4), *y = g_memdup2(out, n * 4);
    qsort(x, n, 4, cmp_u32);
    qsort(y, n, 4, cmp_u32);
    ck_assert_int_eq(memcmp(x, y, n * 4), 0);
    g_free(x);
    g_free(y);
    test_run_clear(&tr);
}
END_TEST

/* Per-work-item reservations and the plain forms, with every work-item
 * retrying on its own (lanes of a warp diverge): the reservation, write and
 * commit stay inside the retry loop, as SIMT needs (docs/opencl-pipes.md). */
static const char *per_item =
    "smpipe 1\n"
    "param blocks = 2\n"
    "param n = 6\n"
    "block 64\n"
    "global int src[n * 64]\n"
    "global int dst[n * 64]\n"
    "pipe int p[16]\n"
    "var lid = get_local_id(0)\n"
    "if (get_group_id(0) == 0)\n"
    "    for (var i = 0; i < n; ++i)\n"
    "        var done = false\n"
    "        while (!done)\n"
    "            var rid = reserve_write_pipe(p, 1)\n"
    "            if (is_valid_reserve_id(rid))\n"
    "                write_pipe(p, rid, 0, src + i * 64 + lid)\n"
    "                commit_write_pipe(p, rid)\n"
    "                done = true\n"
    "            end\n"
    "        end\n"
    "    end\n"
    "else\n"
    "    for (var i = 0; i < n; ++i)\n"
    "        var st = read_pipe(p, dst + i * 64 + lid)\n"
    "        while (st != 0)\n"
    "            st = read_pipe(p, dst + i * 64 + lid)\n"
    "        end\n"
    "    end\n"
    "end\n";

START_TEST(per_work_item_forms_move_every_packet)
{
    uint64_t cycles[2];
    for (int e = 0; e < 2; e++) {
        TestRun tr;
        run_functional(&tr, "per_item.trace", per_item, NULL, e ? SIM_ENGINE_STEPPED : SIM_ENGINE_EVENT);
        const SimClPipeStats *p = g_ptr_array_index(tr_stats(&tr)->cl_pipes, 0);
        ck_assert_uint_eq(p->reservations[1], 6 * 64);
        ck_assert_uint_eq(p->reservations[0], 6 * 64);
        ck_assert_uint_eq(p->packets[0], 6 * 64);
        ck_assert_uint_gt(p->failures[1], 0);
        ck_assert_int_eq(p->peak, 16);
        gsize n, m;
        int32_t bs, bd;
        const uint32_t *src = buffer_words(&tr, "src", &n, &bs);
        const uint32_t *dst = buffer_words(&tr, "dst", &m, &bd);
        uint32_t *x = g_memdup2(src, n * 4), *y = g_memdup2(dst, m * 4);
        qsort(x, n, 4, cmp_u32);
        qsort(y, m, 4, cmp_u32);
        ck_assert_int_eq(memcmp(x, y, n * 4), 0);
        g_free(x);
        g_free(y);
        cycles[e] = tr_stats(&tr)->cycles;
        test_run_clear(&tr);
    }
    ck_assert_uint_eq(cycles[0], cycles[1]);
}
END_TEST

/* The JSON report carries the pipe; the CSV row matches its header. */
START_TEST(report_has_the_pipe)
{
    g_autofree char *text = read_source("traces/cl_producer_consumer.trace");
    TestRun tr;
    ck_assert_msg(run_text(&tr, text, NULL), "%s", tr.msg);
    ReportInfo info;
    GArray *values = g_array_new(FALSE, FALSE, sizeof(int64_t));
    test_report_info(&tr, "t", "event", values, &info);
    GString *j = g_string_new(NULL);
    report_json(tr_stats(&tr), &info, REPORT_BY_ROLE, j);
    JsonParser *jp = json_parser_new();
    GError *err = NULL;
    ck_assert_msg(json_parser_load_from_data(jp, j->str, -1, &err), "%s", err ? err->message : "");
    JsonObject *o = json_node_get_object(json_parser_get_root(jp));
    JsonArray *pipes = json_object_get_array_member(o, "cl_pipes");
    ck_assert_uint_eq(json_array_get_length(pipes), 1);
    JsonObject *p = json_array_get_object_element(pipes, 0);
    ck_assert_str_eq(json_object_get_string_member(p, "pipe"), "p");
    ck_assert_int_eq(json_object_get_int_member(p, "capacity"), 256);
    JsonObject *wr = json_object_get_object_member(p, "write");
    ck_assert_int_eq(json_object_get_int_member(wr, "packets"), 16 * 128);
    ck_assert_int_eq(json_object_get_int_member(wr, "bytes"), 16 * 128 * 4);
    ck_assert_int_gt(json_object_get_int_member(wr, "failures"), 0);
    double full = json_object_get_double_member(p, "full_fraction");
    ck_assert(full > 0.0 && full < 1.0);
    /* Writers produce and readers consume in --by role. */
    JsonObject *roles = json_object_get_object_member(o, "by_role");
    ck_assert_int_gt(json_object_get_int_member(json_object_get_object_member(roles, "producer"), "block_barrier"), 0);
    ck_assert_int_gt(json_object_get_int_member(json_object_get_object_member(roles, "consumer"), "issuing"), 0);
    g_object_unref(jp);
    GString *h = g_string_new(NULL), *r = g_string_new(NULL);
    report_csv_header(&info, h);
    report_csv_row(tr_stats(&tr), &info, r);
    ck_assert_ptr_nonnull(strstr(h->str, "clpipe_packets_written"));
    gchar **hc = g_strsplit(h->str, ",", -1), **rc = g_strsplit(r->str, ",", -1);
    ck_assert_uint_eq(g_strv_length(hc), g_strv_length(rc));
    g_strfreev(hc);
    g_strfreev(rc);
    GString *t = g_string_new(NULL);
    report_text(tr_stats(&tr), &info, REPORT_BY_NONE, t);
    ck_assert_ptr_nonnull(strstr(t->str, "OpenCL pipe 'p': 256 packets of 4 bytes"));
    ck_assert_ptr_nonnull(strstr(t->str, "work-group pipe functions"));
    g_string_free(t, TRUE);
    g_string_free(h, TRUE);
    g_string_free(r, TRUE);
    g_string_free(j, TRUE);
    g_array_free(values, TRUE);
    test_run_clear(&tr);
}
END_TEST

/* `param blocks` sets the resident blocks (and gridDim.x); it follows the
 * parameters it is computed from. */
START_TEST(blocks_parameter_sets_resident_blocks)
{
    g_autofree char *text = read_source("traces/cl_multi_producer.trace");
    const char *sets[] = { "producers=5", "batches=2", NULL };
    TestRun tr;
    ck_assert_msg(run_text(&tr, text, sets), "%s", tr.msg);
    ck_assert_int_eq(tr.run.arch.blocks, 6);
    ck_assert_int_eq(tr.run.prog->grid_blocks, 6);
    ck_assert_int_eq(tr_stats(&tr)->warps, 6 * 4);
    test_run_clear(&tr);
    const char *agree[] = { "producers=1", "batches=2", "sm.blocks=2", NULL };
    ck_assert_msg(run_text(&tr, text, agree), "%s", tr.msg);
    test_run_clear(&tr);
    const char *differ[] = { "producers=1", "sm.blocks=3", NULL };
    ck_assert(!run_text(&tr, text, differ));
    ck_assert_int_eq(tr.status, 2);
    ck_assert_ptr_nonnull(strstr(tr.msg, "disagrees with the trace's parameter blocks=2"));
    test_run_clear(&tr);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cl_pipe");
    TCase *unit = tcase_create("pipe object");
    tcase_add_test(unit, commits_take_effect_in_reservation_order);
    tcase_add_test(unit, reservations_follow_program_order);
    tcase_add_test(unit, room_and_data_and_retries);
    tcase_add_test(unit, active_reservations_per_work_item);
    tcase_add_test(unit, written_packets_are_tracked);
    tcase_add_test(unit, occupancy_over_time);
    suite_add_tcase(s, unit);
    TCase *prog = tcase_create("programs");
    tcase_set_timeout(prog, 300);
    tcase_add_test(prog, pipe_fills_and_drains_by_hand);
    tcase_add_test(prog, producer_consumer_moves_packets_in_order);
    tcase_add_test(prog, multi_producer_delivers_every_packet_once);
    tcase_add_test(prog, per_work_item_forms_move_every_packet);
    tcase_add_test(prog, report_has_the_pipe);
    tcase_add_test(prog, blocks_parameter_sets_resident_blocks);
    suite_add_tcase(s, prog);
    return run_suite(s);
}
