/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Calibration data: allocation limits, the mis-described rule at its
 * boundaries, the entry cost and break-even residency derived from the
 * idle-duration curve, the JSON round trip (with files from before the
 * curve) and every kind of bad file. */
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
        /* CPU 2's halt as measured here: cheaper after a short idle */
        c->cpus[2].states[1].n_curve = 4;
        memcpy(c->cpus[2].states[1].curve,
               (CalibrationPoint[]) { { 5, 17 }, { 100, 21 }, { 1000, -3 }, { UINT32_MAX, 1000000 } },
               4 * sizeof(CalibrationPoint));
        c->cpus[2].states[1].entry_us = 0;
        c->cpus[2].states[1].residency_us = 500;
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

/* ---- the curve ----------------------------------------------------------- */

typedef struct DeriveCase {
        const char *what;
        unsigned n;
        CalibrationPoint curve[CALIBRATION_CURVE_MAX];
        uint32_t entry_us, residency_us;
} DeriveCase;

#define IDLE_9(a, b, c, d, e, f, g, h, i) \
        { { 2, a }, { 5, b }, { 10, c }, { 20, d }, { 50, e }, { 100, f }, { 200, g }, { 500, h }, { 1000, i } }

static const DeriveCase derive_cases[] = {
        { "too few points", 2, { { 5, 90 }, { 1000, 40 } }, 0, 0 },
        { "hardware-like: dearer while entering, flat from 50 µs", 9, IDLE_9(70, 70, 65, 55, 42, 40, 41, 39, 40), 30, 50 },
        { "flat from the first point: no knee", 9, IDLE_9(40, 41, 39, 40, 42, 40, 38, 40, 40), 0, 0 },
        { "this VM (haltpoll, 2025): cheaper short, still rising", 9, IDLE_9(6, 14, 19, 19, 22, 22, 25, 34, 31), 0, 0 },
        { "this VM, a calmer run: cheaper short, flat from 200 µs", 9, IDLE_9(7, 14, 16, 17, 16, 17, 33, 34, 35), 0, 200 },
        { "a tail of two points is not enough", 9, IDLE_9(60, 60, 60, 60, 60, 60, 60, 40, 40), 20, 0 },
        { "a tail of three is", 9, IDLE_9(60, 60, 60, 60, 60, 60, 40, 40, 40), 20, 200 },
        { "within 3 µs is flat", 9, IDLE_9(3, 3, 3, 3, 3, 3, 3, 0, 0), 0, 0 },
        { "4 µs is not", 9, IDLE_9(4, 4, 4, 4, 4, 4, 0, 0, 0), 4, 200 },
        { "a tenth of a large settled penalty is flat", 9, IDLE_9(110, 110, 110, 110, 110, 110, 110, 100, 100), 0, 0 },
        { "negative penalties", 9, IDLE_9(-10, -10, -10, -10, 0, 0, 0, 0, 0), 0, 50 },
        { "extremes do not overflow", 3, { { 1, 1000000 }, { 2, -1000000 }, { 3, -1000000 } }, 2000000, 0 },
};

START_TEST(test_curve_derive) {
        const DeriveCase *dc = &derive_cases[_i];
        uint32_t entry = 7, residency = 7;

        calibration_curve_derive(dc->curve, dc->n, &entry, &residency);
        ck_assert_msg(entry == dc->entry_us && residency == dc->residency_us, "%s: entry %u (expected %u), residency %u (expected %u)",
                      dc->what, entry, dc->entry_us, residency, dc->residency_us);
}
END_TEST

START_TEST(test_penalty_and_breakeven) {
        _cleanup_calibration_ Calibration *c = make_vm();
        CalibrationState *s = &c->cpus[2].states[1];
        int32_t p = 7;

        ck_assert_int_eq(calibration_penalty_us(s, 1, &p), 0);
        ck_assert_int_eq(p, 17);                         /* before the first point: its value */
        ck_assert_int_eq(calibration_penalty_us(s, 5, &p), 0);
        ck_assert_int_eq(p, 17);
        ck_assert_int_eq(calibration_penalty_us(s, 50, &p), 0);
        ck_assert_int_eq(p, 18);                         /* 17 + 4 × 45/95, truncated */
        ck_assert_int_eq(calibration_penalty_us(s, 550, &p), 0);
        ck_assert_int_eq(p, 9);                          /* halfway from 21 to -3 */
        ck_assert_int_eq(calibration_penalty_us(s, UINT32_MAX - 1, &p), 0);
        ck_assert_int_eq(p, 999999);                     /* no overflow */
        ck_assert_int_eq(calibration_penalty_us(s, UINT32_MAX, &p), 0);
        ck_assert_int_eq(p, 1000000);
        p = 7;
        ck_assert_int_eq(calibration_penalty_us(&c->cpus[0].states[1], 50, &p), -ENODATA);
        s->measured = false;
        ck_assert_int_eq(calibration_penalty_us(s, 50, &p), -ENODATA);
        ck_assert_int_eq(p, 7);

        /* the measured residency only ever raises the advertised one */
        ck_assert_uint_eq(calibration_breakeven_us(s, 1), 0);     /* not measured */
        s->measured = true;
        ck_assert_uint_eq(calibration_breakeven_us(s, 1), 500);
        ck_assert_uint_eq(calibration_breakeven_us(s, 800), 800);
        ck_assert_uint_eq(calibration_breakeven_us(&c->cpus[2].states[0], 1), 0);   /* none measured */
        ck_assert_uint_eq(calibration_breakeven_us(NULL, 1), 0);
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
        /* the sweep's keys: optional, but checked when present */
        { FILE_WITH_STATE(STATE_OK ", \"entry_us\": -1"), "cal.json: key \"cpus[0].states[0].entry_us\": must be an integer" },
        { FILE_WITH_STATE(STATE_OK ", \"entry_us\": 4294967296"), "key \"cpus[0].states[0].entry_us\"" },
        { FILE_WITH_STATE(STATE_OK ", \"entry_us\": 1.5"), "key \"cpus[0].states[0].entry_us\"" },
        { FILE_WITH_STATE(STATE_OK ", \"entry_us\": null"), "key \"cpus[0].states[0].entry_us\"" },
        { FILE_WITH_STATE(STATE_OK ", \"residency_us\": -3"),
          "cal.json: key \"cpus[0].states[0].residency_us\": must be an integer" },
        { FILE_WITH_STATE(STATE_OK ", \"residency_us\": \"500\""), "key \"cpus[0].states[0].residency_us\"" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": {}"), "cal.json: key \"cpus[0].states[0].curve\": must be a list of at most 16" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [{\"idle_us\": 1, \"penalty_us\": 0}, {\"idle_us\": 2, \"penalty_us\": 0},"
                          "{\"idle_us\": 3, \"penalty_us\": 0}, {\"idle_us\": 4, \"penalty_us\": 0}, {\"idle_us\": 5, \"penalty_us\": 0},"
                          "{\"idle_us\": 6, \"penalty_us\": 0}, {\"idle_us\": 7, \"penalty_us\": 0}, {\"idle_us\": 8, \"penalty_us\": 0},"
                          "{\"idle_us\": 9, \"penalty_us\": 0}, {\"idle_us\": 10, \"penalty_us\": 0}, {\"idle_us\": 11, \"penalty_us\": 0},"
                          "{\"idle_us\": 12, \"penalty_us\": 0}, {\"idle_us\": 13, \"penalty_us\": 0}, {\"idle_us\": 14, \"penalty_us\": 0},"
                          "{\"idle_us\": 15, \"penalty_us\": 0}, {\"idle_us\": 16, \"penalty_us\": 0}, {\"idle_us\": 17, \"penalty_us\": 0}]"),
          "key \"cpus[0].states[0].curve\": must be a list of at most 16" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [7]"), "cal.json: key \"cpus[0].states[0].curve[0]\": must be an object" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [{\"idle_us\": 5, \"penalty_us\": 1, \"p99\": 2}]"),
          "key \"cpus[0].states[0].curve[0].p99\": unknown key" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [{\"penalty_us\": 1}]"), "key \"cpus[0].states[0].curve[0].idle_us\": missing" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [{\"idle_us\": 5}]"), "key \"cpus[0].states[0].curve[0].penalty_us\": missing" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [{\"idle_us\": 0, \"penalty_us\": 1}]"),
          "key \"cpus[0].states[0].curve[0].idle_us\": must be an integer between 1 and 4294967295" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [{\"idle_us\": 4294967296, \"penalty_us\": 1}]"),
          "key \"cpus[0].states[0].curve[0].idle_us\"" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [{\"idle_us\": \"5\", \"penalty_us\": 1}]"),
          "key \"cpus[0].states[0].curve[0].idle_us\"" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [{\"idle_us\": 5, \"penalty_us\": 1}, {\"idle_us\": 5, \"penalty_us\": 1}]"),
          "key \"cpus[0].states[0].curve[1].idle_us\": must be an integer between 1 and 4294967295 (µs), above the previous" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [{\"idle_us\": 5, \"penalty_us\": 1}, {\"idle_us\": 4, \"penalty_us\": 1}]"),
          "key \"cpus[0].states[0].curve[1].idle_us\"" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [{\"idle_us\": 5, \"penalty_us\": 1000001}]"),
          "key \"cpus[0].states[0].curve[0].penalty_us\": must be an integer between -1000000 and 1000000" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [{\"idle_us\": 5, \"penalty_us\": -1000001}]"),
          "key \"cpus[0].states[0].curve[0].penalty_us\"" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [{\"idle_us\": 5, \"penalty_us\": 0.5}]"),
          "key \"cpus[0].states[0].curve[0].penalty_us\"" },
        { FILE_WITH_STATE(STATE_OK ", \"curve\": [{\"idle_us\": 5, \"penalty_us\": 1}], \"curve\": []"), "cal.json:1:" },
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
        /* a file from before the sweep: no entry cost, residency, curve */
        ck_assert_uint_eq(c->cpus[0].states[0].entry_us, 0);
        ck_assert_uint_eq(c->cpus[0].states[0].residency_us, 0);
        ck_assert_uint_eq(c->cpus[0].states[0].n_curve, 0);
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
        tcase_add_loop_test(tc, test_curve_derive, 0, (int) (sizeof(derive_cases) / sizeof(derive_cases[0])));
        tcase_add_test(tc, test_penalty_and_breakeven);
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
