/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

/* The first bytes read for a file whose size is unknown (/proc: 0). */
#define READ_CHUNK 4096

void freep(void *p) {
        free(*(void **) p);
}

void fileio_closep(int *fd) {
        if (*fd >= 0)
                close(*fd);
        *fd = -1;
}

static void strip_newline(char *buf, size_t *len) {
        if (*len > 0 && buf[*len - 1] == '\n')
                buf[--*len] = '\0';
}

static bool path_valid(const char *path) {
        return path && path[0] != '\0' && path[0] != '/';
}

/* Classifies a file that open() refused with ENXIO (a socket, a FIFO
 * without a reader when writing).  Returns -EBADFD if it is not a regular
 * file, else -ENXIO. */
static int enxio_reason(int dirfd, const char *path, int open_flags) {
        struct stat st;

        if (fstatat(dirfd, path, &st, (open_flags & O_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0) >= 0 && !S_ISREG(st.st_mode))
                return -EBADFD;
        return -ENXIO;
}

/* Opens dirfd/path with open_flags | O_NONBLOCK|O_NOCTTY|O_CLOEXEC, so
 * that nothing blocks (a FIFO, a device), with fileio_open_beneath() when
 * beneath, and fstat()s it into *ret_st.  Returns the fd, -EINVAL for an
 * absolute or empty path, -EBADFD if it is not a regular file, or -errno. */
static int open_regular(int dirfd, const char *path, int open_flags, bool beneath, struct stat *ret_st) {
        _cleanup_close_ int fd = -1;

        if (!path_valid(path))
                return -EINVAL;
        if (beneath) {
                fd = fileio_open_beneath(dirfd, path, open_flags);
                if (fd == -ENXIO || fd == -EISDIR)
                        return -EBADFD; /* a socket, a FIFO without a reader, a directory */
                if (fd < 0)
                        return fd;
        } else {
                fd = openat(dirfd, path, open_flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
                if (fd < 0)
                        return errno == ENXIO ? enxio_reason(dirfd, path, open_flags) : -errno;
        }
        if (fstat(fd, ret_st) < 0)
                return -errno;
        if (!S_ISREG(ret_st->st_mode))
                return -EBADFD;
        return TAKE_FD(fd);
}

/* Returns the fd, or -EINVAL for an absolute or empty path, -EBADFD, or -errno. */
int fileio_open_at(int dirfd, const char *path) {
        struct stat st;

        return open_regular(dirfd, path, O_RDONLY, false, &st);
}

int fileio_open_regular_beneath(int dirfd, const char *path) {
        struct stat st;

        return open_regular(dirfd, path, O_RDONLY, true, &st);
}

/* The one pread() loop: reads fd from offset len into buf until room
 * bytes are there or the file ends (retrying on EINTR).  Returns the new
 * length or -errno. */
static ssize_t pread_fill(int fd, char *buf, size_t len, size_t room) {
        while (len < room) {
                ssize_t n = pread(fd, buf + len, room - len, (off_t) len);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                len += (size_t) n;
        }
        return (ssize_t) len;
}

/* NUL-terminates the len bytes read into buf and strips one trailing
 * newline.  Returns the length left. */
static int finish_string(char *buf, size_t len) {
        buf[len] = '\0';
        strip_newline(buf, &len);
        return (int) len;
}

/* Returns the number of bytes read or -errno; -EFBIG if the file does not
 * fit into size - 1 bytes. */
int fileio_pread_string(int fd, char *buf, size_t size) {
        ssize_t n;

        if (size < 2)
                return -EINVAL;
        /* One byte more than fits: its presence says the file is too long. */
        n = pread_fill(fd, buf, 0, size);
        if (n < 0)
                return (int) n;
        if ((size_t) n == size)
                return -EFBIG;
        return finish_string(buf, (size_t) n);
}

int fileio_pread_once(int fd, char *buf, size_t size) {
        ssize_t n;

        if (size < 1)
                return -EINVAL;
        do
                n = pread(fd, buf, size, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        if ((size_t) n >= size)
                return -EFBIG;
        return finish_string(buf, (size_t) n);
}

/* Grows *buf (of *size bytes, NULL: 0) towards at least READ_CHUNK and at
 * most limit bytes, doubling.  Returns 0 or -ENOMEM (nothing changed). */
static int grow(char **buf, size_t *size, size_t limit) {
        size_t have = *buf ? *size : 0;
        size_t want = have < READ_CHUNK / 2 ? READ_CHUNK : have * 2;
        char *n;

        if (want > limit)
                want = limit;
        n = realloc(*buf, want);
        if (!n)
                return -ENOMEM;
        *buf = n;
        *size = want;
        return 0;
}

/* pread()s fd from offset 0 into *buf (grown as needed), at most
 * max_size + 1 bytes, and NUL-terminates it.  Returns the length, -EFBIG
 * past max_size bytes, -ENOMEM or -errno. */
static ssize_t pread_bounded(int fd, size_t max_size, char **buf, size_t *size) {
        size_t len = 0;

        for (;;) {
                /* Room for max_size + 1 bytes (one too many) and the NUL. */
                size_t room = *buf && *size > 0 ? *size - 1 : 0;
                ssize_t n;

                if (room > max_size + 1)
                        room = max_size + 1;
                if (len == room) {
                        int r;

                        if (len > max_size)
                                return -EFBIG;
                        r = grow(buf, size, max_size + 2);
                        if (r < 0)
                                return r;
                        continue;
                }
                n = pread_fill(fd, *buf, len, room);
                if (n < 0)
                        return n;
                if ((size_t) n < room) {
                        len = (size_t) n;
                        break;
                }
                len = (size_t) n;
        }
        (*buf)[len] = '\0';
        return (ssize_t) len;
}

/* Returns the length read or -errno; -EFBIG past max_size bytes. */
int fileio_pread_alloc(int fd, size_t max_size, char **buf, size_t *size) {
        if (max_size >= INT_MAX)
                return -EINVAL;
        return (int) pread_bounded(fd, max_size, buf, size);
}

/* Reads the regular file fd into buf as fileio_read_string_at() does
 * (takes fd).  Returns 0 or a negative errno. */
static int read_string_fd(int fd, char *buf, size_t size) {
        _cleanup_close_ int f = fd;
        int r;

        if (f < 0)
                return f;
        r = fileio_pread_string(f, buf, size);
        return r < 0 ? r : 0;
}

int fileio_read_string_at(int dirfd, const char *path, char *buf, size_t size) {
        return read_string_fd(fileio_open_at(dirfd, path), buf, size);
}

int fileio_read_string_beneath(int dirfd, const char *path, char *buf, size_t size) {
        return read_string_fd(fileio_open_regular_beneath(dirfd, path), buf, size);
}

/* fileio_read_regular_at() but a NUL byte is allowed (ret_len may be
 * NULL).  Returns 0 or a negative errno. */
static int read_regular(int dirfd, const char *path, size_t max_size, unsigned flags, char **ret, size_t *ret_len) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        struct stat st;
        ssize_t n;

        if (max_size >= SSIZE_MAX - 2)
                return -EINVAL;
        fd = open_regular(dirfd, path, O_RDONLY | ((flags & FILEIO_NOFOLLOW) ? O_NOFOLLOW : 0), false, &st);
        if (fd < 0)
                return fd;
        if ((flags & FILEIO_OWNER_EUID) && st.st_uid != geteuid())
                return -EPERM;
        if (st.st_size < 0 || (uint64_t) st.st_size > max_size)
                return -EFBIG;
        /* One byte more than the size, to see the end without a second
         * allocation. */
        if ((size_t) st.st_size + 2 > READ_CHUNK) {
                size = (size_t) st.st_size + 2;
                buf = malloc(size);
                if (!buf)
                        return -ENOMEM;
        }
        n = pread_bounded(fd, max_size, &buf, &size);
        if (n < 0)
                return (int) n;
        if (ret_len)
                *ret_len = (size_t) n;
        *ret = buf;
        buf = NULL;
        return 0;
}

int fileio_read_regular_at(int dirfd, const char *path, size_t max_size, unsigned flags,
                           char **ret, size_t *ret_size) {
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r;

        r = read_regular(dirfd, path, max_size, flags, &text, &len);
        if (r < 0)
                return r;
        if (memchr(text, '\0', len))
                return -EBADMSG;
        if (ret_size)
                *ret_size = len;
        *ret = text;
        text = NULL;
        return 0;
}

int fileio_read_alloc_at(int dirfd, const char *path, char **ret_content, size_t *ret_size) {
        return read_regular(dirfd, path, FILEIO_ALLOC_MAX, 0, ret_content, ret_size);
}

const char *fileio_error_reason(int r) {
        switch (r < 0 ? -r : r) {
        case EBADFD:
                return "not a regular file";
        case ELOOP:
                return "a symbolic link";
        case EXDEV:
                return "outside its directory (a \"..\" component)";
        case EFBIG:
                return "larger than the limit";
        case EPERM:
                return "not owned by the daemon's user";
        case EBADMSG:
                return "contains a NUL byte";
        default:
                return strerror(r < 0 ? -r : r);
        }
}

int parse_u64(const char *s, uint64_t *ret) {
        uint64_t v = 0;
        const char *p = s;

        if (!s || *p < '0' || *p > '9')
                return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
                unsigned d = (unsigned) (*p - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        if (*p == '\n')
                p++;
        if (*p != '\0')
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_u32(const char *s, uint32_t *ret) {
        uint64_t v;
        int r = parse_u64(s, &v);

        if (r < 0)
                return r;
        if (v > UINT32_MAX)
                return -ERANGE;
        *ret = (uint32_t) v;
        return 0;
}

int fileio_read_u64_at(int dirfd, const char *path, uint64_t *ret) {
        char buf[64];
        int r = fileio_read_string_at(dirfd, path, buf, sizeof(buf));

        if (r < 0)
                return r;
        return parse_u64(buf, ret);
}

/* Writes value to the regular file dirfd/path (opened O_WRONLY|O_TRUNC,
 * never blocking; beneath: with fileio_open_beneath(), else O_NOFOLLOW).
 * Returns 0 or a negative errno. */
static int write_string(int dirfd, const char *path, const char *value, bool beneath) {
        struct stat st;
        _cleanup_close_ int fd = open_regular(dirfd, path, O_WRONLY | O_TRUNC | (beneath ? 0 : O_NOFOLLOW), beneath,
                                              &st);
        size_t len = strlen(value);
        ssize_t n;

        if (fd < 0)
                return fd;
        n = write(fd, value, len);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

int fileio_write_string_at(int dirfd, const char *path, const char *value) {
        return write_string(dirfd, path, value, false);
}

int fileio_write_string_beneath(int dirfd, const char *path, const char *value) {
        return write_string(dirfd, path, value, true);
}
