/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "json-dir.h"
#include "log.h"
#include "macro.h"
#include "safe-dir.h"

/* Returns true for "NAME.json" (NAME not empty, not hidden). */
static bool json_file_name(const char *name) {
        size_t n = strlen(name);

        return n > 5 && name[0] != '.' && strcmp(name + n - 5, ".json") == 0;
}

static int scandir_filter(const struct dirent *d) {
        return json_file_name(d->d_name);
}

/* Reads the open file fd (at most max bytes of text) into *ret.  Returns
 * 0 or a negative errno as fileio_read_regular_at(). */
static int read_fd(int fd, size_t max, char **ret, size_t *ret_len) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        int n = fileio_pread_alloc(fd, max, &text, &size);

        if (n < 0)
                return n;
        if (memchr(text, '\0', (size_t) n))
                return -EBADMSG;
        *ret_len = (size_t) n;
        *ret = TAKE_PTR(text);
        return 0;
}

/* Reads dir_fd/name (a regular file, symbolic links followed) after
 * checking its owner and mode (the target's: fstat() of what was opened).
 * Returns 0 and the text, -EPERM with e saying why, or another negative
 * errno as fileio_read_regular_at(). */
static int read_root_only(int dir_fd, const char *name, size_t max, char **ret, size_t *ret_len, ErrorInfo *e) {
        _cleanup_close_ int fd = fileio_open_at(dir_fd, name);
        struct stat st;
        int r;

        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return -errno;
        r = safe_stat_check(&st, e);
        return r < 0 ? r : read_fd(fd, max, ret, ret_len);
}

/* Reads dir/name and hands it to fn.  Returns as fn, or a negative errno
 * (logged) for a file that cannot be read or is refused. */
static int one(int dir_fd, const char *dir, const char *name, size_t max, bool root_only, JsonDirFunc fn,
               void *userdata) {
        _cleanup_free_ char *text = NULL, *path = NULL;
        ErrorInfo e = {};
        size_t len = 0;
        int r;

        if (asprintf(&path, "%s/%s", dir, name) < 0) {
                path = NULL;
                return -ENOMEM;
        }
        if (root_only)
                r = read_root_only(dir_fd, name, max, &text, &len, &e);
        else
                r = fileio_read_regular_at(dir_fd, name, max, 0, &text, &len);
        if (r == -ENOMEM)
                return r;
        if (r < 0 && e.message[0])
                return log_error_errno(r, "Refusing %s: %s; only root may write what tells the daemon "
                                       "what to do, ignoring it.", path, e.message);
        if (r < 0)
                return log_error_errno(r, "Failed to read %s: %s", path, fileio_error_reason(r));
        return fn(path, text, len, userdata);
}

/* With root_only, checks the directory dir_fd.  Returns 0 or -EPERM
 * (logged). */
static int check_dir(int dir_fd, const char *dir, bool root_only) {
        ErrorInfo e = {};
        struct stat st;

        if (!root_only)
                return 0;
        if (fstat(dir_fd, &st) < 0)
                return log_error_errno(errno, "Failed to check directory %s: %m", dir);
        if (safe_stat_check(&st, &e) < 0)
                return log_error_errno(EPERM, "Refusing directory %s: %s; anyone could put files there, "
                                       "none of its files is read.", dir, e.message);
        return 0;
}

/* Returns the number of bad files, or -ENOMEM. */
static int foreach(const char *dir, size_t max, bool root_only, JsonDirFunc fn, void *userdata) {
        _cleanup_close_ int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct dirent **names = NULL;
        int n, bad = 0, r = 0;

        if (dir_fd < 0) {
                log_full_errno(errno == ENOENT ? LOG_DEBUG : LOG_WARNING, errno,
                               "Failed to open directory %s: %m, ignoring", dir);
                return 0;
        }
        if (check_dir(dir_fd, dir, root_only) < 0)
                return 1;
        n = scandir(dir, &names, scandir_filter, alphasort);
        if (n < 0 && errno == ENOMEM)
                return -ENOMEM;
        if (n < 0) {
                log_warning_errno(errno, "Failed to list directory %s: %m, ignoring", dir);
                return 0;
        }
        for (int i = 0; i < n; i++) {
                if (r != -ENOMEM)
                        r = one(dir_fd, dir, names[i]->d_name, max, root_only, fn, userdata);
                if (r < 0 && r != -ENOMEM) {
                        bad++;
                        r = 0;
                }
                free(names[i]);
        }
        free(names);
        return r < 0 ? r : bad;
}

int json_dir_foreach(const char *dir, size_t max, JsonDirFunc fn, void *userdata) {
        return foreach(dir, max, false, fn, userdata);
}

int json_dir_foreach_root_only(const char *dir, size_t max, JsonDirFunc fn, void *userdata) {
        return foreach(dir, max, true, fn, userdata);
}
