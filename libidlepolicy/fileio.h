/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Small, strict file helpers.  Every path is relative to a directory fd (the
 * root handle: "/" in the daemon, a test tree in tests); absolute paths are
 * refused with -EINVAL so that nothing escapes the root by accident. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cleanup.h"

/* Reads the whole regular file at dirfd/path (opened as fileio_open_at()
 * does) into buf (NUL-terminated, trailing newline stripped).  Returns 0,
 * -ENOENT/-EACCES/... from openat/read, -EBADFD if it is not a regular
 * file, -EFBIG if it does not fit into size-1 bytes. */
int fileio_read_string_at(int dirfd, const char *path, char *buf, size_t size);

/* What fileio_read_regular_at() does with a file it is asked to read. */
enum {
        FILEIO_NOFOLLOW   = 1u << 0,   /* a symbolic link (as the last component) is refused: -ELOOP */
        FILEIO_OWNER_EUID = 1u << 1,   /* a file not owned by geteuid() is refused: -EPERM */
};

/* Reads the whole regular file dirfd/path, of at most max_size bytes, into
 * a malloc'ed NUL-terminated string (*ret, length in *ret_size if not
 * NULL).  Never blocks and never reads more than max_size + 1 bytes: the
 * file is opened O_RDONLY|O_NONBLOCK|O_NOCTTY|O_CLOEXEC and fstat()ed
 * before anything is read.  Returns 0, or
 *   -EINVAL   path is absolute or empty, or max_size is too large
 *   -EBADFD   not a regular file (FIFO, device such as /dev/zero behind a
 *             symlink, directory, socket)
 *   -ELOOP    a symbolic link, with FILEIO_NOFOLLOW (or a loop of them)
 *   -EPERM    not owned by the effective user, with FILEIO_OWNER_EUID
 *   -EFBIG    larger than max_size (by its size, or by what a read found:
 *             files can grow, /proc files report a size of 0)
 *   -EBADMSG  a NUL byte inside (it is text)
 *   -ENOMEM, or the errno of openat/fstat/read (-ENOENT, -EACCES, ...).
 * fileio_error_reason() names these for messages.  *ret is untouched on
 * failure. */
int fileio_read_regular_at(int dirfd, const char *path, size_t max_size, unsigned flags,
                           char **ret, size_t *ret_size);

/* A short human reason for an error of fileio_read_regular_at() or
 * fileio_open_beneath(), for messages such as "Failed to read %s: %s": "not
 * a regular file" (-EBADFD), "a symbolic link" (-ELOOP), "outside its
 * directory" (-EXDEV), "larger than the limit" (-EFBIG), "not owned by the
 * daemon's user" (-EPERM), "contains a NUL byte" (-EBADMSG), else
 * strerror().  r may be negative or positive.  Returns a static string. */
const char *fileio_error_reason(int r);

/* The bound of fileio_read_alloc_at(): 64 MiB. */
#define FILEIO_ALLOC_MAX ((size_t) 64 * 1024 * 1024)

/* fileio_read_regular_at(dirfd, path, FILEIO_ALLOC_MAX, 0, ...) but a NUL
 * byte is allowed (the length says where the data ends).  For files the
 * caller does not judge as text.  Returns 0 or the negative errnos of
 * fileio_read_regular_at() but -EBADMSG. */
int fileio_read_alloc_at(int dirfd, const char *path, char **ret_content, size_t *ret_size);

/* Re-reads an already open file from offset 0 with pread() into buf
 * (NUL-terminated, trailing newline stripped).  Returns the length read,
 * or a negative errno (-ENODEV for a stale sysfs file, -EFBIG if too long). */
int fileio_pread_string(int fd, char *buf, size_t size);

/* Re-reads an open sysfs attribute with a single pread() from offset 0 (the
 * kernel produces an attribute whole at the first read) into buf of size
 * bytes (NUL-terminated, one trailing newline stripped; EINTR retried).
 * Returns the length, -EFBIG when the file does not fit in size - 1 bytes,
 * or -errno (-ENODEV: the attribute is gone). */
int fileio_pread_once(int fd, char *buf, size_t size);

/* pread()s a whole file from offset 0 into a growing buffer (*buf of *size
 * bytes, realloc'ed as needed, NUL-terminated), reading at most
 * max_size + 1 bytes (max_size below INT_MAX).  Returns the length read,
 * -EFBIG if the file holds more than max_size bytes, or a negative errno. */
int fileio_pread_alloc(int fd, size_t max_size, char **buf, size_t *size);

/* Strict unsigned decimal parse of the whole string (one trailing newline
 * allowed): no sign, no spaces, no trailing garbage, no overflow.
 * Returns 0 or -EINVAL/-ERANGE; *ret untouched on failure. */
int parse_u64(const char *s, uint64_t *ret);

/* parse_u64 limited to UINT32_MAX. */
int parse_u32(const char *s, uint32_t *ret);

/* Reads and parses a u64 file.  Returns 0 or a negative errno. */
int fileio_read_u64_at(int dirfd, const char *path, uint64_t *ret);

/* Writes value (no newline needed) to an existing regular file dirfd/path
 * with O_WRONLY|O_TRUNC|O_NOFOLLOW|O_NONBLOCK (no O_CREAT), never blocking:
 * a symbolic link as the last component gives -ELOOP, a file that is not
 * regular (a FIFO, with or without a reader, a device, a socket) -EBADFD;
 * nothing is written then.  Returns 0 or the negative errno of the
 * open/write (the kernel's verdict, e.g. -EINVAL for a bad governor name). */
int fileio_write_string_at(int dirfd, const char *path, const char *value);

/* Opens the regular file dirfd/path O_RDONLY|O_NONBLOCK|O_NOCTTY|O_CLOEXEC
 * (symlinks followed), to be kept and re-read.  Returns the fd, -EINVAL
 * for an absolute or empty path, -EBADFD if it is not a regular file, or
 * another negative errno. */
int fileio_open_at(int dirfd, const char *path);

/* Opens path below dirfd (relative; a directory handle, also O_PATH) and
 * nothing else: no symbolic link is followed in any component, the last
 * one included, and no component leaves dirfd.  Mount points on the way
 * are crossed (a cgroup v1 hierarchy is a mount inside the cgroup tmpfs).
 * flags: the access mode, with O_PATH, O_DIRECTORY, O_TRUNC as wanted (no
 * O_CREAT); O_CLOEXEC|O_NOCTTY are added, and O_NONBLOCK but to O_PATH,
 * so that a FIFO never blocks.  This is the way the daemon opens every
 * file of a cgroup, relative to the cgroup mount's fd.
 *
 * openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS) does
 * it where the kernel has it (5.6 and later); where the call answers
 * ENOSYS (an older kernel) or EPERM (a seccomp filter that does not know
 * it), each call falls back to fileio_open_beneath_walk().  Returns the
 * fd, or
 *   -EINVAL   path absolute or empty, or a flag not listed above
 *   -EXDEV    a ".." component (refused before anything is opened)
 *   -ELOOP    a symbolic link in any component
 *   -ENOTDIR  a component on the way that is not a directory (or O_DIRECTORY
 *             and the file is not one)
 *   -ENOENT, -EACCES, -ENXIO (a FIFO without a reader opened for writing),
 *   -EISDIR (a directory opened for writing), or another errno of the open. */
int fileio_open_beneath(int dirfd, const char *path, int flags);

/* The fallback of fileio_open_beneath(), public so that the tests run it
 * on any kernel: one openat(O_PATH|O_NOFOLLOW) per directory on the way,
 * each checked to be a directory and not a link, the last component opened
 * O_NOFOLLOW with flags.  Race-free like openat2(): each step is relative
 * to the directory the previous one opened.  Returns as
 * fileio_open_beneath(). */
int fileio_open_beneath_walk(int dirfd, const char *path, int flags);

/* fileio_open_at(), fileio_read_string_at() and fileio_write_string_at()
 * through fileio_open_beneath(): a symbolic link anywhere in path is
 * -ELOOP, a ".." component -EXDEV, a file that is not regular (a FIFO,
 * with or without a reader, a directory, a socket, a device) -EBADFD;
 * nothing is written then.  Return as their _at() counterparts otherwise. */
int fileio_open_regular_beneath(int dirfd, const char *path);
int fileio_read_string_beneath(int dirfd, const char *path, char *buf, size_t size);
int fileio_write_string_beneath(int dirfd, const char *path, const char *value);

/* Closes *fd if >= 0 and sets it to -1 (for __attribute__((cleanup))). */
void fileio_closep(int *fd);
#define _cleanup_close_ _cleanup_(fileio_closep)
