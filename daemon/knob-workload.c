/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "dirlist.h"
#include "fileio.h"
#include "fs-util.h"
#include "knob-workload.h"
#include "log.h"
#include "macro.h"
#include "pin-proc.h"
#include "systemd-unit.h"

#define CPUSET_FILE "/cpuset.cpus"

static char cgroup_root[KNOB_CGROUP_PATH_MAX] = "/sys/fs/cgroup";
static int cgroup_fd = -1;              /* cgroup_root, opened at first use */
static sd_bus *system_bus;              /* unit knobs' (a reference), NULL: not now */
static char irq_root[KNOB_CGROUP_PATH_MAX] = "/proc";
static int irq_fd = -1;                 /* irq_root, opened at first use */

/* Returns true for an absolute path without "//", "." or ".." components
 * and without a trailing '/' (except "/" itself). */
static bool path_is_normal(const char *p) {
        size_t n = strlen(p);

        if (p[0] != '/' || (n > 1 && p[n - 1] == '/'))
                return false;
        for (const char *c = p; *c; c++) {
                if (*c != '/')
                        continue;
                if (c[1] == '/' || (c[1] == '.' && (c[2] == '/' || c[2] == '\0')) ||
                    (c[1] == '.' && c[2] == '.' && (c[3] == '/' || c[3] == '\0')))
                        return false;
        }
        return true;
}

/* Returns 0 or -errno. */
int knob_workload_set_cgroup_root(const char *root) {
        if (!path_is_normal(root) || strcmp(root, "/") == 0)
                return -EINVAL;
        if (strlen(root) >= sizeof(cgroup_root))
                return -ENAMETOOLONG;
        snprintf(cgroup_root, sizeof(cgroup_root), "%s", root);
        fileio_closep(&cgroup_fd);
        return 0;
}

/* The cgroup mount's fd and k's path relative to it (the library's file
 * helpers take no absolute path).  Returns the fd or -errno. */
static int cgroup_file(const WorkloadKnob *k, const char **ret_rel) {
        if (cgroup_fd < 0) {
                cgroup_fd = open(cgroup_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (cgroup_fd < 0)
                        return -errno;
        }
        *ret_rel = k->path + strlen(cgroup_root) + 1;
        return cgroup_fd;
}

/* Returns 0 or -errno. */
int knob_workload_set_irq_root(const char *root) {
        if (!path_is_normal(root))
                return -EINVAL;
        if (strlen(root) >= sizeof(irq_root))
                return -ENAMETOOLONG;
        snprintf(irq_root, sizeof(irq_root), "%s", root);
        fileio_closep(&irq_fd);
        return 0;
}

char *knob_irq_key(unsigned irq, char *buf, size_t size) {
        snprintf(buf, size, KNOB_IRQ_PREFIX "%u", irq);
        return buf;
}

/* The proc mount's fd, opened at first use.  Returns it or -errno. */
static int irq_root_fd(void) {
        if (irq_fd < 0) {
                irq_fd = open(irq_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (irq_fd < 0)
                        return -errno;
        }
        return irq_fd;
}

/* The proc mount's fd and k's file relative to it in rel.  Returns the fd
 * or -errno. */
static int irq_file(const WorkloadKnob *k, char rel[static 64]) {
        snprintf(rel, 64, "irq/%u/smp_affinity_list", k->irq);
        return irq_root_fd();
}

/* Returns 0 or -errno. */
int knob_irq_list(unsigned **ret, size_t *ret_n) {
        int fd = irq_root_fd();

        return fd < 0 ? fd : dir_list_numeric_at(fd, "irq", KNOB_IRQ_MAX, ret, ret_n);
}

const char *knob_workload_cgroup_root(void) {
        return cgroup_root;
}

void knob_workload_set_system_bus(sd_bus *bus) {
        sd_bus_unref(system_bus);
        system_bus = sd_bus_ref(bus);
}

sd_bus *knob_workload_system_bus(void) {
        return system_bus;
}

/* Returns buf. */
char *knob_task_key(pid_t tid, uint64_t start_time, char *buf, size_t size) {
        snprintf(buf, size, KNOB_TASK_PREFIX "%d:%" PRIu64, (int) tid, start_time);
        return buf;
}

/* Returns true if path lies strictly below the cgroup mount. */
static bool under_cgroup_root(const char *path) {
        size_t n = strlen(cgroup_root);

        return strncmp(path, cgroup_root, n) == 0 && path[n] == '/' && path[n + 1] != '\0';
}

/* Returns 0 or -errno. */
int knob_cgroup_key(const char *dir, char *buf, size_t size) {
        if (!path_is_normal(dir) || !under_cgroup_root(dir))
                return -EINVAL;
        if ((size_t) snprintf(buf, size, KNOB_CGROUP_PREFIX "%s" CPUSET_FILE, dir) >= size)
                return -ENAMETOOLONG;
        return 0;
}

/* Returns 0, -EINVAL or -ENAMETOOLONG. */
int knob_unit_key(const char *unit, char *buf, size_t size) {
        if (systemd_unit_check_name(unit, NULL) < 0)
                return -EINVAL;
        if ((size_t) snprintf(buf, size, KNOB_UNIT_PREFIX "%s", unit) >= size)
                return -ENAMETOOLONG;
        return 0;
}

/* Parses "TID:START".  Returns 0 or -EINVAL. */
static int parse_task(const char *s, WorkloadKnob *ret) {
        char tid[16];
        const char *colon = strchr(s, ':');
        uint64_t t, start;

        if (!colon || (size_t) (colon - s) >= sizeof(tid))
                return -EINVAL;
        memcpy(tid, s, (size_t) (colon - s));
        tid[colon - s] = '\0';
        if (parse_u64(tid, &t) < 0 || t == 0 || t > PIN_TARGET_PID_MAX || parse_u64(colon + 1, &start) < 0 ||
            strchr(colon + 1, '\n'))
                return -EINVAL;
        *ret = (WorkloadKnob) { .kind = WORKLOAD_KNOB_TASK, .tid = (pid_t) t, .start_time = start };
        return 0;
}

/* Returns 0 or -EINVAL. */
int knob_workload_parse(const char *key, WorkloadKnob *ret) {
        if (strncmp(key, KNOB_TASK_PREFIX, strlen(KNOB_TASK_PREFIX)) == 0)
                return parse_task(key + strlen(KNOB_TASK_PREFIX), ret);
        if (strncmp(key, KNOB_CGROUP_PREFIX, strlen(KNOB_CGROUP_PREFIX)) == 0) {
                const char *path = key + strlen(KNOB_CGROUP_PREFIX);
                size_t n = strlen(path), s = strlen(CPUSET_FILE);

                char dir[KNOB_CGROUP_PATH_MAX];

                if (n >= KNOB_CGROUP_PATH_MAX || n <= s || strcmp(path + n - s, CPUSET_FILE) != 0 ||
                    !path_is_normal(path) || strpbrk(path, " \n"))
                        return -EINVAL;
                /* the cgroup itself must lie below the mount: never the root cgroup */
                memcpy(dir, path, n - s);
                dir[n - s] = '\0';
                if (!under_cgroup_root(dir))
                        return -EINVAL;
                *ret = (WorkloadKnob) { .kind = WORKLOAD_KNOB_CGROUP, .path = path };
                return 0;
        }
        if (strncmp(key, KNOB_UNIT_PREFIX, strlen(KNOB_UNIT_PREFIX)) == 0) {
                const char *unit = key + strlen(KNOB_UNIT_PREFIX);

                if (systemd_unit_check_name(unit, NULL) < 0)
                        return -EINVAL;
                *ret = (WorkloadKnob) { .kind = WORKLOAD_KNOB_UNIT, .unit = unit };
                return 0;
        }
        if (strncmp(key, KNOB_IRQ_PREFIX, strlen(KNOB_IRQ_PREFIX)) == 0) {
                const char *n = key + strlen(KNOB_IRQ_PREFIX);
                uint64_t irq;

                if (strspn(n, "0123456789") != strlen(n) || (n[0] == '0' && n[1]) || parse_u64(n, &irq) < 0 ||
                    irq > KNOB_IRQ_MAX)
                        return -EINVAL;
                *ret = (WorkloadKnob) { .kind = WORKLOAD_KNOB_IRQ, .irq = (unsigned) irq };
                return 0;
        }
        return -EINVAL;
}

bool knob_workload_value_valid(const WorkloadKnob *k, const char *value) {
        CpuSet set;
        size_t n = strlen(value);

        if (n >= KNOB_CPULIST_MAX || (n == 0 && (k->kind == WORKLOAD_KNOB_TASK || k->kind == WORKLOAD_KNOB_IRQ)))
                return false;
        return strspn(value, "0123456789,-") == n && cpuset_parse(value, &set, NULL) >= 0;
}

/* Returns 0 if tid is the thread started at start_time, else -ENOENT. */
static int task_check(const WorkloadKnob *k) {
        ProcStat st;
        int root = host_root_fd(), r;

        if (root < 0)
                return root;
        r = proc_read_stat(root, k->tid, &st);
        if (r == -ESRCH || (r >= 0 && st.start_time != k->start_time))
                return -ENOENT;
        return r < 0 ? r : 0;
}

/* Returns 0 or -errno. */
int task_affinity_get(pid_t tid, CpuSet *ret) {
        size_t size = CPU_ALLOC_SIZE(CPUSET_MAX);
        _cleanup_free_ cpu_set_t *mask = CPU_ALLOC(CPUSET_MAX);

        if (!mask)
                return -ENOMEM;
        if (sched_getaffinity(tid, size, mask) < 0)
                return -errno;
        cpuset_clear(ret);
        for (unsigned cpu = 0; cpu < CPUSET_MAX; cpu++)
                if (CPU_ISSET_S(cpu, size, mask))
                        cpuset_add(ret, cpu);
        return 0;
}

/* Returns 0 or -errno. */
int task_affinity_set(pid_t tid, const CpuSet *cpus) {
        size_t size = CPU_ALLOC_SIZE(CPUSET_MAX);
        _cleanup_free_ cpu_set_t *mask = CPU_ALLOC(CPUSET_MAX);

        if (!mask)
                return -ENOMEM;
        CPU_ZERO_S(size, mask);
        CPUSET_FOREACH(cpu, cpus)
                CPU_SET_S((unsigned) cpu, size, mask);
        return sched_setaffinity(tid, size, mask) < 0 ? -errno : 0;
}

/* A unit's AllowedCPUs as a CPU list ("" when not set).  Returns 0,
 * -ENOENT, -ENOTCONN or another negative errno. */
static int unit_read(const WorkloadKnob *k, char *buf, size_t size) {
        ErrorInfo e = {};
        CpuSet set;
        bool is_set;
        int r;

        if (!system_bus)
                return -ENOTCONN;
        r = systemd_unit_get_allowed_cpus(system_bus, k->unit, &set, &is_set, &e);
        if (r < 0 && r != -ENOENT)
                log_warning("%s.", e.message);
        if (r < 0)
                return r;
        if (!is_set) {
                buf[0] = '\0';
                return 0;
        }
        return cpuset_format(&set, buf, size);
}

/* Sets a unit's AllowedCPUs to the CPU list value ("": not set).  Returns
 * 0, -ENOENT, -ENOTCONN or another negative errno. */
static int unit_write(const WorkloadKnob *k, const char *value) {
        ErrorInfo e = {};
        CpuSet set;
        int r;

        if (!system_bus)
                return -ENOTCONN;
        r = cpuset_parse(value, &set, NULL);
        if (r >= 0)
                r = systemd_unit_set_allowed_cpus(system_bus, k->unit, &set, &e);
        if (r < 0 && r != -ENOENT)
                log_warning("%s.", e.message);
        return r;
}

/* Returns 0, -ENOENT (gone) or another negative errno. */
int knob_workload_read(const WorkloadKnob *k, char *buf, size_t size) {
        CpuSet set;
        int r;

        if (k->kind == WORKLOAD_KNOB_UNIT)
                return unit_read(k, buf, size);
        if (k->kind == WORKLOAD_KNOB_IRQ) {
                char rel[64];
                int fd = irq_file(k, rel);

                r = fd < 0 ? fd : fileio_read_string_at(fd, rel, buf, size);
                return r < 0 ? r : 0;
        }

        if (k->kind == WORKLOAD_KNOB_CGROUP) {
                const char *rel;
                int fd = cgroup_file(k, &rel);

                r = fd < 0 ? fd : fileio_read_string_at(fd, rel, buf, size);
                return r < 0 ? r : 0;
        }
        r = task_check(k);
        if (r >= 0)
                r = task_affinity_get(k->tid, &set);
        if (r == -ESRCH)
                return -ENOENT;
        return r < 0 ? r : cpuset_format(&set, buf, size);
}

/* Returns 0, -ENOENT (gone), -EINVAL or another negative errno. */
int knob_workload_write(const WorkloadKnob *k, const char *value) {
        CpuSet set;
        int r;

        if (!knob_workload_value_valid(k, value))
                return -EINVAL;
        if (k->kind == WORKLOAD_KNOB_UNIT)
                return unit_write(k, value);
        if (k->kind == WORKLOAD_KNOB_IRQ) {
                char rel[64];
                int fd = irq_file(k, rel);

                return fd < 0 ? fd : fileio_write_string_at(fd, rel, value);
        }
        if (k->kind == WORKLOAD_KNOB_CGROUP) {
                /* A removed cgroup leaves no file to write: gone. */
                const char *rel;
                int fd = cgroup_file(k, &rel);

                r = fd < 0 ? fd : fileio_write_string_at(fd, rel, value[0] ? value : "\n");
                return r == -ENODEV ? -ENOENT : r;
        }
        r = cpuset_parse(value, &set, NULL);
        if (r >= 0)
                r = task_check(k);
        if (r >= 0)
                r = task_affinity_set(k->tid, &set);
        return r == -ESRCH ? -ENOENT : r;
}
