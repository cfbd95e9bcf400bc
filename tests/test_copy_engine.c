/* test_copy_engine.c: cp.async coalescing, the in-flight limit and
 * completion times, against a fake clock. */
#include "test_util.h"

#include "models/copy_engine.h"
#include "sim/out/stats.h"

static ArchParams arch(void)
{
    ArchParams a = test_mem_arch(128, 1024, 64, MEM_SOURCE_L2);
    a.cp_async_issue = 2;
    a.cp_async_max_inflight = 8;
    a.cp_async_max_inflight_ca = 8;
    a.cp_async_extra_latency = 10;
    return a;
}

/* The line requests copy_engine_gather finds, and their sectors. */
static int64_t count_lines(const CopyEngine *c, const int64_t *src, uint32_t mask, int64_t size, int64_t *sectors)
{
    CopyLines g;
    copy_engine_gather(c, src, mask, size, &g);
    *sectors = 0;
    for (int64_t k = 0; k < g.n; k++) {
        *sectors += __builtin_popcount(g.reqs[k].sectors);
    }
    return g.n;
}

START_TEST(coalescing_into_lines_and_sectors)
{
    ArchParams a = arch();
    CopyEngine c;
    copy_engine_init(&c, &a);
    int64_t src[32], sectors;
    for (int l = 0; l < 32; l++) {
        src[l] = 4096 + l * 4;
    }
    ck_assert_int_eq(count_lines(&c, src, 0xffffffffu, 4, &sectors), 1);
    ck_assert_int_eq(sectors, 4);
    for (int l = 0; l < 32; l++) {
        src[l] = 4096 + l * 16;
    }
    ck_assert_int_eq(count_lines(&c, src, 0xffffffffu, 16, &sectors), 4);
    ck_assert_int_eq(sectors, 16);
    /* Even lanes only (the guide's specialised producers): half the sectors. */
    for (int l = 0; l < 32; l++) {
        src[l] = 4096 + (l / 2) * 4;
    }
    ck_assert_int_eq(count_lines(&c, src, 0x55555555u, 4, &sectors), 1);
    ck_assert_int_eq(sectors, 2);
    copy_engine_clear(&c);
}
END_TEST

/* Line requests and sectors of lanes `mask` copying `size` bytes from
 * src[l], counted byte by byte (the reference). */
static int64_t lines_by_byte(const ArchParams *a, const int64_t *src, uint32_t mask, int64_t size, int64_t *sectors)
{
    int64_t lines[64];
    uint32_t bits[64];
    int64_t n = 0;
    for (int l = 0; l < 32; l++) {
        for (int64_t byte = src[l]; (mask & (1u << l)) && byte < src[l] + size; byte++) {
            int64_t line = byte / a->line_bytes;
            int64_t k = 0;
            while (k < n && lines[k] != line) {
                k++;
            }
            if (k == n) {
                ck_assert_int_lt(n, 64);
                lines[n] = line;
                bits[n++] = 0;
            }
            bits[k] |= 1u << ((byte % a->line_bytes) / a->sector_bytes);
        }
    }
    *sectors = 0;
    for (int64_t k = 0; k < n; k++) {
        *sectors += __builtin_popcount(bits[k]);
    }
    return n;
}

/* Lanes whose ranges follow one another (a group's copy: one run of
 * bytes, gathered line by line) and the same ranges in the reverse lane
 * order (gathered lane by lane) find the lines and sectors that counting
 * byte by byte finds: runs starting anywhere in a line, of every chunk
 * size, over whole, partial and single-lane masks, with power-of-two line
 * and sector sizes (shifts) and without (divisions). */
START_TEST(runs_of_lanes_coalesce_as_bytes_do)
{
    static const int64_t starts[] = { 4096, 4100, 4196, 4220, 4224 + 120 };
    static const int64_t sizes[] = { 4, 8, 16 };
    static const uint32_t masks[] = { 0xffffffffu, 0x0000ffffu, 0x00ffff00u, 1u << 5, 0x3u, 0x80000000u };
    for (int geometry = 0; geometry < 2; geometry++) {
        ArchParams a = arch();
        if (geometry == 1) {
            a.line_bytes = 96;
            a.sector_bytes = 24;
        }
        CopyEngine c;
        copy_engine_init(&c, &a);
        for (size_t i = 0; i < G_N_ELEMENTS(starts); i++) {
            for (size_t j = 0; j < G_N_ELEMENTS(sizes); j++) {
                for (size_t k = 0; k < G_N_ELEMENTS(masks); k++) {
                    for (int reversed = 0; reversed < 2; reversed++) {
                        int64_t src[32], sectors, want_sectors;
                        for (int l = 0; l < 32; l++) {
                            src[l] = starts[i] + (reversed ? 31 - l : l) * sizes[j];
                        }
                        int64_t want = lines_by_byte(&a, src, masks[k], sizes[j], &want_sectors);
                        ck_assert_int_eq(count_lines(&c, src, masks[k], sizes[j], &sectors), want);
                        ck_assert_int_eq(sectors, want_sectors);
                    }
                }
            }
        }
        copy_engine_clear(&c);
    }
}
END_TEST

/* The engine with the memory path and shared memory it copies through,
 * and a warp's 16-byte copies of lines 0..3 into offsets 0..511. */
typedef struct {
    ArchParams a;
    CopyEngine c;
    MemPath m;
    Smem s;
    int64_t src[32], dst[32];
} Rig;

static void rig_open(Rig *r)
{
    r->a = arch();
    copy_engine_init(&r->c, &r->a);
    mem_path_init(&r->m, &r->a, 0);
    smem_init(&r->s, 32, 4, 128);
    for (int l = 0; l < 32; l++) {
        r->src[l] = l * 16;
        r->dst[l] = l * 16;
    }
}

static void rig_close(Rig *r)
{
    copy_engine_clear(&r->c);
    mem_path_clear(&r->m);
    smem_clear(&r->s);
}

START_TEST(inflight_limit_and_completion)
{
    Rig r;
    rig_open(&r);
    /* 4 lines each: two instructions fill the limit of 8. */
    CopyResult r1 = copy_engine_issue(&r.c, &r.m, &r.s, 0, r.src, r.dst, 0xffffffffu, 16);
    ck_assert_int_eq(r1.lines, 4);
    ck_assert_int_eq(r1.bytes, 512);
    for (int l = 0; l < 32; l++) {
        r.src[l] += 512;
    }
    ck_assert_uint_eq(copy_engine_admit(&r.c, 1, 4, 16), 1);
    CopyResult r2 = copy_engine_issue(&r.c, &r.m, &r.s, 1, r.src, r.dst, 0xffffffffu, 16);
    ck_assert_uint_eq(r2.issue, 2);           /* the LSU took 2 cycles for the first */
    /* A third must wait for the first lines to complete. */
    SimCycle admit = copy_engine_admit(&r.c, 3, 4, 16);
    ck_assert_uint_ge(admit, 200);
    ck_assert_uint_le(admit, r1.done);
    /* Completion: the last line arrives (latency 200 + extra 10 after link
     * queueing), then 4 fill wavefronts in shared memory. */
    ck_assert_uint_eq(r1.done, 3 + 210 + 4);
    rig_close(&r);
}
END_TEST

/* 4- and 8-byte copies (cp.async.ca) also count against their own,
 * smaller limit (cp_async.max_inflight_ca); 16-byte ones do not. */
START_TEST(ca_copies_have_their_own_limit)
{
    Rig r;
    rig_open(&r);
    r.c.ca.max = 2;
    /* A 4-byte copy of 32 lanes: one line, twice. */
    for (int l = 0; l < 32; l++) {
        r.src[l] = 4 * l;
    }
    CopyResult a1 = copy_engine_issue(&r.c, &r.m, &r.s, 0, r.src, r.dst, 0xffffffffu, 4);
    ck_assert_int_eq(a1.lines, 1);
    for (int l = 0; l < 32; l++) {
        r.src[l] += 4096;
    }
    ck_assert_uint_eq(copy_engine_admit(&r.c, 1, 1, 4), 1);
    CopyResult a2 = copy_engine_issue(&r.c, &r.m, &r.s, 1, r.src, r.dst, 0xffffffffu, 4);
    /* A third .ca line waits for the first to complete; a 16-byte copy of
     * 4 lines still fits the limit of 8 over all copies. */
    SimCycle admit = copy_engine_admit(&r.c, 3, 1, 4);
    ck_assert_uint_ge(admit, 200);
    ck_assert_uint_le(admit, MIN(a1.done, a2.done));
    ck_assert_uint_eq(copy_engine_admit(&r.c, 3, 4, 16), 3);
    rig_close(&r);
}
END_TEST

/* The engine counts what it issued and the cycles admission held warps
 * back, and adds them to a run's statistics itself. */
START_TEST(engine_owns_its_statistics)
{
    Rig r;
    rig_open(&r);
    copy_engine_issue(&r.c, &r.m, &r.s, 0, r.src, r.dst, 0xffffffffu, 16);
    copy_engine_issue(&r.c, &r.m, &r.s, 1, r.src, r.dst, 0xffffffffu, 16);
    ck_assert_uint_eq(r.c.throttled_cycles, 0);
    SimCycle admit = copy_engine_admit(&r.c, 3, 4, 16);
    ck_assert_uint_eq(r.c.throttled_cycles, admit - 3);
    /* Asked again when admitted: no more throttle. */
    ck_assert_uint_eq(copy_engine_admit(&r.c, admit, 4, 16), admit);
    SimStats st;
    sim_stats_init(&st, 1);
    copy_engine_stats_merge(&r.c, &st);
    ck_assert_uint_eq(st.cp_async_instructions, 2);
    ck_assert_uint_eq(st.cp_async_lines, 8);
    ck_assert_uint_eq(st.cp_async_bytes, 1024);
    ck_assert_uint_eq(st.throttled_cycles, admit - 3);
    sim_stats_clear(&st);
    rig_close(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copy_engine");
    TCase *tc = tcase_create("cp_async");
    tcase_add_test(tc, coalescing_into_lines_and_sectors);
    tcase_add_test(tc, runs_of_lanes_coalesce_as_bytes_do);
    tcase_add_test(tc, inflight_limit_and_completion);
    tcase_add_test(tc, ca_copies_have_their_own_limit);
    suite_add_tcase(s, tc);
    TCase *ts = tcase_create("statistics");
    tcase_add_test(ts, engine_owns_its_statistics);
    suite_add_tcase(s, ts);
    return run_suite(s);
}
