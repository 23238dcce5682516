/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Thin sd-bus helpers: connecting, calling the Manager's methods and reading
 * all properties of an object through a table (PropMap) that says which
 * property goes into which field of a struct. */

#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#include "ctl-error.h"
#include "ctl.h"

#define IDLEPOLICY_BUS_NAME      "org.idlepolicy.IdlePolicy1"
#define IDLEPOLICY_MANAGER_PATH  "/org/idlepolicy/IdlePolicy1"
#define IDLEPOLICY_MANAGER_IFACE "org.idlepolicy.IdlePolicy1.Manager"
#define IDLEPOLICY_CPU_IFACE     "org.idlepolicy.IdlePolicy1.CPU"
#define IDLEPOLICY_PIN_IFACE     "org.idlepolicy.IdlePolicy1.Pin"
#define IDLEPOLICY_PIN_PREFIX    "/org/idlepolicy/IdlePolicy1/pin/"

/* Connects c->bus to the system bus (DBUS_SYSTEM_BUS_ADDRESS is honoured) if
 * not yet connected.  Prints the failure.  Returns 0 or a negative errno. */
int ctl_bus_open(Ctl *c);

/* How to get a daemon to talk to, into buf: '. /run/idlepolicyd-here/env'
 * when scripts/run-here left one ($RUN_HERE_DIR/env) and its private bus is
 * not the one in use, else how to start one. */
void ctl_bus_run_here_hint(char *buf, size_t size);

/* Calls method member on the Manager with arguments types/... (as for
 * sd_bus_message_append), allowing interactive authorisation unless
 * --no-ask-password.  On failure prints the error explained with ctx and
 * returns a negative errno; returns 0 on success. */
int ctl_bus_call_manager(Ctl *c, const CtlErrorContext *ctx, const char *member, const char *types, ...);

/* The same on the object path and interface iface, handing the reply to
 * *ret_reply (may be NULL). */
int ctl_bus_call(Ctl *c, const CtlErrorContext *ctx, const char *path, const char *iface, const char *member,
                 sd_bus_message **ret_reply, const char *types, ...);

/* Reads one property value (the variant's contents, already entered) into
 * the field at *field.  Returns 0 or a negative errno. */
typedef int (*PropParser)(sd_bus_message *m, void *field);

typedef struct PropMap {
        const char *name;
        const char *signature;   /* properties with another signature are skipped */
        PropParser parse;
        size_t offset;           /* of the field inside the target struct */
} PropMap;

/* Calls org.freedesktop.DBus.Properties.GetAll(iface) on path and stores each
 * property listed in map (terminated by a NULL name) into base + offset;
 * unknown properties are skipped (newer daemons may add some).  On failure
 * prints the error explained with ctx and returns a negative errno. */
int ctl_bus_get_all(Ctl *c, const CtlErrorContext *ctx, const char *path, const char *iface,
                    const PropMap *map, void *base);

/* ctl_bus_get_all() of an object that may vanish meanwhile (a pin that
 * ended): returns -ENOENT without printing when it is gone. */
int ctl_bus_get_all_if_exists(Ctl *c, const CtlErrorContext *ctx, const char *path, const char *iface,
                              const PropMap *map, void *base);

/* Reads the element (struct or dict entry, already entered) at m.
 * Returns 0 or a negative errno. */
typedef int (*ItemReader)(sd_bus_message *m, void *userdata);

/* Reads an array of structs (type 'r') or dict entries (type 'e') whose
 * members are contents ("ut", "sv"), calling read_item on each element.
 * Returns 0 or a negative errno. */
int ctl_bus_read_array(sd_bus_message *m, char type, const char *contents, ItemReader read_item,
                       void *userdata);

/* Parsers for plain types: s → char * (strdup'ed), as/ao → char ** (NULL
 * terminated), u → uint32_t, i → int32_t, t → uint64_t, b → bool, d → double. */
int prop_parse_string(sd_bus_message *m, void *field);
int prop_parse_strv(sd_bus_message *m, void *field);
int prop_parse_u32(sd_bus_message *m, void *field);
int prop_parse_i32(sd_bus_message *m, void *field);
int prop_parse_u64(sd_bus_message *m, void *field);
int prop_parse_bool(sd_bus_message *m, void *field);
int prop_parse_double(sd_bus_message *m, void *field);
