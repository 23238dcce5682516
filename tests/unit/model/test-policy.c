/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-CPU policy: every reason, its precedence, the evidence of
 * misdescribed and disabled neighbours, exploration, hysteresis. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test-model-helpers.h"
#include "policy-internal.h"

enum { POLL, C1, C1E, C6 };

/* Skylake-SP as intel_idle describes it. */
static PolicyTick skylake_tick(void) {
        PolicyTick t = {
                .n_states = 4,
                .states = {
                        { .latency_us = 0, .residency_us = 0, .polling = true },
                        { .latency_us = 2, .residency_us = 2 },
                        { .latency_us = 10, .residency_us = 20 },
                        { .latency_us = 133, .residency_us = 600 },
                },
                .interval_us = 1000000,
                .util = -1,
        };
        return t;
}


typedef struct Env {
        Profile prof;
        ModelCpu m;
        CpuPlan plan;
        uint64_t rng;
} Env;

static uint32_t rnd(uint64_t *x) {
        *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
        return (uint32_t) (*x >> 32);
}

static void env_init(Env *e, unsigned n) {
        profile_init(&e->prof, "test");
        e->prof.burn_price = 1024;      /* at par: the cases below are priced by hand */
        e->prof.explore_shift = 0;
        model_cpu_init(&e->m, n);
        cpu_plan_init(&e->plan, n);
        e->rng = 1;
}

/* Four states, moves allowed at once. */
static void env_quick(Env *e) {
        env_init(e, 4);
        e->prof.hold_ticks = 0;
}

/* One daemon tick: evidence against the plan in force, learn, decide.
 * Returns policy_decide_cpu()'s verdict. */
static int env_tick(Env *e, const PolicyTick *t) {
        ModelEvidence ev[MODEL_STATES_MAX];
        ModelParams mp;
        bool enabled[MODEL_STATES_MAX];

        cpu_plan_enabled(&e->plan, t, enabled);
        policy_evidence(t, enabled, ev);
        policy_model_params(&e->prof, &mp);
        ck_assert_int_eq(model_cpu_learn(&e->m, ev, enabled, &mp), 0);
        return policy_decide_cpu(&e->prof, &e->m, t, rnd(&e->rng), &e->plan);
}

START_TEST(test_reason_names) {
        ck_assert_str_eq(plan_reason_to_string(PLAN_REASON_NONE), "none");
        ck_assert_str_eq(plan_reason_to_string(PLAN_REASON_PROFILE_LIMIT), "profile-limit");
        ck_assert_str_eq(plan_reason_to_string(PLAN_REASON_HOLD), "hold");
        for (PlanReason r = PLAN_REASON_NONE; r < _PLAN_REASON_MAX; r++)
                ck_assert_ptr_nonnull(plan_reason_to_string(r));
        ck_assert_ptr_null(plan_reason_to_string(_PLAN_REASON_MAX));
}
END_TEST

START_TEST(test_initial_plan) {
        PolicyTick t = skylake_tick();
        bool enabled[MODEL_STATES_MAX];
        CpuPlan p;
        Env e;

        cpu_plan_init(&p, 4);
        ck_assert_uint_eq(p.cap, C6);
        ck_assert_uint_eq(p.floor, POLL);
        cpu_plan_enabled(&p, &t, enabled);
        for (unsigned s = 0; s < 4; s++)
                ck_assert(enabled[s]);
        ck_assert(!enabled[4]);

        env_init(&e, 3);
        ck_assert_int_eq(policy_decide_cpu(&e.prof, &e.m, &t, 0, &e.plan), -EINVAL);
        env_init(&e, 4);
        ck_assert_int_eq(env_tick(&e, &t), 0);     /* nothing learned yet: nothing moves */
        ck_assert_uint_eq(e.plan.cap, C6);
        ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_NONE);
}
END_TEST

/* The latency limit bounds the cap; the calibrated latency is the one that
 * counts, and a state excluded only by it says MISDESCRIBED. */
START_TEST(test_profile_limit) {
        PolicyTick t = skylake_tick();
        Env e;

        env_init(&e, 4);
        e.prof.latency_limit_us = 20;
        ck_assert_int_eq(env_tick(&e, &t), 1);
        ck_assert_uint_eq(e.plan.cap, C1E);
        ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_PROFILE_LIMIT);

        t.states[C1E].real_latency_us = 30;
        t.states[C1E].misdescribed = true;
        ck_assert_int_eq(env_tick(&e, &t), 1);
        ck_assert_uint_eq(e.plan.cap, C1);
        ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_MISDESCRIBED);

        /* even the shallowest state over the limit stays allowed */
        e.prof.latency_limit_us = 1;
        t.states[POLL].manual_disabled = true;
        env_tick(&e, &t);
        ck_assert_uint_eq(e.plan.cap, C1);
        ck_assert_uint_eq(e.plan.floor, C1);
        ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_PROFILE_LIMIT);
        ck_assert_int_eq(e.plan.floor_reason, PLAN_REASON_MANUAL);
}
END_TEST

/* Manual settings bound the plan and are never re-enabled, not even by
 * exploration. */
START_TEST(test_manual) {
        PolicyTick t = skylake_tick();
        bool enabled[MODEL_STATES_MAX];
        Env e;

        env_init(&e, 4);
        t.states[C6].manual_disabled = true;
        t.states[POLL].manual_disabled = true;
        env_tick(&e, &t);
        ck_assert_uint_eq(e.plan.cap, C1E);
        ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_MANUAL);
        ck_assert_uint_eq(e.plan.floor, C1);
        ck_assert_int_eq(e.plan.floor_reason, PLAN_REASON_MANUAL);

        /* a hole in the middle: C1E disabled by hand, the model caps at C1,
         * exploration lifts the cap past the hole to C6 */
        env_init(&e, 4);
        t = skylake_tick();
        t.states[C1E].manual_disabled = true;
        e.prof.explore_shift = 1;
        e.plan.model_cap = C1;
        for (unsigned i = 0; i < 200; i++) {
                policy_decide_cpu(&e.prof, &e.m, &t, rnd(&e.rng), &e.plan);
                cpu_plan_enabled(&e.plan, &t, enabled);
                ck_assert(!enabled[C1E]);
                if (e.plan.exploring) {
                        ck_assert_uint_eq(e.plan.cap, C6);
                        ck_assert(enabled[C6]);
                }
        }
}
END_TEST

/* hackbench on a deep state: every C6 entry too deep.  The model caps at
 * C1E after hold_ticks, says HOLD while it waits, and stays there. */
START_TEST(test_model_cap) {
        PolicyTick t = skylake_tick();
        Env e;

        env_init(&e, 4);
        e.prof.hold_ticks = 2;
        counters(&t, C1E, 1000, 30, 0, 0);
        counters(&t, C6, 1000, 30, 1000, 0);
        ck_assert_int_eq(env_tick(&e, &t), 1);       /* the first move needs no wait */
        ck_assert_uint_eq(e.plan.cap, C1E);
        ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_MODEL);
        /* C6 disabled now: its entries go to C1E, short ones */
        counters(&t, C6, 0, 0, 0, 0);
        counters(&t, C1E, 2000, 30, 0, 0);
        for (unsigned i = 0; i < 50; i++) {
                ck_assert_int_eq(env_tick(&e, &t), 0);
                ck_assert_uint_eq(e.plan.cap, C1E);
                ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_MODEL);
        }
        /* the load turns into long sleeps: the estimate says C1E is too
         * shallow, and C1E's entries, 5 ms on average, would pay in C6:
         * the cap lifts at once (the last move is long past hold_ticks) */
        counters(&t, C1E, 200, 5000, 0, 0);
        ck_assert_int_eq(env_tick(&e, &t), 1);
        ck_assert_uint_eq(e.plan.cap, C6);
        ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_NONE);
        /* and straight back to short idles: C6 too deep again, but the cap
         * moved a tick ago: HOLD for hold_ticks ticks, then MODEL */
        counters(&t, C1E, 1000, 30, 0, 0);
        counters(&t, C6, 1000, 30, 1000, 0);
        ck_assert_int_eq(env_tick(&e, &t), 0);
        ck_assert_uint_eq(e.plan.cap, C6);
        ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_HOLD);
        ck_assert_int_eq(env_tick(&e, &t), 0);
        ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_HOLD);
        ck_assert_int_eq(env_tick(&e, &t), 1);
        ck_assert_uint_eq(e.plan.cap, C1E);
        ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_MODEL);
}
END_TEST

/* The rows say when, the price says whether.  Half of C6's entries are
 * too deep in both cases; when the other half are long sleeps (mean 3 ms,
 * far above C6's 600 µs break-even) capping would cost energy and the cap
 * stays; when the entries are short on average it comes down. */
START_TEST(test_price_gate) {
        PolicyTick t = skylake_tick();
        Env e;

        env_quick(&e);
        t.d_other_wakeups = 2000;
        counters(&t, C1E, 1000, 30, 0, 0);
        counters(&t, C6, 1000, 3000, 500, 0);
        for (unsigned i = 0; i < 10; i++) {
                ck_assert_int_eq(env_tick(&e, &t), 0);
                ck_assert_uint_eq(e.plan.cap, C6);
        }
        ck_assert_uint_gt(model_evidence_shallower(&e.m, C6), e.prof.too_deep_tolerance);
        counters(&t, C6, 1000, 300, 500, 0);
        ck_assert_int_eq(env_tick(&e, &t), 1);
        ck_assert_uint_eq(e.plan.cap, C1E);
        ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_MODEL);

        /* entries a little past the break-even: at par (burn_price 1) the
         * 123 µs of exit latency saved per wakeup outweigh
         * (1/4 - 1/8) × 100 µs of power; at a price of 16 they do not */
        env_quick(&e);
        counters(&t, C6, 1000, 700, 500, 0);
        env_tick(&e, &t);
        ck_assert_uint_eq(e.plan.cap, C1E);
        env_quick(&e);
        e.prof.burn_price = 16 * 1024;
        env_tick(&e, &t);
        ck_assert_uint_eq(e.plan.cap, C6);
}
END_TEST

/* Every C6 and C1E entry is too deep and short: the cap comes down past
 * both in one move, to the state the rows find right. */
START_TEST(test_cap_walk) {
        PolicyTick t = skylake_tick();
        Env e;

        env_quick(&e);
        t.d_other_wakeups = 3000;
        counters(&t, C1, 1000, 3, 0, 0);
        counters(&t, C1E, 1000, 3, 1000, 0);
        counters(&t, C6, 1000, 3, 1000, 0);
        ck_assert_int_eq(env_tick(&e, &t), 1);
        ck_assert_uint_eq(e.plan.cap, C1);
        ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_MODEL);
}
END_TEST

/* POLL entries that outlast C1's residency: the floor goes to C1 and holds;
 * when the load turns to very short idles, the floor comes back down. */
START_TEST(test_model_floor) {
        PolicyTick t = skylake_tick();
        Env e;

        env_quick(&e);
        counters(&t, POLL, 1000, 50, 0, 1000);
        counters(&t, C1, 1000, 50, 0, 0);
        env_tick(&e, &t);
        ck_assert_uint_eq(e.plan.floor, C1);
        ck_assert_int_eq(e.plan.floor_reason, PLAN_REASON_MODEL);
        counters(&t, POLL, 0, 0, 0, 0);
        counters(&t, C1, 2000, 50, 0, 0);
        t.d_other_wakeups = 2000;
        for (unsigned i = 0; i < 20; i++)
                env_tick(&e, &t);
        ck_assert_uint_eq(e.plan.floor, C1);
        /* 1 µs idles, all ended by IPIs: C1 (2 µs) is too deep */
        counters(&t, C1, 2000, 1, 0, 0);
        for (unsigned i = 0; i < 30 && e.plan.floor == C1; i++)
                env_tick(&e, &t);
        ck_assert_uint_eq(e.plan.floor, POLL);
}
END_TEST

/* Above the threshold the util rule caps at the shallowest non-polling
 * state; it lets go only below threshold - hysteresis.  It beats the
 * model and is never explored past. */
START_TEST(test_util_rule) {
        PolicyTick t = skylake_tick();
        Env e;

        env_init(&e, 4);
        e.prof.util_threshold = 614;      /* 60% */
        e.prof.util_hysteresis = 102;     /* 10% */
        e.prof.explore_shift = 1;
        t.util = 700;
        ck_assert_int_eq(env_tick(&e, &t), 1);
        ck_assert_uint_eq(e.plan.cap, C1);
        ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_UTIL);
        ck_assert(e.plan.util_active);
        t.util = 550;
        for (unsigned i = 0; i < 100; i++) {
                env_tick(&e, &t);
                ck_assert_uint_eq(e.plan.cap, C1);
                ck_assert(!e.plan.exploring);
        }
        t.util = -1;                       /* unknown: keep the rule's state */
        env_tick(&e, &t);
        ck_assert_uint_eq(e.plan.cap, C1);
        t.util = 500;
        ck_assert_int_eq(env_tick(&e, &t), 1);
        ck_assert_uint_eq(e.plan.cap, C6);
        ck_assert(!e.plan.util_active);
        /* 1024 = off */
        e.prof.util_threshold = 1024;
        t.util = 1024;
        env_tick(&e, &t);
        ck_assert_uint_eq(e.plan.cap, C6);
}
END_TEST

/* KVM: "haltpoll idle" advertises 1 µs but costs 40.  The kernel says
 * "never too deep" and "polling always too shallow"; the evidence says the
 * opposite once the state is known to be misdescribed. */
START_TEST(test_misdescribed_evidence) {
        PolicyTick t = {
                .n_states = 2,
                .states = {
                        { .polling = true },
                        { .latency_us = 1, .residency_us = 1, .real_latency_us = 40 },
                },
                .interval_us = 1000000,
                .d_other_wakeups = 2000,
        };
        bool enabled[MODEL_STATES_MAX] = { true, true };
        ModelEvidence ev[MODEL_STATES_MAX];

        counters(&t, 0, 1000, 10, 0, 1000);
        counters(&t, 1, 1000, 30, 0, 0);
        policy_evidence(&t, enabled, ev);
        ck_assert_uint_eq(ev[1].too_deep, 0);
        ck_assert_uint_eq(ev[0].too_shallow, 1000);

        t.states[1].misdescribed = true;
        ck_assert_uint_eq(policy_residency_us(&t.states[1]), 80);
        ck_assert_uint_eq(policy_latency_us(&t.states[1]), 40);
        policy_evidence(&t, enabled, ev);
        /* 1 - e^(-80/30) = 0.930 */
        ck_assert_uint_ge(ev[1].too_deep, 925);
        ck_assert_uint_le(ev[1].too_deep, 935);
        ck_assert_uint_eq(ev[1].too_shallow, 0);
        /* e^(-80/10) = 0.0003 */
        ck_assert_uint_le(ev[0].too_shallow, 1);
        ck_assert_uint_eq(ev[0].usage, 1000);

        /* half the wakeups are timers: only the surprises end early */
        t.d_timer_wakeups = 2000;
        policy_evidence(&t, enabled, ev);
        ck_assert_uint_ge(ev[1].too_deep, 460);
        ck_assert_uint_le(ev[1].too_deep, 468);

        /* a calibrated break-even overrides the derived one */
        t.states[1].real_residency_us = 30;
        policy_evidence(&t, enabled, ev);
        ck_assert_uint_ge(ev[1].too_deep, 312);    /* 1000 × 1/2 × (1 - e^-1) = 316 */
        ck_assert_uint_le(ev[1].too_deep, 320);
}
END_TEST

/* A plan-disabled neighbour: the kernel counts nothing against it, the
 * evidence estimates it. */
START_TEST(test_censored_evidence) {
        PolicyTick t = skylake_tick();
        bool enabled[MODEL_STATES_MAX] = { true, true, true, false };
        ModelEvidence ev[MODEL_STATES_MAX];

        counters(&t, C1E, 1000, 600, 100, 0);
        policy_evidence(&t, enabled, ev);
        ck_assert_uint_eq(ev[C1E].too_deep, 100);
        /* e^(-600/600) = 0.368 */
        ck_assert_uint_ge(ev[C1E].too_shallow, 364);
        ck_assert_uint_le(ev[C1E].too_shallow, 372);

        enabled[POLL] = enabled[C1] = false;
        enabled[C6] = true;
        counters(&t, C1E, 1000, 10, 999, 5);
        t.d_other_wakeups = 1000;
        policy_evidence(&t, enabled, ev);
        /* 1 - e^(-20/10) = 0.865 */
        ck_assert_uint_ge(ev[C1E].too_deep, 860);
        ck_assert_uint_le(ev[C1E].too_deep, 870);
        ck_assert_uint_eq(ev[C1E].too_shallow, 5);
        ck_assert_uint_eq(ev[POLL].usage, 0);
}
END_TEST

START_TEST(test_exp_table) {
        ck_assert_uint_eq(policy_exp_neg_q10(0, 0), 1024);
        ck_assert_uint_eq(policy_exp_neg_q10(1, 0), 0);
        ck_assert_uint_eq(policy_exp_neg_q10(1, 1), 377);          /* e^-1 */
        ck_assert_uint_eq(policy_exp_neg_q10(1, 2), 621);          /* e^-0.5 */
        ck_assert_uint_eq(policy_exp_neg_q10(3, 1), 51);           /* e^-3 */
        ck_assert_uint_eq(policy_exp_neg_q10(16, 1), 0);
        ck_assert_uint_eq(policy_exp_neg_q10(UINT64_MAX, UINT64_MAX), 377);
}
END_TEST

/* A model cap that the rows keep in place: exploration lifts it one state
 * for one tick with probability (W[cap][>cap] + 32) >> explore_shift. */
START_TEST(test_exploration_rate) {
        static const uint16_t cap_row[] = { 100, 200, 524, 200 };
        static const uint16_t capped_row[] = { 100, 200, 500, 224 };
        PolicyTick t = skylake_tick();

        for (unsigned shift = 0; shift <= 4; shift++) {
                unsigned explored = 0, ticks = 200000, expect;
                Env e;

                env_init(&e, 4);
                e.prof.explore_shift = shift;
                e.prof.hold_ticks = 0;
                ck_assert_int_eq(model_cpu_set_row(&e.m, C1E, cap_row, 4), 0);
                ck_assert_int_eq(model_cpu_set_row(&e.m, C6, capped_row, 4), 0);
                e.plan.model_cap = C1E;
                for (unsigned i = 0; i < ticks; i++) {
                        policy_decide_cpu(&e.prof, &e.m, &t, rnd(&e.rng), &e.plan);
                        ck_assert_uint_eq(e.plan.model_cap, C1E);
                        if (e.plan.exploring) {
                                explored++;
                                ck_assert_uint_eq(e.plan.cap, C6);
                                ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_EXPLORATION);
                        } else {
                                ck_assert_uint_eq(e.plan.cap, C1E);
                                ck_assert_int_eq(e.plan.cap_reason, PLAN_REASON_MODEL);
                        }
                }
                if (shift == 0) {
                        ck_assert_uint_eq(explored, 0);
                        continue;
                }
                expect = (unsigned) ((uint64_t) ticks * ((200 + 32) >> shift) / 1024);
                ck_assert_msg(explored > expect * 95 / 100 && explored < expect * 105 / 100,
                              "shift %u: explored %u, expected %u", shift, explored, expect);
        }
}
END_TEST

/* Evidence that flips every tick, and rows that are random: the model
 * moves its cap and floor at most once per hold_ticks + 1 ticks. */
START_TEST(test_hold_no_flapping) {
        PolicyTick t = skylake_tick();
        uint64_t x = 7;

        for (unsigned hold = 0; hold <= 5; hold++) {
                unsigned moves = 0, ticks = 600;
                Env e;

                env_init(&e, 4);
                e.prof.hold_ticks = hold;
                e.prof.learn_shift = 1;
                for (unsigned i = 0; i < ticks; i++) {
                        unsigned cap = e.plan.model_cap, floor = e.plan.model_floor;
                        bool flip = i % 2;

                        counters(&t, POLL, 1000, 5, 0, flip ? 1000 : 0);
                        counters(&t, C1, 1000, 5, flip ? 0 : 900, 0);
                        counters(&t, C1E, 1000, 30, flip ? 0 : 1000, flip ? 1000 : 0);
                        counters(&t, C6, 1000, 700, flip ? 1000 : 0, 0);
                        t.util = (int) (rnd(&x) % 1025);
                        env_tick(&e, &t);
                        moves += cap != e.plan.model_cap || floor != e.plan.model_floor;
                }
                ck_assert_msg(moves <= ticks / (hold + 1) + 1, "hold %u: %u moves", hold, moves);
                if (hold >= 2)
                        ck_assert_uint_gt(moves, 0);
        }
}
END_TEST

/* Random rows, random profiles, random manual bits: floor <= cap < n, at
 * least one state allowed unless everything is disabled by hand, manual
 * states never allowed. */
START_TEST(test_invariants) {
        uint64_t x = 99;

        for (unsigned round = 0; round < 3000; round++) {
                unsigned n = 1 + rnd(&x) % MODEL_STATES_MAX, allowed = 0, manual = 0;
                PolicyTick t = { .n_states = n, .util = (int) (rnd(&x) % 1100) - 50 };
                bool enabled[MODEL_STATES_MAX];
                Env e;

                env_init(&e, n);
                e.prof.latency_limit_us = rnd(&x) % 3 ? 0 : rnd(&x) % 200;
                e.prof.util_threshold = rnd(&x) % 1025;
                e.prof.util_hysteresis = rnd(&x) % (e.prof.util_threshold + 1);
                e.prof.too_deep_tolerance = rnd(&x) % 1025;
                e.prof.too_shallow_tolerance = rnd(&x) % 1025;
                e.prof.explore_shift = rnd(&x) % 4;
                e.prof.hold_ticks = rnd(&x) % 3;
                for (unsigned s = 0; s < n; s++) {
                        t.states[s] = (PolicyState) { .latency_us = s * s * 10, .residency_us = s * s * 30,
                                                      .polling = s == 0, .manual_disabled = rnd(&x) % 5 == 0 };
                        counters(&t, s, rnd(&x) % 1000, rnd(&x) % 1000, 0, 0);
                        t.d_above[s] = t.d_usage[s] / 3;
                        t.d_below[s] = t.d_usage[s] / 3;
                        manual += t.states[s].manual_disabled;
                }
                for (unsigned tick = 0; tick < 10; tick++) {
                        env_tick(&e, &t);
                        ck_assert_uint_le(e.plan.floor, e.plan.cap);
                        ck_assert_uint_lt(e.plan.cap, n);
                        ck_assert_uint_le(e.plan.model_floor, e.plan.model_cap);
                        ck_assert_ptr_nonnull(plan_reason_to_string(e.plan.cap_reason));
                        ck_assert_ptr_nonnull(plan_reason_to_string(e.plan.floor_reason));
                }
                cpu_plan_enabled(&e.plan, &t, enabled);
                for (unsigned s = 0; s < n; s++) {
                        allowed += enabled[s];
                        if (t.states[s].manual_disabled)
                                ck_assert(!enabled[s]);
                }
                if (manual < n)
                        ck_assert_uint_ge(allowed, 1);
        }
}
END_TEST

static Suite *policy_suite(void) {
        Suite *s = suite_create("policy");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_reason_names);
        tcase_add_test(tc, test_initial_plan);
        tcase_add_test(tc, test_profile_limit);
        tcase_add_test(tc, test_manual);
        tcase_add_test(tc, test_model_cap);
        tcase_add_test(tc, test_price_gate);
        tcase_add_test(tc, test_cap_walk);
        tcase_add_test(tc, test_model_floor);
        tcase_add_test(tc, test_util_rule);
        tcase_add_test(tc, test_misdescribed_evidence);
        tcase_add_test(tc, test_censored_evidence);
        tcase_add_test(tc, test_exp_table);
        tcase_add_test(tc, test_exploration_rate);
        tcase_add_test(tc, test_hold_no_flapping);
        tcase_add_test(tc, test_invariants);
        tcase_set_timeout(tc, 60);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return model_test_run(policy_suite());
}
