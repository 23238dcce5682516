/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* PreviewProfile: what switching to a profile would do (ctl-preview.c). */

#include <stdbool.h>
#include <stddef.h>

#include "ctl-model.h"

/* Calls PreviewProfile(name) into *ret.  Prints the failure unless quiet.
 * Returns 0 or a negative errno. */
int ctl_fetch_preview(Ctl *c, const char *name, bool quiet, CtlPreview *ret);

/* "profile NAME --dry-run".  Returns an exit status. */
int ctl_profile_dry_run(Ctl *c, const char *name);
