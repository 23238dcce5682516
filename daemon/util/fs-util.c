/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "fs-util.h"

/* Returns 0 or a negative errno. */
int mkdir_parents(const char *path) {
        _cleanup_free_ char *p = strdup(path);

        if (!p)
                return -ENOMEM;
        for (char *s = p + 1; ; s++) {
                bool last = *s == '\0';

                if (*s != '/' && !last)
                        continue;
                *s = '\0';
                if (mkdir(p, 0755) < 0 && errno != EEXIST)
                        return -errno;
                if (last)
                        return 0;
                *s = '/';
        }
}

/* Returns 0 or a negative errno. */
int write_all(int fd, const char *buf, size_t len) {
        while (len > 0) {
                ssize_t n = write(fd, buf, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                buf += n;
                len -= (size_t) n;
        }
        return 0;
}

/* Returns 0 or a negative errno. */
int write_file_atomic(int dir_fd, const char *name, const char *text) {
        return write_file_atomic_mode(dir_fd, name, text, 0);
}

/* Returns 0 or a negative errno. */
int write_file_atomic_mode(int dir_fd, const char *name, const char *text, mode_t mode) {
        _cleanup_close_ int fd = -1;
        char tmp[256];
        int r;

        if (snprintf(tmp, sizeof(tmp), "%s.tmp", name) >= (int) sizeof(tmp))
                return -ENAMETOOLONG;
        fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        r = mode != 0 && fchmod(fd, mode) < 0 ? -errno : 0;
        if (r >= 0)
                r = write_all(fd, text, strlen(text));
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        if (r >= 0 && renameat(dir_fd, tmp, dir_fd, name) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlinkat(dir_fd, tmp, 0);
                return r;
        }
        return fsync(dir_fd) < 0 ? -errno : 0;
}

/* Returns 0 or a negative errno. */
int path_open_base(const char *path, int *ret_dir_fd, const char **ret_rel) {
        int fd = AT_FDCWD;

        if (path[0] == '/') {
                fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fd < 0)
                        return -errno;
        }
        *ret_dir_fd = fd;
        *ret_rel = path + strspn(path, "/");
        return 0;
}

/* Returns the fd or a negative errno. */
int host_root_fd(void) {
        static int fd = -1;

        if (fd < 0)
                fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}
