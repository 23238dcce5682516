/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A unit's AllowedCPUs through systemd's D-Bus API, and the moment the
 * unit stops (systemd-unit.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "pin-target.h"
#include "systemd-unit.h"

#define PROPERTIES_INTERFACE "org.freedesktop.DBus.Properties"

/* The unit types with a cgroup, and the interface of each that carries
 * AllowedCPUs (systemd's bus_cgroup_vtable is appended to these). */
static const struct {
        const char *suffix, *interface;
} cgroup_types[] = {
        { ".service", SYSTEMD_BUS_NAME ".Service" },
        { ".scope", SYSTEMD_BUS_NAME ".Scope" },
        { ".slice", SYSTEMD_BUS_NAME ".Slice" },
        { ".socket", SYSTEMD_BUS_NAME ".Socket" },
        { ".mount", SYSTEMD_BUS_NAME ".Mount" },
        { ".swap", SYSTEMD_BUS_NAME ".Swap" },
};

/* The bus errors this file tells apart, and what each means here. */
static const struct {
        const char *name;
        int error;
        const char *what;
} bus_errors[] = {
        { SD_BUS_ERROR_SERVICE_UNKNOWN, EHOSTUNREACH, "systemd is not on the bus" },
        { SD_BUS_ERROR_NAME_HAS_NO_OWNER, EHOSTUNREACH, "systemd is not on the bus" },
        { SYSTEMD_BUS_NAME ".NoSuchUnit", ENOENT, "no such unit" },
        { SD_BUS_ERROR_UNKNOWN_OBJECT, ENOENT, "no such unit" },
        { SD_BUS_ERROR_ACCESS_DENIED, EACCES, "access denied" },
        { SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED, EACCES, "access denied" },
        { SD_BUS_ERROR_UNKNOWN_PROPERTY, EOPNOTSUPP, "this systemd has no AllowedCPUs there" },
        { SD_BUS_ERROR_UNKNOWN_INTERFACE, EOPNOTSUPP, "this systemd has no AllowedCPUs there" },
        { SD_BUS_ERROR_PROPERTY_READ_ONLY, EOPNOTSUPP, "this systemd cannot set AllowedCPUs there" },
        { SD_BUS_ERROR_NO_REPLY, ETIMEDOUT, "systemd did not answer" },
        { SD_BUS_ERROR_TIMEOUT, ETIMEDOUT, "systemd did not answer" },
        { SD_BUS_ERROR_INVALID_ARGS, EINVAL, "systemd refused the value" },
};

const char *systemd_unit_interface(const char *unit) {
        const char *dot = strrchr(unit, '.');

        for (size_t i = 0; dot && i < ELEMENTSOF(cgroup_types); i++)
                if (strcmp(dot, cgroup_types[i].suffix) == 0)
                        return cgroup_types[i].interface;
        return NULL;
}

/* Returns 0, or -EINVAL with e set for a name pin_target_parse() refuses
 * or would spell otherwise. */
static int unit_name_valid(const char *unit, ErrorInfo *e) {
        char text[PIN_TARGET_UNIT_MAX + 8];
        ErrorInfo why = {};
        PinTarget t;

        if ((size_t) snprintf(text, sizeof(text), "unit:%s", unit) >= sizeof(text))
                return errinfo_set(e, -EINVAL, "Invalid unit name: longer than %d bytes", PIN_TARGET_UNIT_MAX);
        if (pin_target_parse(text, &t, &why) < 0)
                return errinfo_set(e, -EINVAL, "%s", why.message);
        if (strcmp(t.value, unit) != 0)
                return errinfo_set(e, -EINVAL, "Invalid unit name \"%s\"", unit);
        return 0;
}

/* Returns 0, -EINVAL or -EOPNOTSUPP with e set. */
int systemd_unit_check_name(const char *unit, ErrorInfo *e) {
        int r = unit_name_valid(unit, e);

        if (r < 0)
                return r;
        if (!systemd_unit_interface(unit))
                return errinfo_set(e, -EOPNOTSUPP, "The unit %s has no cgroup: a %s has no processes to pin", unit,
                                   strrchr(unit, '.') + 1);
        return 0;
}

/* Returns true for the errors of a bus connection that is gone. */
static bool is_disconnected(int r) {
        return r == -ENOTCONN || r == -ECONNRESET || r == -ECONNREFUSED || r == -ESHUTDOWN || r == -EPIPE;
}

/* Turns a failed call (r, and error when the peer answered with one) into
 * one of the header's errors with e saying "Failed to WHAT UNIT: ...".
 * Returns that error. */
static int call_failed(int r, const sd_bus_error *error, const char *what, const char *unit, ErrorInfo *e) {
        if (r == -ENOMEM)
                return errinfo_set(e, -ENOMEM, "Out of memory");
        /* before the names: sd-bus names its own errors System.Error.E* */
        if (is_disconnected(r))
                return errinfo_set(e, -EHOSTUNREACH, "Failed to %s %s: the bus connection is gone", what, unit);
        for (size_t i = 0; sd_bus_error_is_set(error) && i < ELEMENTSOF(bus_errors); i++)
                if (sd_bus_error_has_name(error, bus_errors[i].name))
                        return errinfo_set(e, -bus_errors[i].error, "Failed to %s %s: %s (%s)", what, unit,
                                           bus_errors[i].what, error->message ? error->message : error->name);
        if (sd_bus_error_is_set(error))
                return errinfo_set(e, -EIO, "Failed to %s %s: %s: %s", what, unit, error->name,
                                   error->message ? error->message : "no message");
        if (r == -ETIMEDOUT)
                return errinfo_set(e, -ETIMEDOUT, "Failed to %s %s: systemd did not answer", what, unit);
        return errinfo_set(e, -EIO, "Failed to %s %s: %s", what, unit, strerror(-negative_errno(r)));
}

/* Sends m and waits for the reply (SYSTEMD_UNIT_TIMEOUT_USEC).  Returns 0
 * with it in *ret_reply (may be NULL), or an error above with e set. */
static int call(sd_bus *bus, sd_bus_message *m, const char *what, const char *unit, sd_bus_message **ret_reply,
                ErrorInfo *e) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = sd_bus_call(bus, m, SYSTEMD_UNIT_TIMEOUT_USEC, &error, ret_reply);

        return r < 0 ? call_failed(r, &error, what, unit, e) : 0;
}

/* Calls method of interface on path of systemd with up to two string
 * arguments (arg, arg2; NULL: none).  Returns 0 with the reply, or an
 * error above. */
static int call_method(sd_bus *bus, const char *path, const char *interface, const char *method, const char *arg,
                       const char *arg2, const char *what, const char *unit, sd_bus_message **ret_reply,
                       ErrorInfo *e) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        if (!bus)
                return errinfo_set(e, -EHOSTUNREACH, "Failed to %s %s: no system bus", what, unit);
        r = sd_bus_message_new_method_call(bus, &m, SYSTEMD_BUS_NAME, path, interface, method);
        if (r >= 0 && arg)
                r = sd_bus_message_append(m, "s", arg);
        if (r >= 0 && arg2)
                r = sd_bus_message_append(m, "s", arg2);
        if (r < 0)
                return call_failed(r, NULL, what, unit, e);
        return call(bus, m, what, unit, ret_reply, e);
}

/* Reads property name (of D-Bus type sig) of interface on path into
 * *ret_reply, entered into its variant.  Returns 0 or an error above. */
static int get_property(sd_bus *bus, const char *path, const char *interface, const char *name, const char *sig,
                        const char *what, const char *unit, sd_bus_message **ret_reply, ErrorInfo *e) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = call_method(bus, path, PROPERTIES_INTERFACE, "Get", interface, name, what, unit, &reply, e);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'v', sig);
        if (r <= 0)
                return errinfo_set(e, -EIO, "Failed to %s %s: %s is not of type \"%s\"", what, unit, name, sig);
        *ret_reply = TAKE_PTR(reply);
        return 0;
}

/* Reads a string property into buf (size bytes).  Returns 0 or an error
 * above. */
static int get_string(sd_bus *bus, const char *path, const char *interface, const char *name, const char *what,
                      const char *unit, char *buf, size_t size, ErrorInfo *e) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *s;
        int r;

        r = get_property(bus, path, interface, name, "s", what, unit, &reply, e);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "s", &s);
        if (r < 0)
                return call_failed(r, NULL, what, unit, e);
        snprintf(buf, size, "%s", s);
        return 0;
}

/* The object path of unit, if systemd has it loaded (GetUnit, which never
 * loads one).  Returns 0 with a copy in *ret_path, or an error above
 * (-ENOENT: not loaded, or its LoadState is not "loaded"). */
static int unit_path_loaded(sd_bus *bus, const char *unit, const char *what, char **ret_path, ErrorInfo *e) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *path = NULL;
        const char *p;
        char state[64];
        int r;

        r = call_method(bus, SYSTEMD_OBJECT_PATH, SYSTEMD_MANAGER_INTERFACE, "GetUnit", unit, NULL, what, unit,
                        &reply, e);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "o", &p);
        if (r < 0)
                return call_failed(r, NULL, what, unit, e);
        path = strdup(p);
        if (!path)
                return errinfo_set(e, -ENOMEM, "Out of memory");
        r = get_string(bus, path, SYSTEMD_UNIT_INTERFACE, "LoadState", what, unit, state, sizeof(state), e);
        if (r < 0)
                return r;
        if (strcmp(state, "loaded") != 0)
                return errinfo_set(e, -ENOENT, "Failed to %s %s: no such unit (its load state is \"%s\")", what, unit,
                                   state);
        *ret_path = TAKE_PTR(path);
        return 0;
}

/* Returns 0 or an error above. */
int systemd_unit_get_allowed_cpus(sd_bus *bus, const char *unit, CpuSet *ret, bool *ret_set, ErrorInfo *e) {
        static const char what[] = "read AllowedCPUs of";
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *path = NULL;
        const void *mask;
        size_t len;
        CpuSet s;
        int r;

        r = systemd_unit_check_name(unit, e);
        if (r >= 0)
                r = unit_path_loaded(bus, unit, what, &path, e);
        if (r >= 0)
                r = get_property(bus, path, systemd_unit_interface(unit), "AllowedCPUs", "ay", what, unit, &reply, e);
        if (r < 0)
                return r;
        r = sd_bus_message_read_array(reply, 'y', &mask, &len);
        if (r < 0)
                return call_failed(r, NULL, what, unit, e);
        if (cpuset_from_mask(mask, len, &s) < 0)
                return errinfo_set(e, -EIO, "Failed to %s %s: it names a CPU beyond %u", what, unit, CPUSET_MAX - 1);
        *ret = s;
        *ret_set = cpuset_count(&s) > 0;
        return 0;
}

/* Appends [("AllowedCPUs", <ay mask>)] to m.  Returns 0 or a negative errno. */
static int append_allowed_cpus(sd_bus_message *m, const CpuSet *cpus) {
        uint8_t mask[CPUSET_MASK_MAX];
        size_t len;
        int r;

        r = cpuset_to_mask(cpus, mask, sizeof(mask), &len);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(sv)");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'r', "sv");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", "AllowedCPUs");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'v', "ay");
        if (r >= 0)
                r = sd_bus_message_append_array(m, 'y', mask, len);
        for (unsigned i = 0; r >= 0 && i < 3; i++)
                r = sd_bus_message_close_container(m);
        return r;
}

/* Returns 0 or an error above. */
int systemd_unit_set_allowed_cpus(sd_bus *bus, const char *unit, const CpuSet *cpus, ErrorInfo *e) {
        static const char what[] = "set AllowedCPUs of";
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = systemd_unit_check_name(unit, e);
        if (r < 0)
                return r;
        if (!bus)
                return errinfo_set(e, -EHOSTUNREACH, "Failed to %s %s: no system bus", what, unit);
        r = sd_bus_message_new_method_call(bus, &m, SYSTEMD_BUS_NAME, SYSTEMD_OBJECT_PATH, SYSTEMD_MANAGER_INTERFACE,
                                           "SetUnitProperties");
        if (r >= 0)
                r = sd_bus_message_append(m, "sb", unit, 1);
        if (r >= 0)
                r = append_allowed_cpus(m, cpus);
        if (r < 0)
                return call_failed(r, NULL, what, unit, e);
        return call(bus, m, what, unit, NULL, e);
}

/* Returns true for the ActiveStates of a unit without processes. */
static bool state_is_stopped(const char *state) {
        return strcmp(state, "inactive") == 0 || strcmp(state, "failed") == 0;
}

/* Returns 1, 0 or an error above. */
int systemd_unit_is_active(sd_bus *bus, const char *unit, ErrorInfo *e) {
        static const char what[] = "read the state of";
        _cleanup_free_ char *path = NULL;
        char state[64];
        int r;

        r = unit_name_valid(unit, e);
        if (r >= 0)
                r = unit_path_loaded(bus, unit, what, &path, e);
        if (r == -ENOENT)
                return 0;
        if (r >= 0)
                r = get_string(bus, path, SYSTEMD_UNIT_INTERFACE, "ActiveState", what, unit, state, sizeof(state), e);
        return r < 0 ? r : !state_is_stopped(state);
}

struct SystemdUnitWatch {
        char *unit;
        char *path;                    /* its object (GetUnit's answer: an alias's is its unit's) */
        sd_bus_slot *changed_slot;     /* PropertiesChanged on path */
        sd_bus_slot *removed_slot;     /* UnitRemoved on the manager */
        sd_bus_slot *state_slot;       /* the first read of ActiveState */
        SystemdUnitWatchStop on_stop;
        void *userdata;
        bool stopped;                  /* on_stop was called */
};

/* Calls on_stop, once.  w may be freed when this returns. */
static void watch_stop(SystemdUnitWatch *w, const char *why) {
        if (w->stopped)
                return;
        w->stopped = true;
        w->on_stop(w->unit, why, w->userdata);
}

/* Finds ActiveState in the a{sv} at m's read position.  Returns 1 with it
 * in *ret, 0 if it is not there, or a negative errno. */
static int find_active_state(sd_bus_message *m, const char **ret) {
        const char *name;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        while (r > 0) {
                r = sd_bus_message_enter_container(m, 'e', "sv");
                if (r <= 0)
                        break;
                r = sd_bus_message_read(m, "s", &name);
                if (r >= 0 && strcmp(name, "ActiveState") == 0) {
                        r = sd_bus_message_read(m, "v", "s", ret);
                        return r < 0 ? r : 1;
                }
                if (r >= 0)
                        r = sd_bus_message_skip(m, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
        }
        return r < 0 ? r : 0;
}

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        SystemdUnitWatch *w = userdata;
        const char *interface, *state;

        if (sd_bus_message_read(m, "s", &interface) < 0 || strcmp(interface, SYSTEMD_UNIT_INTERFACE) != 0)
                return 0;
        if (find_active_state(m, &state) > 0 && state_is_stopped(state))
                watch_stop(w, state);
        return 0;
}

static int on_unit_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        SystemdUnitWatch *w = userdata;
        const char *id, *path;

        if (sd_bus_message_read(m, "so", &id, &path) >= 0 && (strcmp(path, w->path) == 0 || strcmp(id, w->unit) == 0))
                watch_stop(w, "removed");
        return 0;
}

/* The answer to the first read of ActiveState. */
static int on_state(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        SystemdUnitWatch *w = userdata;
        const sd_bus_error *error = sd_bus_message_get_error(m);
        const char *state;
        ErrorInfo e = {};

        w->state_slot = sd_bus_slot_unref(w->state_slot);
        if (error) {
                if (call_failed(-EIO, error, "read the state of", w->unit, &e) == -ENOENT)
                        watch_stop(w, "removed");
                else
                        log_warning("%s; its stop is seen from systemd's signals only.", e.message);
                return 0;
        }
        if (sd_bus_message_read(m, "v", "s", &state) >= 0 && state_is_stopped(state))
                watch_stop(w, state);
        return 0;
}

/* The bus's answer to AddMatch: a match it refused would leave the stop
 * unseen. */
static int on_match_added(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        SystemdUnitWatch *w = userdata;
        const sd_bus_error *error = sd_bus_message_get_error(m);

        if (!error)
                return 0;
        log_error("Failed to watch the unit %s: the bus refused a match (%s: %s), treating it as stopped.", w->unit,
                  error->name, error->message ? error->message : "no message");
        watch_stop(w, "unwatched");
        return 0;
}

/* Adds the matches, subscribes and asks for ActiveState, in this order on
 * one connection: a stop after systemd answered is signalled to a match
 * already in place.  Returns 0 or a negative errno of sd-bus. */
static int watch_start(SystemdUnitWatch *w, sd_bus *bus) {
        int r;

        r = sd_bus_match_signal_async(bus, &w->changed_slot, SYSTEMD_BUS_NAME, w->path, PROPERTIES_INTERFACE,
                                      "PropertiesChanged", on_properties_changed, on_match_added, w);
        if (r >= 0)
                r = sd_bus_match_signal_async(bus, &w->removed_slot, SYSTEMD_BUS_NAME, SYSTEMD_OBJECT_PATH,
                                              SYSTEMD_MANAGER_INTERFACE, "UnitRemoved", on_unit_removed, on_match_added,
                                              w);
        /* No reply wanted: a second watch's AlreadySubscribed is no news. */
        if (r >= 0)
                r = sd_bus_call_method_async(bus, NULL, SYSTEMD_BUS_NAME, SYSTEMD_OBJECT_PATH,
                                             SYSTEMD_MANAGER_INTERFACE, "Subscribe", NULL, NULL, "");
        if (r >= 0)
                r = sd_bus_call_method_async(bus, &w->state_slot, SYSTEMD_BUS_NAME, w->path, PROPERTIES_INTERFACE,
                                             "Get", on_state, w, "ss", SYSTEMD_UNIT_INTERFACE, "ActiveState");
        return r;
}

int systemd_unit_watch_new(sd_bus *bus, const char *unit, SystemdUnitWatchStop on_stop, void *userdata,
                           SystemdUnitWatch **ret, ErrorInfo *e) {
        _cleanup_(systemd_unit_watch_freep) SystemdUnitWatch *w = NULL;
        int r;

        r = unit_name_valid(unit, e);
        if (r < 0)
                return r;
        w = calloc(1, sizeof(SystemdUnitWatch));
        if (!w || !(w->unit = strdup(unit)))
                return errinfo_set(e, -ENOMEM, "Out of memory");
        w->on_stop = on_stop;
        w->userdata = userdata;
        r = unit_path_loaded(bus, unit, "watch", &w->path, e);
        if (r < 0)
                return r;
        r = watch_start(w, bus);
        if (r < 0)
                return call_failed(r, NULL, "watch", unit, e);
        *ret = TAKE_PTR(w);
        return 0;
}

const char *systemd_unit_watch_get_unit(const SystemdUnitWatch *w) {
        return w->unit;
}

SystemdUnitWatch *systemd_unit_watch_free(SystemdUnitWatch *w) {
        if (!w)
                return NULL;
        sd_bus_slot_unref(w->changed_slot);
        sd_bus_slot_unref(w->removed_slot);
        sd_bus_slot_unref(w->state_slot);
        free(w->path);
        free(w->unit);
        free(w);
        return NULL;
}

void systemd_unit_watch_freep(SystemdUnitWatch **w) {
        systemd_unit_watch_free(*w);
}
