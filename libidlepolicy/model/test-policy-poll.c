/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* KVM halt-poll economics on hand-made counter sequences: each mode where
 * it should win, the unknown halt cost, the success rate, hysteresis. */
#include <check.h>
#include <stdlib.h>

#include "test-model-helpers.h"
#include "policy.h"

#define HALT_COST_US 50

static Profile balanced(void) {
        Profile p;

        profile_init(&p, "balanced");
        p.burn_price = 256;             /* a burned µs is worth 1/4 µs of latency */
        return p;
}

/* A tick with everything halting (guest_halt_poll_ns = 0): halts entries
 * of halt_mean_us each, other of them ended by non-timer events. */
static PollInput halting(uint64_t halts, uint64_t halt_mean_us, uint64_t other) {
        return (PollInput) {
                .d_halt_usage = halts,
                .d_halt_time_us = halts * halt_mean_us,
                .interval_us = 1000000,
                .d_other_wakeups = other,
                .halt_cost_us = HALT_COST_US,
        };
}

/* A mostly idle sleeper: 100 timer sleeps of 10 ms, 10 stray IPIs.
 * Polling would burn for nothing: no polling. */
START_TEST(test_sleeper_none) {
        Profile prof = balanced();
        PollInput in = halting(110, 9000, 10);
        PollPlan plan;

        ck_assert_int_eq(policy_decide_poll(&prof, &in, NULL, &plan), 1);
        ck_assert_int_eq(plan.mode, POLL_MODE_NONE);
        ck_assert_uint_eq(plan.window_ns, 0);
        ck_assert_int_eq(plan.cost[POLL_MODE_NONE], 10 * HALT_COST_US);
        ck_assert_int_eq(plan.cost[POLL_MODE_ONLY], 110 * 9000 / 4);
        ck_assert_int_gt(plan.cost[POLL_MODE_WINDOW], plan.cost[POLL_MODE_NONE]);
}
END_TEST

/* pgbench-like: 8000 IPI-ended round trips of ~110 µs a second.  At a
 * latency profile's price (1/16) every idle µs is worth burning. */
START_TEST(test_round_trips_only) {
        Profile prof = balanced();
        PollInput in = halting(8000, 110, 8000);
        PollPlan plan;

        prof.burn_price = 64;
        ck_assert_int_eq(policy_decide_poll(&prof, &in, NULL, &plan), 1);
        ck_assert_int_eq(plan.mode, POLL_MODE_ONLY);
        ck_assert_int_eq(plan.cost[POLL_MODE_NONE], 8000 * HALT_COST_US);
        ck_assert_int_eq(plan.cost[POLL_MODE_ONLY], 8000 * 110 / 16);
        /* a steady sequence keeps it */
        in = (PollInput) { .d_poll_usage = 8000, .d_poll_time_us = 880000, .interval_us = 1000000,
                           .d_other_wakeups = 8000, .halt_cost_us = HALT_COST_US };
        ck_assert_int_eq(policy_decide_poll(&prof, &in, &plan, &plan), 0);
        ck_assert_int_eq(plan.mode, POLL_MODE_ONLY);
}
END_TEST

/* Round trips of 40 µs between 10 ms timer sleeps, polled in a 200 µs
 * window: every round trip caught, each timer sleep costs 200 µs of burn.
 * Polling only would burn the sleeps, no polling would pay 5000 halts. */
START_TEST(test_mixed_window) {
        Profile prof = balanced();
        PollInput in = {
                .d_poll_usage = 5020,
                .d_halt_usage = 20,
                .d_poll_time_us = 5000 * 40 + 20 * 200,
                .d_halt_time_us = 20 * 9800,
                .interval_us = 1000000,
                .d_other_wakeups = 5000,
                .halt_cost_us = HALT_COST_US,
                .window_ns = 200000,
        };
        PollPlan prev = { .mode = POLL_MODE_WINDOW, .window_ns = 200000 }, plan;

        ck_assert_int_eq(policy_decide_poll(&prof, &in, &prev, &plan), 0);
        ck_assert_int_eq(plan.mode, POLL_MODE_WINDOW);
        ck_assert_uint_eq(plan.window_ns, 200000);
        ck_assert_uint_eq(plan.success, (5020 - 20) * 1024 / 5020);
        ck_assert_uint_eq(plan.mean_success_us, 40);
        ck_assert_int_eq(plan.cost[POLL_MODE_WINDOW], 204000 / 4 + 20 * HALT_COST_US);
        ck_assert_int_lt(plan.cost[POLL_MODE_WINDOW], plan.cost[POLL_MODE_ONLY]);
        ck_assert_int_lt(plan.cost[POLL_MODE_WINDOW], plan.cost[POLL_MODE_NONE]);

        /* without prev, the machine's own window (in->window_ns) is measured too */
        ck_assert_int_eq(policy_decide_poll(&prof, &in, NULL, &plan), 1);
        ck_assert_int_eq(plan.mode, POLL_MODE_WINDOW);

        /* halting for a while (no measurement): the learned success duration
         * still prices the window, and it wins back */
        prev = plan;
        prev.mode = POLL_MODE_NONE;
        prev.window_ns = 0;
        in = halting(5020, 120, 5000);
        ck_assert_int_eq(policy_decide_poll(&prof, &in, &prev, &plan), 1);
        ck_assert_int_eq(plan.mode, POLL_MODE_WINDOW);
        ck_assert_uint_ge(plan.window_ns, POLL_WINDOW_MIN_NS);
        ck_assert_uint_le(plan.window_ns, POLL_WINDOW_MAX_NS);
        ck_assert_uint_eq(plan.mean_success_us, 40);
}
END_TEST

/* The halt cost is not calibrated: nothing justifies burning. */
START_TEST(test_unknown_halt_cost) {
        Profile prof = balanced();
        PollInput in = halting(8000, 110, 8000);
        PollPlan prev = { .mode = POLL_MODE_ONLY }, plan;

        prof.burn_price = 1;
        in.halt_cost_us = 0;
        ck_assert_int_eq(policy_decide_poll(&prof, &in, NULL, &plan), 1);
        ck_assert_int_eq(plan.mode, POLL_MODE_NONE);
        ck_assert_int_eq(policy_decide_poll(&prof, &in, &prev, &plan), 1);
        ck_assert_int_eq(plan.mode, POLL_MODE_NONE);
}
END_TEST

/* A mode only 5% cheaper does not displace the current one; 20% does. */
START_TEST(test_hysteresis) {
        Profile prof = balanced();
        PollPlan none = { .mode = POLL_MODE_NONE }, plan;
        /* none = 1000 × 50 = 50000; only = 190000 × 1/4 = 47500 */
        PollInput in = halting(1000, 190, 1000);

        ck_assert_int_eq(policy_decide_poll(&prof, &in, &none, &plan), 0);
        ck_assert_int_eq(plan.mode, POLL_MODE_NONE);
        ck_assert_int_eq(policy_decide_poll(&prof, &in, NULL, &plan), 1);
        ck_assert_int_ne(plan.mode, POLL_MODE_NONE);
        /* only = 160000 / 4 = 40000: 20% cheaper */
        in = halting(1000, 160, 1000);
        ck_assert_int_eq(policy_decide_poll(&prof, &in, &none, &plan), 1);
        ck_assert_int_ne(plan.mode, POLL_MODE_NONE);
}
END_TEST

/* Costs are per second whatever the tick length; an empty tick keeps the
 * plan. */
START_TEST(test_per_second_and_empty) {
        Profile prof = balanced();
        PollInput in = halting(55, 9000, 5);
        PollPlan plan, again;

        in.interval_us = 500000;
        policy_decide_poll(&prof, &in, NULL, &plan);
        ck_assert_int_eq(plan.cost[POLL_MODE_NONE], 2 * 5 * HALT_COST_US);
        in = (PollInput) { .interval_us = 1000000, .halt_cost_us = HALT_COST_US };
        ck_assert_int_eq(policy_decide_poll(&prof, &in, &plan, &again), 0);
        ck_assert_int_eq(again.mode, plan.mode);
}
END_TEST

static Suite *poll_suite(void) {
        Suite *s = suite_create("policy-poll");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_sleeper_none);
        tcase_add_test(tc, test_round_trips_only);
        tcase_add_test(tc, test_mixed_window);
        tcase_add_test(tc, test_unknown_halt_cost);
        tcase_add_test(tc, test_hysteresis);
        tcase_add_test(tc, test_per_second_and_empty);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return model_test_run(poll_suite());
}
