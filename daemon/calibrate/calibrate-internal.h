/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The parts of the calibration (calibrate.h), one concern per file:
 *   calibrate.c         the walk over CPUs and states, start/free, the result
 *   calibrate-knobs.c   one CPU's knobs: remember, allow only one state, put back
 *   calibrate-run.c     one run of the helper: spawn, collect stdout, timeout, kill
 *   calibrate-result.c  the helper's JSON, its sanity checks, the baseline */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "calibrate.h"
#include "cpuidle.h"

/* ---- calibrate.c ------------------------------------------------------------ */

#define CALIBRATE_GAP_MAX_US 20000u
#define CALIBRATE_SWEEP_MAX CALIBRATION_CURVE_MAX

typedef struct CalibrateParams {
        unsigned samples;            /* pipe wakeups per run (fewer for long gaps) */
        unsigned timer_samples;      /* timer sleeps per run */
        unsigned gap_min_us;         /* gap = max(gap_min_us, 2 × residency), <= CALIBRATE_GAP_MAX_US */
        unsigned sweep_samples;      /* wakeups per idle duration of the sweep (fewer for long
                                      * sweeps); 0: no sweep */
        uint64_t timeout_usec;       /* per helper run; 0: derived from the sample counts */
} CalibrateParams;

/* The defaults calibrator_start() uses: 1000 wakeups, 500 timer sleeps,
 * 1000 µs gap, 300 wakeups per idle duration, derived timeout. */
void calibrate_params_default(CalibrateParams *ret);

/* The idle durations of a CPU's sweep (the same for all its states, so
 * that each is compared with the baseline at the same durations): 2, 5,
 * 10, 20, 50, 100, 200, 500, 1000, 2000 µs, then the longest gap of its
 * states if that is longer (a deep state's knee may lie beyond 2 ms).
 * Returns the number written to ret. */
unsigned calibrate_sweep_durations(const CpuidleStateInfo *states, unsigned n, unsigned gap_min_us,
                                   uint32_t ret[static CALIBRATE_SWEEP_MAX]);

/* calibrator_start() with explicit parameters (tests shorten them).
 * Returns as calibrator_start(). */
int calibrator_start_with(sd_event *e, EnforceTarget target, const char *helper, const CalibrateParams *p,
                          CalibrateDone done, void *userdata, Calibrator **ret);

/* ---- calibrate-knobs.c ------------------------------------------------------ */

#define CALIBRATE_KNOBS_MAX (CPUIDLE_STATES_MAX + 2)

/* A CPU's knobs as they were before its calibration: its states' disable
 * bits (index = state), then its resume latency and the haltpoll
 * guest_halt_poll_ns where they exist. */
typedef struct CalibrateKnobs {
        unsigned cpu, n_states;
        EnforceKnob prior[CALIBRATE_KNOBS_MAX];
        size_t n_prior;
        int resume, poll_ns;         /* index in prior, -1: absent (left alone) */
} CalibrateKnobs;

/* Reads cpu's knobs as they are now.  Returns 0 or -EIO (logged). */
int calibrate_knobs_save(const EnforceTarget *t, unsigned cpu, unsigned n_states, CalibrateKnobs *ret);

/* Allows only state s on the CPU, as one journaled change: s enabled,
 * every other state disabled; the resume latency "n/a" for the polling
 * state, 0 (no constraint) for any other; and for a non-polling state
 * guest_halt_poll_ns 0 (system-wide, for the length of the run).  The
 * haltpoll governor ignores disable bits (it halts with "haltpoll idle"
 * disabled when its poll window is 0, and polls first with POLL disabled
 * when it is not); every governor honours a zero latency limit.  Returns 0
 * or a negative errno (logged; nothing changed). */
int calibrate_knobs_allow_only(const EnforceTarget *t, const CalibrateKnobs *k, unsigned s, bool polling);

/* Puts the saved values back as one change; the journal entries of knobs
 * back at their original are forgotten (so the journal holds what it held
 * before the calibration).  Returns 0 or a negative errno (logged; the
 * knobs stay journaled). */
int calibrate_knobs_restore(const EnforceTarget *t, const CalibrateKnobs *k);

/* ---- calibrate-run.c -------------------------------------------------------- */

typedef struct HelperRun HelperRun;

/* error: 0, -ETIME (killed after the timeout), -EIO (non-zero exit or
 * killed by a signal), -EMSGSIZE (output over 1 MiB).  output is the
 * helper's stdout, NUL-terminated, valid during the call. */
typedef void (*HelperDone)(int error, const char *output, void *userdata);

/* Spawns argv[0] with argv (stdin /dev/null, stdout collected, stderr
 * inherited, default signal mask and dispositions, own process group) and
 * watches it through a pidfd.  done is called once, from the event loop,
 * as the last thing the run does (it may free the run).  Returns 0 or a
 * negative errno (-ENOENT/-EACCES: the helper cannot be executed). */
int helper_run_start(sd_event *e, char *const argv[], uint64_t timeout_usec, HelperDone done, void *userdata,
                     HelperRun **ret);

/* Kills (SIGKILL to its process group) and reaps a helper that is still
 * running, without calling done.  NULL allowed.  Returns NULL. */
HelperRun *helper_run_free(HelperRun *h);

/* ---- calibrate-result.c ----------------------------------------------------- */

/* One idle duration of the helper's sweep. */
typedef struct CalibrateSweepPoint {
        uint32_t idle_us;
        double median_us;            /* of the wakeups that found the CPU idle */
        unsigned samples, awake;     /* wakeups that found it idle, and the others */
        unsigned n_entries;          /* 0: the helper could not read the counters */
        uint64_t entries[CPUIDLE_STATES_MAX];
} CalibrateSweepPoint;

typedef struct CalibrateMeasurement {
        bool valid;                  /* parsed and the CPU really idled in the state */
        bool has_wakeup;             /* false: one CPU, timer lateness only */
        double wakeup_median_us, wakeup_p99_us;
        double timer_median_us, timer_p99_us;
        unsigned samples;            /* of the phase the entries belong to */
        unsigned n_entries;          /* 0: the helper could not read the counters */
        uint64_t entries[CPUIDLE_STATES_MAX];
        unsigned n_sweep;            /* 0: no sweep (one CPU, or an older helper) */
        CalibrateSweepPoint sweep[CALIBRATE_SWEEP_MAX];
} CalibrateMeasurement;

/* Parses the helper's JSON ("sweep" may be absent or null).  Returns 0 or
 * -EBADMSG (logged). */
int calibrate_measurement_parse(const char *text, unsigned cpu, CalibrateMeasurement *ret);

/* Checks that the run idled in state s (cpu's states[0..n-1]): at least
 * one entry into s per two samples (fewer: the CPU was busy, or a latency
 * limit kept it out of s), and at most one entry into the other states per
 * ten into s (more: something else than s was measured).  Returns true if
 * the measurement is usable; logs why not. */
bool calibrate_measurement_check(const CalibrateMeasurement *m, unsigned cpu, const CpuidleStateInfo *states,
                                 unsigned n, unsigned s);

/* Returns true if sweep point p of a run with only state s allowed counts:
 * the waiter blocked in at least half of its wakeups and the CPU entered s
 * at least 9 times per 10 of them (without counters: the first only). */
bool calibrate_sweep_point_valid(const CalibrateSweepPoint *p, unsigned s);

/* Fills ret from the measurements m[0..n-1] of cpu's states: the baseline
 * is the polling state's wakeup ("POLL"), else the smallest measured one;
 * wakeup_us = median - baseline median, wakeup_p99_us = p99 - baseline
 * p99 (both at least 0; from timer lateness when there was no partner
 * CPU); timer_late_us = the median lateness as measured; the curve =
 * per idle duration valid in both runs the median minus the baseline's
 * (none for the baseline itself), and entry_us and residency_us from it
 * (calibration_curve_derive()). */
void calibrate_cpu_fill(CalibrationCpu *ret, const CpuidleStateInfo *states, unsigned n, const CalibrateMeasurement *m);

/* Returns true for the kernel's polling state. */
bool calibrate_state_is_polling(const CpuidleStateInfo *s);
