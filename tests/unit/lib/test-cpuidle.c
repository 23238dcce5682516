/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cpuidle helpers (cpuidle.c): state lookup by name or index, the
 * resume latency's syntax.  The sampler: test-cpuidle-sampler.c. */
#include <errno.h>

#include "cpuidle.h"
#include "unit.h"

START_TEST(test_state_lookup) {
        const CpuidleStateInfo st[] = { { .name = "POLL" }, { .name = "haltpoll idle" }, { .name = "7" } };

        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "POLL"), 0);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "haltpoll idle"), 1);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "1"), 1);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "7"), 2);          /* a name wins over an index */
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "3"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "poll"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, ""), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "-1"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 0, "0"), -ENOENT);
        /* Only canonical decimal indexes (issue 10: "01", "1\n" were taken). */
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "0"), 0);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "01"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "00"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "0000001"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "1\n"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "+1"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, " 1"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "1 "), -ENOENT);
}
END_TEST

START_TEST(test_resume_latency) {
        static const char *const bad[] = { "", "-1", "abc", "2147483647", "4294967295", "n/A", " 5", "1.5" };
        uint32_t v = 1;
        char buf[16];

        ck_assert_int_eq(cpuidle_parse_resume_latency("0", &v), 0);
        ck_assert_uint_eq(v, 0);
        ck_assert_int_eq(cpuidle_parse_resume_latency("20\n", &v), 0);
        ck_assert_uint_eq(v, 20);
        ck_assert_int_eq(cpuidle_parse_resume_latency("n/a", &v), 0);
        ck_assert_uint_eq(v, CPUIDLE_RESUME_LATENCY_NA);
        ck_assert_int_eq(cpuidle_parse_resume_latency("2147483646", &v), 0);
        ck_assert_uint_eq(v, CPUIDLE_RESUME_LATENCY_MAX);
        for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                ck_assert_msg(cpuidle_parse_resume_latency(bad[i], &v) == -EINVAL, "\"%s\" accepted", bad[i]);
                ck_assert_uint_eq(v, CPUIDLE_RESUME_LATENCY_MAX);
        }
        ck_assert_str_eq(cpuidle_format_resume_latency(CPUIDLE_RESUME_LATENCY_NA, buf), "n/a");
        ck_assert_str_eq(cpuidle_format_resume_latency(0, buf), "0");
        ck_assert_str_eq(cpuidle_format_resume_latency(20, buf), "20");
        ck_assert_str_eq(cpuidle_format_resume_latency(CPUIDLE_RESUME_LATENCY_MAX, buf), "2147483646");
}
END_TEST

int main(void) {
        Suite *s = suite_create("cpuidle");
        TCase *helpers = unit_tcase(s, "helpers");

        tcase_add_test(helpers, test_state_lookup);
        tcase_add_test(helpers, test_resume_latency);
        return unit_run(s);
}
