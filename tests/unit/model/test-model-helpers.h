/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the model's unit tests share. */

#include <check.h>
#include <stdlib.h>

#include "policy.h"

/* Sets the counters of state s for one tick: usage entries of mean_us
 * each, above and below of them counted too deep / too shallow by the
 * kernel. */
static inline void counters(PolicyTick *t, unsigned s, uint64_t usage, uint64_t mean_us, uint64_t above, uint64_t below) {
        t->d_usage[s] = usage;
        t->d_time_us[s] = usage * mean_us;
        t->d_above[s] = above;
        t->d_below[s] = below;
}

/* Runs the suite (verbosity and TAP from the environment, as meson sets
 * them).  Returns the process exit status. */
static inline int model_test_run(Suite *s) {
        SRunner *sr = srunner_create(s);
        int failed;

        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
