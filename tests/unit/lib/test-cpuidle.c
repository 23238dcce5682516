/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cpuidle.h"
#include "fileio.h"
#include "sampler-cadence.h"
#include "unit.h"

#define CPU_DIR "sys/devices/system/cpu"
#define CPUIDLE_DIR CPU_DIR "/cpuidle"
#define STATE1 CPU_DIR "/cpu0/cpuidle/state1"

/* Sampler modes the loop tests run in (_i): every sample full (the
 * default), or partial samples skipping all they may, with a full one only
 * after an open, an error or cpuidle_sampler_request_full().  In the latter
 * the full first sample is taken here, so the test's own reads are partial
 * unless the sampler has a reason to read everything. */
enum { MODE_FULL, MODE_PARTIAL, _MODE_MAX };

static void set_mode(CpuidleSampler *s, int mode) {
        _cleanup_free_ CpuidleCpuSample *out = NULL;
        ErrorInfo e = {};

        if (mode != MODE_PARTIAL)
                return;
        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, CPUIDLE_SAMPLER_SLOW_TIER | CPUIDLE_SAMPLER_USAGE_GATE,
                                                     1000), 0);
        out = calloc(cpuidle_sampler_n_cpus(s), sizeof(*out));
        ck_assert_ptr_nonnull(out);
        ck_assert_msg(cpuidle_sampler_read(s, out, &e) == 0, "cpuidle_sampler_read: %s", e.message);
}

/* A sampler over the tree's current topology, in mode. */
static CpuidleSampler *sampler_mode(int fd, int mode) {
        _cleanup_topology_ Topology *t = NULL;
        CpuidleSampler *s = NULL;
        ErrorInfo e = {};

        ck_assert_msg(topology_load(fd, &t, &e) == 0, "topology_load: %s", e.message);
        ck_assert_msg(cpuidle_sampler_new(fd, t, &s, &e) == 0, "cpuidle_sampler_new: %s", e.message);
        set_mode(s, mode);
        return s;
}

static CpuidleSampler *sampler_ok(int fd) {
        return sampler_mode(fd, MODE_FULL);
}

static void read_ok(CpuidleSampler *s, CpuidleCpuSample *out) {
        ErrorInfo e = {};

        ck_assert_msg(cpuidle_sampler_read(s, out, &e) == 0, "cpuidle_sampler_read: %s", e.message);
}

static void read_fails(CpuidleSampler *s, CpuidleCpuSample *out, int error, const char *needle) {
        ErrorInfo e = {};

        ck_assert_int_eq(cpuidle_sampler_read(s, out, &e), error);
        ck_assert_msg_has(e, needle);
}

/* ---- helpers ------------------------------------------------------------- */

START_TEST(test_state_lookup) {
        const CpuidleStateInfo st[] = { { .name = "POLL" }, { .name = "haltpoll idle" }, { .name = "7" } };

        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "POLL"), 0);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "haltpoll idle"), 1);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "1"), 1);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "7"), 2);          /* a name wins over an index */
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "3"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "poll"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, ""), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "-1"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 0, "0"), -ENOENT);
        /* Only canonical decimal indexes (issue 10: "01", "1\n" were taken). */
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "0"), 0);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "01"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "00"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "0000001"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "1\n"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "+1"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, " 1"), -ENOENT);
        ck_assert_int_eq(cpuidle_state_lookup(st, 3, "1 "), -ENOENT);
}
END_TEST

START_TEST(test_resume_latency) {
        static const char *const bad[] = { "", "-1", "abc", "2147483647", "4294967295", "n/A", " 5", "1.5" };
        uint32_t v = 1;
        char buf[16];

        ck_assert_int_eq(cpuidle_parse_resume_latency("0", &v), 0);
        ck_assert_uint_eq(v, 0);
        ck_assert_int_eq(cpuidle_parse_resume_latency("20\n", &v), 0);
        ck_assert_uint_eq(v, 20);
        ck_assert_int_eq(cpuidle_parse_resume_latency("n/a", &v), 0);
        ck_assert_uint_eq(v, CPUIDLE_RESUME_LATENCY_NA);
        ck_assert_int_eq(cpuidle_parse_resume_latency("2147483646", &v), 0);
        ck_assert_uint_eq(v, CPUIDLE_RESUME_LATENCY_MAX);
        for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                ck_assert_msg(cpuidle_parse_resume_latency(bad[i], &v) == -EINVAL, "\"%s\" accepted", bad[i]);
                ck_assert_uint_eq(v, CPUIDLE_RESUME_LATENCY_MAX);
        }
        ck_assert_str_eq(cpuidle_format_resume_latency(CPUIDLE_RESUME_LATENCY_NA, buf), "n/a");
        ck_assert_str_eq(cpuidle_format_resume_latency(0, buf), "0");
        ck_assert_str_eq(cpuidle_format_resume_latency(20, buf), "20");
        ck_assert_str_eq(cpuidle_format_resume_latency(CPUIDLE_RESUME_LATENCY_MAX, buf), "2147483646");
}
END_TEST

/* ---- the sampler ----------------------------------------------------------- */

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
        static const FakeState table[] = {
                { "POLL", "CPUIDLE CORE POLL IDLE", 0, 0 },
                { "C1", "MWAIT 0x00", 2, 2 },
                { "C6", "MWAIT 0x20", 133, 400 },
        };
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_mode(t->fd, _i);
        FakeCounters d = { .usage = 11, .time_us = 5000 };
        CpuidleCpuSample out[2];
        unsigned n;

        read_ok(s, out);
        uint64_t g0 = out[0].generation, g1 = out[1].generation;
        ck_assert_uint_ne(g0, g1);
        ck_assert_int_eq(faketree_write_states(t->fd, 0, table, 3, false), 0);
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

/* ---- the sampler's fd budget --------------------------------------------- */

#define BUDGET_CPUS 4
#define BUDGET_STATES 10

/* Returns the number of fds this process has open. */
static unsigned open_fds(void) {
        unsigned n = 0;

        for (int fd = 0; fd < 4096; fd++)
                n += fcntl(fd, F_GETFD) >= 0;
        return n;
}

/* Asserts that two samples of the same tree hold the same values (the
 * generations are the samplers' own). */
static void assert_same_sample(const CpuidleCpuSample *a, const CpuidleCpuSample *b, unsigned n_cpus) {
        for (unsigned cpu = 0; cpu < n_cpus; cpu++) {
                ck_assert_int_eq(a[cpu].online, b[cpu].online);
                ck_assert_uint_eq(a[cpu].n_states, b[cpu].n_states);
                ck_assert_int_eq(a[cpu].has_resume_latency, b[cpu].has_resume_latency);
                ck_assert_uint_eq(a[cpu].resume_latency_us, b[cpu].resume_latency_us);
                for (unsigned k = 0; k < a[cpu].n_states; k++) {
                        const CpuidleStateCounters *x = &a[cpu].states[k], *y = &b[cpu].states[k];
                        ck_assert_msg(x->usage == y->usage && x->time_us == y->time_us && x->above == y->above &&
                                      x->below == y->below && x->rejected == y->rejected && x->disabled == y->disabled,
                                      "CPU %u state %u: counters differ", cpu, k);
                }
        }
}

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

/* ---- the sampler's cadence ------------------------------------------------ */

#define FLAGS_ALL (CPUIDLE_SAMPLER_SLOW_TIER | CPUIDLE_SAMPLER_USAGE_GATE)

static unsigned read_count(CpuidleSampler *s, CpuidleCpuSample *out) {
        read_ok(s, out);
        return cpuidle_sampler_files_read(s);
}

START_TEST(test_cadence_args) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);

        ck_assert_uint_eq(cpuidle_sampler_files_read(s), 0);
        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, 1u << 7, 10), -EINVAL);
        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, CPUIDLE_SAMPLER_SLOW_TIER, 0), -EINVAL);
        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, FLAGS_ALL, CPUIDLE_SAMPLER_FULL_EVERY_DEFAULT), 0);
        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, 0, 1), 0);
}
END_TEST

/* 2 CPUs x 2 states: the governor, then per CPU the resume latency and six
 * counters per state in a full sample; what each flag leaves out of a
 * partial one; full_every 1 or no flags: always full. */
START_TEST(test_cadence_files_read) {
        static const struct { unsigned flags, full_every, partial; } cases[] = {
                { 0, 5, 27 }, { FLAGS_ALL, 1, 27 },
                { CPUIDLE_SAMPLER_SLOW_TIER, 5, 1 + 2 * 2 * 4 },
                { CPUIDLE_SAMPLER_USAGE_GATE, 5, 1 + 2 * (1 + 2 * 3) },
                { FLAGS_ALL, 5, 1 + 2 * 2 },
        };
        FakeTree *t = unit_tree(NULL);
        FakeCounters d = { .usage = 1, .time_us = 10 };
        CpuidleCpuSample out[2];

        for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);

                ck_assert_int_eq(cpuidle_sampler_set_cadence(s, cases[i].flags, cases[i].full_every), 0);
                ck_assert_uint_eq(read_count(s, out), 27);
                for (unsigned n = 1; n < cases[i].full_every; n++)
                        ck_assert_uint_eq(read_count(s, out), cases[i].partial);
                ck_assert_uint_eq(read_count(s, out), 27);
        }

        /* the gate: a state whose usage moved is read whole at that sample
         * and the next; request_full() makes the next sample full */
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);
        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, FLAGS_ALL, 100), 0);
        ck_assert_uint_eq(read_count(s, out), 27);
        ck_assert_uint_eq(read_count(s, out), 5);
        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 1, &d), 0);
        ck_assert_uint_eq(read_count(s, out), 8);
        ck_assert_uint_eq(read_count(s, out), 8);
        ck_assert_uint_eq(read_count(s, out), 5);
        cpuidle_sampler_request_full(s);
        ck_assert_uint_eq(read_count(s, out), 27);
        ck_assert_uint_eq(read_count(s, out), 5);
}
END_TEST

/* rejected, disable and the resume latency: carried over by partial
 * samples, read by full ones, by the first after request_full() and by the
 * first after a reopen. */
START_TEST(test_cadence_slow_tier) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);
        const char *qos = CPU_DIR "/cpu1/power/pm_qos_resume_latency_us";
        FakeCounters d = { .rejected = 4 };
        CpuidleCpuSample out[2];

        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, CPUIDLE_SAMPLER_SLOW_TIER, 3), 0);
        read_ok(s, out);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/disable", "1\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, qos, "20\n"), 0);
        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 1, &d), 0);
        for (unsigned n = 0; n < 2; n++) {
                read_ok(s, out);
                ck_assert(!out[0].states[1].disabled);
                ck_assert_uint_eq(out[0].states[1].rejected, 0);
                ck_assert(out[1].has_resume_latency);
                ck_assert_uint_eq(out[1].resume_latency_us, 0);
        }
        read_ok(s, out);                                /* the third: full */
        ck_assert(out[0].states[1].disabled);
        ck_assert_uint_eq(out[0].states[1].rejected, 4);
        ck_assert_uint_eq(out[1].resume_latency_us, 20);

        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/disable", "0\n"), 0);
        read_ok(s, out);
        ck_assert(out[0].states[1].disabled);           /* carried over */
        cpuidle_sampler_request_full(s);
        read_ok(s, out);
        ck_assert(!out[0].states[1].disabled);
        uint64_t g = out[0].generation;

        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/disable", "1\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, qos, "n/a\n"), 0);
        cpuidle_sampler_invalidate(s);
        read_ok(s, out);
        ck_assert_uint_gt(out[0].generation, g);
        ck_assert(out[0].states[1].disabled);
        ck_assert_uint_eq(out[1].resume_latency_us, CPUIDLE_RESUME_LATENCY_NA);
}
END_TEST

/* time, above and below follow usage: read when it moved at this sample or
 * the previous one, else carried over (a test tree can change them alone;
 * the kernel cannot). */
START_TEST(test_cadence_usage_gate) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);
        FakeCounters d = { .usage = 1, .time_us = 10, .above = 1, .below = 2 };
        CpuidleCpuSample out[2];

        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, CPUIDLE_SAMPLER_USAGE_GATE, 100), 0);
        read_ok(s, out);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/time", "777\n"), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].states[1].time_us, 0);
        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 1, &d), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].states[1].usage, 1);
        ck_assert_uint_eq(out[0].states[1].time_us, 787);
        ck_assert_uint_eq(out[0].states[1].above, 1);
        ck_assert_uint_eq(out[0].states[1].below, 2);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/above", "3\n"), 0);
        read_ok(s, out);                                /* the sample after a move */
        ck_assert_uint_eq(out[0].states[1].above, 3);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/above", "5\n"), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].states[1].above, 3);
        ck_assert_uint_eq(out[0].states[1].time_us, 787);
        ck_assert_uint_eq(out[1].states[1].usage, 0);   /* the other CPU untouched */
        cpuidle_sampler_request_full(s);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].states[1].above, 5);
}
END_TEST

/* Garbage in a file a partial sample skips is reported when it is read;
 * after a failed sample the next one is full. */
START_TEST(test_cadence_garbage) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);
        FakeCounters d = { .usage = 1 };
        CpuidleCpuSample out[2];

        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, FLAGS_ALL, 100), 0);
        read_ok(s, out);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/rejected", "x\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/below", "-1\n"), 0);
        read_ok(s, out);                                /* neither read */
        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 1, &d), 0);
        read_fails(s, out, -EBADMSG, STATE1 "/below: invalid number \"-1\"");
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/below", "0\n"), 0);
        read_fails(s, out, -EBADMSG, STATE1 "/rejected: invalid number \"x\"");
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/rejected", "0\n"), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].states[1].usage, 1);
        ck_assert_uint_eq(cpuidle_sampler_files_read(s), 27);   /* still full: the last one failed */
        ck_assert_uint_eq(read_count(s, out), 5 + 3);           /* usage moved at the previous one */
}
END_TEST

/* ---- the read budget: CPUs in turns -------------------------------------- */

/* BUDGET_CPUS x BUDGET_STATES, 61 files a CPU: budgets of one, two and all
 * four CPUs per read (the governor file counts too). */
#define TURN_CPU_FILES (BUDGET_STATES * 6 + 1)
static const unsigned turn_budgets[] = { 1, 1 + TURN_CPU_FILES, 1 + 2 * TURN_CPU_FILES, 1 + 4 * TURN_CPU_FILES };

/* A CPU read at a turn holds what a sampler without a budget reads. */
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
        static const FakeState table[] = {
                { "POLL", "CPUIDLE CORE POLL IDLE", 0, 0 },
                { "C1", "MWAIT 0x00", 2, 2 },
                { "C6", "MWAIT 0x20", 133, 400 },
        };
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
                ck_assert_int_eq(faketree_write_states(t->fd, cpu, table, 3, false), 0);
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
        Suite *s = suite_create("cpuidle");
        TCase *helpers = unit_tcase(s, "helpers");
        TCase *sampler = unit_tcase(s, "sampler");
        TCase *cadence = unit_tcase(s, "cadence");
        TCase *budget = unit_tcase(s, "budget");
        TCase *turns = unit_tcase(s, "turns");

        tcase_add_test(helpers, test_state_lookup);
        tcase_add_test(helpers, test_resume_latency);
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
        tcase_add_loop_test(sampler, test_sampler_offline_and_no_driver, 0, _MODE_MAX);
        tcase_add_test(sampler, test_sampler_fd_limit);
        tcase_add_loop_test(budget, test_budget_same_values, 0, 6 * _MODE_MAX);
        tcase_add_test(budget, test_budget_usage_first);
        tcase_add_test(budget, test_budget_vanished_file);
        tcase_add_test(cadence, test_cadence_args);
        tcase_add_test(cadence, test_cadence_files_read);
        tcase_add_test(cadence, test_cadence_slow_tier);
        tcase_add_test(cadence, test_cadence_usage_gate);
        tcase_add_test(cadence, test_cadence_garbage);
        tcase_add_loop_test(turns, test_turns_every_cpu, 0, 4 * _MODE_MAX);
        tcase_add_test(turns, test_turns_governor_switch);
        tcase_add_test(turns, test_turns_hotplug);
        tcase_add_test(turns, test_turns_request_full_cpu);
        return unit_run(s);
}
