/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Following power-profiles-daemon (follow_power_profiles in
 * idlepolicyd.conf(5)): the machine profile becomes power-profiles-daemon's
 * ActiveProfile (performance, balanced, power-saver: the same names) each
 * time that changes, holds taken through power-profiles-daemon included
 * (they change ActiveProfile).
 *
 * It owns org.freedesktop.UPower.PowerProfiles on
 * /org/freedesktop/UPower/PowerProfiles since version 0.20, and
 * net.hadess.PowerProfiles on /net/hadess/PowerProfiles before and after
 * (the legacy name); the first that has an owner is followed, its
 * PropertiesChanged taken only from that owner.
 *
 * A change is a value other than the last one followed, which is kept in
 * the state directory (PPD_FOLLOW_STATE_FILE): SetProfile() sets another
 * profile until power-profiles-daemon changes again, across a restart of
 * either daemon too.  power-profiles-daemon leaving the bus leaves the
 * profile as it is; one that appears (again) is followed from then on.
 * Turning follow_power_profiles off by a reload forgets the last value, so
 * that turning it on follows at once. */

#include <stdbool.h>

typedef struct Manager Manager;
typedef struct PpdFollow PpdFollow;

#define PPD_FOLLOW_STATE_FILE "power-profile"

/* The start-up phase after the bus: follows when configured.  Returns 0
 * or a negative errno (logged; only -ENOMEM stops the start). */
int manager_ppd_start(Manager *m);

/* After a reload: starts or stops following as the configuration now says. */
void manager_ppd_reconfigure(Manager *m);

/* Stops following (NULL allowed).  Returns NULL. */
PpdFollow *ppd_follow_free(PpdFollow *f);

/* What FollowPowerProfiles shows: whether following (f may be NULL: not),
 * the bus name followed (NULL: none on the bus) and the ActiveProfile
 * last followed ("" none). */
bool ppd_follow_status(const PpdFollow *f, const char **ret_name, const char **ret_profile);
