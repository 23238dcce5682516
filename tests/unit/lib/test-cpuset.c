/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "cpuset.h"
#include "unit.h"

/* Parses text, failing the test on error. */
static CpuSet parse_ok(const char *text) {
        ErrorInfo e = {};
        CpuSet s;

        ck_assert_msg(cpuset_parse(text, &s, &e) == 0, "parsing \"%s\": %s", text, e.message);
        return s;
}

/* Parses and formats again. */
static const char *roundtrip(const char *text, char *buf, size_t size) {
        CpuSet s = parse_ok(text);

        ck_assert_int_eq(cpuset_format(&s, buf, size), 0);
        return buf;
}

START_TEST(test_parse_ranges) {
        CpuSet s = parse_ok("0-3,5");

        ck_assert_uint_eq(cpuset_count(&s), 5);
        for (unsigned c = 0; c <= 3; c++)
                ck_assert(cpuset_contains(&s, c));
        ck_assert(!cpuset_contains(&s, 4));
        ck_assert(cpuset_contains(&s, 5));
        ck_assert(!cpuset_contains(&s, 6));
        ck_assert_uint_eq(cpuset_span(&s), 6);
}
END_TEST

START_TEST(test_parse_empty_and_whitespace) {
        CpuSet s;

        s = parse_ok("");
        ck_assert_uint_eq(cpuset_count(&s), 0);
        ck_assert_uint_eq(cpuset_span(&s), 0);
        s = parse_ok("\n");
        ck_assert_uint_eq(cpuset_count(&s), 0);
        s = parse_ok("  0-1 \n");
        ck_assert_uint_eq(cpuset_count(&s), 2);
        ck_assert_uint_eq(cpuset_span(&s), 2);
        s = parse_ok("8191");
        ck_assert(cpuset_contains(&s, 8191));
        ck_assert_uint_eq(cpuset_span(&s), CPUSET_MAX);
}
END_TEST

START_TEST(test_parse_bad) {
        static const struct { const char *text; int error; const char *token; } bad[] = {
                { "a", -EINVAL, "\"a\"" },
                { "1-", -EINVAL, "\"1-\"" },
                { "-1", -EINVAL, "\"-1\"" },
                { "3-1", -EINVAL, "\"3-1\"" },
                { "1,,2", -EINVAL, "\"\"" },
                { ",1", -EINVAL, "\"\"" },
                { "1,", -EINVAL, "trailing comma" },
                { "0-7:2", -EINVAL, "\"0-7:2\"" },
                { "1 2", -EINVAL, "\"1 2\"" },
                { "0,8192", -ERANGE, "\"8192\"" },
                { "0-99999999999", -ERANGE, "too large" },
        };
        for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                ErrorInfo e = {};
                CpuSet s, before;

                cpuset_clear(&s);
                cpuset_add(&s, 42);
                before = s;
                ck_assert_msg(cpuset_parse(bad[i].text, &s, &e) == bad[i].error, "\"%s\"", bad[i].text);
                ck_assert_msg_has(e, bad[i].token);
                ck_assert(cpuset_equal(&s, &before));
        }
}
END_TEST

START_TEST(test_format) {
        char buf[64];

        ck_assert_str_eq(roundtrip("0-3,5,7-8", buf, sizeof(buf)), "0-3,5,7-8");
        ck_assert_str_eq(roundtrip("3", buf, sizeof(buf)), "3");
        ck_assert_str_eq(roundtrip("", buf, sizeof(buf)), "");
        ck_assert_str_eq(roundtrip("5,0,1,2", buf, sizeof(buf)), "0-2,5");
        ck_assert_str_eq(roundtrip("62-65,8190-8191", buf, sizeof(buf)), "62-65,8190-8191");
}
END_TEST

START_TEST(test_format_nobufs) {
        CpuSet s = parse_ok("0-3,5");
        char buf[8];

        ck_assert_int_eq(cpuset_format(&s, buf, 3), -ENOBUFS);
        ck_assert_int_eq(cpuset_format(&s, buf, 5), -ENOBUFS);   /* "0-3,5" needs 6 */
        ck_assert_int_eq(cpuset_format(&s, buf, 6), 0);
        ck_assert_str_eq(buf, "0-3,5");
        ck_assert_int_eq(cpuset_format(&s, buf, 0), -ENOBUFS);
}
END_TEST

START_TEST(test_add_remove_next) {
        CpuSet s, t;
        int seen[4], n = 0;

        cpuset_clear(&s);
        cpuset_add(&s, 64);
        cpuset_add(&s, 1);
        cpuset_add(&s, 8191);
        cpuset_add(&s, 63);
        cpuset_add(&s, 8192);           /* ignored */
        cpuset_add(&s, 100000);         /* ignored */
        ck_assert_uint_eq(cpuset_count(&s), 4);
        CPUSET_FOREACH(cpu, &s) {
                ck_assert_int_lt(n, 4);
                seen[n++] = cpu;
        }
        ck_assert_int_eq(n, 4);
        ck_assert_int_eq(seen[0], 1);
        ck_assert_int_eq(seen[1], 63);
        ck_assert_int_eq(seen[2], 64);
        ck_assert_int_eq(seen[3], 8191);
        ck_assert_int_eq(cpuset_next(&s, 65), 8191);
        ck_assert_int_eq(cpuset_next(&s, 8192), -1);
        ck_assert(!cpuset_contains(&s, 8192));

        t = s;
        ck_assert(cpuset_equal(&s, &t));
        cpuset_remove(&t, 63);
        cpuset_remove(&t, 9000);        /* ignored */
        ck_assert(!cpuset_equal(&s, &t));
        ck_assert(!cpuset_contains(&t, 63));
        ck_assert_uint_eq(cpuset_count(&t), 3);
        cpuset_clear(&t);
        ck_assert_int_eq(cpuset_next(&t, 0), -1);
        ck_assert_uint_eq(cpuset_span(&t), 0);
}
END_TEST

/* AllowedCPUs's "ay": bit N = CPU N, little-endian bytes, shortest. */
START_TEST(test_mask) {
        uint8_t buf[CPUSET_MASK_MAX], big[CPUSET_MASK_MAX + 16] = {};
        static const uint8_t two[] = { 0x03 }, wide[] = { 0x01, 0x00, 0x80, 0x00, 0x00 };
        size_t len = 99;
        CpuSet s, t;

        ck_assert_int_eq(cpuset_parse("0-1", &s, NULL), 0);
        ck_assert_int_eq(cpuset_to_mask(&s, buf, sizeof(buf), &len), 0);
        ck_assert_uint_eq(len, 1);
        ck_assert_uint_eq(buf[0], 0x03);

        ck_assert_int_eq(cpuset_parse("0,23,8191", &s, NULL), 0);
        ck_assert_int_eq(cpuset_to_mask(&s, buf, sizeof(buf), &len), 0);
        ck_assert_uint_eq(len, CPUSET_MASK_MAX);
        ck_assert_uint_eq(buf[0], 0x01);
        ck_assert_uint_eq(buf[2], 0x80);
        ck_assert_uint_eq(buf[CPUSET_MASK_MAX - 1], 0x80);
        ck_assert_int_eq(cpuset_from_mask(buf, len, &t), 0);
        ck_assert(cpuset_equal(&s, &t));
        ck_assert_int_eq(cpuset_to_mask(&s, buf, 3, &len), -ENOBUFS);
        ck_assert_uint_eq(len, CPUSET_MASK_MAX);

        cpuset_clear(&s);
        ck_assert_int_eq(cpuset_to_mask(&s, buf, 0, &len), 0);
        ck_assert_uint_eq(len, 0);
        ck_assert_int_eq(cpuset_from_mask(NULL, 0, &t), 0);
        ck_assert_uint_eq(cpuset_count(&t), 0);

        ck_assert_int_eq(cpuset_from_mask(two, sizeof(two), &t), 0);
        ck_assert_int_eq(cpuset_parse("0-1", &s, NULL), 0);
        ck_assert(cpuset_equal(&s, &t));
        ck_assert_int_eq(cpuset_from_mask(wide, sizeof(wide), &t), 0);      /* trailing zeros */
        ck_assert_int_eq(cpuset_parse("0,23", &s, NULL), 0);
        ck_assert(cpuset_equal(&s, &t));

        /* zeros beyond CPUSET_MAX are fine, a CPU there is not */
        big[0] = 0x02;
        ck_assert_int_eq(cpuset_from_mask(big, sizeof(big), &t), 0);
        ck_assert(cpuset_contains(&t, 1) && cpuset_count(&t) == 1);
        big[CPUSET_MASK_MAX] = 0x01;
        ck_assert_int_eq(cpuset_from_mask(big, sizeof(big), &t), -ERANGE);
        ck_assert(cpuset_contains(&t, 1) && cpuset_count(&t) == 1);        /* untouched */
}
END_TEST

int main(void) {
        Suite *s = suite_create("cpuset");
        TCase *tc = unit_tcase(s, "core");

        tcase_add_test(tc, test_parse_ranges);
        tcase_add_test(tc, test_parse_empty_and_whitespace);
        tcase_add_test(tc, test_parse_bad);
        tcase_add_test(tc, test_format);
        tcase_add_test(tc, test_format_nobufs);
        tcase_add_test(tc, test_add_remove_next);
        tcase_add_test(tc, test_mask);
        return unit_run(s);
}
