/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "bus-error.h"
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
        SD_BUS_ERROR_MAP_END,
};

/* Returns 0 or a negative errno. */
int bus_error_register_map(void) {
        int r = sd_bus_error_add_map(idlepolicy_bus_error_map);
        return r < 0 ? r : 0;
}

/* Returns the error name for errno r, NULL if it has none. */
static const char *bus_error_name_from_errno(int r) {
        for (const sd_bus_error_map *m = idlepolicy_bus_error_map; m->name; m++)
                if (m->code == -r)
                        return m->name;
        return NULL;
}

/* Returns the negative errno to hand back from the handler. */
int bus_error_from_errno(sd_bus_error *error, int r, const ErrorInfo *e) {
        const char *name = r == -ENOMEM ? NULL : bus_error_name_from_errno(r);

        if (!name && r != -ENOMEM && e && e->message[0])
                return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "%s", e->message);
        if (!name)
                return r;
        if (e && e->message[0])
                return sd_bus_error_setf(error, name, "%s", e->message);
        return sd_bus_error_set(error, name, NULL);
}
