/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the model's unit tests share. */

#include <check.h>
#include <stdlib.h>

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
