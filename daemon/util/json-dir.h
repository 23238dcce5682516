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
