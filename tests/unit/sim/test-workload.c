/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Synthetic workloads: determinism under a seed, the shape of each one,
 * spec errors. */
#include <errno.h>

#include "sim-workload.h"
#include "test-sim-helpers.h"

#define N 20000

static SimInterval *gen(const char *spec, uint64_t seed) {
        SimInterval *iv = NULL;
        ErrorInfo e = {};

        ck_assert_msg(workload_generate(spec, seed, N, &iv, &e) == 0, "%s: %s", spec, e.message);
        return iv;
}

START_TEST(test_deterministic) {
        const char *name, *summary, *params;

        for (size_t i = 0; (name = workload_describe(i, &summary, &params)); i++) {
                SimInterval *a = gen(name, 7), *b = gen(name, 7), *c = gen(name, 8);

                ck_assert_msg(memcmp(a, b, N * sizeof(SimInterval)) == 0, "%s not deterministic", name);
                ck_assert_msg(memcmp(a, c, N * sizeof(SimInterval)) != 0, "%s ignores the seed", name);
                free(a);
                free(b);
                free(c);
        }
}
END_TEST

/* Every period: a duration, a known timer; a timer wakeup lands 16-58 µs
 * after the timer, any other wakeup before it. */
START_TEST(test_consistent) {
        const char *name, *summary, *params;

        for (size_t i = 0; (name = workload_describe(i, &summary, &params)); i++) {
                SimInterval *iv = gen(name, 1);

                for (size_t k = 0; k < N; k++) {
                        ck_assert_uint_gt(iv[k].duration_ns, 0);
                        ck_assert_uint_ne(iv[k].sleep_length_ns, SIM_SLEEP_UNKNOWN);
                        if (iv[k].timer_wake) {
                                ck_assert_uint_ge(iv[k].duration_ns, iv[k].sleep_length_ns + US(16));
                                ck_assert_uint_le(iv[k].duration_ns, iv[k].sleep_length_ns + US(58));
                        } else
                                ck_assert_uint_lt(iv[k].duration_ns, iv[k].sleep_length_ns);
                }
                free(iv);
        }
}
END_TEST

static unsigned count_timer(const SimInterval *iv, size_t n) {
        unsigned c = 0;

        for (size_t k = 0; k < n; k++)
                c += iv[k].timer_wake;
        return c;
}

START_TEST(test_shapes) {
        SimInterval *iv;
        uint64_t min_sleep = UINT64_MAX, max_sleep = 0;
        unsigned far;

        /* pgbench: IPIs with the timer hundreds of ms away. */
        iv = gen("pgbench", 1);
        ck_assert_uint_lt(count_timer(iv, N), N / 100);
        far = 0;
        for (size_t k = 0; k < N; k++)
                far += iv[k].sleep_length_ns > MS(10);
        ck_assert_uint_ge(far, N * 95 / 100);
        free(iv);
        /* schbench: about 90% at the timer. */
        iv = gen("schbench", 1);
        ck_assert_uint_ge(count_timer(iv, N), N * 88 / 100);
        ck_assert_uint_le(count_timer(iv, N), N * 92 / 100);
        free(iv);
        /* The sweep: only timers, from 1/5 s down to 1/411 s. */
        iv = gen("timer-sweep:periods=10", 1);
        ck_assert_uint_eq(count_timer(iv, N), N);
        for (size_t k = 0; k < N; k++) {
                min_sleep = min_sleep < iv[k].sleep_length_ns ? min_sleep : iv[k].sleep_length_ns;
                max_sleep = max_sleep > iv[k].sleep_length_ns ? max_sleep : iv[k].sleep_length_ns;
        }
        ck_assert_uint_eq(max_sleep, MS(200) - US(50));
        ck_assert_uint_le(min_sleep, US(2434) - US(50) + 1);
        free(iv);
        /* idle-server: 3.6% of the periods end on an interrupt (a binomial
         * 720 +- 26 in 20000), the median timer 500 ms away; irq_pct=0
         * leaves only timers, irq_pct=100 none. */
        iv = gen("idle-server", 1);
        ck_assert_uint_ge(N - count_timer(iv, N), 640);
        ck_assert_uint_le(N - count_timer(iv, N), 800);
        far = 0;
        for (size_t k = 0; k < N; k++)
                far += iv[k].sleep_length_ns > MS(500);
        ck_assert_uint_ge(far, N * 47 / 100);
        ck_assert_uint_le(far, N * 53 / 100);
        free(iv);
        iv = gen("idle-server:irq_pct=0", 1);
        ck_assert_uint_eq(count_timer(iv, N), N);
        free(iv);
        iv = gen("idle-server:irq_pct=100", 1);
        ck_assert_uint_eq(count_timer(iv, N), 0);
        free(iv);
        /* hackbench: the tick (4 ms) bounds the timer. */
        iv = gen("hackbench", 1);
        for (size_t k = 0; k < N; k++)
                ck_assert_uint_le(iv[k].sleep_length_ns, MS(4));
        free(iv);
}
END_TEST

/* ebizzy: bursts of burst IPI-ended periods, then a timer sleep. */
START_TEST(test_ebizzy_bursts) {
        SimInterval *iv = gen("ebizzy:burst=3,long_ms=10,bg_ms=0", 1);

        for (size_t k = 0; k < 40; k++) {
                bool timer = k % 4 == 3;
                ck_assert_msg(iv[k].timer_wake == timer, "period %zu", k);
                if (timer)
                        ck_assert_uint_eq(iv[k].sleep_length_ns, MS(10));
        }
        free(iv);
}
END_TEST

/* phase: pgbench (IPIs) for switch_s, then the sweep (timers, 5 Hz at
 * first: 200 ms each). */
START_TEST(test_phase_change) {
        SimInterval *iv = gen("phase:a=pgbench,b=timer-sweep,switch_s=2", 1);
        uint64_t t = 0;
        size_t k = 0;

        for (; t < MS(1990); k++) {
                ck_assert(k < N);
                t += iv[k].busy_ns + iv[k].duration_ns;
        }
        ck_assert_uint_lt(count_timer(iv, k), k / 100);
        for (; t < MS(2000); k++)
                t += iv[k].busy_ns + iv[k].duration_ns;
        ck_assert_uint_eq(count_timer(iv + k, 5), 5);
        ck_assert_uint_eq(iv[k].sleep_length_ns, MS(200) - US(50));
        free(iv);
}
END_TEST

static void expect_error(const char *spec, const char *message) {
        Workload *w = NULL;
        ErrorInfo e = {};

        ck_assert_int_eq(workload_new(spec, 1, &w, &e), -EINVAL);
        ck_assert_ptr_null(w);
        ck_assert_msg(strstr(e.message, message), "\"%s\" does not contain \"%s\"", e.message, message);
}

START_TEST(test_spec_errors) {
        expect_error("nosuch", "unknown workload \"nosuch\"");
        expect_error("pgbench:rtt=5", "unknown parameter \"rtt\"");
        expect_error("pgbench:rtt_us", "expected KEY=VALUE");
        expect_error("pgbench:rtt_us=abc", "rtt_us: \"abc\" is not a number");
        expect_error("pgbench:rtt_us=-1", "is not a number in");
        expect_error("schbench:timer_pct=101", "is not a number in");
        expect_error("phase:a=nosuch", "unknown workload \"nosuch\"");
        expect_error("phase:a=phase", "a phase cannot contain a phase");
}
END_TEST

/* Parameters take effect: the median round trip follows rtt_us. */
START_TEST(test_params_apply) {
        SimInterval *iv = gen("pgbench:rtt_us=10,sigma=0.1", 3);
        unsigned below = 0;

        for (size_t k = 0; k < N; k++)
                below += iv[k].duration_ns < US(10);
        ck_assert_uint_gt(below, N * 45 / 100);
        ck_assert_uint_lt(below, N * 55 / 100);
        free(iv);
}
END_TEST

int main(void) {
        Suite *s = suite_create("sim-workload");
        TCase *tc = tcase_create("workload");

        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_deterministic);
        tcase_add_test(tc, test_consistent);
        tcase_add_test(tc, test_shapes);
        tcase_add_test(tc, test_ebizzy_bursts);
        tcase_add_test(tc, test_phase_change);
        tcase_add_test(tc, test_spec_errors);
        tcase_add_test(tc, test_params_apply);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
