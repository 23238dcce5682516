/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The numbered entries of a directory (proc/ and proc/PID/task/ for pins,
 * proc/irq/ for consolidation), through a directory fd like fileio.h. */

#include <stddef.h>

/* Lists the entries of dirfd/path whose names are canonical decimals (no
 * sign, no leading zero but "0" itself) of at most max, sorted ascending,
 * into a malloc'ed *ret (NULL when there are none) of *ret_n.  Other
 * entries are skipped.  Returns 0, -EINVAL for an absolute or empty path,
 * -ENOMEM, or the errno of openat/readdir (-ENOENT, -ENOTDIR, ...); *ret
 * untouched on failure. */
int dir_list_numeric_at(int dirfd, const char *path, unsigned max, unsigned **ret, size_t *ret_n);
