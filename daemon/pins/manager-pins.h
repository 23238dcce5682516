/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The manager's pins and holds (manager-pins.c). */

#include "manager.h"

/* The start-up phase after the policy's: the pins and holds, empty (the
 * bus registers them next).  Returns 0 or a negative errno (logged). */
int manager_pins_start(Manager *m);

/* The phase after the bus: the unit knobs a killed run left put back
 * through systemd, then pins.json re-applied and the rules of pins.d.
 * Returns 0 or a negative errno (logged). */
int manager_pins_load(Manager *m);

/* Frees the pins without touching a knob (the journal keeps them). */
void manager_pins_free(Manager *m);

/* Recomputes the profile in force per CPU (m->cpu_choices).  Returns 0
 * or -ENOMEM. */
int manager_pins_refresh(Manager *m);

/* manager_pins_refresh() unless the choices are current: the pins and
 * holds refresh them when they change (and SIGHUP when the profiles are
 * reloaded), so a tick recomputes them only when the machine profile or
 * the number of CPUs moved.  Returns 0 or -ENOMEM. */
int manager_pins_refresh_stale(Manager *m);
