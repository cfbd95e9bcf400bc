/* test_smem.c: bank-conflict degree and the shared-memory port calendar. */
#include "test_util.h"

#include "models/smem.h"

static int64_t waves(Smem *s, int64_t stride_bytes, int64_t size, int64_t *ideal)
{
    int64_t addr[32];
    for (int l = 0; l < 32; l++) {
        addr[l] = l * stride_bytes;
    }
    return smem_wavefronts(s, addr, 0xffffffffu, size, ideal);
}

START_TEST(strided_words_conflict_by_gcd)
{
    Smem s;
    smem_init(&s, 32, 4, 128);
    int64_t ideal;
    /* Word stride k: 32 lanes fall in 32/gcd(k,32) banks. */
    ck_assert_int_eq(waves(&s, 4, 4, &ideal), 1);
    ck_assert_int_eq(ideal, 1);
    ck_assert_int_eq(waves(&s, 8, 4, &ideal), 2);
    ck_assert_int_eq(waves(&s, 16, 4, &ideal), 4);
    ck_assert_int_eq(waves(&s, 128, 4, &ideal), 32);
    ck_assert_int_eq(waves(&s, 12, 4, &ideal), 1); /* odd stride: no conflict */
    ck_assert_int_eq(waves(&s, 0, 4, &ideal), 1);  /* broadcast */
    smem_clear(&s);
}
END_TEST

START_TEST(wide_accesses_use_phases)
{
    Smem s;
    smem_init(&s, 32, 4, 128);
    int64_t ideal;
    /* 16-byte accesses, consecutive: four quarter-warp wavefronts. */
    ck_assert_int_eq(waves(&s, 16, 16, &ideal), 4);
    ck_assert_int_eq(ideal, 4);
    /* 8-byte consecutive: two half-warp wavefronts. */
    ck_assert_int_eq(waves(&s, 8, 8, &ideal), 2);
    /* 16-byte with a 256-byte stride: within a quarter warp all 8 lanes hit
     * the same banks: 8 ways, 4 phases. */
    ck_assert_int_eq(waves(&s, 256, 16, &ideal), 32);
    smem_clear(&s);
}
END_TEST

START_TEST(port_calendar_serialises)
{
    Smem s;
    smem_init(&s, 32, 4, 128);
    ck_assert_uint_eq(smem_reserve(&s, 100, 4), 104);
    /* The next access at 101 waits for the free cycle 104. */
    ck_assert_uint_eq(smem_reserve(&s, 101, 1), 105);
    /* A fill reserved in the future leaves earlier cycles free. */
    ck_assert_uint_eq(smem_reserve(&s, 200, 2), 202);
    ck_assert_uint_eq(smem_reserve(&s, 150, 1), 151);
    ck_assert_uint_eq(smem_reserve(&s, 199, 3), 204); /* 199, then 202, 203 */
    smem_clear(&s);
}
END_TEST

START_TEST(fills_take_their_own_port)
{
    Smem s;
    smem_init(&s, 32, 4, 128);
    int64_t addr[32], replays;
    for (int l = 0; l < 32; l++) {
        addr[l] = l * 16;
    }
    /* Without smem.fill_port a 4-wavefront fill landing at 100 holds the
     * port for 100..103, and a warp's access asked for at 100 follows it. */
    ck_assert_uint_eq(smem_fill(&s, 100, 4), 104);
    ck_assert_uint_eq(smem_access(&s, 100, addr, 0xffffffffu, 16, &replays), 108);
    /* With it, fills queue on their own calendar: the warp's access at
     * 200 starts at once, and a second fill at 200 waits only for the first. */
    smem_init_fill_port(&s, true);
    ck_assert_uint_eq(smem_fill(&s, 200, 4), 204);
    ck_assert_uint_eq(smem_access(&s, 200, addr, 0xffffffffu, 16, &replays), 204);
    ck_assert_uint_eq(smem_fill(&s, 201, 2), 206);
    /* Counted as fills either way: 4 + 4 + 2 wavefronts. */
    ck_assert_uint_eq(s.fill_wavefronts, 10);
    ck_assert_uint_eq(s.wavefronts, 8);
    smem_clear(&s);
}
END_TEST

START_TEST(a_warps_path_spaces_its_accesses)
{
    /* h100's path: 4 cycles between a warp's accesses at least, 2 a
     * wavefront, latency 23 (smem.h). */
    Smem s;
    smem_init(&s, 32, 4, 128);
    smem_init_warps(&s, 2, 23, 4, 2);
    int64_t addr[32], replays;
    SimCycle start;
    for (int l = 0; l < 32; l++) {
        addr[l] = l * 4;
    }
    /* Words: one wavefront, data 23 after the start, the next access 4
     * later. */
    ck_assert_uint_eq(smem_warp_access(&s, 0, 10, addr, 0xffffffffu, 4, true, &start, &replays), 33);
    ck_assert_uint_eq(start, 10);
    ck_assert_uint_eq(smem_warp_next(&s, 0), 14);
    /* Asked for at 11 it starts at 14. */
    ck_assert_uint_eq(smem_warp_access(&s, 0, 11, addr, 0xffffffffu, 4, true, &start, &replays), 37);
    ck_assert_uint_eq(start, 14);
    /* Another warp's path is its own: it starts at once (the port is
     * free at 15). */
    ck_assert_uint_eq(smem_warp_access(&s, 1, 15, addr, 0xffffffffu, 4, true, &start, &replays), 38);
    ck_assert_uint_eq(start, 15);
    /* 16 bytes a lane: four wavefronts, the data 3 x 2 cycles later than
     * a word's, the next access 4 x 2 + 1 = 9 cycles after. */
    for (int l = 0; l < 32; l++) {
        addr[l] = 4096 + l * 16;
    }
    ck_assert_uint_eq(smem_warp_access(&s, 0, 100, addr, 0xffffffffu, 16, true, &start, &replays), 129);
    ck_assert_uint_eq(smem_warp_next(&s, 0), 109);
    /* The port binds where the path does not: warp 1's four wavefronts
     * at 101 wait for cycles 104..107; its data follows the port's last
     * (107 + 23 = 130; the path's would be 101 + 6 + 23). */
    ck_assert_uint_eq(smem_warp_access(&s, 1, 101, addr, 0xffffffffu, 16, true, &start, &replays), 130);
    ck_assert_int_eq(replays, 0);
    smem_clear(&s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("smem");
    TCase *tc = tcase_create("banks");
    tcase_add_test(tc, strided_words_conflict_by_gcd);
    tcase_add_test(tc, wide_accesses_use_phases);
    tcase_add_test(tc, port_calendar_serialises);
    tcase_add_test(tc, a_warps_path_spaces_its_accesses);
    tcase_add_test(tc, fills_take_their_own_port);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
