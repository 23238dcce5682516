/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
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

static unsigned test_disabled;

void new_file_test_disable(unsigned what) {
        test_disabled = what;
}

/* A random name for a file to be called hint.  Returns 0 or
 * -ENAMETOOLONG. */
static int random_name(const char *hint, char name[static NAME_MAX + 1]) {
        uint64_t x = 0;

        if (getrandom(&x, sizeof(x), GRND_NONBLOCK) != sizeof(x))
                x ^= (uint64_t) getpid() << 32 ^ (uint64_t) (uintptr_t) name ^ (uint64_t) time(NULL);
        if (snprintf(name, NAME_MAX + 1, "%s.tmp-%012" PRIx64, hint, (uint64_t) (x & 0xffffffffffffULL)) > NAME_MAX)
                return -ENAMETOOLONG;
        return 0;
}

/* Opens a file under a random name, O_EXCL.  Returns the fd or a negative
 * errno. */
static int open_random(int dir_fd, const char *hint, mode_t mode, char name[static NAME_MAX + 1]) {
        for (unsigned i = 0; i < 16; i++) {
                int fd, r = random_name(hint, name);

                if (r < 0)
                        return r;
                fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
                if (fd >= 0 || errno != EEXIST)
                        return fd >= 0 ? fd : -errno;
        }
        return -EEXIST;
}

/* Opens an unnamed file.  Returns the fd, -EOPNOTSUPP where the file
 * system (EOPNOTSUPP) or the kernel (EISDIR) has no O_TMPFILE, or another
 * negative errno. */
static int open_unnamed(int dir_fd, mode_t mode) {
        int fd;

        if (test_disabled & NEW_FILE_TEST_NO_TMPFILE)
                return -EOPNOTSUPP;
        fd = openat(dir_fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
        if (fd < 0)
                return errno == EISDIR ? -EOPNOTSUPP : -errno;
        return fd;
}

/* Returns 0 or a negative errno. */
int new_file_open(int dir_fd, const char *hint, mode_t mode, NewFile *ret) {
        NewFile f = NEW_FILE_NULL;
        mode_t create = mode ? 0600 : 0644;

        f.fd = open_unnamed(dir_fd, create);
        if (f.fd == -EOPNOTSUPP)
                f.fd = open_random(dir_fd, hint, create, f.name);
        if (f.fd < 0)
                return f.fd;
        if (mode != 0 && fchmod(f.fd, mode) < 0) {
                int r = -errno;

                new_file_done(&f, dir_fd);
                return r;
        }
        *ret = f;
        return 0;
}

/* Links the open file fd as dir_fd/name: by the fd (before Linux 6.10,
 * AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH, which the unit does not give),
 * else through /proc/self/fd.  Returns 0 or a negative errno (-EEXIST:
 * name is taken). */
static int link_fd(int fd, int dir_fd, const char *name) {
        char proc[64];

        if (!(test_disabled & NEW_FILE_TEST_NO_EMPTY_PATH) && linkat(fd, "", dir_fd, name, AT_EMPTY_PATH) >= 0)
                return 0;
        if (!(test_disabled & NEW_FILE_TEST_NO_EMPTY_PATH) && errno != ENOENT && errno != EPERM)
                return -errno;
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        return linkat(AT_FDCWD, proc, dir_fd, name, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
}

/* Gives the unnamed f a random name.  Returns 0 or a negative errno. */
static int new_file_link(NewFile *f, int dir_fd, const char *hint) {
        for (unsigned i = 0; i < 16; i++) {
                int r = random_name(hint, f->name);

                if (r >= 0)
                        r = link_fd(f->fd, dir_fd, f->name);
                if (r >= 0)
                        return 0;
                f->name[0] = '\0';
                if (r != -EEXIST)
                        return r;
        }
        return -EEXIST;
}

/* Returns 0 or a negative errno. */
int new_file_publish(NewFile *f, int dir_fd, const char *name) {
        int r = f->name[0] ? 0 : new_file_link(f, dir_fd, name);

        if (r < 0)
                return r;
        if (renameat(dir_fd, f->name, dir_fd, name) < 0)
                return -errno;
        f->name[0] = '\0';
        return 0;
}

void new_file_done(NewFile *f, int dir_fd) {
        if (f->name[0])
                (void) unlinkat(dir_fd, f->name, 0);
        f->name[0] = '\0';
        fileio_closep(&f->fd);
}

/* Returns 0 or a negative errno. */
int write_file_atomic(int dir_fd, const char *name, const char *text) {
        return write_file_atomic_mode(dir_fd, name, text, 0, true);
}

/* Returns 0 or a negative errno. */
int write_file_atomic_mode(int dir_fd, const char *name, const char *text, mode_t mode, bool sync) {
        NewFile f = NEW_FILE_NULL;
        int r;

        r = new_file_open(dir_fd, name, mode, &f);
        if (r < 0)
                return r;
        r = write_all(f.fd, text, strlen(text));
        if (r >= 0 && sync && fsync(f.fd) < 0)
                r = -errno;
        if (r >= 0)
                r = new_file_publish(&f, dir_fd, name);
        new_file_done(&f, dir_fd);
        if (r < 0)
                return r;
        return sync && fsync(dir_fd) < 0 ? -errno : 0;
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
