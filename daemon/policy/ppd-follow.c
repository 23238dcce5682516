/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "manager.h"
#include "manager-ops.h"
#include "manager-policy.h"
#include "ppd-follow.h"

#define DBUS_NAME "org.freedesktop.DBus"
#define PROPERTIES_INTERFACE "org.freedesktop.DBus.Properties"

/* One of power-profiles-daemon's names and what is known of it. */
typedef struct PpdSource {
        const char *name, *path, *interface;
        char *owner;                 /* its unique name, NULL while none owns it */
        sd_bus_slot *owner_match, *properties_match, *pending;
        struct PpdFollow *follow;
} PpdSource;

struct PpdFollow {
        Manager *m;
        PpdSource sources[2];        /* in order of preference */
        char last[PROFILE_NAME_MAX]; /* the ActiveProfile last followed, "" none */
};

static const PpdSource source_names[] = {
        { "org.freedesktop.UPower.PowerProfiles", "/org/freedesktop/UPower/PowerProfiles",
          "org.freedesktop.UPower.PowerProfiles" },
        { "net.hadess.PowerProfiles", "/net/hadess/PowerProfiles", "net.hadess.PowerProfiles" },
};

PpdFollow *ppd_follow_free(PpdFollow *f) {
        if (!f)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(f->sources); i++) {
                PpdSource *s = &f->sources[i];

                sd_bus_slot_unref(s->owner_match);
                sd_bus_slot_unref(s->properties_match);
                sd_bus_slot_unref(s->pending);
                free(s->owner);
        }
        free(f);
        return NULL;
}

/* The source followed: the first with an owner, or NULL. */
static PpdSource *followed(PpdFollow *f) {
        for (size_t i = 0; i < ELEMENTSOF(f->sources); i++)
                if (f->sources[i].owner)
                        return &f->sources[i];
        return NULL;
}

bool ppd_follow_status(const PpdFollow *f, const char **ret_name, const char **ret_profile) {
        *ret_name = NULL;
        *ret_profile = f ? f->last : "";
        for (size_t i = 0; f && i < ELEMENTSOF(f->sources) && !*ret_name; i++)
                if (f->sources[i].owner)
                        *ret_name = f->sources[i].name;
        return f != NULL;
}

/* Remembers profile as the last followed (in the state directory too). */
static void remember(PpdFollow *f, const char *profile) {
        char text[PROFILE_NAME_MAX + 1];

        snprintf(f->last, sizeof(f->last), "%s", profile);
        snprintf(text, sizeof(text), "%s%s", profile, profile[0] ? "\n" : "");
        (void) persist_write_text(&f->m->policy.persist, PPD_FOLLOW_STATE_FILE, text);
        manager_emit(f->m, "FollowPowerProfiles");
}

/* power-profiles-daemon's ActiveProfile is profile now: a change from the
 * last one followed becomes the machine profile. */
static void follow_profile(PpdFollow *f, const char *profile) {
        ErrorInfo e = {};

        if (!profile[0] || strcmp(profile, f->last) == 0)
                return;
        remember(f, profile);
        if (manager_set_profile(f->m, profile, &e) < 0) {
                log_warning("power-profiles-daemon's profile \"%s\" is not one of the daemon's profiles, keeping %s.",
                            profile, manager_profile(f->m)->name);
                return;
        }
        log_info("Following power-profiles-daemon: profile %s.", profile);
}

static int on_get_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        PpdSource *s = userdata;
        const char *profile;
        int r;

        s->pending = sd_bus_slot_unref(s->pending);
        if (sd_bus_message_is_method_error(reply, NULL)) {
                log_debug("Failed to read %s's ActiveProfile: %s, ignoring", s->name,
                          sd_bus_message_get_error(reply)->message);
                return 0;
        }
        r = sd_bus_message_read(reply, "v", "s", &profile);
        if (r < 0)
                log_debug_errno(r, "Bad ActiveProfile from %s: %m, ignoring", s->name);
        else if (followed(s->follow) == s)
                follow_profile(s->follow, profile);
        return 0;
}

/* Asks the source for its ActiveProfile.  Returns 0 or a negative errno. */
static int request_profile(PpdSource *s) {
        s->pending = sd_bus_slot_unref(s->pending);
        return sd_bus_call_method_async(s->follow->m->bus, &s->pending, s->name, s->path, PROPERTIES_INTERFACE, "Get",
                                        on_get_reply, s, "ss", s->interface, "ActiveProfile");
}

/* The owner of s is owner now ("" or NULL: none): a source that comes to
 * be followed, or whose owner changed, is asked for its profile. */
static void set_owner(PpdSource *s, const char *owner) {
        PpdFollow *f = s->follow;
        PpdSource *before = followed(f), *now;
        char *copy;

        if (owner && !owner[0])
                owner = NULL;
        if (streq_ptr(s->owner, owner))
                return;
        copy = owner ? strdup(owner) : NULL;
        if (owner && !copy) {
                log_oom();
                return;
        }
        free(s->owner);
        s->owner = copy;
        now = followed(f);
        if (now == before && now != s)
                return;
        manager_emit(f->m, "FollowPowerProfiles");
        if (!now) {
                log_info("power-profiles-daemon left the bus; the profile stays %s.", manager_profile(f->m)->name);
                return;
        }
        log_info("Following power-profiles-daemon's ActiveProfile on %s.", now->name);
        if (request_profile(now) < 0)
                log_warning("Failed to ask %s for its ActiveProfile, ignoring.", now->name);
}

static int on_name_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        const char *name, *old, *new;

        if (sd_bus_message_read(message, "sss", &name, &old, &new) >= 0)
                set_owner(userdata, new);
        return 0;
}

static int on_get_name_owner(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        PpdSource *s = userdata;
        const char *owner = NULL;

        s->pending = sd_bus_slot_unref(s->pending);
        if (!sd_bus_message_is_method_error(reply, NULL))
                (void) sd_bus_message_read(reply, "s", &owner);
        if (owner)
                set_owner(s, owner);
        return 0;
}

/* Reads the rest of a PropertiesChanged (a{sv}as): *ret_value is the new
 * ActiveProfile (NULL when not among the changed ones) and
 * *ret_invalidated whether it was invalidated instead.  Returns 0 or a
 * negative errno. */
static int changed_profile(sd_bus_message *message, const char **ret_value, bool *ret_invalidated) {
        const char *key;
        char **invalidated = NULL;
        int r;

        *ret_value = NULL;
        r = sd_bus_message_enter_container(message, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(message, 'e', "sv")) > 0) {
                r = sd_bus_message_read(message, "s", &key);
                if (r >= 0 && strcmp(key, "ActiveProfile") == 0)
                        r = sd_bus_message_read(message, "v", "s", ret_value);
                else if (r >= 0)
                        r = sd_bus_message_skip(message, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(message);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(message);
        if (r >= 0)
                r = sd_bus_message_read_strv(message, &invalidated);
        if (r < 0)
                return r;
        *ret_invalidated = false;
        for (char **i = invalidated; i && *i; i++)
                *ret_invalidated |= strcmp(*i, "ActiveProfile") == 0;
        for (char **i = invalidated; i && *i; i++)
                free(*i);
        free(invalidated);
        return 0;
}

static int on_properties_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        PpdSource *s = userdata;
        const char *interface, *profile;
        bool invalidated;

        /* Anyone may send a signal: only the owner followed counts. */
        if (followed(s->follow) != s || !streq_ptr(sd_bus_message_get_sender(message), s->owner))
                return 0;
        if (sd_bus_message_read(message, "s", &interface) < 0 || strcmp(interface, s->interface) != 0)
                return 0;
        if (changed_profile(message, &profile, &invalidated) < 0)
                log_debug("Bad PropertiesChanged from %s, ignoring.", s->name);
        else if (profile)
                follow_profile(s->follow, profile);
        else if (invalidated && request_profile(s) < 0)
                log_debug("Failed to ask %s for its ActiveProfile, ignoring.", s->name);
        return 0;
}

/* Watches s: its owner and its PropertiesChanged, and asks who owns it.
 * Returns 0 or a negative errno. */
static int source_watch(PpdSource *s, sd_bus *bus) {
        char match[512];
        int r;

        snprintf(match, sizeof(match), "type='signal',sender='" DBUS_NAME "',path='/org/freedesktop/DBus',"
                 "interface='" DBUS_NAME "',member='NameOwnerChanged',arg0='%s'", s->name);
        r = sd_bus_add_match_async(bus, &s->owner_match, match, on_name_owner_changed, NULL, s);
        if (r < 0)
                return r;
        snprintf(match, sizeof(match), "type='signal',sender='%s',path='%s',interface='" PROPERTIES_INTERFACE "',"
                 "member='PropertiesChanged',arg0='%s'", s->name, s->path, s->interface);
        r = sd_bus_add_match_async(bus, &s->properties_match, match, on_properties_changed, NULL, s);
        if (r < 0)
                return r;
        return sd_bus_call_method_async(bus, &s->pending, DBUS_NAME, "/org/freedesktop/DBus", DBUS_NAME, "GetNameOwner",
                                        on_get_name_owner, s, "s", s->name);
}

/* The last profile followed, from the state directory ("" none). */
static void load_last(PpdFollow *f) {
        _cleanup_free_ char *text = NULL;
        ErrorInfo e = {};

        if (persist_read_text(&f->m->policy.persist, PPD_FOLLOW_STATE_FILE, PROFILE_NAME_MAX, &text, &e) <= 0)
                return;
        text[strcspn(text, "\n")] = '\0';
        snprintf(f->last, sizeof(f->last), "%s", text);
}

/* Starts following.  Returns 0 or a negative errno (logged). */
static int ppd_follow_new(Manager *m, PpdFollow **ret) {
        PpdFollow *f = calloc(1, sizeof(PpdFollow));
        int r = 0;

        if (!f)
                return log_oom();
        f->m = m;
        load_last(f);
        for (size_t i = 0; i < ELEMENTSOF(f->sources) && r >= 0; i++) {
                f->sources[i] = source_names[i];
                f->sources[i].follow = f;
                r = source_watch(&f->sources[i], m->bus);
        }
        if (r < 0) {
                ppd_follow_free(f);
                return log_error_errno(r, "Failed to watch power-profiles-daemon on the bus: %m");
        }
        log_info("Following power-profiles-daemon's profile (follow_power_profiles), last followed: %s.",
                 f->last[0] ? f->last : "none");
        *ret = f;
        return 0;
}

int manager_ppd_start(Manager *m) {
        int r;

        if (!m->bus || !m->config.follow_power_profiles || m->ppd)
                return 0;
        r = ppd_follow_new(m, &m->ppd);
        return r == -ENOMEM ? r : 0;
}

void manager_ppd_reconfigure(Manager *m) {
        if (m->config.follow_power_profiles == (m->ppd != NULL))
                return;
        if (m->config.follow_power_profiles) {
                if (manager_ppd_start(m) == -ENOMEM)
                        (void) sd_event_exit(m->event, -ENOMEM);
        } else {
                remember(m->ppd, "");
                m->ppd = ppd_follow_free(m->ppd);
                log_info("No longer following power-profiles-daemon.");
        }
        manager_emit(m, "FollowPowerProfiles");
}
