/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What pins.c (the registry, holds, choices, pins.json) and pins-apply.c
 * (making a pin real on the machine and undoing it) share. */

#include "cgroup-watch.h"
#include "pins.h"
#include "proc-events.h"
#include "process-watch.h"
#include "systemd-unit.h"

/* A pin's life on the machine: its watcher.  What it changed is the
 * change layer's, owned by CHANGE_OWNER_PIN_ID(id) (a process's thread
 * affinities tagged with the process's PID). */
typedef struct PinRuntime {
        uint32_t id;
        Pins *owner;
        ProcessWatch *process;
        CgroupWatch *cgroup;
        SystemdUnitWatch *unit;
        const char *ended;            /* the watcher saw the workload end: why (static) */
} PinRuntime;

/* A process event of the proc connector, queued for the next batch. */
typedef struct RuleEvent {
        pid_t pid;
        bool exited;
} RuleEvent;

/* The derived profiles the claims use (pins-profiles.c). */
typedef struct PinsProfiles {
        Profile **derived;            /* each allocated on its own: the choices point at them */
        bool *used;                   /* looked up since the last sweep */
        size_t n, n_allocated;
        bool out_of_memory;           /* a lookup failed for -ENOMEM */
} PinsProfiles;

struct Pins {
        PinsContext ctx;
        PinRegistry *registry;
        PinRuntime **runtimes;        /* each allocated on its own: watchers hold pointers */
        size_t n_runtimes, n_allocated;
        sd_event_source *ends;        /* defer, off until a watcher fires: pins.c ends the
                                       * pins whose runtime says ended */
        ProcEvents *events;           /* the proc connector, while an exec rule is active */
        RuleEvent *queue;             /* its events not handled yet, oldest first (pins-rules.c) */
        size_t n_queue, queue_allocated;
        bool queue_overrun;           /* more came than it holds: /proc is scanned instead */
        sd_event_source *batch;       /* timer: handles the queue in batches */
        int host_fd;                  /* host_root_fd(): processes are always the host's */
        PinsProfiles profiles;
};

/* pins-profiles.c */

/* Checks that name is a profile a pin or hold may take: a loaded one, or
 * "BASE:latency_limit_us=N" of a loaded BASE (profile_set_resolve()).
 * Returns 0, -ERRNO_UNKNOWN_PROFILE (no such profile or BASE, an unknown
 * parameter) or -ERRNO_INVALID_LATENCY (N malformed or out of range) with
 * e set. */
int pins_profile_check(Pins *p, const char *name, ErrorInfo *e);

/* The profile called name as the loaded profiles give it now: a loaded
 * one, or the derived one, kept at one address and marked used until the
 * next pins_profiles_sweep().  Returns NULL when there is none (or on
 * -ENOMEM: pins_profiles_take_error() says so). */
const Profile *pins_profile_lookup(Pins *p, const char *name);

/* Frees the derived profiles not looked up since the last sweep: call it
 * once every pointer to them has been replaced (pins_choices()). */
void pins_profiles_sweep(Pins *p);

/* Returns -ENOMEM if a lookup ran out of memory since the last call, else 0. */
int pins_profiles_take_error(Pins *p);

/* Frees every derived profile. */
void pins_profiles_done(Pins *p);

/* pins-apply.c */

/* Makes pin (already in the registry, cpus resolved or to be read) real:
 * journals the originals, writes the CPUs, starts its watcher; fills
 * pin->target.start_time, pin->pids and, without cpus_given, pin->cpus.
 * Returns 0, or a named negative errno (pins.h) with e set after putting
 * back what it changed. */
int pins_apply(Pins *p, Pin *pin, ErrorInfo *e);

/* After the online CPUs changed: the pin's processes (or its cgroup's
 * cpuset.cpus) are set to its CPUs that are online again, since the
 * kernel widened the affinity of the tasks whose CPUs all went offline
 * (and cgroup v1 dropped them from cpuset.cpus).  Nothing when none of its
 * CPUs is online (the kernel's fallback stands until one is), for a pin
 * that keeps its workload's CPUs, and for a unit (AllowedCPUs is kept
 * across hotplug).  Returns 0 or a named negative errno with e set. */
int pins_reassert(Pins *p, Pin *pin, const CpuSet *online, ErrorInfo *e);

/* Puts back what pin id changed and stops its watcher.  Returns 0, or
 * -EIO with e naming the knobs that stay in the journal. */
int pins_undo(Pins *p, uint32_t id, ErrorInfo *e);

/* The pin's runtime, created if asked.  Returns NULL if absent (or on
 * -ENOMEM when creating). */
PinRuntime *pins_runtime(Pins *p, uint32_t id, bool create);

/* Frees every runtime without putting anything back (the journal keeps
 * the originals). */
void pins_runtimes_free(Pins *p);

/* Frees rt's watcher and drops it from p. */
void pins_runtime_free(Pins *p, PinRuntime *rt);

/* A process to pin: its PID and start time (PROCESS_START_TIME_ANY:
 * whoever holds the PID); pinned says it was. */
typedef struct PinProcess {
        pid_t pid;
        uint64_t start_time;
        int pidfd;                    /* pins_pin_processes()'s own */
        bool pinned;
} PinProcess;

/* pins_pin_process() for n processes at once: one change set, one
 * journal write and fsync.  Returns the number pinned (procs[i].pinned
 * says which), or a negative errno with e set (none changed). */
int pins_pin_processes(Pins *p, PinRuntime *rt, PinProcess *procs, size_t n, const CpuSet *cpus, ErrorInfo *e);

/* Journals and sets the affinity of every thread of process pid, the one
 * started at start_time (PROCESS_START_TIME_ANY: whoever holds pid now),
 * through a pidfd held for the whole operation: one that exited meanwhile
 * is undone (its PID may name another process by then).  Returns 0, -ESRCH
 * if it is gone, or a negative errno with e set. */
int pins_pin_process(Pins *p, PinRuntime *rt, pid_t pid, uint64_t start_time, const CpuSet *cpus, ErrorInfo *e);

/* Forgets what rt journaled for process pid, which exited. */
void pins_runtime_forget_process(Pins *p, PinRuntime *rt, pid_t pid);
