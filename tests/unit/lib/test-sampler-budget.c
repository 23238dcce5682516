/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sampler's budgets: at most so many fds held (cpuidle-sampler.c,
 * cpuidle_sampler_new_budget()) and at most so many files read per read,
 * CPUs taking turns (sampler-turns.c); the values always those of a sampler
 * without a budget. */
#include <errno.h>
#include <fcntl.h>

#include "test-sampler-helpers.h"

#define BUDGET_CPUS 4
#define BUDGET_STATES 10

/* Returns the number of fds this process has open. */
static unsigned open_fds(void) {
        unsigned n = 0;

        for (int fd = 0; fd < 4096; fd++)
                n += fcntl(fd, F_GETFD) >= 0;
        return n;
}

/* Asserts that CPU cpu holds the same values in a and b, but for whether
 * it has a resume latency file (the generations are the samplers' own). */
static void assert_same_cpu(const CpuidleCpuSample *a, const CpuidleCpuSample *b, unsigned cpu) {
        ck_assert_int_eq(a->online, b->online);
        ck_assert_uint_eq(a->n_states, b->n_states);
        ck_assert_uint_eq(a->resume_latency_us, b->resume_latency_us);
        for (unsigned k = 0; k < a->n_states; k++) {
                const CpuidleStateCounters *x = &a->states[k], *y = &b->states[k];
                ck_assert_msg(x->usage == y->usage && x->time_us == y->time_us && x->above == y->above &&
                              x->below == y->below && x->rejected == y->rejected && x->disabled == y->disabled,
                              "CPU %u state %u: counters differ", cpu, k);
        }
}

/* Asserts that two samples of the same tree hold the same values. */
static void assert_same_sample(const CpuidleCpuSample *a, const CpuidleCpuSample *b, unsigned n_cpus) {
        for (unsigned cpu = 0; cpu < n_cpus; cpu++) {
                ck_assert_int_eq(a[cpu].has_resume_latency, b[cpu].has_resume_latency);
                assert_same_cpu(&a[cpu], &b[cpu], cpu);
        }
}

/* ---- the fd budget ------------------------------------------------------- */

/* Reads both samplers after ticks ticks of the tree; asserts the same
 * values, the same files read and at most budget fds held by the budgeted
 * one, open_before being the process's fds other than the samplers'. */
static void read_both(FakeTree *t, CpuidleSampler *full, CpuidleSampler *budgeted, unsigned budget,
                      unsigned open_before, unsigned ticks) {
        CpuidleCpuSample a[BUDGET_CPUS], b[BUDGET_CPUS];

        for (unsigned i = 0; i < ticks; i++) {
                ck_assert_int_eq(faketree_tick(t->fd), 0);
                read_ok(full, a);
                read_ok(budgeted, b);
                assert_same_sample(a, b, BUDGET_CPUS);
                ck_assert_uint_eq(cpuidle_sampler_files_read(full), cpuidle_sampler_files_read(budgeted));
                ck_assert_uint_le(cpuidle_sampler_fds(budgeted), budget);
                ck_assert_uint_le(open_fds() - cpuidle_sampler_fds(full) - open_before, budget);
        }
}

/* A budget smaller than the files (4 CPUs x 10 states: 244 files): the same
 * values as without one, through a governor switch, a CPU going offline
 * and back, and a knob written by someone else; never more fds held. */
START_TEST(test_budget_same_values) {
        static const unsigned budgets[] = { 0, 3, 30, 3 + 40 + 7, 3 + 40 + 120 + 5, 1000 };
        FakeTreeOptions o = unit_options(BUDGET_CPUS, BUDGET_STATES);
        FakeTree *t = unit_tree(&o);
        _cleanup_cpuidle_sampler_ CpuidleSampler *full = sampler_mode(t->fd, _i % _MODE_MAX);
        _cleanup_cpuidle_sampler_ CpuidleSampler *budgeted = NULL;
        _cleanup_topology_ Topology *topo = NULL;
        unsigned budget = budgets[_i / _MODE_MAX], before = open_fds() - cpuidle_sampler_fds(full);
        ErrorInfo e = {};

        ck_assert_int_eq(topology_load(t->fd, &topo, &e), 0);
        ck_assert_msg(cpuidle_sampler_new_budget(t->fd, topo, budget, &budgeted, &e) == 0, "%s", e.message);
        set_mode(budgeted, _i % _MODE_MAX);
        if (budget < 3)
                budget = 3;     /* the root fd's duplicate, the governor file, the CPU directory */
        read_both(t, full, budgeted, budget, before, 3);
        ck_assert_int_eq(faketree_switch_governor(t->fd, "menu"), 0);
        read_both(t, full, budgeted, budget, before, 2);
        ck_assert_int_eq(faketree_write(t->fd, CPU_DIR "/cpu3/cpuidle/state4/disable", "1\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, CPU_DIR "/cpu1/power/pm_qos_resume_latency_us", "n/a\n"), 0);
        cpuidle_sampler_request_full(full);
        cpuidle_sampler_request_full(budgeted);
        read_both(t, full, budgeted, budget, before, 2);
        ck_assert_int_eq(faketree_set_offline(t->fd, 2), 0);
        cpuidle_sampler_invalidate(full);
        cpuidle_sampler_invalidate(budgeted);
        read_both(t, full, budgeted, budget, before, 2);
        ck_assert_int_eq(faketree_set_online(t->fd, 2), 0);
        cpuidle_sampler_invalidate(full);
        cpuidle_sampler_invalidate(budgeted);
        read_both(t, full, budgeted, budget, before, 3);
        if (budget >= 1000)     /* enough for every file: all of them held */
                ck_assert_uint_eq(cpuidle_sampler_fds(budgeted), cpuidle_sampler_fds(full) + 1);   /* + the CPU directory */
        else
                ck_assert_uint_eq(cpuidle_sampler_fds(budgeted), budget);
}
END_TEST

/* The fds go to usage first, then time/above/below, then the slow tier: a
 * budget of the usage files alone keeps a read of usage only (a quiet tree,
 * partial samples) from opening anything. */
START_TEST(test_budget_usage_first) {
        FakeTreeOptions o = unit_options(BUDGET_CPUS, BUDGET_STATES);
        FakeTree *t = unit_tree(&o);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = NULL;
        _cleanup_topology_ Topology *topo = NULL;
        unsigned budget = 3 + BUDGET_CPUS * BUDGET_STATES, before;
        CpuidleCpuSample out[BUDGET_CPUS];
        ErrorInfo e = {};

        ck_assert_int_eq(topology_load(t->fd, &topo, &e), 0);
        ck_assert_int_eq(cpuidle_sampler_new_budget(t->fd, topo, budget, &s, &e), 0);
        ck_assert_uint_eq(cpuidle_sampler_fds(s), 3);          /* nothing held before the first read */
        set_mode(s, MODE_PARTIAL);                              /* full: every file read once */
        ck_assert_uint_eq(cpuidle_sampler_fds(s), budget);
        before = open_fds();
        read_ok(s, out);                                        /* partial, nothing moved */
        ck_assert_uint_eq(cpuidle_sampler_files_read(s), 1 + BUDGET_CPUS * BUDGET_STATES);
        ck_assert_uint_eq(open_fds(), before);
        ck_assert_int_eq(faketree_tick(t->fd), 0);
        read_ok(s, out);                                        /* time/above/below opened and closed */
        ck_assert_uint_eq(cpuidle_sampler_files_read(s), 1 + BUDGET_CPUS * BUDGET_STATES * 4);
        ck_assert_uint_eq(cpuidle_sampler_fds(s), budget);
        ck_assert_uint_eq(open_fds(), before);
}
END_TEST

/* A file without an fd that vanished is a stale fd: the CPU is reopened. */
START_TEST(test_budget_vanished_file) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = NULL;
        _cleanup_topology_ Topology *topo = NULL;
        CpuidleCpuSample out[2];
        ErrorInfo e = {};

        ck_assert_int_eq(topology_load(t->fd, &topo, &e), 0);
        ck_assert_int_eq(cpuidle_sampler_new_budget(t->fd, topo, 3, &s, &e), 0);
        read_ok(s, out);
        uint64_t g = out[1].generation;
        ck_assert_int_eq(faketree_set_offline(t->fd, 1), 0);
        read_ok(s, out);                        /* no invalidate: the open fails */
        ck_assert(out[0].online);
        ck_assert(!out[1].online);
        ck_assert_uint_eq(out[1].n_states, 0);
        ck_assert_uint_gt(out[1].generation, g);
        ck_assert_uint_eq(cpuidle_sampler_fds(s), 3);
}
END_TEST

/* ---- the read budget: CPUs in turns -------------------------------------- */

/* BUDGET_CPUS x BUDGET_STATES, 61 files a CPU: budgets of one, two and all
 * four CPUs per read (the governor file counts too). */
#define TURN_CPU_FILES (BUDGET_STATES * 6 + 1)
static const unsigned turn_budgets[] = { 1, 1 + TURN_CPU_FILES, 1 + 2 * TURN_CPU_FILES, 1 + 4 * TURN_CPU_FILES };

/* With a budget every CPU is read within ceil(files / budget) reads
 * (whole CPUs: 1, 2 or 4 a read), and a CPU read holds the values an
 * unbudgeted sampler reads at the same moment; one not read is not fresh
 * and keeps its last values. */
START_TEST(test_turns_every_cpu) {
        FakeTreeOptions o = unit_options(BUDGET_CPUS, BUDGET_STATES);
        FakeTree *t = unit_tree(&o);
        unsigned budget = turn_budgets[_i / _MODE_MAX], files = 1 + BUDGET_CPUS * TURN_CPU_FILES;
        unsigned bound = budget < TURN_CPU_FILES ? BUDGET_CPUS : (files + budget - 1) / budget;
        _cleanup_cpuidle_sampler_ CpuidleSampler *full = sampler_mode(t->fd, _i % _MODE_MAX);
        _cleanup_cpuidle_sampler_ CpuidleSampler *turns = sampler_ok(t->fd);
        CpuidleCpuSample a[BUDGET_CPUS], b[BUDGET_CPUS], last[BUDGET_CPUS] = {};
        unsigned since[BUDGET_CPUS] = {};

        ck_assert_int_eq(cpuidle_sampler_set_read_budget(turns, budget), 0);
        set_mode(turns, _i % _MODE_MAX);
        for (unsigned i = 0; i < 12; i++) {
                ck_assert_int_eq(faketree_tick(t->fd), 0);
                read_ok(full, a);
                read_ok(turns, b);
                for (unsigned cpu = 0; cpu < BUDGET_CPUS; cpu++) {
                        ck_assert(a[cpu].fresh);
                        if (b[cpu].fresh) {
                                assert_same_cpu(&a[cpu], &b[cpu], cpu);
                                last[cpu] = b[cpu];
                                since[cpu] = 0;
                                continue;
                        }
                        ck_assert_uint_lt(++since[cpu], bound);
                        if (last[cpu].n_states > 0)
                                assert_same_cpu(&last[cpu], &b[cpu], cpu);
                }
        }
        if (budget == turn_budgets[3])
                ck_assert_uint_eq(cpuidle_sampler_files_read(turns), cpuidle_sampler_files_read(full));
}
END_TEST

/* A governor switch in the middle of a turn: every CPU is reopened at its
 * turn, and no CPU is ever fresh with a value from before the switch (a
 * fresh CPU has a new generation and the new table). */
START_TEST(test_turns_governor_switch) {
        FakeTreeOptions o = unit_options(BUDGET_CPUS, 2);
        FakeTree *t = unit_tree(&o);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);
        CpuidleCpuSample out[BUDGET_CPUS];
        uint64_t before[BUDGET_CPUS];
        bool seen[BUDGET_CPUS] = {};

        ck_assert_int_eq(cpuidle_sampler_set_read_budget(s, 1), 0);
        for (unsigned i = 0; i < BUDGET_CPUS + 1; i++)          /* the cursor now at CPU 1 */
                read_ok(s, out);
        for (unsigned cpu = 0; cpu < BUDGET_CPUS; cpu++)
                before[cpu] = out[cpu].generation;
        for (unsigned cpu = 0; cpu < BUDGET_CPUS; cpu++)
                ck_assert_int_eq(faketree_write_states(t->fd, cpu, switch_table, 3, false), 0);
        ck_assert_int_eq(faketree_write(t->fd, CPUIDLE_DIR "/current_governor", "menu\n"), 0);
        for (unsigned i = 0; i < 2 * BUDGET_CPUS; i++) {
                read_ok(s, out);
                for (unsigned cpu = 0; cpu < BUDGET_CPUS; cpu++) {
                        if (!out[cpu].fresh) {
                                ck_assert(seen[cpu] || out[cpu].generation == before[cpu]);
                                continue;
                        }
                        ck_assert_uint_gt(out[cpu].generation, before[cpu]);
                        ck_assert_uint_eq(out[cpu].n_states, 3);
                        seen[cpu] = true;
                }
        }
        for (unsigned cpu = 0; cpu < BUDGET_CPUS; cpu++)
                ck_assert(seen[cpu]);
}
END_TEST

/* A CPU going offline in the middle of a turn reads offline at its turn and
 * is never fresh with its old counters; back online, it is read again. */
START_TEST(test_turns_hotplug) {
        FakeTreeOptions o = unit_options(BUDGET_CPUS, 2);
        FakeTree *t = unit_tree(&o);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);
        CpuidleCpuSample out[BUDGET_CPUS];
        unsigned fresh_offline = 0;

        ck_assert_int_eq(cpuidle_sampler_set_read_budget(s, 1), 0);
        for (unsigned i = 0; i < BUDGET_CPUS + 3; i++)          /* the cursor now at CPU 3 */
                read_ok(s, out);
        ck_assert_int_eq(faketree_set_offline(t->fd, 2), 0);
        cpuidle_sampler_invalidate(s);
        for (unsigned i = 0; i < BUDGET_CPUS; i++) {
                read_ok(s, out);
                if (out[2].fresh) {
                        ck_assert(!out[2].online);
                        ck_assert_uint_eq(out[2].n_states, 0);
                        fresh_offline++;
                } else          /* its last read, not fresh */
                        ck_assert(out[2].online == (fresh_offline == 0));
        }
        ck_assert_uint_eq(fresh_offline, 1);
        ck_assert_int_eq(faketree_set_online(t->fd, 2), 0);
        cpuidle_sampler_invalidate(s);
        for (unsigned i = 0; i < BUDGET_CPUS; i++) {
                read_ok(s, out);
                ck_assert(!out[2].fresh || (out[2].online && out[2].n_states == 2));
        }
}
END_TEST

/* A knob written on one CPU makes that CPU's next read full, not every
 * CPU's: the other keeps reading usage only. */
START_TEST(test_turns_request_full_cpu) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);
        CpuidleCpuSample out[2];

        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, FLAGS_ALL, 100), 0);
        ck_assert_int_eq(cpuidle_sampler_set_read_budget(s, 1000), 0);
        for (unsigned i = 0; i < 3; i++)
                read_ok(s, out);
        ck_assert_uint_eq(cpuidle_sampler_files_read(s), 1 + 2 + 2);    /* the governor, usage */
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/disable", "1\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, CPU_DIR "/cpu1/cpuidle/state1/disable", "1\n"), 0);
        cpuidle_sampler_request_full_cpu(s, 0);
        cpuidle_sampler_request_full_cpu(s, 7);                         /* out of range: ignored */
        read_ok(s, out);
        ck_assert(out[0].fresh && out[1].fresh);
        ck_assert(out[0].states[1].disabled);
        ck_assert(!out[1].states[1].disabled);                          /* not read yet */
        ck_assert_uint_eq(cpuidle_sampler_files_read(s), 1 + 13 + 2);
        cpuidle_sampler_request_full(s);
        read_ok(s, out);
        ck_assert(out[1].states[1].disabled);
}
END_TEST

int main(void) {
        Suite *s = suite_create("sampler-budget");
        TCase *budget = unit_tcase(s, "budget");
        TCase *turns = unit_tcase(s, "turns");

        tcase_add_loop_test(budget, test_budget_same_values, 0, 6 * _MODE_MAX);
        tcase_add_test(budget, test_budget_usage_first);
        tcase_add_test(budget, test_budget_vanished_file);
        tcase_add_loop_test(turns, test_turns_every_cpu, 0, 4 * _MODE_MAX);
        tcase_add_test(turns, test_turns_governor_switch);
        tcase_add_test(turns, test_turns_hotplug);
        tcase_add_test(turns, test_turns_request_full_cpu);
        return unit_run(s);
}
