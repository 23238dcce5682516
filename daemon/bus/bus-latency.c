/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus-latency.h"
#include "bus-manager.h"
#include "manager.h"

static int property_get_usec(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "i", latency_watch_usec(&((Manager *) userdata)->latency));
}

static int property_get_error(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        char buf[256];

        return sd_bus_message_append(reply, "s", latency_watch_error(&((Manager *) userdata)->latency, buf, sizeof(buf)));
}

/* (pid, comm) of each holder. */
static int property_get_holders(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const LatencyHolders *h = &((Manager *) userdata)->latency.holders;
        int r = sd_bus_message_open_container(reply, 'a', "(us)");

        for (size_t i = 0; r >= 0 && i < h->n; i++)
                r = sd_bus_message_append(reply, "(us)", h->holders[i].pid, h->holders[i].comm);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int property_get_hidden(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "u", ((Manager *) userdata)->latency.holders.hidden);
}

static const sd_bus_vtable latency_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("LatencyRequestUSec", "i", property_get_usec, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("LatencyRequestError", "s", property_get_error, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("LatencyRequestHolders", "a(us)", property_get_holders, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("LatencyRequestHidden", "u", property_get_hidden, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_VTABLE_END,
};

int bus_latency_register(Manager *m) {
        return sd_bus_add_object_vtable(m->bus, NULL, BUS_PATH, BUS_MANAGER_INTERFACE, latency_vtable, m);
}
