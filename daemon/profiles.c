/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "profiles.h"

/* Returns true for "NAME.json" (NAME not empty, not hidden). */
static bool json_file_name(const char *name) {
        size_t n = strlen(name);

        return n > 5 && name[0] != '.' && strcmp(name + n - 5, ".json") == 0;
}

static int scandir_filter(const struct dirent *d) {
        return json_file_name(d->d_name);
}

/* Parses dir/name into p.  Returns 0, -ENOMEM, or another negative errno
 * (logged with the path and key). */
static int load_one(int dir_fd, const char *dir, const char *name, Profile *p) {
        _cleanup_free_ char *text = NULL, *path = NULL;
        ErrorInfo e = {};
        int r;

        if (asprintf(&path, "%s/%s", dir, name) < 0) {
                path = NULL;
                return -ENOMEM;
        }
        /* The administrator may link a profile from elsewhere: symlinks are
         * followed, to a regular file. */
        r = fileio_read_regular_at(dir_fd, name, PROFILE_FILE_MAX, 0, &text, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return log_error_errno(r, "Failed to read profile %s: %s", path, fileio_error_reason(r));
        r = profile_parse(text, path, p, &e);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return log_error_errno(r, "Rejecting profile %s", e.message);
        return 0;
}

/* Adds the profiles of dir to s.  Returns the number of bad files, or
 * -ENOMEM. */
static int load_dir(const char *dir, ProfileSet *s) {
        _cleanup_close_ int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct dirent **names = NULL;
        int n, bad = 0, r = 0;

        if (dir_fd < 0) {
                log_full_errno(errno == ENOENT ? LOG_DEBUG : LOG_WARNING, errno,
                               "Failed to open profile directory %s: %m, ignoring", dir);
                return 0;
        }
        n = scandir(dir, &names, scandir_filter, alphasort);
        if (n < 0 && errno == ENOMEM)
                return -ENOMEM;
        if (n < 0) {
                log_warning_errno(errno, "Failed to list profile directory %s: %m, ignoring", dir);
                return 0;
        }
        for (int i = 0; i < n; i++) {
                Profile p;

                if (r >= 0)
                        r = load_one(dir_fd, dir, names[i]->d_name, &p);
                if (r >= 0 && profile_set_put(s, &p) < 0)
                        r = log_error_errno(E2BIG, "Too many profiles, ignoring %s/%s", dir, names[i]->d_name);
                if (r < 0 && r != -ENOMEM) {
                        bad++;
                        r = 0;
                }
                free(names[i]);
        }
        free(names);
        return r < 0 ? r : bad;
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
                r = load_dir(override_dir, s);
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
