/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The manager's consolidation (manager-consolidation.c): the level in
 * force and where it comes from, the tick's measurements for the
 * library's step, the knobs through consolidation.h.
 *
 * The level: the active profile's "consolidation" (power-saver 1, the
 * others 0), unless SetConsolidation() set one; that one wins, is kept in
 * state.json across restarts, and lasts until the profile changes (a
 * SetProfile() to another profile, or the profile disappearing at a
 * reload), which goes back to the new profile's level.  In observe mode
 * the set is decided and shown but nothing is confined. */

#include "errinfo.h"
#include "manager.h"

/* The start-up phase after the journal and sampling: the consolidator
 * with the configuration's background.  Returns 0 or -ENOMEM (logged). */
int manager_consolidation_start(Manager *m);
void manager_consolidation_free(Manager *m);

/* Puts back what consolidation confined (observe mode).  Returns 0 or -EIO
 * with e set. */
int manager_consolidation_release(Manager *m, ErrorInfo *e);

/* SIGHUP: the new configuration's background and thresholds. */
void manager_consolidation_reconfigure(Manager *m);

/* The level in force (0..2). */
unsigned manager_consolidation_level(const Manager *m);

/* "profile NAME" or "SetConsolidation": where the level comes from. */
const char *manager_consolidation_source(const Manager *m, char *buf, size_t size);

/* SetConsolidation().  Returns 0, or -ERRNO_INVALID_LEVEL with e set
 * (nothing changed). */
int manager_set_consolidation(Manager *m, uint32_t level, ErrorInfo *e);

/* The profile changed: SetConsolidation()'s level ends. */
void manager_consolidation_profile_changed(Manager *m);

/* Before the policy step: measures, decides, confines (enforce mode). */
void manager_consolidation_tick(Manager *m);

/* The CPUs consolidation freed (empty when off). */
const CpuSet *manager_consolidation_freed(const Manager *m);
