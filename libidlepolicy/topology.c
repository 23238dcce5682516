/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "sysfs-paths.h"
#include "topology.h"

/* Reads and parses a CPU list file.  Returns 0, -ENOENT if it is missing
 * (e untouched), -EBADMSG with e naming the file on bad content, or another
 * negative errno with e set; *ret untouched on failure. */
static int read_cpuset(int root_fd, const char *path, CpuSet *ret, ErrorInfo *e) {
        char buf[4096];
        ErrorInfo inner;
        int r;

        r = fileio_read_string_at(root_fd, path, buf, sizeof(buf));
        if (r == -ENOENT)
                return r;
        if (r < 0)
                return errinfo_set(e, r, "%s: %s", path, strerror(-r));
        r = cpuset_parse(buf, ret, &inner);
        if (r < 0)
                return errinfo_set(e, -EBADMSG, "%s: %s", path, inner.message);
        return 0;
}

/* Parses a topology id: a non-negative int, or "-1" (some architectures
 * show -1 for "unknown").  Returns 0 or -EINVAL. */
static int parse_topology_id(const char *s, int *ret) {
        uint64_t v;

        if (strcmp(s, "-1") == 0) {
                *ret = -1;
                return 0;
        }
        if (parse_u64(s, &v) < 0 || v > INT_MAX)
                return -EINVAL;
        *ret = (int) v;
        return 0;
}

/* Reads cpuN/topology/<name> into *ret.  A missing file leaves *ret at -1.
 * Returns 0 or a negative errno with e naming the file. */
static int read_topology_id(int root_fd, unsigned cpu, const char *name, int *ret, ErrorInfo *e) {
        char path[128], buf[64];
        int r;

        snprintf(path, sizeof(path), SYSFS_CPU_TOPOLOGY_FMT, cpu, name);
        r = fileio_read_string_at(root_fd, path, buf, sizeof(buf));
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return errinfo_set(e, r, "%s: %s", path, strerror(-r));
        if (parse_topology_id(buf, ret) < 0)
                return errinfo_set(e, -EBADMSG, "%s: invalid id \"%s\"", path, buf);
        return 0;
}

/* Fills one CPU's ids and siblings.  Returns 0 or a negative errno. */
static int load_cpu(int root_fd, TopologyCpu *c, ErrorInfo *e) {
        char path[128];
        int r;

        r = read_topology_id(root_fd, c->id, "physical_package_id", &c->package_id, e);
        if (r >= 0)
                r = read_topology_id(root_fd, c->id, "die_id", &c->die_id, e);
        if (r >= 0)
                r = read_topology_id(root_fd, c->id, "core_id", &c->core_id, e);
        if (r < 0)
                return r;

        snprintf(path, sizeof(path), SYSFS_CPU_TOPOLOGY_FMT, c->id, "thread_siblings_list");
        r = read_cpuset(root_fd, path, &c->siblings, e);
        return r == -ENOENT ? 0 : r;
}

/* Returns online limited to the present CPUs. */
static CpuSet online_of_present(const CpuSet *online, const CpuSet *present) {
        CpuSet r = *online;

        for (unsigned i = 0; i < CPUSET_MAX / 64; i++)
                r.bits[i] &= present->bits[i];
        return r;
}

/* Reads the online mask, limited to present CPUs ("online" missing: all
 * present CPUs).  Returns 0 or a negative errno with e set. */
static int read_online(int root_fd, const CpuSet *present, CpuSet *ret, ErrorInfo *e) {
        CpuSet online;
        int r;

        r = read_cpuset(root_fd, SYSFS_CPU_ONLINE, &online, e);
        if (r == -ENOENT)
                online = *present;
        else if (r < 0)
                return r;
        *ret = online_of_present(&online, present);
        return 0;
}

Topology *topology_free(Topology *t) {
        if (t) {
                fileio_closep(&t->online_fd);
                free(t->cpus);
                free(t);
        }
        return NULL;
}

void topology_freep(Topology **t) {
        topology_free(*t);
}

/* Allocates a topology with the present and online masks read.  Returns 0
 * or a negative errno with e set. */
static int topology_alloc(int root_fd, Topology **ret, ErrorInfo *e) {
        _cleanup_topology_ Topology *t = calloc(1, sizeof(Topology));
        int r;

        if (!t)
                return -ENOMEM;
        t->online_fd = -1;
        r = read_cpuset(root_fd, SYSFS_CPU_PRESENT, &t->present, e);
        if (r == -ENOENT)
                return errinfo_set(e, r, SYSFS_CPU_PRESENT ": %s", strerror(-r));
        if (r < 0)
                return r;
        t->n_cpus = cpuset_span(&t->present);
        if (t->n_cpus == 0)
                return errinfo_set(e, -EBADMSG, SYSFS_CPU_PRESENT ": no CPU listed");
        r = read_online(root_fd, &t->present, &t->online, e);
        if (r < 0)
                return r;
        t->cpus = calloc(t->n_cpus, sizeof(TopologyCpu));
        if (!t->cpus)
                return -ENOMEM;
        *ret = t;
        t = NULL;
        return 0;
}

int topology_load(int root_fd, Topology **ret, ErrorInfo *e) {
        _cleanup_topology_ Topology *t = NULL;
        int r;

        r = topology_alloc(root_fd, &t, e);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < t->n_cpus; i++) {
                TopologyCpu *c = &t->cpus[i];

                *c = (TopologyCpu) { .id = i, .package_id = -1, .die_id = -1, .core_id = -1 };
                c->present = cpuset_contains(&t->present, i);
                c->online = cpuset_contains(&t->online, i);
                if (!c->present)
                        continue;
                r = load_cpu(root_fd, c, e);
                if (r < 0)
                        return r;
        }
        *ret = t;
        t = NULL;
        return 0;
}

/* Re-reads "online" into buf (fileio_pread_once()) through t->online_fd,
 * opening it first if needed and once more if it went stale.  Returns 0,
 * -ENOENT if there is no such file, -EFBIG if it does not fit, or another
 * negative errno. */
static int reread_online(int root_fd, Topology *t, char *buf, size_t size) {
        int r = 0;

        for (unsigned attempt = 0; attempt < 2; attempt++) {
                if (t->online_fd < 0) {
                        int fd = fileio_open_at(root_fd, SYSFS_CPU_ONLINE);
                        if (fd < 0)
                                return fd;
                        t->online_fd = fd;
                }
                r = fileio_pread_once(t->online_fd, buf, size);
                if (r != -ENODEV && r != -ENOENT)
                        break;
                fileio_closep(&t->online_fd);
        }
        return r < 0 ? r : 0;
}

int topology_online_changed(int root_fd, Topology *t) {
        char buf[4096];
        CpuSet online;
        int r;

        r = reread_online(root_fd, t, buf, sizeof(buf));
        if (r == -ENOENT)
                online = t->present;
        else if (r < 0)
                return r;
        else if (cpuset_parse(buf, &online, NULL) < 0)
                return -EBADMSG;
        online = online_of_present(&online, &t->present);
        return cpuset_equal(&online, &t->online) ? 0 : 1;
}
