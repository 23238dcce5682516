/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idlepolicyctl's help for a user who mistyped: the suggestion for a
 * word, the hint after a refused name (states, present and online CPUs),
 * the per-command pages. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-help.h"
#include "ctl-hint.h"
#include "ctl-suggest.h"

static const char *const commands[] = { "status", "state", "governor", "profile", "pins", "pin", "calibrate",
                                        "consolidate", "mode", "monitor" };
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

START_TEST(test_suggest) {
        ck_assert_str_eq(ctl_suggest("stauts", commands, N_COMMANDS), "status");
        ck_assert_str_eq(ctl_suggest("statsu", commands, N_COMMANDS), "status");
        ck_assert_str_eq(ctl_suggest("profle", commands, N_COMMANDS), "profile");
        ck_assert_str_eq(ctl_suggest("governer", commands, N_COMMANDS), "governor");
        ck_assert_str_eq(ctl_suggest("calib", commands, N_COMMANDS), "calibrate");      /* the only prefix */
        ck_assert_str_eq(ctl_suggest("STATUS", commands, N_COMMANDS), "status");
        ck_assert_ptr_null(ctl_suggest("stats", commands, N_COMMANDS));   /* status and state: a tie */
        ck_assert_ptr_null(ctl_suggest("frobnicate", commands, N_COMMANDS));
        ck_assert_ptr_null(ctl_suggest("mo", commands, N_COMMANDS));      /* mode and monitor */
        ck_assert_ptr_null(ctl_suggest("x", commands, N_COMMANDS));
        ck_assert_ptr_null(ctl_suggest("", commands, N_COMMANDS));
        ck_assert_ptr_null(ctl_suggest("status", NULL, 0));
}
END_TEST

START_TEST(test_help_pages) {
        size_t n;
        const CtlVerbHelp *v = ctl_help_verbs(&n);

        ck_assert_uint_ge(n, 20);
        for (size_t i = 0; i < n; i++) {
                ck_assert_ptr_eq(ctl_help_find(v[i].name), &v[i]);
                /* The synopsis starts with the command; the text ends a line. */
                ck_assert_int_eq(strncmp(v[i].usage, v[i].name, strlen(v[i].name)), 0);
                ck_assert_int_eq(strncmp(v[i].brief, v[i].name, strlen(v[i].name)), 0);
                ck_assert_int_eq(v[i].text[strlen(v[i].text) - 1], '\n');
        }
        ck_assert_ptr_null(ctl_help_find("__complete"));
        ck_assert_str_eq(ctl_help_suggest("idle-ifno"), "idle-info");
        ck_assert_str_eq(ctl_help_suggest("stauts"), "status");
}
END_TEST

static CtlState states0[] = {
        { .index = 0, .name = (char *) "POLL" },
        { .index = 1, .name = (char *) "haltpoll idle" },
};
static CtlState states1[] = {
        { .index = 0, .name = (char *) "POLL" },
        { .index = 1, .name = (char *) "C1" },
};
static CtlCpu cpus[] = {
        { .index = 0, .online = true, .states = states0, .n_states = 2 },
        { .index = 1, .online = true, .states = states1, .n_states = 2 },
        { .index = 3, .online = false },
};
static const CtlStatus status = { .cpus = cpus, .n_cpus = 3 };

static const char *hint(const char *name, uint32_t cpu, const char *state, char *b, size_t size) {
        sd_bus_error e = SD_BUS_ERROR_MAKE_CONST(name, "x");
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("disable the state");

        ctx.cpu = cpu;
        ctx.state = state;
        return ctl_hint_format(&e, &ctx, &status, b, size);
}

START_TEST(test_hint) {
        char b[256];

        ck_assert_str_eq(hint(IDLEPOLICY_ERROR_PREFIX "UnknownState", 0, "NOPE", b, sizeof(b)),
                         "its states: POLL, \"haltpoll idle\"");
        ck_assert_str_eq(hint(IDLEPOLICY_ERROR_PREFIX "UnknownState", 1, "c1", b, sizeof(b)),
                         "its states: POLL, C1; did you mean 'C1'?");
        ck_assert_str_eq(hint(IDLEPOLICY_ERROR_PREFIX "UnknownState", CTL_CPU_ALL, "pol", b, sizeof(b)),
                         "the states: POLL, \"haltpoll idle\", C1; did you mean 'POLL'?");
        ck_assert_str_eq(hint(IDLEPOLICY_ERROR_PREFIX "UnknownCPU", 9, NULL, b, sizeof(b)), "CPUs present: 0-1,3");
        ck_assert_str_eq(hint(IDLEPOLICY_ERROR_PREFIX "CPUOffline", 3, NULL, b, sizeof(b)), "CPUs online: 0-1");
        /* All CPUs: the daemon's own message names them. */
        ck_assert_str_eq(hint(IDLEPOLICY_ERROR_PREFIX "UnknownCPU", CTL_CPU_ALL, NULL, b, sizeof(b)), "");
        ck_assert_str_eq(hint(IDLEPOLICY_ERROR_PREFIX "WriteFailed", 0, "POLL", b, sizeof(b)), "");
        ck_assert_str_eq(hint(IDLEPOLICY_ERROR_PREFIX "UnknownState", 7, "POLL", b, sizeof(b)), "");
}
END_TEST

static Suite *help_suite(void) {
        Suite *s = suite_create("ctl-help");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_suggest);
        tcase_add_test(tc, test_help_pages);
        tcase_add_test(tc, test_hint);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(help_suite());
        int failed;

        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
