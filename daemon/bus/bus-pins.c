/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pin, Unpin, Hold, Release and their properties and signals on the
 * Manager; the holders' tracking (bus-pins.h).  The pin objects are in
 * bus-pin.c. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "bus-error.h"
#include "bus-util.h"
#include "bus-manager.h"
#include "bus-pins.h"
#include "bus-pins-internal.h"
#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "process-owner.h"


/* A client holding profiles, watched until it leaves the bus. */
typedef struct HoldOwner {
        BusPins *bus_pins;
        char *name;                     /* its unique bus name */
        sd_bus_track *track;
} HoldOwner;

static HoldOwner *hold_owner_free(HoldOwner *o) {
        if (!o)
                return NULL;
        sd_bus_track_unref(o->track);
        free(o->name);
        free(o);
        return NULL;
}

/* Returns the index of the watch of name, or -1. */
static ssize_t owner_index(const BusPins *bp, const char *name) {
        for (size_t i = 0; i < bp->n_owners; i++)
                if (strcmp(bp->owners[i]->name, name) == 0)
                        return (ssize_t) i;
        return -1;
}

static void owner_remove_at(BusPins *bp, size_t i) {
        hold_owner_free(bp->owners[i]);
        bp->owners[i] = bp->owners[--bp->n_owners];
}

/* The holder left the bus: its holds go. */
static int on_owner_gone(sd_bus_track *track, void *userdata) {
        HoldOwner *o = userdata;
        BusPins *bp = o->bus_pins;
        unsigned n = pins_release_owner(bp->manager->pinning.pins, o->name);
        ssize_t i = owner_index(bp, o->name);

        log_debug("%s left the bus, released its %u hold(s).", o->name, n);
        if (i >= 0)
                owner_remove_at(bp, (size_t) i);
        return 0;
}

/* Watches name (a holder) unless it is already watched.  Returns 0, or a
 * negative errno (-ENXIO and the like: the name has already left). */
static int owner_watch(BusPins *bp, const char *name) {
        HoldOwner *o;
        int r;

        if (owner_index(bp, name) >= 0)
                return 0;
        r = array_reserve_one((void **) &bp->owners, bp->n_owners, &bp->allocated, sizeof(HoldOwner *));
        if (r < 0)
                return r;
        o = calloc(1, sizeof(HoldOwner));
        if (!o)
                return -ENOMEM;
        o->bus_pins = bp;
        o->name = strdup(name);
        r = o->name ? sd_bus_track_new(bp->manager->bus, &o->track, on_owner_gone, o) : -ENOMEM;
        if (r >= 0)
                r = sd_bus_track_add_name(o->track, name);
        if (r < 0) {
                hold_owner_free(o);
                return r;
        }
        bp->owners[bp->n_owners++] = o;
        return 0;
}

/* Stops watching name once it holds nothing. */
static void owner_unwatch_if_idle(BusPins *bp, const char *name) {
        ssize_t i = owner_index(bp, name);

        if (i < 0)
                return;
        PIN_REGISTRY_FOREACH_HOLD(h, pins_registry(bp->manager->pinning.pins))
                if (strcmp(h->owner, name) == 0)
                        return;
        owner_remove_at(bp, (size_t) i);
}

/* Drops every watch (the daemon is exiting; the tracks hold the bus). */
static void owners_free(BusPins *bp) {
        while (bp->n_owners > 0)
                owner_remove_at(bp, bp->n_owners - 1);
        free(bp->owners);
        bp->owners = NULL;
        bp->allocated = 0;
}

static int on_event_exit(sd_event_source *s, void *userdata) {
        owners_free(userdata);
        return 0;
}

static void bus_pins_free(void *userdata) {
        BusPins *bp = userdata;

        owners_free(bp);
        free(bp);
}

/* Returns 0 or a negative errno with error set. */
int bus_check_text(const char *what, const char *s, size_t max, sd_bus_error *error) {
        if (strlen(s) >= max)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "The %s is longer than %zu bytes", what, max - 1);
        for (const char *c = s; *c; c++)
                if ((unsigned char) *c < 0x20 || *c == 0x7f)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "The %s contains a control character", what);
        return 0;
}

/* The polkit action for pinning target as uid: pin-own-process when target
 * is a process uid owns (its pidfd then in *ret_pidfd), else pin. */
static const char *pin_action(const char *target, uid_t uid, int *ret_pidfd) {
        PinTarget t;
        int fd = -1;

        if (uid == 0 || pin_target_parse(target, &t, NULL) < 0 || t.kind != PIN_TARGET_PID)
                return ACTION_PIN;
        if (process_owner_check(t.pid, uid, &fd) <= 0) {
                fileio_closep(&fd);
                return ACTION_PIN;
        }
        *ret_pidfd = fd;
        return ACTION_PIN_OWN;
}

/* Pins and replies with the pin's path.  Returns what a handler returns. */
static int pin_call(BusPins *bp, sd_bus_message *message, const char *target, const char *cpus, const char *profile,
                    const char *reason, sd_bus_error *error) {
        _cleanup_(fileio_closep) int pidfd = -1;
        Manager *m = bp->manager;
        ErrorInfo e = {};
        char path[128];
        uint64_t now = 0;
        uint32_t id;
        uid_t uid;
        int r;

        r = bus_check_text("reason", reason, sizeof(((Pin *) NULL)->reason), error);
        if (r >= 0)
                r = bus_sender_uid(message, &uid, error);
        if (r >= 0)
                r = bus_authorize(m, message, pin_action(target, uid, &pidfd), error);
        if (r <= 0)
                return r < 0 ? r : 1;
        (void) sd_event_now(m->event, CLOCK_REALTIME, &now);
        r = pins_pin(m->pinning.pins, target, cpus, profile, uid, reason, now, &id, &e);
        if (r < 0)
                return bus_error_from_errno(error, r, &e, &bus_errors_pin);
        /* Pinned as the caller's own process: it must still be the one
         * checked, not another that took its PID. */
        if (pidfd >= 0 && !process_pidfd_alive(pidfd)) {
                (void) pins_unpin(m->pinning.pins, id, NULL);
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_PROCESS, "%s exited while being pinned", target);
        }
        pins_object_path(id, path, sizeof(path));
        bus_pin_emit_added(m, path);
        return sd_bus_reply_method_return(message, "o", path);
}

static int method_pin(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        const char *target, *cpus, *profile;
        int r = sd_bus_message_read(message, "sss", &target, &cpus, &profile);

        if (r < 0)
                return r;
        return pin_call(userdata, message, target, cpus, profile, "", error);
}

/* Reads the options of PinWithOptions.  Returns 0 or a negative errno
 * with error set. */
static int read_pin_options(sd_bus_message *message, const char **ret_reason, sd_bus_error *error) {
        const char *key;
        int r;

        r = sd_bus_message_enter_container(message, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(message, 'e', "sv")) > 0) {
                r = sd_bus_message_read(message, "s", &key);
                if (r < 0)
                        return r;
                if (strcmp(key, "reason") != 0)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Unknown option \"%s\"", key);
                r = sd_bus_message_read(message, "v", "s", ret_reason);
                if (r == -ENXIO)
                        return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "The option \"reason\" is a string");
                if (r >= 0)
                        r = sd_bus_message_exit_container(message);
        }
        return r < 0 ? r : sd_bus_message_exit_container(message);
}

static int method_pin_with_options(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        const char *target, *cpus, *profile, *reason = "";
        int r = sd_bus_message_read(message, "sss", &target, &cpus, &profile);

        if (r >= 0)
                r = read_pin_options(message, &reason, error);
        if (r < 0)
                return r;
        return pin_call(userdata, message, target, cpus, profile, reason, error);
}

static int method_unpin(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        const char *path;
        int r = sd_bus_message_read(message, "o", &path);

        return r < 0 ? r : bus_pins_unpin(userdata, message, path, error);
}

static int method_hold(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        BusPins *bp = userdata;
        Manager *m = bp->manager;
        const char *profile, *cpus, *reason, *app_id, *sender = sd_bus_message_get_sender(message);
        ErrorInfo e = {};
        uint32_t cookie;
        uid_t uid;
        int r;

        r = sd_bus_message_read(message, "ssss", &profile, &cpus, &reason, &app_id);
        if (r >= 0)
                r = bus_check_text("reason", reason, sizeof(((Hold *) NULL)->reason), error);
        if (r >= 0)
                r = bus_check_text("application id", app_id, sizeof(((Hold *) NULL)->app_id), error);
        if (r >= 0 && !sender)
                r = sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "A hold needs a caller on the bus");
        if (r >= 0)
                r = bus_sender_uid(message, &uid, error);
        if (r >= 0)
                r = bus_authorize(m, message, ACTION_HOLD, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        r = owner_watch(bp, sender);
        if (r < 0)
                return r == -ENOMEM ? r : sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "Failed to watch %s on the bus: %s",
                                                            sender, strerror(-r));
        r = pins_hold(m->pinning.pins, profile, cpus, reason, app_id, sender, uid, &cookie, &e);
        if (r < 0) {
                owner_unwatch_if_idle(bp, sender);
                return bus_error_from_errno(error, r, &e, &bus_errors_hold);
        }
        return sd_bus_reply_method_return(message, "u", cookie);
}

static int method_release(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        BusPins *bp = userdata;
        Manager *m = bp->manager;
        const char *sender = sd_bus_message_get_sender(message);
        char owner[sizeof(((Hold *) NULL)->owner)];
        const Hold *h;
        uint32_t cookie;
        int r;

        r = sd_bus_message_read(message, "u", &cookie);
        if (r < 0)
                return r;
        h = pin_registry_hold_find(pins_registry(m->pinning.pins), cookie);
        if (!h)
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_HOLD, "No hold with cookie %u", cookie);
        if (!streq_ptr(h->owner, sender)) {
                r = bus_authorize(m, message, ACTION_PIN, error);
                if (r <= 0)
                        return r < 0 ? r : 1;
        }
        snprintf(owner, sizeof(owner), "%s", h->owner);
        r = pins_release(m->pinning.pins, cookie);
        if (r < 0)
                return bus_error_from_errno(error, r, NULL, &bus_errors_release);
        owner_unwatch_if_idle(bp, owner);
        return sd_bus_reply_method_return(message, NULL);
}

static int property_get_pins(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        BusPins *bp = userdata;
        int r = sd_bus_message_open_container(reply, 'a', "o");

        PIN_REGISTRY_FOREACH_PIN(p, pins_registry(bp->manager->pinning.pins)) {
                char buf[128];
                if (r >= 0)
                        r = sd_bus_message_append(reply, "o", pins_object_path(p->id, buf, sizeof(buf)));
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int property_get_holds(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        BusPins *bp = userdata;
        int r = sd_bus_message_open_container(reply, 'a', "(usssss)");

        PIN_REGISTRY_FOREACH_HOLD(h, pins_registry(bp->manager->pinning.pins)) {
                _cleanup_free_ char *cpus = NULL;
                if (r >= 0)
                        r = bus_format_cpus(h->cpus_given ? &h->cpus : &(CpuSet) {}, &cpus);
                if (r >= 0)
                        r = sd_bus_message_append(reply, "(usssss)", h->cookie, h->profile, cpus, h->reason,
                                                  h->app_id, h->owner);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static const sd_bus_vtable pins_manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Pins", "ao", property_get_pins, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Holds", "a(usssss)", property_get_holds, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS("Pin", SD_BUS_ARGS("s", target, "s", cpus, "s", profile), SD_BUS_RESULT("o", pin),
                                method_pin, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("PinWithOptions",
                                SD_BUS_ARGS("s", target, "s", cpus, "s", profile, "a{sv}", options),
                                SD_BUS_RESULT("o", pin), method_pin_with_options, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Unpin", SD_BUS_ARGS("o", pin), SD_BUS_NO_RESULT,
                                method_unpin, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Hold", SD_BUS_ARGS("s", profile, "s", cpus, "s", reason, "s", app_id),
                                SD_BUS_RESULT("u", cookie), method_hold, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Release", SD_BUS_ARGS("u", cookie), SD_BUS_NO_RESULT,
                                method_release, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL_WITH_ARGS("PinReleased", SD_BUS_ARGS("o", pin, "s", why), 0),
        SD_BUS_SIGNAL_WITH_ARGS("HoldReleased", SD_BUS_ARGS("u", cookie), 0),
        SD_BUS_VTABLE_END,
};

static void emit_pins_changed(Manager *m) {
        int r;

        if (!m->bus)
                return;
        r = sd_bus_emit_properties_changed(m->bus, BUS_PATH, BUS_MANAGER_INTERFACE, "Pins", "Holds", NULL);
        if (r < 0)
                log_debug_errno(r, "Failed to emit PropertiesChanged for Pins: %m, ignoring");
}

static void emit_pin_released(Manager *m, uint32_t id, const char *why) {
        char path[128];
        int r;

        if (!m->bus)
                return;
        pins_object_path(id, path, sizeof(path));
        r = sd_bus_emit_signal(m->bus, BUS_PATH, BUS_MANAGER_INTERFACE, "PinReleased", "os", path, why);
        if (r < 0)
                log_debug_errno(r, "Failed to emit PinReleased: %m, ignoring");
        bus_pin_emit_removed(m, path);
}

static void emit_hold_released(Manager *m, uint32_t cookie) {
        int r;

        if (!m->bus)
                return;
        r = sd_bus_emit_signal(m->bus, BUS_PATH, BUS_MANAGER_INTERFACE, "HoldReleased", "u", cookie);
        if (r < 0)
                log_debug_errno(r, "Failed to emit HoldReleased: %m, ignoring");
}

/* Returns 0 or a negative errno. */
int bus_pins_register(Manager *m) {
        _cleanup_free_ BusPins *owned = calloc(1, sizeof(BusPins));
        sd_bus_slot *slot;
        BusPins *bp;
        int r;

        assert(m->pinning.pins);
        if (!owned)
                return -ENOMEM;
        owned->manager = m;
        /* A second vtable of the Manager's interface: sd-bus merges them
         * (introspection, GetAll) as long as their userdata differ. */
        r = sd_bus_add_object_vtable(m->bus, &slot, BUS_PATH, BUS_MANAGER_INTERFACE, pins_manager_vtable, owned);
        if (r < 0)
                return r;
        bp = TAKE_PTR(owned);
        (void) sd_bus_slot_set_destroy_callback(slot, bus_pins_free);
        (void) sd_bus_slot_set_floating(slot, 1);
        r = sd_event_add_exit(m->event, NULL, on_event_exit, bp);
        if (r >= 0)
                r = bus_pin_register_objects(bp);
        if (r < 0)
                return r;
        m->events.pins_changed = emit_pins_changed;
        m->events.pin_released = emit_pin_released;
        m->events.hold_released = emit_hold_released;
        return 0;
}
