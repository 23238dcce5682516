/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The manager's policy side: profiles, the mode, what persists in the
 * state directory and the policy step of every tick (manager-policy.c),
 * and the calibrations (manager-calibration.c).
 * Verdicts are negative errnos named in bus-error.h:
 *
 *   -ENOPKG  unknown profile     -EDOM  invalid mode     -EBUSY  calibrating
 *   -EIO     a knob could not be put back (ErrorInfo names it)
 */

#include <stdbool.h>
#include <stdint.h>

#include "errinfo.h"
#include "manager.h"
#include "policy-input.h"

/* Takes the policy's options.  Returns 0 or -ENOMEM (logged). */
int manager_policy_init(Manager *m, const ManagerOptions *o);

/* Frees what manager_policy_init() and _start() made (a running
 * calibration is stopped, its knobs put back). */
void manager_policy_free(Manager *m);

/* Loads the profiles, the persisted profile and mode, the calibration,
 * and sets up the model for the online CPUs.  Returns 0, 1 if an exit
 * signal came in between (logged, see exit-request.h), or -ENOMEM. */
int manager_policy_start(Manager *m);

/* Once the bus is up: the first-start calibration, if configured and
 * there is none yet. */
void manager_policy_started(Manager *m);

/* The policy step after a sample taken at now_usec (CLOCK_MONOTONIC):
 * learn, decide, signal plans that moved, and in enforce mode write what
 * differs.  Does nothing while a calibration runs. */
void manager_policy_tick(Manager *m, uint64_t now_usec);

/* The time to the next tick: the tick, or poll_search_tick_usec when
 * shorter while the poll search (enforcing) climbs, probes or holds a
 * window. */
uint64_t manager_policy_next_tick_usec(const Manager *m);

/* The pace of a program's start followed (quiet-tick.h,
 * QuietTickPace.follow_tick_usec): the search's short tick while it
 * holds no polling in enforce mode, 0 otherwise. */
uint64_t manager_policy_follow_tick_usec(const Manager *m);

/* After the online CPUs changed. */
void manager_policy_hotplug(Manager *m);

/* The profiles in force moved (a pin or hold came or went): the CPUs whose
 * profile changed are planned again at once, from what they learned, and
 * in enforce mode the plan is written. */
void manager_policy_replan(Manager *m, uint64_t now_usec);

/* SIGHUP: reloads the profiles; a bad file keeps the last good set.
 * Returns true when the profile in force was gone and replaced. */
bool manager_policy_reload(Manager *m);

/* Stops a running calibration (its knobs put back), telling the bus why. */
void manager_policy_cancel_calibration(Manager *m, const char *why);

/* Writes state.json from the current profile, mode and consolidation level. */
void manager_policy_save_state(Manager *m);

/* What the policy step is fed from, borrowed from m (policy-input.h). */
PolicySources manager_policy_sources(Manager *m);

/* The profile in force (never NULL). */
const Profile *manager_profile(const Manager *m);

/* The policy's side of SetProfile() (manager-ops.h).  Returns 1 if
 * switched, 0 if it was name already, or -ENOPKG with e set. */
int manager_policy_set_profile(Manager *m, const char *name, ErrorInfo *e);

/* The policy's side of SetMode() (manager-ops.h): switching to observe
 * first puts back every knob the plan and the companion changed.  Returns
 * 0, or -EBUSY / -EIO with e set. */
int manager_policy_set_mode(Manager *m, DaemonMode mode, ErrorInfo *e);

/* Calibrate().  Returns 0 (started), or -EBUSY (one runs) or
 * -ERRNO_CALIBRATION_FAILED (bus-error.h: it cannot start) with e set. */
int manager_calibrate(Manager *m, ErrorInfo *e);
