/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* teo and teo-util on hand-computed cases (Skylake-SP). */
#include "test-sim-helpers.h"

enum { POLL, C1, C1E, C6 };

/* No history: the deepest state the time to the next timer allows. */
START_TEST(test_fresh_follows_timer) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("teo", &t);

        ck_assert_uint_eq(gov_pick(g, MS(1), SIM_NO_LIMIT, 0), C6);
        ck_assert_uint_eq(gov_pick(g, US(100), SIM_NO_LIMIT, 0), C1E);
        ck_assert_uint_eq(gov_pick(g, US(5), SIM_NO_LIMIT, 0), C1);
        ck_assert_uint_eq(gov_pick(g, MS(1), US(50), 0), C1E);       /* latency limit */
        governor_free(g);
}
END_TEST

/* Timer 10 ms away, but every wakeup after 50 µs: intercepts pile up in
 * C1E's bin; all of the events are intercepts below the candidate (C6), so
 * walk down: C1E's bin alone holds more than half of them -> C1E. */
START_TEST(test_intercepts_walk_shallower) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("teo", &t);

        ck_assert_uint_eq(gov_step(g, MS(10), US(50), 0), C6);   /* no history yet */
        for (unsigned i = 0; i < 10; i++)
                gov_step(g, MS(10), US(50), 0);
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0), C1E);
        governor_free(g);
}
END_TEST

/* Three timer wakeups for each early one: the C6 hits (3/4 of the
 * events) outweigh the C1E intercepts, so C6 stays. */
START_TEST(test_hits_keep_candidate) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("teo", &t);

        for (unsigned i = 0; i < 20; i++) {
                gov_step(g, MS(10), MS(10), 0);
                gov_step(g, MS(10), MS(10), 0);
                gov_step(g, MS(10), MS(10), 0);
                gov_step(g, MS(10), US(50), 0);
        }
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0), C6);
        governor_free(g);
}
END_TEST

/* Intercepts spread over C1's bin (3 µs wakeups) and C1E's bin (50 µs),
 * two C1 for one C1E: walking down from C6, C1E's bin holds a third of
 * them, C1E+C1 all: the first state past half is C1. */
START_TEST(test_walk_to_median) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("teo", &t);

        for (unsigned i = 0; i < 20; i++) {
                gov_step(g, MS(10), US(3), 0);
                gov_step(g, MS(10), US(3), 0);
                gov_step(g, MS(10), US(50), 0);
        }
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0), C1);
        governor_free(g);
}
END_TEST

/* Where the walk lands on a disabled state, the candidate stays. */
START_TEST(test_walk_onto_disabled) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g;

        t.states[C1E].disabled = true;
        g = gov_new("teo", &t);
        for (unsigned i = 0; i < 10; i++)
                gov_step(g, MS(10), US(50), 0);
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0), C6);
        governor_free(g);
}
END_TEST

/* teo-util: above 1/64 utilisation, one non-polling state shallower. */
START_TEST(test_util_rule) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("teo-util", &t);

        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0.0), C6);
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0.01), C6);     /* below 1/64 */
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0.5), C1E);
        ck_assert_uint_eq(gov_pick(g, US(100), SIM_NO_LIMIT, 0.5), C1);
        /* Never down to the polling state. */
        ck_assert_uint_eq(gov_pick(g, US(5), SIM_NO_LIMIT, 0.5), C1);
        governor_free(g);
}
END_TEST

START_TEST(test_util_threshold_param) {
        SimTable t = table_from(TABLE_SKYLAKE);
        GovParams p;
        Governor *g = NULL;

        gov_params_init(&p);
        ck_assert_int_eq(gov_params_set(&p, "util_threshold", "0.6"), 0);
        ck_assert_int_eq(governor_new(&governor_teo_util, &t, &p, &g), 0);
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0.5), C6);
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0.7), C1E);
        governor_free(g);
        ck_assert_int_lt(gov_params_set(&p, "util_threshold", "1.5"), 0);
        ck_assert_int_lt(gov_params_set(&p, "no_such_knob", "1"), 0);
}
END_TEST

int main(void) {
        Suite *s = suite_create("sim-teo");
        TCase *tc = tcase_create("teo");

        tcase_add_test(tc, test_fresh_follows_timer);
        tcase_add_test(tc, test_intercepts_walk_shallower);
        tcase_add_test(tc, test_hits_keep_candidate);
        tcase_add_test(tc, test_walk_to_median);
        tcase_add_test(tc, test_walk_onto_disabled);
        tcase_add_test(tc, test_util_rule);
        tcase_add_test(tc, test_util_threshold_param);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
