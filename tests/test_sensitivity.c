/* test_sensitivity.c: the perturbed values, elasticities and ranking of
 * `smpipe sensitivity` (sim/drivers/sensitivity.c), on their own. */
#include "test_util.h"

#include "sim/drivers/sensitivity.h"

START_TEST(integer_steps_round_and_widen)
{
    char *text = NULL;
    double v = 0.0;
    bool widened = false;
    /* 686 x 0.9 = 617.4: rounded. */
    ck_assert(sens_perturb(686, true, 1, 100000, 0.9, &text, &v, &widened));
    ck_assert_str_eq(text, "617");
    ck_assert(v == 617.0 && !widened);
    g_clear_pointer(&text, g_free);
    /* 4 x 1.1 = 4.4 rounds to 4: moved by one instead, and said. */
    ck_assert(sens_perturb(4, true, 1, 10000, 1.1, &text, &v, &widened));
    ck_assert_str_eq(text, "5");
    ck_assert(widened);
    g_clear_pointer(&text, g_free);
    ck_assert(sens_perturb(4, true, 1, 10000, 0.9, &text, &v, &widened));
    ck_assert_str_eq(text, "3");
    g_clear_pointer(&text, g_free);
    /* At the end of the range: no change, no text. */
    ck_assert(!sens_perturb(1, true, 1, 64, 0.9, &text, &v, &widened));
    ck_assert_ptr_null(text);
    ck_assert(!widened);
    /* 0 has no relative step. */
    ck_assert(!sens_perturb(0, true, 0, 100, 1.1, &text, &v, &widened));
    ck_assert_ptr_null(text);
    /* Fractional keys: six significant digits, the value is what they read as. */
    ck_assert(sens_perturb(93.2, false, 0.1, 4096, 0.9, &text, &v, &widened));
    ck_assert_str_eq(text, "83.88");
    ck_assert(v == g_ascii_strtod("83.88", NULL));
    g_clear_pointer(&text, g_free);
}
END_TEST

START_TEST(elasticity_uses_the_value_set)
{
    SensEnd e = { 0 };
    e.value = 3;          /* a latency of 4 moved to 3: -25% */
    e.cycles = 900;       /* from 1000: -10% */
    sens_end_measure(&e, 4, 1000);
    ck_assert(fabs(e.change_pct + 25.0) < 1e-12);
    ck_assert(fabs(e.cycles_pct + 10.0) < 1e-12);
    ck_assert(fabs(e.elasticity - 0.4) < 1e-12);
}
END_TEST

static SensKey *key_with(const char *name, const char *down, double el_down, const char *up, double el_up)
{
    SensKey *k = sens_key_new(name, 0, true, 10, "10", "test");
    k->end[0].status = down;
    k->end[0].elasticity = el_down;
    k->end[1].status = up;
    k->end[1].elasticity = el_up;
    return k;
}

START_TEST(ranking_is_by_the_larger_end_then_by_name)
{
    GPtrArray *keys = g_ptr_array_new_with_free_func((GDestroyNotify) sens_key_free);
    g_ptr_array_add(keys, key_with("z.small", "ok", 0.1, "ok", 0.1));
    g_ptr_array_add(keys, key_with("b.tie", "ok", 0.5, "ok", 0.0));
    g_ptr_array_add(keys, key_with("never.ran", "rejected", 0, "unchanged", 0));
    g_ptr_array_add(keys, key_with("a.tie", "ok", 0.0, "ok", -0.5));
    g_ptr_array_add(keys, key_with("c.one_sided", "ok", -2.0, "rejected", 9.0));
    g_ptr_array_add(keys, key_with("a.zero", "ok", 0.0, "ok", 0.0));
    sens_rank(keys);
    const char *want[] = { "c.one_sided", "a.tie", "b.tie", "z.small", "a.zero", "never.ran" };
    for (guint i = 0; i < keys->len; i++) {
        const SensKey *k = g_ptr_array_index(keys, i);
        ck_assert_str_eq(k->name, want[i]);
        ck_assert_uint_eq(k->rank, i < 5 ? i + 1 : 0);
    }
    /* The rejected end's elasticity does not count. */
    ck_assert(((const SensKey *) g_ptr_array_index(keys, 0))->score == 2.0);
    g_ptr_array_free(keys, TRUE);
}
END_TEST

START_TEST(launch_keys_are_not_hardware)
{
    ck_assert(sens_key_is_launch("sm.blocks"));
    ck_assert(sens_key_is_launch("sm.regs_per_thread"));
    ck_assert(sens_key_is_launch("launch.grid"));
    ck_assert(!sens_key_is_launch("sm.max_blocks"));
    ck_assert(!sens_key_is_launch("sm.blocks_x"));
    ck_assert(!sens_key_is_launch("gpu.sms"));
    ck_assert(!sens_key_is_launch("dram.latency"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sensitivity");
    TCase *tc = tcase_create("rank");
    tcase_add_test(tc, integer_steps_round_and_widen);
    tcase_add_test(tc, elasticity_uses_the_value_set);
    tcase_add_test(tc, ranking_is_by_the_larger_end_then_by_name);
    tcase_add_test(tc, launch_keys_are_not_hardware);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
