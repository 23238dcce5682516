/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager's calibrations (manager-policy.h): on demand, at the first
 * start, stopped by Restore() and at exit; the result kept in the state
 * directory and used by the policy from the next tick. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bus-error.h"
#include "log.h"
#include "manager-policy.h"

/* The calibration ended: keep its result, tell the bus. */
static void on_calibrated(Calibration *result, int error, void *userdata) {
        Manager *m = userdata;
        char message[256] = "";

        m->calib.run = calibrator_free(m->calib.run);
        if (result) {
                calibration_free(m->calib.result);
                m->calib.result = result;
                m->calib.result_ticks = m->policy.loop->ticks;
                (void) persist_save_calibration(&m->policy.persist, result);
                manager_emit(m, "CalibrationUSec");
        } else
                snprintf(message, sizeof(message), "The calibration failed: %s", strerror(error > 0 ? error : -error));
        manager_emit(m, "Calibrating");
        manager_knobs_changed(m);
        manager_emit_calibration_finished(m, result != NULL, message);
}

/* Returns 0, or -EBUSY / -ERRNO_CALIBRATION_FAILED with e set. */
int manager_calibrate(Manager *m, ErrorInfo *e) {
        EnforceTarget t;
        int r;

        if (calibrator_running(m->calib.run))
                return errinfo_set(e, -EBUSY, "A calibration is running already");
        m->calib.run = calibrator_free(m->calib.run);
        t = manager_enforce_target(m, CHANGE_OWNER(CALIBRATION));
        r = calibrator_start(m->event, t, m->calib.helper, on_calibrated, m, &m->calib.run);
        if (r == -EBUSY)
                return errinfo_set(e, -EBUSY, "A calibration is running already");
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return errinfo_set(e, -ERRNO_CALIBRATION_FAILED, "Failed to start the calibration with %s: %s",
                                   m->calib.helper, strerror(-r));
        log_info("Calibration started.");
        manager_emit(m, "Calibrating");
        return 0;
}

void manager_policy_cancel_calibration(Manager *m, const char *why) {
        char message[256];

        if (!calibrator_running(m->calib.run))
                return;
        m->calib.run = calibrator_free(m->calib.run);
        snprintf(message, sizeof(message), "The calibration was cancelled: %s", why);
        log_notice("%s.", message);
        manager_emit(m, "Calibrating");
        manager_emit_calibration_finished(m, false, message);
}

/* Whether to calibrate now, at the first start: not in observe mode, which
 * writes nothing of its own accord (a calibration sets knobs while it
 * runs); Calibrate() still works there, on request. */
static bool want_first_calibration(const Manager *m) {
        if (m->calib.result || m->config.calibrate_on_first_start == 0)
                return false;
        if (m->policy.mode == DAEMON_MODE_OBSERVE) {
                log_info("No calibration yet; observe mode does not calibrate by itself ('idlepolicyctl calibrate' does).");
                return false;
        }
        if (m->config.calibrate_on_first_start < 0 && strcmp(m->root, "/") != 0) {
                log_debug("Not calibrating on a test tree unless calibrate_on_first_start is set.");
                return false;
        }
        return true;
}

void manager_policy_started(Manager *m) {
        ErrorInfo e = {};

        if (!want_first_calibration(m))
                return;
        log_info("No calibration yet, calibrating the idle states.");
        if (manager_calibrate(m, &e) < 0)
                log_warning("Failed to start the first calibration: %s, continuing without.", e.message);
}
