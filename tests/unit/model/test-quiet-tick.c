/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Light ticks (quiet-tick.h): when the machine counts as quiet (the
 * context switch rate and the busy bounds, exactly at their edges, over
 * short and long intervals), what makes a tick full though it is quiet
 * (each condition of the state, each of the policy step), and what the
 * mark of the policy sees and ignores; the long tick while quiet (when it
 * comes, how long, and what keeps the tick at its pace); the full tick by
 * the clock's backoff; the follow of a program's start after an exec
 * wake. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "test-model-helpers.h"
#include "quiet-tick.h"

#define N_CPUS 2u
#define HALF_S 500000u
#define HZ 100u                         /* USER_HZ: jiffies a second per CPU */

/* proc/stat readings: busy and total jiffies, context switches. */
static ProcTotals totals(uint64_t busy, uint64_t total, uint64_t ctxt) {
        return (ProcTotals) { .has_cpu = true, .busy_jiffies = busy, .total_jiffies = total, .has_ctxt = true, .ctxt = ctxt };
}

/* Two readings interval_us apart on n CPUs: d_ctxt switches and
 * d_busy of the jiffies the interval has (n × HZ a second). */
static QuietTickVerdict machine(uint64_t interval_us, unsigned n, uint64_t d_busy, uint64_t d_ctxt) {
        ProcTotals a = totals(5000, 100000, 123456);
        uint64_t d_total = interval_us * n * HZ / 1000000;
        ProcTotals b = totals(a.busy_jiffies + d_busy, a.total_jiffies + d_total, a.ctxt + d_ctxt);

        return quiet_tick_machine(&a, &b, interval_us, n, 0);
}

START_TEST(test_switches) {
        /* POLL_SEARCH_ACTIVE (2000/s) is the line: under it quiet. */
        ck_assert_int_eq(machine(HALF_S, N_CPUS, 0, 0), QUIET_TICK_LIGHT);
        ck_assert_int_eq(machine(HALF_S, N_CPUS, 0, 999), QUIET_TICK_LIGHT);
        ck_assert_int_eq(machine(HALF_S, N_CPUS, 0, 1000), QUIET_TICK_SWITCHING);
        /* A rate, whatever the interval: 4 s of light ticks, 100 ms ticks. */
        ck_assert_int_eq(machine(4000000, N_CPUS, 0, 7999), QUIET_TICK_LIGHT);
        ck_assert_int_eq(machine(4000000, N_CPUS, 0, 8000), QUIET_TICK_SWITCHING);
        ck_assert_int_eq(machine(250000, N_CPUS, 0, 499), QUIET_TICK_LIGHT);
        ck_assert_int_eq(machine(100000, N_CPUS, 0, 200), QUIET_TICK_SWITCHING);
}
END_TEST

START_TEST(test_too_short) {
        ProcTotals a = totals(5000, 100000, 123456), b;

        /* 50 ms after an exec wake, two CPUs: 10 jiffies.  A program's
         * start-up, one busy jiffy or all ten, is too short to tell... */
        ck_assert_int_eq(machine(50000, N_CPUS, 1, 10), QUIET_TICK_TOO_SHORT);
        ck_assert_int_eq(machine(50000, N_CPUS, 10, 10), QUIET_TICK_TOO_SHORT);
        ck_assert_int_eq(machine(50000, N_CPUS, 0, 0), QUIET_TICK_TOO_SHORT);
        /* ... but a program that switches is seen at once (2000/s). */
        ck_assert_int_eq(machine(50000, N_CPUS, 1, 99), QUIET_TICK_TOO_SHORT);
        ck_assert_int_eq(machine(50000, N_CPUS, 1, 100), QUIET_TICK_SWITCHING);
        /* QUIET_TICK_BUSY_MIN_JIFFIES (20) per CPU is the line, counted in
         * the jiffies the reading has, not in the interval asked. */
        b = totals(a.busy_jiffies + 4, a.total_jiffies + 39, a.ctxt);
        ck_assert_int_eq(quiet_tick_machine(&a, &b, 195000, N_CPUS, 0), QUIET_TICK_TOO_SHORT);
        b.total_jiffies++;
        ck_assert_int_eq(quiet_tick_machine(&a, &b, 195000, N_CPUS, 0), QUIET_TICK_BUSY);
        b.busy_jiffies--;
        ck_assert_int_eq(quiet_tick_machine(&a, &b, 195000, N_CPUS, 0), QUIET_TICK_LIGHT);
        /* 64 CPUs: 1280 jiffies, 200 ms. */
        ck_assert_int_eq(machine(199000, 64, 0, 0), QUIET_TICK_TOO_SHORT);
        ck_assert_int_eq(machine(200000, 64, 0, 0), QUIET_TICK_LIGHT);
        ck_assert_int_eq(machine(200000, 64, 20, 0), QUIET_TICK_BUSY);
}
END_TEST

START_TEST(test_busy) {
        /* Two CPUs, 500 ms: 100 jiffies; 10% of the machine is the line. */
        ck_assert_int_eq(machine(HALF_S, N_CPUS, 9, 10), QUIET_TICK_LIGHT);
        ck_assert_int_eq(machine(HALF_S, N_CPUS, 10, 10), QUIET_TICK_BUSY);
        /* 64 CPUs, 1 s: 6400 jiffies.  Half a CPU (50 jiffies, 0.8% of
         * the machine) is the line there, not 10% of it (640). */
        ck_assert_int_eq(machine(1000000, 64, 49, 10), QUIET_TICK_LIGHT);
        ck_assert_int_eq(machine(1000000, 64, 50, 10), QUIET_TICK_BUSY);
        /* One CPU spinning on 64 (no switches at all) is seen. */
        ck_assert_int_eq(machine(1000000, 64, 100, 0), QUIET_TICK_BUSY);
        /* Five CPUs: 10% of the machine (half a CPU) is both lines. */
        ck_assert_int_eq(machine(1000000, 5, 49, 10), QUIET_TICK_LIGHT);
        ck_assert_int_eq(machine(1000000, 5, 50, 10), QUIET_TICK_BUSY);
}
END_TEST

START_TEST(test_no_reading) {
        ProcTotals a = totals(10, 1000, 500), b = totals(11, 1100, 510), bad;

        ck_assert_int_eq(quiet_tick_machine(&a, &b, HALF_S, N_CPUS, 0), QUIET_TICK_LIGHT);
        bad = b;
        bad.has_ctxt = false;
        ck_assert_int_eq(quiet_tick_machine(&a, &bad, HALF_S, N_CPUS, 0), QUIET_TICK_NO_READING);
        ck_assert_int_eq(quiet_tick_machine(&bad, &b, HALF_S, N_CPUS, 0), QUIET_TICK_NO_READING);
        bad = b;
        bad.has_cpu = false;
        ck_assert_int_eq(quiet_tick_machine(&a, &bad, HALF_S, N_CPUS, 0), QUIET_TICK_NO_READING);
        /* Counters that went back (another tree, a wrap), no time, no CPU. */
        ck_assert_int_eq(quiet_tick_machine(&b, &a, HALF_S, N_CPUS, 0), QUIET_TICK_NO_READING);
        bad = totals(10, 1100, 499);
        ck_assert_int_eq(quiet_tick_machine(&a, &bad, HALF_S, N_CPUS, 0), QUIET_TICK_NO_READING);
        bad = totals(10, 1000, 510);
        ck_assert_int_eq(quiet_tick_machine(&a, &bad, HALF_S, N_CPUS, 0), QUIET_TICK_NO_READING);
        bad = totals(200, 1100, 510);           /* more busy than total */
        ck_assert_int_eq(quiet_tick_machine(&a, &bad, HALF_S, N_CPUS, 0), QUIET_TICK_NO_READING);
        ck_assert_int_eq(quiet_tick_machine(&a, &b, 0, N_CPUS, 0), QUIET_TICK_NO_READING);
        ck_assert_int_eq(quiet_tick_machine(&a, &b, HALF_S, 0, 0), QUIET_TICK_NO_READING);
}
END_TEST

/* A settled policy step of two CPUs: plans by the model, the poll search
 * holding no polling on a quiet machine. */
static PolicyStep *settled_step(void) {
        PolicyStep *l = NULL;

        ck_assert_int_eq(policy_step_new(N_CPUS, 1, &l), 0);
        for (unsigned cpu = 0; cpu < N_CPUS; cpu++) {
                PolicyCpu *c = &l->cpus[cpu];

                c->active = c->settled = true;
                c->n_states = 2;
                c->cap = 1;
                c->allowed[0] = c->allowed[1] = true;
                c->cap_reason = c->plan.cap_reason = PLAN_REASON_MODEL;
                c->floor_reason = c->plan.floor_reason = PLAN_REASON_NONE;
                c->plan.cap = c->plan.model_cap = 1;
        }
        l->sys.kvm = l->sys.searching = true;
        l->sys.search.phase = POLL_SEARCH_HOLD;
        l->sys.search.samples = 40;
        return l;
}

/* A state after a full tick of l that moved nothing. */
static QuietTickState settled_state(const PolicyStep *l) {
        QuietTickMark m = quiet_tick_mark(l);

        return (QuietTickState) {
                .quiet_full_tick_usec = 4000000,
                .since_full_usec = HALF_S,
                .full_before = m,
                .full_after = m,
                .has_rates = true,
                .n_online = N_CPUS,
        };
}

static QuietTickVerdict decide(const QuietTickState *st, const PolicyStep *l) {
        ProcTotals a = totals(100, 10000, 1000), b = totals(101, 10100, 1100);

        return quiet_tick_decide(st, l, &a, &b, HALF_S);
}

START_TEST(test_state) {
        PolicyStep *l = settled_step();
        QuietTickState st = settled_state(l), t;
        ProcTotals a = totals(100, 10000, 1000), busy = totals(150, 10100, 1100);

        ck_assert_int_eq(decide(&st, l), QUIET_TICK_LIGHT);
        /* The machine is asked too, after the state: */
        ck_assert_int_eq(quiet_tick_decide(&st, l, &a, &busy, HALF_S), QUIET_TICK_BUSY);
        t = st, t.quiet_full_tick_usec = 0;
        ck_assert_int_eq(decide(&t, l), QUIET_TICK_OFF);
        t = st, t.since_full_usec = 4000000;
        ck_assert_int_eq(decide(&t, l), QUIET_TICK_DUE);
        t = st, t.since_full_usec = 3999999;
        ck_assert_int_eq(decide(&t, l), QUIET_TICK_LIGHT);
        ck_assert_ptr_null(quiet_tick_unsettled(&st, l));
        t = st, t.knobs_written = true;
        ck_assert_int_eq(decide(&t, l), QUIET_TICK_UNSETTLED);
        ck_assert_str_eq(quiet_tick_unsettled(&t, l), "a knob was written");
        t = st, t.write_pending = true;
        ck_assert_int_eq(decide(&t, l), QUIET_TICK_UNSETTLED);
        t = st, t.calibrating = true;
        ck_assert_int_eq(decide(&t, l), QUIET_TICK_UNSETTLED);
        t = st, t.sampling_failing = true;
        ck_assert_int_eq(decide(&t, l), QUIET_TICK_UNSETTLED);
        t = st, t.has_rates = false;
        ck_assert_int_eq(decide(&t, l), QUIET_TICK_UNSETTLED);
        t = st, t.consolidation_pending = true;
        ck_assert_int_eq(decide(&t, l), QUIET_TICK_UNSETTLED);
        ck_assert_str_eq(quiet_tick_unsettled(&t, l), "consolidation counts ticks");
        /* The last full tick moved the plan. */
        t = st, t.full_before.plan ^= 1;
        ck_assert_int_eq(decide(&t, l), QUIET_TICK_UNSETTLED);
        ck_assert_str_eq(quiet_tick_unsettled(&t, l), "the plan moved");
        /* The plan moved since (a replan between ticks). */
        l->cpus[1].cap = 0;
        ck_assert_int_eq(decide(&st, l), QUIET_TICK_UNSETTLED);
        policy_step_free(l);
}
END_TEST

/* The settled check alone says what decide() calls unsettled, and
 * nothing about the machine or the clock. */
START_TEST(test_settled) {
        PolicyStep *l = settled_step();
        QuietTickState st = settled_state(l), t;

        ck_assert(quiet_tick_settled(&st, l));
        t = st, t.since_full_usec = 4000000;            /* due: not its concern */
        ck_assert(quiet_tick_settled(&t, l));
        t = st, t.knobs_written = true;
        ck_assert(!quiet_tick_settled(&t, l));
        t = st, t.consolidation_pending = true;
        ck_assert(!quiet_tick_settled(&t, l));
        t = st, t.full_before.plan ^= 1;
        ck_assert(!quiet_tick_settled(&t, l));
        l->cpus[0].plan.exploring = true;
        ck_assert(!quiet_tick_settled(&st, l));
        policy_step_free(l);
}
END_TEST

#define TICK 500000u
#define LONG 2000000u
#define FULL 4000000u

static QuietTickPace pace(unsigned run, uint64_t since_full) {
        return (QuietTickPace) { .tick_usec = TICK, .quiet_tick_usec = LONG, .quiet_full_tick_usec = FULL,
                                 .since_full_usec = since_full, .quiet_run = run, .wakeable = true };
}

START_TEST(test_pace) {
        QuietTickPace p;

        /* Not before QUIET_TICK_STRETCH_AFTER quiet ticks in a row. */
        for (unsigned run = 0; run < QUIET_TICK_STRETCH_AFTER; run++) {
                p = pace(run, 0);
                ck_assert_uint_eq(quiet_tick_next_usec(&p), TICK);
                ck_assert(!quiet_tick_stretching(&p));
        }
        p = pace(QUIET_TICK_STRETCH_AFTER, 0);
        ck_assert_uint_eq(quiet_tick_next_usec(&p), LONG);
        p = pace(50, 1000000);
        ck_assert_uint_eq(quiet_tick_next_usec(&p), LONG);
        /* Not past the full tick due: 4 s after the last, 1.5 s away ... */
        p = pace(50, 2500000);
        ck_assert_uint_eq(quiet_tick_next_usec(&p), 1500000);
        /* ... unless that is nearer than a tick; and one overdue. */
        p = pace(50, 3800000);
        ck_assert_uint_eq(quiet_tick_next_usec(&p), TICK);
        /* That short interval is still part of the stretch: the exec wake
         * stays armed over it. */
        ck_assert(quiet_tick_stretching(&p));
        p = pace(50, 4000000);
        ck_assert_uint_eq(quiet_tick_next_usec(&p), LONG);
        /* No exec wake, no long tick; nor with it off, no light ticks or
         * a long tick that is not longer. */
        p = pace(50, 0), p.wakeable = false;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), TICK);
        ck_assert(!quiet_tick_stretching(&p));
        p = pace(50, 0), p.quiet_tick_usec = 0;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), TICK);
        ck_assert(!quiet_tick_stretching(&p));
        p = pace(50, 0), p.quiet_full_tick_usec = 0;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), TICK);
        ck_assert(!quiet_tick_stretching(&p));
        p = pace(50, 0), p.quiet_tick_usec = TICK;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), TICK);
        ck_assert(!quiet_tick_stretching(&p));
        /* The long tick is the same whatever the pace it replaces (the
         * poll search's short one never comes with a quiet run: it only
         * runs while the search climbs or probes, which is unsettled). */
        p = pace(50, 0), p.tick_usec = 100000;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), LONG);
        /* A long tick longer than the full one's period: the full one's. */
        p = pace(50, 0), p.quiet_tick_usec = 10000000;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), FULL);
}
END_TEST

/* The full tick by the clock's backoff: doubling after each one that
 * left the state settled, up to QUIET_TICK_FULL_BACKOFF times the base;
 * back to the base after one that found something to do; kept by every
 * other tick, a program's busy, switching and unsettled ones included;
 * only where long ticks are taken. */
START_TEST(test_full_backoff) {
        uint64_t max = FULL * QUIET_TICK_FULL_BACKOFF, period = FULL;

        for (uint64_t want = 2 * FULL; want <= max; want *= 2) {
                period = quiet_tick_full_period(FULL, period, QUIET_TICK_DUE, true, true);
                ck_assert_uint_eq(period, want);
                /* Light ticks, and short ones, keep it. */
                ck_assert_uint_eq(quiet_tick_full_period(FULL, period, QUIET_TICK_LIGHT, true, true), period);
                ck_assert_uint_eq(quiet_tick_full_period(FULL, period, QUIET_TICK_TOO_SHORT, false, true), period);
        }
        ck_assert_uint_eq(quiet_tick_full_period(FULL, max, QUIET_TICK_DUE, true, true), max);
        /* A full tick by the clock that left something to do brings it
         * back; a program's ticks (busy, switching, unsettled after it,
         * no reading) keep it, settled or not. */
        ck_assert_uint_eq(quiet_tick_full_period(FULL, max, QUIET_TICK_DUE, false, true), FULL);
        for (QuietTickVerdict v = QUIET_TICK_OFF; v < _QUIET_TICK_VERDICT_MAX; v++)
                if (v != QUIET_TICK_DUE) {
                        ck_assert_uint_eq(quiet_tick_full_period(FULL, max, v, true, true), max);
                        ck_assert_uint_eq(quiet_tick_full_period(FULL, max, v, false, true), max);
                }
        /* Without long ticks (no exec wake: a test's tree), or with light
         * ticks off, the base. */
        ck_assert_uint_eq(quiet_tick_full_period(FULL, FULL, QUIET_TICK_DUE, true, false), FULL);
        ck_assert_uint_eq(quiet_tick_full_period(FULL, max, QUIET_TICK_LIGHT, true, false), FULL);
        ck_assert_uint_eq(quiet_tick_full_period(0, max, QUIET_TICK_DUE, true, true), 0);
        /* A period out of range (the base changed: a reload) is brought
         * into it first. */
        ck_assert_uint_eq(quiet_tick_full_period(FULL, 100 * FULL, QUIET_TICK_LIGHT, true, true), max);
        ck_assert_uint_eq(quiet_tick_full_period(FULL, 0, QUIET_TICK_LIGHT, true, true), FULL);
}
END_TEST

/* The long tick's backoff: doubling at each light tick, up to
 * QUIET_TICK_LONG_BACKOFF times quiet_tick_usec; kept by a tick too short
 * to tell (an exec wake's check) and a full one by the clock that left
 * the state settled; back to the base at any other.  The pace takes it,
 * never past the full tick due. */
START_TEST(test_long_backoff) {
        uint64_t max = LONG * QUIET_TICK_LONG_BACKOFF, period = LONG;
        QuietTickPace p;

        for (uint64_t want = 2 * LONG; want <= max; want *= 2) {
                period = quiet_tick_long_period(LONG, period, QUIET_TICK_LIGHT, true);
                ck_assert_uint_eq(period, want);
                ck_assert_uint_eq(quiet_tick_long_period(LONG, period, QUIET_TICK_TOO_SHORT, false), period);
                ck_assert_uint_eq(quiet_tick_long_period(LONG, period, QUIET_TICK_DUE, true), period);
        }
        ck_assert_uint_eq(quiet_tick_long_period(LONG, max, QUIET_TICK_LIGHT, true), max);
        ck_assert_uint_eq(quiet_tick_long_period(LONG, max, QUIET_TICK_DUE, false), LONG);
        for (QuietTickVerdict v = QUIET_TICK_OFF; v < _QUIET_TICK_VERDICT_MAX; v++)
                if (v != QUIET_TICK_DUE && v != QUIET_TICK_TOO_SHORT && v != QUIET_TICK_LIGHT)
                        ck_assert_uint_eq(quiet_tick_long_period(LONG, max, v, true), LONG);
        /* No long ticks: none; out of range (a reload): brought into it. */
        ck_assert_uint_eq(quiet_tick_long_period(0, max, QUIET_TICK_LIGHT, true), 0);
        ck_assert_uint_eq(quiet_tick_long_period(LONG, 100 * LONG, QUIET_TICK_TOO_SHORT, true), max);
        ck_assert_uint_eq(quiet_tick_long_period(LONG, 0, QUIET_TICK_TOO_SHORT, true), LONG);

        /* The pace: the long tick now, not past the full tick due, and
         * never under quiet_tick_usec. */
        p = pace(50, 0), p.quiet_full_tick_usec = 10 * LONG, p.long_tick_usec = 3 * LONG;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), 3 * LONG);
        p.since_full_usec = 8 * LONG;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), 2 * LONG);
        p = pace(50, 0), p.long_tick_usec = LONG / 2;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), LONG);
        /* Not stretching (the run too short): the tick, whatever the level. */
        p = pace(0, 0), p.long_tick_usec = 3 * LONG;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), TICK);
}
END_TEST

/* After a tick too short to tell, the one that judges comes when the
 * reference reading spans QUIET_TICK_BUSY_MIN_JIFFIES and one more, not a
 * whole tick later; a follow's pace comes first, and a judge no sooner
 * than the tick is no judge. */
START_TEST(test_judge) {
        QuietTickPace p;

        ck_assert_uint_eq(QUIET_TICK_JUDGE_USEC, 210000);
        ck_assert_uint_eq(quiet_tick_judge_in_usec(0), 210000);
        ck_assert_uint_eq(quiet_tick_judge_in_usec(50000), 160000);
        ck_assert_uint_eq(quiet_tick_judge_in_usec(209999), 1);
        ck_assert_uint_eq(quiet_tick_judge_in_usec(210000), 0);
        ck_assert_uint_eq(quiet_tick_judge_in_usec(UINT64_MAX), 0);
        /* The judge's reading tells busy even a jiffy short of its time,
         * on any number of CPUs. */
        ck_assert_int_eq(machine(QUIET_TICK_JUDGE_USEC - QUIET_TICK_JIFFY_USEC, N_CPUS, 0, 0), QUIET_TICK_LIGHT);
        ck_assert_int_eq(machine(QUIET_TICK_JUDGE_USEC - QUIET_TICK_JIFFY_USEC, N_CPUS, 20, 0), QUIET_TICK_BUSY);
        ck_assert_int_eq(machine(QUIET_TICK_JUDGE_USEC - QUIET_TICK_JIFFY_USEC, 64, 0, 0), QUIET_TICK_LIGHT);

        /* It holds a start-up to the bar of the tick it replaces (two
         * CPUs, a 500 ms tick: 10 busy jiffies): an interpreter's 45 ms is
         * busy over 210 ms alone, not over the tick; a CPU kept busy is. */
        {
                ProcTotals a = totals(5000, 100000, 123456), b = a;

                b.total_jiffies += 42;
                b.busy_jiffies += 5;
                ck_assert_int_eq(quiet_tick_machine(&a, &b, QUIET_TICK_JUDGE_USEC, N_CPUS, 0), QUIET_TICK_BUSY);
                ck_assert_int_eq(quiet_tick_machine(&a, &b, QUIET_TICK_JUDGE_USEC, N_CPUS, TICK), QUIET_TICK_LIGHT);
                b.busy_jiffies = a.busy_jiffies + 10;
                ck_assert_int_eq(quiet_tick_machine(&a, &b, QUIET_TICK_JUDGE_USEC, N_CPUS, TICK), QUIET_TICK_BUSY);
                b.busy_jiffies = a.busy_jiffies + 21;
                ck_assert_int_eq(quiet_tick_machine(&a, &b, QUIET_TICK_JUDGE_USEC, N_CPUS, TICK), QUIET_TICK_BUSY);
                /* Switching is a rate, whatever the span; a reading
                 * longer than the span is judged over its own. */
                b.busy_jiffies = a.busy_jiffies;
                b.ctxt = a.ctxt + 420;
                ck_assert_int_eq(quiet_tick_machine(&a, &b, QUIET_TICK_JUDGE_USEC, N_CPUS, TICK),
                                 QUIET_TICK_SWITCHING);
                b = a;
                b.total_jiffies += 400;
                b.busy_jiffies += 39;
                ck_assert_int_eq(quiet_tick_machine(&a, &b, 2000000, N_CPUS, TICK), QUIET_TICK_LIGHT);
                b.busy_jiffies++;
                ck_assert_int_eq(quiet_tick_machine(&a, &b, 2000000, N_CPUS, TICK), QUIET_TICK_BUSY);
        }

        p = pace(0, 0), p.judge_in_usec = quiet_tick_judge_in_usec(50000);
        ck_assert_uint_eq(quiet_tick_next_usec(&p), 160000);
        /* Before a long tick too: the check after an exec wake was light. */
        p = pace(QUIET_TICK_STRETCH_AFTER, 0), p.judge_in_usec = 160000;
        ck_assert(quiet_tick_stretching(&p));
        ck_assert_uint_eq(quiet_tick_next_usec(&p), 160000);
        /* A follow's shorter pace first. */
        p = pace(0, 0), p.judge_in_usec = 160000, p.following = true, p.follow_tick_usec = 50000;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), 50000);
        /* None, or none sooner than the tick: the tick. */
        p = pace(0, 0), p.judge_in_usec = 0;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), TICK);
        p.judge_in_usec = TICK;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), TICK);
}
END_TEST

/* The follow of a program's start: what starts one after an exec wake,
 * what keeps it and what ends it; its pace. */
START_TEST(test_follow) {
        QuietTickPace p;

        /* Started by a tick that finds the machine switching or busy
         * within QUIET_TICK_FOLLOW_USEC of the wake; not by a quiet one,
         * nor one too short to tell, nor without a wake. */
        ck_assert(quiet_tick_follows(false, QUIET_TICK_SWITCHING, 50000));
        ck_assert(quiet_tick_follows(false, QUIET_TICK_BUSY, 550000));
        ck_assert(!quiet_tick_follows(false, QUIET_TICK_TOO_SHORT, 50000));
        ck_assert(!quiet_tick_follows(false, QUIET_TICK_LIGHT, 550000));
        ck_assert(!quiet_tick_follows(false, QUIET_TICK_UNSETTLED, 50000));
        ck_assert(!quiet_tick_follows(false, QUIET_TICK_BUSY, QUIET_TICK_FOLLOW_USEC));
        ck_assert(!quiet_tick_follows(false, QUIET_TICK_SWITCHING, UINT64_MAX));
        /* Kept by any tick but a light one (a short one reads proc/stat
         * alone; a full one the state asked for measured nothing) ... */
        ck_assert(quiet_tick_follows(true, QUIET_TICK_TOO_SHORT, 100000));
        ck_assert(quiet_tick_follows(true, QUIET_TICK_UNSETTLED, 150000));
        ck_assert(quiet_tick_follows(true, QUIET_TICK_DUE, 150000));
        ck_assert(quiet_tick_follows(true, QUIET_TICK_BUSY, QUIET_TICK_FOLLOW_USEC - 1));
        /* ... until the machine is quiet again or the time has passed. */
        ck_assert(!quiet_tick_follows(true, QUIET_TICK_LIGHT, 250000));
        ck_assert(!quiet_tick_follows(true, QUIET_TICK_SWITCHING, QUIET_TICK_FOLLOW_USEC));

        /* Following, the next tick comes at the follow pace ... */
        p = pace(0, 0), p.following = true, p.follow_tick_usec = 50000;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), 50000);
        /* ... even after a full tick by the clock that found the state
         * settled (a quiet run): no long tick, the exec wake closed. */
        p = pace(50, 0), p.following = true, p.follow_tick_usec = 50000;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), 50000);
        ck_assert(!quiet_tick_stretching(&p));
        /* Without a follow pace (the search moved, or observe mode), or
         * one not shorter than the tick, the tick's. */
        p = pace(0, 0), p.following = true, p.follow_tick_usec = 0;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), TICK);
        p = pace(0, 0), p.following = true, p.follow_tick_usec = TICK;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), TICK);
        /* A pace without a follow changes nothing. */
        p = pace(50, 0), p.follow_tick_usec = 50000;
        ck_assert_uint_eq(quiet_tick_next_usec(&p), LONG);
}
END_TEST

START_TEST(test_cpus) {
        PolicyStep *l = settled_step();
        QuietTickState st = settled_state(l);

        l->cpus[0].plan.exploring = true;
        ck_assert_int_eq(decide(&st, l), QUIET_TICK_UNSETTLED);
        ck_assert_str_eq(quiet_tick_unsettled(&st, l), "a CPU explores");
        l->cpus[0].plan.exploring = false;
        l->cpus[1].plan.util_active = true;
        ck_assert_int_eq(decide(&st, l), QUIET_TICK_UNSETTLED);
        ck_assert_str_eq(quiet_tick_unsettled(&st, l), "a CPU's util rule is engaged");
        l->cpus[1].plan.util_active = false;
        l->cpus[1].plan.cap_reason = PLAN_REASON_HOLD;
        ck_assert_int_eq(decide(&st, l), QUIET_TICK_UNSETTLED);
        ck_assert_str_eq(quiet_tick_unsettled(&st, l), "a CPU's move is held back");
        l->cpus[1].plan.cap_reason = PLAN_REASON_MODEL;
        l->cpus[0].plan.floor_reason = PLAN_REASON_HOLD;
        ck_assert_int_eq(decide(&st, l), QUIET_TICK_UNSETTLED);
        l->cpus[0].plan.floor_reason = PLAN_REASON_MODEL;
        ck_assert_int_eq(decide(&st, l), QUIET_TICK_LIGHT);
        /* Where the poll economics set the plan in force (a KVM guest),
         * the policy's own plan beneath it neither unsettles the ticks
         * nor moves the mark: its wishes move on a quiet machine as a
         * stopped program leaves the model's history, and change nothing
         * in force. */
        l->cpus[0].kvm_plan = l->cpus[1].kvm_plan = true;
        st = settled_state(l);
        l->cpus[0].plan.exploring = l->cpus[1].plan.util_active = true;
        l->cpus[1].plan.cap_reason = PLAN_REASON_HOLD;
        l->cpus[0].plan.model_cap = 0;
        ck_assert_int_eq(decide(&st, l), QUIET_TICK_LIGHT);
        ck_assert_uint_eq(quiet_tick_mark(l).plan, st.full_after.plan);
        /* ... while what is in force still does */
        l->cpus[0].cap_reason = PLAN_REASON_EXPLORATION;
        ck_assert_int_eq(decide(&st, l), QUIET_TICK_UNSETTLED);
        ck_assert_str_eq(quiet_tick_unsettled(&st, l), "the plan moved");
        l->cpus[0].cap_reason = PLAN_REASON_MODEL;
        l->cpus[0].kvm_plan = l->cpus[1].kvm_plan = false;
        ck_assert_int_eq(decide(&st, l), QUIET_TICK_UNSETTLED);
        l->cpus[0].plan.exploring = l->cpus[1].plan.util_active = false;
        l->cpus[1].plan.cap_reason = PLAN_REASON_MODEL;
        l->cpus[0].plan.model_cap = 1;
        st = settled_state(l);
        ck_assert_int_eq(decide(&st, l), QUIET_TICK_LIGHT);
        /* A CPU without a model (offline) does not count. */
        l->cpus[1].active = false;
        l->cpus[1].plan.exploring = true;
        st = settled_state(l);
        ck_assert_int_eq(decide(&st, l), QUIET_TICK_LIGHT);
        policy_step_free(l);
}
END_TEST

START_TEST(test_search) {
        PolicyStep *l = settled_step();
        QuietTickState st;

        /* Holding no polling: settled; not searching: settled. */
        ck_assert(quiet_tick_policy_settled(l, &(QuietTickMark) { 0, 39 }, &(QuietTickMark) { 0, 40 }));
        l->sys.searching = false;
        ck_assert(quiet_tick_policy_settled(l, &(QuietTickMark) { 0, 39 }, &(QuietTickMark) { 0, 40 }));
        /* Holding a window (each tick learns its mean, or finds the
         * program gone), climbing, probing: each tick is a step. */
        l->sys.searching = true;
        l->sys.search.best = l->sys.search.arm = 2;
        ck_assert(!quiet_tick_policy_settled(l, &(QuietTickMark) { 0, 39 }, &(QuietTickMark) { 0, 40 }));
        l->sys.search.best = l->sys.search.arm = 0;
        l->sys.search.phase = POLL_SEARCH_CLIMB;
        ck_assert(!quiet_tick_policy_settled(l, &(QuietTickMark) { 0, 39 }, &(QuietTickMark) { 0, 40 }));
        l->sys.search.phase = POLL_SEARCH_PROBE;
        ck_assert(!quiet_tick_policy_settled(l, &(QuietTickMark) { 0, 39 }, &(QuietTickMark) { 0, 40 }));
        /* ... unless it waited: no sample measured, nothing moved (observe
         * mode: its arm never comes into force). */
        ck_assert(quiet_tick_policy_settled(l, &(QuietTickMark) { 0, 40 }, &(QuietTickMark) { 0, 40 }));
        ck_assert(!quiet_tick_policy_settled(l, &(QuietTickMark) { 1, 40 }, &(QuietTickMark) { 0, 40 }));
        /* Ticks without a measurement counted towards the search's stop
         * keep the ticks full, even holding no polling; the count back at
         * 0 moved nothing. */
        l->sys.search.phase = POLL_SEARCH_HOLD;
        l->sys.search_silent = 1;
        ck_assert(!quiet_tick_policy_settled(l, &(QuietTickMark) { 0, 40 }, &(QuietTickMark) { 0, 40 }));
        l->sys.search_silent = 0;
        ck_assert(quiet_tick_policy_settled(l, &(QuietTickMark) { 0, 40 }, &(QuietTickMark) { 0, 40 }));
        l->sys.search.phase = POLL_SEARCH_CLIMB;
        st = settled_state(l);
        ck_assert_int_eq(decide(&st, l), QUIET_TICK_LIGHT);
        st.full_before.search_samples--;
        ck_assert_int_eq(decide(&st, l), QUIET_TICK_UNSETTLED);
        policy_step_free(l);
}
END_TEST

START_TEST(test_mark) {
        PolicyStep *l = settled_step();
        QuietTickMark m = quiet_tick_mark(l), n;

        /* Counters of a search that holds move at every tick: not a move. */
        l->sys.search.samples++;
        l->sys.search.held++;
        l->sys.search.last.progress = 77;
        n = quiet_tick_mark(l);
        ck_assert_uint_eq(n.plan, m.plan);
        ck_assert_uint_eq(n.search_samples, m.search_samples + 1);
        /* Each of these is. */
        l->cpus[0].floor = 1;
        ck_assert_uint_ne(quiet_tick_mark(l).plan, m.plan);
        l->cpus[0].floor = 0;
        l->cpus[1].allowed[1] = false;
        ck_assert_uint_ne(quiet_tick_mark(l).plan, m.plan);
        l->cpus[1].allowed[1] = true;
        l->cpus[1].cap_reason = PLAN_REASON_EXPLORATION;
        ck_assert_uint_ne(quiet_tick_mark(l).plan, m.plan);
        l->cpus[1].cap_reason = PLAN_REASON_MODEL;
        l->sys.poll = (PollPlan) { .mode = POLL_MODE_WINDOW, .window_ns = 50000 };
        ck_assert_uint_ne(quiet_tick_mark(l).plan, m.plan);
        l->sys.poll = (PollPlan) {};
        snprintf(l->sys.governor, sizeof(l->sys.governor), "menu");
        ck_assert_uint_ne(quiet_tick_mark(l).plan, m.plan);
        l->sys.governor[0] = '\0';
        l->sys.search.arm = 1;
        ck_assert_uint_ne(quiet_tick_mark(l).plan, m.plan);
        l->sys.search.arm = 0;
        /* Ticks without a measurement are a count, not a move
         * (search_settled() holds the ticks full while it counts). */
        l->sys.search_silent = 1;
        ck_assert_uint_eq(quiet_tick_mark(l).plan, m.plan);
        l->sys.search_silent = 0;
        ck_assert_uint_eq(quiet_tick_mark(l).plan, m.plan);
        /* A CPU's own poll decision: not where the search owns the CPU
         * (its profile is the search's), a move where it is in force. */
        snprintf(l->sys.search_profile, sizeof(l->sys.search_profile), "balanced");
        for (unsigned cpu = 0; cpu < N_CPUS; cpu++)
                snprintf(l->cpus[cpu].profile, sizeof(l->cpus[cpu].profile), "balanced");
        m = quiet_tick_mark(l);
        l->cpus[0].poll = (PollPlan) { .mode = POLL_MODE_WINDOW, .window_ns = 50000 };
        ck_assert_uint_eq(quiet_tick_mark(l).plan, m.plan);
        snprintf(l->cpus[1].profile, sizeof(l->cpus[1].profile), "latency");
        m = quiet_tick_mark(l);
        l->cpus[1].poll = (PollPlan) { .mode = POLL_MODE_ONLY };
        ck_assert_uint_ne(quiet_tick_mark(l).plan, m.plan);
        /* The same for the decision of the search's profile's group. */
        l->sys.n_groups = 2;
        snprintf(l->sys.groups[0].profile, sizeof(l->sys.groups[0].profile), "balanced");
        snprintf(l->sys.groups[1].profile, sizeof(l->sys.groups[1].profile), "latency");
        m = quiet_tick_mark(l);
        l->sys.groups[0].plan = (PollPlan) { .mode = POLL_MODE_WINDOW, .window_ns = 50000 };
        ck_assert_uint_eq(quiet_tick_mark(l).plan, m.plan);
        l->sys.groups[1].plan = (PollPlan) { .mode = POLL_MODE_ONLY };
        ck_assert_uint_ne(quiet_tick_mark(l).plan, m.plan);
        l->sys.searching = false;
        m = quiet_tick_mark(l);
        l->cpus[0].poll = (PollPlan) {};
        ck_assert_uint_ne(quiet_tick_mark(l).plan, m.plan);
        m = quiet_tick_mark(l);
        l->sys.groups[0].plan = (PollPlan) {};
        ck_assert_uint_ne(quiet_tick_mark(l).plan, m.plan);
        policy_step_free(l);
}
END_TEST

START_TEST(test_names) {
        ck_assert_str_eq(quiet_tick_verdict_to_string(QUIET_TICK_LIGHT), "light");
        ck_assert_str_eq(quiet_tick_verdict_to_string(QUIET_TICK_SWITCHING), "switching");
        ck_assert_str_eq(quiet_tick_verdict_to_string(QUIET_TICK_BUSY), "busy");
        ck_assert_str_eq(quiet_tick_verdict_to_string(QUIET_TICK_TOO_SHORT), "too short");
        ck_assert_str_eq(quiet_tick_verdict_to_string(QUIET_TICK_HOTPLUG), "hotplug");
        ck_assert_str_eq(quiet_tick_verdict_to_string(_QUIET_TICK_VERDICT_MAX), "?");
}
END_TEST

static Suite *quiet_suite(void) {
        Suite *s = suite_create("quiet-tick");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_switches);
        tcase_add_test(tc, test_busy);
        tcase_add_test(tc, test_too_short);
        tcase_add_test(tc, test_no_reading);
        tcase_add_test(tc, test_state);
        tcase_add_test(tc, test_settled);
        tcase_add_test(tc, test_pace);
        tcase_add_test(tc, test_judge);
        tcase_add_test(tc, test_follow);
        tcase_add_test(tc, test_full_backoff);
        tcase_add_test(tc, test_long_backoff);
        tcase_add_test(tc, test_cpus);
        tcase_add_test(tc, test_search);
        tcase_add_test(tc, test_mark);
        tcase_add_test(tc, test_names);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return model_test_run(quiet_suite());
}
