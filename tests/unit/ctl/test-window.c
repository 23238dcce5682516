/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* status --interval's arithmetic: the rates over a window from the
 * counters at its two ends and the mean of the ticks read between. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-window.h"

static CtlState start_states[] = {
        { .index = 0, .name = (char *) "POLL", .has_counters = true, .usage = 100, .time_us = 1000 },
        { .index = 1, .name = (char *) "C1", .has_counters = true, .usage = 50, .time_us = 50000, .above = 5 },
        { .index = 2, .name = (char *) "C2", .has_counters = true, .usage = 10, .time_us = 90000, .above = 1 },
};
/* 2 s later: POLL 300 more entries (30 too shallow), C1 100 (10 too deep),
 * C2 100 (90 too deep); 1.2 s of the 2 s idle. */
static CtlState end_states[] = {
        { .index = 0, .name = (char *) "POLL", .has_counters = true, .usage = 400, .time_us = 201000, .below = 30,
          .has_rates = true, .usage_share_pct = 99 },
        { .index = 1, .name = (char *) "C1", .has_counters = true, .usage = 150, .time_us = 450000, .above = 15 },
        { .index = 2, .name = (char *) "C2", .has_counters = true, .usage = 110, .time_us = 690000, .above = 91 },
};
/* A governor switch renamed state 2 between the ends. */
static CtlState renamed_states[] = {
        { .index = 0, .name = (char *) "POLL", .has_counters = true, .usage = 100, .time_us = 1000 },
        { .index = 1, .name = (char *) "C1", .has_counters = true, .usage = 50, .time_us = 50000, .above = 5 },
        { .index = 2, .name = (char *) "C3", .has_counters = true, .usage = 10, .time_us = 90000, .above = 1 },
};

static CtlCpu first_cpus[] = {
        { .index = 0, .online = true, .states = start_states, .n_states = 3 },
        { .index = 1, .online = true, .states = renamed_states, .n_states = 3 },
};

/* The reads: the last tick's rates say nothing of the window. */
static CtlCpu tick_cpus[][2] = {
        { { .index = 0, .online = true, .util = 0.2, .timer_wakeups = 100, .other_wakeups = 10 },
          { .index = 1, .online = true, .util = -1, .timer_wakeups = -1, .other_wakeups = -1 } },
        { { .index = 0, .online = true, .util = 0.4, .timer_wakeups = 300, .other_wakeups = 30 },
          { .index = 1, .online = true, .util = -1, .timer_wakeups = -1, .other_wakeups = -1 } },
};

START_TEST(test_window) {
        CtlWindow w = CTL_WINDOW_NULL;
        CtlStatus first = { .cpus = first_cpus, .n_cpus = 2 };
        CtlState end[3][3];
        CtlCpu last_cpus[] = {
                { .index = 0, .online = true, .states = end[0], .n_states = 3, .util = 0.9 },
                { .index = 1, .online = true, .states = end[1], .n_states = 3, .util = 0.9 },
                { .index = 2, .online = true, .states = end[2], .n_states = 3, .util = 0.9 },
        };
        CtlStatus last = { .cpus = last_cpus, .n_cpus = 3 };
        const CtlState *st = last_cpus[0].states;

        for (size_t i = 0; i < 3; i++)
                memcpy(end[i], end_states, sizeof(end_states));
        for (size_t i = 0; i < 2; i++)
                ck_assert_int_eq(ctl_window_add(&w, &(CtlStatus) { .cpus = tick_cpus[i], .n_cpus = 2 }), 0);
        ctl_window_apply(&w, &first, &last, 2000000);
        ck_assert_uint_eq(last.window_usec, 2000000);
        ck_assert_uint_eq(last.window_ticks, 2);
        ck_assert_double_eq_tol(last_cpus[0].util, 0.3, 1e-9);
        ck_assert_double_eq_tol(last_cpus[0].timer_wakeups, 200, 1e-9);
        ck_assert_double_eq_tol(last_cpus[0].other_wakeups, 20, 1e-9);
        ck_assert(st[0].has_rates && st[1].has_rates && st[2].has_rates);
        ck_assert_double_eq_tol(st[0].entries_per_s, 150, 1e-9);
        ck_assert_double_eq_tol(st[0].usage_share_pct, 60, 1e-9);
        ck_assert_double_eq_tol(st[2].usage_share_pct, 20, 1e-9);
        ck_assert_double_eq_tol(st[0].time_share_pct, 10, 1e-9);     /* 0.2 s of 2 s */
        ck_assert_double_eq_tol(st[2].time_share_pct, 30, 1e-9);
        ck_assert_double_eq_tol(st[0].too_shallow_pct, 10, 1e-9);
        ck_assert_double_eq_tol(st[1].too_deep_pct, 10, 1e-9);
        ck_assert_double_eq_tol(st[2].too_deep_pct, 90, 1e-9);
        ck_assert_double_eq_tol(st[2].too_shallow_pct, 0, 1e-9);
        /* CPU 1: a renamed state has no rates; unknown measurements stay unknown. */
        ck_assert_double_eq(last_cpus[1].util, -1);
        ck_assert(last_cpus[1].states[0].has_rates);
        ck_assert(!last_cpus[1].states[2].has_rates);
        /* CPU 2 was not there at the start and not read in between. */
        ck_assert(!last_cpus[2].states[0].has_rates);
        ck_assert_double_eq(last_cpus[2].util, -1);
        ctl_window_done(&w);
}
END_TEST

/* More idle time than the window (the counters are the daemon's ticks'):
 * the time shares still sum to 100% at most. */
START_TEST(test_window_time_share_capped) {
        CtlWindow w = CTL_WINDOW_NULL;
        CtlStatus first = { .cpus = first_cpus, .n_cpus = 1 };
        CtlCpu last_cpus[] = { { .index = 0, .online = true, .states = end_states, .n_states = 3 } };
        CtlStatus last = { .cpus = last_cpus, .n_cpus = 1 };
        double sum = 0;

        ctl_window_apply(&w, &first, &last, 500000);
        for (size_t k = 0; k < 3; k++)
                sum += last_cpus[0].states[k].time_share_pct;
        ck_assert_double_eq_tol(sum, 100, 1e-9);
        ck_assert_uint_eq(last.window_ticks, 0);
}
END_TEST

static Suite *window_suite(void) {
        Suite *s = suite_create("ctl-window");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_window);
        tcase_add_test(tc, test_window_time_share_capped);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(window_suite());
        int failed;

        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
