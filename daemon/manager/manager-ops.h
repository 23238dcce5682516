/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a client asks of more than one subsystem: the profile (the policy's,
 * and the consolidation level that follows it) and the mode (the plan's
 * knobs, and what consolidation confined).  The bus and power-profiles-
 * daemon's follower come here; the subsystems never call each other.
 * Verdicts are negative errnos named in bus-error.h:
 *
 *   -ENOPKG  unknown profile     -EDOM  invalid mode     -EBUSY  calibrating
 *   -EIO     a knob could not be put back (ErrorInfo names it)
 */

#include "errinfo.h"
#include "manager.h"

/* SetProfile(): a profile switch ends a SetConsolidation() level.
 * Returns 0, or -ENOPKG with e set. */
int manager_set_profile(Manager *m, const char *name, ErrorInfo *e);

/* SetMode(): switching to observe puts back what consolidation confined
 * and every knob the plan and the companion changed; to enforce applies
 * the plan at once.  Returns 0, or -EDOM / -EBUSY / -EIO with e set. */
int manager_set_mode(Manager *m, const char *mode, ErrorInfo *e);

/* SIGHUP's profiles: reloaded, and a profile in force that went away
 * replaced (its consolidation level with it). */
void manager_reload_profiles(Manager *m);
