/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idlepolicyctl's pure parts: argument parsing, table cells, error texts. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "ctl-error.h"
#include "ctl-format.h"

START_TEST(test_parse_latency) {
        uint32_t v = 7;

        ck_assert_int_eq(ctl_parse_latency("n/a", &v), 0);
        ck_assert_uint_eq(v, UINT32_MAX);
        ck_assert_int_eq(ctl_parse_latency("0", &v), 0);
        ck_assert_uint_eq(v, 0);
        ck_assert_int_eq(ctl_parse_latency("20", &v), 0);
        ck_assert_uint_eq(v, 20);
        ck_assert_int_lt(ctl_parse_latency("abc", &v), 0);
        ck_assert_int_lt(ctl_parse_latency("-1", &v), 0);
        ck_assert_int_lt(ctl_parse_latency("", &v), 0);
        ck_assert_int_lt(ctl_parse_latency("4294967296", &v), 0);
        ck_assert_uint_eq(v, 20);   /* untouched on failure */
}
END_TEST

START_TEST(test_parse_cpus) {
        ErrorInfo e = {};
        CpuSet set;
        bool all = false;

        ck_assert_int_eq(ctl_parse_cpus(NULL, &all, &set, &e), 0);
        ck_assert(all);
        all = false;
        ck_assert_int_eq(ctl_parse_cpus("all", &all, &set, &e), 0);
        ck_assert(all);
        ck_assert_int_eq(ctl_parse_cpus("0-3,5", &all, &set, &e), 0);
        ck_assert(!all);
        ck_assert_uint_eq(cpuset_count(&set), 5);
        ck_assert(cpuset_contains(&set, 5) && !cpuset_contains(&set, 4));
        ck_assert_int_eq(ctl_parse_cpus("", &all, &set, &e), -EINVAL);
        ck_assert_int_lt(ctl_parse_cpus("x", &all, &set, &e), 0);
        ck_assert_int_lt(ctl_parse_cpus("3-", &all, &set, &e), 0);
}
END_TEST

START_TEST(test_parse_state_action) {
        bool d = false;

        ck_assert_int_eq(ctl_parse_state_action("disable", &d), 0);
        ck_assert(d);
        ck_assert_int_eq(ctl_parse_state_action("enable", &d), 0);
        ck_assert(!d);
        ck_assert_int_eq(ctl_parse_state_action("off", &d), -EINVAL);
}
END_TEST

START_TEST(test_format_usec) {
        char b[32];

        ck_assert_str_eq(ctl_format_usec(0, b, sizeof(b)), "0us");
        ck_assert_str_eq(ctl_format_usec(250, b, sizeof(b)), "250us");
        ck_assert_str_eq(ctl_format_usec(1000, b, sizeof(b)), "1ms");
        ck_assert_str_eq(ctl_format_usec(1500, b, sizeof(b)), "1.5ms");
        ck_assert_str_eq(ctl_format_usec(1000000, b, sizeof(b)), "1s");
        ck_assert_str_eq(ctl_format_usec(2500000, b, sizeof(b)), "2.5s");
        ck_assert_str_eq(ctl_format_usec(120000000, b, sizeof(b)), "2min");
        ck_assert_str_eq(ctl_format_usec(90000000, b, sizeof(b)), "90s");
}
END_TEST

START_TEST(test_format_cells) {
        char b[32];

        ck_assert_str_eq(ctl_format_latency(0, b, sizeof(b)), "no constraint");
        ck_assert_str_eq(ctl_format_latency(UINT32_MAX, b, sizeof(b)), "n/a");
        ck_assert_str_eq(ctl_format_latency(20, b, sizeof(b)), "20us");
        ck_assert_str_eq(ctl_format_percent(12.34, b, sizeof(b)), "12.3%");
        ck_assert_str_eq(ctl_format_percent(-1, b, sizeof(b)), "-");
        ck_assert_str_eq(ctl_format_percent(NAN, b, sizeof(b)), "-");
        ck_assert_str_eq(ctl_format_rate(250, b, sizeof(b)), "250.0");
        ck_assert_str_eq(ctl_format_rate(INFINITY, b, sizeof(b)), "-");
}
END_TEST

START_TEST(test_format_pids) {
        const uint32_t pids[] = { 1234, 1240, 1250, 1260 };
        char b[64];

        ck_assert_str_eq(ctl_format_pids(pids, 0, b, sizeof(b)), "-");
        ck_assert_str_eq(ctl_format_pids(pids, 1, b, sizeof(b)), "1234");
        ck_assert_str_eq(ctl_format_pids(pids, 3, b, sizeof(b)), "1234,1240,1250");
        ck_assert_str_eq(ctl_format_pids(pids, 4, b, sizeof(b)), "1234,1240,1250,... (4)");
        ck_assert_str_eq(ctl_format_pids(pids, 4, b, 8), "1234,12");      /* truncated */
}
END_TEST

START_TEST(test_text_sanitize) {
        char b[8];

        ck_assert_str_eq(ctl_text_sanitize("sleep 5", b, sizeof(b)), "sleep 5");
        ck_assert_str_eq(ctl_text_sanitize("a\nb\x1b\x7f", b, sizeof(b)), "a?b??");
        ck_assert_str_eq(ctl_text_sanitize("caf\xc3\xa9", b, sizeof(b)), "caf??");
        ck_assert_str_eq(ctl_text_sanitize("123456789", b, sizeof(b)), "1234567");
        ck_assert_str_eq(ctl_text_sanitize("", b, sizeof(b)), "");
}
END_TEST

START_TEST(test_error_explain_pins) {
        sd_bus_error e = SD_BUS_ERROR_MAKE_CONST(IDLEPOLICY_ERROR_PREFIX "NoSuchPin", "No pin 7");
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("unpin");
        char b[256];

        ck_assert_str_eq(ctl_error_explain(&e, &ctx, b, sizeof(b)), "no such pin: No pin 7 (see 'idlepolicyctl pins')");
        e = SD_BUS_ERROR_MAKE_CONST(IDLEPOLICY_ERROR_PREFIX "CPUOffline", "CPU 64 is not present");
        ctx.cpu = CTL_CPU_ALL;
        ck_assert_str_eq(ctl_error_explain(&e, &ctx, b, sizeof(b)), "a CPU is offline: CPU 64 is not present");
}
END_TEST

START_TEST(test_error_explain) {
        sd_bus_error e = SD_BUS_ERROR_MAKE_CONST(IDLEPOLICY_ERROR_PREFIX "UnknownState", "No state FOO on CPU 2");
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("disable the state");
        char b[256];

        ctx.cpu = 1;
        ctx.state = "FOO";
        ck_assert_str_eq(ctl_error_explain(&e, &ctx, b, sizeof(b)), "unknown state 'FOO' on CPU 1");
        ctx.cpu = CTL_CPU_ALL;
        ck_assert_str_eq(ctl_error_explain(&e, &ctx, b, sizeof(b)),
                         "unknown state 'FOO': No state FOO on CPU 2");

        e = SD_BUS_ERROR_MAKE_CONST(SD_BUS_ERROR_SERVICE_UNKNOWN, "The name is not activatable");
        ck_assert_str_eq(ctl_error_explain(&e, &ctx, b, sizeof(b)),
                         "idlepolicyd is not running on this bus");

        e = SD_BUS_ERROR_MAKE_CONST("org.freedesktop.DBus.Error.Spawn.ChildExited", "exit 1");
        ck_assert_str_eq(ctl_error_explain(&e, &ctx, b, sizeof(b)),
                         "idlepolicyd could not be started (see 'journalctl -u idlepolicyd'): exit 1");

        e = SD_BUS_ERROR_MAKE_CONST("org.example.Weird", "odd");
        ck_assert_str_eq(ctl_error_explain(&e, &ctx, b, sizeof(b)), "failed to disable the state: odd");

        e = SD_BUS_ERROR_MAKE_CONST(IDLEPOLICY_ERROR_PREFIX "WriteFailed", "");
        ck_assert_str_eq(ctl_error_explain(&e, &ctx, b, sizeof(b)),
                         "the kernel refused to disable the state: no details");
        ck_assert_str_eq(ctl_error_explain(&e, &ctx, b, 8), "the ker");   /* truncated */
}
END_TEST

START_TEST(test_parse_duration) {
        uint64_t v = 7;

        ck_assert_int_eq(ctl_parse_duration("10s", &v), 0);
        ck_assert_uint_eq(v, 10000000);
        ck_assert_int_eq(ctl_parse_duration("10", &v), 0);
        ck_assert_uint_eq(v, 10000000);
        ck_assert_int_eq(ctl_parse_duration("1.5s", &v), 0);
        ck_assert_uint_eq(v, 1500000);
        ck_assert_int_eq(ctl_parse_duration("500ms", &v), 0);
        ck_assert_uint_eq(v, 500000);
        ck_assert_int_eq(ctl_parse_duration("2min", &v), 0);
        ck_assert_uint_eq(v, 120000000);
        ck_assert_int_eq(ctl_parse_duration("1h", &v), 0);
        ck_assert_uint_eq(v, 3600000000);
        ck_assert_int_eq(ctl_parse_duration("250us", &v), 0);
        ck_assert_uint_eq(v, 250);
        v = 7;
        ck_assert_int_eq(ctl_parse_duration("0s", &v), -EINVAL);
        ck_assert_int_eq(ctl_parse_duration("-1s", &v), -EINVAL);
        ck_assert_int_eq(ctl_parse_duration("s", &v), -EINVAL);
        ck_assert_int_eq(ctl_parse_duration("10 s", &v), -EINVAL);
        ck_assert_int_eq(ctl_parse_duration("10sec", &v), -EINVAL);
        ck_assert_int_eq(ctl_parse_duration("", &v), -EINVAL);
        ck_assert_int_eq(ctl_parse_duration("2d", &v), -EINVAL);
        ck_assert_int_eq(ctl_parse_duration("25h", &v), -ERANGE);
        ck_assert_uint_eq(v, 7);
}
END_TEST

START_TEST(test_format_total) {
        char b[32];

        ck_assert_str_eq(ctl_format_total(250, b, sizeof(b)), "250us");
        ck_assert_str_eq(ctl_format_total(1500000, b, sizeof(b)), "1.5s");
        ck_assert_str_eq(ctl_format_total(90000000, b, sizeof(b)), "1.5min");
        ck_assert_str_eq(ctl_format_total(3600000000, b, sizeof(b)), "1h");
        ck_assert_str_eq(ctl_format_total(11520000000, b, sizeof(b)), "3.2h");
}
END_TEST

static Suite *ctl_format_suite(void) {
        Suite *s = suite_create("ctl-format");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_parse_latency);
        tcase_add_test(tc, test_parse_cpus);
        tcase_add_test(tc, test_parse_state_action);
        tcase_add_test(tc, test_format_usec);
        tcase_add_test(tc, test_format_cells);
        tcase_add_test(tc, test_error_explain);
        tcase_add_test(tc, test_format_pids);
        tcase_add_test(tc, test_text_sanitize);
        tcase_add_test(tc, test_error_explain_pins);
        tcase_add_test(tc, test_parse_duration);
        tcase_add_test(tc, test_format_total);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(ctl_format_suite());
        int failed;

        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
