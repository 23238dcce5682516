/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* menu on hand-computed cases (Skylake-SP: POLL, C1 2/2, C1E 10/20, C6 133/600). */
#include "test-sim-helpers.h"

enum { POLL, C1, C1E, C6 };

/* A timer closer than C1's residency: the shortcut to the first state. */
START_TEST(test_short_timer_polls) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("menu", &t);

        ck_assert_uint_eq(gov_pick(g, US(1), SIM_NO_LIMIT, 0), POLL);
        governor_free(g);
}
END_TEST

/* Eight steady 500 µs periods: the typical interval (500 µs) beats the
 * 10 ms timer, so C1E. */
START_TEST(test_typical_interval) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("menu", &t);

        for (unsigned i = 0; i < 8; i++)
                gov_step(g, MS(10), US(500), 0);
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0), C1E);
        /* A 5 µs latency limit keeps it in C1. */
        ck_assert_uint_eq(gov_pick(g, MS(10), US(5), 0), C1);
        governor_free(g);
}
END_TEST

/* 7 × 100 µs and one 10 ms outlier: the outlier is dropped (7 of 8 left,
 * more than 3/4), typical = 100 µs -> C1E; with the outlier the mean
 * (1.34 ms) would have said C6. */
START_TEST(test_outlier_dropped) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("menu", &t);

        for (unsigned i = 0; i < 7; i++)
                gov_step(g, MS(20), US(100), 0);
        gov_step(g, MS(20), MS(10), 0);
        ck_assert_uint_eq(gov_pick(g, MS(20), SIM_NO_LIMIT, 0), C1E);
        governor_free(g);
}
END_TEST

/* No typical interval (250 .. 2000 µs in steps of 250: after dropping two
 * outliers only 6 of 8 remain and they are still spread), so the timer
 * prediction decides, scaled by the bucket's correction factor.  Every
 * period lasted a quarter of its 1..8 ms sleep length (all in the 1-10 ms
 * bucket): the factor goes 8192 -> 7424, 6752, 6164, 5650, 5200, 4806,
 * 4462, 4161 (x - x/8 + 1024/4), so for a 1 ms timer menu predicts
 * 1 ms * 4161/8192 = 508 µs: C1E, not the C6 the bare timer suggests. */
START_TEST(test_correction_factor) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("menu", &t);

        for (unsigned k = 1; k <= 8; k++)
                gov_step(g, MS(k), MS(k) / 4, 0);
        ck_assert_uint_eq(gov_pick(g, MS(1), SIM_NO_LIMIT, 0), C1E);
        /* A 2 ms timer: 1016 µs -> C6. */
        ck_assert_uint_eq(gov_pick(g, MS(2), SIM_NO_LIMIT, 0), C6);
        governor_free(g);
}
END_TEST

/* A fresh menu has eight zero intervals: typical 0, which would mean
 * polling, but C1 fits before the timer, so C1 rather than POLL. */
START_TEST(test_no_polling_when_timer_allows) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("menu", &t);

        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0), C1);
        governor_free(g);
}
END_TEST

/* A disabled C1E is skipped: steady 500 µs gives C1. */
START_TEST(test_disabled_state) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g;

        t.states[C1E].disabled = true;
        g = gov_new("menu", &t);
        for (unsigned i = 0; i < 8; i++)
                gov_step(g, MS(10), US(500), 0);
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0), C1);
        governor_free(g);
}
END_TEST

int main(void) {
        Suite *s = suite_create("sim-menu");
        TCase *tc = tcase_create("menu");

        tcase_add_test(tc, test_short_timer_polls);
        tcase_add_test(tc, test_typical_interval);
        tcase_add_test(tc, test_outlier_dropped);
        tcase_add_test(tc, test_correction_factor);
        tcase_add_test(tc, test_no_polling_when_timer_allows);
        tcase_add_test(tc, test_disabled_state);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
