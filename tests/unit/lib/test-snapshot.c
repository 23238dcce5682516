/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <math.h>

#include "sampler-cadence.h"
#include "snapshot.h"
#include "unit.h"

#define ck_assert_near(a, b) ck_assert_double_eq_tol((a), (b), 1e-9)

static Snapshot *snapshot_ok(unsigned n_cpus) {
        Snapshot *s = NULL;

        ck_assert_int_eq(snapshot_new(n_cpus, &s), 0);
        ck_assert_ptr_nonnull(s);
        ck_assert_uint_eq(s->n_cpus, n_cpus);
        return s;
}

/* Two hand-made snapshots of 2 CPUs, 2 s apart. */
static void fill(Snapshot *a, Snapshot *b) {
        a->timestamp_usec = 1000000;
        b->timestamp_usec = 3000000;
        for (unsigned c = 0; c < 2; c++) {
                a->idle[c] = (CpuidleCpuSample) {
                        .online = true, .n_states = 2, .generation = 7 + c,
                        .states = {
                                { .usage = 100, .time_us = 1000, .above = 0, .below = 10 },
                                { .usage = 50, .time_us = 1000000, .above = 5, .below = 0, .rejected = 1 },
                        },
                };
                b->idle[c] = (CpuidleCpuSample) {
                        .online = true, .n_states = 2, .generation = 7 + c,
                        .states = {
                                { .usage = 300, .time_us = 3000, .above = 0, .below = 60 },
                                { .usage = 250, .time_us = 2000000, .above = 25, .below = 0, .rejected = 4 },
                        },
                };
                a->proc[c] = (ProcCpuSample) { .has_stat = true, .busy_jiffies = 100, .total_jiffies = 1000,
                                               .has_irq = true, .timer_irqs = 1000, .other_irqs = 10 };
                b->proc[c] = (ProcCpuSample) { .has_stat = true, .busy_jiffies = 150, .total_jiffies = 1200,
                                               .has_irq = true, .timer_irqs = 1500, .other_irqs = 30 };
        }
}

static void delta_ok(const Snapshot *a, const Snapshot *b, CpuRates *out) {
        ck_assert_int_eq(snapshot_delta(a, b, out), 0);
}

START_TEST(test_rates_by_hand) {
        _cleanup_snapshot_ Snapshot *a = snapshot_ok(2), *b = snapshot_ok(2);
        CpuRates r[2];

        fill(a, b);
        delta_ok(a, b, r);
        ck_assert(r[0].valid);
        ck_assert_uint_eq(r[0].n_states, 2);
        /* state 0: 200 entries in 2 s, 2000 us of 2 s, 50 of 200 too shallow */
        ck_assert_uint_eq(r[0].states[0].d_usage, 200);
        ck_assert_uint_eq(r[0].states[0].d_time_us, 2000);
        ck_assert_uint_eq(r[0].states[0].d_below, 50);
        ck_assert_near(r[0].states[0].usage_per_s, 100.0);
        ck_assert_near(r[0].states[0].usage_share_pct, 50.0);
        ck_assert_near(r[0].states[0].time_share_pct, 0.1);
        ck_assert_near(r[0].states[0].too_deep_pct, 0.0);
        ck_assert_near(r[0].states[0].too_shallow_pct, 25.0);
        /* state 1: 200 entries, 1 s of 2 s, 20 of 200 too deep */
        ck_assert_uint_eq(r[0].states[1].d_above, 20);
        ck_assert_uint_eq(r[0].states[1].d_rejected, 3);
        ck_assert_near(r[0].states[1].usage_per_s, 100.0);
        ck_assert_near(r[0].states[1].usage_share_pct, 50.0);
        ck_assert_near(r[0].states[1].time_share_pct, 50.0);
        ck_assert_near(r[0].states[1].too_deep_pct, 10.0);
        ck_assert_near(r[0].states[1].too_shallow_pct, 0.0);
        ck_assert_near(r[0].idle_entries_per_s, 200.0);
        /* 50 busy of 200 jiffies; 500 timer and 20 other interrupts in 2 s */
        ck_assert_near(r[0].util, 0.25);
        /* 400 idle entries, 1.002 s idle of 2 s: 49.9% busy by residency */
        ck_assert_near(r[0].util_idle, 1.0 - 1002000.0 / 2000000.0);
        ck_assert_near(r[0].timer_wakeups_per_s, 250.0);
        ck_assert_near(r[0].other_wakeups_per_s, 10.0);
        ck_assert(r[1].valid);
}
END_TEST

START_TEST(test_uneven_shares) {
        _cleanup_snapshot_ Snapshot *a = snapshot_ok(2), *b = snapshot_ok(2);
        CpuRates r[2];

        fill(a, b);
        b->idle[0].states[0].usage = 100;       /* no entries into state 0 */
        b->idle[0].states[0].below = 10;
        b->idle[0].states[1].usage = 650;       /* 600 into state 1 */
        delta_ok(a, b, r);
        ck_assert(r[0].valid);
        ck_assert_near(r[0].states[0].usage_share_pct, 0.0);
        ck_assert_near(r[0].states[0].too_shallow_pct, 0.0);
        ck_assert_near(r[0].states[1].usage_share_pct, 100.0);
        ck_assert_near(r[0].states[1].too_deep_pct, 20.0 * 100.0 / 600.0);
        ck_assert_near(r[0].idle_entries_per_s, 300.0);
}
END_TEST

START_TEST(test_invalid_cpus) {
        _cleanup_snapshot_ Snapshot *a = snapshot_ok(2), *b = snapshot_ok(2);
        CpuRates r[2];

        fill(a, b);
        b->idle[0].states[1].above = 4;         /* went backwards */
        delta_ok(a, b, r);
        ck_assert(!r[0].valid);
        ck_assert_uint_eq(r[0].n_states, 0);
        ck_assert_near(r[0].idle_entries_per_s, 0.0);
        ck_assert_near(r[0].util, 0.25);        /* proc data stands on its own */
        ck_assert(r[1].valid);

        fill(a, b);
        b->idle[1].generation++;                /* reopened: maybe another table */
        delta_ok(a, b, r);
        ck_assert(r[0].valid);
        ck_assert(!r[1].valid);

        fill(a, b);
        b->idle[1].n_states = 1;
        delta_ok(a, b, r);
        ck_assert(!r[1].valid);

        fill(a, b);
        a->idle[1].online = false;
        delta_ok(a, b, r);
        ck_assert(!r[1].valid);

        fill(a, b);
        b->idle[0].states[0].time_us = 999;
        b->idle[1].states[1].usage = 49;
        delta_ok(a, b, r);
        ck_assert(!r[0].valid);
        ck_assert(!r[1].valid);
}
END_TEST

START_TEST(test_unknown_proc) {
        _cleanup_snapshot_ Snapshot *a = snapshot_ok(2), *b = snapshot_ok(2);
        CpuRates r[2];

        fill(a, b);
        b->proc[0].has_stat = false;
        b->proc[0].has_irq = false;
        b->proc[1].total_jiffies = 1000;        /* no time passed for the CPU */
        delta_ok(a, b, r);
        ck_assert(r[0].valid);
        ck_assert_double_lt(r[0].util, 0.0);
        ck_assert_double_lt(r[0].timer_wakeups_per_s, 0.0);
        ck_assert_double_lt(r[0].other_wakeups_per_s, 0.0);
        ck_assert_double_lt(r[1].util, 0.0);
        ck_assert_near(r[1].timer_wakeups_per_s, 250.0);

        fill(a, b);
        b->proc[1].timer_irqs = 999;            /* backwards */
        b->proc[1].busy_jiffies = 99;
        delta_ok(a, b, r);
        ck_assert_double_lt(r[1].timer_wakeups_per_s, 0.0);
        ck_assert_near(r[1].other_wakeups_per_s, 10.0);
        ck_assert_double_lt(r[1].util, 0.0);

        fill(a, b);
        b->proc[1].busy_jiffies = 400;          /* idle stepped back: clamp */
        delta_ok(a, b, r);
        ck_assert_near(r[1].util, 1.0);

        /* Too few idle entries for the residency: unknown; more idle time
         * than the interval (periods added at their end): 0% busy. */
        fill(a, b);
        b->idle[0].states[0].usage = 110;
        b->idle[0].states[1].usage = 70;
        b->idle[1].states[1].time_us = 3000000;
        delta_ok(a, b, r);
        ck_assert_double_lt(r[0].util_idle, 0.0);
        ck_assert_near(r[0].util, 0.25);
        ck_assert_near(r[1].util_idle, 0.0);
}
END_TEST

START_TEST(test_delta_mismatch) {
        _cleanup_snapshot_ Snapshot *a = snapshot_ok(2), *b = snapshot_ok(2), *c = snapshot_ok(3);
        CpuRates r[3];

        fill(a, b);
        ck_assert_int_eq(snapshot_delta(b, a, r), -EINVAL);
        b->timestamp_usec = a->timestamp_usec;
        ck_assert_int_eq(snapshot_delta(a, b, r), -EINVAL);
        c->timestamp_usec = 5000000;
        ck_assert_int_eq(snapshot_delta(a, c, r), -EINVAL);
        ck_assert_ptr_null(snapshot_free(NULL));
}
END_TEST

/* snapshot_take() on a fake tree, and rates from make-faketree's tick. */
START_TEST(test_take_and_tick) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_topology_ Topology *topo = NULL;
        _cleanup_cpuidle_sampler_ CpuidleSampler *sampler = NULL;
        _cleanup_procreader_ ProcReader *pr = NULL;
        _cleanup_snapshot_ Snapshot *a = snapshot_ok(2), *b = snapshot_ok(2);
        ErrorInfo e = {};
        CpuRates r[2];

        ck_assert_int_eq(topology_load(t->fd, &topo, &e), 0);
        ck_assert_int_eq(cpuidle_sampler_new(t->fd, topo, &sampler, &e), 0);
        ck_assert_int_eq(procreader_new(t->fd, &pr, &e), 0);
        ck_assert_msg(snapshot_take(a, sampler, pr, 5000000, &e) == 0, "%s", e.message);
        ck_assert_str_eq(a->governor, "haltpoll");
        ck_assert_uint_eq(a->timestamp_usec, 5000000);
        ck_assert_int_eq(faketree_tick(t->fd), 0);
        ck_assert_msg(snapshot_take(b, sampler, pr, 6000000, &e) == 0, "%s", e.message);
        delta_ok(a, b, r);
        for (unsigned c = 0; c < 2; c++) {
                /* faketree_tick: state k gets 400/(k+1) + 13*cpu + 7 entries, all
                 * states together 700 ms; 14 + cpu%4 of 100 jiffies busy;
                 * LOC += 250 + 10*cpu; RES 40 + CAL 20 + a device 12 */
                double u0 = 407 + 13 * c, u1 = 207 + 13 * c;
                ck_assert(r[c].valid);
                ck_assert_near(r[c].states[0].usage_per_s, u0);
                ck_assert_near(r[c].states[1].usage_per_s, u1);
                ck_assert_near(r[c].states[0].usage_share_pct, 100.0 * u0 / (u0 + u1));
                ck_assert_double_eq_tol(r[c].states[0].time_share_pct + r[c].states[1].time_share_pct, 70.0, 0.001);
                ck_assert_near(r[c].states[1].too_deep_pct, 100.0 * floor(u1 / 10) / u1);
                ck_assert_near(r[c].states[0].too_shallow_pct, 100.0 * floor(u0 / 20) / u0);
                ck_assert_near(r[c].util, (14.0 + c) / 100.0);
                ck_assert_near(r[c].timer_wakeups_per_s, 250.0 + 10 * c);
                ck_assert_near(r[c].other_wakeups_per_s, 72.0);
        }

        /* without a proc reader: rates unknown */
        ck_assert_int_eq(snapshot_take(b, sampler, NULL, 7000000, &e), 0);
        ck_assert(!b->proc[0].has_stat);
        delta_ok(a, b, r);
        ck_assert(r[0].valid);
        ck_assert_double_lt(r[0].util, 0.0);
}
END_TEST

/* The fake tree advanced in small steps, and on the caller's clock, keeps
 * exact long-run rates (what the integration tests rely on). */
START_TEST(test_paced_ticks) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_topology_ Topology *topo = NULL;
        _cleanup_cpuidle_sampler_ CpuidleSampler *sampler = NULL;
        _cleanup_procreader_ ProcReader *pr = NULL;
        _cleanup_snapshot_ Snapshot *a = snapshot_ok(2), *b = snapshot_ok(2);
        ErrorInfo e = {};
        CpuRates r[2];

        ck_assert_int_eq(topology_load(t->fd, &topo, &e), 0);
        ck_assert_int_eq(cpuidle_sampler_new(t->fd, topo, &sampler, &e), 0);
        ck_assert_int_eq(procreader_new(t->fd, &pr, &e), 0);
        ck_assert_int_eq(snapshot_take(a, sampler, pr, 1000000, &e), 0);
        for (unsigned i = 0; i < 8; i++)
                ck_assert_int_eq(faketree_advance(t->fd, 125000), 0);
        ck_assert_int_eq(snapshot_take(b, sampler, pr, 2000000, &e), 0);
        delta_ok(a, b, r);
        ck_assert_near(r[1].states[0].usage_per_s, 420.0);
        ck_assert_near(r[1].states[1].usage_per_s, 220.0);
        ck_assert_near(r[1].util, 0.15);
        ck_assert_near(r[1].timer_wakeups_per_s, 260.0);

        /* on the caller's clock: 1 s the first time, then the time since */
        ck_assert_int_eq(faketree_tick_at(t->fd, 50000000), 0);
        ck_assert_int_eq(faketree_tick_at(t->fd, 50030000), 0);
        ck_assert_int_eq(faketree_tick_at(t->fd, 40000000), 0);        /* clock went back: nothing */
        ck_assert_int_eq(snapshot_take(a, sampler, pr, 3000000, &e), 0);
        delta_ok(b, a, r);
        ck_assert_uint_eq(r[0].states[0].d_usage, 407 * 2030 / 1000 - 407);
        ck_assert_uint_eq(r[0].states[1].d_time_us, 466666 * 2030 / 1000 - 466666);
        ck_assert_double_le(r[0].states[0].time_share_pct + r[0].states[1].time_share_pct, 100.0);
}
END_TEST

/* The states' time over a tick can run past the tick by a period (the
 * kernel adds a period when it ends; the counters are read after the
 * timestamp): the time shares are scaled to sum to 100%, the rates stay
 * per wall second. */
START_TEST(test_time_share_clamped) {
        _cleanup_snapshot_ Snapshot *a = snapshot_ok(2), *b = snapshot_ok(2);
        CpuRates r[2];

        fill(a, b);
        b->idle[0].states[1].time_us = a->idle[0].states[1].time_us + 2034000;   /* + 2000 us of POLL: 2.036 s in 2 s */
        delta_ok(a, b, r);
        ck_assert_near(r[0].states[0].time_share_pct + r[0].states[1].time_share_pct, 100.0);
        ck_assert_near(r[0].states[1].time_share_pct, 100.0 * 2034000 / 2036000);
        ck_assert_near(r[0].states[1].usage_per_s, 100.0);
        /* the other CPU, within its interval, is untouched */
        ck_assert_near(r[1].states[1].time_share_pct, 50.0);
}
END_TEST

START_TEST(test_take_errors) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_topology_ Topology *topo = NULL;
        _cleanup_cpuidle_sampler_ CpuidleSampler *sampler = NULL;
        _cleanup_snapshot_ Snapshot *wrong = snapshot_ok(3), *s = snapshot_ok(2);
        ErrorInfo e = {};

        ck_assert_int_eq(topology_load(t->fd, &topo, &e), 0);
        ck_assert_int_eq(cpuidle_sampler_new(t->fd, topo, &sampler, &e), 0);
        ck_assert_int_eq(snapshot_take(wrong, sampler, NULL, 1, &e), -EINVAL);
        ck_assert_msg_has(e, "snapshot has 3 CPUs, the sampler 2");
        ck_assert_int_eq(faketree_write(t->fd, "sys/devices/system/cpu/cpu1/cpuidle/state0/time", "x\n"), 0);
        ck_assert_int_eq(snapshot_take(s, sampler, NULL, 1, &e), -EBADMSG);
        ck_assert_msg_has(e, "cpu1/cpuidle/state0/time");
}
END_TEST

/* Takes a snapshot at now_usec after prev (NULL for none). */
static void take_ok(Snapshot *s, const Snapshot *prev, CpuidleSampler *sampler, ProcReader *pr, uint64_t now_usec) {
        ErrorInfo e = {};

        ck_assert_msg(snapshot_take_next(s, prev, sampler, pr, now_usec, &e) == 0, "%s", e.message);
}

/* 3 CPUs read in turns, one a tick: each CPU's rates span its own 3 ticks
 * and equal those of a sampler without a budget over the same 3 ticks
 * (usage per second, shares, util and wakeups over the same interval); a
 * CPU not read at a tick has no fresh rates, nor one read the first time. */
START_TEST(test_turns_own_interval) {
        FakeTreeOptions o = unit_options(3, 2);
        FakeTree *t = unit_tree(&o);
        _cleanup_topology_ Topology *topo = NULL;
        _cleanup_cpuidle_sampler_ CpuidleSampler *full = NULL, *turns = NULL;
        _cleanup_procreader_ ProcReader *pf = NULL, *pt = NULL;
        Snapshot *ref[10] = {}, *snap[2] = {};
        unsigned reads[3] = {};
        ErrorInfo e = {};
        CpuRates r[3], want[3];

        ck_assert_int_eq(topology_load(t->fd, &topo, &e), 0);
        ck_assert_int_eq(cpuidle_sampler_new(t->fd, topo, &full, &e), 0);
        ck_assert_int_eq(cpuidle_sampler_new(t->fd, topo, &turns, &e), 0);
        ck_assert_int_eq(cpuidle_sampler_set_read_budget(turns, 1), 0);
        ck_assert_int_eq(procreader_new(t->fd, &pf, &e), 0);
        ck_assert_int_eq(procreader_new(t->fd, &pt, &e), 0);
        snap[0] = snapshot_ok(3);
        snap[1] = snapshot_ok(3);
        for (unsigned i = 0; i < 10; i++) {
                Snapshot *cur = snap[i % 2], *prev = snap[(i + 1) % 2];
                uint64_t now = (i + 1) * 1000000ULL;

                ref[i] = snapshot_ok(3);
                ck_assert_int_eq(faketree_tick(t->fd), 0);
                take_ok(ref[i], NULL, full, pf, now);
                take_ok(cur, i > 0 ? prev : NULL, turns, pt, now);
                if (i == 0) {
                        reads[0] = cur->idle[0].fresh;
                        continue;
                }
                delta_ok(prev, cur, r);
                for (unsigned cpu = 0; cpu < 3; cpu++) {
                        if (!cur->idle[cpu].fresh || reads[cpu]++ == 0) {
                                ck_assert(!r[cpu].fresh && !r[cpu].valid);
                                ck_assert_double_lt(r[cpu].util, 0.0);
                                continue;
                        }
                        delta_ok(ref[i - 3], ref[i], want);
                        ck_assert(r[cpu].fresh && r[cpu].valid);
                        ck_assert_uint_eq(r[cpu].interval_usec, 3000000);
                        ck_assert_uint_eq(want[cpu].interval_usec, 3000000);
                        ck_assert_uint_eq(cur->sampled_usec[cpu], now);
                        for (unsigned k = 0; k < 2; k++) {
                                ck_assert_uint_eq(r[cpu].states[k].d_usage, want[cpu].states[k].d_usage);
                                ck_assert_near(r[cpu].states[k].usage_per_s, want[cpu].states[k].usage_per_s);
                                ck_assert_near(r[cpu].states[k].time_share_pct, want[cpu].states[k].time_share_pct);
                        }
                        ck_assert_near(r[cpu].util, want[cpu].util);
                        ck_assert_near(r[cpu].timer_wakeups_per_s, want[cpu].timer_wakeups_per_s);
                        ck_assert_near(r[cpu].other_wakeups_per_s, want[cpu].other_wakeups_per_s);
                }
        }
        for (unsigned cpu = 0; cpu < 3; cpu++)
                ck_assert_uint_ge(reads[cpu], 3);
        for (unsigned i = 0; i < 10; i++)
                snapshot_free(ref[i]);
        snapshot_free(snap[0]);
        snapshot_free(snap[1]);
}
END_TEST

/* A record carried from the snapshot before: counters, proc values and the
 * time it was read, not fresh; without a snapshot before, unknown. */
START_TEST(test_take_next_carries) {
        FakeTreeOptions o = unit_options(2, 2);
        FakeTree *t = unit_tree(&o);
        _cleanup_topology_ Topology *topo = NULL;
        _cleanup_cpuidle_sampler_ CpuidleSampler *sampler = NULL;
        _cleanup_procreader_ ProcReader *pr = NULL;
        _cleanup_snapshot_ Snapshot *a = snapshot_ok(2), *b = snapshot_ok(2), *c = snapshot_ok(2);
        ErrorInfo e = {};
        CpuRates r[2];

        ck_assert_int_eq(topology_load(t->fd, &topo, &e), 0);
        ck_assert_int_eq(cpuidle_sampler_new(t->fd, topo, &sampler, &e), 0);
        ck_assert_int_eq(cpuidle_sampler_set_read_budget(sampler, 1), 0);
        ck_assert_int_eq(procreader_new(t->fd, &pr, &e), 0);
        take_ok(a, NULL, sampler, pr, 1000000);         /* CPU 0 */
        ck_assert(a->idle[0].fresh && !a->idle[1].fresh);
        ck_assert_uint_eq(a->sampled_usec[0], 1000000);
        ck_assert_uint_eq(a->sampled_usec[1], SNAPSHOT_NEVER);
        ck_assert(!a->proc[1].has_stat);
        ck_assert_int_eq(faketree_tick(t->fd), 0);
        take_ok(b, a, sampler, pr, 2000000);            /* CPU 1 */
        ck_assert(!b->idle[0].fresh && b->idle[1].fresh);
        ck_assert_uint_eq(b->sampled_usec[0], 1000000);
        ck_assert_mem_eq(&b->proc[0], &a->proc[0], sizeof(ProcCpuSample));
        ck_assert_uint_eq(b->idle[0].states[1].usage, a->idle[0].states[1].usage);
        delta_ok(a, b, r);
        ck_assert(!r[0].fresh && !r[0].valid && !r[1].fresh);
        ck_assert_int_eq(faketree_tick(t->fd), 0);
        take_ok(c, b, sampler, pr, 3000000);            /* CPU 0 again, over 2 s */
        delta_ok(b, c, r);
        ck_assert(r[0].fresh && r[0].valid && !r[1].fresh);
        ck_assert_uint_eq(r[0].interval_usec, 2000000);
        ck_assert_near(r[0].states[0].usage_per_s, 407.0);
        ck_assert_near(r[0].util, 0.14);
}
END_TEST

int main(void) {
        Suite *s = suite_create("snapshot");
        TCase *delta = unit_tcase(s, "delta");
        TCase *take = unit_tcase(s, "take");

        tcase_add_test(delta, test_rates_by_hand);
        tcase_add_test(delta, test_uneven_shares);
        tcase_add_test(delta, test_invalid_cpus);
        tcase_add_test(delta, test_unknown_proc);
        tcase_add_test(delta, test_delta_mismatch);
        tcase_add_test(delta, test_time_share_clamped);
        tcase_add_test(take, test_take_and_tick);
        tcase_add_test(take, test_paced_ticks);
        tcase_add_test(take, test_take_errors);
        tcase_add_test(take, test_turns_own_interval);
        tcase_add_test(take, test_take_next_carries);
        return unit_run(s);
}
