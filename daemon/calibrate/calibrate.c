/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The calibration walk: for each online CPU with cpuidle, remember its
 * knobs, then for each state allow only that state and run the helper,
 * then put the knobs back and compute the CPU's costs; finally judge and
 * hand the result over.  One helper at a time, never blocking the loop.
 *
 * The calibrator keeps its own view of the system instead of the
 * manager's (which may be rebuilt on hotplug between two runs): a root fd,
 * a topology whose online set is narrowed to the CPU being calibrated (so
 * the enforcement layer can touch no other CPU), and a sampler of that CPU
 * for the state table.  Only the change layer is borrowed: the manager
 * keeps it for its lifetime, and must free the calibrator before it.  The
 * knobs of the CPU being calibrated are the calibration's, borrowed from
 * their owners (the plan, the administrator) and given back when it is
 * done with the CPU (change_give_back()).  While a
 * calibration runs, the owner must not change the knobs of the CPU being
 * calibrated (calibrator_running()). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calibrate-internal.h"
#include "fileio.h"
#include "log.h"
#include "macro.h"

#define NO_CPU UINT32_MAX
#define ATTEMPTS_MAX 3u              /* runs per state while the CPU did not idle in it */
#define TIMEOUT_SLACK_USEC (10ull * 1000000ull)

struct Calibrator {
        sd_event *event;
        ChangeLayer *changes;        /* borrowed */
        int root_fd;
        Topology *topology;          /* own; online narrowed to cpu */
        CpuSet online;               /* online CPUs at the start */
        CpuidleSampler *sampler;     /* cpu's state table */
        char *helper;
        CalibrateParams params;
        CalibrateDone done;
        void *userdata;

        Calibration *result;
        unsigned cpu, state;         /* being measured */
        unsigned attempt;            /* runs of this state so far */
        const CpuidleStateInfo *states;
        unsigned n_states;
        CalibrateKnobs knobs;
        bool knobs_saved;            /* knobs holds cpu's values, to put back */
        CalibrateMeasurement measurements[CPUIDLE_STATES_MAX];
        HelperRun *run;
        bool running;
        unsigned measured, total;    /* states measured, and to measure in all (calibrator_progress()) */
};

/* At most one calibration at a time: two would fight over the knobs. */
static Calibrator *calibrator_active;

void calibrate_params_default(CalibrateParams *ret) {
        *ret = (CalibrateParams) { .samples = 1000, .timer_samples = 500, .gap_min_us = 1000, .sweep_samples = 300 };
}

static EnforceTarget target_of(Calibrator *c) {
        return (EnforceTarget) { .changes = c->changes, .owner = CHANGE_OWNER(CALIBRATION), .topology = c->topology,
                                 .sampler = c->sampler };
}

/* Puts the current CPU's knobs back (once).  Returns 0 or -EIO. */
static int restore_cpu(Calibrator *c) {
        EnforceTarget t = target_of(c);

        int r;

        if (!c->knobs_saved)
                return 0;
        c->knobs_saved = false;
        r = calibrate_knobs_restore(&t, &c->knobs);
        change_give_back(c->changes, CHANGE_OWNER(CALIBRATION));
        return r;
}

/* Stops everything and puts the knobs back.  Returns 0 or -EIO. */
static int calibrator_stop(Calibrator *c) {
        c->run = helper_run_free(c->run);
        c->running = false;
        if (calibrator_active == c)
                calibrator_active = NULL;
        return restore_cpu(c);
}

Calibrator *calibrator_free(Calibrator *c) {
        if (!c)
                return NULL;
        if (c->running)
                log_notice("Calibration stopped before its end.");
        (void) calibrator_stop(c);
        cpuidle_sampler_free(c->sampler);
        topology_free(c->topology);
        fileio_closep(&c->root_fd);
        calibration_free(c->result);
        sd_event_unref(c->event);
        free(c->helper);
        free(c);
        return NULL;
}

bool calibrator_running(const Calibrator *c) {
        return c && c->running;
}

bool calibrator_progress(const Calibrator *c, CalibrateProgress *ret) {
        unsigned left;

        if (!calibrator_running(c) || c->cpu == NO_CPU)
                return false;
        left = c->n_states > c->state ? c->n_states - c->state : 0;
        *ret = (CalibrateProgress) { .measured = c->measured, .cpu = c->cpu,
                                     .total = c->total > c->measured + left ? c->total : c->measured + left,
                                     .state = c->state < c->n_states ? c->states[c->state].name : "" };
        return true;
}

static void calibrator_freep(Calibrator **c) {
        *c = calibrator_free(*c);
}

/* Ends the calibration with an error: knobs back, done(NULL, error). */
static void calibrator_fail(Calibrator *c, int error) {
        (void) calibrator_stop(c);
        log_error_errno(error, "Calibration failed: %m");
        c->done(NULL, error, c->userdata);     /* may free c */
}

/* Ends it successfully: judge, stamp, done(result, 0). */
static void calibrator_finish(Calibrator *c) {
        Calibration *result = TAKE_PTR(c->result);
        struct timespec ts;
        unsigned n;

        if (calibrator_stop(c) < 0) {
                calibration_free(result);
                c->done(NULL, -EIO, c->userdata);
                return;
        }
        (void) clock_gettime(CLOCK_REALTIME, &ts);
        result->realtime_usec = (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
        n = calibration_judge(result);
        log_info("Calibration finished: %u mis-described idle state%s.", n, n == 1 ? "" : "s");
        c->done(result, 0, c->userdata);       /* may free c */
}

/* Narrows the topology to cpu and opens its state table.  Returns 0 or a
 * negative errno. */
static int focus_cpu(Calibrator *c, unsigned cpu) {
        ErrorInfo e = {};
        int r;

        c->sampler = cpuidle_sampler_free(c->sampler);
        cpuset_clear(&c->topology->online);
        cpuset_add(&c->topology->online, cpu);
        for (unsigned i = 0; i < c->topology->n_cpus; i++)
                c->topology->cpus[i].online = i == cpu;
        r = cpuidle_sampler_new(c->root_fd, c->topology, &c->sampler, &e);
        if (r < 0)
                return log_error_errno(r, "Failed to open the idle states of CPU %u: %s", cpu, e.message);
        c->cpu = cpu;
        c->state = 0;
        c->states = cpuidle_sampler_states(c->sampler, cpu, &c->n_states);
        memset(c->measurements, 0, sizeof(c->measurements));
        return 0;
}

/* Picks the CPU that wakes cpu: another online CPU, not an SMT sibling if
 * there is one (a busy-waiting sibling slows the core).  NO_CPU if alone. */
static unsigned pick_partner(const Calibrator *c, unsigned cpu) {
        unsigned fallback = NO_CPU;

        CPUSET_FOREACH(p, &c->online) {
                if ((unsigned) p == cpu)
                        continue;
                if (!cpuset_contains(&c->topology->cpus[cpu].siblings, (unsigned) p))
                        return (unsigned) p;
                if (fallback == NO_CPU)
                        fallback = (unsigned) p;
        }
        return fallback;
}

/* The gap before each wakeup: long enough for the state's residency. */
static unsigned gap_of(const CpuidleStateInfo *s, unsigned gap_min_us) {
        uint64_t gap = 2 * s->residency_us;

        if (gap < gap_min_us)
                gap = gap_min_us;
        return gap > CALIBRATE_GAP_MAX_US ? CALIBRATE_GAP_MAX_US : (unsigned) gap;
}

static unsigned gap_for(const Calibrator *c, const CpuidleStateInfo *s) {
        return gap_of(s, c->params.gap_min_us);
}

unsigned calibrate_sweep_durations(const CpuidleStateInfo *states, unsigned n, unsigned gap_min_us,
                                   uint32_t ret[static CALIBRATE_SWEEP_MAX]) {
        static const uint32_t base[] = { 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000 };
        unsigned k = ELEMENTSOF(base), longest = 0;

        memcpy(ret, base, sizeof(base));
        for (unsigned s = 0; s < n; s++)
                if (gap_of(&states[s], gap_min_us) > longest)
                        longest = gap_of(&states[s], gap_min_us);
        if (longest > base[k - 1])
                ret[k++] = longest;
        return k;
}

/* Starts the helper for the current CPU and state.  Returns 0 or a
 * negative errno. */
static int run_helper(Calibrator *c, unsigned gap_us);

static void on_helper_done(int error, const char *output, void *userdata);

/* Allows only the current state and starts its measurement.  Returns 0 or
 * a negative errno. */
static int measure_state(Calibrator *c) {
        EnforceTarget t = target_of(c);
        const CpuidleStateInfo *s = &c->states[c->state];
        int r;

        r = calibrate_knobs_allow_only(&t, &c->knobs, c->state, calibrate_state_is_polling(s));
        if (r < 0)
                return r;
        log_info("Calibrating CPU %u, idle state \"%s\".", c->cpu, s->name);
        return run_helper(c, gap_for(c, s));
}

/* Puts the current CPU's knobs back and records its result.  Returns 0
 * or -EIO. */
static int finish_cpu(Calibrator *c) {
        int r = restore_cpu(c);

        if (r < 0)
                return r;
        calibrate_cpu_fill(&c->result->cpus[c->cpu], c->states, c->n_states, c->measurements);
        return 0;
}

/* Moves to the next CPU with idle states after 'from' and remembers its
 * knobs.  Returns 1 if there is one, 0 if none is left, or a negative errno. */
static int next_cpu(Calibrator *c, unsigned from) {
        for (int cpu = cpuset_next(&c->online, from); cpu >= 0; cpu = cpuset_next(&c->online, (unsigned) cpu + 1)) {
                EnforceTarget t;
                int r = focus_cpu(c, (unsigned) cpu);

                if (r < 0)
                        return r;
                if (c->n_states == 0)
                        continue;
                t = target_of(c);
                r = calibrate_knobs_save(&t, c->cpu, c->n_states, &c->knobs);
                if (r < 0)
                        return r;
                c->knobs_saved = true;
                return 1;
        }
        return 0;
}

/* Starts the next measurement.  Returns 0 if one runs, 1 when all is
 * done, or a negative errno. */
static int calibrator_step(Calibrator *c) {
        int r;

        while (c->state >= c->n_states) {
                unsigned from = c->cpu == NO_CPU ? 0 : c->cpu + 1;

                if (c->cpu != NO_CPU) {
                        r = finish_cpu(c);
                        if (r < 0)
                                return r;
                }
                r = next_cpu(c, from);
                if (r <= 0)
                        return r < 0 ? r : 1;
        }
        return measure_state(c);
}

static void on_helper_done(int error, const char *output, void *userdata) {
        Calibrator *c = userdata;
        CalibrateMeasurement *m = &c->measurements[c->state];
        int r = error;

        if (r == 0)
                r = calibrate_measurement_parse(output, c->cpu, m);
        c->run = helper_run_free(c->run);
        if (r < 0)
                return calibrator_fail(c, r);
        m->valid = calibrate_measurement_check(m, c->cpu, c->states, c->n_states, c->state);
        if (!m->valid && ++c->attempt < ATTEMPTS_MAX) {
                log_info("Measuring CPU %u, idle state \"%s\" again (attempt %u of %u).", c->cpu,
                         c->states[c->state].name, c->attempt + 1, ATTEMPTS_MAX);
                r = run_helper(c, gap_for(c, &c->states[c->state]));
                if (r < 0)
                        calibrator_fail(c, r);
                return;
        }
        c->attempt = 0;
        c->state++;
        c->measured++;
        r = calibrator_step(c);
        if (r < 0)
                calibrator_fail(c, r);
        else if (r > 0)
                calibrator_finish(c);
}

/* The sweep's arguments for the current CPU: its durations as a list
 * into list (their number into *ret_n), the wakeups per duration (fewer
 * for a long sweep: about 4 s at most).  Returns the sum of the durations
 * in µs, 0 without a sweep. */
static uint64_t sweep_args(const Calibrator *c, char *list, size_t size, unsigned *ret_samples, unsigned *ret_n) {
        uint32_t d[CALIBRATE_SWEEP_MAX];
        unsigned n = calibrate_sweep_durations(c->states, c->n_states, c->params.gap_min_us, d);
        uint64_t sum = 0;
        size_t len = 0;

        list[0] = '\0';
        for (unsigned i = 0; i < n; i++) {
                if (len < size)
                        len += (size_t) snprintf(list + len, size - len, "%s%" PRIu32, i > 0 ? "," : "", d[i]);
                sum += d[i];
        }
        *ret_n = n;
        *ret_samples = c->params.sweep_samples;
        if (*ret_samples > 4000000u / sum)
                *ret_samples = 4000000u / sum > 30 ? (unsigned) (4000000u / sum) : 30;
        return c->params.sweep_samples > 0 ? sum : 0;
}

/* A generous timeout for one run: twice the time its phases should take
 * with 2 ms per wakeup on top of its gap, plus slack. */
static uint64_t run_timeout(const Calibrator *c, unsigned samples, unsigned gap_us, uint64_t sweep_sum_us,
                            unsigned sweep_samples, unsigned n_sweep) {
        uint64_t sweep = (uint64_t) (sweep_samples + 3 * 16) * (sweep_sum_us + 2000ull * n_sweep);

        if (c->params.timeout_usec > 0)
                return c->params.timeout_usec;
        return 2ull * (samples + 16) * (gap_us + 2000) + 2ull * (c->params.timer_samples + 16) * 2000 + 2 * sweep +
               TIMEOUT_SLACK_USEC;
}

static int run_helper(Calibrator *c, unsigned gap_us) {
        unsigned samples = c->params.samples, partner = pick_partner(c, c->cpu), sweep_samples, n_sweep;
        char cpu[16], partner_s[16], samples_s[16], gap_s[16], timer_s[16], sweep_s[16], list[CALIBRATE_SWEEP_MAX * 12];
        uint64_t sweep_sum;
        char *argv[20];
        size_t n = 0;

        if (samples > 4000000u / gap_us)
                samples = 4000000u / gap_us > 50 ? 4000000u / gap_us : 50;
        sweep_sum = sweep_args(c, list, sizeof(list), &sweep_samples, &n_sweep);
        snprintf(cpu, sizeof(cpu), "%u", c->cpu);
        snprintf(partner_s, sizeof(partner_s), "%u", partner);
        snprintf(samples_s, sizeof(samples_s), "%u", samples);
        snprintf(gap_s, sizeof(gap_s), "%u", gap_us);
        snprintf(timer_s, sizeof(timer_s), "%u", c->params.timer_samples);
        snprintf(sweep_s, sizeof(sweep_s), "%u", sweep_sum > 0 ? sweep_samples : 0);
        argv[n++] = c->helper;
        argv[n++] = (char *) "--cpu";
        argv[n++] = cpu;
        argv[n++] = (char *) "--samples";
        argv[n++] = samples_s;
        argv[n++] = (char *) "--gap-us";
        argv[n++] = gap_s;
        argv[n++] = (char *) "--timer-samples";
        argv[n++] = timer_s;
        argv[n++] = (char *) "--sweep-us";
        argv[n++] = list;
        argv[n++] = (char *) "--sweep-samples";
        argv[n++] = sweep_s;
        argv[n++] = (char *) "--json";
        if (partner != NO_CPU) {       /* alone: timer lateness only */
                argv[n++] = (char *) "--partner";
                argv[n++] = partner_s;
        }
        argv[n] = NULL;
        return helper_run_start(c->event, argv, run_timeout(c, samples, gap_us, sweep_sum, sweep_samples, n_sweep),
                                on_helper_done, c, &c->run);
}

/* Sets up c's own view of the system.  Returns 0 or a negative errno. */
static int calibrator_open(Calibrator *c, const EnforceTarget *target) {
        CpuidleSystem sys;
        ErrorInfo e = {};
        int r;

        c->root_fd = fcntl(change_layer_env(target->changes)->root_fd, F_DUPFD_CLOEXEC, 3);
        if (c->root_fd < 0)
                return log_error_errno(errno, "Failed to duplicate the root fd: %m");
        r = topology_load(c->root_fd, &c->topology, &e);
        if (r < 0)
                return log_error_errno(r, "Failed to read the CPU topology: %s", e.message);
        c->online = c->topology->online;
        if (target->sampler)
                CPUSET_FOREACH(cpu, &c->online) {
                        unsigned n = 0;

                        (void) cpuidle_sampler_states(target->sampler, (unsigned) cpu, &n);
                        c->total += n;
                }
        r = cpuidle_system_load(c->root_fd, &sys, &e);
        if (r == -ENOENT)
                return log_error_errno(-ENODEV, "This system has no cpuidle: nothing to calibrate.");
        if (r < 0)
                return log_error_errno(r, "Failed to read cpuidle: %s", e.message);
        r = calibration_new(c->topology->n_cpus, &c->result);
        if (r < 0)
                return r;
        snprintf(c->result->driver, sizeof(c->result->driver), "%s", sys.driver);
        return 0;
}

/* Returns 0, -EBUSY or a negative errno; done is called later iff 0. */
int calibrator_start_with(sd_event *e, EnforceTarget target, const char *helper, const CalibrateParams *p,
                          CalibrateDone done, void *userdata, Calibrator **ret) {
        _cleanup_(calibrator_freep) Calibrator *c = NULL;
        int r;

        if (calibrator_active)
                return -EBUSY;
        if (!e || !helper || !done || !p || p->samples == 0 || p->timer_samples == 0 || p->gap_min_us == 0)
                return -EINVAL;
        if (access(helper, X_OK) < 0)
                return log_error_errno(errno, "Cannot execute the calibration helper %s: %m", helper);
        c = calloc(1, sizeof(Calibrator));
        if (!c)
                return -ENOMEM;
        *c = (Calibrator) { .event = sd_event_ref(e), .changes = target.changes, .root_fd = -1, .params = *p,
                            .done = done, .userdata = userdata, .cpu = NO_CPU, .helper = strdup(helper) };
        if (!c->helper)
                return -ENOMEM;
        r = calibrator_open(c, &target);
        if (r < 0)
                return r;
        c->running = true;
        calibrator_active = c;
        r = calibrator_step(c);
        if (r > 0)
                r = log_error_errno(-ENODEV, "No online CPU has idle states: nothing to calibrate.");
        if (r < 0) {
                c->running = false;
                return r;      /* c is freed: knobs back */
        }
        *ret = TAKE_PTR(c);
        return 0;
}

int calibrator_start(sd_event *e, EnforceTarget target, const char *helper, CalibrateDone done, void *userdata,
                     Calibrator **ret) {
        CalibrateParams p;

        calibrate_params_default(&p);
        return calibrator_start_with(e, target, helper, &p, done, userdata, ret);
}
