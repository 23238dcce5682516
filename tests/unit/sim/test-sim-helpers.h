/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Helpers shared by the simulator's unit tests. */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "governor.h"
#include "sim-table.h"

#define US(x) ((uint64_t) (x) * 1000u)
#define MS(x) ((uint64_t) (x) * 1000000u)

/* Skylake-SP as intel_idle describes it. */
#define TABLE_SKYLAKE \
        "POLL 0 0 polling\n" \
        "C1 2 2\n" \
        "C1E 10 20\n" \
        "C6 133 600\n"

#define TABLE_KVM \
        "POLL 0 0 polling\n" \
        "\"haltpoll idle\" 1 1\n"

/* Parses text as a table called "test"; fails the test on error. */
static inline SimTable table_from(const char *text) {
        FILE *f = fmemopen((void *) text, strlen(text), "r");
        ErrorInfo e = {};
        SimTable t = {};

        ck_assert_ptr_nonnull(f);
        ck_assert_msg(sim_table_parse(f, "test", &t, &e) == 0, "%s", e.message);
        fclose(f);
        return t;
}

/* Parses text expecting failure; returns the error and copies the message. */
static inline int table_error(const char *text, char *msg, size_t size) {
        FILE *f = fmemopen((void *) text, strlen(text), "r");
        ErrorInfo e = {};
        SimTable t = {};
        int r;

        ck_assert_ptr_nonnull(f);
        r = sim_table_parse(f, "test", &t, &e);
        fclose(f);
        snprintf(msg, size, "%s", e.message);
        return r;
}

static inline Governor *gov_new(const char *name, const SimTable *t) {
        GovParams p;
        Governor *g = NULL;

        gov_params_init(&p);
        ck_assert_int_eq(governor_new(governor_find(name), t, &p, &g), 0);
        return g;
}

static inline unsigned gov_select_full(Governor *g, uint64_t sleep_ns, uint64_t limit_ns, double util,
                                       uint64_t future_ns) {
        GovInput in = {
                .sleep_length_ns = sleep_ns,
                .latency_limit_ns = limit_ns,
                .util = util,
                .future_ns = future_ns,
        };
        return g->ops->select(g, &in);
}

/* Selects with sleep and limit (the oracle sees no future). */
static inline unsigned gov_pick(Governor *g, uint64_t sleep_ns, uint64_t limit_ns, double util) {
        return gov_select_full(g, sleep_ns, limit_ns, util, 0);
}

/* One idle period: select with sleep (the oracle also sees measured),
 * then reflect measured.  Returns the selected state. */
static inline unsigned gov_step(Governor *g, uint64_t sleep_ns, uint64_t measured_ns, double util) {
        unsigned s = gov_select_full(g, sleep_ns, SIM_NO_LIMIT, util, measured_ns);

        g->ops->reflect(g, s, measured_ns, false);
        return s;
}

/* Runs the suite; returns the process exit status. */
static inline int run_suite(Suite *s) {
        SRunner *sr = srunner_create(s);
        int failed;

        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
