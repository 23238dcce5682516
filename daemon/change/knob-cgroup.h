/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A cgroup's cpuset.cpus as a knob (a cgroup pin, consolidation's
 * background):
 *
 *   cgroup:/ABS/cpuset.cpus   the v1 cpuset hierarchy, or v2 with the
 *                             cpuset controller, strictly under the cgroup
 *                             mount (KnobEnv.cgroup_root): never the root
 *                             cgroup, no "." or ".." component, no "//"
 *
 * The value is a CPU list, possibly empty (v2: inherit the parent's).
 * The file is read and written below the mount's fd with
 * fileio_read_string_beneath() and fileio_write_string_beneath(): no
 * symbolic link is followed anywhere in its path (-ELOOP), a FIFO or a
 * directory is refused (-EBADFD), nothing is written then.  A restore
 * (the journal's replay included) forgets such a knob's original, logged:
 * it is never written through. */

#include <stdbool.h>
#include <stddef.h>

#include "knob-type.h"

#define KNOB_CGROUP_PREFIX "cgroup:"

extern const KnobType knob_type_cgroup;

/* Sets env's cgroup mount (absolute and normal, not "/"), opening it when
 * it exists (a missing one leaves cgroup_fd -1: every cgroup knob is then
 * gone).  Returns 0, -EINVAL, -ENAMETOOLONG. */
int knob_env_set_cgroup_root(KnobEnv *env, const char *root);

/* Formats the key of the cpuset.cpus of the cgroup at the absolute
 * directory dir.  Returns 0, -EINVAL (not under env's cgroup mount, not
 * normal), -ENAMETOOLONG. */
int knob_cgroup_key(const KnobEnv *env, const char *dir, char *buf, size_t size);

/* Why a cgroup file's open below the mount failed, when the daemon refuses
 * it (-ELOOP, -EXDEV, -ENOTDIR, -EBADFD: fileio_open_beneath() and
 * fileio_open_regular_beneath()): a static string for messages, or NULL for
 * another error. */
const char *knob_cgroup_refusal(int r);

/* Returns true for an absolute path without "//", "." or ".." components
 * and without a trailing '/' (except "/" itself). */
bool knob_path_is_normal(const char *p);
