/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus-manager.h"
#include "bus-metrics.h"
#include "manager.h"

static int property_get_textfile_error(sd_bus *bus, const char *path, const char *interface, const char *property,
                                       sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", ((Manager *) userdata)->metrics.textfile_error);
}

static const sd_bus_vtable metrics_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("MetricsTextfileError", "s", property_get_textfile_error, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_VTABLE_END,
};

int bus_metrics_register(Manager *m) {
        return sd_bus_add_object_vtable(m->bus, NULL, BUS_PATH, BUS_MANAGER_INTERFACE, metrics_vtable, m);
}
