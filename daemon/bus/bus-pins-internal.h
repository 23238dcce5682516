/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What bus-pins.c (the Manager's side) and bus-pin.c (the pin objects)
 * share. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "cpuset.h"
#include "pin-registry.h"
#include "polkit.h"

#define ACTION_PIN     POLKIT_ACTION_PREFIX "pin"
#define ACTION_PIN_OWN POLKIT_ACTION_PREFIX "pin-own-process"
#define ACTION_HOLD    POLKIT_ACTION_PREFIX "hold"

typedef struct Manager Manager;
typedef struct HoldOwner HoldOwner;

/* The userdata of the pin vtables, owned by the Manager pin vtable's slot. */
typedef struct BusPins {
        Manager *manager;
        HoldOwner **owners;             /* the holders watched on the bus */
        size_t n_owners, allocated;
} BusPins;

/* bus-pins.c: checks a free-text argument what (its name in the error):
 * at most max - 1 bytes, no control character (it is shown in status and
 * the log).  Returns 0 or a negative errno with error set. */
int bus_check_text(const char *what, const char *s, size_t max, sd_bus_error *error);

/* bus-pin.c: Unpin(path) for the caller of message, authorised.  Returns
 * what a method handler returns. */
int bus_pins_unpin(BusPins *bp, sd_bus_message *message, const char *path, sd_bus_error *error);

/* bus-pin.c: adds the pin objects' fallback vtable and enumerator.
 * Returns 0 or a negative errno. */
int bus_pin_register_objects(BusPins *bp);
/* The pin whose object path is path (its id in *ret_id), or NULL. */
const Pin *bus_pin_from_path(const Manager *m, const char *path, uint32_t *ret_id);
/* InterfacesAdded / InterfacesRemoved for the pin object at path. */
void bus_pin_emit_added(Manager *m, const char *path);
void bus_pin_emit_removed(Manager *m, const char *path);

