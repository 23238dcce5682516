/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ground truth (the kernel's above/below), the oracle's pick, the energy
 * and latency models. */
#include <math.h>

#include "sim-energy.h"
#include "sim-truth.h"
#include "test-sim-helpers.h"

START_TEST(test_classify) {
        SimTable t = table_from(TABLE_SKYLAKE);

        /* 50 µs: C1E (20) fits, C6 (600) does not. */
        ck_assert_int_eq(sim_truth_classify(&t, 2, US(50), SIM_VIEW_REAL), SIM_VERDICT_CORRECT);
        ck_assert_int_eq(sim_truth_classify(&t, 3, US(50), SIM_VIEW_REAL), SIM_VERDICT_TOO_DEEP);
        ck_assert_int_eq(sim_truth_classify(&t, 1, US(50), SIM_VIEW_REAL), SIM_VERDICT_TOO_SHALLOW);
        ck_assert_int_eq(sim_truth_classify(&t, 0, US(50), SIM_VIEW_REAL), SIM_VERDICT_TOO_SHALLOW);
        /* Too shallow once the period less C1E's exit latency (10) reaches
         * C6's residency, as the kernel counts "below": 609 µs is right. */
        ck_assert_int_eq(sim_truth_classify(&t, 2, US(610), SIM_VIEW_REAL), SIM_VERDICT_TOO_SHALLOW);
        ck_assert_int_eq(sim_truth_classify(&t, 2, US(609), SIM_VIEW_REAL), SIM_VERDICT_CORRECT);
        ck_assert_int_eq(sim_truth_classify(&t, 2, US(600), SIM_VIEW_REAL), SIM_VERDICT_CORRECT);
        ck_assert_int_eq(sim_truth_classify(&t, 3, US(600), SIM_VIEW_REAL), SIM_VERDICT_CORRECT);
        /* The case: 21 µs in a 2 µs-exit state before a 20 µs one. */
        {
                SimTable u = table_from("POLL 0 0 polling\nA 2 2\nB 10 20\n");

                ck_assert_int_eq(sim_truth_classify(&u, 1, US(21), SIM_VIEW_REAL), SIM_VERDICT_CORRECT);
                ck_assert_int_eq(sim_truth_classify(&u, 1, US(22), SIM_VIEW_REAL), SIM_VERDICT_TOO_SHALLOW);
        }
        {
                /* An exit latency longer than the period is no "below". */
                SimTable u = table_from("POLL 0 0 polling\nA 5 1\nB 6 3\n");

                ck_assert_int_eq(sim_truth_classify(&u, 1, US(4), SIM_VIEW_REAL), SIM_VERDICT_CORRECT);
                ck_assert_int_eq(sim_truth_classify(&u, 1, US(8), SIM_VIEW_REAL), SIM_VERDICT_TOO_SHALLOW);
        }
        /* The deepest state is never too shallow. */
        ck_assert_int_eq(sim_truth_classify(&t, 3, MS(100), SIM_VIEW_REAL), SIM_VERDICT_CORRECT);
        /* With C1E disabled, C1 for 50 µs is right (C6 is the next one). */
        t.states[2].disabled = true;
        ck_assert_int_eq(sim_truth_classify(&t, 1, US(50), SIM_VIEW_REAL), SIM_VERDICT_CORRECT);
        /* Too deep only counts while a shallower state was enabled. */
        t.states[0].disabled = t.states[1].disabled = true;
        ck_assert_int_eq(sim_truth_classify(&t, 3, US(50), SIM_VIEW_REAL), SIM_VERDICT_CORRECT);
}
END_TEST

/* POWER9 DD1: advertised 0/2, really 1/10.  The kernel counts a 5 µs
 * stop0_lite entry as right; the truth says snooze was. */
START_TEST(test_classify_views) {
        SimTable t = table_from("snooze 0 0 polling\nstop0_lite 0 2 1 10\nstop0 2 20\n");

        ck_assert_int_eq(sim_truth_classify(&t, 1, US(5), SIM_VIEW_ADVERTISED), SIM_VERDICT_CORRECT);
        ck_assert_int_eq(sim_truth_classify(&t, 1, US(5), SIM_VIEW_REAL), SIM_VERDICT_TOO_DEEP);
        ck_assert_uint_eq(sim_truth_ideal_state(&t, US(5), SIM_NO_LIMIT, SIM_VIEW_REAL), 0);
        ck_assert_uint_eq(sim_truth_ideal_state(&t, US(5), SIM_NO_LIMIT, SIM_VIEW_ADVERTISED), 1);
}
END_TEST

START_TEST(test_ideal_state) {
        SimTable t = table_from(TABLE_SKYLAKE);

        ck_assert_uint_eq(sim_truth_ideal_state(&t, US(1), SIM_NO_LIMIT, SIM_VIEW_REAL), 0);
        ck_assert_uint_eq(sim_truth_ideal_state(&t, US(2), SIM_NO_LIMIT, SIM_VIEW_REAL), 1);
        ck_assert_uint_eq(sim_truth_ideal_state(&t, US(599), SIM_NO_LIMIT, SIM_VIEW_REAL), 2);
        ck_assert_uint_eq(sim_truth_ideal_state(&t, US(600), SIM_NO_LIMIT, SIM_VIEW_REAL), 3);
        /* A 100 µs latency limit rules C6 out. */
        ck_assert_uint_eq(sim_truth_ideal_state(&t, MS(10), US(100), SIM_VIEW_REAL), 2);
        ck_assert_uint_eq(sim_truth_ideal_state(&t, MS(10), 0, SIM_VIEW_REAL), 0);
        /* Disabled states are skipped, the first enabled one is the floor. */
        t.states[2].disabled = true;
        ck_assert_uint_eq(sim_truth_ideal_state(&t, US(100), SIM_NO_LIMIT, SIM_VIEW_REAL), 1);
        t.states[0].disabled = t.states[1].disabled = true;
        ck_assert_uint_eq(sim_truth_ideal_state(&t, US(1), SIM_NO_LIMIT, SIM_VIEW_REAL), 3);
}
END_TEST

START_TEST(test_energy_model) {
        SimTable t = table_from(TABLE_SKYLAKE);
        SimEnergyModel m;

        sim_energy_model_init(&m, &t);
        /* P = 1, 1/2, 1/4, 1/8; E_i = E_{i-1} + (P_{i-1} - P_i) R_i. */
        ck_assert_double_eq_tol(m.power[0], 1.0, 1e-12);
        ck_assert_double_eq_tol(m.power[3], 0.125, 1e-12);
        ck_assert_double_eq_tol(m.transition[1], 0.5 * 2, 1e-9);
        ck_assert_double_eq_tol(m.transition[2], 1.0 + 0.25 * 20, 1e-9);
        ck_assert_double_eq_tol(m.transition[3], 6.0 + 0.125 * 600, 1e-9);
        /* 100 µs in C1E: 6 + 25. */
        ck_assert_double_eq_tol(sim_energy_idle(&m, 2, US(100)), 31.0, 1e-9);
        /* Break-even at each residency. */
        for (unsigned i = 1; i < t.n_states; i++) {
                uint64_t r = t.states[i].real.target_residency_ns;
                ck_assert_double_eq_tol(sim_energy_idle(&m, i, r), sim_energy_idle(&m, i - 1, r), 1e-9);
        }
        /* The oracle's choice is the cheapest for every duration. */
        for (uint64_t d = 0; d < US(3000); d += 250) {
                unsigned best = sim_truth_ideal_state(&t, d, SIM_NO_LIMIT, SIM_VIEW_REAL);
                for (unsigned i = 0; i < t.n_states; i++)
                        ck_assert(sim_energy_idle(&m, best, d) <= sim_energy_idle(&m, i, d) + 1e-9);
        }
}
END_TEST

START_TEST(test_latency_model) {
        SimTable t = table_from("set ipi-us 2\nPOLL 0 0 polling\nC1 2 2\nC6 133 600 150 600\n");

        ck_assert_double_eq_tol(sim_latency_wakeup_us(&t, 2, true), 150.0, 1e-9);   /* real, not 133 */
        ck_assert_double_eq_tol(sim_latency_wakeup_us(&t, 2, false), 152.0, 1e-9);  /* + the IPI */
        ck_assert_double_eq_tol(sim_latency_wakeup_us(&t, 0, false), 0.0, 1e-9);    /* polling: no IPI */
        ck_assert_double_eq_tol(sim_latency_wakeup_us(&t, 1, true), 2.0, 1e-9);
}
END_TEST

int main(void) {
        Suite *s = suite_create("sim-truth-energy");
        TCase *tc = tcase_create("models");

        tcase_add_test(tc, test_classify);
        tcase_add_test(tc, test_classify_views);
        tcase_add_test(tc, test_ideal_state);
        tcase_add_test(tc, test_energy_model);
        tcase_add_test(tc, test_latency_model);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
