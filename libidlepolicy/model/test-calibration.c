/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Calibration data: allocation limits, the mis-described rule at its
 * boundaries, the JSON round trip and every kind of bad file. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibration.h"
#include "fileio.h"

#define ck_assert_msg_has(e, needle) \
        ck_assert_msg(strstr((e).message, (needle)), "message \"%s\" lacks \"%s\"", (e).message, (needle))

static void set_state(CalibrationState *s, const char *name, uint32_t adv, uint32_t wakeup) {
        *s = (CalibrationState) {
                .measured = true,
                .advertised_latency_us = adv,
                .wakeup_us = wakeup,
                .wakeup_p99_us = wakeup * 2,
                .timer_late_us = wakeup + 3,
        };
        snprintf(s->name, sizeof(s->name), "%s", name);
}

/* This VM: CPU 0 and 2 with POLL and "haltpoll idle", CPU 1 offline. */
static Calibration *make_vm(void) {
        Calibration *c = NULL;

        ck_assert_int_eq(calibration_new(3, &c), 0);
        c->realtime_usec = 1700000000123456ull;
        snprintf(c->driver, sizeof(c->driver), "haltpoll");
        for (unsigned i = 0; i < 3; i += 2) {
                c->cpus[i].n_states = 2;
                set_state(&c->cpus[i].states[0], "POLL", 0, 0);
                set_state(&c->cpus[i].states[1], "haltpoll idle", 1, 40 + i);
        }
        return c;
}

START_TEST(test_new_limits) {
        Calibration *c = (Calibration *) 0x1;

        ck_assert_int_eq(calibration_new(0, &c), -EINVAL);
        ck_assert_int_eq(calibration_new(CALIBRATION_CPUS_MAX + 1, &c), -EINVAL);
        ck_assert_ptr_eq(c, (Calibration *) 0x1);
        ck_assert_int_eq(calibration_new(CALIBRATION_CPUS_MAX, &c), 0);
        ck_assert_uint_eq(c->n_cpus, CALIBRATION_CPUS_MAX);
        ck_assert_uint_eq(c->cpus[CALIBRATION_CPUS_MAX - 1].n_states, 0);
        ck_assert_ptr_null(calibration_free(c));
        ck_assert_ptr_null(calibration_free(NULL));
}
END_TEST

typedef struct JudgeCase {
        bool measured;
        uint32_t advertised, wakeup;
        bool misdescribed;
} JudgeCase;

static const JudgeCase judge_cases[] = {
        { true, 1, 14, false },                 /* 4 × 1 + 10 = 14: not above */
        { true, 1, 15, true },
        { true, 0, 10, false },
        { true, 0, 11, true },
        { true, 100, 410, false },
        { true, 100, 411, true },
        { true, UINT32_MAX, UINT32_MAX, false }, /* no overflow */
        { true, 0, UINT32_MAX, true },
        { false, 1, 1000, false },               /* not measured: never judged */
};

START_TEST(test_judge) {
        const JudgeCase *jc = &judge_cases[_i];
        _cleanup_calibration_ Calibration *c = NULL;

        ck_assert_int_eq(calibration_new(1, &c), 0);
        c->cpus[0].n_states = 1;
        set_state(&c->cpus[0].states[0], "C1", jc->advertised, jc->wakeup);
        c->cpus[0].states[0].measured = jc->measured;
        c->cpus[0].states[0].misdescribed = !jc->misdescribed;
        ck_assert_uint_eq(calibration_judge(c), jc->misdescribed ? 1 : 0);
        ck_assert(c->cpus[0].states[0].misdescribed == jc->misdescribed);
}
END_TEST

START_TEST(test_judge_vm) {
        _cleanup_calibration_ Calibration *c = make_vm();

        ck_assert_uint_eq(calibration_judge(c), 2);
        ck_assert(!c->cpus[0].states[0].misdescribed);
        ck_assert(c->cpus[0].states[1].misdescribed);
        ck_assert(c->cpus[2].states[1].misdescribed);
}
END_TEST

START_TEST(test_round_trip) {
        _cleanup_calibration_ Calibration *c = make_vm(), *back = NULL;
        _cleanup_free_ char *text = NULL, *again = NULL;
        ErrorInfo e = {};

        (void) calibration_judge(c);
        c->cpus[2].states[0].measured = false;
        ck_assert_int_eq(calibration_to_json(c, &text), 0);
        ck_assert_int_eq(calibration_parse(text, "calibration.json", &back, &e), 0);
        ck_assert_uint_eq(back->n_cpus, 3);
        ck_assert_uint_eq(back->realtime_usec, c->realtime_usec);
        ck_assert_str_eq(back->driver, "haltpoll");
        for (unsigned i = 0; i < 3; i++) {
                ck_assert_uint_eq(back->cpus[i].n_states, c->cpus[i].n_states);
                for (unsigned k = 0; k < c->cpus[i].n_states; k++)
                        ck_assert_mem_eq(&back->cpus[i].states[k], &c->cpus[i].states[k], sizeof(CalibrationState));
        }
        ck_assert_int_eq(calibration_to_json(back, &again), 0);
        ck_assert_str_eq(text, again);
}
END_TEST

START_TEST(test_too_many_states) {
        _cleanup_calibration_ Calibration *c = make_vm();
        char *text = (char *) 0x1;

        c->cpus[0].n_states = CALIBRATION_STATES_MAX + 1;
        ck_assert_int_eq(calibration_to_json(c, &text), -EINVAL);
        ck_assert_ptr_eq(text, (char *) 0x1);
}
END_TEST

/* A valid file with one thing replaced: PREFIX, CPU and STATE are spliced. */
#define STATE_OK "\"name\": \"POLL\", \"measured\": true, \"advertised_latency_us\": 0, \"wakeup_us\": 0," \
                 " \"wakeup_p99_us\": 1, \"timer_late_us\": 5, \"misdescribed\": false"
#define FILE_WITH_STATE(state) \
        "{\"version\": 1, \"realtime_usec\": 5, \"driver\": \"haltpoll\", \"cpus\": [{\"cpu\": 0, \"states\": [{" state "}]}]}"
#define FILE_WITH_CPU(cpu) "{\"version\": 1, \"realtime_usec\": 5, \"driver\": \"haltpoll\", \"cpus\": [" cpu "]}"
#define FILE_WITH_TOP(top) "{" top "}"

typedef struct BadCase {
        const char *text;
        const char *needle;
} BadCase;

static const BadCase bad_cases[] = {
        { "", "cal.json:1:" },
        { "{\"version\": 1,}", "cal.json:1:" },
        { "{\"version\": 1, \"version\": 1}", "cal.json:1:" },
        { "[]", "cal.json: the top level must be a JSON object" },
        { FILE_WITH_TOP("\"version\": 1, \"realtime_usec\": 5, \"driver\": \"x\", \"cpus\": [], \"extra\": 1"),
          "cal.json: key \"extra\": unknown key" },
        { FILE_WITH_TOP("\"realtime_usec\": 5, \"driver\": \"x\", \"cpus\": []"), "key \"version\": missing" },
        { FILE_WITH_TOP("\"version\": 1, \"driver\": \"x\", \"cpus\": []"), "key \"realtime_usec\": missing" },
        { FILE_WITH_TOP("\"version\": 1, \"realtime_usec\": 5, \"cpus\": []"), "key \"driver\": missing" },
        { FILE_WITH_TOP("\"version\": 1, \"realtime_usec\": 5, \"driver\": \"x\""), "key \"cpus\": missing" },
        { FILE_WITH_TOP("\"version\": 2, \"realtime_usec\": 5, \"driver\": \"x\", \"cpus\": []"), "key \"version\": must be 1" },
        { FILE_WITH_TOP("\"version\": \"1\", \"realtime_usec\": 5, \"driver\": \"x\", \"cpus\": []"), "key \"version\"" },
        { FILE_WITH_TOP("\"version\": 1, \"realtime_usec\": -5, \"driver\": \"x\", \"cpus\": [{}]"), "key \"realtime_usec\"" },
        { FILE_WITH_TOP("\"version\": 1, \"realtime_usec\": 1.5, \"driver\": \"x\", \"cpus\": [{}]"), "key \"realtime_usec\"" },
        { FILE_WITH_TOP("\"version\": 1, \"realtime_usec\": 5, \"driver\": 3, \"cpus\": [{}]"), "key \"driver\"" },
        { FILE_WITH_TOP("\"version\": 1, \"realtime_usec\": 5, \"driver\": \"a\\nb\", \"cpus\": [{}]"), "key \"driver\"" },
        { FILE_WITH_TOP("\"version\": 1, \"realtime_usec\": 5, \"driver\": \"a\\u0000b\", \"cpus\": [{}]"), "cal.json:1:55: parse error" },
        { FILE_WITH_TOP("\"version\": 1, \"realtime_usec\": 5, \"driver\": "
                        "\"0123456789012345678901234567890123456789012345678901234567890123\", \"cpus\": [{}]"), "key \"driver\"" },
        { FILE_WITH_TOP("\"version\": 1, \"realtime_usec\": 5, \"driver\": \"x\", \"cpus\": []"), "key \"cpus\": must be a list" },
        { FILE_WITH_TOP("\"version\": 1, \"realtime_usec\": 5, \"driver\": \"x\", \"cpus\": {}"), "key \"cpus\": must be a list" },
        { FILE_WITH_CPU("3"), "key \"cpus[0]\": must be an object" },
        { FILE_WITH_CPU("{\"states\": []}"), "key \"cpus[0].cpu\": missing" },
        { FILE_WITH_CPU("{\"cpu\": 1, \"states\": []}"), "key \"cpus[0].cpu\": must be the entry's index" },
        { FILE_WITH_CPU("{\"cpu\": 0, \"states\": []}, {\"cpu\": 0, \"states\": []}"), "key \"cpus[1].cpu\"" },
        { FILE_WITH_CPU("{\"cpu\": \"0\", \"states\": []}"), "key \"cpus[0].cpu\"" },
        { FILE_WITH_CPU("{\"cpu\": 0}"), "key \"cpus[0].states\": missing" },
        { FILE_WITH_CPU("{\"cpu\": 0, \"states\": {}}"), "key \"cpus[0].states\": must be a list" },
        { FILE_WITH_CPU("{\"cpu\": 0, \"states\": [], \"colour\": 1}"), "key \"cpus[0].colour\": unknown key" },
        { FILE_WITH_CPU("{\"cpu\": 0, \"states\": [{},{},{},{},{},{},{},{},{},{},{}]}"),
          "key \"cpus[0].states\": must be a list of at most 10" },
        { FILE_WITH_CPU("{\"cpu\": 0, \"states\": [1]}"), "key \"cpus[0].states[0]\": must be an object" },
        { FILE_WITH_CPU("{\"cpu\": 0, \"states\": [{" STATE_OK "}, {" STATE_OK "}]}"),
          "key \"cpus[0].states[1].name\": duplicate state name" },
        { FILE_WITH_STATE(STATE_OK ", \"colour\": 1"), "key \"cpus[0].states[0].colour\": unknown key" },
        { FILE_WITH_STATE("\"measured\": true, \"advertised_latency_us\": 0, \"wakeup_us\": 0,"
                          " \"wakeup_p99_us\": 1, \"timer_late_us\": 5, \"misdescribed\": false"),
          "key \"cpus[0].states[0].name\": missing" },
        { FILE_WITH_STATE("\"name\": \"POLL\", \"measured\": true, \"advertised_latency_us\": 0,"
                          " \"wakeup_p99_us\": 1, \"timer_late_us\": 5, \"misdescribed\": false"),
          "key \"cpus[0].states[0].wakeup_us\": missing" },
        { FILE_WITH_STATE("\"name\": \"POLL\", \"measured\": true, \"advertised_latency_us\": 0, \"wakeup_us\": 0,"
                          " \"wakeup_p99_us\": 1, \"timer_late_us\": 5"),
          "key \"cpus[0].states[0].misdescribed\": missing" },
        { FILE_WITH_STATE("\"name\": \"\", \"measured\": true"), "key \"cpus[0].states[0].name\": must be a string" },
        { FILE_WITH_STATE("\"name\": 7"), "key \"cpus[0].states[0].name\"" },
        { FILE_WITH_STATE("\"name\": \"tab\\there\""), "key \"cpus[0].states[0].name\"" },
        { FILE_WITH_STATE("\"name\": \"0123456789012345678901234567890123\""), "key \"cpus[0].states[0].name\"" },
        { FILE_WITH_STATE("\"name\": \"POLL\", \"measured\": 1"), "key \"cpus[0].states[0].measured\": must be true or false" },
        { FILE_WITH_STATE("\"name\": \"POLL\", \"misdescribed\": \"no\""), "key \"cpus[0].states[0].misdescribed\"" },
        { FILE_WITH_STATE("\"name\": \"POLL\", \"wakeup_us\": -1"), "key \"cpus[0].states[0].wakeup_us\": must be an integer" },
        { FILE_WITH_STATE("\"name\": \"POLL\", \"wakeup_us\": 4294967296"), "key \"cpus[0].states[0].wakeup_us\"" },
        { FILE_WITH_STATE("\"name\": \"POLL\", \"wakeup_p99_us\": 2.5"), "key \"cpus[0].states[0].wakeup_p99_us\"" },
        { FILE_WITH_STATE("\"name\": \"POLL\", \"timer_late_us\": null"), "key \"cpus[0].states[0].timer_late_us\"" },
        { FILE_WITH_STATE("\"name\": \"POLL\", \"advertised_latency_us\": \"1\""),
          "key \"cpus[0].states[0].advertised_latency_us\"" },
};

START_TEST(test_bad_files) {
        const BadCase *bc = &bad_cases[_i];
        Calibration *c = (Calibration *) 0x1;
        ErrorInfo e = {};

        ck_assert_int_eq(calibration_parse(bc->text, "cal.json", &c, &e), -EINVAL);
        ck_assert_msg_has(e, bc->needle);
        ck_assert_ptr_eq(c, (Calibration *) 0x1);
}
END_TEST

START_TEST(test_minimal_and_names) {
        _cleanup_calibration_ Calibration *c = NULL;
        Calibration *untouched = (Calibration *) 0x1;
        ErrorInfo e = {};

        ck_assert_int_eq(calibration_parse(FILE_WITH_STATE(STATE_OK), "cal.json", &c, &e), 0);
        ck_assert_uint_eq(c->n_cpus, 1);
        ck_assert_uint_eq(c->cpus[0].n_states, 1);
        ck_assert_str_eq(c->cpus[0].states[0].name, "POLL");
        ck_assert_uint_eq(c->cpus[0].states[0].timer_late_us, 5);
        ck_assert_int_eq(calibration_parse(NULL, "cal.json", &untouched, &e), -EINVAL);
        ck_assert_msg_has(e, "cal.json: no text");
        ck_assert_int_eq(calibration_parse("[]", NULL, &untouched, &e), -EINVAL);
        ck_assert_msg_has(e, "(calibration): the top level");
        ck_assert_int_eq(calibration_parse("[]", NULL, &untouched, NULL), -EINVAL);
        ck_assert_ptr_eq(untouched, (Calibration *) 0x1);
}
END_TEST

static Suite *calibration_suite(void) {
        Suite *s = suite_create("calibration");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_new_limits);
        tcase_add_loop_test(tc, test_judge, 0, (int) (sizeof(judge_cases) / sizeof(judge_cases[0])));
        tcase_add_test(tc, test_judge_vm);
        tcase_add_test(tc, test_round_trip);
        tcase_add_test(tc, test_too_many_states);
        tcase_add_loop_test(tc, test_bad_files, 0, (int) (sizeof(bad_cases) / sizeof(bad_cases[0])));
        tcase_add_test(tc, test_minimal_and_names);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(calibration_suite());
        int failed;

        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
