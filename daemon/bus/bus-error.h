/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The named D-Bus errors of org.idlepolicy.IdlePolicy1 and the errno each
 * one stands for inside the daemon (enforce.h returns these). */

#include <errno.h>
#include <systemd/sd-bus.h>

#include "errinfo.h"

#define BUS_ERROR_PREFIX             "org.idlepolicy.IdlePolicy1.Error."
#define BUS_ERROR_UNKNOWN_CPU        BUS_ERROR_PREFIX "UnknownCPU"
#define BUS_ERROR_CPU_OFFLINE        BUS_ERROR_PREFIX "CPUOffline"
#define BUS_ERROR_UNKNOWN_STATE      BUS_ERROR_PREFIX "UnknownState"
#define BUS_ERROR_INVALID_LATENCY    BUS_ERROR_PREFIX "InvalidLatency"
#define BUS_ERROR_UNKNOWN_GOVERNOR   BUS_ERROR_PREFIX "UnknownGovernor"
#define BUS_ERROR_WRITE_FAILED       BUS_ERROR_PREFIX "WriteFailed"
#define BUS_ERROR_ACCESS_DENIED      BUS_ERROR_PREFIX "AccessDenied"
#define BUS_ERROR_UNKNOWN_PROFILE    BUS_ERROR_PREFIX "UnknownProfile"
#define BUS_ERROR_INVALID_MODE       BUS_ERROR_PREFIX "InvalidMode"
#define BUS_ERROR_BUSY               BUS_ERROR_PREFIX "Busy"
/* Pins and holds (pins.h has their errnos). */
#define BUS_ERROR_INVALID_TARGET     BUS_ERROR_PREFIX "InvalidTarget"
#define BUS_ERROR_INVALID_CPUS       BUS_ERROR_PREFIX "InvalidCPUs"
#define BUS_ERROR_NO_SUCH_PROCESS    BUS_ERROR_PREFIX "NoSuchProcess"
#define BUS_ERROR_NOT_PINNABLE       BUS_ERROR_PREFIX "NotPinnable"
#define BUS_ERROR_DUPLICATE_TARGET   BUS_ERROR_PREFIX "DuplicateTarget"
#define BUS_ERROR_LIMIT_REACHED      BUS_ERROR_PREFIX "LimitReached"
#define BUS_ERROR_NO_SUCH_PIN        BUS_ERROR_PREFIX "NoSuchPin"
#define BUS_ERROR_NO_SUCH_HOLD       BUS_ERROR_PREFIX "NoSuchHold"
#define BUS_ERROR_NO_SYSTEMD         BUS_ERROR_PREFIX "NoSystemd"
/* Consolidation: SetConsolidation() with a level other than 0, 1, 2. */
#define BUS_ERROR_INVALID_LEVEL      BUS_ERROR_PREFIX "InvalidLevel"
#define ERRNO_INVALID_LEVEL          ECHRNG
/* Calibrate(): the calibration cannot start (the helper cannot be run, no
 * idle states to measure...). */
#define BUS_ERROR_CALIBRATION_FAILED BUS_ERROR_PREFIX "CalibrationFailed"
#define ERRNO_CALIBRATION_FAILED     ENOTRECOVERABLE

/* The errno behind each name (see enforce.h and manager-policy.h; the
 * pins' ERRNO_* are in pins.h). */
#define ERRNO_UNKNOWN_CPU      ENXIO
#define ERRNO_CPU_OFFLINE      EHOSTDOWN
#define ERRNO_UNKNOWN_STATE    ENOENT
#define ERRNO_INVALID_LATENCY  ERANGE
#define ERRNO_UNKNOWN_GOVERNOR ESRCH
#define ERRNO_WRITE_FAILED     EIO
#define ERRNO_ACCESS_DENIED    EACCES
#define ERRNO_UNKNOWN_PROFILE  ENOPKG
#define ERRNO_INVALID_MODE     EDOM
#define ERRNO_BUSY             EBUSY

extern const sd_bus_error_map idlepolicy_bus_error_map[];

/* Registers the map with sd-bus, so sd_bus_error_set() returns the errnos
 * above.  Returns 0 or a negative errno. */
int bus_error_register_map(void);

/* The named errors one method answers with when what it calls fails
 * (idlepolicyd(8) lists them under each method).  Besides these a mutating
 * method answers AccessDenied (polkit.c sets it, never an errno), and
 * org.freedesktop.DBus.Error.InvalidArgs for arguments it rejects before
 * calling anything. */
typedef struct BusMethodErrors {
        const char *method;
        const char *names[16];        /* NULL-terminated */
} BusMethodErrors;

extern const BusMethodErrors bus_errors_set_governor, bus_errors_set_state_disabled, bus_errors_set_resume_latency,
        bus_errors_set_latency_limit, bus_errors_restore, bus_errors_set_profile, bus_errors_set_mode,
        bus_errors_set_consolidation, bus_errors_calibrate, bus_errors_pin, bus_errors_unpin, bus_errors_hold,
        bus_errors_release, bus_errors_preview_profile;

/* Turns an errno from enforce.h, manager-ops.h or pins.h plus its
 * explanation into the named error, if it is one of the method's names:
 * the errnos are ordinary ones (-ENOENT is UnknownState), so one that
 * reached here raw from a system call would otherwise take a name it does
 * not mean.  -ENOMEM passes through (NoMemory); any other errno becomes
 * org.freedesktop.DBus.Error.Failed with the explanation (or strerror()),
 * logged as a bug.  Returns the (negative) errno to return from a method
 * handler. */
int bus_error_from_errno(sd_bus_error *error, int r, const ErrorInfo *e, const BusMethodErrors *method);
