/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus-manager.h"
#include "bus-ppd.h"
#include "manager.h"

/* (following, the bus name followed or "", its ActiveProfile last followed or ""). */
static int property_get_follow(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const char *name, *profile;
        bool follow = ppd_follow_status(((Manager *) userdata)->ppd, &name, &profile);

        return sd_bus_message_append(reply, "(bss)", (int) follow, name ?: "", profile);
}

static const sd_bus_vtable ppd_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("FollowPowerProfiles", "(bss)", property_get_follow, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_VTABLE_END,
};

int bus_ppd_register(Manager *m) {
        return sd_bus_add_object_vtable(m->bus, NULL, BUS_PATH, BUS_MANAGER_INTERFACE, ppd_vtable, m);
}
