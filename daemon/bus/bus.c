/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon on the system bus: connects, registers the objects and the
 * manager's event callbacks, takes the name. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "bus-util.h"
#include "bus-cpu.h"
#include "bus-latency.h"
#include "bus-manager.h"
#include "bus-metrics.h"
#include "bus-pins.h"
#include "bus-ppd.h"
#include "bus-preview.h"
#include "bus-reports.h"
#include "log.h"

/* Returns 0 or a negative errno (logged). */
int bus_connect(Manager *m) {
        int r;

        r = sd_bus_open_system(&m->bus);
        if (r < 0)
                return log_error_errno(r, "Failed to connect to the system bus: %m");
        r = bus_manager_register(m);
        if (r >= 0)
                r = bus_cpu_register(m);
        if (r >= 0)
                r = bus_pins_register(m);
        if (r >= 0)
                r = bus_latency_register(m);
        if (r >= 0)
                r = bus_metrics_register(m);
        if (r >= 0)
                r = bus_ppd_register(m);
        if (r >= 0)
                r = bus_preview_register(m);
        if (r >= 0)
                r = bus_reports_register(m);
        if (r >= 0)
                r = sd_bus_add_object_manager(m->bus, NULL, BUS_PATH);
        if (r < 0)
                return log_error_errno(r, "Failed to register the D-Bus objects: %m");
        /* Without the bus nobody can reach us: exit (putting the knobs back)
         * and let the service manager restart us. */
        (void) sd_bus_set_exit_on_disconnect(m->bus, true);
        r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Failed to attach the bus to the event loop: %m");
        r = sd_bus_request_name(m->bus, BUS_NAME, 0);
        if (r == -EEXIST)
                return log_error_errno(r, "%s is already owned on the bus, is another idlepolicyd running?", BUS_NAME);
        if (r < 0)
                return log_error_errno(r, "Failed to acquire %s: %m", BUS_NAME);
        return 0;
}
