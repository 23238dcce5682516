/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Calibrated idle-state costs (DESIGN.md §4, the POWER9 stop0_lite lesson):
 * per CPU and state, the measured wakeup latency next to the advertised
 * exit latency, whether the state is mis-described, and the cost of
 * entering it: how the wakeup cost changes with how long the CPU has been
 * idle (the curve), the entry cost and the break-even residency derived
 * from it.  Pure data plus its JSON form (kept in the state directory as
 * calibration.json); the daemon measures, the library stores and judges. */

#include <stdbool.h>
#include <stdint.h>

#include "cleanup.h"

#include "errinfo.h"

#define CALIBRATION_CPUS_MAX 8192u
#define CALIBRATION_STATES_MAX 10u
#define CALIBRATION_CURVE_MAX 16u
#define CALIBRATION_PENALTY_MAX_US 1000000

/* One point of a state's curve: a wakeup that came idle_us after the CPU
 * went idle cost penalty_us more (median) with only this state allowed
 * than with only the polling state (the baseline) after the same time. */
typedef struct CalibrationPoint {
        uint32_t idle_us;
        int32_t penalty_us;           /* may be negative; |x| <= CALIBRATION_PENALTY_MAX_US */
} CalibrationPoint;

typedef struct CalibrationState {
        bool measured;
        char name[32];
        uint32_t advertised_latency_us;
        uint32_t wakeup_us;           /* median extra wakeup latency with only this state allowed,
                                       * over the polling baseline (pipe ping-pong) */
        uint32_t wakeup_p99_us;
        uint32_t timer_late_us;       /* median timer-wakeup lateness with only this state */
        bool misdescribed;            /* see calibration_judge() */
        /* From the idle-duration sweep (all 0 / empty where there was none,
         * e.g. in files written before it existed): */
        uint32_t entry_us;            /* how much more a wakeup costs right after entering the
                                       * state than once the CPU has settled in it */
        uint32_t residency_us;        /* measured break-even residency: the idle duration from
                                       * which the wakeup cost is flat (the state fully entered,
                                       * its saving begun); 0 = the curve shows none */
        unsigned n_curve;
        CalibrationPoint curve[CALIBRATION_CURVE_MAX];   /* idle_us ascending */
} CalibrationState;

typedef struct CalibrationCpu {
        unsigned n_states;
        CalibrationState states[CALIBRATION_STATES_MAX];
} CalibrationCpu;

typedef struct Calibration {
        uint64_t realtime_usec;       /* when it was measured (given by the caller) */
        char driver[64];
        unsigned n_cpus;
        CalibrationCpu *cpus;         /* n_cpus entries (owned) */
} Calibration;

/* Allocates an empty calibration for n_cpus.  Returns 0 or -ENOMEM/-EINVAL. */
int calibration_new(unsigned n_cpus, Calibration **ret);
Calibration *calibration_free(Calibration *c);
void calibration_freep(Calibration **c);
#define _cleanup_calibration_ _cleanup_(calibration_freep)

/* Marks states whose measured cost is far above the advertised one:
 * wakeup_us > 4 × advertised + 10 µs (documented in the man page).  Returns
 * the number of mis-described states. */
unsigned calibration_judge(Calibration *c);

/* Derives the entry cost and the break-even residency from curve[0..n-1]
 * (idle_us strictly ascending, penalties over the baseline): entry_us =
 * the highest penalty minus the last (the settled) one, 0 within the
 * tolerance (the larger of 3 µs and a tenth of the settled penalty);
 * residency_us = the idle_us where the flat tail starts (every point from
 * there on within the tolerance of the settled one), if the tail holds at
 * least 3 points and does not start at the first, else 0.  Fewer than 3
 * points: both 0. */
void calibration_curve_derive(const CalibrationPoint *curve, unsigned n, uint32_t *ret_entry_us,
                              uint32_t *ret_residency_us);

/* The penalty of a wakeup after idle_us of idleness from s's curve:
 * linear between two points, the first or last point's outside them.
 * Returns 0, or -ENODATA if s is not measured or has no curve. */
int calibration_penalty_us(const CalibrationState *s, uint32_t idle_us, int32_t *ret);

/* The break-even residency the policy can use for a state
 * (PolicyState.real_residency_us): max(s->residency_us,
 * advertised_residency_us) when s is measured and s->residency_us > 0 --
 * the measurement sees latency, not energy, so it only ever raises the
 * advertised figure -- else 0 (derive it).  s may be NULL. */
uint32_t calibration_breakeven_us(const CalibrationState *s, uint32_t advertised_residency_us);

/* JSON round trip.  Parse errors: -EINVAL with e naming the file and key.
 * Returns 0 (serialise: a malloc'ed string in *ret). */
int calibration_to_json(const Calibration *c, char **ret);
int calibration_parse(const char *text, const char *filename, Calibration **ret, ErrorInfo *e);
