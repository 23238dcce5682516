/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The knobs a pin changes on a workload (issue 12), beside the idle knobs
 * of knob.h, journaled and put back the same way.  Their journal keys are
 * not sysfs paths:
 *
 *   task:TID:START            a thread's CPU affinity (sched_setaffinity);
 *                             START is the thread's start time (field 22
 *                             of /proc/TID/stat), so a reused TID is never
 *                             touched: the thread that was pinned is gone
 *   cgroup:/ABS/cpuset.cpus   a cgroup's cpuset.cpus (v1 cpuset hierarchy,
 *                             or v2 with the cpuset controller), under the
 *                             cgroup mount (knob_workload_set_cgroup_root)
 *   unit:NAME                 a systemd unit's AllowedCPUs (systemd-unit.h),
 *                             NAME as pin_target_parse() accepts it, of a
 *                             type with a cgroup (.service, .scope, .slice,
 *                             .socket, .mount, .swap)
 *   irq:N                     a device interrupt's affinity,
 *                             /proc/irq/N/smp_affinity_list, under the
 *                             proc mount (knob_workload_set_irq_root);
 *                             consolidation's level 2 steers them
 *
 * Values are CPU lists ("0-3,8"); a cgroup's may be empty (v2: inherit
 * the parent's), and so may a unit's (AllowedCPUs not set).  Threads are
 * real processes: they are read through the host's /proc whatever root
 * the daemon's idle knobs live under; cgroup paths are absolute, checked
 * against the cgroup mount.  Units are reached through the system bus
 * set with knob_workload_set_system_bus(); without one a unit knob is
 * -ENOTCONN ("not now": the journal keeps it for later). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-bus.h>

#include "cpuset.h"

#define KNOB_TASK_PREFIX "task:"
#define KNOB_CGROUP_PREFIX "cgroup:"
#define KNOB_UNIT_PREFIX "unit:"
#define KNOB_IRQ_PREFIX "irq:"
/* The largest IRQ number taken (the kernel's NR_IRQS is far below). */
#define KNOB_IRQ_MAX 1000000u
/* A CPU list as long as any machine's (8192 CPUs listed one by one). */
#define KNOB_CPULIST_MAX 40960
/* A cgroup knob's path. */
#define KNOB_CGROUP_PATH_MAX 4096

typedef enum WorkloadKnobKind {
        WORKLOAD_KNOB_TASK,
        WORKLOAD_KNOB_CGROUP,
        WORKLOAD_KNOB_UNIT,
        WORKLOAD_KNOB_IRQ,
} WorkloadKnobKind;

typedef struct WorkloadKnob {
        WorkloadKnobKind kind;
        pid_t tid;                    /* task */
        uint64_t start_time;          /* task */
        const char *path;             /* cgroup: the absolute file (points into the key) */
        const char *unit;             /* unit: its name (points into the key) */
        unsigned irq;                 /* irq */
} WorkloadKnob;

/* Sets the cgroup mount the cgroup knobs must lie under (default
 * /sys/fs/cgroup; tests use a temporary tree).  Returns 0 or -EINVAL for
 * a path that is not absolute and normal, -ENAMETOOLONG. */
int knob_workload_set_cgroup_root(const char *root);
/* The cgroup mount in use. */
const char *knob_workload_cgroup_root(void);

/* Sets the proc mount the irq knobs live under (default /proc; the daemon
 * uses ROOT/proc, so a test tree holds its own proc/irq).  Returns 0 or
 * -EINVAL for a path that is not absolute and normal, -ENAMETOOLONG. */
int knob_workload_set_irq_root(const char *root);

/* Formats the key of irq's affinity into buf.  Returns buf. */
char *knob_irq_key(unsigned irq, char *buf, size_t size);

/* The interrupts under the irq root (the numeric entries of proc/irq),
 * sorted, in a malloc'ed *ret (dir_list_numeric_at()).  Returns 0, -ENOENT
 * without proc/irq, or another negative errno. */
int knob_irq_list(unsigned **ret, size_t *ret_n);

/* Sets the bus unit knobs are read and written through (the daemon's
 * system bus connection; a reference is taken), or NULL: unit knobs are
 * -ENOTCONN until one is set. */
void knob_workload_set_system_bus(sd_bus *bus);
/* The bus set, or NULL (not a reference of the caller's). */
sd_bus *knob_workload_system_bus(void);

/* Formats the key of tid's affinity into buf (size bytes).  Returns buf. */
char *knob_task_key(pid_t tid, uint64_t start_time, char *buf, size_t size);
/* Formats the key of the cpuset.cpus of the cgroup at the absolute
 * directory dir.  Returns 0, -EINVAL (not under the cgroup mount, not
 * normal), -ENAMETOOLONG. */
int knob_cgroup_key(const char *dir, char *buf, size_t size);

/* Formats the key of unit's AllowedCPUs into buf.  Returns 0, -EINVAL (a
 * name pin_target_parse() refuses, or a type without a cgroup),
 * -ENAMETOOLONG. */
int knob_unit_key(const char *unit, char *buf, size_t size);

/* Parses a key of this file.  Returns 0, or -EINVAL for anything else
 * (a cgroup path outside the mount, with "." or ".." components, "//", or
 * not ending in /cpuset.cpus; a unit name as knob_unit_key() refuses). */
int knob_workload_parse(const char *key, WorkloadKnob *ret);

/* Returns true for a CPU list value ("" only for a cgroup or a unit). An
 * irq's write may still be refused by the kernel: -EIO for a per-CPU or
 * managed interrupt, -EINVAL for a set it cannot route to. */
bool knob_workload_value_valid(const WorkloadKnob *k, const char *value);

/* Reads the knob's current value (a CPU list) into buf.  Returns 0,
 * -ENOENT when it is gone (the thread exited or its TID now names another
 * thread; the cgroup was removed; the unit is not loaded now, which a
 * write may still reach: SetUnitProperties loads a unit that exists on
 * disk), -ENOTCONN for a unit without a bus set, or another negative
 * errno (a unit's: those of systemd-unit.h, -EHOSTUNREACH without systemd
 * on the bus). */
int knob_workload_read(const WorkloadKnob *k, char *buf, size_t size);

/* Writes value.  Returns 0, -ENOENT when the knob is gone (a unit that
 * does not exist), -EINVAL for a value the kernel or systemd refuses (no
 * online CPU in it), -ENOTCONN for a unit without a bus set, or another
 * negative errno. */
int knob_workload_write(const WorkloadKnob *k, const char *value);

/* The affinity of thread tid as a CpuSet.  Returns 0 or -errno. */
int task_affinity_get(pid_t tid, CpuSet *ret);
/* Sets it.  Returns 0 or -errno (-ESRCH: gone, -EINVAL: no usable CPU). */
int task_affinity_set(pid_t tid, const CpuSet *cpus);
