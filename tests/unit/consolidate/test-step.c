/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "test-consolidate-helpers.h"

static ConsolidateParams params;
static Consolidation c;
static Topology *big;                   /* 2 packages × 4 cores × 2 threads */

static void setup(void) {
        consolidate_params_init(&params);
        consolidation_init(&c);
        big = fake_topology(2, 4, 2, NULL);
}

static void teardown(void) {
        topology_free(big);
}

/* One step at level on big (machine busy share in %, background in CPUs,
 * set busy share in %, -1: unknown).  Returns the step's result. */
static int step(unsigned level, int machine_pct, double background, int set_pct) {
        ConsolidateInput in = {
                .level = level,
                .topology = big,
                .machine_util = machine_pct < 0 ? -1 : Q10_PCT(machine_pct),
                .background = background < 0 ? -1 : Q10_CPUS(background),
                .set_util = set_pct < 0 ? -1 : Q10_PCT(set_pct),
        };

        return consolidate_step(&params, &in, &c);
}

#define ck_assert_reason_has(needle) \
        ck_assert_msg(strstr(c.reason, (needle)), "reason \"%s\" lacks \"%s\"", c.reason, (needle))

START_TEST(test_defaults) {
        ck_assert(consolidate_params_valid(&params));
        ck_assert_uint_eq(params.exit_pct, 50);         /* the seed's crossover */
        ck_assert_uint_lt(params.headroom_pct_level2, params.headroom_pct);
        ck_assert_str_eq(c.reason, "off: level 0");
        params.hysteresis_pct = params.exit_pct;
        ck_assert(!consolidate_params_valid(&params));
}
END_TEST

START_TEST(test_needed) {
        ck_assert_uint_eq(consolidate_needed(&params, 1, 0), 1);           /* at least one */
        ck_assert_uint_eq(consolidate_needed(&params, 1, -1), 1);
        ck_assert_uint_eq(consolidate_needed(&params, 1, Q10_CPUS(0.5)), 1);  /* 0.625 */
        ck_assert_uint_eq(consolidate_needed(&params, 1, Q10_CPUS(0.7)), 1);  /* 0.875: 30% of two CPUs and more */
        ck_assert_uint_eq(consolidate_needed(&params, 1, Q10_CPUS(1)), 2);    /* 1.25 */
        ck_assert_uint_eq(consolidate_needed(&params, 2, Q10_CPUS(1)), 2);    /* 1.1 */
        ck_assert_uint_eq(consolidate_needed(&params, 1, Q10_CPUS(2)), 3);    /* 2.5 */
        ck_assert_uint_eq(consolidate_needed(&params, 2, Q10_CPUS(2.5)), 3);  /* 2.75 */
        ck_assert_uint_eq(consolidate_needed(&params, 1, Q10_CPUS(2.5)), 4);  /* 3.125 */
}
END_TEST

START_TEST(test_level0) {
        ck_assert_int_eq(step(0, 10, 0.5, -1), 0);
        ck_assert(!c.active);
        ck_assert_str_eq(c.reason, "off: level 0");
        ck_assert_int_eq(step(1, 10, 0.5, -1), 1);
        ck_assert(c.active);
        ck_assert_int_eq(step(0, 10, 0.5, -1), 1);      /* off again: changed */
        ck_assert(!c.active);
        ck_assert_uint_eq(cpuset_count(&c.set), 0);
        ck_assert_uint_eq(cpuset_count(&c.freed), 0);
        ck_assert_int_eq(step(3, 10, 0.5, -1), -EINVAL);
}
END_TEST

/* Nobody named a background: off at every level, nothing freed. */
START_TEST(test_no_background) {
        ConsolidateInput in = { .level = 1, .topology = big, .machine_util = Q10_PCT(10),
                                .background = Q10_CPUS(0.5), .set_util = -1, .no_background = true };

        ck_assert_int_eq(step(1, 10, 0.5, -1), 1);
        ck_assert(c.active);
        ck_assert_int_eq(consolidate_step(&params, &in, &c), 1);       /* off: changed */
        ck_assert(!c.active);
        ck_assert_uint_eq(cpuset_count(&c.freed), 0);
        ck_assert_reason_has("off: no background configured");
        in.level = 2;
        ck_assert_int_eq(consolidate_step(&params, &in, &c), 0);
        ck_assert(!c.active);
        ck_assert_uint_eq(c.level, 2);
}
END_TEST

START_TEST(test_unmeasured) {
        ck_assert_int_eq(step(1, -1, -1, -1), 0);
        ck_assert(!c.active);
        ck_assert_str_eq(c.reason, "off: no utilisation measured yet");
        ck_assert_int_eq(step(1, 10, 0.2, -1), 1);
        ck_assert_int_eq(step(1, -1, -1, -1), 0);       /* holds */
        ck_assert(c.active);
}
END_TEST

/* 1.2 CPUs of background at level 1: 1.8 → 2 CPUs, a core's two threads;
 * the other 14 are freed. */
START_TEST(test_sizing) {
        ck_assert_int_eq(step(1, 10, 1.2, -1), 1);
        ck_assert(c.active);
        ck_assert_uint_eq(c.size, 2);
        ck_assert_cpuset(&c.set, "0,8");
        ck_assert_cpuset(&c.freed, "1-7,9-15");
        ck_assert_str_eq(c.reason, "2 CPU(s): background 1.20 CPUs + 25% headroom needs 2");
        ck_assert_int_eq(step(1, 10, 1.2, -1), 0);      /* unchanged */
}
END_TEST

/* Grows at once, shrinks after shrink_ticks ticks in a row. */
START_TEST(test_hysteresis) {
        ck_assert_int_eq(step(1, 20, 1.0, -1), 1);
        ck_assert_uint_eq(c.size, 2);
        ck_assert_int_eq(step(1, 20, 3.0, 50), 1);      /* 3.75 → 4 at once */
        ck_assert_uint_eq(c.size, 4);
        ck_assert_cpuset(&c.set, "0-1,8-9");
        for (unsigned i = 1; i < params.shrink_ticks; i++) {
                ck_assert_int_eq(step(1, 20, 1.0, 30), 0);
                ck_assert_uint_eq(c.size, 4);
                ck_assert_reason_has("held: 2 would do");
        }
        ck_assert_int_eq(step(1, 20, 1.0, 30), 1);
        ck_assert_uint_eq(c.size, 2);
        ck_assert_reason_has("shrunk after 5 ticks");
        /* a tick that needs the size resets the count */
        ck_assert_int_eq(step(1, 20, 0.2, 10), 0);
        ck_assert_int_eq(step(1, 20, 1.0, 30), 0);
        ck_assert_uint_eq(c.below_ticks, 0);
        for (unsigned i = 1; i < params.shrink_ticks; i++)
                ck_assert_int_eq(step(1, 20, 0.2, 10), 0);
        ck_assert_uint_eq(c.size, 2);
        ck_assert_int_eq(step(1, 20, 0.2, 10), 1);
        ck_assert_uint_eq(c.size, 1);
}
END_TEST

/* A set busier than grow_pct grows by one though the measurement says it
 * is big enough. */
START_TEST(test_too_busy) {
        ck_assert_int_eq(step(1, 20, 0.5, -1), 1);
        ck_assert_uint_eq(c.size, 1);
        ck_assert_int_eq(step(1, 20, 0.5, 95), 1);
        ck_assert_uint_eq(c.size, 2);
        ck_assert_reason_has("grown by one: the set was 95% busy, above 80%");
        ck_assert_int_eq(step(1, 20, 0.5, 95), 1);
        ck_assert_uint_eq(c.size, 3);
}
END_TEST

/* Level 2's tighter headroom: 2.5 CPUs need 4 at level 1, 3 at level 2. */
START_TEST(test_level2) {
        ck_assert_int_eq(step(1, 20, 2.5, -1), 1);
        ck_assert_uint_eq(c.size, 4);
        ck_assert_int_eq(step(2, 20, 2.5, -1), 0);      /* held: shrinking waits */
        ck_assert_uint_eq(c.size, 4);
        consolidation_init(&c);
        ck_assert_int_eq(step(2, 20, 2.5, -1), 1);
        ck_assert_uint_eq(c.size, 3);
        ck_assert_reason_has("10% headroom");
}
END_TEST

/* Off above 50% machine utilisation, back below 40% only. */
START_TEST(test_machine_threshold) {
        ck_assert_int_eq(step(1, 30, 1.0, -1), 1);
        ck_assert_int_eq(step(1, 50, 1.0, -1), 0);      /* at the threshold: stays */
        ck_assert(c.active);
        ck_assert_int_eq(step(1, 70, 6.0, -1), 1);
        ck_assert(!c.active && c.suspended);
        ck_assert_reason_has("off: the machine is 70% busy, above 50%");
        ck_assert_reason_has("back below 40%");
        ck_assert_int_eq(step(1, 45, 1.0, -1), 0);      /* in the hysteresis band */
        ck_assert(!c.active);
        ck_assert_int_eq(step(1, 39, 1.0, -1), 1);
        ck_assert(c.active && !c.suspended);
        ck_assert_int_eq(step(0, 70, 1.0, -1), 1);      /* level 0 clears the suspension */
        ck_assert(!c.suspended);
}
END_TEST

/* Pinned CPUs: never in the set, not freed either; all pinned: off. */
START_TEST(test_pinned) {
        ConsolidateInput in = { .level = 1, .topology = big, .machine_util = Q10_PCT(10),
                                .background = Q10_CPUS(1.0), .set_util = -1 };
        CpuSet pinned;

        ck_assert_int_eq(cpuset_parse("0,1", &pinned, NULL), 0);
        in.pinned = &pinned;
        ck_assert_int_eq(consolidate_step(&params, &in, &c), 1);
        ck_assert_cpuset(&c.set, "8-9");
        ck_assert_cpuset(&c.freed, "2-7,10-15");
        ck_assert_int_eq(cpuset_parse("0-15", &pinned, NULL), 0);
        ck_assert_int_eq(consolidate_step(&params, &in, &c), 1);
        ck_assert(!c.active);
        ck_assert_str_eq(c.reason, "off: every online CPU is pinned");
}
END_TEST

/* This machine's 2 CPUs: 1 in the set, 1 freed; a background that needs
 * both frees nothing and says so. */
START_TEST(test_two_cpus) {
        topology_free(big);
        big = fake_topology(1, 2, 1, NULL);
        ck_assert_int_eq(step(1, 10, 0.1, -1), 1);
        ck_assert_cpuset(&c.set, "0");
        ck_assert_cpuset(&c.freed, "1");
        ck_assert_int_eq(step(1, 40, 0.9, -1), 1);
        ck_assert_cpuset(&c.set, "0-1");
        ck_assert_uint_eq(cpuset_count(&c.freed), 0);
        ck_assert_reason_has("nothing freed");
}
END_TEST

/* Offline CPUs are neither in the set nor freed. */
START_TEST(test_offline) {
        topology_free(big);
        big = fake_topology(1, 4, 1, "0");
        ck_assert_int_eq(step(1, 10, 0.5, -1), 1);
        ck_assert_cpuset(&c.set, "1");
        ck_assert_cpuset(&c.freed, "2-3");
}
END_TEST

int main(void) {
        Suite *s = suite_create("consolidate-step");
        TCase *tc = unit_tcase(s, "step");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_defaults);
        tcase_add_test(tc, test_needed);
        tcase_add_test(tc, test_level0);
        tcase_add_test(tc, test_no_background);
        tcase_add_test(tc, test_unmeasured);
        tcase_add_test(tc, test_sizing);
        tcase_add_test(tc, test_hysteresis);
        tcase_add_test(tc, test_too_busy);
        tcase_add_test(tc, test_level2);
        tcase_add_test(tc, test_machine_threshold);
        tcase_add_test(tc, test_pinned);
        tcase_add_test(tc, test_two_cpus);
        tcase_add_test(tc, test_offline);
        return unit_run(s);
}
