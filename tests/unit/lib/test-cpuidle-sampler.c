/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The counter sampler (cpuidle-sampler.c) reading every file: the state
 * tables, the counters and the resume latency, bad files, old kernels,
 * governor switches, hotplug and the fd limit; every test that takes _i in
 * both modes (test-sampler-helpers.h).  Its cadence and budgets:
 * test-sampler-cadence.c, test-sampler-budget.c. */
#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

#include "test-sampler-helpers.h"

START_TEST(test_sampler_tables) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_mode(t->fd, _i);
        const CpuidleStateInfo *st;
        unsigned n = 99;
        const unsigned all = CPUIDLE_HAS_ABOVE | CPUIDLE_HAS_BELOW | CPUIDLE_HAS_REJECTED | CPUIDLE_HAS_DISABLE |
                             CPUIDLE_HAS_DEFAULT_STATUS | CPUIDLE_HAS_POWER | CPUIDLE_HAS_DESC;

        ck_assert_uint_eq(cpuidle_sampler_n_cpus(s), 2);
        ck_assert_str_eq(cpuidle_sampler_governor(s), "haltpoll");
        st = cpuidle_sampler_states(s, 1, &n);
        ck_assert_ptr_nonnull(st);
        ck_assert_uint_eq(n, 2);
        ck_assert_str_eq(st[0].name, "POLL");
        ck_assert_str_eq(st[0].desc, "CPUIDLE CORE POLL IDLE");
        ck_assert_uint_eq(st[0].latency_us, 0);
        ck_assert_str_eq(st[1].name, "haltpoll idle");
        ck_assert_str_eq(st[1].desc, "default architecture idle");
        ck_assert_uint_eq(st[1].latency_us, 1);
        ck_assert_uint_eq(st[1].residency_us, 1);
        ck_assert_uint_eq(st[1].power_mw, UINT32_MAX);
        ck_assert(st[1].default_enabled);
        ck_assert_uint_eq(st[1].files, all);
        ck_assert_ptr_null(cpuidle_sampler_states(s, 2, &n));
        ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(test_sampler_counters) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);
        CpuidleCpuSample out[2];
        FakeCounters d = { .usage = 10, .time_us = 1000, .above = 2, .below = 1, .rejected = 3 };

        read_ok(s, out);
        ck_assert(out[0].online && out[1].online);
        ck_assert_uint_eq(out[0].n_states, 2);
        ck_assert(out[0].has_resume_latency);
        ck_assert_uint_eq(out[0].resume_latency_us, 0);
        ck_assert_uint_eq(out[0].states[1].usage, 0);
        uint64_t generation = out[0].generation;

        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 1, &d), 0);
        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 1, &d), 0);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/disable", "1\n"), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].states[1].usage, 20);
        ck_assert_uint_eq(out[0].states[1].time_us, 2000);
        ck_assert_uint_eq(out[0].states[1].above, 4);
        ck_assert_uint_eq(out[0].states[1].below, 2);
        ck_assert_uint_eq(out[0].states[1].rejected, 6);
        ck_assert(out[0].states[1].disabled);
        ck_assert(!out[0].states[0].disabled);
        ck_assert_uint_eq(out[0].states[0].usage, 0);
        ck_assert_uint_eq(out[1].states[1].usage, 0);
        ck_assert_uint_eq(out[0].generation, generation);   /* nothing reopened */
}
END_TEST

START_TEST(test_sampler_resume_latency) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);
        const char *qos = CPU_DIR "/cpu1/power/pm_qos_resume_latency_us";
        CpuidleCpuSample out[2];

        ck_assert_int_eq(faketree_write(t->fd, qos, "n/a\n"), 0);
        read_ok(s, out);
        ck_assert(out[1].has_resume_latency);
        ck_assert_uint_eq(out[1].resume_latency_us, CPUIDLE_RESUME_LATENCY_NA);
        ck_assert_int_eq(faketree_write(t->fd, qos, "20\n"), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[1].resume_latency_us, 20);
        ck_assert_int_eq(faketree_write(t->fd, qos, "soon\n"), 0);
        read_fails(s, out, -EBADMSG, CPU_DIR "/cpu1/power/pm_qos_resume_latency_us: invalid value");
}
END_TEST

START_TEST(test_sampler_no_resume_latency_file) {
        FakeTree *t = unit_tree(NULL);

        ck_assert_int_eq(faketree_rm_rf(t->fd, CPU_DIR "/cpu0/power"), 0);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_mode(t->fd, _i);
        CpuidleCpuSample out[2];
        read_ok(s, out);
        ck_assert(!out[0].has_resume_latency);
        ck_assert(out[1].has_resume_latency);
}
END_TEST

START_TEST(test_sampler_garbage_counter) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_mode(t->fd, _i);
        CpuidleCpuSample out[2];

        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/usage", "12abc\n"), 0);
        read_fails(s, out, -EBADMSG, STATE1 "/usage: invalid number \"12abc\"");
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/usage", "%s", ""), 0);
        read_fails(s, out, -EBADMSG, STATE1 "/usage: invalid number \"\"");
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/usage", "%040d\n", 1), 0);
        read_fails(s, out, -EBADMSG, STATE1 "/usage: value too long");
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/usage", "18446744073709551616\n"), 0);
        read_fails(s, out, -EBADMSG, STATE1 "/usage");
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/usage", "5\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/disable", "2\n"), 0);
        read_fails(s, out, -EBADMSG, STATE1 "/disable: invalid number \"2\"");
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/disable", "0\n"), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].states[1].usage, 5);
}
END_TEST

START_TEST(test_sampler_bad_state_files) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_topology_ Topology *topo = NULL;
        CpuidleSampler *s = (CpuidleSampler *) 0x1;
        ErrorInfo e = {};

        ck_assert_int_eq(topology_load(t->fd, &topo, &e), 0);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/latency", "fast\n"), 0);
        ck_assert_int_eq(cpuidle_sampler_new(t->fd, topo, &s, &e), -EBADMSG);
        ck_assert_msg_has(e, STATE1 "/latency: invalid number \"fast\"");
        ck_assert_ptr_eq(s, (CpuidleSampler *) 0x1);
        ck_assert_int_eq(faketree_rm_rf(t->fd, STATE1 "/latency"), 0);
        ck_assert_int_eq(cpuidle_sampler_new(t->fd, topo, &s, &e), -ENOENT);
        ck_assert_msg_has(e, STATE1 "/latency: missing");
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/latency", "1\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/default_status", "sometimes\n"), 0);
        ck_assert_int_eq(cpuidle_sampler_new(t->fd, topo, &s, &e), -EBADMSG);
        ck_assert_msg_has(e, STATE1 "/default_status: invalid value \"sometimes\"");
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/default_status", "disabled\n"), 0);
        ck_assert_int_eq(faketree_rm_rf(t->fd, STATE1 "/usage"), 0);
        ck_assert_int_eq(cpuidle_sampler_new(t->fd, topo, &s, &e), -ENOENT);
        ck_assert_msg_has(e, STATE1 "/usage: missing");
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/usage", "0\n"), 0);
        ck_assert_int_eq(cpuidle_sampler_new(t->fd, topo, &s, &e), 0);
        unsigned n;
        const CpuidleStateInfo *st = cpuidle_sampler_states(s, 0, &n);
        ck_assert(!st[1].default_enabled);
        ck_assert_ptr_null(cpuidle_sampler_free(s));
}
END_TEST

START_TEST(test_sampler_old_kernel) {
        FakeTreeOptions o = unit_options(2, 0);
        o.old_kernel = true;
        FakeTree *t = unit_tree(&o);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_mode(t->fd, _i);
        FakeCounters d = { .usage = 7, .time_us = 70, .above = 1, .below = 1 };
        CpuidleCpuSample out[2];
        unsigned n;

        const CpuidleStateInfo *st = cpuidle_sampler_states(s, 0, &n);
        ck_assert_uint_eq(n, 2);
        ck_assert_uint_eq(st[1].files, CPUIDLE_HAS_DISABLE | CPUIDLE_HAS_POWER | CPUIDLE_HAS_DESC);
        ck_assert(st[1].default_enabled);
        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 1, &d), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].states[1].usage, 7);
        ck_assert_uint_eq(out[0].states[1].time_us, 70);
        ck_assert_uint_eq(out[0].states[1].above, 0);
        ck_assert_uint_eq(out[0].states[1].below, 0);
        ck_assert_uint_eq(out[0].states[1].rejected, 0);
}
END_TEST

START_TEST(test_sampler_many_states) {
        FakeTreeOptions o = unit_options(1, CPUIDLE_STATES_MAX);
        FakeTree *t = unit_tree(&o);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_mode(t->fd, _i);
        FakeCounters d = { .usage = 9 };
        CpuidleCpuSample out[1];
        unsigned n;

        const CpuidleStateInfo *st = cpuidle_sampler_states(s, 0, &n);
        ck_assert_uint_eq(n, CPUIDLE_STATES_MAX);
        ck_assert_str_eq(st[9].name, "C9");
        ck_assert_uint_eq(st[9].latency_us, 1u << 18);
        ck_assert_uint_eq(st[9].residency_us, 3u << 18);
        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 9, &d), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].n_states, CPUIDLE_STATES_MAX);
        ck_assert_uint_eq(out[0].states[9].usage, 9);
        ck_assert_uint_eq(out[0].states[8].usage, 0);
}
END_TEST

/* The governor changes and the state table with it (a switch recreates the
 * directories; here a new table appears): the sampler must notice from the
 * governor file alone, since the old fds stay readable in a test tree. */
START_TEST(test_sampler_governor_switch_new_table) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_mode(t->fd, _i);
        FakeCounters d = { .usage = 11, .time_us = 5000 };
        CpuidleCpuSample out[2];
        unsigned n;

        read_ok(s, out);
        uint64_t g0 = out[0].generation, g1 = out[1].generation;
        ck_assert_uint_ne(g0, g1);
        ck_assert_int_eq(faketree_write_states(t->fd, 0, switch_table, 3, false), 0);
        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 2, &d), 0);
        ck_assert_int_eq(faketree_write(t->fd, CPUIDLE_DIR "/current_governor", "menu\n"), 0);
        read_ok(s, out);
        ck_assert_str_eq(cpuidle_sampler_governor(s), "menu");
        ck_assert_uint_eq(out[0].n_states, 3);
        ck_assert_uint_gt(out[0].generation, g0);
        ck_assert_uint_gt(out[1].generation, g1);       /* every CPU was reopened */
        ck_assert_uint_eq(out[0].states[2].usage, 11);
        ck_assert_uint_eq(out[0].states[2].time_us, 5000);
        const CpuidleStateInfo *st = cpuidle_sampler_states(s, 0, &n);
        ck_assert_uint_eq(n, 3);
        ck_assert_str_eq(st[2].name, "C6");
        ck_assert_uint_eq(st[2].latency_us, 133);
        ck_assert_uint_eq(st[2].residency_us, 400);
        /* the next read keeps the new fds */
        uint64_t g = out[0].generation;
        read_ok(s, out);
        ck_assert_uint_eq(out[0].generation, g);
}
END_TEST

/* A switch done the way the kernel does it: same content, new inodes; the
 * counters survive. */
START_TEST(test_sampler_governor_switch_same_table) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_mode(t->fd, _i);
        FakeCounters d = { .usage = 3 };
        CpuidleCpuSample out[2];

        ck_assert_int_eq(faketree_bump_state(t->fd, 1, 1, &d), 0);
        read_ok(s, out);
        uint64_t g = out[1].generation;
        ck_assert_uint_eq(out[1].states[1].usage, 3);
        ck_assert_int_eq(faketree_switch_governor(t->fd, "ladder"), 0);
        ck_assert_int_eq(faketree_bump_state(t->fd, 1, 1, &d), 0);
        read_ok(s, out);
        ck_assert_str_eq(cpuidle_sampler_governor(s), "ladder");
        ck_assert_uint_gt(out[1].generation, g);
        ck_assert_uint_eq(out[1].states[1].usage, 6);  /* read through the new files */
}
END_TEST

/* Directories recreated without a governor change: invisible to the sampler
 * in a test tree until cpuidle_sampler_invalidate(). */
START_TEST(test_sampler_invalidate) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_mode(t->fd, _i);
        FakeCounters d = { .usage = 5 };
        CpuidleCpuSample out[2];

        read_ok(s, out);
        uint64_t g = out[0].generation;
        ck_assert_int_eq(faketree_switch_governor(t->fd, "haltpoll"), 0);     /* same name */
        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 1, &d), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].generation, g);
        ck_assert_uint_eq(out[0].states[1].usage, 0);  /* the stale, unlinked file */
        cpuidle_sampler_invalidate(s);
        read_ok(s, out);
        ck_assert_uint_gt(out[0].generation, g);
        ck_assert_uint_eq(out[0].states[1].usage, 5);
}
END_TEST

/* The CPU goes offline between topology_load() and the reads. */
START_TEST(test_sampler_cpu_vanished) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_topology_ Topology *topo = NULL;
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = NULL;
        CpuidleCpuSample out[2];
        ErrorInfo e = {};
        unsigned n;

        ck_assert_int_eq(topology_load(t->fd, &topo, &e), 0);
        ck_assert(topo->cpus[1].online);
        ck_assert_int_eq(faketree_set_offline(t->fd, 1), 0);
        ck_assert_int_eq(cpuidle_sampler_new(t->fd, topo, &s, &e), 0);
        set_mode(s, _i);
        read_ok(s, out);
        ck_assert(out[0].online);
        ck_assert_uint_eq(out[0].n_states, 2);
        ck_assert(!out[1].online);
        ck_assert_uint_eq(out[1].n_states, 0);
        ck_assert_ptr_null(cpuidle_sampler_states(s, 1, &n));
        ck_assert_uint_eq(n, 0);
}
END_TEST

/* The CPU goes offline after the sampler opened it, then comes back. */
START_TEST(test_sampler_cpu_offline_and_back) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_mode(t->fd, _i);
        CpuidleCpuSample out[2];

        read_ok(s, out);
        uint64_t g = out[1].generation;
        ck_assert_int_eq(faketree_set_offline(t->fd, 1), 0);
        cpuidle_sampler_invalidate(s);
        read_ok(s, out);
        ck_assert(!out[1].online);
        ck_assert_uint_eq(out[1].n_states, 0);
        ck_assert_int_eq(faketree_set_online(t->fd, 1), 0);
        cpuidle_sampler_invalidate(s);
        read_ok(s, out);
        ck_assert(out[1].online);
        ck_assert_uint_eq(out[1].n_states, 2);
        ck_assert_uint_gt(out[1].generation, g);
}
END_TEST

/* A governor switch asks for a reopen; the CPU goes offline and back
 * before the next read (its cpuidle device registered anew, its counters
 * started again from 0): counted as stale, so the daemon sees the hotplug
 * (live-pins' flap within a tick on a busy machine missed it).  A reopen
 * without a flap (the counters carried on) is not counted. */
START_TEST(test_sampler_flap_behind_a_reopen) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_mode(t->fd, _i);
        FakeCounters d = { .usage = 7 };
        CpuidleCpuSample out[2];

        ck_assert_int_eq(faketree_bump_state(t->fd, 1, 1, &d), 0);
        read_ok(s, out);
        uint64_t stale = out[1].stale_reopens;
        ck_assert_uint_eq(out[1].states[1].usage, 7);
        cpuidle_sampler_invalidate(s);
        read_ok(s, out);
        ck_assert_uint_eq(out[1].stale_reopens, stale);
        ck_assert_int_eq(faketree_set_offline(t->fd, 1), 0);
        ck_assert_int_eq(faketree_set_online(t->fd, 1), 0);
        d.usage = 2;
        ck_assert_int_eq(faketree_bump_state(t->fd, 1, 1, &d), 0);
        cpuidle_sampler_invalidate(s);
        read_ok(s, out);
        ck_assert_uint_eq(out[1].states[1].usage, 2);
        ck_assert_uint_eq(out[1].stale_reopens, stale + 1);
        ck_assert_uint_eq(out[0].stale_reopens, 0);
}
END_TEST

START_TEST(test_sampler_offline_and_no_driver) {
        FakeTreeOptions o = unit_options(3, 0);
        o.offline = "1";
        FakeTree *t = unit_tree(&o);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_mode(t->fd, _i);
        CpuidleCpuSample out[3];

        read_ok(s, out);
        ck_assert(out[0].online && !out[1].online && out[2].online);
        ck_assert_uint_eq(out[1].n_states, 0);
        ck_assert(!out[1].has_resume_latency);

        FakeTreeOptions none = unit_options(2, 0);
        none.driver = "none";
        FakeTree *t2 = unit_tree(&none);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s2 = sampler_mode(t2->fd, _i);
        read_ok(s2, out);
        ck_assert(!out[0].online && !out[1].online);
        ck_assert_uint_eq(out[0].n_states, 0);
}
END_TEST

/* Too few fds: a clear error, never a CPU silently missing. */
START_TEST(test_sampler_fd_limit) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_topology_ Topology *topo = NULL;
        CpuidleSampler *s = (CpuidleSampler *) 0x1;
        struct rlimit old, low;
        ErrorInfo e = {};
        int probe, r;

        ck_assert_int_eq(topology_load(t->fd, &topo, &e), 0);
        probe = dup(t->fd);
        ck_assert_int_ge(probe, 0);
        close(probe);
        ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
        low = (struct rlimit) { .rlim_cur = (rlim_t) probe + 10, .rlim_max = old.rlim_max };
        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
        r = cpuidle_sampler_new(t->fd, topo, &s, &e);
        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
        ck_assert_int_eq(r, -EMFILE);
        ck_assert_msg_has(e, "Too many open files");
        ck_assert_ptr_eq(s, (CpuidleSampler *) 0x1);
}
END_TEST

int main(void) {
        Suite *s = suite_create("cpuidle-sampler");
        TCase *sampler = unit_tcase(s, "sampler");

        tcase_add_loop_test(sampler, test_sampler_tables, 0, _MODE_MAX);
        tcase_add_test(sampler, test_sampler_counters);
        tcase_add_test(sampler, test_sampler_resume_latency);
        tcase_add_loop_test(sampler, test_sampler_no_resume_latency_file, 0, _MODE_MAX);
        tcase_add_loop_test(sampler, test_sampler_garbage_counter, 0, _MODE_MAX);
        tcase_add_test(sampler, test_sampler_bad_state_files);
        tcase_add_loop_test(sampler, test_sampler_old_kernel, 0, _MODE_MAX);
        tcase_add_loop_test(sampler, test_sampler_many_states, 0, _MODE_MAX);
        tcase_add_loop_test(sampler, test_sampler_governor_switch_new_table, 0, _MODE_MAX);
        tcase_add_loop_test(sampler, test_sampler_governor_switch_same_table, 0, _MODE_MAX);
        tcase_add_loop_test(sampler, test_sampler_invalidate, 0, _MODE_MAX);
        tcase_add_loop_test(sampler, test_sampler_cpu_vanished, 0, _MODE_MAX);
        tcase_add_loop_test(sampler, test_sampler_cpu_offline_and_back, 0, _MODE_MAX);
        tcase_add_loop_test(sampler, test_sampler_flap_behind_a_reopen, 0, _MODE_MAX);
        tcase_add_loop_test(sampler, test_sampler_offline_and_no_driver, 0, _MODE_MAX);
        tcase_add_test(sampler, test_sampler_fd_limit);
        return unit_run(s);
}
