/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "idlepolicyctl monitor"'s frame: columns sized from their content, cut
 * with a marker to the terminal's width, aligned from row to row. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "ctl-monitor-frame.h"
#include "terminal.h"

#define LINES_MAX 32

static CtlState kvm_states[] = {
        { .index = 0, .name = (char *) "POLL", .has_rates = true, .usage_share_pct = 70, .too_deep_pct = 0,
          .too_shallow_pct = 12.5 },
        { .index = 1, .name = (char *) "haltpoll idle", .has_rates = true, .usage_share_pct = 30,
          .too_deep_pct = 4, .too_shallow_pct = 0 },
};

/* CPU 0 under the halt-poll economics (the longest reasons), CPU 1 planned by the model,
 * CPU 2 is offline. */
static CtlCpu cpus[] = {
        { .index = 0, .online = true, .util = 0.5, .timer_wakeups = 100, .other_wakeups = 2000,
          .states = kvm_states, .n_states = 2, .cap = 1, .floor = 0,
          .cap_reason = (char *) "poll-economics", .floor_reason = (char *) "poll-economics" },
        { .index = 1, .online = true, .util = 0.01, .timer_wakeups = 10, .other_wakeups = 1,
          .states = kvm_states, .n_states = 2, .cap = 1, .floor = 0,
          .cap_reason = (char *) "model", .floor_reason = (char *) "none" },
        { .index = 2, .online = false },
};

static const CtlStatus status = {
        .version = (char *) "0.1.0", .governor = (char *) "haltpoll", .active_profile = (char *) "balanced",
        .mode = (char *) "enforce", .poll_mode = (char *) "window", .poll_window_nsec = 200000,
        .cpus = cpus, .n_cpus = 3,
};

/* Renders the frame at width into lines[] (each malloc'ed).  Returns the
 * number of lines. */
static size_t render(unsigned width, char *lines[static LINES_MAX]) {
        CtlMonitorLayout l = { .width = width, .ellipsis = "…", .clock = "12:00:00" };
        char *text = NULL, *save = NULL;
        size_t size = 0, n = 0;
        FILE *f = open_memstream(&text, &size);

        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(ctl_monitor_frame(f, &status, &l), 0);
        ck_assert_int_eq(fclose(f), 0);
        for (char *line = strtok_r(text, "\n", &save); line && n < LINES_MAX; line = strtok_r(NULL, "\n", &save))
                lines[n++] = strdup(line);
        free(text);
        return n;
}

static void free_lines(char **lines, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(lines[i]);
}

/* The column (in characters) where needle starts in line, or -1. */
static int column_of(const char *line, const char *needle) {
        const char *p = strstr(line, needle);
        char prefix[4096];

        if (!p)
                return -1;
        snprintf(prefix, sizeof(prefix), "%.*s", (int) (p - line), line);
        return (int) terminal_text_columns(prefix);
}

/* The character at column col of line (its first byte). */
static char char_at(const char *line, int col) {
        int seen = -1;

        for (const char *p = line; *p; p++)
                if (((unsigned char) *p & 0xc0) != 0x80 && ++seen == col)
                        return *p;
        return '\0';
}

static void check_frame(unsigned width) {
        char *lines[LINES_MAX];
        size_t n = render(width, lines);
        int cap, floor, states;
        size_t title = 1;

        ck_assert_uint_ge(n, 6);
        for (size_t i = 0; i < n; i++)
                ck_assert_msg(terminal_text_columns(lines[i]) <= width, "line %zu is %zu columns wide at %u: %s", i,
                              terminal_text_columns(lines[i]), width, lines[i]);
        ck_assert_ptr_nonnull(strstr(lines[title], "CPU"));
        cap = column_of(lines[title], "CAP");
        floor = column_of(lines[title], "FLOOR");
        ck_assert_int_gt(cap, 0);
        ck_assert_int_gt(floor, cap);
        /* Each online CPU's plan cells start in the title's columns, after a blank. */
        for (size_t row = title + 1; row <= title + 2; row++) {
                ck_assert_int_eq(char_at(lines[row], cap - 1), ' ');
                ck_assert_int_ne(char_at(lines[row], cap), ' ');
                ck_assert_int_eq(char_at(lines[row], floor - 1), ' ');
                ck_assert_int_ne(char_at(lines[row], floor), ' ');
        }
        for (size_t row = title + 1; row <= title + 2; row++) {
                ck_assert_int_eq(column_of(lines[row], "haltpoll"), cap);
                ck_assert_int_eq(column_of(lines[row], "POLL"), floor);
        }
        ck_assert_int_eq(column_of(lines[title + 2], "POLL (none)"), floor);
        states = column_of(lines[title], "STATES");
        ck_assert_int_gt(states, floor);
        ck_assert_int_eq(column_of(lines[title + 1], "POLL 70.0%"), states);
        ck_assert_int_eq(column_of(lines[title + 2], "POLL 70.0%"), states);
        ck_assert_ptr_nonnull(strstr(lines[title + 3], "offline"));
        ck_assert_str_eq(lines[n - 1], "Ctrl-C to quit.");
        free_lines(lines, n);
}

/* Line i of the frame at width (malloc'ed). */
static char *frame_line(unsigned width, size_t i) {
        char *lines[LINES_MAX], *line;
        size_t n = render(width, lines);

        ck_assert_uint_lt(i, n);
        line = TAKE_PTR(lines[i]);
        free_lines(lines, n);
        return line;
}

/* 80 columns: too narrow for a CPU's plan and states on one line, so its
 * states go on the line below; nothing is cut. */
START_TEST(test_frame_80_columns) {
        char *lines[LINES_MAX], all[8192] = "";
        size_t n = render(80, lines);

        for (size_t i = 0; i < n; i++) {
                ck_assert_msg(terminal_text_columns(lines[i]) <= 80, "line %zu: %s", i, lines[i]);
                ck_assert_msg(!strstr(lines[i], "…"), "line %zu is cut: %s", i, lines[i]);
                strncat(all, lines[i], sizeof(all) - strlen(all) - 2);
                strcat(all, "\n");
        }
        ck_assert_ptr_nonnull(strstr(all, "idlepolicyd 0.1.0"));
        ck_assert_ptr_nonnull(strstr(all, "halt-poll window 200us"));
        ck_assert_ptr_nonnull(strstr(all, "CAP (REASON) / FLOOR (REASON)"));
        ck_assert_ptr_nonnull(strstr(all, "STATES: share of entries (too deep / too shallow)"));
        ck_assert_ptr_nonnull(strstr(all, "\n   0   50.0%     2100.0  "
                                          "haltpoll idle (poll-economics) / POLL (poll-economics)\n"
                                          "      POLL 70.0% (0.0%/12.5%)  haltpoll idle 30.0% (4.0%/0.0%)\n"));
        ck_assert_ptr_nonnull(strstr(all, "\n   1    1.0%       11.0  haltpoll idle (model) / POLL (none)\n"));
        ck_assert_ptr_nonnull(strstr(all, "\n   2  offline\n"));
        ck_assert_str_eq(lines[n - 1], "Ctrl-C to quit.");
        free_lines(lines, n);
}
END_TEST

START_TEST(test_frame_wide) {
        _cleanup_free_ char *header = frame_line(200, 0), *cpu0 = frame_line(200, 2);

        check_frame(200);
        /* Room enough: the cells whole, the header too. */
        ck_assert_ptr_nonnull(strstr(cpu0, "haltpoll idle (poll-economics)  POLL (poll-economics)  POLL 70.0%"));
        ck_assert_ptr_null(strstr(cpu0, "…"));
        ck_assert_ptr_nonnull(strstr(header, "halt-poll window 200us"));
}
END_TEST

/* Many states on 40 columns: wrapped at a state's start, each state whole
 * where it fits a line. */
START_TEST(test_frame_wrapped_states) {
        char *lines[LINES_MAX];
        size_t n = render(40, lines), seen = 0;

        for (size_t i = 0; i < n; i++) {
                ck_assert_uint_le(terminal_text_columns(lines[i]), 40);
                if (strncmp(lines[i], "      POLL 70.0% (0.0%/12.5%)", 29) == 0) {
                        seen++;
                        ck_assert_str_eq(lines[i + 1], "      haltpoll idle 30.0% (4.0%/0.0%)");
                }
        }
        ck_assert_uint_eq(seen, 2);
        free_lines(lines, n);
}
END_TEST

START_TEST(test_frame_narrow) {
        char *lines[LINES_MAX];
        size_t n = render(40, lines);

        for (size_t i = 0; i < n; i++)
                ck_assert_uint_le(terminal_text_columns(lines[i]), 40);
        free_lines(lines, n);
}
END_TEST

static Suite *monitor_frame_suite(void) {
        Suite *s = suite_create("ctl-monitor-frame");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_frame_80_columns);
        tcase_add_test(tc, test_frame_wrapped_states);
        tcase_add_test(tc, test_frame_wide);
        tcase_add_test(tc, test_frame_narrow);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(monitor_frame_suite());
        int failed;

        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
