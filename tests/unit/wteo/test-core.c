/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* wteo-core.h on hand-computed cases: the prior, one learning step, the
 * clamp, convergence, aging; the states' modelled costs, the price of
 * latency, the cost matrix learning with full information, the choice
 * against teo's, one state, every state disabled but one, the timer's and
 * the latency limit's bound, exploration. */
#include <check.h>

#include "unit.h"
#include "wteo-core.h"

#define ALL 0x3ffu

static struct wteo_params defaults(void) {
        struct wteo_params p;

        wteo_params_default(&p);
        return p;
}

/* The hand-computed table (the KUnit suite's too): target residencies 0,
 * 2, 20, 200 time units, exit latencies 0, 1, 10, 100 (1 unit = 1024 ns). */
static void init4(struct wteo_cpu *c, unsigned tolerance) {
        static const u64 tr_ns[4] = { 0, 2048, 20480, 204800 }, el_ns[4] = { 0, 1024, 10240, 102400 };

        wteo_init(c, 4, tolerance);
        for (unsigned j = 0; j < 4; j++)
                wteo_set_state(c, j, tr_ns[j], el_ns[j]);
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

/* E[j] = E[j-1] + (P[j-1] - P[j]) * TR[j], P halving from 1024. */
START_TEST(test_state_costs) {
        struct wteo_cpu c;

        init4(&c, WTEO_TOLERANCE_DEFAULT);
        ck_assert_uint_eq(c.energy[0], 0);
        ck_assert_uint_eq(c.energy[1], 512 * 2);
        ck_assert_uint_eq(c.energy[2], 1024 + 256 * 20);
        ck_assert_uint_eq(c.energy[3], 6144 + 128 * 200);
        ck_assert_uint_eq(c.exit[3], 100);
        /* A state beyond n is ignored. */
        wteo_set_state(&c, 4, 1, 1);
        ck_assert_uint_eq(c.energy[4], 0);
        /* Time: ns >> 10, capped. */
        ck_assert_uint_eq(wteo_time(1023), 0);
        ck_assert_uint_eq(wteo_time(51200), 50);
        ck_assert_uint_eq(wteo_time(UINT64_MAX), WTEO_TIME_MAX);
}
END_TEST

START_TEST(test_cost_and_price) {
        struct wteo_cpu c;

        init4(&c, WTEO_TOLERANCE_DEFAULT);
        ck_assert_uint_eq(c.price, 1024);
        /* 50 units, not the timer's wakeup. */
        ck_assert_uint_eq(wteo_cost(&c, 0, 50, true), 51200);
        ck_assert_uint_eq(wteo_cost(&c, 1, 50, true), 1024 + 512 * 50 + 1024);
        ck_assert_uint_eq(wteo_cost(&c, 3, 50, true), 31744 + 128 * 50 + 1024 * 100);
        /* The timer's: no latency paid. */
        ck_assert_uint_eq(wteo_cost(&c, 3, 50, false), 31744 + 128 * 50);
        /* The tolerance sets the price: half the default, twice the price. */
        wteo_set_tolerance(&c, 51);
        ck_assert_uint_eq(c.price, 2048);
        ck_assert_uint_eq(wteo_cost(&c, 3, 50, true), 31744 + 128 * 50 + 2048 * 100);
        wteo_set_tolerance(&c, 5000);
        ck_assert_uint_eq(c.tolerance, WTEO_ONE);
        ck_assert_uint_eq(c.price, 102);
        wteo_set_tolerance(&c, 0);
        ck_assert_uint_eq(c.price, 1024 * 102);
        /* Saturation instead of overflow. */
        wteo_set_state(&c, 3, 204800, UINT64_MAX);
        ck_assert_uint_eq(c.exit[3], WTEO_TIME_MAX);
        ck_assert_uint_eq(c.latency[3], WTEO_COST_MAX);
        ck_assert_uint_eq(wteo_cost(&c, 3, WTEO_TIME_MAX, true), WTEO_COST_MAX);
}
END_TEST

/* wteo_reflect() learns in row s and ages the rows in turn. */
START_TEST(test_reflect_ages_in_turn) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        init4(&c, 0);
        c.n = 3;
        wteo_reflect(&c, &p, 1, 0, 1, 1000, true);
        ck_assert_uint_eq(c.age_next, 1);
        ck_assert_uint_eq(c.rows_seen, 1u << 1);
        wteo_reflect(&c, &p, 1, 0, 1, 1000, true);
        wteo_reflect(&c, &p, 1, 0, 1, 1000, true);
        ck_assert_uint_eq(c.age_next, 0);
        for (unsigned s = 0; s < 3; s++)
                ck_assert_uint_eq(row_sum(&c, s), WTEO_ONE);
        /* Out of range indices change nothing. */
        wteo_reflect(&c, &p, 3, 0, 0, 1000, true);
        wteo_reflect(&c, &p, 0, 7, 0, 1000, true);
        wteo_reflect(&c, &p, 0, 0, 9, 1000, true);
        ck_assert_uint_eq(c.age_next, 0);
        ck_assert_uint_eq(c.rows_seen, 1u << 1);
}
END_TEST

START_TEST(test_one_state) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        wteo_init(&c, 1, WTEO_TOLERANCE_DEFAULT);
        wteo_set_state(&c, 0, 0, 0);
        ck_assert_uint_eq(c.w[0][0], WTEO_ONE);
        for (unsigned i = 0; i < 100; i++) {
                wteo_reflect(&c, &p, 0, 0, 0, 1000 * i, i & 1);
                ck_assert_uint_eq(wteo_select(&c, &p, 0, 0, 0, 1), 0);
        }
        ck_assert_uint_eq(c.w[0][0], WTEO_ONE);
        /* Indices beyond the table are clamped to it. */
        ck_assert_uint_eq(wteo_select(&c, &p, 5, 5, 5, ALL), 0);
}
END_TEST

/* The KUnit suite's hand-computed case (kernel/, cpuidle-wteo), on
 * init4()'s table: a fresh row takes teo's choice; a non-timer wakeup
 * after 50 units, teo having chosen 3, sets row 3's costs to what each
 * state would have cost (0: 1024 * 50; 1: 1024 + 512 * 50 + 1024 * 1;
 * 2: 6144 + 256 * 50 + 1024 * 10; 3: 31744 + 128 * 50 + 1024 * 100) and
 * teaches W state 2; state 1 is then the cheapest, cheaper than teo's 3.
 * A timer wakeup after 400 units, teo having chosen 1, moves every cost
 * 1/16 of the way (0: 73600, 1: 38784, 2: 34144, 3: 136944; teo's 144624):
 * state 2 now, and 1 when the timer or a latency limit allows no deeper. */
START_TEST(test_kunit_hand_computed) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        init4(&c, WTEO_TOLERANCE_DEFAULT);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, 3, ALL), 3);
        wteo_reflect(&c, &p, 3, 2, 3, 51200, true);
        ck_assert_uint_eq(c.cost[3][0], 51200);
        ck_assert_uint_eq(c.cost[3][1], 27648);
        ck_assert_uint_eq(c.cost[3][2], 29184);
        ck_assert_uint_eq(c.cost[3][3], 140544);
        ck_assert_uint_eq(c.teo_cost[3], 140544);
        ck_assert_uint_eq(c.w[3][0], 128);
        ck_assert_uint_eq(c.w[3][1], 128);
        ck_assert_uint_eq(c.w[3][2], 190);
        ck_assert_uint_eq(c.w[3][3], 578);
        ck_assert_uint_eq(c.w[0][0], 616);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, 3, ALL), 1);
        /* Another row has learned nothing: teo's choice. */
        ck_assert_uint_eq(wteo_select(&c, &p, 2, 2, 2, ALL), 2);

        wteo_reflect(&c, &p, 3, 3, 1, 409600, false);
        ck_assert_uint_eq(c.cost[3][0], 73600);
        ck_assert_uint_eq(c.cost[3][1], 38784);
        ck_assert_uint_eq(c.cost[3][2], 34144);
        ck_assert_uint_eq(c.cost[3][3], 136944);
        ck_assert_uint_eq(c.teo_cost[3], 144624);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 1, 3, ALL), 2);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 1, 1, ALL), 1);
}
END_TEST

/* Never a state that cost more than teo's choice did in the row. */
START_TEST(test_teo_when_cheapest) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        init4(&c, WTEO_TOLERANCE_DEFAULT);
        wteo_reflect(&c, &p, 3, 2, 3, 51200, true);
        c.teo_cost[3] = 27648;          /* as cheap as the cheapest: teo's */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, 3, ALL), 3);
        c.teo_cost[3] = 27647;
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 0, 3, ALL), 0);
}
END_TEST

/* Disabled states are never chosen; with one state enabled, that one. */
START_TEST(test_select_disabled) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        init4(&c, WTEO_TOLERANCE_DEFAULT);
        wteo_reflect(&c, &p, 3, 2, 3, 51200, true);
        /* 1 is the cheapest; without it 2. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, 3, ALL & ~(1u << 1)), 2);
        /* Only state 3 enabled: no cheaper state than teo's, so teo's. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, 3, 1u << 3), 3);
        /* Only state 0 enabled: cheaper than teo's 3 did. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, 3, 1u << 0), 0);
        /* Nothing enabled at or below fit: teo's choice. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 1, 1, 1u << 3), 1);
}
END_TEST

/* Learning moves the choice: short non-timer wakeups in row 3 make it
 * choose shallow although teo keeps choosing 3; long timer wakeups take
 * it to 3 again. */
START_TEST(test_select_follows_learning) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        init4(&c, WTEO_TOLERANCE_DEFAULT);
        for (unsigned i = 0; i < 200; i++)
                wteo_reflect(&c, &p, 3, 1, 3, 5 * 1024, true);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, 3, ALL), 1);
        for (unsigned i = 0; i < 200; i++)
                wteo_reflect(&c, &p, 3, 3, 3, 2000 * 1024, false);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, 3, ALL), 3);
        /* A high price of latency keeps a latency-bound CPU shallower:
         * after 2000 units a non-timer wakeup from 3 pays its 100-unit
         * exit; at the default price 3 is still the cheapest, at ten
         * times it 2 is. */
        init4(&c, WTEO_TOLERANCE_DEFAULT);
        for (unsigned i = 0; i < 200; i++)
                wteo_reflect(&c, &p, 3, 3, 3, 2000 * 1024, true);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, 3, ALL), 3);
        wteo_set_tolerance(&c, 10);
        for (unsigned i = 0; i < 200; i++)
                wteo_reflect(&c, &p, 3, 3, 3, 2000 * 1024, true);
        ck_assert_uint_lt(wteo_select(&c, &p, 3, 3, 3, ALL), 3);
}
END_TEST

/* explore_shift k: every 2^k-th selection takes teo's choice as it is. */
START_TEST(test_explore) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;
        unsigned taken = 0;

        p.explore_shift = 3;
        init4(&c, WTEO_TOLERANCE_DEFAULT);
        wteo_reflect(&c, &p, 3, 2, 3, 51200, true);
        for (unsigned i = 0; i < 64; i++)
                taken += wteo_select(&c, &p, 3, 3, 3, ALL) == 3;
        ck_assert_uint_eq(taken, 8);
        p.explore_shift = 0;
        for (unsigned i = 0; i < 64; i++)
                ck_assert_uint_eq(wteo_select(&c, &p, 3, 3, 3, ALL), 1);
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
        tcase_add_test(tc, test_state_costs);
        tcase_add_test(tc, test_cost_and_price);
        tcase_add_test(tc, test_reflect_ages_in_turn);
        tcase_add_test(tc, test_one_state);
        tcase_add_test(tc, test_kunit_hand_computed);
        tcase_add_test(tc, test_teo_when_cheapest);
        tcase_add_test(tc, test_select_disabled);
        tcase_add_test(tc, test_select_follows_learning);
        tcase_add_test(tc, test_explore);
        tcase_add_test(tc, test_params);
        suite_add_tcase(s, tc);
        return unit_run(s);
}
