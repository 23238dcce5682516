/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "json-dir.h"
#include "log.h"
#include "macro.h"
#include "profiles.h"

/* Parses one profile file into the set.  Returns 0, -ENOMEM, or another
 * negative errno (logged with the path and key). */
static int load_one(const char *path, const char *text, size_t len, void *userdata) {
        ProfileSet *s = userdata;
        ErrorInfo e = {};
        Profile p;
        int r;

        r = profile_parse(text, path, &p, &e);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return log_error_errno(r, "Rejecting profile %s", e.message);
        if (profile_set_put(s, &p) < 0)
                return log_error_errno(E2BIG, "Too many profiles, ignoring %s", path);
        return 0;
}

/* Adds the profiles of dir to s.  Returns the number of bad files, or
 * -ENOMEM. */
static int load_dir(const char *dir, ProfileSet *s) {
        return json_dir_foreach(dir, PROFILE_FILE_MAX, load_one, s);
}

/* The same for the administrator's directory, read as pins.d is: a profile
 * decides what root writes to every CPU's idle knobs, so a file (or the
 * directory) anyone but root could write is refused, named in the log. */
static int load_admin_dir(const char *dir, ProfileSet *s) {
        return json_dir_foreach_root_only(dir, PROFILE_FILE_MAX, load_one, s);
}

/* Returns the number of bad files, or -EINVAL / -ENOMEM. */
int profiles_load(const char *builtin_dir, const char *override_dir, bool strict, ProfileSet *ret) {
        _cleanup_free_ ProfileSet *s = calloc(1, sizeof(ProfileSet));
        int bad = 0, r;

        if (!s)
                return -ENOMEM;
        r = load_dir(builtin_dir, s);
        if (r >= 0) {
                bad = r;
                r = load_admin_dir(override_dir, s);
        }
        if (r < 0)
                return r;
        bad += r;
        if (bad > 0 && strict)
                return -EINVAL;
        if (s->n == 0) {
                log_warning("No profile found in %s or %s, using the built-in \"" PROFILES_DEFAULT "\" defaults.",
                            builtin_dir, override_dir);
                profile_init(&s->profiles[0], PROFILES_DEFAULT);
                s->n = 1;
        }
        *ret = *s;
        return bad;
}
