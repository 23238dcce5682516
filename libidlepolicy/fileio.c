/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"

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

/* Returns the fd, or -EINVAL for an absolute or empty path, or -errno. */
int fileio_open_at(int dirfd, const char *path) {
        if (!path || path[0] == '\0' || path[0] == '/')
                return -EINVAL;
        int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        return fd < 0 ? -errno : fd;
}

/* Returns the number of bytes read or -errno; -EFBIG if the file does not
 * fit into size - 1 bytes. */
int fileio_pread_string(int fd, char *buf, size_t size) {
        size_t len = 0;

        if (size < 2)
                return -EINVAL;
        for (;;) {
                ssize_t n = pread(fd, buf + len, size - 1 - len, (off_t) len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                len += (size_t) n;
                if (len == size - 1) {
                        char c;
                        n = pread(fd, &c, 1, (off_t) len);
                        if (n > 0)
                                return -EFBIG;
                        break;
                }
        }
        buf[len] = '\0';
        strip_newline(buf, &len);
        return (int) len;
}

int fileio_pread_once(int fd, char *buf, size_t size) {
        ssize_t n;
        size_t len;

        if (size < 1)
                return -EINVAL;
        do
                n = pread(fd, buf, size, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        if ((size_t) n >= size)
                return -EFBIG;
        len = (size_t) n;
        buf[len] = '\0';
        strip_newline(buf, &len);
        return (int) len;
}

/* Returns the length read or -errno. *buf grows as needed. */
int fileio_pread_alloc(int fd, char **buf, size_t *size) {
        size_t len = 0;

        if (!*buf || *size < 4096) {
                char *n = realloc(*buf, 4096);
                if (!n)
                        return -ENOMEM;
                *buf = n;
                *size = 4096;
        }
        for (;;) {
                if (len + 1 >= *size) {
                        if (*size > (size_t) INT_MAX / 2)
                                return -EFBIG;
                        char *n = realloc(*buf, *size * 2);
                        if (!n)
                                return -ENOMEM;
                        *buf = n;
                        *size *= 2;
                }
                ssize_t n = pread(fd, *buf + len, *size - 1 - len, (off_t) len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                len += (size_t) n;
        }
        (*buf)[len] = '\0';
        return (int) len;
}

int fileio_read_string_at(int dirfd, const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = fileio_open_at(dirfd, path);
        if (fd < 0)
                return fd;
        int r = fileio_pread_string(fd, buf, size);
        return r < 0 ? r : 0;
}

int fileio_read_alloc_at(int dirfd, const char *path, char **ret_content, size_t *ret_size) {
        _cleanup_close_ int fd = fileio_open_at(dirfd, path);
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;

        if (fd < 0)
                return fd;
        int r = fileio_pread_alloc(fd, &buf, &size);
        if (r < 0)
                return r;
        if (ret_size)
                *ret_size = (size_t) r;
        *ret_content = buf;
        buf = NULL;
        return 0;
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

int fileio_write_string_at(int dirfd, const char *path, const char *value) {
        if (!path || path[0] == '\0' || path[0] == '/')
                return -EINVAL;
        _cleanup_close_ int fd = openat(dirfd, path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        size_t len = strlen(value);
        ssize_t n = write(fd, value, len);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return 0;
}
