/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Text for a terminal: widths, cutting with a marker, $COLUMNS, the
 * progress line and its estimate of the time left. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "terminal.h"
#include "unit.h"

START_TEST(test_text_columns) {
        ck_assert_uint_eq(terminal_text_columns(""), 0);
        ck_assert_uint_eq(terminal_text_columns("POLL"), 4);
        ck_assert_uint_eq(terminal_text_columns("a…b"), 3);
}
END_TEST

START_TEST(test_text_fit) {
        char b[64];

        ck_assert_str_eq(terminal_text_fit("haltpoll idle", 13, "…", b, sizeof(b)), "haltpoll idle");
        ck_assert_str_eq(terminal_text_fit("haltpoll idle", 8, "…", b, sizeof(b)), "haltpol…");
        ck_assert_uint_eq(terminal_text_columns(b), 8);
        ck_assert_str_eq(terminal_text_fit("haltpoll idle", 8, "~", b, sizeof(b)), "haltpol~");
        ck_assert_str_eq(terminal_text_fit("abc", 0, "…", b, sizeof(b)), "");
        /* A multi-byte character is kept whole or dropped whole. */
        ck_assert_str_eq(terminal_text_fit("ééééé", 3, "~", b, sizeof(b)), "éé~");
        ck_assert_str_eq(terminal_text_fit("ééééé", 9, "~", b, 6), "éé~");
}
END_TEST

START_TEST(test_columns) {
        ck_assert_uint_eq(terminal_columns(-1, "132"), 132);
        ck_assert_uint_eq(terminal_columns(-1, NULL), TERMINAL_COLUMNS_DEFAULT);
        for (const char *bad = "x\0" "0\0" "-5\0" "12a\0" "99999\0"; *bad; bad += strlen(bad) + 1)
                ck_assert_uint_eq(terminal_columns(-1, bad), TERMINAL_COLUMNS_DEFAULT);
        ck_assert_str_eq(terminal_ellipsis("UTF-8"), "…");
        ck_assert_str_eq(terminal_ellipsis("ANSI_X3.4-1968"), "~");
}
END_TEST

START_TEST(test_progress) {
        char b[128];

        ck_assert_str_eq(terminal_progress_format(b, sizeof(b), 80, "Calibrating", 0, 8, 0), "Calibrating: 0% (0/8)");
        /* 2 of 8 in 10 s: 30 s left. */
        ck_assert_str_eq(terminal_progress_format(b, sizeof(b), 80, "Calibrating", 2, 8, 10000000),
                         "Calibrating: 25% (2/8), about 30s left");
        ck_assert_str_eq(terminal_progress_format(b, sizeof(b), 80, "x", 1, 100, 5000000),
                         "x: 1% (1/100), about 8min 15s left");
        ck_assert_str_eq(terminal_progress_format(b, sizeof(b), 80, "x", 1, 1000, 5000000),
                         "x: 0% (1/1000), about 1h 23min left");
        ck_assert_str_eq(terminal_progress_format(b, sizeof(b), 80, "x", 8, 8, 5000000), "x: 100% (8/8)");
        ck_assert_str_eq(terminal_progress_format(b, sizeof(b), 80, "x", 9, 8, 5000000), "x: 100% (8/8)");
        ck_assert_str_eq(terminal_progress_format(b, sizeof(b), 80, "x", 3, 0, 5000000), "x: 3 done");
        ck_assert_uint_le(terminal_text_columns(terminal_progress_format(b, sizeof(b), 20, "Calibrating", 2, 8,
                                                                         10000000)), 20);
}
END_TEST

static Suite *terminal_suite(void) {
        Suite *s = suite_create("terminal");
        TCase *tc = unit_tcase(s, "core");

        tcase_add_test(tc, test_text_columns);
        tcase_add_test(tc, test_text_fit);
        tcase_add_test(tc, test_columns);
        tcase_add_test(tc, test_progress);
        return s;
}

int main(void) {
        return unit_run(terminal_suite());
}
