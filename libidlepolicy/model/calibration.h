/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Calibrated idle-state costs (DESIGN.md §4, the POWER9 stop0_lite lesson):
 * per CPU and state, the measured wakeup latency next to the advertised
 * exit latency, and whether the state is mis-described.  Pure data plus its
 * JSON form (kept in the state directory as calibration.json); the daemon
 * measures, the library stores and judges. */

#include <stdbool.h>
#include <stdint.h>

#include "errinfo.h"

#define CALIBRATION_CPUS_MAX 8192u
#define CALIBRATION_STATES_MAX 10u

typedef struct CalibrationState {
        bool measured;
        char name[32];
        uint32_t advertised_latency_us;
        uint32_t wakeup_us;           /* median extra wakeup latency with only this state allowed,
                                       * over the polling baseline (pipe ping-pong) */
        uint32_t wakeup_p99_us;
        uint32_t timer_late_us;       /* median timer-wakeup lateness with only this state */
        bool misdescribed;            /* see calibration_judge() */
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
#define _cleanup_calibration_ __attribute__((cleanup(calibration_freep)))

/* Marks states whose measured cost is far above the advertised one:
 * wakeup_us > 4 × advertised + 10 µs (documented in the man page).  Returns
 * the number of mis-described states. */
unsigned calibration_judge(Calibration *c);

/* JSON round trip.  Parse errors: -EINVAL with e naming the file and key.
 * Returns 0 (serialise: a malloc'ed string in *ret). */
int calibration_to_json(const Calibration *c, char **ret);
int calibration_parse(const char *text, const char *filename, Calibration **ret, ErrorInfo *e);
