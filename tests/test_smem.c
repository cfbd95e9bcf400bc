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

int main(void)
{
    Suite *s = suite_create("smem");
    TCase *tc = tcase_create("banks");
    tcase_add_test(tc, strided_words_conflict_by_gcd);
    tcase_add_test(tc, wide_accesses_use_phases);
    tcase_add_test(tc, port_calendar_serialises);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
