/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Runs a calibration without blocking the event loop: for each online CPU
 * and each of its states, allow only that state on the CPU (through the
 * enforcement layer, so the original values are journaled first), run the
 * measuring helper (idlepolicy-calibrate, a child process pinned to the CPU
 * and a partner CPU), collect its JSON, then put the knobs back as they
 * were before the calibration.  done() is called once at the end. */

#include <systemd/sd-event.h>

#include "calibration.h"
#include "enforce.h"

typedef struct Calibrator Calibrator;

typedef void (*CalibrateDone)(Calibration *result /* owned by the callee, NULL on error */, int error, void *userdata);

/* Starts a calibration.  Returns 0, -EBUSY if one is running, or a negative
 * errno.  helper is the path of idlepolicy-calibrate. */
int calibrator_start(sd_event *e, EnforceTarget target, const char *helper,
                     CalibrateDone done, void *userdata, Calibrator **ret);
/* Stops a running calibration (killing the helper), putting knobs back.
 * Returns NULL. */
Calibrator *calibrator_free(Calibrator *c);
bool calibrator_running(const Calibrator *c);

/* How far a calibration is: states measured so far, states to measure in
 * all (each online CPU's states as the owner's sampler saw them at the
 * start; 0 if unknown), and the CPU and state being measured now. */
typedef struct CalibrateProgress {
        unsigned measured, total;
        unsigned cpu;
        const char *state;           /* owned by the calibrator, valid until its next step */
} CalibrateProgress;

/* Fills *ret.  Returns true, or false (ret untouched) when c is not
 * running. */
bool calibrator_progress(const Calibrator *c, CalibrateProgress *ret);

/* The calibration's state in the manager (manager-calibration.c). */
typedef struct DaemonCalibration {
        char *helper;                 /* idlepolicy-calibrate's path */
        Calibration *result;          /* the calibration in use, or NULL */
        uint64_t result_ticks;        /* the policy step's ticks when result came: until the
                                       * next one, no plan is made with it */
        Calibrator *run;              /* a running calibration, or NULL */
} DaemonCalibration;
