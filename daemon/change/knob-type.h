/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The kinds of knob the daemon changes, as a table (knob-types.c lists the
 * daemon's; a unit test adds a fake one).  Each type says which keys are
 * its own, what a valid value is, how to read and write one, and what a
 * restore does when the knob is not there.  A key is the text the restore
 * journal stores (restore-journal.h), one per knob:
 *
 *   sys/devices/system/cpu/cpuidle/current_governor         idle  (knob-idle.h)
 *   sys/module/haltpoll/parameters/guest_halt_poll_ns (...)  idle
 *   sys/devices/system/cpu/cpuN/cpuidle/stateK/disable      idle
 *   sys/devices/system/cpu/cpuN/power/pm_qos_resume_latency_us idle
 *   sys/module/wteo/parameters/{learn,age,explore}_shift     wteo
 *   sys/devices/system/cpu/cpuN/wteo/tolerance               wteo
 *   task:TID:START           a thread's CPU affinity           (knob-task.h)
 *   cgroup:/ABS/cpuset.cpus  a cgroup's cpuset.cpus           (knob-cgroup.h)
 *   unit:NAME                a systemd unit's AllowedCPUs      (knob-unit.h)
 *   irq:N                    ROOT/proc/irq/N/smp_affinity_list (knob-irq.h)
 *
 * Where the knobs live is the KnobEnv, handed to every call: no type keeps
 * a global. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "cpuset.h"

/* A cgroup knob's path, and a key's bytes at most (NUL included). */
#define KNOB_CGROUP_PATH_MAX 4096
#define KNOB_KEY_MAX (KNOB_CGROUP_PATH_MAX + 32)
/* cpu of the knobs that belong to no CPU. */
#define KNOB_NO_CPU UINT32_MAX

/* Where the knobs live: set up by the manager before the restore journal
 * is replayed, so that every phase of a start reaches the same files. */
typedef struct KnobEnv {
        int root_fd;                  /* the tree the daemon runs on: sysfs, ROOT/proc/irq */
        int host_fd;                  /* the host's "/": threads are real processes whatever
                                       * the root, their /proc is the host's */
        int cgroup_fd;                /* the cgroup mount (O_PATH), -1: none */
        char cgroup_root[KNOB_CGROUP_PATH_MAX];  /* its absolute path (cgroup keys name files by it) */
        sd_bus *bus;                  /* the system bus for unit knobs, NULL: not now */
} KnobEnv;

#define KNOB_ENV_NULL ((KnobEnv) { .root_fd = -1, .host_fd = -1, .cgroup_fd = -1 })

/* Closes env's cgroup mount and drops its bus (root_fd and host_fd are
 * borrowed); env is KNOB_ENV_NULL's after. */
void knob_env_done(KnobEnv *env);

typedef struct KnobType KnobType;

/* One knob, as a type parsed its key.  Points into the key it was parsed
 * from where it needs text (rel of a cgroup, name of a unit). */
typedef struct KnobAddr {
        const KnobType *type;
        int kind;                     /* the type's own sub-kind (idle: KnobKind) */
        unsigned cpu;                 /* per-CPU knobs; KNOB_NO_CPU for the others */
        unsigned index;               /* a state, an interrupt */
        pid_t tid;                    /* task */
        uint64_t start_time;          /* task */
        const char *rel;              /* the file, relative to its directory fd (idle, cgroup, irq) */
        const char *name;             /* a unit's name */
        char buf[48];                 /* rel when the type builds it (irq) */
} KnobAddr;

/* What a restore does with a knob that is not there. */
typedef enum KnobAbsent {
        KNOB_ABSENT_GONE,             /* gone for good: its original is forgotten (logged) */
        KNOB_ABSENT_WAIT,             /* being recreated (a governor switch): tried again shortly */
        KNOB_ABSENT_KEEP,             /* not now: its original stays for a later restore */
} KnobAbsent;

struct KnobType {
        const char *name;             /* "idle", "wteo", "task", "cgroup", "unit", "irq" */
        size_t value_max;             /* a value's bytes at most, NUL included */
        bool counted;                 /* writes count in idlepolicy_knob_writes_total */
        bool verify;                  /* a restore reads the value back (a state directory
                                       * recreated meanwhile loses the write) */
        bool write_when_absent;       /* a restore writes even when the read found nothing
                                       * (a unit systemd has not loaded may exist on disk) */
        bool ephemeral;               /* the knob cannot outlive a crash of the machine, whatever
                                       * the root (a thread's affinity): its originals and forgets
                                       * are journaled without fsync (the page cache outlives the
                                       * daemon's crash, which is what the journal is for) */
        /* Parses key.  Returns 0, or -EINVAL when it is not this type's. */
        int (*parse)(const KnobEnv *env, const char *key, KnobAddr *ret);
        /* Whether value is one the knob may hold (and the journal may store). */
        bool (*value_valid)(const KnobAddr *a, const char *value);
        /* Reads the value into buf.  Returns 0, -ENOENT when the knob is not
         * there, -ENOTCONN when it cannot be reached now, or a negative errno. */
        int (*read)(const KnobEnv *env, const KnobAddr *a, char *buf, size_t size);
        /* Writes value.  Returns 0, -ENOENT, -ENOTCONN, -EINVAL (refused) or a
         * negative errno. */
        int (*write)(const KnobEnv *env, const KnobAddr *a, const char *value);
        /* Restores: a knob skipped for good while its CPU is offline (NULL:
         * never), what a missing one means (NULL: gone), and whether value
         * may be written back at all (NULL: always; false is logged by the
         * type and the original forgotten). */
        bool (*offline)(const KnobAddr *a, const CpuSet *online);
        KnobAbsent (*absent)(const KnobEnv *env, const KnobAddr *a, const CpuSet *online);
        bool (*restorable)(const KnobEnv *env, const KnobAddr *a, const char *value);
        /* What a restore says of the knobs it keeps (KNOB_ABSENT_KEEP):
         * their plural noun and why. */
        const char *kept_noun, *kept_why;
};

/* Whether a knob of type (NULL: of no known type) needs its journal lines
 * fsync'ed: it is not ephemeral. */
static inline bool knob_type_synced(const KnobType *type) {
        return !type || !type->ephemeral;
}

/* The daemon's knob types (knob-types.c), NULL-terminated. */
extern const KnobType *const knob_types_default[];

/* Parses key with the first type of types (NULL-terminated) that takes it.
 * Returns 0 or -EINVAL. */
int knob_parse_key(const KnobType *const *types, const KnobEnv *env, const char *key, KnobAddr *ret);

/* Whether key and value are a knob of types and a value it may hold;
 * *ret_why (may be NULL) says which is wrong. */
bool knob_entry_valid(const KnobType *const *types, const KnobEnv *env, const char *key, const char *value,
                      const char **ret_why);

/* Why a knob's file could not be read or written, for messages: what it
 * is instead of a regular file ("not a regular file": a FIFO, a socket, a
 * device, a directory; "a symbolic link", which writes never follow), else
 * the errno's text.  r negative.  Returns a static string. */
const char *knob_error_reason(int r);

/* Returns true for a CPU list ("0-3,8"; "" only when allow_empty). */
bool knob_cpulist_valid(const char *value, bool allow_empty);
/* A CPU list as long as any machine's (8192 CPUs listed one by one). */
#define KNOB_CPULIST_MAX 40960
