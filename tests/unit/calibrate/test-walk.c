/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's calibration (daemon/calibrate*.c) on a fake tree with a
 * mocked helper (mock-calibrate.sh, argv[1]): the knobs allowed during each
 * measurement, the journal holding the originals meanwhile, the knobs put
 * back to their values from before (not the defaults), the result, and the
 * failure paths (timeout, exit status, bad output, free mid-run, a crash
 * replayed by the next start). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calibrate-internal.h"
#include "faketree.h"
#include "fileio.h"
#include "change.h"
#include "fs-util.h"
#include "log.h"

static const char *mock_path;

#define CPU_DIR "sys/devices/system/cpu/cpu"
/* The sweep of a CPU of this VM's (both gaps 1000 µs), 20 wakeups each. */
#define SWEEP_VM " sweep=2,5,10,20,50,100,200,500,1000,2000 x 20"
/* That of a CPU of ten states (the longest gap 20 ms). */
#define SWEEP_TEN "2,5,10,20,50,100,200,500,1000,2000,20000 x 20"

typedef struct Fixture {
        char dir[PATH_MAX], root[PATH_MAX + 8], runtime[PATH_MAX + 8], log[PATH_MAX + 8], pidfile[PATH_MAX + 8];
        int root_fd;
        KnobEnv env;
        ChangeLayer *changes;
        Topology *topology;
        CpuidleSampler *sampler;
        sd_event *event;
        CalibrateParams params;
        bool called;
        int error;
        Calibration *result;
} Fixture;

static Fixture f;

static void fixture_setup(unsigned n_cpus, unsigned n_states) {
        FakeTreeOptions o;
        ErrorInfo e = {};
        char journal_file[PATH_MAX + 32];

        memset(&f, 0, sizeof(f));
        snprintf(f.dir, sizeof(f.dir), "/tmp/test-calibrate.XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(f.dir));
        snprintf(f.root, sizeof(f.root), "%s/root", f.dir);
        snprintf(f.runtime, sizeof(f.runtime), "%s/run", f.dir);
        snprintf(f.log, sizeof(f.log), "%s/log", f.dir);
        snprintf(f.pidfile, sizeof(f.pidfile), "%s/pid", f.dir);
        snprintf(journal_file, sizeof(journal_file), "%s/" RESTORE_JOURNAL_FILE, f.runtime);
        ck_assert_int_eq(mkdir(f.root, 0755), 0);
        f.root_fd = open(f.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(f.root_fd, 0);
        faketree_options_init(&o);
        o.n_cpus = n_cpus;
        o.n_states = n_states;
        ck_assert_int_eq(faketree_create(f.root_fd, &o), 0);
        ck_assert_int_eq(topology_load(f.root_fd, &f.topology, &e), 0);
        ck_assert_int_eq(cpuidle_sampler_new(f.root_fd, f.topology, &f.sampler, &e), 0);
        ck_assert_int_eq(sd_event_new(&f.event), 0);
        setenv("MOCK_ROOT", f.root, 1);
        setenv("MOCK_LOG", f.log, 1);
        setenv("MOCK_PIDFILE", f.pidfile, 1);
        setenv("MOCK_JOURNAL", journal_file, 1);
        unsetenv("MOCK_MODE");
        unsetenv("MOCK_NOENTRY");
        f.params = (CalibrateParams) { .samples = 100, .timer_samples = 50, .gap_min_us = 1000, .sweep_samples = 20,
                                       .timeout_usec = 5000000 };
}

static void open_journal(void) {
        f.env = KNOB_ENV_NULL;
        f.env.root_fd = f.root_fd;
        f.env.host_fd = host_root_fd();
        ck_assert_int_eq(change_layer_new(knob_types_default, &f.env, NULL, &f.changes), 0);
        ck_assert_int_eq(change_layer_open_journal(f.changes, f.runtime, f.root), 0);
}

/* A fake tree with n_cpus CPUs and n_states states (0: this VM's), and a journal. */
static void fixture_setup_journal(unsigned n_cpus, unsigned n_states) {
        fixture_setup(n_cpus, n_states);
        open_journal();
}

static void fixture_teardown(void) {
        char cmd[PATH_MAX + 16];

        calibration_free(f.result);
        f.changes = change_layer_free(f.changes);
        knob_env_done(&f.env);
        cpuidle_sampler_free(f.sampler);
        topology_free(f.topology);
        sd_event_unref(f.event);
        close(f.root_fd);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f.dir);
        (void) system(cmd);
}

/* Frees c (NULL allowed) and the fixture. */
static void fixture_done(Calibrator *c) {
        calibrator_free(c);
        fixture_teardown();
}

static EnforceTarget target(void) {
        return (EnforceTarget) { .changes = f.changes, .owner = CHANGE_OWNER(CALIBRATION), .topology = f.topology,
                                 .sampler = f.sampler };
}

static void on_done(Calibration *result, int error, void *userdata) {
        ck_assert(!f.called);
        f.called = true;
        f.error = error;
        f.result = result;
        ck_assert(error == 0 ? result != NULL : result == NULL);
}

static int start(Calibrator **ret) {
        EnforceTarget t = target();

        return calibrator_start_with(f.event, t, mock_path, &f.params, on_done, NULL, ret);
}

/* Reads a whole file (absolute path) or returns "".  Free the result. */
static char *read_file(const char *path) {
        char *text = calloc(1, 65536);
        FILE *file = fopen(path, "re");

        ck_assert_ptr_nonnull(text);
        if (file) {
                size_t n = fread(text, 1, 65535, file);

                text[n] = '\0';
                fclose(file);
        }
        return text;
}

static char *read_log(void) {
        return read_file(f.log);
}

/* The PID the hanging mock wrote, or 0. */
static pid_t read_pidfile(void) {
        _cleanup_free_ char *text = read_file(f.pidfile);

        return (pid_t) atoi(text);
}

/* Runs the loop until done() (at most 20 s). */
static void run_until_done(void) {
        for (unsigned i = 0; i < 200 && !f.called; i++)
                ck_assert_int_ge(sd_event_run(f.event, 100000), 0);
        ck_assert(f.called);
}

/* Runs a whole calibration that must succeed.  Returns the calibrator. */
static Calibrator *calibrate_ok(void) {
        Calibrator *c = NULL;

        ck_assert_int_eq(start(&c), 0);
        ck_assert(calibrator_running(c));
        run_until_done();
        ck_assert_int_eq(f.error, 0);
        ck_assert(!calibrator_running(c));
        return c;
}

/* Runs the loop until the hanging mock wrote its PID.  Returns it. */
static pid_t run_until_hanging(void) {
        pid_t pid = 0;

        for (unsigned i = 0; i < 200 && (pid = read_pidfile()) <= 0; i++)
                ck_assert_int_ge(sd_event_run(f.event, 50000), 0);
        ck_assert_int_gt(pid, 0);
        return pid;
}

static void assert_knob(const char *path, const char *value) {
        char buf[64];

        ck_assert_int_eq(fileio_read_string_at(f.root_fd, path, buf, sizeof(buf)), 0);
        ck_assert_msg(strcmp(buf, value) == 0, "%s is \"%s\", expected \"%s\"", path, buf, value);
}

static void assert_knobs_vm(unsigned cpu, const char *d0, const char *d1, const char *resume) {
        char path[128];

        snprintf(path, sizeof(path), CPU_DIR "%u/cpuidle/state0/disable", cpu);
        assert_knob(path, d0);
        snprintf(path, sizeof(path), CPU_DIR "%u/cpuidle/state1/disable", cpu);
        assert_knob(path, d1);
        snprintf(path, sizeof(path), CPU_DIR "%u/power/pm_qos_resume_latency_us", cpu);
        assert_knob(path, resume);
}

static void assert_log_has(const char *log, const char *needle) {
        ck_assert_msg(strstr(log, needle), "the mock's log lacks \"%s\":\n%s", needle, log);
}

static size_t journal_count(void) {
        return f.changes ? change_n_changed(f.changes) : 0;
}

static void assert_pid_gone(pid_t pid) {
        ck_assert_int_eq(kill(pid, 0), -1);
        ck_assert_int_eq(errno, ESRCH);
}

static void assert_state(const CalibrationState *s, const char *name, uint32_t wakeup, uint32_t p99, uint32_t timer,
                         bool misdescribed) {
        ck_assert_str_eq(s->name, name);
        ck_assert(s->measured);
        ck_assert_uint_eq(s->wakeup_us, wakeup);
        ck_assert_uint_eq(s->wakeup_p99_us, p99);
        ck_assert_uint_eq(s->timer_late_us, timer);
        ck_assert(s->misdescribed == misdescribed);
}

/* The mock's curve for state k >= 1 of a CPU of this VM's: over POLL
 * 40k + 20 µs up to 50 µs of idleness, 40k from 100 µs (the point at 2 µs
 * does not count: mostly awake). */
static void assert_curve(const CalibrationState *s, unsigned k, unsigned n_points) {
        static const uint32_t idle[] = { 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 20000 };

        ck_assert_uint_eq(s->n_curve, n_points);
        for (unsigned i = 0; i < n_points; i++) {
                ck_assert_uint_eq(s->curve[i].idle_us, idle[i]);
                ck_assert_int_eq(s->curve[i].penalty_us, (int32_t) (40 * k + (idle[i] < 100 ? 20 : 0)));
        }
}

/* ---- the walk ------------------------------------------------------------ */

/* During each run exactly one state was enabled, with the right resume
 * latency (else the mock fails), and the journal held the originals. */
static void assert_two_cpus_log(void) {
        _cleanup_free_ char *log = read_log();

        assert_log_has(log, "cpu=0 partner=1 samples=100 timer=50 gap=1000" SWEEP_VM " enabled=0 resume=n/a poll=200000\n"
                            "  journal: " CPU_DIR "0/cpuidle/state1/disable 0\n"
                            "  journal: " CPU_DIR "0/power/pm_qos_resume_latency_us 20\n");
        assert_log_has(log, "cpu=0 partner=1 samples=100 timer=50 gap=1000" SWEEP_VM " enabled=1 resume=0 poll=0\n");
        assert_log_has(log, "cpu=1 partner=0 samples=100 timer=50 gap=1000" SWEEP_VM " enabled=0 resume=n/a poll=200000\n"
                            "  journal: " CPU_DIR "0/cpuidle/state1/disable 0\n"
                            "  journal: " CPU_DIR "1/power/pm_qos_resume_latency_us 0\n");
        assert_log_has(log, "cpu=1 partner=0 samples=100 timer=50 gap=1000" SWEEP_VM " enabled=1 resume=0 poll=0\n");
        assert_log_has(log, "  journal: " CPU_DIR "1/cpuidle/state1/disable 1\n");
        assert_log_has(log, "  journal: " CPU_DIR "1/cpuidle/state0/disable 0\n");
        assert_log_has(log, "  journal: sys/module/haltpoll/parameters/guest_halt_poll_ns 200000\n");
}

START_TEST(test_two_cpus) {
        Calibrator *c;
        EnforceTarget t;
        ErrorInfo e = {};

        fixture_setup_journal(2, 0);
        /* Before: the daemon disabled halt on CPU 0 (journaled: original 0),
         * someone set CPU 1's halt disabled and CPU 0's resume latency. */
        t = target();
        t.owner = CHANGE_OWNER(PLAN);
        ck_assert_int_eq(enforce_set_state_disabled(&t, 0, "haltpoll idle", true, &e), 1);
        ck_assert_int_eq(faketree_write(f.root_fd, CPU_DIR "1/cpuidle/state1/disable", "1\n"), 0);
        ck_assert_int_eq(faketree_write(f.root_fd, CPU_DIR "0/power/pm_qos_resume_latency_us", "20\n"), 0);
        ck_assert_uint_eq(journal_count(), 1);

        c = calibrate_ok();
        assert_two_cpus_log();

        /* After: the values from before the calibration, not the defaults;
         * the journal as before (the daemon's entry kept, ours forgotten). */
        assert_knobs_vm(0, "0", "1", "20");
        assert_knobs_vm(1, "0", "1", "0");
        assert_knob("sys/module/haltpoll/parameters/guest_halt_poll_ns", "200000");
        ck_assert_uint_eq(journal_count(), 1);
        ck_assert_str_eq(change_original(f.changes, CPU_DIR "0/cpuidle/state1/disable"), "0");
        ck_assert_int_eq(change_owner_of(f.changes, CPU_DIR "0/cpuidle/state1/disable").kind, CHANGE_OWNER_PLAN);

        /* Baseline POLL: 5.25 + C; halt 45.25 + C → 40 µs over it. */
        ck_assert_str_eq(f.result->driver, "haltpoll");
        ck_assert_uint_gt(f.result->realtime_usec, 0);
        ck_assert_uint_eq(f.result->n_cpus, 2);
        for (unsigned cpu = 0; cpu < 2; cpu++) {
                ck_assert_uint_eq(f.result->cpus[cpu].n_states, 2);
                assert_state(&f.result->cpus[cpu].states[0], "POLL", 0, 0, 3, false);
                assert_state(&f.result->cpus[cpu].states[1], "haltpoll idle", 40, 100, 33, true);
                ck_assert_uint_eq(f.result->cpus[cpu].states[1].advertised_latency_us, 1);
                /* the baseline has no curve; halt: 20 µs entry cost, flat from 100 µs */
                ck_assert_uint_eq(f.result->cpus[cpu].states[0].n_curve, 0);
                ck_assert_uint_eq(f.result->cpus[cpu].states[0].entry_us, 0);
                ck_assert_uint_eq(f.result->cpus[cpu].states[0].residency_us, 0);
                assert_curve(&f.result->cpus[cpu].states[1], 1, 9);
                ck_assert_uint_eq(f.result->cpus[cpu].states[1].entry_us, 20);
                ck_assert_uint_eq(f.result->cpus[cpu].states[1].residency_us, 100);
                ck_assert_uint_eq(calibration_breakeven_us(&f.result->cpus[cpu].states[1], 1), 100);
        }
        fixture_done(c);
}
END_TEST

START_TEST(test_one_cpu) {
        _cleanup_free_ char *log = NULL;
        Calibrator *c;

        fixture_setup_journal(1, 0);
        c = calibrate_ok();
        log = read_log();
        assert_log_has(log, "cpu=0 partner=- samples=100 timer=50 gap=1000" SWEEP_VM " enabled=0 resume=n/a poll=200000\n");
        assert_log_has(log, "cpu=0 partner=- samples=100 timer=50 gap=1000" SWEEP_VM " enabled=1 resume=0 poll=0\n");
        /* Timer lateness only: POLL 3 (p99 23), halt 33 (p99 53); no sweep. */
        assert_state(&f.result->cpus[0].states[0], "POLL", 0, 0, 3, false);
        assert_state(&f.result->cpus[0].states[1], "haltpoll idle", 30, 30, 33, true);
        ck_assert_uint_eq(f.result->cpus[0].states[1].n_curve, 0);
        ck_assert_uint_eq(f.result->cpus[0].states[1].entry_us, 0);
        ck_assert_uint_eq(f.result->cpus[0].states[1].residency_us, 0);
        assert_knobs_vm(0, "0", "0", "0");
        ck_assert_uint_eq(journal_count(), 0);
        fixture_done(c);
}
END_TEST

START_TEST(test_ten_states) {
        _cleanup_free_ char *log = NULL;
        Calibrator *c;

        fixture_setup_journal(2, 10);
        c = calibrate_ok();
        log = read_log();
        /* gap = max(1000, 2 × residency): C5 has 3072 µs, C9 is capped; the
         * sweep of every state reaches the longest gap. */
        assert_log_has(log, "cpu=1 partner=0 samples=100 timer=50 gap=6144 sweep=" SWEEP_TEN " enabled=5 resume=0 poll=0\n");
        assert_log_has(log, "cpu=1 partner=0 samples=100 timer=50 gap=20000 sweep=" SWEEP_TEN " enabled=9 resume=0 poll=0\n");
        for (unsigned cpu = 0; cpu < 2; cpu++) {
                ck_assert_uint_eq(f.result->cpus[cpu].n_states, 10);
                for (unsigned k = 1; k < 10; k++) {
                        const CalibrationState *s = &f.result->cpus[cpu].states[k];

                        ck_assert_uint_eq(s->wakeup_us, 40 * k);
                        ck_assert_uint_eq(s->advertised_latency_us, 1u << (2 * k));
                        /* 40k > 4 × 4^k + 10 for C1 (40 > 26) and C2 (80 > 74) only */
                        ck_assert(s->misdescribed == (k <= 2));
                        /* the 20 µs step is within the tolerance (a tenth of 40k) from C5 on */
                        assert_curve(s, k, 10);
                        ck_assert_uint_eq(s->entry_us, k < 5 ? 20 : 0);
                        ck_assert_uint_eq(s->residency_us, k < 5 ? 100 : 0);
                }
        }
        for (unsigned k = 0; k < 10; k++) {
                char path[128];

                snprintf(path, sizeof(path), CPU_DIR "1/cpuidle/state%u/disable", k);
                assert_knob(path, "0");
        }
        ck_assert_uint_eq(journal_count(), 0);
        fixture_done(c);
}
END_TEST

/* Counts the runs of the mock the log shows for line (a whole line). */
static unsigned count_runs(const char *log, const char *line) {
        unsigned runs = 0;

        for (const char *p = log; (p = strstr(p, line)); p++)
                runs++;
        return runs;
}

typedef struct UnusableCase {
        const char *variable;     /* the mock's environment variable */
} UnusableCase;

static const UnusableCase unusable_cases[] = {
        { "MOCK_NOENTRY" },       /* never entered the state: busy or a latency limit */
        { "MOCK_MIXED" },         /* entered another state as often */
};

START_TEST(test_state_unusable) {
        _cleanup_free_ char *log = NULL;
        Calibrator *c;

        fixture_setup_journal(2, 0);
        setenv(unusable_cases[_i].variable, "1:1", 1);
        c = calibrate_ok();
        ck_assert(f.result->cpus[0].states[1].measured);
        ck_assert(f.result->cpus[1].states[0].measured);
        ck_assert(!f.result->cpus[1].states[1].measured);
        ck_assert(!f.result->cpus[1].states[1].misdescribed);
        ck_assert_str_eq(f.result->cpus[1].states[1].name, "haltpoll idle");
        /* tried three times, the others once */
        log = read_log();
        ck_assert_uint_eq(count_runs(log, "cpu=1 partner=0 samples=100 timer=50 gap=1000" SWEEP_VM " enabled=1 resume=0 poll=0\n"), 3);
        ck_assert_uint_eq(count_runs(log, "cpu=1 partner=0 samples=100 timer=50 gap=1000" SWEEP_VM " enabled=0 resume=n/a poll=200000\n"), 1);
        ck_assert_uint_eq(count_runs(log, "cpu=0 partner=1 samples=100 timer=50 gap=1000" SWEEP_VM " enabled=1 resume=0 poll=0\n"), 1);
        fixture_done(c);
}
END_TEST

/* ---- failures ------------------------------------------------------------ */

typedef struct FailCase {
        const char *mode;
        int error;
} FailCase;

static const FailCase fail_cases[] = {
        { "hang", -ETIME },
        { "fail", -EIO },
        { "garbage", -EBADMSG },
};

START_TEST(test_helper_fails) {
        Calibrator *c = NULL;
        EnforceTarget t;
        ErrorInfo e = {};
        pid_t pid;

        fixture_setup_journal(2, 0);
        t = target();
        ck_assert_int_eq(enforce_set_resume_latency(&t, 1, 7, &e), 1);
        setenv("MOCK_MODE", fail_cases[_i].mode, 1);
        f.params.timeout_usec = 300000;
        ck_assert_int_eq(start(&c), 0);
        run_until_done();
        ck_assert_int_eq(f.error, fail_cases[_i].error);
        ck_assert(!calibrator_running(c));
        assert_knobs_vm(0, "0", "0", "0");
        assert_knobs_vm(1, "0", "0", "7");
        ck_assert_uint_eq(journal_count(), 1);
        pid = read_pidfile();
        if (pid > 0)
                assert_pid_gone(pid);
        fixture_done(c);
}
END_TEST

START_TEST(test_free_mid_run) {
        Calibrator *c = NULL, *other = NULL;
        pid_t pid;

        fixture_setup_journal(2, 0);
        setenv("MOCK_MODE", "hang", 1);
        ck_assert_int_eq(start(&c), 0);
        pid = run_until_hanging();
        ck_assert(calibrator_running(c));
        assert_knobs_vm(0, "0", "1", "n/a");
        ck_assert_uint_eq(journal_count(), 2);
        ck_assert_int_eq(start(&other), -EBUSY);
        ck_assert_ptr_null(calibrator_free(c));
        ck_assert(!f.called);
        assert_pid_gone(pid);
        assert_knobs_vm(0, "0", "0", "0");
        ck_assert_uint_eq(journal_count(), 0);
        /* the next one may start */
        unsetenv("MOCK_MODE");
        ck_assert_int_eq(start(&c), 0);
        run_until_done();
        ck_assert_int_eq(f.error, 0);
        fixture_done(c);
}
END_TEST

START_TEST(test_bad_start) {
        Calibrator *c = (Calibrator *) 0x1;
        EnforceTarget t;

        fixture_setup_journal(2, 0);
        t = target();
        ck_assert_int_eq(calibrator_start_with(f.event, t, "/nonexistent/idlepolicy-calibrate", &f.params, on_done, NULL, &c),
                         -ENOENT);
        ck_assert_ptr_eq(c, (Calibrator *) 0x1);
        assert_knobs_vm(0, "0", "0", "0");
        ck_assert_uint_eq(journal_count(), 0);
        f.params.samples = 0;
        ck_assert_int_eq(start(&c), -EINVAL);
        ck_assert(!f.called);
        ck_assert(!calibrator_running(NULL));
        ck_assert_ptr_null(calibrator_free(NULL));
        fixture_teardown();
}
END_TEST

START_TEST(test_no_cpuidle) {
        FakeTreeOptions o;
        Calibrator *c = NULL;

        fixture_setup_journal(2, 0);
        faketree_options_init(&o);
        o.driver = "none";
        ck_assert_int_eq(faketree_create(f.root_fd, &o), 0);
        ck_assert_int_eq(start(&c), -ENODEV);
        ck_assert(!f.called);
        fixture_teardown();
}
END_TEST

/* A daemon killed mid-calibration: the next start's replay puts back the
 * values from before the calibration. */
START_TEST(test_crash_replayed) {
        pid_t child, mock;
        int status;

        fixture_setup(2, 0);
        ck_assert_int_eq(faketree_write(f.root_fd, CPU_DIR "0/power/pm_qos_resume_latency_us", "20\n"), 0);
        setenv("MOCK_MODE", "hang", 1);
        child = fork();
        ck_assert_int_ge(child, 0);
        if (child == 0) {
                Calibrator *c = NULL;

                /* an sd_event cannot cross a fork */
                if (sd_event_new(&f.event) < 0)
                        _exit(1);
                open_journal();
                if (start(&c) < 0)
                        _exit(1);
                for (;;)
                        (void) sd_event_run(f.event, UINT64_MAX);
        }
        mock = run_until_hanging();
        ck_assert_int_eq(kill(child, SIGKILL), 0);
        ck_assert_int_eq(waitpid(child, &status, 0), child);
        ck_assert_int_eq(kill(mock, SIGKILL), 0);      /* in its own process group: survived */
        assert_knobs_vm(0, "0", "1", "n/a");
        open_journal();
        ck_assert_int_eq(change_layer_replay(f.changes), 2);
        assert_knobs_vm(0, "0", "0", "20");
        ck_assert_uint_eq(journal_count(), 0);
        fixture_teardown();
}
END_TEST

/* ---- the helper's sweep, read without a run ------------------------------ */

#define HELPER_JSON(sweep) \
        "{\"cpu\": 1, \"partner\": 0, \"states\": [], \"timer\": {\"samples\": 5, \"median_us\": 3.0, \"p99_us\": 9.0}, " \
        "\"wakeup\": {\"samples\": 10, \"median_us\": 6.0, \"p99_us\": 9.0, \"entries\": [10, 0]}" sweep "}"
#define POINT(idle) "{\"idle_us\": " #idle ", \"samples\": 9, \"awake\": 1, \"median_us\": 7.5, \"entries\": [10, 0]}"

START_TEST(test_sweep_parse) {
        CalibrateMeasurement m;

        /* an older helper (no sweep), none (null), and two points */
        ck_assert_int_eq(calibrate_measurement_parse(HELPER_JSON(""), 1, &m), 0);
        ck_assert_uint_eq(m.n_sweep, 0);
        ck_assert_int_eq(calibrate_measurement_parse(HELPER_JSON(", \"sweep\": null"), 1, &m), 0);
        ck_assert_uint_eq(m.n_sweep, 0);
        ck_assert_int_eq(calibrate_measurement_parse(HELPER_JSON(", \"sweep\": {\"points\": [" POINT(5) ", " POINT(50) "]}"),
                                                     1, &m), 0);
        ck_assert_uint_eq(m.n_sweep, 2);
        ck_assert_uint_eq(m.sweep[1].idle_us, 50);
        ck_assert_uint_eq(m.sweep[1].samples, 9);
        ck_assert_uint_eq(m.sweep[1].awake, 1);
        ck_assert_double_eq_tol(m.sweep[1].median_us, 7.5, 1e-9);
        ck_assert_uint_eq(m.sweep[1].n_entries, 2);
        ck_assert_uint_eq(m.sweep[1].entries[0], 10);
}
END_TEST

static const char *const bad_sweeps[] = {
        ", \"sweep\": 7",
        ", \"sweep\": {}",
        ", \"sweep\": {\"points\": [" POINT(50) ", " POINT(50) "]}",                       /* not ascending */
        ", \"sweep\": {\"points\": [" POINT(0) "]}",
        ", \"sweep\": {\"points\": [7]}",
        ", \"sweep\": {\"points\": [{\"idle_us\": 5, \"samples\": -1, \"awake\": 0, \"median_us\": 1}]}",
        ", \"sweep\": {\"points\": [{\"idle_us\": 5, \"samples\": 3, \"awake\": 0}]}",   /* no median */
        ", \"sweep\": {\"points\": [{\"idle_us\": 5, \"samples\": 3, \"awake\": 0, \"median_us\": -2}]}",
        ", \"sweep\": {\"points\": [{\"idle_us\": 5, \"samples\": 3, \"median_us\": 2}]}",     /* no awake */
        ", \"sweep\": {\"points\": [" POINT(1) "," POINT(2) "," POINT(3) "," POINT(4) "," POINT(5) "," POINT(6) ","
                POINT(7) "," POINT(8) "," POINT(9) "," POINT(10) "," POINT(11) "," POINT(12) "," POINT(13) ","
                POINT(14) "," POINT(15) "," POINT(16) "," POINT(17) "]}",                           /* 17 points */
};

START_TEST(test_sweep_parse_bad) {
        char text[4096];
        CalibrateMeasurement m;

        snprintf(text, sizeof(text), HELPER_JSON("%s"), bad_sweeps[_i]);
        ck_assert_msg(calibrate_measurement_parse(text, 1, &m) == -EBADMSG, "accepted: %s", text);
}
END_TEST

START_TEST(test_sweep_point_valid) {
        CalibrateSweepPoint p = { .idle_us = 5, .samples = 90, .awake = 10, .n_entries = 2, .entries = { 0, 90 } };

        ck_assert(calibrate_sweep_point_valid(&p, 1));
        ck_assert(!calibrate_sweep_point_valid(&p, 0));          /* not the state measured */
        p.entries[1] = 89;                                       /* fewer than 9 entries per 10 wakeups */
        ck_assert(!calibrate_sweep_point_valid(&p, 1));
        p = (CalibrateSweepPoint) { .idle_us = 5, .samples = 50, .awake = 50 };   /* no counters */
        ck_assert(calibrate_sweep_point_valid(&p, 1));
        p.awake = 51;                                            /* mostly before the CPU idled */
        ck_assert(!calibrate_sweep_point_valid(&p, 1));
        p = (CalibrateSweepPoint) { .idle_us = 5 };
        ck_assert(!calibrate_sweep_point_valid(&p, 1));
}
END_TEST

START_TEST(test_sweep_durations) {
        CpuidleStateInfo states[3] = { { .residency_us = 0 }, { .residency_us = 1 }, { .residency_us = 600 } };
        uint32_t d[CALIBRATE_SWEEP_MAX];

        ck_assert_uint_eq(calibrate_sweep_durations(states, 2, 1000, d), 10);
        ck_assert_uint_eq(d[0], 2);
        ck_assert_uint_eq(d[9], 2000);
        /* 2 × 600 = 1200 is inside; 2 × 1500 = 3000 and the cap of 20 ms are not */
        ck_assert_uint_eq(calibrate_sweep_durations(states, 3, 1000, d), 10);
        states[2].residency_us = 1500;
        ck_assert_uint_eq(calibrate_sweep_durations(states, 3, 1000, d), 11);
        ck_assert_uint_eq(d[10], 3000);
        states[2].residency_us = 1000000;
        ck_assert_uint_eq(calibrate_sweep_durations(states, 3, 1000, d), 11);
        ck_assert_uint_eq(d[10], CALIBRATE_GAP_MAX_US);
        ck_assert_uint_eq(calibrate_sweep_durations(states, 1, 5000, d), 11);
        ck_assert_uint_eq(d[10], 5000);
}
END_TEST

static Suite *calibrate_suite(void) {
        Suite *s = suite_create("calibrate");
        TCase *tc = tcase_create("core");
        TCase *tr = tcase_create("result");

        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_two_cpus);
        tcase_add_test(tc, test_one_cpu);
        tcase_add_test(tc, test_ten_states);
        tcase_add_loop_test(tc, test_state_unusable, 0, (int) (sizeof(unusable_cases) / sizeof(unusable_cases[0])));
        tcase_add_loop_test(tc, test_helper_fails, 0, (int) (sizeof(fail_cases) / sizeof(fail_cases[0])));
        tcase_add_test(tc, test_free_mid_run);
        tcase_add_test(tc, test_bad_start);
        tcase_add_test(tc, test_no_cpuidle);
        tcase_add_test(tc, test_crash_replayed);
        suite_add_tcase(s, tc);
        tcase_add_test(tr, test_sweep_parse);
        tcase_add_loop_test(tr, test_sweep_parse_bad, 0, (int) (sizeof(bad_sweeps) / sizeof(bad_sweeps[0])));
        tcase_add_test(tr, test_sweep_point_valid);
        tcase_add_test(tr, test_sweep_durations);
        suite_add_tcase(s, tr);
        return s;
}

int main(int argc, char **argv) {
        SRunner *sr;
        int failed;

        if (argc < 2) {
                fprintf(stderr, "Usage: %s PATH/TO/mock-calibrate.sh\n", argv[0]);
                return EXIT_FAILURE;
        }
        mock_path = argv[1];
        log_set_max_level(getenv("TEST_DEBUG") ? LOG_DEBUG : LOG_CRIT);
        sr = srunner_create(calibrate_suite());
        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
