/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* wteo-core.h on hand-computed cases: the prior, one learning step, the
 * clamp, convergence, aging, one state, every state disabled but one, the
 * candidate as the limit (a latency limit lowers teo's candidate), the
 * tolerance, exploration. */
#include <check.h>

#include "unit.h"
#include "wteo-core.h"

#define ALL 0x3ffu

static struct wteo_params defaults(void) {
        struct wteo_params p;

        wteo_params_default(&p);
        return p;
}

static unsigned row_sum(const struct wteo_cpu *c, unsigned s) {
        unsigned sum = 0;

        for (unsigned j = 0; j < c->n; j++)
                sum += c->w[s][j];
        return sum;
}

START_TEST(test_prior) {
        struct wteo_cpu c;

        wteo_init(&c, 4, WTEO_TOLERANCE_DEFAULT);
        /* 410 spread over 3: 136 each, the diagonal 1024 - 408 = 616. */
        for (unsigned s = 0; s < 4; s++) {
                ck_assert_uint_eq(row_sum(&c, s), WTEO_ONE);
                for (unsigned j = 0; j < 4; j++)
                        ck_assert_uint_eq(c.w[s][j], j == s ? 616 : 136);
        }
        /* Beyond n: zero. */
        ck_assert_uint_eq(c.w[0][4], 0);
        ck_assert_uint_eq(c.w[4][4], 0);
        /* n clamped to 1..WTEO_STATES_MAX. */
        wteo_init(&c, 0, 0);
        ck_assert_uint_eq(c.n, 1);
        ck_assert_uint_eq(c.w[0][0], WTEO_ONE);
        wteo_init(&c, 99, 5000);
        ck_assert_uint_eq(c.n, WTEO_STATES_MAX);
        ck_assert_uint_eq(c.tolerance, WTEO_ONE);
        for (unsigned s = 0; s < WTEO_STATES_MAX; s++)
                ck_assert_uint_eq(row_sum(&c, s), WTEO_ONE);
}
END_TEST

START_TEST(test_learn_one_step) {
        struct wteo_cpu c;

        wteo_init(&c, 3, 0);
        /* Row 2 = {205, 205, 614}; state 0 was right: 614 >> 4 = 38 and
         * 205 >> 4 = 12 move to it. */
        wteo_learn(&c, 2, 0, 4);
        ck_assert_uint_eq(c.w[2][0], 205 + 38 + 12);
        ck_assert_uint_eq(c.w[2][1], 205 - 12);
        ck_assert_uint_eq(c.w[2][2], 614 - 38);
        ck_assert_uint_eq(row_sum(&c, 2), WTEO_ONE);
        /* The other rows did not move. */
        ck_assert_uint_eq(c.w[1][1], 614);
}
END_TEST

/* The same right state again and again: the row converges on it, every
 * other weight stays at the clamp (below 2^learn_shift it gives nothing),
 * and the row keeps its sum at every step. */
START_TEST(test_convergence_and_clamp) {
        struct wteo_cpu c;

        wteo_init(&c, 4, 0);
        for (unsigned i = 0; i < 500; i++) {
                wteo_learn(&c, 3, 1, 4);
                ck_assert_uint_eq(row_sum(&c, 3), WTEO_ONE);
        }
        for (unsigned j = 0; j < 4; j++)
                if (j != 1) {
                        ck_assert_uint_lt(c.w[3][j], 16);
                        ck_assert_uint_gt(c.w[3][j], 0);
                }
        ck_assert_uint_gt(c.w[3][1], WTEO_ONE - 3 * 16);
}
END_TEST

/* A row nobody learns in drifts back to the prior; the row it ages keeps
 * its sum at every step, and the prior is a fixed point. */
START_TEST(test_aging) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        wteo_init(&c, 3, 0);
        for (unsigned i = 0; i < 400; i++)
                wteo_learn(&c, 0, 2, p.learn_shift);
        ck_assert_uint_gt(c.w[0][2], 900);
        for (unsigned i = 0; i < 2000; i++) {
                wteo_age_row(&c, 0, p.age_shift);
                ck_assert_uint_eq(row_sum(&c, 0), WTEO_ONE);
        }
        /* Within 2^age_shift of the prior (the shift stops there). */
        ck_assert_uint_le(c.w[0][0] > 614 ? c.w[0][0] - 614 : 614 - c.w[0][0], 2u << p.age_shift);
        ck_assert_uint_le(c.w[0][2] > 205 ? c.w[0][2] - 205 : 205 - c.w[0][2], 1u << p.age_shift);
        /* The prior does not move. */
        wteo_init(&c, 3, 0);
        wteo_age_row(&c, 1, p.age_shift);
        ck_assert_uint_eq(c.w[1][0], 205);
        ck_assert_uint_eq(c.w[1][1], 614);
        ck_assert_uint_eq(c.w[1][2], 205);
}
END_TEST

/* wteo_reflect() learns in row s and ages the rows in turn. */
START_TEST(test_reflect_ages_in_turn) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        wteo_init(&c, 3, 0);
        wteo_reflect(&c, &p, 1, 0);
        ck_assert_uint_eq(c.age_next, 1);
        wteo_reflect(&c, &p, 1, 0);
        wteo_reflect(&c, &p, 1, 0);
        ck_assert_uint_eq(c.age_next, 0);
        for (unsigned s = 0; s < 3; s++)
                ck_assert_uint_eq(row_sum(&c, s), WTEO_ONE);
        /* Out of range indices change nothing. */
        wteo_reflect(&c, &p, 3, 0);
        wteo_reflect(&c, &p, 0, 7);
        ck_assert_uint_eq(c.age_next, 0);
}
END_TEST

START_TEST(test_one_state) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        wteo_init(&c, 1, WTEO_TOLERANCE_DEFAULT);
        ck_assert_uint_eq(c.w[0][0], WTEO_ONE);
        for (unsigned i = 0; i < 100; i++) {
                wteo_reflect(&c, &p, 0, 0);
                ck_assert_uint_eq(wteo_select(&c, &p, 0, 0, 1), 0);
        }
        ck_assert_uint_eq(c.w[0][0], WTEO_ONE);
        /* Indices beyond the table are clamped to it. */
        ck_assert_uint_eq(wteo_select(&c, &p, 5, 5, ALL), 0);
}
END_TEST

/* Selection: the deepest enabled state at or below the candidate whose
 * risk (weight of row s on shallower states) is within the tolerance. */
START_TEST(test_select_tolerance) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        wteo_init(&c, 4, 0);
        /* Row 3 = {136, 136, 136, 616}: risk of 1 is 136, of 2 272, of 3 408. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, ALL), 0);
        c.tolerance = 136;
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, ALL), 1);
        c.tolerance = 300;
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, ALL), 2);
        c.tolerance = 408;
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, ALL), 3);
        /* Never deeper than the candidate (a latency limit lowers it). */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 1, ALL), 1);
        c.tolerance = WTEO_ONE;
        ck_assert_uint_eq(wteo_select(&c, &p, 0, 2, ALL), 2);
}
END_TEST

/* Disabled states are never chosen; with one state enabled, that one. */
START_TEST(test_select_disabled) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        wteo_init(&c, 4, 300);
        /* Row 3: 2 would be chosen; without it, 1. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, ALL & ~(1u << 2)), 1);
        /* Only state 3 enabled: risk 408 > 300, but it is the only one. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, 1u << 3), 3);
        /* Only state 0 enabled. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, 1u << 0), 0);
        /* Nothing enabled at or below the candidate: the candidate. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 1, 1u << 3), 1);
}
END_TEST

/* The KUnit suite's hand-computed case (kernel/, cpuidle-wteo): 4 states,
 * a fresh CPU at 10% enters state 0 from row 3 although the candidate is
 * 3; a wakeup at the timer teaches row 3 state 3 (136 >> 4 = 8 from each
 * other weight), row 0 ages first and stays at the prior; at a tolerance
 * of 300 state 2 (risk 256) is entered, not 3 (risk 384). */
START_TEST(test_kunit_hand_computed) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        wteo_init(&c, 4, WTEO_TOLERANCE_DEFAULT);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, ALL), 0);
        wteo_reflect(&c, &p, 3, 3);
        ck_assert_uint_eq(c.w[3][0], 128);
        ck_assert_uint_eq(c.w[3][1], 128);
        ck_assert_uint_eq(c.w[3][2], 128);
        ck_assert_uint_eq(c.w[3][3], 640);
        ck_assert_uint_eq(c.w[0][0], 616);
        ck_assert_uint_eq(c.age_next, 1);
        c.tolerance = 300;
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, ALL), 2);
}
END_TEST

/* Learning moves the choice: a CPU whose row-3 entries keep waking in
 * state 1's range ends up choosing 1 at a 10% tolerance, and 3 again after
 * the wakeups say 3 for long enough. */
START_TEST(test_select_follows_learning) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        wteo_init(&c, 4, WTEO_TOLERANCE_DEFAULT);
        for (unsigned i = 0; i < 200; i++)
                wteo_reflect(&c, &p, 3, 1);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, ALL), 1);
        for (unsigned i = 0; i < 200; i++)
                wteo_reflect(&c, &p, 3, 3);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, ALL), 3);
}
END_TEST

/* explore_shift k: every 2^k-th selection takes the candidate as it is. */
START_TEST(test_explore) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;
        unsigned taken = 0;

        p.explore_shift = 3;
        wteo_init(&c, 4, 0);
        for (unsigned i = 0; i < 64; i++)
                taken += wteo_select(&c, &p, 3, 3, ALL) == 3;
        ck_assert_uint_eq(taken, 8);
        p.explore_shift = 0;
        for (unsigned i = 0; i < 64; i++)
                ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, ALL), 0);
}
END_TEST

START_TEST(test_params) {
        struct wteo_params p = defaults();

        ck_assert(wteo_params_valid(&p));
        p.learn_shift = 0;
        ck_assert(!wteo_params_valid(&p));
        p = defaults();
        p.age_shift = WTEO_SHIFT_MAX + 1;
        ck_assert(!wteo_params_valid(&p));
        p = defaults();
        p.explore_shift = WTEO_SHIFT_MAX;
        ck_assert(wteo_params_valid(&p));
}
END_TEST

int main(void) {
        Suite *s = suite_create("wteo-core");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_prior);
        tcase_add_test(tc, test_learn_one_step);
        tcase_add_test(tc, test_convergence_and_clamp);
        tcase_add_test(tc, test_aging);
        tcase_add_test(tc, test_reflect_ages_in_turn);
        tcase_add_test(tc, test_one_state);
        tcase_add_test(tc, test_select_tolerance);
        tcase_add_test(tc, test_select_disabled);
        tcase_add_test(tc, test_kunit_hand_computed);
        tcase_add_test(tc, test_select_follows_learning);
        tcase_add_test(tc, test_explore);
        tcase_add_test(tc, test_params);
        suite_add_tcase(s, tc);
        return unit_run(s);
}
