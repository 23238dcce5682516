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
 * The value is a CPU list, possibly empty (v2: inherit the parent's). */

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

/* Returns true for an absolute path without "//", "." or ".." components
 * and without a trailing '/' (except "/" itself). */
bool knob_path_is_normal(const char *p);
