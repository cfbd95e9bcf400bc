/* test_mem_path.c: L1/L2/DRAM latency, bandwidth queueing and residency,
 * against a fake clock and a hand-made architecture. */
#include "test_util.h"

#include "models/mem_path.h"

static ArchParams arch(void)
{
    return test_mem_arch(64, 1024, 32, MEM_SOURCE_DRAM);
}

START_TEST(first_touch_misses_then_hits)
{
    ArchParams a = arch();
    MemPath m;
    mem_path_init(&m, &a, 0);
    SimCycle t = mem_path_read(&m, 0, 4096, 128, false);
    ck_assert_uint_eq(t, 500);                /* served at once, then DRAM latency */
    SimCycle h = mem_path_read(&m, 1000, 4096, 128, false);
    ck_assert_uint_eq(h, 1000 + 200);         /* now resident in L2 */
    ck_assert_uint_eq(m.l2_misses, 1);
    ck_assert_uint_eq(m.l2_hits, 1);
    mem_path_clear(&m);
}
END_TEST

START_TEST(requests_merge_on_a_line_in_flight)
{
    ArchParams a = arch();
    MemPath m;
    mem_path_init(&m, &a, 0);
    SimCycle first = mem_path_read(&m, 0, 0, 32, false);
    SimCycle second = mem_path_read(&m, 10, 64, 32, false); /* same 128-byte line */
    ck_assert_uint_eq(second, first);
    ck_assert_uint_eq(m.merged, 1);
    mem_path_clear(&m);
}
END_TEST

START_TEST(bandwidth_queues_requests)
{
    ArchParams a = arch();
    a.source = MEM_SOURCE_L2;
    MemPath m;
    mem_path_init(&m, &a, 0);
    /* 10 lines at once through a 64 B/cycle link: 2 cycles apart. */
    for (int i = 0; i < 10; i++) {
        SimCycle t = mem_path_read(&m, 0, (uint64_t) i * 128, 128, false);
        ck_assert_uint_eq(t, (SimCycle) (2 * i + 200));
    }
    /* More SMs share DRAM: 4 active SMs get a quarter each. */
    ArchParams b = arch();
    b.active_sms = 4;
    MemPath d;
    mem_path_init(&d, &b, 0);
    SimCycle t0 = mem_path_read(&d, 0, 0, 128, false);
    SimCycle t1 = mem_path_read(&d, 0, 128, 128, false);
    ck_assert_uint_eq(t1 - t0, 128 / 8); /* 32/4 = 8 B/cycle */
    mem_path_clear(&m);
    mem_path_clear(&d);
}
END_TEST

START_TEST(the_l1_port_queues_stores_and_copies)
{
    ArchParams a = arch();
    a.l1_store_bytes_per_clk = 32;
    a.l1_copy_bytes_per_clk = 128;
    a.l1_port_queue_cycles = 64;
    MemPath m;
    mem_path_init(&m, &a, 0);
    /* 512-byte stores take 16 cycles each; the first five fit the queue
     * (the port is 64 cycles behind after four), then each waits 16. */
    for (int i = 0; i < 5; i++) {
        ck_assert_uint_eq(mem_path_port_accept(&m, 0, 512, true), 0);
    }
    ck_assert_uint_eq(mem_path_port_accept(&m, 0, 512, true), 16);
    ck_assert_uint_eq(mem_path_port_accept(&m, 0, 512, true), 32);
    /* A copy's four lines take 4 cycles behind the stores. */
    ck_assert_uint_eq(mem_path_port_accept(&m, 0, 512, false), 48);
    ck_assert_uint_eq(mem_path_port_accept(&m, 0, 512, true), 52);
    /* Once the queue drains, a request goes at once. */
    ck_assert_uint_eq(mem_path_port_accept(&m, 1000, 512, true), 1000);
    mem_path_clear(&m);
    /* Without a port, or copies with no rate, nothing waits. */
    ArchParams b = arch();
    mem_path_init(&m, &b, 0);
    for (int i = 0; i < 100; i++) {
        ck_assert_uint_eq(mem_path_port_accept(&m, 7, 512, true), 7);
    }
    mem_path_clear(&m);
    a.l1_copy_bytes_per_clk = 0;
    mem_path_init(&m, &a, 0);
    for (int i = 0; i < 100; i++) {
        ck_assert_uint_eq(mem_path_port_accept(&m, 7, 512, false), 7);
    }
    mem_path_clear(&m);
}
END_TEST

START_TEST(l1_for_cached_reads_only)
{
    ArchParams a = arch();
    a.source = MEM_SOURCE_L2;
    MemPath m;
    mem_path_init(&m, &a, 0);
    mem_path_read(&m, 0, 512, 32, true);
    ck_assert_uint_eq(mem_path_read(&m, 300, 512, 32, true), 330);
    ck_assert_uint_eq(mem_path_read(&m, 400, 512, 32, false), 600); /* .cg bypasses L1 */
    ck_assert_uint_eq(m.l1_hits, 1);
    mem_path_clear(&m);
}
END_TEST

/* With one set (assoc = lines) the array is the exact FIFO of old: the
 * oldest line goes first. */
START_TEST(line_set_evicts_oldest)
{
    LineSet s;
    line_set_init(&s, 100, 100);
    ck_assert_uint_eq(s.nsets, 1);
    for (uint64_t i = 0; i < 1000; i++) {
        line_set_put(&s, i * 7, i, 0);
    }
    SimCycle r;
    ck_assert(!line_set_find(&s, 0, &r));
    ck_assert(!line_set_find(&s, 899 * 7, &r));
    ck_assert(line_set_find(&s, 999 * 7, &r));
    ck_assert_uint_eq(r, 999);
    ck_assert_uint_eq(s.len, 100);
    for (uint64_t i = 900; i < 1000; i++) {
        ck_assert(line_set_find(&s, i * 7, &r));
    }
    ck_assert_ptr_null(line_set_check(&s));
    line_set_clear(&s);
}
END_TEST

/* An update keeps the line's age (as the exact FIFO did). */
START_TEST(line_set_updates_keep_the_age)
{
    LineSet s;
    line_set_init(&s, 4, 4);
    for (uint64_t i = 0; i < 4; i++) {
        line_set_put(&s, i, i, 0);
    }
    line_set_put(&s, 0, 100, 0);         /* an update, not a new insertion */
    SimCycle r;
    ck_assert(line_set_find(&s, 0, &r));
    ck_assert_uint_eq(r, 100);
    line_set_put(&s, 9, 9, 0);           /* evicts line 0, the oldest */
    ck_assert(!line_set_find(&s, 0, &r));
    ck_assert(line_set_find(&s, 1, &r));
    ck_assert_uint_eq(r, 1);
    ck_assert(line_set_find(&s, 9, &r));
    ck_assert_uint_eq(s.len, 4);
    ck_assert_ptr_null(line_set_check(&s));
    line_set_clear(&s);
}
END_TEST

/* The first n lines from `from` on that map to `set`, into out. */
static void lines_in_set(const LineSet *s, size_t set, uint64_t from, uint64_t *out, size_t n)
{
    for (uint64_t line = from; n > 0; line++) {
        if (line_set_index(s, line) == set) {
            *out++ = line;
            n--;
        }
    }
}

/* A full set evicts its own oldest line and no other set's; a put that
 * updates a present line evicts nothing. */
START_TEST(line_set_conflicts_evict_within_the_set)
{
    LineSet s;
    line_set_init(&s, 4 * 64, 4);
    ck_assert_uint_eq(s.nsets, 64);
    uint64_t mine[6];
    uint64_t other[4];
    lines_in_set(&s, 5, 0, mine, 6);
    lines_in_set(&s, 6, 0, other, 4);
    for (int i = 0; i < 4; i++) {
        line_set_put(&s, other[i], 1000 + (SimCycle) i, 0);
        line_set_put(&s, mine[i], (SimCycle) i, 0);
    }
    line_set_put(&s, mine[2], 50, 0);    /* present: no eviction */
    ck_assert_uint_eq(s.len, 8);
    line_set_put(&s, mine[4], 4, 0);     /* set 5 is full: mine[0] goes */
    line_set_put(&s, mine[5], 5, 0);     /* then mine[1] */
    SimCycle r;
    ck_assert(!line_set_find(&s, mine[0], &r));
    ck_assert(!line_set_find(&s, mine[1], &r));
    ck_assert(line_set_find(&s, mine[2], &r));
    ck_assert_uint_eq(r, 50);
    ck_assert(line_set_find(&s, mine[5], &r));
    ck_assert_uint_eq(r, 5);
    for (int i = 0; i < 4; i++) {
        ck_assert(line_set_find(&s, other[i], &r));
        ck_assert_uint_eq(r, 1000 + (SimCycle) i);
    }
    ck_assert_uint_eq(s.len, 8);
    ck_assert_ptr_null(line_set_check(&s));
    line_set_clear(&s);
}
END_TEST

/* One way a set is direct mapped: two lines of one set evict each other,
 * however empty the rest of the array is. */
START_TEST(line_set_one_way_is_direct_mapped)
{
    LineSet s;
    line_set_init(&s, 1000, 1);
    ck_assert_uint_eq(s.nsets, 1000);
    uint64_t pair[2];
    lines_in_set(&s, line_set_index(&s, 12345), 12345, pair, 2);
    ck_assert_uint_eq(pair[0], 12345);
    line_set_put(&s, pair[0], 1, 0);
    line_set_put(&s, pair[1], 2, 0);
    SimCycle r;
    ck_assert(!line_set_find(&s, pair[0], &r));
    ck_assert(line_set_find(&s, pair[1], &r));
    ck_assert_uint_eq(s.len, 1);
    line_set_put(&s, pair[0], 3, 0);
    ck_assert(!line_set_find(&s, pair[1], &r));
    ck_assert(line_set_find(&s, pair[0], &r));
    ck_assert_uint_eq(r, 3);
    ck_assert_ptr_null(line_set_check(&s));
    line_set_clear(&s);
}
END_TEST

/* Storage comes a chunk at a time on first touch, 2 ways a set at first:
 * nothing before a put, a stream takes at most two chunks for each aligned
 * run of LINE_SET_CHUNK lines and seldom more than 2 ways a set, lookups
 * allocate nothing, and a full array has exactly assoc ways a set.  The
 * H100's share at one active SM (409,600 lines, 20 ways) has 1,280 chunks
 * of 320 ways when full. */
START_TEST(line_set_allocates_lazily)
{
    LineSet s;
    line_set_init(&s, 409600, 20);
    ck_assert_uint_eq(s.nsets, 20480);
    ck_assert_uint_eq(s.nchunks, 20480 / LINE_SET_CHUNK);
    ck_assert_uint_eq(s.chunks_used, 0);
    SimCycle r;
    ck_assert(!line_set_find(&s, 77, &r));
    ck_assert_uint_eq(s.chunks_used, 0);
    line_set_put(&s, 77, 1, 0);
    ck_assert_uint_eq(s.chunks_used, 1);
    ck_assert_uint_eq(s.ways_allocated, 2 * LINE_SET_CHUNK);
    for (uint64_t line = 1 << 20; line < (1 << 20) + 64 * LINE_SET_CHUNK; line++) {
        line_set_put(&s, line, 2, 0);
    }
    ck_assert_uint_le(s.chunks_used, 1 + 2 * 64);
    ck_assert_uint_ge(s.chunks_used, 64);
    ck_assert_uint_le(s.ways_allocated, 4 * LINE_SET_CHUNK * s.chunks_used);
    size_t used = s.chunks_used;
    size_t ways = s.ways_allocated;
    for (uint64_t line = 0; line < 100000; line++) {
        line_set_find(&s, line * 3, &r);
    }
    ck_assert_uint_eq(s.chunks_used, used);
    ck_assert_uint_eq(s.ways_allocated, ways);
    ck_assert_uint_eq(s.len, 1 + 64 * LINE_SET_CHUNK);
    ck_assert_ptr_null(line_set_check(&s));
    line_set_clear(&s);

    LineSet full;
    line_set_init(&full, 20 * 32, 20);
    for (uint64_t line = 0; line < 20000; line++) {
        line_set_put(&full, line * 5, line, 0);
    }
    ck_assert_uint_eq(full.len, 20 * 32);
    ck_assert_uint_eq(full.chunks_used, 2);
    ck_assert_uint_eq(full.ways_allocated, 20 * 32);
    ck_assert_ptr_null(line_set_check(&full));
    line_set_clear(&full);
}
END_TEST

/* Strides of powers of two (a column of a matrix, one line a page) spread
 * over the sets: 16 ways x 256 sets hold 2,048 lines of any such stride
 * with few conflicts (at most 1% lost; an index of line % sets would keep
 * 16 lines of a stride of 256). */
START_TEST(line_set_power_of_two_strides_spread)
{
    for (uint64_t stride = 1; stride <= (UINT64_C(1) << 20); stride *= 4) {
        LineSet s;
        line_set_init(&s, 16 * 256, 16);
        for (uint64_t i = 0; i < 2048; i++) {
            line_set_put(&s, i * stride, i, 0);
        }
        ck_assert_msg(s.len >= 2048 * 99 / 100, "stride %" G_GUINT64_FORMAT ": %zu of 2048 lines stay", stride,
                      s.len);
        ck_assert_ptr_null(line_set_check(&s));
        line_set_clear(&s);
    }
}
END_TEST

/* Random puts and finds over clustered and scattered lines give what a
 * plain map and one FIFO queue a set give (the set from the unit's own
 * index), for several shapes, with evictions and direct mapping. */
START_TEST(line_set_matches_a_reference)
{
    static const size_t shapes[][2] = { { 1, 1 }, { 5, 5 }, { 16, 1 }, { 64, 4 }, { 700, 20 }, { 701, 7 } };
    GRand *rnd = g_rand_new_with_seed(11);
    for (size_t sh = 0; sh < G_N_ELEMENTS(shapes); sh++) {
        LineSet s;
        line_set_init(&s, shapes[sh][0], shapes[sh][1]);
        GHashTable *ref = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
        GQueue *order = g_new0(GQueue, s.nsets);
        for (int step = 0; step < 6000; step++) {
            uint64_t line;
            switch (g_rand_int_range(rnd, 0, 3)) {
            case 0:
                line = (uint64_t) g_rand_int_range(rnd, 0, 64);        /* a few runs */
                break;
            case 1:
                line = (uint64_t) step / 2;                             /* a stream */
                break;
            default:
                line = (uint64_t) g_rand_int(rnd) * 4099;               /* scattered */
                break;
            }
            SimCycle ready = (SimCycle) step;
            SimCycle got;
            SimCycle *want = g_hash_table_lookup(ref, &line);
            ck_assert_int_eq(line_set_find(&s, line, &got), want != NULL);
            if (want != NULL) {
                ck_assert_uint_eq(got, *want);
            }
            if (g_rand_boolean(rnd)) {
                line_set_put(&s, line, ready, 0);
                if (want != NULL) {
                    *want = ready;
                } else {
                    GQueue *q = &order[line_set_index(&s, line)];
                    if (g_queue_get_length(q) == s.assoc) {
                        uint64_t *old = g_queue_pop_head(q);
                        g_hash_table_remove(ref, old);
                        g_free(old);
                    }
                    g_hash_table_insert(ref, g_memdup2(&line, sizeof line), g_memdup2(&ready, sizeof ready));
                    g_queue_push_tail(q, g_memdup2(&line, sizeof line));
                }
            }
            ck_assert_uint_eq(s.len, g_hash_table_size(ref));
            if (step % 97 == 0) {
                ck_assert_ptr_null(line_set_check(&s));
            }
        }
        ck_assert_ptr_null(line_set_check(&s));
        for (size_t k = 0; k < s.nsets; k++) {
            g_queue_clear_full(&order[k], g_free);
        }
        g_free(order);
        g_hash_table_destroy(ref);
        line_set_clear(&s);
    }
    g_rand_free(rnd);
}
END_TEST

/* Warm data is in L2 only when the footprint fits the SM's share of it:
 * l2.bytes / mem.active_sms (1 MiB / 4 here). */
START_TEST(warm_only_when_the_footprint_fits_the_share)
{
    ArchParams a = arch();
    a.source = MEM_SOURCE_L2;
    a.active_sms = 4;
    MemPath fits;
    mem_path_init(&fits, &a, 256 * 1024);
    ck_assert_uint_eq(mem_path_read(&fits, 0, 4096, 128, false), 200);
    MemPath over;
    mem_path_init(&over, &a, 256 * 1024 + 1);
    ck_assert_uint_eq(mem_path_read(&over, 0, 4096, 128, false), 500);
    ck_assert_uint_eq(over.l2_misses, 1);
    /* The share also bounds what stays: 2048 lines of 128 bytes, 128
     * sets of 16 ways. */
    ck_assert_uint_eq(over.l2_lines.nsets, 128);
    ck_assert_uint_eq(over.l2_lines.assoc, 16);
    mem_path_clear(&fits);
    mem_path_clear(&over);
}
END_TEST

/* Writes reach DRAM (and delay the reads behind them there) only when the
 * footprint does not fit.  Warm, the launch is one of a run of identical
 * ones: it evicts as many dirty lines of the one before as it leaves, so
 * its writes take DRAM time as they are written. */
START_TEST(writes_are_written_back_when_the_footprint_does_not_fit)
{
    ArchParams a = arch();
    a.source = MEM_SOURCE_L2;
    for (int over = 0; over <= 1; over++) {
        MemPath m;
        mem_path_init(&m, &a, over ? (1 << 20) + 1 : 1 << 20);
        /* 1280 bytes written at cycle 0 hold the link (64 B/cycle) for 20
         * cycles and, written back, DRAM (32 B/cycle) for 40; a footprint
         * that fits is warm, so the read hits L2. */
        for (int i = 0; i < 10; i++) {
            mem_path_write(&m, 0, (uint64_t) (1 << 16) + (uint64_t) i * 128, 128);
        }
        SimCycle r = mem_path_read(&m, 0, 0, 128, false);
        ck_assert_uint_eq(m.bytes_written_back, over ? 1280 : 0);
        ck_assert_uint_eq(r, (SimCycle) (over ? 40 + 500 : 20 + 200));
        mem_path_clear(&m);
    }
}
END_TEST

/* Cold (the L2 flushed before the launch), a dirty line is written back
 * when a newer line evicts it from its set, and only its written sectors:
 * what the launch writes last stays in L2.  The share here is 2048 lines in
 * 128 sets of 16 ways: 16 lines of one set fill it, the 17th evicts. */
START_TEST(cold_dirty_lines_are_written_back_when_evicted)
{
    ArchParams a = arch();
    a.active_sms = 4;
    MemPath m;
    mem_path_init(&m, &a, (256 << 10) + 1);
    ck_assert(m.write_on_evict);
    ck_assert_uint_eq(m.l2_lines.nsets, 128);
    /* Lines that map to one set. */
    uint64_t same[34];
    size_t n = 0;
    size_t set = line_set_index(&m.l2_lines, 0);
    for (uint64_t line = 0; n < G_N_ELEMENTS(same); line++) {
        if (line_set_index(&m.l2_lines, line) == set) {
            same[n++] = line;
        }
    }
    /* The first line gets bytes 40..103 written, in three of its four
     * 32-byte sectors (1, 2 and 3), the next fifteen whole lines. */
    mem_path_write(&m, 0, same[0] * 128 + 40, 64);
    for (int i = 1; i < 16; i++) {
        mem_path_write(&m, 0, same[i] * 128, 128);
    }
    ck_assert_uint_eq(m.bytes_written, 64 + 15 * 128);
    ck_assert_uint_eq(m.bytes_written_back, 0);         /* all still in L2 */
    ck_assert(mem_path_busy_cycles(&m.dram) == 0.0);
    /* A read miss into the full set evicts the oldest: three dirty sectors. */
    mem_path_read(&m, 100, same[16] * 128, 128, false);
    ck_assert_uint_eq(m.bytes_written_back, 96);
    /* A write evicts the next, whole. */
    mem_path_write(&m, 200, same[17] * 128, 32);
    ck_assert_uint_eq(m.bytes_written_back, 96 + 128);
    /* The set now holds same[2..15] (dirty), same[16] (read, clean) and
     * same[17] (one dirty sector), oldest first: fourteen read misses
     * write the dirty ones back, the next costs nothing, the last 32 bytes. */
    for (int i = 18; i < 32; i++) {
        mem_path_read(&m, 300, same[i] * 128, 128, false);
    }
    ck_assert_uint_eq(m.bytes_written_back, 96 + 128 + 14 * 128);
    mem_path_read(&m, 400, same[32] * 128, 128, false);
    ck_assert_uint_eq(m.bytes_written_back, 96 + 128 + 14 * 128);
    mem_path_read(&m, 400, same[33] * 128, 128, false);
    ck_assert_uint_eq(m.bytes_written_back, 96 + 128 + 14 * 128 + 32);
    mem_path_clear(&m);
}
END_TEST

/* Beyond l2.dirty_fraction of the share's lines dirty, the oldest dirty
 * line is written back before anything evicts it (and stays, clean). */
START_TEST(dirty_lines_beyond_the_fraction_are_written_back)
{
    ArchParams a = arch();
    a.active_sms = 4;            /* a share of 2048 lines */
    a.l2_dirty_fraction = 0.25;  /* at most 512 dirty */
    MemPath m;
    mem_path_init(&m, &a, 1 << 10);
    ck_assert_uint_eq(m.max_dirty, 512);
    for (uint64_t i = 0; i < 512; i++) {
        mem_path_write(&m, 0, i * 128, 128);
    }
    ck_assert_uint_eq(m.bytes_written_back, 0);
    /* Writing a line again does not make it dirty twice. */
    mem_path_write(&m, 0, 5 * 128, 128);
    ck_assert_uint_eq(m.bytes_written_back, 0);
    /* Two more lines: lines 0 and 1, the oldest dirty, are written back. */
    mem_path_write(&m, 0, 600 * 128, 128);
    mem_path_write(&m, 0, 601 * 128, 64);
    ck_assert_uint_eq(m.bytes_written_back, 256);
    ck_assert_uint_eq(m.dirty_lines, 512);
    SimCycle r;
    ck_assert(line_set_find(&m.l2_lines, 0, &r));        /* still in L2 */
    ck_assert_uint_eq(line_set_dirty(&m.l2_lines, 0), 0);
    ck_assert_uint_eq(line_set_dirty(&m.l2_lines, 2), 0xf);
    ck_assert_uint_eq(line_set_dirty(&m.l2_lines, 601), 0x3);
    mem_path_clear(&m);
}
END_TEST

/* Cold but not flushed (mem.flushed = false: launches back to back, each
 * leaving dirty lines for the next to evict), stores cost DRAM time as
 * they are written, whether or not the footprint fits the share. */
START_TEST(unflushed_writes_are_written_back_as_written)
{
    ArchParams a = arch();
    a.flushed = false;
    for (int over = 0; over <= 1; over++) {
        MemPath m;
        mem_path_init(&m, &a, over ? (1 << 20) + 1 : 1 << 20);
        ck_assert(m.write_back && !m.write_on_evict);
        for (int i = 0; i < 10; i++) {
            mem_path_write(&m, 0, (uint64_t) (1 << 16) + (uint64_t) i * 128, 128);
        }
        ck_assert_uint_eq(m.bytes_written_back, 1280);
        /* The read waits behind them: DRAM (32 B/cycle) is busy 40 cycles. */
        ck_assert_uint_eq(mem_path_read(&m, 0, 0, 128, false), 40 + 500);
        mem_path_clear(&m);
    }
}
END_TEST

/* line_set_put keeps a line's dirty sectors across updates and returns
 * them when the line is evicted. */
START_TEST(line_set_returns_the_dirty_sectors_it_evicts)
{
    LineSet s;
    line_set_init(&s, 2, 2);                       /* one set of two ways */
    ck_assert_uint_eq(line_set_put(&s, 1, 0, 0x1), 0);
    ck_assert_uint_eq(line_set_put(&s, 1, 5, 0x4), 0);   /* an update adds sectors */
    ck_assert_uint_eq(line_set_put(&s, 2, 0, 0), 0);
    SimCycle r;
    ck_assert(line_set_find(&s, 1, &r));
    ck_assert_uint_eq(r, 5);
    ck_assert_uint_eq(line_set_put(&s, 3, 0, 0), 0x5);   /* line 1 goes */
    ck_assert_uint_eq(line_set_put(&s, 4, 0, 0x2), 0);   /* line 2 was clean */
    ck_assert_uint_eq(line_set_put(&s, 5, 0, 0), 0);     /* so was line 3 */
    ck_assert_uint_eq(line_set_put(&s, 6, 0, 0), 0x2);
    ck_assert_ptr_null(line_set_check(&s));
    line_set_clear(&s);
}
END_TEST

/* A written-back byte holds DRAM dram.write_cost times as long as a read
 * byte (the bus turns around): 1280 bytes at 1.5 take 60 cycles of the
 * 32 B/cycle DRAM where reads of as many bytes would take 40.  (Warm and
 * over the share, so written back as written; reads miss all the same.) */
START_TEST(write_back_costs_more_dram_time_than_reads)
{
    ArchParams a = arch();
    a.source = MEM_SOURCE_L2;
    a.dram_write_cost = 1.5;
    MemPath m;
    mem_path_init(&m, &a, (1 << 20) + 1);
    for (int i = 0; i < 10; i++) {
        mem_path_write(&m, 0, (uint64_t) (1 << 16) + (uint64_t) i * 128, 128);
    }
    ck_assert_uint_eq(mem_path_read(&m, 0, 0, 128, false), 60 + 500);
    mem_path_clear(&m);

    /* The utilisation that sets the queueing delay counts them the same
     * way: 16 lines written back at cost 2 in a window weigh as much as 32
     * lines read (rho = 4096 / 1024 / 32 either way). */
    a.dram_queue_cycles = 64;
    a.dram_write_cost = 2.0;
    MemPath w;
    mem_path_init(&w, &a, (1 << 20) + 1);
    for (int i = 0; i < 16; i++) {
        mem_path_write(&w, (SimCycle) (60 * i), (uint64_t) (1 << 16) + (uint64_t) i * 128, 128);
    }
    a.dram_write_cost = 1.0;
    MemPath r;
    mem_path_init(&r, &a, (1 << 20) + 1);
    for (int i = 0; i < 32; i++) {
        mem_path_read(&r, (SimCycle) (30 * i), (uint64_t) (1 << 16) + (uint64_t) i * 128, 128, false);
    }
    /* 64 x 0.125 / 0.875 = 9.1 cycles more than the unloaded 500. */
    ck_assert_uint_eq(mem_path_read(&w, 1100, 0, 128, false), 1100 + 500 + 9);
    ck_assert_uint_eq(mem_path_read(&r, 1100, 0, 128, false), 1100 + 500 + 9);
    mem_path_clear(&w);
    mem_path_clear(&r);
}
END_TEST

/* Loaded latency (dram.queue_cycles, dram.write_queue_cycles): a DRAM read
 * pays for the traffic of the last complete 1024-cycle window.  Writing back
 * 1 byte a cycle, 1/32 of the SM's DRAM share (over a footprint that does
 * not fit), delays later reads by write_queue_cycles / 32; reading at half the SM's share of DRAM bandwidth adds
 * queue_cycles x 0.5 / (1 - 0.5); nothing before a window completes. */
START_TEST(loaded_latency_follows_the_last_window)
{
    ArchParams a = arch();
    a.dram_queue_cycles = 40;
    a.dram_write_queue = 3200;  /* 100 cycles at 1 of the share's 32 B/cycle */
    a.source = MEM_SOURCE_L2;   /* over the share: written back as written */
    MemPath m;
    mem_path_init(&m, &a, (1 << 20) + 1);
    /* 8 lines written back in the first window: 1024 bytes, 1 B/cycle. */
    for (int i = 0; i < 8; i++) {
        mem_path_write(&m, (SimCycle) (100 * i), (uint64_t) (1 << 16) + (uint64_t) i * 128, 128);
    }
    SimCycle r0 = mem_path_read(&m, 900, 0, 128, false);
    ck_assert_uint_eq(r0, 900 + 500);                 /* first window: no rates yet */
    SimCycle r1 = mem_path_read(&m, 1100, 128 * 100, 128, false);
    /* The first window had 1024 B written back and 128 B read: rho =
     * 1152 / 1024 / 32, 40 x rho / (1 - rho) = 1.46; 100 x 1.0 = 100. */
    ck_assert_uint_eq(r1, 1100 + 500 + 101);
    /* A window without traffic in between: the rates are back to 0. */
    SimCycle r2 = mem_path_read(&m, 5000, 128 * 200, 128, false);
    ck_assert_uint_eq(r2, 5000 + 500);
    mem_path_clear(&m);

    /* Reads alone at half the share (16 of 32 B/cycle) in one window. */
    a.source = MEM_SOURCE_DRAM;
    MemPath q;
    mem_path_init(&q, &a, 0);
    for (int i = 0; i < 128; i++) {
        mem_path_read(&q, (SimCycle) (8 * i), 128 * (uint64_t) i, 128, false);
    }
    SimCycle rq = mem_path_read(&q, 1024, 128 * 1000, 128, false);
    ck_assert_uint_eq(rq, 1024 + 500 + 40);
    mem_path_clear(&q);
}
END_TEST

/* Sharing DRAM with the other busy SMs: 4 SMs share 32 B/cycle (a fair
 * share of 8, a line every 16 cycles).  An SM whose requests took its fair
 * share all through the last window gets the fair share.  One that sent 2
 * lines at cycle 0 (32 of the 1100 cycles to its next request at the fair
 * share) gets 32 / (1 + 3 x 32 / 1100) = 29.4 B/cycle while it bursts:
 * lines 4.35 cycles apart.  And never more than the fair share in the long
 * run (the third case). */
START_TEST(a_bursting_sm_gets_what_the_others_leave)
{
    ArchParams a = arch();
    a.active_sms = 4;
    MemPath m;
    mem_path_init(&m, &a, 0);
    for (int i = 0; i < 128; i++) {
        mem_path_read(&m, (SimCycle) (8 * i), 128 * (uint64_t) i, 128, false);
    }
    SimCycle s0 = mem_path_read(&m, 1100, 128 * 1000, 128, false);
    SimCycle s1 = mem_path_read(&m, 1100, 128 * 1001, 128, false);
    ck_assert_uint_eq(s1 - s0, 16);
    mem_path_clear(&m);

    MemPath b;
    mem_path_init(&b, &a, 0);
    mem_path_read(&b, 0, 0, 128, false);
    mem_path_read(&b, 0, 128, 128, false);
    SimCycle b0 = mem_path_read(&b, 1100, 128 * 1000, 128, false);
    SimCycle b1 = mem_path_read(&b, 1100, 128 * 1001, 128, false);
    SimCycle b2 = mem_path_read(&b, 1100, 128 * 1002, 128, false);
    ck_assert_uint_eq(b1 - b0, 5);   /* 4.35 cycles, rounded up at each end */
    ck_assert_uint_eq(b2 - b0, 9);   /* 8.70 */
    mem_path_clear(&b);

    /* 256 lines at cycle 0 (4096 cycles at the fair share), one at 1100,
     * then two at 2200: the window before asked only 16 cycles of the
     * fair share, which alone would give 31.6 B/cycle, but the SM has
     * asked 4112 cycles' worth in the 2200 since its first request: the
     * fair share (the queue is still busy, so the two are a service time
     * apart). */
    MemPath c;
    mem_path_init(&c, &a, 0);
    for (int i = 0; i < 256; i++) {
        mem_path_read(&c, 0, 128 * (uint64_t) i, 128, false);
    }
    mem_path_read(&c, 1100, 128 * 1000, 128, false);
    SimCycle c0 = mem_path_read(&c, 2200, 128 * 2000, 128, false);
    SimCycle c1 = mem_path_read(&c, 2200, 128 * 2001, 128, false);
    ck_assert_uint_eq(c1 - c0, 16);
    mem_path_clear(&c);
}
END_TEST

/* The latency spread (dram.latency_p10 ... latency_p99, dram.spread_bytes):
 * a read's DRAM latency is dram.latency plus a draw from the quantiles'
 * piecewise-linear distribution less its mean, one draw an aligned
 * spread_bytes.  Reads far apart in time (no queueing) of one line in each
 * of 4096 blocks: their mean is dram.latency, their extremes the quantiles'
 * (shifted by the same mean), a tenth of them at or under the 10th
 * percentile's; the other lines of a block wait as long as its first; the
 * same reads on a second path wait the same. */
START_TEST(latency_spread_keeps_the_mean_and_shares_a_draw)
{
    ArchParams a = arch();
    const int64_t q[ARCH_DRAM_QUANTILES] = { 400, 420, 500, 560, 600, 900 };
    memcpy(a.dram_quantile, q, sizeof q);
    a.dram_spread_bytes = 2048;
    /* The quantile function's mean: flat below p10 and above p99. */
    const double mean = 0.1 * 400 + 0.15 * 410 + 0.25 * 460 + 0.25 * 530 + 0.15 * 580 + 0.09 * 750 + 0.01 * 900;
    MemPath m, twin;
    mem_path_init(&m, &a, 0);
    mem_path_init(&twin, &a, 0);
    double sum = 0.0;
    int64_t lo = INT64_MAX, hi = 0, under_p10 = 0;
    for (int i = 0; i < 4096; i++) {
        SimCycle t = (SimCycle) i * 100000;
        uint64_t block = (uint64_t) i * 2048;
        int64_t lat = (int64_t) (mem_path_read(&m, t, block, 128, false) - t);
        sum += (double) lat;
        lo = MIN(lo, lat);
        hi = MAX(hi, lat);
        under_p10 += lat <= 500 + llround(400 - mean);
        /* Another line of the block, not resident yet: the same draw. */
        SimCycle t2 = t + 50000;
        ck_assert_int_eq((int64_t) (mem_path_read(&m, t2, block + 5 * 128, 128, false) - t2), lat);
        ck_assert_uint_eq(mem_path_read(&twin, t, block, 128, false), t + (SimCycle) lat);
    }
    ck_assert_double_eq_tol(sum / 4096, 500.0, 6.0);
    ck_assert_int_eq(lo, 500 + llround(400 - mean));
    ck_assert_int_le(hi, 500 + llround(900 - mean));
    ck_assert_int_ge(hi, 500 + llround(600 - mean));
    ck_assert_int_ge(under_p10, 4096 / 10 - 80);
    ck_assert_int_le(under_p10, 4096 / 10 + 80);
    mem_path_clear(&m);
    mem_path_clear(&twin);
}
END_TEST

/* The queueing delay's spread (dram.queue_p10 ... queue_p99): a DRAM read's
 * wait for the bandwidth servers (and the loaded latency) is scaled by a
 * draw of mean 1, one draw an aligned queue_spread_bytes (loadlat.cu).  A
 * backlog of 1024 lines asked at cycle 0, one in each 2 KiB block, on two
 * paths, one without the spread: the same bandwidth (the servers are not
 * touched), about the same mean delay, but single reads from about half to
 * about three times their wait; the second line of a block is scaled as the
 * first; a read that waits for nothing is not delayed. */
START_TEST(a_reads_queueing_delay_spreads_around_its_mean)
{
    ArchParams a = arch();
    a.dram_queue_spread_bytes = 2048;
    ArchParams flat = a;
    const double q[ARCH_DRAM_QUANTILES] = { 0.5, 0.7, 0.9, 1.2, 1.6, 2.9 };
    memcpy(a.dram_queue_quantile, q, sizeof q);
    /* The quantile function's mean, flat below p10 and above p99. */
    const double mean = 0.1 * 0.5 + 0.15 * 0.6 + 0.25 * 0.8 + 0.25 * 1.05 + 0.15 * 1.4 + 0.09 * 2.25 + 0.01 * 2.9;
    MemPath m, twin;
    mem_path_init(&m, &a, 0);
    mem_path_init(&twin, &flat, 0);
    double sum = 0.0, sum_flat = 0.0, lo = 10.0, hi = 0.0;
    for (int i = 0; i < 1024; i++) {
        uint64_t block = (uint64_t) i * 2048;
        double d = (double) (mem_path_read(&m, 0, block, 128, false) - 500);
        double wait = (double) (mem_path_read(&twin, 0, block, 128, false) - 500);
        double d2 = (double) (mem_path_read(&m, 0, block + 128, 128, false) - 500);
        double wait2 = (double) (mem_path_read(&twin, 0, block + 128, 128, false) - 500);
        sum += d + d2;
        sum_flat += wait + wait2;
        if (i >= 64) {
            double f = d / wait;
            lo = MIN(lo, f);
            hi = MAX(hi, f);
            ck_assert_double_eq_tol(d2 / wait2, f, 2.0 / wait);
        }
    }
    /* The servers ran the same: the last line of both paths started at the
     * same cycle. */
    ck_assert_uint_eq(m.dram.free_fp, twin.dram.free_fp);
    ck_assert_double_eq_tol(sum / sum_flat, 1.0, 0.06);
    ck_assert_double_le(lo, 0.7 / mean);
    ck_assert_double_ge(lo, 0.5 / mean - 0.01);
    ck_assert_double_ge(hi, 2.0 / mean);
    ck_assert_double_le(hi, 2.9 / mean + 0.01);
    SimCycle later = 10000000;
    ck_assert_uint_eq(mem_path_read(&m, later, UINT64_C(1) << 30, 128, false), later + 500);
    mem_path_clear(&m);
    mem_path_clear(&twin);
}
END_TEST

/* The wait behind write-back is not spread: a write drain holds every read
 * issued during it alike (mem_path.h).  With the queue's own term off
 * (dram.queue_cycles = 0) and a window that wrote back 1 B/cycle of the
 * share's 32 (100 cycles at dram.write_queue_cycles = 3200), reads of 64
 * blocks, far enough apart not to queue at the servers, all wait the
 * latency and those 100 cycles, whatever their draw; with the queue's term
 * on, the same reads spread. */
START_TEST(the_wait_behind_write_back_is_not_spread)
{
    ArchParams a = arch();
    a.dram_write_queue = 3200;
    a.dram_queue_spread_bytes = 512;
    a.source = MEM_SOURCE_L2;   /* over the share: written back as written */
    const double q[ARCH_DRAM_QUANTILES] = { 0.5, 0.7, 0.9, 1.2, 1.6, 2.9 };
    memcpy(a.dram_queue_quantile, q, sizeof q);
    for (int queue = 0; queue < 2; queue++) {
        a.dram_queue_cycles = queue ? 4000 : 0;
        MemPath m;
        mem_path_init(&m, &a, (1 << 20) + 1);
        for (int i = 0; i < 8; i++) {
            mem_path_write(&m, (SimCycle) (100 * i), (uint64_t) (1 << 16) + (uint64_t) i * 128, 128);
        }
        mem_path_read(&m, 900, 0, 128, false);   /* closes the first window */
        SimCycle lo = UINT64_MAX, hi = 0;
        for (int i = 0; i < 64; i++) {
            SimCycle t = 1030 + (SimCycle) i * 8;
            SimCycle d = mem_path_read(&m, t, (uint64_t) (1 << 24) + (uint64_t) i * 512, 128, false) - t;
            lo = MIN(lo, d);
            hi = MAX(hi, d);
        }
        if (queue) {
            ck_assert_uint_ge(lo, 500 + 100);
            ck_assert_uint_gt(hi - lo, 100);
        } else {
            ck_assert_uint_eq(lo, 500 + 100);
            ck_assert_uint_eq(hi, 500 + 100);
        }
        mem_path_clear(&m);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mem_path");
    TCase *tc = tcase_create("path");
    tcase_add_test(tc, first_touch_misses_then_hits);
    tcase_add_test(tc, requests_merge_on_a_line_in_flight);
    tcase_add_test(tc, bandwidth_queues_requests);
    tcase_add_test(tc, l1_for_cached_reads_only);
    tcase_add_test(tc, the_l1_port_queues_stores_and_copies);
    tcase_add_test(tc, line_set_evicts_oldest);
    tcase_add_test(tc, line_set_updates_keep_the_age);
    tcase_add_test(tc, line_set_conflicts_evict_within_the_set);
    tcase_add_test(tc, line_set_one_way_is_direct_mapped);
    tcase_add_test(tc, line_set_allocates_lazily);
    tcase_add_test(tc, line_set_power_of_two_strides_spread);
    tcase_add_test(tc, line_set_matches_a_reference);
    tcase_add_test(tc, warm_only_when_the_footprint_fits_the_share);
    tcase_add_test(tc, writes_are_written_back_when_the_footprint_does_not_fit);
    tcase_add_test(tc, cold_dirty_lines_are_written_back_when_evicted);
    tcase_add_test(tc, unflushed_writes_are_written_back_as_written);
    tcase_add_test(tc, dirty_lines_beyond_the_fraction_are_written_back);
    tcase_add_test(tc, line_set_returns_the_dirty_sectors_it_evicts);
    tcase_add_test(tc, write_back_costs_more_dram_time_than_reads);
    tcase_add_test(tc, loaded_latency_follows_the_last_window);
    tcase_add_test(tc, a_bursting_sm_gets_what_the_others_leave);
    tcase_add_test(tc, latency_spread_keeps_the_mean_and_shares_a_draw);
    tcase_add_test(tc, a_reads_queueing_delay_spreads_around_its_mean);
    tcase_add_test(tc, the_wait_behind_write_back_is_not_spread);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
