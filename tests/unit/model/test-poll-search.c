/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The poll frontier search on synthetic machines: each arm makes some
 * progress for some CPU (the stock frontier of bench/results/live-frontier.md
 * turned into rates), with and without the tick-to-tick noise a real
 * program shows; the arm it holds, how often it leaves it, the change
 * detection, the samples it refuses, the log2 it prices with. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-model-helpers.h"
#include "poll-search.h"

#define TICK_US 100000u
#define WEIGHT 1024u

/* Per arm: progress (context switches per second) and CPU (CPU-µs per
 * second, 2 CPUs: up to 2000000); where given, the idle periods: polls
 * and halts per second, and the halts' mean length in µs. */
typedef struct Machine {
        double progress[POLL_SEARCH_ARMS];
        double cpu[POLL_SEARCH_ARMS];
        double polls[POLL_SEARCH_ARMS];
        double halts[POLL_SEARCH_ARMS];
        double halt_us[POLL_SEARCH_ARMS];
} Machine;

/* pgbench, one client (tps × 4 as switches; CPU s of a 4 s run / 4):
 * the 100 µs window makes the most per CPU second. */
static const Machine PGBENCH = {
        { 9222 * 4.0, 12648 * 4.0, 24901 * 4.0, 31660 * 4.0, 26285 * 4.0, 27238 * 4.0 },
        { 877500, 1182500, 1797500, 1990000, 1990000, 2007500 },
};
/* stress-ng nanosleep: polling adds 17% of ops for 140% of CPU. */
static const Machine NANOSLEEP = {
        { 8395 * 16.0, 8702 * 16.0, 9427 * 16.0, 9849 * 16.0, 9297 * 16.0, 9481 * 16.0 },
        { 835000, 1230000, 1987500, 2005000, 2005000, 2057500 },
};
/* cyclictest: a fixed rate, whatever the window. */
static const Machine CYCLICTEST = {
        { 4000, 4000, 4000, 4000, 4000, 4000 },
        { 70000, 107500, 92500, 102500, 115000, 2035000 },
};
/* pgbench, one client, as the daemon saw it on this VM (the daemon's
 * debug log of a bench/live --logs run): no polling and the 25 µs window
 * make the same progress, the 25 µs window for more CPU; the 50 µs
 * window more than triples it.  The 100 µs window is best. */
static const Machine CLIFF = {
        { 32000, 32000, 110000, 130000, 110000, 110000 },
        { 900000, 1000000, 1900000, 1990000, 1990000, 2000000 },
};
/* Threads sleeping 100 µs between short bursts (ebizzy): a window pays
 * only past 100 µs, and not its CPU.  The windows above 25 µs need not
 * even be tried. */
static const Machine LONG_SLEEPS = {
        { 20000, 20000, 20300, 20600, 21500, 21500 },
        { 160000, 250000, 320000, 900000, 1900000, 2000000 },
};
/* An idle machine. */
static const Machine IDLE = {
        { 80, 90, 90, 90, 90, 90 },
        { 8000, 9000, 9500, 10000, 11000, 2000000 },
};

/* A deterministic generator for the noise and the probes' direction. */
static uint32_t next_random(uint64_t *state) {
        *state = *state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
        return (uint32_t) (*state >> 32);
}

/* One tick of m under the arm the search asked for; progress scaled by a
 * factor uniform in [1 - noise, 1 + noise]. */
static PollSearchSample tick(const Machine *m, unsigned arm, double noise, uint64_t *rng) {
        double f = 1.0 + noise * (2.0 * (double) next_random(rng) / 4294967296.0 - 1.0);

        return (PollSearchSample) {
                .arm = (int) arm,
                .progress = (uint64_t) (m->progress[arm] * f * TICK_US / 1e6),
                .burned_us = (uint64_t) (m->cpu[arm] * TICK_US / 1e6),
                .interval_us = TICK_US,
                .polls = (uint64_t) (m->polls[arm] * TICK_US / 1e6),
                .halts = (uint64_t) (m->halts[arm] * TICK_US / 1e6),
                .halted_us = (uint64_t) (m->halts[arm] * m->halt_us[arm] * TICK_US / 1e6),
        };
}

/* Runs ticks ticks of m; *ret_away counts the ticks not under want. */
static void run(PollSearch *ps, const Machine *m, unsigned ticks, double noise, uint64_t *rng, unsigned want,
                unsigned *ret_away) {
        for (unsigned t = 0; t < ticks; t++) {
                PollSearchSample s = tick(m, ps->arm, noise, rng);

                if (ret_away && s.arm != (int) want)
                        (*ret_away)++;
                (void) poll_search_step(ps, &s, WEIGHT);
        }
}

START_TEST(test_log2) {
        ck_assert_int_eq(poll_search_log2_q10(0), 0);
        ck_assert_int_eq(poll_search_log2_q10(1), 0);
        ck_assert_int_eq(poll_search_log2_q10(2), 1024);
        ck_assert_int_eq(poll_search_log2_q10(1024), 10240);
        /* To the last bit (each squaring truncates): */
        ck_assert_int_le(llabs(poll_search_log2_q10(3) - 1623), 1);          /* 1.58496 × 1024 = 1622.998 */
        ck_assert_int_le(llabs(poll_search_log2_q10(1000000) - 20410), 1);   /* 19.93157 × 1024 = 20409.9 */
        ck_assert_int_eq(poll_search_log2_q10(UINT64_MAX), 64 * 1024 - 1);
        for (uint64_t x = 1, prev = 0; x < UINT64_C(1) << 40; x = x * 3 / 2 + 1) {
                int64_t l = poll_search_log2_q10(x);

                ck_assert_int_ge(l, (int64_t) prev);
                prev = (uint64_t) l;
        }
}
END_TEST

/* Without noise the climb alone finds each machine's best arm. */
START_TEST(test_climb_finds_the_best) {
        const struct {
                const Machine *m;
                unsigned want;
        } cases[] = { { &PGBENCH, 3 }, { &NANOSLEEP, 0 }, { &CYCLICTEST, 0 }, { &IDLE, 0 }, { &CLIFF, 3 },
                      { &LONG_SLEEPS, 0 } };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                PollSearch ps;
                uint64_t rng = 1;

                poll_search_reset(&ps);
                run(&ps, cases[i].m, 40, 0.0, &rng, 0, NULL);
                ck_assert_msg(ps.best == cases[i].want, "case %zu: holds arm %u, wants %u", i, ps.best, cases[i].want);
                ck_assert_uint_eq(ps.climbs, 1);
                ck_assert_int_eq(ps.phase == POLL_SEARCH_HOLD || ps.phase == POLL_SEARCH_PROBE, 1);
        }
}
END_TEST

/* The noise-free utility of each arm of m (Q10). */
static void true_utilities(const Machine *m, int64_t u[POLL_SEARCH_ARMS]) {
        uint64_t rng = 1;

        for (unsigned a = 0; a < POLL_SEARCH_ARMS; a++) {
                PollSearchSample s = tick(m, a, 0.0, &rng);

                u[a] = poll_search_utility(&s, WEIGHT);
        }
}

/* With ±25% of tick-to-tick noise on progress (pgbench's, measured): over
 * 60 s of 100 ms ticks, on 200 seeds, the best arm is held most of the
 * time: the others (climbs, probes, a climb the noise misled until the
 * probes prove it wrong) take under 15% of the ticks on average; and in
 * no run do arms worse than the best by more than 0.5 log2 (no polling
 * on pgbench) take 35% of them.  A run may hold a near-best arm for the
 * whole minute: on PGBENCH 50 µs, 0.2 below 100 µs, when two
 * measurements of 100 µs each came out 0.18 low (seed 11).  Ticks away,
 * 200 seeds (the test prints them to stderr):
 * PGBENCH 11.4%, NANOSLEEP 3.1%, CYCLICTEST 6.3%, CLIFF 13.2%,
 * LONG_SLEEPS 3.0% (before a climb walked on past a hopeless 25 µs
 * window: 11.4, 3.0, 6.2, 13.3, 2.9; before a window had to beat no
 * polling by the margin to be held after a climb: 11.4, 3.1, 7.8, 13.3,
 * 3.1; before the climb looked past a 25 µs window losing by up to
 * hopeless: 10.6, 3.1, 7.3, 13.8, 3.0; the mean loss per tick on
 * CLIFF fell from 0.054 to 0.039 log2). */
START_TEST(test_noise) {
        enum { SEEDS = 200 };
        const struct {
                const Machine *m;
                unsigned want;
                const char *name;
        } cases[] = { { &PGBENCH, 3, "PGBENCH" }, { &NANOSLEEP, 0, "NANOSLEEP" }, { &CYCLICTEST, 0, "CYCLICTEST" },
                      { &CLIFF, 3, "CLIFF" }, { &LONG_SLEEPS, 0, "LONG_SLEEPS" } };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                int64_t u[POLL_SEARCH_ARMS];
                unsigned total = 0;

                true_utilities(cases[i].m, u);
                for (uint64_t seed = 1; seed <= SEEDS; seed++) {
                        PollSearch ps;
                        unsigned away = 0, worse = 0;
                        uint64_t rng = seed;

                        poll_search_reset(&ps);
                        for (unsigned t = 0; t < 600; t++) {
                                PollSearchSample s = tick(cases[i].m, ps.arm, 0.25, &rng);

                                away += ps.arm != cases[i].want;
                                worse += u[ps.arm] < u[cases[i].want] - 512;
                                (void) poll_search_step(&ps, &s, WEIGHT);
                        }
                        ck_assert_msg(worse < 600 * 35 / 100,
                                      "case %zu seed %u: %u of 600 ticks under arms 0.5 log2 worse than arm %u",
                                      i, (unsigned) seed, worse, cases[i].want);
                        total += away;
                }
                fprintf(stderr, "# noise: %s %.1f%% of the ticks away from arm %u over %u seeds\n", cases[i].name,
                        100.0 * total / (SEEDS * 600), cases[i].want, (unsigned) SEEDS);
                ck_assert_msg(total < SEEDS * 600 * 15 / 100, "case %zu: %u of %u ticks away from arm %u",
                              i, total, SEEDS * 600, cases[i].want);
        }
}
END_TEST

/* The look-ahead: on CLIFF the 25 µs window is worse than none by more
 * than the margin (11% more CPU for the same progress), yet within the
 * look-ahead, so the climb goes on and finds 100 µs; so it does when it
 * loses by 0.5 (beyond the look-ahead, short of hopeless: pgbench's 25 µs
 * window in bench/results/live-pgbench-15-v2, round 13), and when the
 * 50 µs window loses too (pgbench's slow regime), within the look-ahead.
 * On LONG_SLEEPS the 25 µs window loses by 0.5 too: the 50 µs window is
 * measured by one hopeless tick and the climb stops there; it stops on
 * CLIFF when the 50 µs window loses beyond the look-ahead. */
START_TEST(test_climb_looks_one_arm_ahead) {
        Machine two = CLIFF;
        PollSearch ps;
        uint64_t rng = 17;
        unsigned under[POLL_SEARCH_ARMS];

        poll_search_reset(&ps);
        run(&ps, &CLIFF, 12, 0.0, &rng, 0, NULL);
        ck_assert(ps.utility[1] < ps.utility[0] - POLL_SEARCH_MARGIN_Q10);
        ck_assert(ps.utility[1] >= ps.utility[0] - POLL_SEARCH_LOOKAHEAD_Q10);
        ck_assert_uint_eq(ps.best, 3);

        two.cpu[1] = 1293000;           /* 25 µs loses by 0.5 */
        poll_search_reset(&ps);
        run(&ps, &two, 12, 0.0, &rng, 0, NULL);
        ck_assert(ps.utility[1] < ps.utility[0] - POLL_SEARCH_LOOKAHEAD_Q10);
        ck_assert(ps.utility[1] >= ps.utility[0] - POLL_SEARCH_HOPELESS_Q10);
        ck_assert_uint_eq(ps.best, 3);
        two = CLIFF;

        poll_search_reset(&ps);
        memset(under, 0, sizeof(under));
        for (unsigned t = 0; t < 40; t++) {
                PollSearchSample s = tick(&LONG_SLEEPS, ps.arm, 0.0, &rng);

                under[ps.arm] += ps.climbs == 1 && ps.phase == POLL_SEARCH_CLIMB;
                (void) poll_search_step(&ps, &s, WEIGHT);
        }
        ck_assert(ps.utility[1] < ps.utility[0] - POLL_SEARCH_LOOKAHEAD_Q10);
        ck_assert(ps.utility[2] < ps.utility[0] - POLL_SEARCH_HOPELESS_Q10);
        ck_assert_uint_eq(ps.best, 0);
        ck_assert_uint_eq(under[2], 1);
        ck_assert(ps.measured[1] && ps.measured[2] && !ps.measured[3] && !ps.measured[4]);

        two.progress[2] = two.progress[0];
        two.cpu[2] = 1120000;           /* loses to no polling by 0.3 (log2) */
        poll_search_reset(&ps);
        run(&ps, &two, 12, 0.0, &rng, 0, NULL);
        ck_assert(ps.utility[2] < ps.utility[0] - POLL_SEARCH_MARGIN_Q10);
        ck_assert(ps.utility[2] >= ps.utility[0] - POLL_SEARCH_LOOKAHEAD_Q10);
        ck_assert_uint_eq(ps.best, 3);

        two.cpu[2] = 1500000;           /* loses by 0.7 */
        poll_search_reset(&ps);
        run(&ps, &two, 12, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, 0);
        ck_assert(ps.measured[2] && !ps.measured[3]);
}
END_TEST

/* A window whose first tick loses by more than twice the look-ahead is
 * measured by that tick alone: here 50 µs burns nearly two CPUs for the
 * progress no polling makes (the wakeup program under 200 µs), one tick
 * under it in the climb, and one in each probe upwards, not two. */
START_TEST(test_hopeless_arm_one_tick) {
        Machine m = LONG_SLEEPS;
        PollSearch ps;
        uint64_t rng = 29;
        unsigned under[POLL_SEARCH_ARMS] = {};

        m.cpu[1] = 200000;              /* loses 0.3 to no polling: within the look-ahead */
        m.cpu[2] = 1900000;             /* loses 3 */
        poll_search_reset(&ps);
        for (unsigned t = 0; t < 12; t++) {
                PollSearchSample s = tick(&m, ps.arm, 0.0, &rng);

                under[ps.arm]++;
                (void) poll_search_step(&ps, &s, WEIGHT);
        }
        ck_assert_uint_eq(ps.climbs, 1);
        ck_assert_uint_eq(ps.best, 0);
        ck_assert_uint_eq(under[1], POLL_SEARCH_TICKS);
        ck_assert_uint_eq(under[2], 1);
        ck_assert(!ps.measured[3]);
        ck_assert(ps.utility[2] < ps.utility[0] - POLL_SEARCH_HOPELESS_Q10);

        memset(under, 0, sizeof(under));
        for (unsigned t = 0; t < 600; t++) {
                PollSearchSample s = tick(&m, ps.arm, 0.0, &rng);

                under[ps.arm]++;
                (void) poll_search_step(&ps, &s, WEIGHT);
        }
        ck_assert_uint_ge(ps.probes, 2);
        ck_assert_uint_le(under[2], ps.probes);         /* upwards every other probe, one tick each */
        ck_assert_uint_eq(ps.best, 0);
}
END_TEST

/* The CPU a tick measures alone is no change: on a steady program whose
 * burned CPU swings between 0.02 and 0.10 of a CPU from one 500 ms tick
 * to the next (ebizzy at no polling, the daemon's log), with the same
 * progress, the search does not climb again. */
START_TEST(test_cpu_swing_is_no_change) {
        PollSearch ps;
        uint64_t rng = 23;

        poll_search_reset(&ps);
        run(&ps, &LONG_SLEEPS, 40, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, 0);
        ck_assert_uint_eq(ps.climbs, 1);
        for (unsigned t = 0; t < 40; t++) {
                PollSearchSample s = tick(&LONG_SLEEPS, ps.arm, 0.0, &rng);

                s.interval_us = 5 * TICK_US;
                s.progress *= 5;
                s.burned_us = t % 2 ? 10000 : 50000;
                (void) poll_search_step(&ps, &s, WEIGHT);
        }
        ck_assert_uint_eq(ps.climbs, 1);
}
END_TEST

/* A program that stops: the held window's progress and CPU fall by far
 * more than a factor 2, to an idle machine: no polling is held at once,
 * with no climb; a program that starts again is climbed for. */
START_TEST(test_change_climbs_again) {
        PollSearch ps;
        uint64_t rng = 7;

        poll_search_reset(&ps);
        run(&ps, &PGBENCH, 40, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, 3);
        /* The program stops: a 500 ms tick under the held window finds
         * the machine idle, and no polling is held at once, with no climb
         * and no fast tick. */
        {
                PollSearchSample s = tick(&IDLE, ps.arm, 0.0, &rng);
                unsigned moves = ps.moves;

                s.interval_us = 5 * TICK_US;
                s.progress *= 5;
                s.burned_us *= 5;
                ck_assert(poll_search_step(&ps, &s, WEIGHT));
                ck_assert_uint_eq(ps.best, 0);
                ck_assert_uint_eq(ps.arm, 0);
                ck_assert_uint_eq(ps.moves, moves + 1);
                ck_assert(!ps.fast);
        }
        run(&ps, &IDLE, 20, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, 0);
        ck_assert_uint_eq(ps.climbs, 1);
        ck_assert_uint_eq(ps.phase, POLL_SEARCH_HOLD);
        ck_assert(!ps.fast);            /* no polling held: the normal tick */
        run(&ps, &PGBENCH, 40, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, 3);
        ck_assert_uint_eq(ps.climbs, 2);
}
END_TEST

/* A sample under another arm than the one asked (the knobs not written
 * yet, someone else's) is not a measurement; nor is an empty interval. */
START_TEST(test_wrong_arm_waits) {
        PollSearch ps;
        PollSearchSample s = { .arm = 2, .progress = 1000, .burned_us = 1000, .interval_us = TICK_US };

        poll_search_reset(&ps);
        for (int i = 0; i < 10; i++)
                ck_assert(!poll_search_step(&ps, &s, WEIGHT));
        ck_assert_uint_eq(ps.samples, 0);
        ck_assert_uint_eq(ps.arm, 0);
        ck_assert_uint_eq(ps.phase, POLL_SEARCH_CLIMB);
        s.arm = -1;
        ck_assert(!poll_search_step(&ps, &s, WEIGHT));
        s = (PollSearchSample) { .arm = 0 };
        ck_assert(!poll_search_step(&ps, &s, WEIGHT));
        ck_assert_uint_eq(ps.samples, 0);
}
END_TEST

/* Runs ticks ticks of m where only the arms in reachable (bit a: arm a)
 * come into force: asked for another, the machine stays under the arm in
 * force (its knob unwritable, or someone else's).  *in_force: that arm;
 * *ret_asking counts the ticks after which the search asks for an arm
 * that is not in force. */
static void run_reachable(PollSearch *ps, const Machine *m, unsigned ticks, unsigned reachable, unsigned *in_force,
                          unsigned *ret_asking) {
        uint64_t rng = 1;

        for (unsigned t = 0; t < ticks; t++) {
                PollSearchSample s;

                if (reachable & (1u << ps->arm))
                        *in_force = ps->arm;
                s = tick(m, *in_force, 0.0, &rng);
                (void) poll_search_step(ps, &s, WEIGHT);
                *ret_asking += ps->arm != *in_force;
        }
}

/* An arm that never comes into force is given up after
 * POLL_SEARCH_WAIT_TICKS samples, rather than asked for with short ticks
 * forever: the climb holds the best arm so far (here no polling, every
 * window unreachable), a probe ends as one that found nothing (the wait
 * for the next doubles), and the arms that do come into force are still
 * searched. */
START_TEST(test_unreachable_arm_given_up) {
        PollSearch ps;
        unsigned in_force = 4, asking = 0;

        poll_search_reset(&ps);
        run_reachable(&ps, &PGBENCH, 600, 1u << 0, &in_force, &asking);
        ck_assert_uint_eq(ps.best, 0);
        ck_assert_uint_eq(in_force, 0);
        ck_assert_uint_eq(ps.climbs, 1);
        ck_assert_uint_eq(ps.probe_every, POLL_SEARCH_PROBE_TICKS_MAX);
        ck_assert_uint_le(asking, POLL_SEARCH_WAIT_TICKS * (ps.probes + 1));
        ck_assert(ps.phase == POLL_SEARCH_HOLD || ps.phase == POLL_SEARCH_PROBE);

        /* 200 µs unreachable: the climb gives it up and holds 100 µs, the
         * probes upwards end at once, those downwards still measure. */
        poll_search_reset(&ps);
        in_force = 0;
        asking = 0;
        run_reachable(&ps, &PGBENCH, 600, 0xf, &in_force, &asking);
        ck_assert_uint_eq(ps.best, 3);
        ck_assert_uint_eq(ps.climbs, 1);
        ck_assert(ps.probed[0].n > 0 && ps.probed[2].n > 0 && !ps.measured[4]);
        ck_assert_uint_le(asking, POLL_SEARCH_WAIT_TICKS * (ps.probes + 1));
}
END_TEST

/* A neighbour only as good as the held arm within noise is probed but
 * not taken: on the pgbench machine with 200 µs made equal to 100 µs less
 * 5% (inside the margin), the held arm stays 100 µs. */
START_TEST(test_probe_needs_proof) {
        Machine m = PGBENCH;
        PollSearch ps;
        uint64_t rng = 3;

        m.progress[4] = m.progress[3] * 0.95;
        poll_search_reset(&ps);
        run(&ps, &m, 40, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, 3);
        run(&ps, &m, 1200, 0.25, &rng, 0, NULL);
        ck_assert_uint_ge(ps.probes, 8);           /* fewer as they find nothing: the wait doubles */
        ck_assert_uint_le(ps.moves, 3);
}
END_TEST

/* A probe finds what the climb missed: the climb stops at 25 µs (made
 * to beat no polling by more than the margin) where 50 µs looks worse
 * beyond the look-ahead (noise-free, by construction), then the machine
 * changes a little (50 µs becomes the best, no factor 2 anywhere) and
 * the probes move the held arm there. */
START_TEST(test_probe_moves) {
        Machine m = PGBENCH;
        PollSearch ps;
        uint64_t rng = 11;

        m.progress[1] = m.progress[0] * 1.5;
        m.progress[2] = m.progress[1] * 0.7;  /* beyond the look-ahead */
        m.cpu[2] = m.cpu[1];
        m.progress[3] = m.progress[2];
        m.cpu[3] = m.cpu[2];
        poll_search_reset(&ps);
        run(&ps, &m, 40, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, 1);
        m.progress[2] = m.progress[1] * 1.5;
        run(&ps, &m, 400, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, 2);
        ck_assert_uint_eq(ps.climbs, 1);
}
END_TEST

/* m's noise-free utilities into u, and a fresh search run through its
 * first climb (40 ticks). */
static void climb_once(const Machine *m, PollSearch *ps, int64_t u[POLL_SEARCH_ARMS], uint64_t *rng) {
        true_utilities(m, u);
        poll_search_reset(ps);
        run(ps, m, 40, 0.0, rng, 0, NULL);
}

/* The 25 µs window losing beyond hopeless does not end a climb: pgbench
 * as one climb measured it (bench/results/live-search-fixes/3-halted, round
 * 3: 43553 switches a second at no polling, 26484 at 25 µs for more
 * CPU), where 50 µs triples the progress.  Its measurement is that one
 * tick; the climb goes on to 50 µs and holds the best window. */
START_TEST(test_climb_past_hopeless_25us) {
        Machine m = {
                { 43553, 26484, 130000, 140000, 120000, 120000 },
                { 810000, 1009000, 1900000, 1990000, 1990000, 2000000 },
        };
        int64_t u[POLL_SEARCH_ARMS];
        PollSearch ps;
        uint64_t rng = 5;

        climb_once(&m, &ps, u, &rng);
        ck_assert(u[1] < u[0] - POLL_SEARCH_HOPELESS_Q10);
        ck_assert(ps.measured[2] && ps.measured[3]);
        ck_assert_uint_eq(ps.best, u[3] > u[2] ? 3 : 2);
        ck_assert_uint_eq(ps.climbs, 1);
}
END_TEST

/* A window whose halts just outlast it does not end a climb, however
 * much it lost: pgbench, one client, as two climbs measured it (bench/
 * results/live-frontier-v7-logs, rounds 2 and 3: the 50 µs window 25802
 * switches a second for 1.04 CPU against 38443 for 0.83 under no polling,
 * 534 halts of 91.6 µs to 136 polls in a 50 ms tick), where the 100 µs
 * window polls through them (146000 switches a second).  Its halts a
 * little shorter, a minority of its idle periods, or beyond the next
 * window (wakeup, ebizzy: 142–175 µs), the climb ends there. */
START_TEST(test_climb_past_outlasted_window) {
        const Machine base = {
                { 38443, 23479, 25802, 146000, 140000, 140000 },
                { 825000, 995000, 1044000, 1960000, 1990000, 2000000 },
                { 0, 0, 2720, 72000, 75000 },
                { 19000, 11900, 10680, 300, 100 },
                { 61, 86, 91.6, 120, 300 },
        };
        const struct {
                double halts_50, halt_us_50;
                unsigned want;
        } cases[] = {
                { 10680, 91.6, 3 },     /* outlasts 50 µs, within 100 µs */
                { 10680, 101, 0 },      /* beyond the next window */
                { 10680, 49, 0 },       /* within the window */
                { 800, 91.6, 0 },       /* a minority of the idle periods (2720 polls) */
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                Machine m = base;
                int64_t u[POLL_SEARCH_ARMS];
                PollSearch ps;
                uint64_t rng = 5;

                m.halts[2] = cases[i].halts_50;
                m.halt_us[2] = cases[i].halt_us_50;
                climb_once(&m, &ps, u, &rng);
                ck_assert(u[2] < u[0] - POLL_SEARCH_HOPELESS_Q10);
                ck_assert_msg(ps.best == cases[i].want, "case %zu: holds arm %u, wants %u", i, ps.best,
                              cases[i].want);
                ck_assert_uint_eq(ps.measured[3], cases[i].want == 3);
                ck_assert_uint_eq(ps.climbs, 1);
        }
}
END_TEST

/* A held window whose CPU triples at the same progress (ebizzy's 25 µs
 * window after a climb's tick of 200 µs left the kernel's poll limit
 * behind: 0.32 CPU measured, 1.08 CPU held, bench/results/live-outlasted
 * round 4) is measured again: after 150 ms losing to no polling by more
 * than hopeless, a climb, which then holds no polling.  One tick losing
 * (100 ms here) is noise. */
START_TEST(test_held_window_lost) {
        const Machine good = {
                { 20000, 26000, 20600, 20700, 21500, 21500 },
                { 320000, 320000, 900000, 1400000, 1900000, 2000000 },
        };
        Machine bad = good;
        PollSearch ps;
        uint64_t rng = 3;
        PollSearchSample s;

        bad.cpu[1] = 1080000;
        poll_search_reset(&ps);
        run(&ps, &good, 12, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, 1);
        ck_assert_int_eq(ps.phase, POLL_SEARCH_HOLD);
        ck_assert_uint_eq(ps.climbs, 1);

        /* One tick of it is not enough. */
        s = tick(&bad, 1, 0.0, &rng);
        (void) poll_search_step(&ps, &s, WEIGHT);
        ck_assert_int_eq(ps.phase, POLL_SEARCH_HOLD);
        run(&ps, &good, 1, 0.0, &rng, 0, NULL);
        s = tick(&bad, 1, 0.0, &rng);
        (void) poll_search_step(&ps, &s, WEIGHT);
        ck_assert_int_eq(ps.phase, POLL_SEARCH_HOLD);
        ck_assert_uint_eq(ps.climbs, 1);

        /* Two in a row climb; the climb holds no polling. */
        s = tick(&bad, 1, 0.0, &rng);
        ck_assert(poll_search_step(&ps, &s, WEIGHT));
        ck_assert_int_eq(ps.phase, POLL_SEARCH_CLIMB);
        ck_assert_uint_eq(ps.arm, 0);
        ck_assert_uint_eq(ps.climbs, 2);
        run(&ps, &bad, 12, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, 0);
        ck_assert_int_eq(ps.phase, POLL_SEARCH_HOLD);
        ck_assert_uint_eq(ps.climbs, 2);
}
END_TEST

/* A fragile window (no longer than the kernel's grow start, 50 µs) is held
 * over a longer one only where it beats it by more than the margin:
 * pgbench's climb in bench/results/live-window-lost-logs round 3, 50 µs
 * 0.04 log2 above 100 µs, holds 100 µs; 50 µs a margin and more above
 * it is held. */
START_TEST(test_fragile_window_yields) {
        const struct {
                double progress_50;
                unsigned want;
        } cases[] = {
                { 92000, 3 },           /* 0.04 log2 above 100 µs: within the margin */
                { 120000, 2 },          /* 0.4 log2 above */
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                Machine m = {
                        { 32000, 26000, cases[i].progress_50, 94000, 60000, 60000 },
                        { 900000, 1050000, 1810000, 1950000, 1990000, 2000000 },
                };
                int64_t u[POLL_SEARCH_ARMS];
                PollSearch ps;
                uint64_t rng = 5;

                climb_once(&m, &ps, u, &rng);
                ck_assert(i != 0 || (u[2] > u[3] && u[2] < u[3] + POLL_SEARCH_MARGIN_Q10));
                ck_assert(i != 1 || u[2] > u[3] + POLL_SEARCH_MARGIN_Q10);
                ck_assert_msg(ps.best == cases[i].want, "case %zu: holds arm %u, wants %u", i, ps.best,
                              cases[i].want);
        }
}
END_TEST

/* A window that beats no polling by less than the margin is not held:
 * the wakeup program as one climb measured it (bench/results/
 * live-search-fixes/1-head, round 4: 50 µs 0.04 log2 above no polling, 100 µs
 * below), noise-free.  The climb ends at no polling, and the probes that
 * follow never prove the window (their mean is under the margin). */
START_TEST(test_climb_tie_holds_no_polling) {
        Machine m = {
                { 100000, 98000, 130000, 125000, 125000, 125000 },
                { 800000, 900000, 1000000, 1400000, 1900000, 2000000 },
        };
        int64_t u[POLL_SEARCH_ARMS];
        PollSearch ps;
        uint64_t rng = 5;

        climb_once(&m, &ps, u, &rng);
        ck_assert(u[2] > u[0] && u[2] < u[0] + POLL_SEARCH_MARGIN_Q10);
        ck_assert(ps.measured[2]);
        ck_assert_uint_eq(ps.best, 0);
        run(&ps, &m, 600, 0.0, &rng, 0, NULL);
        ck_assert_uint_ge(ps.probes, 3);
        ck_assert_uint_eq(ps.best, 0);
        ck_assert_uint_eq(ps.moves, 0);
}
END_TEST

/* An idle machine holds no polling at once: no walk through the windows
 * (a program starting in the middle of one would make the window it
 * started under look best) and no probes. */
START_TEST(test_idle_holds_no_polling) {
        PollSearch ps;
        uint64_t rng = 9;

        poll_search_reset(&ps);
        run(&ps, &IDLE, 400, 0.25, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, 0);
        ck_assert(!ps.measured[1]);
        ck_assert_uint_eq(ps.probes, 0);
        ck_assert_uint_eq(ps.climbs, 1);
}
END_TEST

/* A saturated machine (hackbench on two CPUs: idle a few ms a second,
 * its switches swinging by a factor 6 from one tick to the next, whatever
 * the window): the climb ends at no polling after measuring it, no probe
 * comes and the swings start no climb; a program that leaves idle time
 * (the same swings with a CPU idle) climbs on. */
static PollSearchSample saturated_tick(unsigned arm, uint64_t idle_us, uint64_t *rng) {
        double f = 0.2 + 1.8 * (double) next_random(rng) / 4294967296.0;

        return (PollSearchSample) {
                .arm = (int) arm,
                .progress = (uint64_t) (60000 * f * TICK_US / 1e6),
                .burned_us = 2 * TICK_US - idle_us,
                .interval_us = TICK_US,
                .idle_known = true,
                .idle_us = idle_us,
        };
}

START_TEST(test_saturated_holds_no_polling) {
        PollSearch ps;
        uint64_t rng = 5;

        poll_search_reset(&ps);
        for (unsigned t = 0; t < 400; t++) {
                PollSearchSample s = saturated_tick(ps.arm, TICK_US / 50, &rng);

                (void) poll_search_step(&ps, &s, WEIGHT);
        }
        ck_assert_uint_eq(ps.best, 0);
        ck_assert(!ps.measured[1]);
        ck_assert_uint_eq(ps.probes, 0);
        ck_assert_uint_eq(ps.climbs, 1);
        ck_assert(!ps.fast);
        /* a CPU idle half the time (0.5 CPU, above the quarter): not
         * saturated, the swings make it climb again */
        for (unsigned t = 0; t < 40; t++) {
                PollSearchSample s = saturated_tick(ps.arm, TICK_US / 2, &rng);

                (void) poll_search_step(&ps, &s, WEIGHT);
        }
        ck_assert_uint_gt(ps.climbs, 1);
        ck_assert(ps.measured[1]);
}
END_TEST

/* A change is 150 ms beyond a factor 2: one 100 ms tick of a program's
 * jitter is not, two are; one 500 ms tick is. */
START_TEST(test_change_takes_150ms) {
        PollSearch ps;
        uint64_t rng = 13;
        PollSearchSample s;

        poll_search_reset(&ps);
        run(&ps, &PGBENCH, 40, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.phase, POLL_SEARCH_HOLD);
        ck_assert_uint_eq(ps.climbs, 1);
        ps.held = 0;
        s = tick(&LONG_SLEEPS, ps.arm, 0.0, &rng);
        (void) poll_search_step(&ps, &s, WEIGHT);
        ck_assert_uint_eq(ps.climbs, 1);
        s = tick(&PGBENCH, ps.arm, 0.0, &rng);
        (void) poll_search_step(&ps, &s, WEIGHT);
        s = tick(&LONG_SLEEPS, ps.arm, 0.0, &rng);
        (void) poll_search_step(&ps, &s, WEIGHT);
        ck_assert_uint_eq(ps.climbs, 1);        /* two ticks out, not in a row */
        (void) poll_search_step(&ps, &s, WEIGHT);
        ck_assert_uint_eq(ps.climbs, 2);        /* two in a row */
        run(&ps, &PGBENCH, 40, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, 3);
        ps.held = 0;
        s = tick(&LONG_SLEEPS, ps.arm, 0.0, &rng);
        s.interval_us = 5 * TICK_US;
        s.progress *= 5;
        s.burned_us *= 5;
        (void) poll_search_step(&ps, &s, WEIGHT);
        ck_assert_uint_eq(ps.climbs, 3);        /* one 500 ms tick */
}
END_TEST

/* Short ticks while climbing and probing; the normal tick while holding,
 * a window too (the kernel shrinks a window its program left). */
START_TEST(test_fast) {
        PollSearch ps;
        uint64_t rng = 5;
        bool seen_slow = false;

        poll_search_reset(&ps);
        run(&ps, &CYCLICTEST, 1, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.phase, POLL_SEARCH_CLIMB);
        ck_assert(ps.fast);
        for (unsigned t = 0; t < 200; t++) {
                run(&ps, &CYCLICTEST, 1, 0.0, &rng, 0, NULL);
                ck_assert(ps.fast == (ps.phase != POLL_SEARCH_HOLD));
                seen_slow |= !ps.fast;
        }
        ck_assert(seen_slow);
}
END_TEST

/* Polling only: pgbench, one client, in bench/results/live-follow (tps ×
 * 4 as switches; CPU s of a 4 s run / 4): the 100 and 200 µs windows make
 * 30328 and 30108 tps, polling only 33767 at the same CPU; the climb
 * walks from 200 µs (within the margin of 100 µs) to polling only and
 * holds it, and a probe from there walks downwards.  Where the 200 µs
 * window loses to the best by more than the margin (CLIFF) polling only
 * is not measured by the climb. */
START_TEST(test_poll_only) {
        const Machine m = {
                { 8183 * 4.0, 9000 * 4.0, 20862 * 4.0, 30328 * 4.0, 30108 * 4.0, 33767 * 4.0 },
                { 840000, 1000000, 1730000, 1985000, 1985000, 2007500 },
        };
        PollSearch ps;
        uint64_t rng = 1;
        unsigned probes;

        poll_search_reset(&ps);
        run(&ps, &m, 14, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.phase, POLL_SEARCH_HOLD);
        ck_assert_uint_eq(ps.best, POLL_SEARCH_ONLY);
        ck_assert(ps.measured[POLL_SEARCH_ONLY]);
        /* Held, the probes walk downwards (nothing lies above). */
        probes = ps.probes;
        while (ps.probes == probes)
                run(&ps, &m, 1, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.phase, POLL_SEARCH_PROBE);
        ck_assert(!ps.probe_up);
        run(&ps, &m, 40, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, POLL_SEARCH_ONLY);

        poll_search_reset(&ps);
        run(&ps, &CLIFF, 40, 0.0, &rng, 0, NULL);
        ck_assert_uint_eq(ps.best, 3);
        ck_assert(!ps.measured[POLL_SEARCH_ONLY]);
}
END_TEST

static Suite *search_suite(void) {
        Suite *s = suite_create("poll-search");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_log2);
        tcase_add_test(tc, test_climb_finds_the_best);
        tcase_add_test(tc, test_noise);
        tcase_add_test(tc, test_change_climbs_again);
        tcase_add_test(tc, test_wrong_arm_waits);
        tcase_add_test(tc, test_unreachable_arm_given_up);
        tcase_add_test(tc, test_probe_needs_proof);
        tcase_add_test(tc, test_probe_moves);
        tcase_add_test(tc, test_climb_tie_holds_no_polling);
        tcase_add_test(tc, test_climb_past_hopeless_25us);
        tcase_add_test(tc, test_climb_past_outlasted_window);
        tcase_add_test(tc, test_held_window_lost);
        tcase_add_test(tc, test_fragile_window_yields);
        tcase_add_test(tc, test_fast);
        tcase_add_test(tc, test_idle_holds_no_polling);
        tcase_add_test(tc, test_saturated_holds_no_polling);
        tcase_add_test(tc, test_change_takes_150ms);
        tcase_add_test(tc, test_climb_looks_one_arm_ahead);
        tcase_add_test(tc, test_cpu_swing_is_no_change);
        tcase_add_test(tc, test_hopeless_arm_one_tick);
        tcase_add_test(tc, test_poll_only);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return model_test_run(search_suite());
}
