/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* CPU topology from sys/devices/system/cpu: present and online CPUs,
 * package/die/core ids and SMT siblings.  Offline CPUs have no topology
 * directory on most kernels: their ids are -1 and siblings empty. */

#include <stdbool.h>

#include "cleanup.h"

#include "cpuset.h"
#include "errinfo.h"

typedef struct TopologyCpu {
        unsigned id;
        bool present;
        bool online;
        int package_id;          /* -1 when unknown (offline, or file missing) */
        int die_id;
        int core_id;
        CpuSet siblings;         /* thread_siblings_list; empty when unknown */
} TopologyCpu;

typedef struct Topology {
        CpuSet present;
        CpuSet online;
        unsigned n_cpus;         /* cpuset_span(&present): cpus[] has this many entries */
        TopologyCpu *cpus;       /* indexed by CPU id; holes have present == false */
        int online_fd;           /* "online", kept open by topology_online_changed(); -1 before */
} Topology;

/* Loads the topology through root_fd (paths "sys/devices/system/cpu/...").
 * "online" missing means all present CPUs are online (no hotplug support).
 * Returns 0 or a negative errno with e set; *ret untouched on failure. */
int topology_load(int root_fd, Topology **ret, ErrorInfo *e);

/* Re-reads only the online mask (cheap: one pread() of a file it keeps
 * open in t, reopened when the read fails with ENODEV/ENOENT; while the file
 * is missing it is looked for at every call; root_fd must be the tree t was
 * loaded from).  sysfs never replaces the file; a test tree must rewrite it
 * in place, as the fake tree does.  Returns 1 if it changed (then call
 * topology_load() again), 0 if not, negative errno on failure. */
int topology_online_changed(int root_fd, Topology *t);

/* Frees t (NULL allowed).  Returns NULL. */
Topology *topology_free(Topology *t);
void topology_freep(Topology **t);
#define _cleanup_topology_ _cleanup_(topology_freep)
