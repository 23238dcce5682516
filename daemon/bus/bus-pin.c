/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* org.idlepolicy.IdlePolicy1.Pin: one object per pin,
 * /org/idlepolicy/IdlePolicy1/pin/N (bus-pins.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "bus-error.h"
#include "bus-util.h"
#include "bus-pins.h"
#include "bus-pins-internal.h"
#include "fileio.h"
#include "knob-unit.h"
#include "log.h"
#include "manager.h"

/* Parses ".../pin/N" (N decimal, no leading zero).  Returns 0 or -ENOENT. */
static int pin_id_from_path(const char *path, uint32_t *ret) {
        size_t n = strlen(PINS_OBJECT_PREFIX "/");
        uint32_t id;

        if (strncmp(path, PINS_OBJECT_PREFIX "/", n) != 0 || path[n] == '0' || parse_u32(path + n, &id) < 0 ||
            strchr(path + n, '\n'))
                return -ENOENT;
        *ret = id;
        return 0;
}

const Pin *bus_pin_from_path(const Manager *m, const char *path, uint32_t *ret_id) {
        uint32_t id;

        if (pin_id_from_path(path, &id) < 0)
                return NULL;
        *ret_id = id;
        return pin_registry_find(pins_registry(m->pinning.pins), id);
}

/* The pin of an object pin_find() accepted. */
static const Pin *path_pin(const BusPins *bp, const char *path) {
        uint32_t id;

        return bus_pin_from_path(bp->manager, path, &id);
}

static int pin_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
                    void **ret_found, sd_bus_error *error) {
        if (!path_pin(userdata, path))
                return 0;
        *ret_found = userdata;
        return 1;
}

static int pin_enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes, sd_bus_error *error) {
        const PinRegistry *reg = pins_registry(((BusPins *) userdata)->manager->pinning.pins);
        size_t n = 0;
        char **l = calloc(pin_registry_n_pins(reg) + 1, sizeof(char *));

        if (!l)
                return -ENOMEM;
        PIN_REGISTRY_FOREACH_PIN(p, reg) {
                char path[128];
                if (bus_nodes_add(l, &n, pins_object_path(p->id, path, sizeof(path))) < 0)
                        return -ENOMEM;
        }
        *ret_nodes = l;
        return 0;
}

static int property_get_target(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        char text[PIN_TARGET_TEXT_MAX];
        int r = pin_target_format(&path_pin(userdata, path)->target, text, sizeof(text));

        return r < 0 ? r : sd_bus_message_append(reply, "s", text);
}

static int property_get_cpus(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *cpus = NULL;
        int r = bus_format_cpus(&path_pin(userdata, path)->cpus, &cpus);

        return r < 0 ? r : sd_bus_message_append(reply, "s", cpus);
}

static int property_get_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const Pin *p = path_pin(userdata, path);
        const char *v = strcmp(property, "Profile") == 0 ? p->profile :
                        strcmp(property, "Reason") == 0 ? p->reason : pin_state_to_string(p->state);

        return sd_bus_message_append(reply, "s", v ? v : "");
}

static int property_get_pids(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const Pin *p = path_pin(userdata, path);
        int r = sd_bus_message_open_container(reply, 'a', "u");

        for (size_t i = 0; r >= 0 && i < p->n_pids; i++)
                r = sd_bus_message_append(reply, "u", (uint32_t) p->pids[i]);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int property_get_created(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "t", path_pin(userdata, path)->created_usec);
}

static int property_get_owner_uid(sd_bus *bus, const char *path, const char *interface, const char *property,
                                  sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "u", path_pin(userdata, path)->owner_uid);
}

static int method_release(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        return bus_pins_unpin(userdata, message, sd_bus_message_get_path(message), error);
}

static const sd_bus_vtable pin_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Target", "s", property_get_target, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CPUs", "s", property_get_cpus, 0, 0),
        SD_BUS_PROPERTY("Profile", "s", property_get_string, 0, 0),
        SD_BUS_PROPERTY("State", "s", property_get_string, 0, 0),
        SD_BUS_PROPERTY("PIDs", "au", property_get_pids, 0, 0),
        SD_BUS_PROPERTY("Created", "t", property_get_created, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Reason", "s", property_get_string, 0, 0),
        SD_BUS_PROPERTY("OwnerUID", "u", property_get_owner_uid, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_METHOD_WITH_ARGS("Release", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_release, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

/* Returns what a method handler returns. */
int bus_pins_unpin(BusPins *bp, sd_bus_message *message, const char *path, sd_bus_error *error) {
        Manager *m = bp->manager;
        ErrorInfo e = {};
        uint32_t id = 0;
        const Pin *pin;
        uid_t uid;
        int r;

        pin = bus_pin_from_path(m, path, &id);
        if (!pin)
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_PIN, "No pin %s", path);
        r = bus_sender_uid(message, &uid, error);
        if (r >= 0)
                r = bus_authorize(m, message, pin->owner_uid == uid ? ACTION_PIN_OWN : ACTION_PIN, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        r = pins_unpin(m->pinning.pins, id, &e);
        if (r < 0)
                return bus_error_from_errno(error, r, &e, &bus_errors_unpin);
        return sd_bus_reply_method_return(message, NULL);
}

void bus_pin_emit_added(Manager *m, const char *path) {
        int r = sd_bus_emit_interfaces_added(m->bus, path, BUS_PIN_INTERFACE, NULL);

        if (r < 0)
                log_debug_errno(r, "Failed to emit InterfacesAdded for %s: %m, ignoring", path);
}

/* The pin may be gone already: the interface is named, not looked up. */
void bus_pin_emit_removed(Manager *m, const char *path) {
        int r = sd_bus_emit_interfaces_removed(m->bus, path, BUS_PIN_INTERFACE, NULL);

        if (r < 0)
                log_debug_errno(r, "Failed to emit InterfacesRemoved for %s: %m, ignoring", path);
}

/* Returns 0 or a negative errno. */
int bus_pin_register_objects(BusPins *bp) {
        sd_bus *bus = bp->manager->bus;
        int r;

        r = sd_bus_add_fallback_vtable(bus, NULL, PINS_OBJECT_PREFIX, BUS_PIN_INTERFACE, pin_vtable, pin_find, bp);
        return r < 0 ? r : sd_bus_add_node_enumerator(bus, NULL, PINS_OBJECT_PREFIX, pin_enumerate, bp);
}
