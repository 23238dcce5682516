/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* teo-2020 and the weighted-TEO RFC on hand-computed cases (Skylake-SP). */
#include "test-sim-helpers.h"

enum { POLL, C1, C1E, C6 };

START_TEST(test_fresh_follows_timer) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("teo-2020", &t);

        ck_assert_uint_eq(gov_pick(g, MS(1), SIM_NO_LIMIT, 0), C6);
        ck_assert_uint_eq(gov_pick(g, US(100), SIM_NO_LIMIT, 0), C1E);
        ck_assert_uint_eq(gov_pick(g, MS(1), US(20), 0), C1E);
        governor_free(g);
}
END_TEST

/* The 10 ms timer's state (C6) only ever misses; the early wakeups at
 * 100 µs are early hits of C1E: take C1E.  The 8 recent 100 µs periods
 * are not below C1E's 20 µs, so the pattern step keeps it. */
START_TEST(test_misses_take_early_hits) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("teo-2020", &t);

        for (unsigned i = 0; i < 10; i++)
                gov_step(g, MS(10), US(100), 0);
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0), C1E);
        governor_free(g);
}
END_TEST

/* C6 has never been matched by a 10 ms timer (hits = misses = 0) and no
 * state has early hits, but the last 8 periods lasted 50 µs while their
 * timers (100 µs) were hits for C1E: more than half the recent periods are
 * below 10 ms, their mean (50 µs) is below C6's residency -> C1E. */
START_TEST(test_pattern_detection) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("teo-2020", &t);

        for (unsigned i = 0; i < 8; i++)
                gov_step(g, US(100), US(50), 0);
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0), C1E);
        governor_free(g);
}
END_TEST

/* Timer wakeups are hits and do not feed the pattern: C6 stays. */
START_TEST(test_timer_hits_keep_deep) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("teo-2020", &t);

        for (unsigned i = 0; i < 10; i++)
                gov_step(g, MS(10), MS(10) + US(30), 0);
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0), C6);
        governor_free(g);
}
END_TEST

/* Counts how often select() picks each state over n tries. */
static void pick_histogram(Governor *g, uint64_t sleep_ns, unsigned n, unsigned ret[4]) {
        memset(ret, 0, 4 * sizeof(unsigned));
        for (unsigned i = 0; i < n; i++)
                ret[gov_pick(g, sleep_ns, SIM_NO_LIMIT, 0)]++;
}

/* wtteo-rfc: with no hits, "go shallower" holds, and the pick follows the
 * prior row of C6: 60% C6, 40/3% each other state. */
START_TEST(test_wtteo_prior) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("wtteo-rfc", &t);
        unsigned h[4];

        pick_histogram(g, MS(10), 20000, h);
        ck_assert_uint_ge(h[C6], 11600);
        ck_assert_uint_le(h[C6], 12400);
        for (unsigned s = POLL; s < C6; s++) {
                ck_assert_uint_ge(h[s], 2400);
                ck_assert_uint_le(h[s], 2930);
        }
        governor_free(g);
}
END_TEST

/* Every 10 ms timer ends after 100 µs: row C6 learns C1E.  10% moves per
 * wakeup, evenly taken from the others, clamped at [10%, 90%]: the others
 * end at 10% each, C1E at 70%.  A pick of C6 then meets teo-2020's pattern
 * step (8 recent 100 µs periods) and becomes C1E too: 80% C1E, 10% each
 * for POLL and C1, no C6. */
START_TEST(test_wtteo_learns) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("wtteo-rfc", &t);
        unsigned h[4];

        for (unsigned i = 0; i < 100; i++)
                gov_step(g, MS(10), US(100), 0);
        pick_histogram(g, MS(10), 20000, h);
        ck_assert_uint_ge(h[C1E], 15600);
        ck_assert_uint_le(h[C1E], 16400);
        ck_assert_uint_eq(h[C6], 0);
        ck_assert_uint_ge(h[POLL], 1750);
        ck_assert_uint_le(h[POLL], 2250);
        governor_free(g);
}
END_TEST

/* The same seed gives the same picks; another seed other picks. */
START_TEST(test_wtteo_seeded) {
        SimTable t = table_from(TABLE_SKYLAKE);
        GovParams p;
        Governor *a = NULL, *b = NULL, *c = NULL;
        unsigned same = 0, differ = 0;

        gov_params_init(&p);
        ck_assert_int_eq(governor_new(&governor_wtteo_rfc, &t, &p, &a), 0);
        ck_assert_int_eq(governor_new(&governor_wtteo_rfc, &t, &p, &b), 0);
        p.seed = 99;
        ck_assert_int_eq(governor_new(&governor_wtteo_rfc, &t, &p, &c), 0);
        for (unsigned i = 0; i < 200; i++) {
                unsigned sa = gov_step(a, MS(10), US(100), 0);
                same += sa == gov_step(b, MS(10), US(100), 0);
                differ += sa != gov_step(c, MS(10), US(100), 0);
        }
        ck_assert_uint_eq(same, 200);
        ck_assert_uint_gt(differ, 0);
        governor_free(a);
        governor_free(b);
        governor_free(c);
}
END_TEST

/* One state: nothing to weigh, no division by zero. */
START_TEST(test_wtteo_single_state) {
        SimTable t = table_from("WFI 1 1\n");
        Governor *g = gov_new("wtteo-rfc", &t);

        for (unsigned i = 0; i < 10; i++)
                ck_assert_uint_eq(gov_step(g, MS(10), US(100), 0), 0);
        governor_free(g);
}
END_TEST

int main(void) {
        Suite *s = suite_create("sim-teo2020");
        TCase *tc = tcase_create("teo2020");

        tcase_add_test(tc, test_fresh_follows_timer);
        tcase_add_test(tc, test_misses_take_early_hits);
        tcase_add_test(tc, test_pattern_detection);
        tcase_add_test(tc, test_timer_hits_keep_deep);
        tcase_add_test(tc, test_wtteo_prior);
        tcase_add_test(tc, test_wtteo_learns);
        tcase_add_test(tc, test_wtteo_seeded);
        tcase_add_test(tc, test_wtteo_single_state);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
