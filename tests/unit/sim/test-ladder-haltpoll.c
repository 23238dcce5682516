/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ladder, haltpoll and oracle on hand-computed cases. */
#include <errno.h>

#include "test-sim-helpers.h"

enum { POLL, C1, C1E, C6 };
enum { KVM_POLL, KVM_HALT };

/* ladder starts at the first non-polling state and climbs after four
 * periods above the current state's exit latency (C1: 2 µs): selections
 * 1-4 stay in C1, the fifth is C1E.  One period shorter than C1E's exit
 * latency (10 µs) steps back down. */
START_TEST(test_ladder_climbs_and_falls) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("ladder", &t);

        for (unsigned i = 0; i < 4; i++)
                ck_assert_uint_eq(gov_step(g, MS(10), MS(1), 0), C1);
        ck_assert_uint_eq(gov_step(g, MS(10), US(5), 0), C1E);
        ck_assert_uint_eq(gov_step(g, MS(10), MS(1), 0), C1);
        governor_free(g);
}
END_TEST

/* Never polls, and leaves a state the latency limit forbids at once. */
START_TEST(test_ladder_limits) {
        SimTable t = table_from(TABLE_SKYLAKE);
        Governor *g = gov_new("ladder", &t);

        for (unsigned i = 0; i < 12; i++)
                gov_step(g, MS(10), MS(1), 0);
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0), C6);
        g->ops->reflect(g, C6, MS(1), false);
        ck_assert_uint_eq(gov_pick(g, MS(10), US(50), 0), C1E);
        for (unsigned i = 0; i < 8; i++)
                ck_assert_uint_ne(gov_step(g, US(1), US(1), 0), POLL);
        governor_free(g);
}
END_TEST

static uint64_t window(const Governor *g) {
        return g->ops->poll_limit_ns(g);
}

/* The poll window starts at 0 (halt at once); a wakeup 30 µs into a halt
 * grows it to grow_start (50 µs); polling for the whole window then halts;
 * a wakeup 150 µs after going idle (50 polled + 100 halted) doubles it to
 * 100 µs; a wakeup inside the window keeps polling; one after
 * guest_halt_poll_ns (200 µs) halves it. */
START_TEST(test_haltpoll_window) {
        SimTable t = table_from(TABLE_KVM);
        Governor *g = gov_new("haltpoll", &t);

        ck_assert_uint_eq(window(g), 0);
        ck_assert_uint_eq(gov_step(g, MS(10), US(30), 0), KVM_HALT);
        ck_assert_uint_eq(window(g), US(50));
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0), KVM_POLL);
        g->ops->reflect(g, KVM_POLL, US(50), true);
        ck_assert_uint_eq(gov_step(g, MS(10), US(100), 0), KVM_HALT);
        ck_assert_uint_eq(window(g), US(100));
        ck_assert_uint_eq(gov_step(g, MS(10), US(20), 0), KVM_POLL);
        ck_assert_uint_eq(gov_pick(g, MS(10), SIM_NO_LIMIT, 0), KVM_POLL);
        g->ops->reflect(g, KVM_POLL, US(100), true);
        ck_assert_uint_eq(gov_step(g, MS(10), MS(1), 0), KVM_HALT);
        ck_assert_uint_eq(window(g), US(50));
        governor_free(g);
}
END_TEST

START_TEST(test_haltpoll_params_and_tables) {
        SimTable kvm = table_from(TABLE_KVM), skl = table_from(TABLE_SKYLAKE);
        GovParams p;
        Governor *g = NULL;

        gov_params_init(&p);
        ck_assert_int_eq(governor_new(&governor_haltpoll, &skl, &p, &g), -EOPNOTSUPP);
        ck_assert_int_eq(gov_params_set(&p, "guest_halt_poll_grow_start", "10000"), 0);
        ck_assert_int_eq(gov_params_set(&p, "guest_halt_poll_allow_shrink", "0"), 0);
        ck_assert_int_eq(governor_new(&governor_haltpoll, &kvm, &p, &g), 0);
        gov_step(g, MS(10), US(5), 0);
        ck_assert_uint_eq(window(g), US(10));
        gov_step(g, MS(10), MS(5), 0);                   /* a poll: the window stays */
        ck_assert_uint_eq(window(g), US(10));
        /* A latency limit of 0 means poll. */
        ck_assert_uint_eq(gov_pick(g, MS(10), 0, 0), KVM_POLL);
        governor_free(g);
}
END_TEST

/* The oracle knows the duration and uses the real costs. */
START_TEST(test_oracle) {
        SimTable t = table_from("snooze 0 0 polling\nstop0_lite 0 2 1 10\nstop0 2 20\nstop4 100 10000\n");
        Governor *g = gov_new("oracle", &t);

        ck_assert_uint_eq(gov_step(g, MS(100), US(5), 0), 0);     /* real 10 µs: snooze */
        ck_assert_uint_eq(gov_step(g, US(1), US(15), 0), 1);      /* the timer does not matter */
        ck_assert_uint_eq(gov_step(g, US(1), MS(50), 0), 3);
        {
                GovInput in = { .sleep_length_ns = MS(100), .latency_limit_ns = US(50), .future_ns = MS(50) };
                ck_assert_uint_eq(g->ops->select(g, &in), 2);
        }
        governor_free(g);
}
END_TEST

int main(void) {
        Suite *s = suite_create("sim-ladder-haltpoll");
        TCase *tc = tcase_create("ladder-haltpoll");

        tcase_add_test(tc, test_ladder_climbs_and_falls);
        tcase_add_test(tc, test_ladder_limits);
        tcase_add_test(tc, test_haltpoll_window);
        tcase_add_test(tc, test_haltpoll_params_and_tables);
        tcase_add_test(tc, test_oracle);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
