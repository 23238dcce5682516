/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a plan costs when it polls (PreviewProfile): polling only takes the
 * CPU's idle time, a halt-poll window at most the window per wakeup; and
 * whether there is a plan to preview from at all. */
#include <check.h>
#include <stdlib.h>

#include "policy-preview.h"

/* A settled CPU with POLL and a halt state, capped at cap, util in Q10,
 * wakeups in a 1 s tick. */
static PolicyCpu cpu(unsigned cap, int util, uint64_t wakeups) {
        PolicyCpu c = { .active = true, .settled = true, .n_states = 2, .cap = cap, .floor = 0 };

        c.tick.n_states = 2;
        c.tick.states[0].polling = true;
        c.tick.states[1].latency_us = 1;
        c.tick.util = util;
        c.tick.interval_us = 1000000;
        c.tick.d_other_wakeups = wakeups;
        return c;
}

START_TEST(test_polls_only) {
        PolicySystem sys = { .kvm = true };
        PolicyCpu c = cpu(0, 256, 1000);

        ck_assert(policy_cpu_polls_only(&c));
        ck_assert_double_eq_tol(policy_poll_burn(&c, &sys), 0.75, 1e-9);     /* its idle time */
        c.tick.util = -1;
        ck_assert_double_eq_tol(policy_poll_burn(&c, &sys), 1.0, 1e-9);      /* unknown: a whole CPU */
        c.settled = false;
        ck_assert(!policy_cpu_polls_only(&c));
        ck_assert_double_eq(policy_poll_burn(&c, &sys), -1);
}
END_TEST

START_TEST(test_window) {
        PolicySystem sys = { .kvm = true, .has_poll = true, .poll = { .mode = POLL_MODE_WINDOW, .window_ns = 50000 } };
        PolicyCpu c = cpu(1, 512, 2000);

        ck_assert(!policy_cpu_polls_only(&c));
        /* 2000 wakeups x 50 us = 0.1 s of every second */
        ck_assert_double_eq_tol(policy_poll_burn(&c, &sys), 0.1, 1e-9);
        c.tick.d_other_wakeups = 100000;                /* more than its idle time */
        ck_assert_double_eq_tol(policy_poll_burn(&c, &sys), 0.5, 1e-9);
        sys.poll.mode = POLL_MODE_NONE;
        ck_assert_double_eq(policy_poll_burn(&c, &sys), 0);
        sys = (PolicySystem) {};                        /* not a KVM guest */
        ck_assert_double_eq(policy_poll_burn(&c, &sys), 0);
}
END_TEST

/* No CPU settled (before the first tick that learned one, or every CPU
 * forgotten): nothing to preview from, PreviewProfile answers Busy. */
START_TEST(test_has_plan) {
        PolicyStep *l = NULL;

        ck_assert_int_eq(policy_step_new(3, 1, &l), 0);
        ck_assert(!policy_step_has_plan(l));
        l->cpus[2].active = true;                       /* a model, not yet a plan */
        ck_assert(!policy_step_has_plan(l));
        l->cpus[1].settled = true;                      /* a plan, but offline since */
        ck_assert(!policy_step_has_plan(l));
        l->cpus[2].settled = true;
        ck_assert(policy_step_has_plan(l));
        policy_step_reset(l);
        ck_assert(!policy_step_has_plan(l));
        policy_step_free(l);
}
END_TEST

static Suite *preview_suite(void) {
        Suite *s = suite_create("policy-preview");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_polls_only);
        tcase_add_test(tc, test_window);
        tcase_add_test(tc, test_has_plan);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(preview_suite());
        int failed;

        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
