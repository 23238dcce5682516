/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "bus-error.h"
#include "log.h"
#include "macro.h"
#include "pins.h"

const sd_bus_error_map idlepolicy_bus_error_map[] = {
        SD_BUS_ERROR_MAP(BUS_ERROR_UNKNOWN_CPU, ERRNO_UNKNOWN_CPU),
        SD_BUS_ERROR_MAP(BUS_ERROR_CPU_OFFLINE, ERRNO_CPU_OFFLINE),
        SD_BUS_ERROR_MAP(BUS_ERROR_UNKNOWN_STATE, ERRNO_UNKNOWN_STATE),
        SD_BUS_ERROR_MAP(BUS_ERROR_INVALID_LATENCY, ERRNO_INVALID_LATENCY),
        SD_BUS_ERROR_MAP(BUS_ERROR_UNKNOWN_GOVERNOR, ERRNO_UNKNOWN_GOVERNOR),
        SD_BUS_ERROR_MAP(BUS_ERROR_WRITE_FAILED, ERRNO_WRITE_FAILED),
        SD_BUS_ERROR_MAP(BUS_ERROR_ACCESS_DENIED, ERRNO_ACCESS_DENIED),
        SD_BUS_ERROR_MAP(BUS_ERROR_UNKNOWN_PROFILE, ERRNO_UNKNOWN_PROFILE),
        SD_BUS_ERROR_MAP(BUS_ERROR_INVALID_MODE, ERRNO_INVALID_MODE),
        SD_BUS_ERROR_MAP(BUS_ERROR_BUSY, ERRNO_BUSY),
        SD_BUS_ERROR_MAP(BUS_ERROR_INVALID_TARGET, ERRNO_INVALID_TARGET),
        SD_BUS_ERROR_MAP(BUS_ERROR_INVALID_CPUS, ERRNO_INVALID_CPUS),
        SD_BUS_ERROR_MAP(BUS_ERROR_NO_SUCH_PROCESS, ERRNO_NO_SUCH_PROCESS),
        SD_BUS_ERROR_MAP(BUS_ERROR_NOT_PINNABLE, ERRNO_NOT_PINNABLE),
        SD_BUS_ERROR_MAP(BUS_ERROR_DUPLICATE_TARGET, ERRNO_DUPLICATE_TARGET),
        SD_BUS_ERROR_MAP(BUS_ERROR_LIMIT_REACHED, ERRNO_LIMIT_REACHED),
        SD_BUS_ERROR_MAP(BUS_ERROR_NO_SUCH_PIN, ERRNO_NO_SUCH_PIN),
        SD_BUS_ERROR_MAP(BUS_ERROR_NO_SUCH_HOLD, ERRNO_NO_SUCH_HOLD),
        SD_BUS_ERROR_MAP(BUS_ERROR_NO_SYSTEMD, ERRNO_NO_SYSTEMD),
        SD_BUS_ERROR_MAP(BUS_ERROR_INVALID_LEVEL, ERRNO_INVALID_LEVEL),
        SD_BUS_ERROR_MAP(BUS_ERROR_CALIBRATION_FAILED, ERRNO_CALIBRATION_FAILED),
        SD_BUS_ERROR_MAP_END,
};

/* The Set* calls on CPUs (enforce.h); each is refused while a calibration
 * runs. */
#define CPU_ERRORS BUS_ERROR_UNKNOWN_CPU, BUS_ERROR_CPU_OFFLINE, BUS_ERROR_WRITE_FAILED, BUS_ERROR_BUSY
/* A profile and a CPU list given (pins.c); InvalidLatency: the N of a
 * profile "BASE:latency_limit_us=N" (pins-profiles.c). */
#define CLAIM_ERRORS BUS_ERROR_UNKNOWN_PROFILE, BUS_ERROR_INVALID_LATENCY, BUS_ERROR_INVALID_CPUS, BUS_ERROR_UNKNOWN_CPU, \
        BUS_ERROR_CPU_OFFLINE, BUS_ERROR_LIMIT_REACHED

const BusMethodErrors bus_errors_set_governor = {
        "SetGovernor", { BUS_ERROR_UNKNOWN_GOVERNOR, BUS_ERROR_WRITE_FAILED, BUS_ERROR_BUSY } };
const BusMethodErrors bus_errors_set_state_disabled = {
        "SetStateDisabled", { CPU_ERRORS, BUS_ERROR_UNKNOWN_STATE } };
const BusMethodErrors bus_errors_set_resume_latency = {
        "SetResumeLatency", { CPU_ERRORS, BUS_ERROR_INVALID_LATENCY } };
const BusMethodErrors bus_errors_set_latency_limit = { "SetLatencyLimit", { CPU_ERRORS } };
const BusMethodErrors bus_errors_restore = { "Restore", { BUS_ERROR_WRITE_FAILED } };
const BusMethodErrors bus_errors_set_profile = { "SetProfile", { BUS_ERROR_UNKNOWN_PROFILE } };
const BusMethodErrors bus_errors_set_mode = {
        "SetMode", { BUS_ERROR_INVALID_MODE, BUS_ERROR_BUSY, BUS_ERROR_WRITE_FAILED } };
const BusMethodErrors bus_errors_set_consolidation = { "SetConsolidation", { BUS_ERROR_INVALID_LEVEL } };
const BusMethodErrors bus_errors_calibrate = { "Calibrate", { BUS_ERROR_BUSY, BUS_ERROR_CALIBRATION_FAILED } };
const BusMethodErrors bus_errors_pin = {
        "Pin", { CLAIM_ERRORS, BUS_ERROR_INVALID_TARGET, BUS_ERROR_NO_SUCH_PROCESS, BUS_ERROR_NOT_PINNABLE,
                 BUS_ERROR_NO_SYSTEMD, BUS_ERROR_DUPLICATE_TARGET, BUS_ERROR_WRITE_FAILED } };
const BusMethodErrors bus_errors_unpin = { "Unpin", { BUS_ERROR_NO_SUCH_PIN, BUS_ERROR_WRITE_FAILED } };
const BusMethodErrors bus_errors_hold = { "Hold", { CLAIM_ERRORS } };
const BusMethodErrors bus_errors_release = { "Release", { BUS_ERROR_NO_SUCH_HOLD } };
const BusMethodErrors bus_errors_preview_profile = { "PreviewProfile", { BUS_ERROR_UNKNOWN_PROFILE, BUS_ERROR_BUSY } };

/* Returns 0 or a negative errno. */
int bus_error_register_map(void) {
        int r = sd_bus_error_add_map(idlepolicy_bus_error_map);
        return r < 0 ? r : 0;
}

/* Returns the error name for errno r if method answers with it, else NULL. */
static const char *method_error_name(const BusMethodErrors *method, int r) {
        for (const sd_bus_error_map *m = idlepolicy_bus_error_map; m->name; m++) {
                if (m->code != -r)
                        continue;
                for (size_t i = 0; method->names[i]; i++)
                        if (strcmp(method->names[i], m->name) == 0)
                                return m->name;
        }
        return NULL;
}

/* Returns the negative errno to hand back from the handler. */
int bus_error_from_errno(sd_bus_error *error, int r, const ErrorInfo *e, const BusMethodErrors *method) {
        const char *name, *message = e && e->message[0] ? e->message : strerror(-r);

        assert(r < 0);
        if (r == -ENOMEM)
                return r;
        name = method_error_name(method, r);
        if (name)
                return sd_bus_error_setf(error, name, "%s", message);
        log_warning("%s(): %s: %s is not one of this method's named errors, answered %s.", method->method, message,
                    strerrorname_np(-r) ?: "an unknown errno", SD_BUS_ERROR_FAILED);
        return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "%s", message);
}
