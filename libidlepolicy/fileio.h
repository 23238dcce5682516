/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Small, strict file helpers.  Every path is relative to a directory fd (the
 * root handle: "/" in the daemon, a test tree in tests); absolute paths are
 * refused with -EINVAL so that nothing escapes the root by accident. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads the whole file at dirfd/path into buf (NUL-terminated, trailing
 * newline stripped).  Returns 0, -ENOENT/-EACCES/... from openat/read,
 * -EFBIG if it does not fit into size-1 bytes. */
int fileio_read_string_at(int dirfd, const char *path, char *buf, size_t size);

/* Like fileio_read_string_at() but allocates; *ret_content must be freed.
 * Reads files of any size (for /proc/interrupts on large machines). */
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

/* pread()s a whole file into a growing buffer (*buf of *size bytes, realloc'ed
 * as needed).  Returns the length read, or a negative errno. */
int fileio_pread_alloc(int fd, char **buf, size_t *size);

/* Strict unsigned decimal parse of the whole string (one trailing newline
 * allowed): no sign, no spaces, no trailing garbage, no overflow.
 * Returns 0 or -EINVAL/-ERANGE; *ret untouched on failure. */
int parse_u64(const char *s, uint64_t *ret);

/* parse_u64 limited to UINT32_MAX. */
int parse_u32(const char *s, uint32_t *ret);

/* Reads and parses a u64 file.  Returns 0 or a negative errno. */
int fileio_read_u64_at(int dirfd, const char *path, uint64_t *ret);

/* Writes value (no newline needed) to an existing file dirfd/path with
 * O_WRONLY|O_TRUNC (no O_CREAT).  Returns 0 or the negative errno of the
 * open/write (the kernel's verdict, e.g. -EINVAL for a bad governor name). */
int fileio_write_string_at(int dirfd, const char *path, const char *value);

/* Opens dirfd/path O_RDONLY|O_CLOEXEC.  Returns the fd or a negative errno. */
int fileio_open_at(int dirfd, const char *path);

/* Closes *fd if >= 0 and sets it to -1 (for __attribute__((cleanup))). */
void fileio_closep(int *fd);
#define _cleanup_close_ __attribute__((cleanup(fileio_closep)))

void freep(void *p);
#define _cleanup_free_ __attribute__((cleanup(freep)))
