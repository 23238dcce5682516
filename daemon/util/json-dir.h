/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The administrator's directories of NAME.json files (profiles.d,
 * pins.d): each file read in name order, bounded, symbolic links followed
 * to a regular file (the administrator may link one from elsewhere). */

#include <stddef.h>

/* Called per file with its path (for messages) and text.  Returns 0, a
 * negative errno for a bad file (the callback logged why), or -ENOMEM
 * (stops the walk). */
typedef int (*JsonDirFunc)(const char *path, const char *text, size_t len, void *userdata);

/* Calls fn for every NAME.json of dir (NAME not empty, not hidden) of at
 * most max bytes; a missing directory has none (logged at debug level),
 * an unreadable one or file is logged.  Returns the number of bad files,
 * or -ENOMEM. */
int json_dir_foreach(const char *dir, size_t max, JsonDirFunc fn, void *userdata);

/* The same for a directory whose files decide what root does (pins.d),
 * taken as sudo takes sudoers: the directory and each file (the target of
 * its symbolic link) must be owned by root or the daemon's user and
 * writable by neither others nor a group other than root's
 * (safe_stat_check()).  A refused directory or file is logged with its
 * name and why, and counts as bad (a refused directory as one). */
int json_dir_foreach_root_only(const char *dir, size_t max, JsonDirFunc fn, void *userdata);
