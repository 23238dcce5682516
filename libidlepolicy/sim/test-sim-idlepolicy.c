/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The idlepolicy governor on hand-made cases (Skylake-SP): it caps a base
 * governor that keeps going too deep, recovers when the load changes, never
 * enables a state disabled by hand, and counts ticks in simulated time. */
#include <errno.h>

#include "gov-idlepolicy.h"
#include "sim-run.h"
#include "sim-workload.h"
#include "test-sim-helpers.h"

enum { POLL, C1, C1E, C6 };

/* A base that trusts the timer alone: the deepest enabled state the time
 * to the next timer allows, however often the CPU wakes early. */
static unsigned naive_select(Governor *g, const GovInput *in) {
        return gov_deepest_fitting(g, in->sleep_length_ns, in->latency_limit_ns);
}

static void naive_reflect(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout) {
}

static const GovernorOps governor_naive = {
        .name = "naive",
        .summary = "the timer alone",
        .size = sizeof(Governor),
        .select = naive_select,
        .reflect = naive_reflect,
};

static Governor *idlepolicy_on(const GovernorOps *base, const SimTable *t) {
        GovParams p;
        Governor *g = NULL;

        gov_params_init(&p);
        ck_assert_int_eq(gov_idlepolicy_new(base, NULL, 0, t, &p, &g), 0);
        return g;
}

/* Runs n idle periods of measured_ns with the next timer sleep_ns away;
 * returns how many entered state. */
static unsigned run(Governor *g, unsigned n, uint64_t sleep_ns, uint64_t measured_ns, unsigned state) {
        unsigned hits = 0;

        for (unsigned i = 0; i < n; i++)
                hits += gov_step(g, sleep_ns, measured_ns, 0) == state;
        return hits;
}

/* The timer is 10 ms away but an IPI comes after 50 µs, every time: the
 * naive base enters C6 each time, too deep.  idlepolicy caps it at C1E
 * after the first tick and keeps it there, bar exploration; when the
 * wakeups turn into the 10 ms timer, the cap lifts within a few ticks. */
START_TEST(test_caps_and_recovers) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = idlepolicy_on(&governor_naive, &t);
        const CpuPlan *plan = gov_idlepolicy_plan(g);
        unsigned in_c6, ticks;

        ck_assert_str_eq(g->ops->name, "idlepolicy");
        ck_assert_uint_eq(run(g, 20000, MS(10), US(50), C6), 20000);    /* 1 s: the first tick */
        ck_assert_uint_eq(gov_idlepolicy_ticks(g), 1);
        ck_assert_uint_eq(gov_idlepolicy_model(g)->w[C6][C1E], MODEL_ONE - 3 * MODEL_CLAMP_DEFAULT);
        ck_assert_uint_eq(plan->model_cap, C1E);
        ck_assert_int_eq(plan->cap_reason, PLAN_REASON_MODEL);
        run(g, 20000 * 4, MS(10), US(50), C6);
        ck_assert_uint_eq(plan->model_cap, C1E);
        /* 30 s more: C6 only in exploration ticks (1/32 >> 2 a tick, ~1%) */
        in_c6 = run(g, 20000 * 30, MS(10), US(50), C6);
        ck_assert_uint_lt(in_c6, 20000 * 30 / 20);
        ck_assert_uint_eq(plan->model_cap, C1E);
        ck_assert(plan->cap_reason == PLAN_REASON_MODEL || plan->cap_reason == PLAN_REASON_EXPLORATION);
        ck_assert(gov_idlepolicy_table(g)->states[C6].disabled == !plan->exploring);
        ck_assert(!t.states[C6].disabled);       /* the simulated table is never touched */

        /* the load turns into 10 ms timer sleeps: back to C6 within 10 s */
        ticks = (unsigned) gov_idlepolicy_ticks(g);
        for (unsigned i = 0; i < 100 && plan->model_cap != C6; i++)
                run(g, 10, MS(10), MS(10) + US(30), C1E);
        ck_assert_uint_eq(plan->model_cap, C6);
        ck_assert_uint_le(gov_idlepolicy_ticks(g) - ticks, 10);
        ck_assert_uint_eq(run(g, 100, MS(10), MS(10) + US(30), C6), 100);
        governor_free(g);
}
END_TEST

/* A state disabled in the simulated table is the administrator's: the
 * plan never enables it, exploration included. */
START_TEST(test_manual_disable_respected) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g;

        t.states[C1E].disabled = true;
        g = idlepolicy_on(&governor_naive, &t);
        for (unsigned i = 0; i < 40; i++) {
                ck_assert_uint_eq(run(g, 20000, MS(10), US(50), C1E), 0);
                ck_assert(gov_idlepolicy_table(g)->states[C1E].disabled);
        }
        ck_assert_uint_eq(gov_idlepolicy_plan(g)->model_cap, C1);
        governor_free(g);
}
END_TEST

/* The tick counts estimated wall time: idle / (1 - util). */
START_TEST(test_tick_is_wall_time) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = idlepolicy_on(&governor_teo, &t);
        Profile prof;
        GovParams p;

        run(g, 999, MS(2), MS(1), C6);
        ck_assert_uint_eq(gov_idlepolicy_ticks(g), 0);
        run(g, 1, MS(2), MS(1), C6);
        ck_assert_uint_eq(gov_idlepolicy_ticks(g), 1);
        for (unsigned i = 0; i < 500; i++)
                gov_step(g, MS(2), MS(1), 0.5);
        ck_assert_uint_eq(gov_idlepolicy_ticks(g), 2);
        governor_free(g);

        /* a custom tick and profile */
        gov_params_init(&p);
        profile_init(&prof, "custom");
        prof.hold_ticks = 7;
        ck_assert_int_eq(gov_idlepolicy_new(&governor_menu, &prof, MS(10), &t, &p, &g), 0);
        run(g, 10, MS(2), MS(1), C6);
        ck_assert_uint_eq(gov_idlepolicy_ticks(g), 1);
        governor_free(g);
        /* idlepolicy cannot wrap itself */
        ck_assert_int_eq(gov_idlepolicy_new(&governor_idlepolicy_menu, NULL, 0, &t, &p, &g), -EINVAL);
}
END_TEST

/* The registered governors replay a workload through sim_run on every
 * shape of table (two states, ten states). */
START_TEST(test_sim_run) {
        static const char *const tables[] = { TABLE_SKYLAKE, TABLE_KVM };
        SimInterval *iv = NULL;
        ErrorInfo e = {};
        SimRunConfig c;

        ck_assert_int_eq(workload_generate("phase:switch_s=2", 1, 50000, &iv, &e), 0);
        sim_run_config_init(&c);
        for (unsigned i = 0; i < 2; i++) {
                SimTable t = table_from(tables[i]);
                SimMetrics m;

                ck_assert_int_eq(sim_run(&t, governor_find("idlepolicy"), &c, iv, 50000, &m), 0);
                ck_assert_uint_eq(m.intervals, 50000);
                ck_assert_int_eq(sim_run(&t, governor_find("idlepolicy-menu"), &c, iv, 50000, &m), 0);
                ck_assert_uint_eq(m.intervals, 50000);
        }
        free(iv);
}
END_TEST

static Suite *idlepolicy_suite(void) {
        Suite *s = suite_create("sim-idlepolicy");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_caps_and_recovers);
        tcase_add_test(tc, test_manual_disable_respected);
        tcase_add_test(tc, test_tick_is_wall_time);
        tcase_add_test(tc, test_sim_run);
        tcase_set_timeout(tc, 60);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return run_suite(idlepolicy_suite());
}
