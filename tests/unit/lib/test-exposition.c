/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <math.h>

#include "cleanup.h"
#include "exposition.h"
#include "unit.h"

/* Finishes x, checks it succeeded and compares the text. */
static void assert_text(Exposition *x, const char *want) {
        char *text = NULL;
        size_t len = 0;

        ck_assert_int_eq(exposition_finish(x, &text, &len), 0);
        ck_assert_str_eq(text, want);
        ck_assert_uint_eq(len, strlen(want));
        free(text);
}

START_TEST(test_family_and_samples) {
        Exposition x;

        ck_assert_int_eq(exposition_init(&x), 0);
        exposition_family(&x, "idlepolicy_up", EXPOSITION_GAUGE, "1 while it runs.");
        exposition_u64(&x, "idlepolicy_up", NULL, 1);
        exposition_family(&x, "idlepolicy_cpuidle_state_usage_total", EXPOSITION_COUNTER, "Entries.");
        exposition_u64(&x, "idlepolicy_cpuidle_state_usage_total",
                       (const char *[]) { "cpu", "0", "state", "C1", NULL }, UINT64_MAX);
        exposition_u64(&x, "idlepolicy_cpuidle_state_usage_total",
                       (const char *[]) { "cpu", "1", "state", "C1", NULL }, 0);
        assert_text(&x, "# HELP idlepolicy_up 1 while it runs.\n"
                        "# TYPE idlepolicy_up gauge\n"
                        "idlepolicy_up 1\n"
                        "# HELP idlepolicy_cpuidle_state_usage_total Entries.\n"
                        "# TYPE idlepolicy_cpuidle_state_usage_total counter\n"
                        "idlepolicy_cpuidle_state_usage_total{cpu=\"0\",state=\"C1\"} 18446744073709551615\n"
                        "idlepolicy_cpuidle_state_usage_total{cpu=\"1\",state=\"C1\"} 0\n");
}
END_TEST

START_TEST(test_family_without_samples_leaves_nothing) {
        Exposition x;

        ck_assert_int_eq(exposition_init(&x), 0);
        exposition_family(&x, "a_seconds", EXPOSITION_GAUGE, "Nothing measured.");
        exposition_family(&x, "b_total", EXPOSITION_COUNTER, "B.");
        exposition_u64(&x, "b_total", NULL, 2);
        assert_text(&x, "# HELP b_total B.\n# TYPE b_total counter\nb_total 2\n");
}
END_TEST

START_TEST(test_escaping) {
        Exposition x;

        ck_assert_int_eq(exposition_init(&x), 0);
        exposition_family(&x, "x_info", EXPOSITION_GAUGE, "Back\\slash \"quoted\"\nnext line.");
        exposition_u64(&x, "x_info", (const char *[]) { "v", "a\\b\"c\nd", NULL }, 1);
        /* invalid UTF-8 (a lone continuation byte, an overlong '/', a
         * surrogate) becomes U+FFFD; valid multi-byte sequences stay */
        exposition_u64(&x, "x_info", (const char *[]) { "v", "\x80-\xc0\xaf-\xed\xa0\x80-\xc3\xa9\xe2\x82\xac", NULL }, 2);
        assert_text(&x, "# HELP x_info Back\\\\slash \"quoted\"\\nnext line.\n"
                        "# TYPE x_info gauge\n"
                        "x_info{v=\"a\\\\b\\\"c\\nd\"} 1\n"
                        "x_info{v=\"\xef\xbf\xbd-\xef\xbf\xbd\xef\xbf\xbd-\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd-\xc3\xa9\xe2\x82\xac\"} 2\n");
}
END_TEST

START_TEST(test_seconds_exact) {
        Exposition x;

        ck_assert_int_eq(exposition_init(&x), 0);
        exposition_family(&x, "t_seconds", EXPOSITION_GAUGE, "T.");
        exposition_usec(&x, "t_seconds", (const char *[]) { "k", "0", NULL }, 0);
        exposition_usec(&x, "t_seconds", (const char *[]) { "k", "1", NULL }, 1);
        exposition_usec(&x, "t_seconds", (const char *[]) { "k", "2", NULL }, 2500000);
        exposition_usec(&x, "t_seconds", (const char *[]) { "k", "3", NULL }, UINT64_MAX);
        exposition_nsec(&x, "t_seconds", (const char *[]) { "k", "4", NULL }, 200000);
        exposition_double(&x, "t_seconds", (const char *[]) { "k", "5", NULL }, 0.25);
        exposition_double(&x, "t_seconds", (const char *[]) { "k", "6", NULL }, NAN);
        exposition_double(&x, "t_seconds", (const char *[]) { "k", "7", NULL }, -INFINITY);
        assert_text(&x, "# HELP t_seconds T.\n# TYPE t_seconds gauge\n"
                        "t_seconds{k=\"0\"} 0\n"
                        "t_seconds{k=\"1\"} 0.000001\n"
                        "t_seconds{k=\"2\"} 2.5\n"
                        "t_seconds{k=\"3\"} 18446744073709.551615\n"
                        "t_seconds{k=\"4\"} 0.0002\n"
                        "t_seconds{k=\"5\"} 0.25\n"
                        "t_seconds{k=\"6\"} NaN\n"
                        "t_seconds{k=\"7\"} -Inf\n");
}
END_TEST

START_TEST(test_histogram) {
        static const uint64_t bounds[] = { 1000, 10000 };
        Exposition x;
        Histogram h;

        ck_assert_int_eq(histogram_init(&h, bounds, 2), 0);
        histogram_observe(&h, 500);
        histogram_observe(&h, 1000);          /* le is inclusive */
        histogram_observe(&h, 1001);
        histogram_observe(&h, 2000000);
        ck_assert_int_eq(exposition_init(&x), 0);
        exposition_family(&x, "tick_seconds", EXPOSITION_HISTOGRAM, "Ticks.");
        exposition_histogram(&x, "tick_seconds", NULL, &h);
        assert_text(&x, "# HELP tick_seconds Ticks.\n# TYPE tick_seconds histogram\n"
                        "tick_seconds_bucket{le=\"0.001\"} 2\n"
                        "tick_seconds_bucket{le=\"0.01\"} 3\n"
                        "tick_seconds_bucket{le=\"+Inf\"} 4\n"
                        "tick_seconds_sum 2.002501\n"
                        "tick_seconds_count 4\n");
}
END_TEST

START_TEST(test_histogram_labels) {
        static const uint64_t bounds[] = { 1 };
        Exposition x;
        Histogram h;

        ck_assert_int_eq(histogram_init(&h, bounds, 1), 0);
        ck_assert_int_eq(exposition_init(&x), 0);
        exposition_family(&x, "h_seconds", EXPOSITION_HISTOGRAM, "H.");
        exposition_histogram(&x, "h_seconds", (const char *[]) { "cpu", "3", NULL }, &h);
        assert_text(&x, "# HELP h_seconds H.\n# TYPE h_seconds histogram\n"
                        "h_seconds_bucket{cpu=\"3\",le=\"0.000001\"} 0\n"
                        "h_seconds_bucket{cpu=\"3\",le=\"+Inf\"} 0\n"
                        "h_seconds_sum{cpu=\"3\"} 0\n"
                        "h_seconds_count{cpu=\"3\"} 0\n");
}
END_TEST

START_TEST(test_histogram_bad_bounds) {
        static const uint64_t descending[] = { 10, 5 };
        uint64_t many[HISTOGRAM_BOUNDS_MAX + 1];
        Histogram h = { .n_bounds = 7 };

        for (unsigned i = 0; i < ELEMENTSOF(many); i++)
                many[i] = i + 1;
        ck_assert_int_eq(histogram_init(&h, descending, 2), -EINVAL);
        ck_assert_int_eq(histogram_init(&h, many, ELEMENTSOF(many)), -EINVAL);
        ck_assert_uint_eq(h.n_bounds, 7);   /* untouched */
}
END_TEST

/* A bad metric or label name fails the whole exposition. */
static void assert_invalid(const char *family, const char *sample, const char *label) {
        Exposition x;
        char *text = NULL;

        ck_assert_int_eq(exposition_init(&x), 0);
        exposition_family(&x, family, EXPOSITION_GAUGE, "H.");
        exposition_u64(&x, sample, (const char *[]) { label, "v", NULL }, 1);
        ck_assert_int_eq(exposition_finish(&x, &text, NULL), -EINVAL);
        ck_assert_ptr_null(text);
}

START_TEST(test_bad_names) {
        assert_invalid("ok_name", "ok_name", "9label");
        assert_invalid("ok_name", "ok_name", "la-bel");
        assert_invalid("9bad", "ok_name", "label");
        assert_invalid("ok_name", "bad name", "label");
        assert_invalid("ok_name", "recording:rule", "label");
        assert_invalid("", "ok_name", "label");
}
END_TEST

START_TEST(test_done_frees_unfinished) {
        Exposition x;

        ck_assert_int_eq(exposition_init(&x), 0);
        exposition_family(&x, "a", EXPOSITION_GAUGE, "A.");
        exposition_u64(&x, "a", NULL, 1);
        exposition_done(&x);
        exposition_done(&x);                 /* twice is fine */
        ck_assert_ptr_null(x.f);
}
END_TEST

/* OpenMetrics: a counter's family loses "_total" in HELP and TYPE, its
 * samples keep it; a gauge whose name ends in _total (none should, but) is
 * left alone; "# EOF" ends the text. */
START_TEST(test_openmetrics) {
        static const char text[] =
                "# HELP idlepolicy_up 1 while it runs.\n"
                "# TYPE idlepolicy_up gauge\n"
                "idlepolicy_up 1\n"
                "# HELP idlepolicy_writes_total Writes.\n"
                "# TYPE idlepolicy_writes_total counter\n"
                "idlepolicy_writes_total{cpu=\"0\"} 3\n"
                "# HELP odd_total A gauge.\n"
                "# TYPE odd_total gauge\n"
                "odd_total 2\n";
        char *om = NULL;

        ck_assert_int_eq(exposition_to_openmetrics(text, &om), 0);
        ck_assert_str_eq(om, "# HELP idlepolicy_up 1 while it runs.\n"
                             "# TYPE idlepolicy_up gauge\n"
                             "idlepolicy_up 1\n"
                             "# HELP idlepolicy_writes Writes.\n"
                             "# TYPE idlepolicy_writes counter\n"
                             "idlepolicy_writes_total{cpu=\"0\"} 3\n"
                             "# HELP odd_total A gauge.\n"
                             "# TYPE odd_total gauge\n"
                             "odd_total 2\n"
                             "# EOF\n");
        free(om);
        ck_assert_int_eq(exposition_to_openmetrics("", &om), 0);
        ck_assert_str_eq(om, "# EOF\n");
        free(om);
}
END_TEST

int main(void) {
        Suite *s = suite_create("exposition");
        TCase *tc = unit_tcase(s, "core");

        tcase_add_test(tc, test_family_and_samples);
        tcase_add_test(tc, test_family_without_samples_leaves_nothing);
        tcase_add_test(tc, test_escaping);
        tcase_add_test(tc, test_seconds_exact);
        tcase_add_test(tc, test_histogram);
        tcase_add_test(tc, test_histogram_labels);
        tcase_add_test(tc, test_histogram_bad_bounds);
        tcase_add_test(tc, test_bad_names);
        tcase_add_test(tc, test_done_frees_unfinished);
        tcase_add_test(tc, test_openmetrics);
        return unit_run(s);
}
