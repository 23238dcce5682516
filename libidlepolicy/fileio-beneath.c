/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Opening below a directory without following a symbolic link: openat2()
 * where the kernel has it, a walk one component at a time otherwise (see
 * fileio.h, fileio_open_beneath()). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif

#include "fileio.h"

/* The open(2) flags a caller may give (the access mode and these). */
#define BENEATH_FLAGS_ALLOWED (O_PATH | O_DIRECTORY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
/* openat2() refuses any other flag with O_PATH (EINVAL), unlike openat(). */
#define PATH_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC)
/* openat2() answers EAGAIN when it cannot be sure a ".." stayed below; the
 * paths here have none, but a retry costs nothing. */
#define OPENAT2_TRIES 8

/* Returns true if path has a ".." component. */
static bool has_dotdot(const char *path) {
        for (const char *s = path; *s; s += strspn(s, "/")) {
                size_t n = strcspn(s, "/");

                if (n == 2 && s[0] == '.' && s[1] == '.')
                        return true;
                s += n;
        }
        return false;
}

/* The flags every open here gets: close-on-exec, no controlling terminal,
 * never blocking (a FIFO); O_PATH takes only PATH_FLAGS.  The caller's
 * O_NOFOLLOW is dropped: nothing is followed anyway, and with O_PATH it
 * would open a trailing link instead of refusing it. */
static int full_flags(int flags) {
        flags &= ~O_NOFOLLOW;
        if (flags & O_PATH)
                return (flags & PATH_FLAGS) | O_CLOEXEC;
        return flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
}

/* The name of a file an open refused with ENOTDIR or ELOOP: -ELOOP if it
 * is a symbolic link, else r. */
static int classify_refusal(int at, const char *name, int r) {
        struct stat st;

        if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISLNK(st.st_mode))
                return -ELOOP;
        return r;
}

/* Opens one component name of the walk below at: a directory on the way
 * (last false) as O_PATH, the last one with flags.  Returns the fd or a
 * negative errno (-ELOOP for a link, -ENOTDIR for a file on the way). */
static int walk_step(int at, const char *name, bool last, int flags) {
        _cleanup_close_ int fd = -1;
        struct stat st;

        fd = openat(at, name, (last ? flags : O_PATH | O_CLOEXEC) | O_NOFOLLOW);
        if (fd < 0)
                return errno == ENOTDIR || errno == ELOOP ? classify_refusal(at, name, -errno) : -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISLNK(st.st_mode))
                return -ELOOP;                  /* O_PATH|O_NOFOLLOW opens the link itself */
        if (!last && !S_ISDIR(st.st_mode))
                return -ENOTDIR;
        return TAKE_FD(fd);
}

int fileio_open_beneath_walk(int dirfd, const char *path, int flags) {
        _cleanup_close_ int cur = -1;
        char name[NAME_MAX + 1];

        if (!path || !path[0] || path[0] == '/' || (flags & ~(O_ACCMODE | BENEATH_FLAGS_ALLOWED)))
                return -EINVAL;
        if (has_dotdot(path))
                return -EXDEV;
        flags = full_flags(flags);
        if (path[strlen(path) - 1] == '/')
                flags |= O_DIRECTORY;           /* "a/" names a directory, as for openat() */
        for (const char *s = path;;) {
                size_t n = strcspn(s, "/");
                const char *next = s + n + strspn(s + n, "/");
                bool last = *next == '\0';
                int fd;

                if (n > NAME_MAX)
                        return -ENAMETOOLONG;
                memcpy(name, s, n);
                name[n] = '\0';
                fd = walk_step(cur >= 0 ? cur : dirfd, name, last, flags);
                if (fd < 0 || last)
                        return fd;
                fileio_closep(&cur);
                cur = fd;
                s = next;
        }
}

#ifdef SYS_openat2
/* openat2() with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS.  Returns the fd,
 * -ENOSYS when the kernel (before 5.6) or a seccomp filter has no openat2,
 * or a negative errno. */
static int open_openat2(int dirfd, const char *path, int flags) {
        struct open_how how = {
                .flags = (unsigned long long) (unsigned) flags,
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        long fd = -1;

        for (int i = 0; i < OPENAT2_TRIES; i++) {
                fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
                if (fd >= 0 || errno != EAGAIN)
                        break;
        }
        if (fd >= 0)
                return (int) fd;
        /* A seccomp filter that does not know the call (Docker before
         * 20.10, libseccomp's default action) answers EPERM: the walk then
         * gives the real answer, a genuine EPERM included. */
        return errno == ENOSYS || errno == EPERM ? -ENOSYS : -errno;
}
#else
static int open_openat2(int dirfd, const char *path, int flags) {
        return -ENOSYS;
}
#endif

int fileio_open_beneath(int dirfd, const char *path, int flags) {
        int fd;

        if (!path || !path[0] || path[0] == '/' || (flags & ~(O_ACCMODE | BENEATH_FLAGS_ALLOWED)))
                return -EINVAL;
        if (has_dotdot(path))
                return -EXDEV;
        fd = open_openat2(dirfd, path, full_flags(flags));
        return fd == -ENOSYS ? fileio_open_beneath_walk(dirfd, path, flags) : fd;
}
