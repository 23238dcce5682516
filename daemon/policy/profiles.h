/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Loading the idle-policy profiles from their directories: the built-ins
 * (<data dir>/profiles/NAME.json) first, then the administrator's
 * overrides (/etc/idlepolicy/profiles.d/NAME.json: the same name replaces
 * a built-in, a new name adds a profile).  The parsing is the library's
 * (profile.h); this file reads the directories and logs. */

#include <stdbool.h>

#include "profile.h"

#define PROFILES_DEFAULT "balanced"
#define PROFILE_FILE_MAX (64 * 1024)

/* Loads every regular file ending in ".json" of builtin_dir, then of
 * override_dir, in name order (a missing directory is fine, logged at
 * debug level).  A bad file is logged with its path and the key at fault.
 * strict: any bad file fails the whole load (the caller keeps its last
 * good set); otherwise bad files are skipped.  When nothing loads at all,
 * the set holds the compiled-in "balanced" defaults (logged).  Returns the
 * number of bad files (0 = all good), or -EINVAL (strict, a bad file) /
 * -ENOMEM; *ret is untouched on failure. */
int profiles_load(const char *builtin_dir, const char *override_dir, bool strict, ProfileSet *ret);
