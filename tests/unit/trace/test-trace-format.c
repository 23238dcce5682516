/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-format.h"

#define HEADER \
        "# idlepolicy-trace 1\n" \
        "# recorded 3.000 s, 2 cpus, driver haltpoll\n" \
        "# state 0 0 0 POLL\n" \
        "# state 1 1 1 haltpoll idle\n" \
        "# cpu 0 source cpu_idle\n" \
        "# cpu 1 source irq-bounded\n" \
        "cpu,start_ns,duration_ns,state,sleep_length_ns,wake,miss\n"

#define VALID HEADER \
        "0,1000,500,1,4000,timer,none\n" \
        "1,1200,80,-1,-,other,unknown\n" \
        "0,2000,30,0,100,unknown,above\n" \
        "# end 3\n"

/* Parses text.  Returns trace_read()'s result; *ret set on success. */
static int read_text(const char *text, Trace **ret, ErrorInfo *e) {
        FILE *f = fmemopen((void *) text, strlen(text), "r");
        int r;

        ck_assert_ptr_nonnull(f);
        r = trace_read(f, ret, e);
        fclose(f);
        return r;
}

/* Writes t into a new string (to be freed). */
static char *write_text(const Trace *t) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);

        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(trace_write(f, t), 0);
        fclose(f);
        return buf;
}

static void assert_interval_eq(const IdleInterval *a, const IdleInterval *b) {
        ck_assert_uint_eq(a->cpu, b->cpu);
        ck_assert_uint_eq(a->start_ns, b->start_ns);
        ck_assert_uint_eq(a->duration_ns, b->duration_ns);
        ck_assert_int_eq(a->state, b->state);
        ck_assert_uint_eq(a->sleep_length_ns, b->sleep_length_ns);
        ck_assert_int_eq(a->wake, b->wake);
        ck_assert_int_eq(a->miss, b->miss);
}

START_TEST(test_round_trip) {
        _cleanup_trace_ Trace *t = NULL, *back = NULL;
        ErrorInfo e = { "" };

        ck_assert_int_eq(trace_new(2, &t), 0);
        t->header.seconds = 2.5;
        strcpy(t->header.driver, "intel_idle");
        t->header.n_states = 2;
        t->header.states[0] = (TraceStateInfo) { "POLL", 0, 0 };
        t->header.states[1] = (TraceStateInfo) { "C1E", 10, 20 };
        t->header.sources[0] = TRACE_SOURCE_CPU_IDLE;
        t->header.sources[1] = TRACE_SOURCE_NONE;
        IdleInterval rows[] = {
                { 0, 100, 50, 1, 70, TRACE_WAKE_TIMER, TRACE_MISS_NONE },
                { 0, 200, 18446744073709000000ull, -1, TRACE_SLEEP_UNKNOWN, TRACE_WAKE_UNKNOWN, TRACE_MISS_BELOW },
        };
        t->intervals = malloc(sizeof(rows));
        memcpy(t->intervals, rows, sizeof(rows));
        t->n_intervals = 2;

        char *text = write_text(t);
        ck_assert_int_eq(read_text(text, &back, &e), 0);
        ck_assert_uint_eq(back->header.version, 1);
        ck_assert_double_eq_tol(back->header.seconds, 2.5, 1e-9);
        ck_assert_str_eq(back->header.driver, "intel_idle");
        ck_assert_uint_eq(back->header.n_states, 2);
        ck_assert_str_eq(back->header.states[1].name, "C1E");
        ck_assert_uint_eq(back->header.states[1].exit_latency_us, 10);
        ck_assert_uint_eq(back->header.states[1].target_residency_us, 20);
        ck_assert_uint_eq(back->header.n_cpus, 2);
        ck_assert_int_eq(back->header.sources[0], TRACE_SOURCE_CPU_IDLE);
        ck_assert_int_eq(back->header.sources[1], TRACE_SOURCE_NONE);
        ck_assert_uint_eq(back->n_intervals, 2);
        for (size_t i = 0; i < 2; i++)
                assert_interval_eq(&back->intervals[i], &rows[i]);

        char *again = write_text(back);
        ck_assert_str_eq(again, text);
        free(again);
        free(text);
}
END_TEST

START_TEST(test_valid_text) {
        _cleanup_trace_ Trace *t = NULL;
        ErrorInfo e = { "" };

        ck_assert_int_eq(read_text(VALID, &t, &e), 0);
        ck_assert_str_eq(t->header.driver, "haltpoll");
        ck_assert_str_eq(t->header.states[1].name, "haltpoll idle");
        ck_assert_int_eq(t->header.sources[1], TRACE_SOURCE_IRQ_BOUNDED);
        ck_assert_uint_eq(t->n_intervals, 3);
        /* sorted by start: the cpu 1 row comes second */
        ck_assert_uint_eq(t->intervals[1].cpu, 1);
        ck_assert_int_eq(t->intervals[1].state, -1);
        ck_assert_uint_eq(t->intervals[1].sleep_length_ns, TRACE_SLEEP_UNKNOWN);
        ck_assert_int_eq(t->intervals[1].wake, TRACE_WAKE_OTHER);
        ck_assert_int_eq(t->intervals[1].miss, TRACE_MISS_UNKNOWN);
        ck_assert_int_eq(t->intervals[2].miss, TRACE_MISS_ABOVE);
        ck_assert_int_eq(t->intervals[2].wake, TRACE_WAKE_UNKNOWN);
}
END_TEST

typedef struct BadCase {
        const char *text;
        const char *message;    /* must be contained in the error */
} BadCase;

static const BadCase bad_cases[] = {
        { "", "line 1: truncated" },
        { "hello\n", "line 1: not an idlepolicy trace" },
        { "# idlepolicy-trace x\n", "line 1: not an idlepolicy trace" },
        { "# idlepolicy-trace 1\n# recorded 3 s, 0 cpus, driver x\n", "line 2: malformed header" },
        { "# idlepolicy-trace 1\n# recorded -1 s, 1 cpus, driver x\n", "line 2: malformed header" },
        { "# idlepolicy-trace 1\n# recorded 1 s, 1 cpus, driver \n", "line 2: malformed header" },
        { "# idlepolicy-trace 1\n# recorded 1 s, 1 cpus, driver x\n# state 1 1 1 C1\n", "line 3: malformed header" },
        { "# idlepolicy-trace 1\n# recorded 1 s, 1 cpus, driver x\n# cpu 1 source none\n", "line 3: malformed header" },
        { "# idlepolicy-trace 1\n# recorded 1 s, 1 cpus, driver x\n# cpu 0 source maybe\n", "line 3: malformed header" },
        { "# idlepolicy-trace 1\n# recorded 1 s, 1 cpus, driver x\n# cpu 0 source none\n# cpu 0 source none\n",
          "line 4: malformed header" },
        { "# idlepolicy-trace 1\n# recorded 1 s, 2 cpus, driver x\n# cpu 0 source none\n"
          "cpu,start_ns,duration_ns,state,sleep_length_ns,wake,miss\n", "line 4: no \"# cpu 1 source" },
        { "# idlepolicy-trace 1\ncpu,start_ns,duration_ns,state,sleep_length_ns,wake,miss\n", "line 2: column line before" },
        { "# idlepolicy-trace 1\n# recorded 1 s, 1 cpus, driver x\n# cpu 0 source none\ncpu,start\n",
          "line 4: expected a \"# \" header line" },
        { HEADER "0,1,2,1,3,timer\n# end 1\n", "line 8: expected 7 comma-separated fields" },
        { HEADER "0,1,2,1,3,timer,none,x\n# end 1\n", "line 8: expected 7" },
        { HEADER "2,1,2,1,3,timer,none\n# end 1\n", "line 8: cpu: invalid value \"2\"" },
        { HEADER "0,-1,2,1,3,timer,none\n# end 1\n", "line 8: start_ns: invalid" },
        { HEADER "0,1,abc,1,3,timer,none\n# end 1\n", "line 8: duration_ns: invalid value \"abc\"" },
        { HEADER "0,18446744073709551615,2,1,3,timer,none\n# end 1\n", "line 8: duration_ns: invalid" },
        { HEADER "0,1,2,2,3,timer,none\n# end 1\n", "line 8: state: invalid value \"2\"" },
        { HEADER "0,1,2,-2,3,timer,none\n# end 1\n", "line 8: state: invalid" },
        { HEADER "0,1,2,1,-5,timer,none\n# end 1\n", "line 8: sleep_length_ns: invalid" },
        { HEADER "0,1,2,1, 3,timer,none\n# end 1\n", "line 8: sleep_length_ns: invalid" },
        { HEADER "0,1,2,1,3,alarm,none\n# end 1\n", "line 8: wake: invalid value \"alarm\"" },
        { HEADER "0,1,2,1,3,timer,Above\n# end 1\n", "line 8: miss: invalid" },
        { HEADER "0,1,2,1,3,timer,none\n\n# end 1\n", "line 9: expected 7" },
        { HEADER "0,1,2,1,3,timer,none\n# end 2\n", "line 9: trailer says 2 rows, found 1" },
        { HEADER "0,1,2,1,3,timer,none\n# end x\n", "line 9: malformed \"# end" },
        { HEADER "0,1,2,1,3,timer,none\n# end 1\n0,1,2,1,3,timer,none\n", "line 10: data after" },
        { HEADER "0,1,2,1,3,timer,none\n", "line 9: truncated: missing \"# end" },
        { HEADER "0,1,2,1,3,timer,no", "line 8: truncated (no newline" },
};

START_TEST(test_malformed) {
        const BadCase *c = &bad_cases[_i];
        Trace *t = NULL;
        ErrorInfo e = { "" };

        ck_assert_int_eq(read_text(c->text, &t, &e), -EBADMSG);
        ck_assert_ptr_null(t);
        ck_assert_msg(strstr(e.message, c->message), "case %d: \"%s\" lacks \"%s\"", _i, e.message, c->message);
}
END_TEST

START_TEST(test_newer_version) {
        Trace *t = NULL;
        ErrorInfo e = { "" };

        ck_assert_int_eq(read_text("# idlepolicy-trace 2\n", &t, &e), -EPROTONOSUPPORT);
        ck_assert_ptr_null(t);
        ck_assert_ptr_nonnull(strstr(e.message, "line 1: trace format version 2"));
}
END_TEST

/* Every proper prefix of a valid trace is rejected with a line number. */
START_TEST(test_truncated) {
        size_t len = strlen(VALID);

        for (size_t n = 0; n < len; n++) {
                char *cut = strndup(VALID, n);
                Trace *t = NULL;
                ErrorInfo e = { "" };

                ck_assert_msg(read_text(cut, &t, &e) == -EBADMSG, "prefix of %zu bytes accepted", n);
                ck_assert_ptr_nonnull(strstr(e.message, "line "));
                free(cut);
        }
}
END_TEST

START_TEST(test_unsorted) {
        _cleanup_trace_ Trace *t = NULL;
        ErrorInfo e = { "" };

        ck_assert_int_eq(read_text(HEADER
                                   "1,500,1,-1,-,other,unknown\n"
                                   "0,500,1,1,-,other,none\n"
                                   "0,100,1,1,-,other,none\n"
                                   "1,300,1,-1,-,other,unknown\n"
                                   "# end 4\n", &t, &e), 0);
        ck_assert_uint_eq(t->n_intervals, 4);
        ck_assert_uint_eq(t->intervals[0].start_ns, 100);
        ck_assert_uint_eq(t->intervals[1].start_ns, 300);
        ck_assert_uint_eq(t->intervals[2].start_ns, 500);
        ck_assert_uint_eq(t->intervals[2].cpu, 0);
        ck_assert_uint_eq(t->intervals[3].cpu, 1);
}
END_TEST

START_TEST(test_cpu_without_intervals) {
        _cleanup_trace_ Trace *t = NULL;
        ErrorInfo e = { "" };

        ck_assert_int_eq(read_text("# idlepolicy-trace 1\n"
                                   "# recorded 1.000 s, 3 cpus, driver none\n"
                                   "# cpu 0 source cpu_idle\n"
                                   "# note: lines like this one are ignored\n"
                                   "# cpu 2 source cpu_idle\n"
                                   "# cpu 1 source none\n"
                                   "cpu,start_ns,duration_ns,state,sleep_length_ns,wake,miss\n"
                                   "2,7,1,-1,5,timer,none\n"
                                   "0,9,1,-1,5,timer,none\n"
                                   "# end 2\n", &t, &e), 0);
        ck_assert_uint_eq(t->header.n_cpus, 3);
        ck_assert_uint_eq(t->header.n_states, 0);
        ck_assert_int_eq(t->header.sources[1], TRACE_SOURCE_NONE);
        ck_assert_uint_eq(t->n_intervals, 2);
        for (size_t i = 0; i < t->n_intervals; i++)
                ck_assert_uint_ne(t->intervals[i].cpu, 1);

        /* an empty trace is a trace too */
        _cleanup_trace_ Trace *empty = NULL;
        ck_assert_int_eq(read_text("# idlepolicy-trace 1\n# recorded 0.000 s, 1 cpus, driver none\n"
                                   "# cpu 0 source none\ncpu,start_ns,duration_ns,state,sleep_length_ns,wake,miss\n"
                                   "# end 0\n", &empty, &e), 0);
        ck_assert_uint_eq(empty->n_intervals, 0);
}
END_TEST

START_TEST(test_write_rejects) {
        _cleanup_trace_ Trace *t = NULL;
        FILE *f = fopen("/dev/null", "w");

        ck_assert_int_eq(trace_new(1, &t), 0);
        strcpy(t->header.driver, "bad\nname");
        ck_assert_int_eq(trace_write(f, t), -EINVAL);
        strcpy(t->header.driver, "");
        t->header.sources[0] = (TraceSource) 7;
        ck_assert_int_eq(trace_write(f, t), -EINVAL);
        fclose(f);
        ck_assert_str_eq(trace_wake_to_string(TRACE_WAKE_TIMER), "timer");
        ck_assert_str_eq(trace_miss_to_string(TRACE_MISS_BELOW), "below");
        ck_assert_str_eq(trace_source_to_string(TRACE_SOURCE_IRQ_BOUNDED), "irq-bounded");
        ck_assert_ptr_null(trace_source_to_string((TraceSource) 9));
        ck_assert_ptr_null(trace_free(NULL));
}
END_TEST

static Suite *trace_format_suite(void) {
        Suite *s = suite_create("trace-format");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_round_trip);
        tcase_add_test(tc, test_valid_text);
        tcase_add_loop_test(tc, test_malformed, 0, (int) (sizeof(bad_cases) / sizeof(bad_cases[0])));
        tcase_add_test(tc, test_newer_version);
        tcase_add_test(tc, test_truncated);
        tcase_add_test(tc, test_unsorted);
        tcase_add_test(tc, test_cpu_without_intervals);
        tcase_add_test(tc, test_write_rejects);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(trace_format_suite());
        int failed;

        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
