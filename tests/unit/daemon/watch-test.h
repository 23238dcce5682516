/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by the tests of the daemon's watch sources (proc-events,
 * process-watch, cgroup-watch): running the suite as TAP or skipping all
 * of it, and running an event loop until something happened.  No assert
 * is on time: a wait ends when the awaited thing happened, or fails after
 * a generous deadline. */

#include <check.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-event.h>
#include <time.h>

#define WATCH_TEST_DEADLINE_USEC ((uint64_t) 10 * 1000000)

static inline uint64_t watch_test_now(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* Runs e until *done is set or timeout_usec have passed.  Returns *done. */
static inline bool watch_test_run_until(sd_event *e, const bool *done, uint64_t timeout_usec) {
        uint64_t deadline = watch_test_now() + timeout_usec;

        while (!*done) {
                uint64_t now = watch_test_now();

                if (now >= deadline)
                        break;
                ck_assert_int_ge(sd_event_run(e, deadline - now), 0);
        }
        return *done;
}

/* Runs e for usec, to give something that must not happen the chance. */
static inline void watch_test_run_for(sd_event *e, uint64_t usec) {
        bool never = false;

        (void) watch_test_run_until(e, &never, usec);
}

/* Runs tests as the suite name, one test case with fixture (setup and
 * teardown around each test, NULL for none) and time for forks and execs;
 * TAP on stdout when CK_TAP_LOG_FILE_NAME=-, as meson sets it.  Returns the
 * exit status. */
static inline int watch_test_main(const char *name, const TTest *const *tests, size_t n, SFun setup,
                                  SFun teardown) {
        Suite *s = suite_create(name);
        TCase *tc = tcase_create(name);
        SRunner *sr;
        int failed;

        tcase_set_timeout(tc, 60);
        if (setup || teardown)
                tcase_add_checked_fixture(tc, setup, teardown);
        for (size_t i = 0; i < n; i++)
                tcase_add_test(tc, tests[i]);
        suite_add_tcase(s, tc);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Skips the whole program.  The TAP way: meson counts any non-zero exit of
 * a TAP test as an error, 77 included, and an empty plan with SKIP as a
 * skip.  Returns the exit status. */
static inline int watch_test_skip(const char *why) {
        printf("1..0 # SKIP %s\n", why);
        return EXIT_SUCCESS;
}
