/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl-bus.h"
#include "ctl-json.h"
#include "ctl-util.h"

/* Where scripts/run-here keeps its private bus and the env file for a shell. */
#define RUN_HERE_DIR_DEFAULT "/run/idlepolicyd-here"

void ctl_bus_run_here_hint(char *buf, size_t size) {
        const char *dir = getenv("RUN_HERE_DIR"), *address = getenv("DBUS_SYSTEM_BUS_ADDRESS");
        char env[512], socket[512];

        if (!dir || !dir[0])
                dir = RUN_HERE_DIR_DEFAULT;
        snprintf(env, sizeof(env), "%s/env", dir);
        snprintf(socket, sizeof(socket), "%s/system_bus_socket", dir);
        if (access(env, F_OK) == 0 && !(address && strstr(address, socket)))
                snprintf(buf, size, "scripts/run-here started one: '. %s' in this shell puts idlepolicyctl on "
                         "PATH and sets the bus it is on", env);
        else
                snprintf(buf, size, "start it with 'systemctl start idlepolicyd', or from a checkout "
                         "'sudo ./scripts/run-here'");
}

int ctl_bus_open(Ctl *c) {
        const char *address;
        char message[1024], hint[512];
        int r;

        if (c->bus)
                return 0;
        r = sd_bus_open_system(&c->bus);
        if (r >= 0 || c->quiet)
                return r < 0 ? r : 0;
        address = getenv("DBUS_SYSTEM_BUS_ADDRESS");
        ctl_bus_run_here_hint(hint, sizeof(hint));
        snprintf(message, sizeof(message), "cannot connect to the system bus (%s): %s; so no idlepolicyd either: %s",
                 address ? address : "unix:path=/run/dbus/system_bus_socket", strerror(-r), hint);
        fprintf(stderr, "idlepolicyctl: %s\n", message);
        if (c->json)
                (void) ctl_json_print_error(NULL, message);
        return r;
}

/* Prints the failed call's error with the hint c->error_hint gives;
 * nothing while c->quiet (the hint's own calls among them).  Returns r. */
static int print_failure(Ctl *c, const sd_bus_error *error, int r, const CtlErrorContext *ctx) {
        CtlErrorContext with = *ctx;
        char hint[512] = "";

        if (c->quiet)
                return r;
        if (c->error_hint) {
                c->quiet = true;
                c->error_hint(c, error, ctx, hint, sizeof(hint));
                c->quiet = false;
                with.hint = hint;
        }
        return ctl_error_print(error, r, &with, c->json);
}

/* Calls member on path/iface with the arguments of ap.  Returns 0 with
 * the reply in *ret_reply (if not NULL), or a negative errno (printed). */
static int ctl_bus_callv(Ctl *c, const CtlErrorContext *ctx, const char *path, const char *iface, const char *member,
                         sd_bus_message **ret_reply, const char *types, va_list ap) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = ctl_bus_open(c);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_call(c->bus, &m, IDLEPOLICY_BUS_NAME, path, iface, member);
        if (r >= 0)
                r = sd_bus_message_appendv(m, types, ap);
        if (r >= 0)
                r = sd_bus_message_set_allow_interactive_authorization(m, c->ask_password);
        if (r < 0)
                return ctl_error_print(NULL, r, ctx, c->json);
        r = sd_bus_call(c->bus, m, 0, &error, &reply);
        if (r < 0)
                return print_failure(c, &error, r, ctx);
        if (ret_reply)
                *ret_reply = TAKE_PTR(reply);
        return 0;
}

int ctl_bus_call_manager(Ctl *c, const CtlErrorContext *ctx, const char *member, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = ctl_bus_callv(c, ctx, IDLEPOLICY_MANAGER_PATH, IDLEPOLICY_MANAGER_IFACE, member, NULL, types, ap);
        va_end(ap);
        return r;
}

int ctl_bus_call(Ctl *c, const CtlErrorContext *ctx, const char *path, const char *iface, const char *member,
                 sd_bus_message **ret_reply, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = ctl_bus_callv(c, ctx, path, iface, member, ret_reply, types, ap);
        va_end(ap);
        return r;
}

/* Returns the map entry for name, or NULL. */
static const PropMap *prop_map_find(const PropMap *map, const char *name) {
        for (; map->name; map++)
                if (strcmp(map->name, name) == 0)
                        return map;
        return NULL;
}

int ctl_bus_read_array(sd_bus_message *m, char type, const char *contents, ItemReader read_item,
                       void *userdata) {
        char signature[64];
        int r;

        if (type == 'e')
                snprintf(signature, sizeof(signature), "{%s}", contents);
        else
                snprintf(signature, sizeof(signature), "(%s)", contents);
        r = sd_bus_message_enter_container(m, 'a', signature);
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, type, contents)) > 0) {
                r = read_item(m, userdata);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

typedef struct PropTarget {
        const PropMap *map;
        void *base;
} PropTarget;

/* Reads one {sv} dict entry (already entered) into the PropTarget.
 * Returns 0 or a negative errno. */
static int read_property(sd_bus_message *m, void *userdata) {
        const PropTarget *t = userdata;
        const char *name, *contents;
        const PropMap *p;
        int r;

        r = sd_bus_message_read(m, "s", &name);
        if (r < 0)
                return r;
        r = sd_bus_message_peek_type(m, NULL, &contents);
        if (r < 0)
                return r;
        p = prop_map_find(t->map, name);
        if (!p || strcmp(p->signature, contents) != 0)
                return sd_bus_message_skip(m, "v");
        r = sd_bus_message_enter_container(m, 'v', contents);
        if (r < 0)
                return r;
        r = p->parse(m, (char *) t->base + p->offset);
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

/* GetAll; a missing object with missing_ok is -ENOENT, not printed. */
static int get_all(Ctl *c, const CtlErrorContext *ctx, const char *path, const char *iface,
                   const PropMap *map, void *base, bool missing_ok) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = ctl_bus_open(c);
        if (r < 0)
                return r;
        r = sd_bus_call_method(c->bus, IDLEPOLICY_BUS_NAME, path, "org.freedesktop.DBus.Properties",
                               "GetAll", &error, &reply, "s", iface);
        if (r < 0 && missing_ok && (sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_OBJECT) ||
                                    sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_INTERFACE)))
                return -ENOENT;
        if (r < 0)
                return print_failure(c, &error, r, ctx);
        r = ctl_bus_read_array(reply, 'e', "sv", read_property, &(PropTarget) { map, base });
        if (r < 0) {
                CtlErrorContext bad = *ctx;
                bad.action = "parse the daemon's reply";
                return c->quiet ? r : ctl_error_print(NULL, r, &bad, c->json);
        }
        return 0;
}

int ctl_bus_get_all(Ctl *c, const CtlErrorContext *ctx, const char *path, const char *iface,
                    const PropMap *map, void *base) {
        return get_all(c, ctx, path, iface, map, base, false);
}

int ctl_bus_get_all_if_exists(Ctl *c, const CtlErrorContext *ctx, const char *path, const char *iface,
                              const PropMap *map, void *base) {
        return get_all(c, ctx, path, iface, map, base, true);
}

int prop_parse_string(sd_bus_message *m, void *field) {
        const char *s;
        char *copy;
        int r;

        r = sd_bus_message_read_basic(m, 's', &s);
        if (r < 0)
                return r;
        copy = strdup(s);
        if (!copy)
                return -ENOMEM;
        free(*(char **) field);
        *(char **) field = copy;
        return 0;
}

int prop_parse_strv(sd_bus_message *m, void *field) {
        char **l = NULL;
        int r;

        /* sd_bus_message_read_strv() accepts "as", "ao" and "ag" alike. */
        r = sd_bus_message_read_strv(m, &l);
        if (r < 0)
                return r;
        strv_free(*(char ***) field);
        *(char ***) field = l;
        return 0;
}

int prop_parse_u32(sd_bus_message *m, void *field) {
        return sd_bus_message_read_basic(m, 'u', field);
}

int prop_parse_i32(sd_bus_message *m, void *field) {
        return sd_bus_message_read_basic(m, 'i', field);
}

int prop_parse_u64(sd_bus_message *m, void *field) {
        return sd_bus_message_read_basic(m, 't', field);
}

int prop_parse_bool(sd_bus_message *m, void *field) {
        int b, r;

        r = sd_bus_message_read_basic(m, 'b', &b);
        if (r < 0)
                return r;
        *(bool *) field = b;
        return 0;
}

int prop_parse_double(sd_bus_message *m, void *field) {
        return sd_bus_message_read_basic(m, 'd', field);
}
