/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* wteo-core.h on hand-computed cases: the prior, one learning step, the
 * clamp, convergence, aging; the states' modelled costs, the price of
 * latency; the rows (half octaves of the time to the timer), a row's
 * averages, every state priced from them, the choice against teo's, cold
 * rows and their least worst regret, the energy guard and the balance
 * behind it, late timers (deeper than the timer), one state, disabled
 * states, the latency limit, learning through reflect, exploration. */
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

/* The half octaves of the time to the timer. */
START_TEST(test_sleep_row) {
        static const u32 t[] = { 0, 1, 3, 4, 5, 6, 7, 8, 11, 12, 15, 16, 2000, WTEO_TIME_MAX - 1, WTEO_TIME_MAX };
        static const u32 row[] = { 0, 1, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 21, 39, 40 };

        for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
                ck_assert_uint_eq(wteo_sleep_row(t[i]), row[i]);
        ck_assert_uint_eq(WTEO_SLEEP_ROWS, wteo_sleep_row(WTEO_TIME_MAX) + 1);
}
END_TEST

/* A row's averages, by hand (1/1024 time units, shares in 1/32768): the
 * first wakeup (non-timer, 5 units) sets the mean idle time and the share;
 * the first timer wakeup (130 units, 100 to the timer: 30 late) sets the
 * lateness and, the row being young (1 wakeup: 1/2 of the way), moves the
 * share halfway to 0; a non-timer wakeup of 21 units (2 wakeups: 1/4)
 * moves the idle time (5120 + 16384 / 4) and the share back (16384 +
 * 16384 / 4); a timer wakeup before its timer is 0 late (3 wakeups: 1/4;
 * 30720 - 30720 / 4, 20480 - 20480 / 4), the next one moves 1/8 (4
 * wakeups), and from the 16th on 1/2^learn_shift. */
START_TEST(test_learn_row) {
        struct wteo_row r = {};

        wteo_learn_row(&r, 5, 100, true, 4);
        ck_assert_uint_eq(r.idle, 5120);
        ck_assert_uint_eq(r.late, 0);
        ck_assert_uint_eq(r.share, WTEO_SHARE_ONE);
        ck_assert_uint_eq(r.samples, 1);
        wteo_learn_row(&r, 130, 100, false, 4);
        ck_assert_uint_eq(r.late, 30720);
        ck_assert_uint_eq(r.share, 16384);
        wteo_learn_row(&r, 21, 100, true, 4);
        ck_assert_uint_eq(r.idle, 9216);
        ck_assert_uint_eq(r.share, 20480);
        wteo_learn_row(&r, 90, 100, false, 4);
        ck_assert_uint_eq(r.late, 23040);
        ck_assert_uint_eq(r.share, 15360);
        ck_assert_uint_eq(r.samples, WTEO_MIN_SAMPLES);
        wteo_learn_row(&r, 90, 100, false, 4);
        ck_assert_uint_eq(r.late, 20160);
        ck_assert_uint_eq(r.share, 13440);
        for (unsigned i = 5; i < 16; i++)
                wteo_learn_row(&r, 90, 100, false, 4);
        ck_assert_uint_eq(r.samples, 16);
        {
                u32 late = r.late;

                wteo_learn_row(&r, 90, 100, false, 4);
                ck_assert_uint_eq(r.late, late - (late >> 4));
        }
        /* A row that starts with the timer: no idle time until its first
         * non-timer wakeup, which sets it. */
        r = (struct wteo_row) {};
        wteo_learn_row(&r, 120, 100, false, 4);
        ck_assert_uint_eq(r.late, 20480);
        ck_assert_uint_eq(r.share, 0);
        wteo_learn_row(&r, 7, 100, true, 4);
        ck_assert_uint_eq(r.idle, 7168);
        ck_assert_uint_eq(r.share, 16384);
}
END_TEST

/* Sets the row of the next entry (the timer sleep units away, last state
 * 0) to a mean idle time of the non-timer wakeups, a lateness, a share. */
static u32 set_row(struct wteo_cpu *c, u32 sleep, u32 idle, u32 late, u32 share) {
        u32 r = wteo_sleep_row(sleep) * WTEO_STATES_MAX + c->last;

        c->rows[r] = (struct wteo_row) { .idle = idle << 10, .late = late << 10, .share = (u16) share,
                                         .samples = WTEO_MIN_SAMPLES };
        return r;
}

/* The mean idle time of an entry and every state's price, by hand, on
 * init4()'s table: half the wakeups non-timer after 10 units, the other
 * half at the 2000-unit timer, 20 late: (10 + 2020) / 2 = 1015 units;
 * energies 1039360, 520704, 265984, 161664; latencies at half the share
 * 0, 512, 5120, 51200: state 3 is the cheapest, teo's choice.  Priced at
 * tolerance 10 (10444 per unit) state 2 is. */
START_TEST(test_select_prices_states) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;
        u32 r;

        init4(&c, WTEO_TOLERANCE_DEFAULT);
        r = set_row(&c, 2000, 10, 20, WTEO_SHARE_ONE / 2);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 3, 3, ALL), 3);
        ck_assert_uint_eq(c.row, r);
        ck_assert_uint_eq(c.s, 3);
        ck_assert_uint_eq(c.teo, 3);
        ck_assert_uint_eq(c.sleep, 2000);
        ck_assert_uint_eq(wteo_row_mean(&c, r), 1039360);
        ck_assert_uint_eq(wteo_row_energy(&c, 1, 1039360), 520704);
        ck_assert_uint_eq(wteo_row_energy(&c, 3, 1039360), 161664);
        ck_assert_uint_eq(wteo_row_latency(&c, r, 3), 51200);
        /* teo chose 1: 3 is cheaper. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 1, 3, ALL), 3);
        wteo_set_tolerance(&c, 10);
        ck_assert_uint_eq(c.price, 10444);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 3, 3, ALL), 2);
}
END_TEST

/* A row decides after WTEO_MIN_SAMPLES wakeups; until then teo's choice
 * when nothing shallower has a lower worst regret (teo chose 0 here). */
START_TEST(test_select_cold_row) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        init4(&c, WTEO_TOLERANCE_DEFAULT);
        for (unsigned i = 0; i < WTEO_MIN_SAMPLES; i++) {
                /* 300 units before a 2000-unit timer (the CPU's last
                 * state stays 0: entered is none). */
                ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 0, 3, ALL), 0);
                wteo_reflect(&c, &p, 3, WTEO_NONE, 300 << 10, true);
        }
        ck_assert_uint_eq(c.last, 0);
        /* 2: 6144 + 256 * 300 + 10240 = 93184 against 3's 70144 + 102400
         * and teo's 0 (307200). */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 0, 3, ALL), 2);
}
END_TEST

/* A young row (no wakeup learned): the least worst regret over a wakeup
 * at once, the timer's and one just before it, never deeper than teo's
 * choice.  init4(): energies 0, 1024, 6144, 31744, latencies 0, 1024,
 * 10240, 102400.  Timer 2000 away: the worst regrets are 1760256 (the
 * timer's, for 0), 737280, 230400 and 134144 (a wakeup at once, for 3):
 * 3.  Timer 500 away: 416256, 161280, 38400 (the timer's: 134144 against
 * 3's 95744) and 134144: 2.  With 2 disabled: 416256, 161280, 134144: 3;
 * with the limit at 1: 254976 and 2048: 1. */
START_TEST(test_select_young_row) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        init4(&c, WTEO_TOLERANCE_DEFAULT);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 3, 3, ALL), 3);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 500 << 10, 3, 3, ALL), 2);
        /* Never deeper than teo's choice. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 500 << 10, 1, 3, ALL), 1);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 500 << 10, 3, 3, ALL & ~(1u << 2)), 3);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 500 << 10, 1, 1, ALL), 1);
        /* A latency price 10.2 times the default's (10444 a unit): a
         * wakeup at once costs 3 31744 + 1044400 = 1076144, more than
         * 2's worst regret (230400, the timer's): 2 at 2000 units too. */
        wteo_set_tolerance(&c, 10);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 3, 3, ALL), 2);
        /* A row with WTEO_MIN_SAMPLES wakeups, all the timer's, decides by
         * its averages: 3 (95744 at 500 units) where a young row took 2. */
        set_row(&c, 500, 0, 0, 0);
        wteo_set_tolerance(&c, WTEO_TOLERANCE_DEFAULT);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 500 << 10, 3, 3, ALL), 3);
}
END_TEST

/* Idle power first, on init4()'s table: every wakeup non-timer after 400
 * units (timer 2000 away).  Energies 409600, 205824, 108544, 82944; with
 * the latencies 0, 1024, 10240, 102400 state 2 is the cheapest (118784)
 * but draws more than teo's 3 plus 1/64 (84240).  While the CPU has
 * saved energy against teo (balance >= 0) it may spend it; once the
 * balance is negative it may not, at the default tolerance.  A lower
 * tolerance lifts the guard. */
START_TEST(test_energy_guard) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        init4(&c, WTEO_TOLERANCE_DEFAULT);
        set_row(&c, 2000, 400, 0, WTEO_SHARE_ONE);
        c.balance = 0;
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 3, 3, ALL), 2);
        c.balance = -1;
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 3, 3, ALL), 3);
        /* teo's own choice is always within its budget. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 2, 3, ALL), 2);
        wteo_set_tolerance(&c, 51);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 3, 3, ALL), 2);
}
END_TEST

/* The balance, by hand: teo chose 3, the CPU entered 2 for 1000 units at
 * the timer: teo's 3 would have drawn 31744 + 128 * 1000 = 159744, plus
 * 1/64 is 162240, state 2 drew 6144 + 256 * 1000 = 262144: -99904.  A
 * wakeup that did not end the idle period changes neither the balance
 * nor the last state; the next one (3 entered) adds 2496 and forgets
 * 1/64 of -99904. */
START_TEST(test_balance) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        init4(&c, WTEO_TOLERANCE_DEFAULT);
        wteo_select(&c, &p, 3, 1000 << 10, 3, 3, ALL);
        wteo_reflect(&c, &p, 3, 2, 1000 << 10, false);
        ck_assert_int_eq(c.balance, -99904);
        ck_assert_uint_eq(c.last, 3);
        wteo_select(&c, &p, 3, 1000 << 10, 3, 3, ALL);
        ck_assert_uint_eq(c.row, wteo_sleep_row(1000) * WTEO_STATES_MAX + 3);
        wteo_reflect(&c, &p, 1, WTEO_NONE, 5 << 10, true);
        ck_assert_int_eq(c.balance, -99904);
        ck_assert_uint_eq(c.last, 3);
        wteo_reflect(&c, &p, 3, 3, 1000 << 10, false);
        ck_assert_int_eq(c.balance, -99904 + 2496 + 1561);
}
END_TEST

/* Timers that fire late: the timer 10 units away points at state 1, but
 * the wakeups come 290 units after it (a mean of 300 units): state 3
 * draws least (31744 + 128 * 300 = 70144) and is entered where the
 * latency limit allows it, 2 where it allows 2. */
START_TEST(test_deeper_than_timer) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        init4(&c, WTEO_TOLERANCE_DEFAULT);
        set_row(&c, 10, 0, 290, 0);
        ck_assert_uint_eq(wteo_select(&c, &p, 1, 10 << 10, 1, 3, ALL), 3);
        ck_assert_uint_eq(wteo_select(&c, &p, 1, 10 << 10, 1, 2, ALL), 2);
        ck_assert_uint_eq(wteo_select(&c, &p, 1, 10 << 10, 1, 1, ALL), 1);
}
END_TEST

/* wteo_reflect() learns in W row s and ages the rows in turn. */
START_TEST(test_reflect_ages_in_turn) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        init4(&c, 0);
        c.n = 3;
        wteo_select(&c, &p, 1, 1000, 1, 2, ALL);
        wteo_reflect(&c, &p, 0, 1, 1000, true);
        ck_assert_uint_eq(c.age_next, 1);
        ck_assert_uint_eq(c.rows[c.row].samples, 1);
        wteo_reflect(&c, &p, 0, 1, 1000, true);
        wteo_reflect(&c, &p, 0, 1, 1000, true);
        ck_assert_uint_eq(c.age_next, 0);
        for (unsigned s = 0; s < 3; s++)
                ck_assert_uint_eq(row_sum(&c, s), WTEO_ONE);
        ck_assert_uint_gt(c.w[1][0], 136);
        /* Out of range indices change nothing. */
        wteo_reflect(&c, &p, 3, 0, 1000, true);
        wteo_reflect(&c, &p, 0, 7, 1000, true);
        ck_assert_uint_eq(c.age_next, 0);
        ck_assert_uint_eq(c.rows[c.row].samples, 3);
}
END_TEST

START_TEST(test_one_state) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        wteo_init(&c, 1, WTEO_TOLERANCE_DEFAULT);
        wteo_set_state(&c, 0, 0, 0);
        ck_assert_uint_eq(c.w[0][0], WTEO_ONE);
        for (unsigned i = 0; i < 100; i++) {
                ck_assert_uint_eq(wteo_select(&c, &p, 0, 1000 * i, 0, 0, 1), 0);
                wteo_reflect(&c, &p, 0, 0, 1000 * i, i & 1);
        }
        ck_assert_uint_eq(c.w[0][0], WTEO_ONE);
        /* Indices beyond the table are clamped to it. */
        ck_assert_uint_eq(wteo_select(&c, &p, 5, 1000, 5, 5, ALL), 0);
}
END_TEST

/* Disabled states are never chosen; with one state enabled, that one
 * (the row of test_select_prices_states at tolerance 10: 2 cheapest). */
START_TEST(test_select_disabled) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;

        init4(&c, 10);
        set_row(&c, 2000, 10, 20, WTEO_SHARE_ONE / 2);
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 3, 3, ALL), 2);
        /* Without 2: 1 (525926) against teo's 3 (683864). */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 3, 3, ALL & ~(1u << 2)), 1);
        /* Only teo's 3 enabled: 3. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 3, 3, 1u << 3), 3);
        /* Nothing enabled at or below the limit: teo's choice. */
        ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 1, 1, 1u << 3), 1);
}
END_TEST

/* Learning moves the choice, through wteo_reflect(): short non-timer
 * wakeups after the CPU's last short idle period make it choose shallow
 * although teo keeps choosing 3; long timer wakeups take it to 3 again. */
START_TEST(test_select_follows_learning) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;
        u32 got = 0;

        init4(&c, WTEO_TOLERANCE_DEFAULT);
        for (unsigned i = 0; i < 50; i++) {
                got = wteo_select(&c, &p, 3, 2000 << 10, 3, 3, ALL);
                wteo_reflect(&c, &p, 1, got, 5 << 10, true);
        }
        ck_assert_uint_eq(got, 1);
        for (unsigned i = 0; i < 50; i++) {
                got = wteo_select(&c, &p, 3, 2000 << 10, 3, 3, ALL);
                wteo_reflect(&c, &p, 3, got, 2000 << 10, false);
        }
        ck_assert_uint_eq(got, 3);
}
END_TEST

/* explore_shift k: every 2^k-th selection takes teo's choice as it is. */
START_TEST(test_explore) {
        struct wteo_params p = defaults();
        struct wteo_cpu c;
        unsigned taken = 0;

        p.explore_shift = 3;
        init4(&c, 10);
        set_row(&c, 2000, 10, 20, WTEO_SHARE_ONE / 2);
        for (unsigned i = 0; i < 64; i++)
                taken += wteo_select(&c, &p, 3, 2000 << 10, 3, 3, ALL) == 3;
        ck_assert_uint_eq(taken, 8);
        p.explore_shift = 0;
        for (unsigned i = 0; i < 64; i++)
                ck_assert_uint_eq(wteo_select(&c, &p, 3, 2000 << 10, 3, 3, ALL), 2);
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
        tcase_add_test(tc, test_sleep_row);
        tcase_add_test(tc, test_learn_row);
        tcase_add_test(tc, test_select_prices_states);
        tcase_add_test(tc, test_select_cold_row);
        tcase_add_test(tc, test_select_young_row);
        tcase_add_test(tc, test_energy_guard);
        tcase_add_test(tc, test_balance);
        tcase_add_test(tc, test_deeper_than_timer);
        tcase_add_test(tc, test_reflect_ages_in_turn);
        tcase_add_test(tc, test_one_state);
        tcase_add_test(tc, test_select_disabled);
        tcase_add_test(tc, test_select_follows_learning);
        tcase_add_test(tc, test_explore);
        tcase_add_test(tc, test_params);
        suite_add_tcase(s, tc);
        return unit_run(s);
}
