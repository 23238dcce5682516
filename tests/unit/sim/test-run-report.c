/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Replay, metrics, reports and trace conversion on hand-computed cases. */
#include <errno.h>
#include <jansson.h>
#include <math.h>

#include "sim-report.h"
#include "sim-run.h"
#include "sim-trace.h"
#include "sim-util.h"
#include "test-sim-helpers.h"

/* A governor that always picks the state in its seed parameter. */
static unsigned fixed_select(Governor *g, const GovInput *in) {
        return ((const unsigned *) (g + 1))[0];
}

static void fixed_reflect(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout) {
        ((unsigned *) (g + 1))[1]++;
}

static int fixed_init(Governor *g, const GovParams *p) {
        ((unsigned *) (g + 1))[0] = (unsigned) p->seed;
        return 0;
}

static const GovernorOps governor_fixed = {
        .name = "fixed",
        .size = sizeof(Governor) + 2 * sizeof(unsigned),
        .init = fixed_init,
        .select = fixed_select,
        .reflect = fixed_reflect,
};

static SimMetrics run_fixed(const SimTable *t, unsigned state, const SimInterval *iv, size_t n) {
        SimRunConfig c;
        SimMetrics m;

        sim_run_config_init(&c);
        c.params.seed = state;
        ck_assert_int_eq(sim_run(t, &governor_fixed, &c, iv, n, &m), 0);
        return m;
}

/* C1E for 50 µs (right), 5 µs (too deep), 1 ms (too shallow); energy by
 * hand: E(C1E) = 6, P(C1E) = 1/4 per µs. */
START_TEST(test_metrics) {
        SimTable t = table_from("set ipi-us 1\n" TABLE_SKYLAKE);
        SimInterval iv[] = {
                { .duration_ns = US(50), .sleep_length_ns = MS(1), .timer_wake = false },
                { .duration_ns = US(5), .sleep_length_ns = US(5), .timer_wake = true },
                { .duration_ns = MS(1), .sleep_length_ns = MS(1), .timer_wake = true },
        };
        SimMetrics m = run_fixed(&t, 2, iv, ELEMENTSOF(iv));

        ck_assert_uint_eq(m.intervals, 3);
        ck_assert_uint_eq(m.entries, 3);
        ck_assert_uint_eq(m.correct, 1);
        ck_assert_uint_eq(m.too_deep, 1);
        ck_assert_uint_eq(m.too_shallow, 1);
        ck_assert_uint_eq(m.states[2].entries, 3);
        ck_assert_uint_eq(m.timer_wakeups, 2);
        ck_assert_uint_eq(m.other_wakeups, 1);
        ck_assert_double_eq_tol(m.latency_timer_us, 20.0, 1e-9);
        ck_assert_double_eq_tol(m.latency_other_us, 11.0, 1e-9);
        ck_assert_double_eq_tol(m.energy, 3 * 6.0 + 0.25 * (50 + 5 + 1000), 1e-6);
        ck_assert_uint_eq(m.idle_ns, US(1055));
}
END_TEST

/* Polling for 7 µs with C1's 2 µs residency as the poll limit: three
 * polls run out (2+2+2 µs, each too shallow), the governor is asked again
 * each time, and the last 1 µs ends with the wakeup. */
START_TEST(test_poll_limit_splits) {
        SimTable t = table_from(TABLE_SKYLAKE);
        SimInterval iv = { .duration_ns = US(7), .sleep_length_ns = MS(1), .timer_wake = false };
        SimMetrics m = run_fixed(&t, 0, &iv, 1);

        ck_assert_uint_eq(m.intervals, 1);
        ck_assert_uint_eq(m.entries, 4);
        ck_assert_uint_eq(m.too_shallow, 3);
        ck_assert_uint_eq(m.correct, 1);
        ck_assert_uint_eq(m.idle_ns, US(7));
}
END_TEST

/* Several CPUs: one governor instance each. */
START_TEST(test_cpus) {
        SimTable t = table_from(TABLE_SKYLAKE);
        SimInterval iv[] = {
                { .duration_ns = US(50), .sleep_length_ns = MS(1), .cpu = 0 },
                { .duration_ns = US(50), .sleep_length_ns = MS(1), .cpu = 3 },
                { .duration_ns = US(50), .sleep_length_ns = MS(1), .cpu = SIM_CPUS_MAX },
        };
        SimRunConfig c;
        SimMetrics m;

        sim_run_config_init(&c);
        ck_assert_int_eq(sim_run(&t, &governor_teo, &c, iv, 2, &m), 0);
        ck_assert_uint_eq(m.intervals, 2);
        ck_assert_int_eq(sim_run(&t, &governor_teo, &c, iv, 3, &m), -EINVAL);
        ck_assert_int_eq(sim_run(&t, &governor_haltpoll, &c, iv, 2, &m), -EOPNOTSUPP);
}
END_TEST

/* Unknown timers: the duration for a timer wakeup, far away otherwise. */
START_TEST(test_unknown_sleep_length) {
        SimInterval a = { .duration_ns = US(70), .sleep_length_ns = SIM_SLEEP_UNKNOWN, .timer_wake = true };
        SimInterval b = { .duration_ns = US(70), .sleep_length_ns = SIM_SLEEP_UNKNOWN, .timer_wake = false };

        ck_assert_uint_eq(sim_interval_sleep_length(&a), US(70));
        ck_assert_uint_eq(sim_interval_sleep_length(&b), MS(1000));
}
END_TEST

/* Summary against the oracle: energy 1 and regret 0 for it, and the
 * fixed-C6 governor's ratio by hand. */
static void make_results(SimResult r[3], const SimTable *t, const SimInterval *iv, size_t n) {
        SimRunConfig c;

        sim_run_config_init(&c);
        memset(r, 0, 3 * sizeof(SimResult));
        for (unsigned i = 0; i < 3; i++) {
                snprintf(r[i].workload, sizeof(r[i].workload), "hand");
                r[i].table = *t;
        }
        snprintf(r[0].governor, sizeof(r[0].governor), "oracle");
        ck_assert_int_eq(sim_run(t, &governor_oracle, &c, iv, n, &r[0].metrics), 0);
        snprintf(r[1].governor, sizeof(r[1].governor), "deep");
        r[1].metrics = run_fixed(t, 3, iv, n);
        snprintf(r[2].governor, sizeof(r[2].governor), "haltpoll");
        r[2].error = -EOPNOTSUPP;
        sim_results_summarize(r, 3);
}

START_TEST(test_summary) {
        SimTable t = table_from(TABLE_SKYLAKE);
        SimInterval iv[] = { { .duration_ns = US(100), .sleep_length_ns = MS(1) } };
        SimResult r[3];

        make_results(r, &t, iv, 1);
        ck_assert_double_eq_tol(r[0].summary.energy, 1.0, 1e-12);
        ck_assert_double_eq_tol(r[0].summary.regret_pct, 0.0, 1e-12);
        ck_assert_double_eq_tol(r[0].summary.correct_pct, 100.0, 1e-12);
        /* Oracle: C1E, 6 + 25 = 31 energy, 10 µs latency (cost 41).
         * C6: 81 + 12.5 = 93.5, 133 µs (cost 226.5). */
        ck_assert_double_eq_tol(r[1].summary.energy, 93.5 / 31.0, 1e-9);
        ck_assert_double_eq_tol(r[1].summary.regret_pct, 100.0 * (226.5 - 41.0) / 41.0, 1e-9);
        ck_assert_double_eq_tol(r[1].summary.too_deep_pct, 100.0, 1e-12);
        ck_assert_double_eq_tol(r[1].summary.latency_us, 133.0, 1e-9);
        ck_assert(isnan(r[1].summary.latency_timer_us));
}
END_TEST

START_TEST(test_markdown) {
        SimTable t = table_from(TABLE_SKYLAKE);
        SimInterval iv[] = { { .duration_ns = US(100), .sleep_length_ns = MS(1) } };
        SimResult r[3];
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);

        make_results(r, &t, iv, 1);
        ck_assert_int_eq(sim_report_markdown(f, r, 3, true), 0);
        fclose(f);
        ck_assert_ptr_nonnull(strstr(buf, "| workload | table | governor | intervals | correct % |"));
        ck_assert_ptr_nonnull(strstr(buf, "| hand | test | oracle | 1 | 100.0 | 0.0 | 0.0 | 1.000 | 10.0 | 10.0 | 0.0 |"));
        ck_assert_ptr_nonnull(strstr(buf, "| hand | test | deep | 1 | 0.0 | 100.0 | 0.0 | 3.016 |"));
        ck_assert_ptr_nonnull(strstr(buf, "### hand on test"));
        ck_assert_ptr_nonnull(strstr(buf, "| C6 | deep | 100.0 | 0.0 | 100.0 | 0.0 | 100.0 | 0.0 |"));
        ck_assert_ptr_nonnull(strstr(buf, "- haltpoll on test"));
        free(buf);
}
END_TEST

START_TEST(test_json) {
        SimTable t = table_from(TABLE_SKYLAKE);
        SimInterval iv[] = { { .duration_ns = US(100), .sleep_length_ns = MS(1) } };
        static const char *const keys[] = { "workload", "table", "governor", "intervals", "correct_pct",
                                            "too_deep_pct", "too_shallow_pct", "energy",
                                            "latency_penalty_us", "regret_pct", "states" };
        SimResult r[3];
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        json_error_t err;
        json_t *root, *rows;

        make_results(r, &t, iv, 1);
        ck_assert_int_eq(sim_report_json(f, r, 3), 0);
        fclose(f);
        root = json_loads(buf, 0, &err);
        ck_assert_msg(root, "%s", err.text);
        rows = json_object_get(root, "rows");
        ck_assert_uint_eq(json_array_size(rows), 2);
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                ck_assert_msg(json_object_get(json_array_get(rows, 1), keys[i]), "no %s", keys[i]);
        ck_assert_double_eq_tol(json_real_value(json_object_get(json_array_get(rows, 0), "energy")), 1.0, 1e-9);
        ck_assert(json_is_null(json_object_get(json_array_get(rows, 1), "latency_timer_us")));
        ck_assert_uint_eq(json_array_size(json_object_get(root, "skipped")), 1);
        json_decref(root);
        free(buf);
}
END_TEST

/* A recorded trace: two CPUs, busy gaps per CPU, a wake cause inferred
 * from the timer, the table from the header. */
START_TEST(test_trace_conversion) {
        Trace *t = NULL;
        SimInterval *iv = NULL;
        SimTable tab;
        ErrorInfo e = {};
        size_t n;

        ck_assert_int_eq(trace_new(2, &t), 0);
        t->header.n_states = 2;
        snprintf(t->header.states[0].name, sizeof(t->header.states[0].name), "POLL");
        snprintf(t->header.states[1].name, sizeof(t->header.states[1].name), "C1");
        t->header.states[1].exit_latency_us = 2;
        t->header.states[1].target_residency_us = 2;
        t->intervals = calloc(3, sizeof(IdleInterval));
        t->n_intervals = 3;
        t->intervals[0] = (IdleInterval) { .cpu = 0, .start_ns = 1000, .duration_ns = 500,
                                           .sleep_length_ns = 400, .wake = TRACE_WAKE_UNKNOWN };
        t->intervals[1] = (IdleInterval) { .cpu = 1, .start_ns = 1200, .duration_ns = 100,
                                           .sleep_length_ns = TRACE_SLEEP_UNKNOWN, .wake = TRACE_WAKE_OTHER };
        t->intervals[2] = (IdleInterval) { .cpu = 0, .start_ns = 2000, .duration_ns = 100,
                                           .sleep_length_ns = 900, .wake = TRACE_WAKE_UNKNOWN };
        ck_assert_int_eq(sim_trace_intervals(t, &iv, &n, &e), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert(iv[0].timer_wake);                        /* reached its timer */
        ck_assert_uint_eq(iv[0].busy_ns, 0);
        ck_assert(!iv[1].timer_wake);
        ck_assert_uint_eq(iv[1].sleep_length_ns, SIM_SLEEP_UNKNOWN);
        ck_assert_uint_eq(iv[2].busy_ns, 500);              /* 2000 - (1000 + 500) */
        ck_assert(!iv[2].timer_wake);
        ck_assert_int_eq(sim_trace_table(t, "here", &tab, &e), 0);
        ck_assert(tab.states[0].polling && !tab.states[1].polling);
        ck_assert_uint_eq(tab.states[1].real.target_residency_ns, US(2));
        free(iv);
        t->n_intervals = 0;
        ck_assert_int_eq(sim_trace_intervals(t, &iv, &n, &e), -ENODATA);
        t->header.n_states = 0;
        ck_assert_int_eq(sim_trace_table(t, "here", &tab, &e), -EBADMSG);
        trace_free(t);
}
END_TEST

int main(void) {
        Suite *s = suite_create("sim-run-report");
        TCase *tc = tcase_create("run-report");

        tcase_add_test(tc, test_metrics);
        tcase_add_test(tc, test_poll_limit_splits);
        tcase_add_test(tc, test_cpus);
        tcase_add_test(tc, test_unknown_sleep_length);
        tcase_add_test(tc, test_summary);
        tcase_add_test(tc, test_markdown);
        tcase_add_test(tc, test_json);
        tcase_add_test(tc, test_trace_conversion);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
