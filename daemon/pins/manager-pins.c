/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager's side of pins and holds (pins.h): creating them at start,
 * the profile in force per CPU before each policy step, and acting at once
 * when a pin or hold comes or goes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "knob-unit.h"
#include "log.h"
#include "manager.h"
#include "manager-pins.h"
#include "manager-policy.h"

/* Recomputes m->pinning.choices for the present CPUs.  Returns 0 or -ENOMEM. */
int manager_pins_refresh(Manager *m) {
        unsigned n = m->sampling ? m->sampling->topology->n_cpus : 0;
        int r;

        if (!m->pinning.pins || n == 0) {
                m->pinning.n_choices = 0;
                return 0;
        }
        if (n > m->pinning.n_choices) {
                CpuProfileChoice *c = realloc(m->pinning.choices, n * sizeof(CpuProfileChoice));
                if (!c)
                        return -ENOMEM;
                m->pinning.choices = c;
        }
        r = pins_choices(m->pinning.pins, manager_profile(m), n, m->pinning.choices);
        if (r < 0) {
                m->pinning.n_choices = 0;
                return r;
        }
        m->pinning.n_choices = n;
        m->pinning.choices_machine = manager_profile(m);
        return 0;
}

/* Returns 0 or -ENOMEM. */
int manager_pins_refresh_stale(Manager *m) {
        unsigned n = m->sampling ? m->sampling->topology->n_cpus : 0;

        if (m->pinning.pins && n > 0 && m->pinning.n_choices == n && m->pinning.choices_machine == manager_profile(m))
                return 0;
        return manager_pins_refresh(m);
}

/* A pin or hold came or went: the profiles in force now, the bus told,
 * and the CPUs whose profile moved planned again now, so the CPUs of a
 * pin that ended go back to the machine's plan at once, not at the next
 * tick. */
static void on_pins_changed(void *userdata) {
        Manager *m = userdata;
        _cleanup_free_ const Profile **before = calloc(m->pinning.n_choices + 1, sizeof(Profile *));
        unsigned n_before = m->pinning.n_choices;
        bool moved;
        uint64_t now;

        if (!before) {
                (void) sd_event_exit(m->event, log_oom());
                return;
        }
        for (unsigned cpu = 0; cpu < n_before; cpu++)
                before[cpu] = m->pinning.choices[cpu].profile;
        if (manager_pins_refresh(m) == -ENOMEM) {
                (void) sd_event_exit(m->event, log_oom());
                return;
        }
        if (m->events.pins_changed)
                m->events.pins_changed(m);
        /* A rule that took one more process with the same CPUs changes no
         * CPU's profile: no early tick (execs may come by the thousand). */
        moved = n_before != m->pinning.n_choices;
        for (unsigned cpu = 0; !moved && cpu < n_before; cpu++)
                moved = before[cpu] != m->pinning.choices[cpu].profile;
        if (!moved)
                return;
        if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) >= 0)
                manager_policy_replan(m, now);
}

static void on_pin_released(uint32_t id, const char *why, void *userdata) {
        Manager *m = userdata;

        if (m->events.pin_released)
                m->events.pin_released(m, id, why);
}

static void on_hold_released(uint32_t cookie, void *userdata) {
        Manager *m = userdata;

        if (m->events.hold_released)
                m->events.hold_released(m, cookie);
}

static const ProfileSet *current_profiles(void *userdata) {
        Manager *m = userdata;

        return m->policy.profiles;
}

static const Topology *current_topology(void *userdata) {
        Manager *m = userdata;

        return m->sampling->topology;
}

/* Returns 0 or a negative errno (logged). */
int manager_pins_start(Manager *m) {
        PinsContext c = {
                .event = m->event,
                .changes = m->changes,
                .profiles = current_profiles,
                .topology = current_topology,
                .persist = &m->policy.persist,
                .changed = on_pins_changed,
                .released = on_pin_released,
                .hold_released = on_hold_released,
                .userdata = m,
        };
        int r;

        r = pins_new(&c, &m->pinning.pins);
        if (r < 0)
                return log_oom();
        return manager_pins_refresh(m) < 0 ? log_oom() : 0;
}

/* Returns 0 or a negative errno (logged). */
int manager_pins_load(Manager *m) {
        ErrorInfo e = {};
        int r;

        /* The unit knobs a killed run left could not be put back by the
         * replay (no bus then): they can now. */
        if (m->bus) {
                if (change_restore(m->changes, CHANGE_OWNER(LEFTOVER), &e) < 0)
                        log_warning("%s, they stay in the restore journal.", e.message);
        }
        r = pins_load(m->pinning.pins);
        if (r >= 0)
                r = pins_load_rules(m->pinning.pins, m->pinning.dir);
        if (r < 0)
                return log_oom();
        return manager_pins_refresh(m) < 0 ? log_oom() : 0;
}

void manager_pins_free(Manager *m) {
        m->pinning.pins = pins_free(m->pinning.pins);
        free(m->pinning.choices);
        m->pinning.choices = NULL;
        m->pinning.n_choices = 0;
}
