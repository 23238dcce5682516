/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* File system helpers of the daemon's own directories (the runtime and
 * state directories): creating them, replacing a file atomically; and
 * handing a path given on the command line to the fileio helpers, which
 * take relative paths only. */

#include <stddef.h>
#include <sys/types.h>

/* Creates path (absolute) and its parents, mode 0755.  Returns 0 or a
 * negative errno. */
int mkdir_parents(const char *path);

/* Writes all of buf (retrying on EINTR).  Returns 0 or a negative errno. */
int write_all(int fd, const char *buf, size_t len);

/* Replaces dir_fd/name with text: written to "name.tmp", fsync'ed, renamed
 * over name, and the directory fsync'ed.  Returns 0 or a negative errno
 * (the old file stays). */
int write_file_atomic(int dir_fd, const char *name, const char *text);

/* The same, the file given mode (0: 0644 less the umask) whatever the
 * umask, before the rename. */
int write_file_atomic_mode(int dir_fd, const char *name, const char *text, mode_t mode);

/* Splits path for the fileio helpers: an absolute path becomes "/" (opened
 * into *ret_dir_fd, to be closed) and the rest (*ret_rel points into path,
 * past the leading slashes); a relative one AT_FDCWD and path itself.
 * Returns 0 or a negative errno. */
int path_open_base(const char *path, int *ret_dir_fd, const char **ret_rel);

/* The host's "/", opened once (O_PATH) and kept: processes are real
 * whatever root the idle knobs live under (--root), so their /proc is read
 * through this (the library's proc_read_stat() and friends take paths
 * like "proc/PID/stat").  Returns the fd (not the caller's to close) or a
 * negative errno. */
int host_root_fd(void);
