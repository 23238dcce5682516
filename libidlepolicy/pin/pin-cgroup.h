/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Where a cgroup pin's target lives in the cgroup file system.
 *
 * Container runtimes name a container's cgroup (the OCI runtime spec's
 * linux.cgroupsPath, what NRI hands a plugin) in one of two forms:
 *
 *   cgroupfs   a path: "/kubepods/burstable/pod<uid>/<id>"
 *   systemd    "SLICE:PREFIX:NAME", e.g.
 *              "kubepods-burstable-pod<uid>.slice:cri-containerd:<id>"
 *
 * The systemd form is expanded the way runc's systemd driver does: SLICE
 * ("" = system.slice, "-.slice" = the root) becomes a path with one
 * directory per dash ("a-b.slice" → "a.slice/a-b.slice"), NAME becomes the
 * unit "PREFIX-NAME.scope" (a NAME ending in ".slice" is taken as it is)
 * below it.
 *
 * The path is relative to one cgroup hierarchy.  Where the cgroup mount the
 * daemon is given (/sys/fs/cgroup) is itself a hierarchy (cgroup v2, or a
 * v1 hierarchy given with --cgroup-root) that is all.  On a v1 or hybrid
 * machine /sys/fs/cgroup is a tmpfs holding one mount per controller: the
 * path is then placed in the cpuset hierarchy, found in
 * proc/self/mountinfo below the cgroup mount ("cpuset/kubepods/…"); a path
 * that already starts with that mount's directory ("cpuset/NAME", how
 * such pins were written before) is kept as it is.
 *
 * Pure: files are read through directory handles only. */

#include <stdbool.h>

#include "errinfo.h"
#include "pin-target.h"

/* A resolved path's bytes, NUL included. */
#define PIN_CGROUP_PATH_MAX PIN_TARGET_VALUE_MAX

/* A v1 cpuset hierarchy's mount below the cgroup mount. */
typedef struct PinCgroupMount {
        char dir[PIN_CGROUP_PATH_MAX];  /* its mount point relative to the cgroup mount: "cpuset" */
        char root[PIN_CGROUP_PATH_MAX]; /* the part of the hierarchy mounted there, relative: "" = all of it */
} PinCgroupMount;

/* Returns true if value (a cgroup target's value, normalised by
 * pin_target_parse()) has the systemd form: no '/' and exactly two ':'. */
bool pin_cgroup_is_systemd(const char *value);

/* Returns NULL if value is not of the systemd form or is a valid one,
 * else why it is invalid (a static string). */
const char *pin_cgroup_systemd_error(const char *value);

/* Writes the path that value names, relative to its hierarchy's root, into
 * ret (PIN_CGROUP_PATH_MAX bytes): a path as it is, the systemd form
 * expanded.  Returns 0, or -EBADMSG with e naming what is wrong (a slice
 * that does not end in ".slice", an empty dash-separated component, an
 * empty NAME, a result longer than 1023 bytes); ret untouched then. */
int pin_cgroup_expand(const char *value, char *ret, ErrorInfo *e);

/* Finds in mountinfo (the text of proc/self/mountinfo) the first mount of
 * a cgroup v1 hierarchy with the cpuset controller whose mount point lies
 * strictly below cgroup_root (absolute, normalised: "/sys/fs/cgroup").
 * Returns 1 with *ret filled, 0 when there is none (*ret untouched). */
int pin_cgroup_find_cpuset(const char *mountinfo, const char *cgroup_root, PinCgroupMount *ret);

/* Places path (relative to its hierarchy's root) below the cgroup mount:
 * with m NULL as it is; else below m->dir, less m->root where it starts
 * with it; kept as it is when it already starts with m->dir.  Returns 0,
 * or -EBADMSG with e set when the result is longer than 1023 bytes or the
 * path lies outside the part of the hierarchy mounted (m->root). */
int pin_cgroup_place(const char *path, const PinCgroupMount *m, char *ret, ErrorInfo *e);

/* The whole: value expanded and placed.  cgroup_fd is the cgroup mount
 * (cgroup_root, absolute), host_fd the root whose proc/self/mountinfo
 * tells the mounts; mountinfo is read only when cgroup_fd holds no
 * cgroup.procs (it is not a hierarchy itself; a symbolic link of that
 * name, as one could plant in a v1 machine's tmpfs, is not followed and
 * does not count).  Returns 0 with the path
 * relative to cgroup_fd in ret (PIN_CGROUP_PATH_MAX bytes), or -EBADMSG
 * with e set (as above), -ENOMEM. */
int pin_cgroup_resolve(int host_fd, int cgroup_fd, const char *cgroup_root, const char *value, char *ret,
                       ErrorInfo *e);
