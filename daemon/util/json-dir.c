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

/* Returns true for "NAME.json" (NAME not empty, not hidden). */
static bool json_file_name(const char *name) {
        size_t n = strlen(name);

        return n > 5 && name[0] != '.' && strcmp(name + n - 5, ".json") == 0;
}

static int scandir_filter(const struct dirent *d) {
        return json_file_name(d->d_name);
}

/* Reads dir/name and hands it to fn.  Returns as fn, or a negative errno
 * (logged) for a file that cannot be read. */
static int one(int dir_fd, const char *dir, const char *name, size_t max, JsonDirFunc fn, void *userdata) {
        _cleanup_free_ char *text = NULL, *path = NULL;
        size_t len = 0;
        int r;

        if (asprintf(&path, "%s/%s", dir, name) < 0) {
                path = NULL;
                return -ENOMEM;
        }
        r = fileio_read_regular_at(dir_fd, name, max, 0, &text, &len);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return log_error_errno(r, "Failed to read %s: %s", path, fileio_error_reason(r));
        return fn(path, text, len, userdata);
}

/* Returns the number of bad files, or -ENOMEM. */
int json_dir_foreach(const char *dir, size_t max, JsonDirFunc fn, void *userdata) {
        _cleanup_close_ int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct dirent **names = NULL;
        int n, bad = 0, r = 0;

        if (dir_fd < 0) {
                log_full_errno(errno == ENOENT ? LOG_DEBUG : LOG_WARNING, errno,
                               "Failed to open directory %s: %m, ignoring", dir);
                return 0;
        }
        n = scandir(dir, &names, scandir_filter, alphasort);
        if (n < 0 && errno == ENOMEM)
                return -ENOMEM;
        if (n < 0) {
                log_warning_errno(errno, "Failed to list directory %s: %m, ignoring", dir);
                return 0;
        }
        for (int i = 0; i < n; i++) {
                if (r != -ENOMEM)
                        r = one(dir_fd, dir, names[i]->d_name, max, fn, userdata);
                if (r < 0 && r != -ENOMEM) {
                        bad++;
                        r = 0;
                }
                free(names[i]);
        }
        free(names);
        return r < 0 ? r : bad;
}
