/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The directories the daemon creates its own files in (the runtime and
 * state directories, the metrics textfile's): opened from "/" one
 * component at a time, checking on the way that nobody but root and the
 * daemon's user can redirect the path, and that nobody else may plant
 * entries beside the daemon's files.  Files are then made in the returned
 * fd with openat() and friends (fs-util.h), never through a path again.
 *
 * The rules, in the spirit of sudo's for sudoers and OpenSSH's StrictModes:
 *   - every directory the path goes through (a symbolic link is followed,
 *     and counts as an entry of the directory holding it) is owned by root
 *     or the daemon's user, not writable by a group other than root's, and
 *     not writable by others unless it is sticky (like /tmp), in which case
 *     the entry taken from it is owned by root or the daemon's user;
 *   - the directory itself may belong to anyone (node_exporter's user may
 *     own the textfile's directory) but is not writable by others, sticky
 *     or not: anyone could replace the daemon's files there. */

#include <sys/stat.h>

#include "errinfo.h"

/* Whether only root and the daemon's user can change the file or
 * directory of st: owned by one of them, writable neither by a group other
 * than root's nor by others.  Returns 0 or -EPERM with e saying why,
 * without a name ("owned by uid 65534, not root", "writable by others
 * (mode 0646)", "writable by group 100 (mode 0664)"). */
int safe_stat_check(const struct stat *st, ErrorInfo *e);

/* Opens the directory path (absolute).  Returns the fd (O_RDONLY |
 * O_DIRECTORY | O_CLOEXEC, the caller's to close), -EPERM with e naming
 * the directory and why ("/srv/m is writable by others (mode 0777)"),
 * -EINVAL for a relative path, -ELOOP for more than 40 symbolic links, or
 * the errno of a component that cannot be reached (-ENOENT, -ENOTDIR,
 * -EACCES, ...), e set. */
int safe_dir_open(const char *path, ErrorInfo *e);
