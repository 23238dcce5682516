/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's pins and holds (DESIGN.md §5): the registry of the library
 * (pin-registry.h) plus what makes a pin real on this machine.
 *
 *   pid:N        every thread of N gets the pin's CPUs (sched_setaffinity);
 *                each thread's original affinity is journaled first
 *                (knob-task.h: task:TID:START) and comes back when the
 *                pin ends, at a clean exit, or at the next start after a
 *                crash.  The pin ends when N exits (a pidfd in the loop).
 *   cgroup:PATH  the cgroup's cpuset.cpus under the cgroup mount (v1
 *                cpuset hierarchy or v2 with the cpuset controller),
 *                journaled the same way (cgroup:/ABS/cpuset.cpus).  It
 *                ends when the cgroup empties.  No process is ever moved
 *                between cgroups.
 *   holds        a profile held by a bus client (HoldProfile semantics):
 *                no knob of a workload is touched, only the profile in
 *                force on the hold's CPUs (all CPUs when none are given).
 *
 * The profile in force per CPU (pins_choices()) goes into the policy step
 * (policy-input.h); when a pin or hold starts or ends the context's
 * changed() asks the manager to re-plan at once rather than at the next
 * tick.
 *
 * Errors are named (bus-error.h): -EBADMSG InvalidTarget, -EBADE
 * InvalidCPUs, -ENXIO UnknownCPU, -EHOSTDOWN CPUOffline, -ENOPKG UnknownProfile,
 * -ERANGE InvalidLatency (the N of a profile "BASE:latency_limit_us=N"), -ECHILD
 * NoSuchProcess (a dead PID, or a cgroup path that does not exist),
 * -EOPNOTSUPP NotPinnable (a kernel thread or PF_NO_SETAFFINITY; a cgroup
 * without cpuset.cpus; a target kind this build does not apply yet),
 * -EEXIST DuplicateTarget, -EDQUOT LimitReached, -EIDRM NoSuchPin,
 * -ENOMSG NoSuchHold, -EIO WriteFailed.  On any error nothing changed. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "change.h"
#include "errinfo.h"
#include "persist.h"
#include "pin-precedence.h"
#include "pin-registry.h"
#include "profile.h"
#include "topology.h"

#define ERRNO_INVALID_TARGET   EBADMSG
#define ERRNO_INVALID_CPUS     EBADE
#define ERRNO_NO_SUCH_PROCESS  ECHILD
#define ERRNO_NOT_PINNABLE     EOPNOTSUPP
#define ERRNO_DUPLICATE_TARGET EEXIST
#define ERRNO_LIMIT_REACHED    EDQUOT
#define ERRNO_NO_SUCH_PIN      EIDRM
#define ERRNO_NO_SUCH_HOLD     ENOMSG
#define ERRNO_NO_SYSTEMD       EHOSTUNREACH

#define PINS_FILE "pins.json"
#define PINS_FILE_MAX ((size_t) 16 * 1024 * 1024)

typedef struct Pins Pins;

/* What the pins work with, borrowed for the life of Pins. */
typedef struct PinsContext {
        sd_event *event;
        ChangeLayer *changes;                  /* a pin's knobs are CHANGE_OWNER_PIN_ID(id)'s */
        const ProfileSet *(*profiles)(void *userdata);  /* the profiles loaded now */
        const Topology *(*topology)(void *userdata);    /* the present and online CPUs now */
        const Persist *persist;                /* pins.json lives in its directory */
        void (*changed)(void *userdata);       /* the profiles in force moved: re-plan now */
        void (*released)(uint32_t id, const char *why, void *userdata);  /* a pin ended (its knobs are back) */
        void (*hold_released)(uint32_t cookie, void *userdata);
        void *userdata;
} PinsContext;

/* Allocates the pins.  Returns 0 or -ENOMEM. */
int pins_new(const PinsContext *c, Pins **ret);

/* Frees p (NULL allowed) without touching any knob: what it changed is in
 * the journal.  Returns NULL. */
Pins *pins_free(Pins *p);
void pins_freep(Pins **p);

/* Loads pins.json from the state directory and re-applies each pin (a PID
 * pin only if the same process, by start time, still runs; a pin whose
 * workload is gone ends).  A corrupt file is logged and moved aside; no
 * pin is taken from it.  Returns the number of pins re-applied, or a
 * negative errno (-ENOMEM). */
int pins_load(Pins *p);

/* Loads the administrator's rules from dir (pins.d: NAME.json files, see
 * pin-persist.h) in name order; a rejected file or rule is logged and
 * left out, the others apply.  Rules are not written to pins.json.
 * Returns the number of bad files, or -ENOMEM. */
int pins_load_rules(Pins *p, const char *dir);
#define PINS_RULES_FILE_MAX ((size_t) 1024 * 1024)

/* Pins target to cpus (a CPU list; "" keeps the workload's CPUs) with
 * profile (a loaded one, or "BASE:latency_limit_us=N": BASE with exactly
 * that latency limit, profile.h) for owner, reason free text for status.  Returns 0 with the new
 * pin's id in *ret_id, or a named negative errno (above; -EDQUOT for
 * pin_registry_pin_quota(): 4096 in all, 64 per user other than root, 1024
 * kept for root) with e set; nothing changed then. */
int pins_pin(Pins *p, const char *target, const char *cpus, const char *profile, uid_t owner,
             const char *reason, uint64_t now_realtime_usec, uint32_t *ret_id, ErrorInfo *e);

/* Ends pin id: its knobs come back, it is removed.  Returns 0, -EIDRM, or
 * -EIO with e naming knobs that could not be put back (they stay in the
 * journal; the pin is removed all the same). */
int pins_unpin(Pins *p, uint32_t id, ErrorInfo *e);

/* Holds profile on cpus ("" = all CPUs) for the bus client owner (a
 * unique name) until pins_release() or pins_release_owner().  Returns 0
 * with the cookie in *ret_cookie, or -ENOPKG, -ERANGE, -EBADE, -ENXIO, -EHOSTDOWN, -EDQUOT
 * (pin_registry_hold_quota(): 64 per bus connection, 64 per user other
 * than root, 1024 kept for root) with e set. */
int pins_hold(Pins *p, const char *profile, const char *cpus, const char *reason, const char *app_id,
              const char *owner, uid_t uid, uint32_t *ret_cookie, ErrorInfo *e);
/* Call when the online CPUs changed: every pin's workload is set to its
 * CPUs that are online (the kernel widened the affinity of the tasks whose
 * CPUs all went offline; cgroup v1 dropped them from cpuset.cpus).  A
 * failure is logged; the pin stays. */
void pins_online_changed(Pins *p);

/* Returns 0 or -ENOMSG. */
int pins_release(Pins *p, uint32_t cookie);
/* Releases every hold of owner (it left the bus).  Returns the number released. */
unsigned pins_release_owner(Pins *p, const char *owner);

/* The registry, for the bus (read only). */
const PinRegistry *pins_registry(const Pins *p);

/* The profile in force on each CPU below n_cpus under machine, with its
 * source ("machine", "pin /…/pin/3 pid:1234 (latency, 10 us) over …").
 * Returns 0 or -ENOMEM/-EINVAL; ret has n_cpus entries. */
int pins_choices(Pins *p, const Profile *machine, unsigned n_cpus, CpuProfileChoice *ret);

/* The bus object path of pin id into buf.  Returns buf. */
char *pins_object_path(uint32_t id, char *buf, size_t size);
#define PINS_OBJECT_PREFIX "/org/idlepolicy/IdlePolicy1/pin"

/* The pins' state in the manager (manager-pins.c): the pins and holds, the
 * administrator's rules' directory, and the profile in force per CPU they
 * give, recomputed before every policy step and whenever a pin or hold
 * comes or goes. */
typedef struct DaemonPinning {
        Pins *pins;
        char *dir;                    /* pins.d */
        CpuProfileChoice *choices;
        unsigned n_choices;
        const Profile *choices_machine;  /* the machine profile they were made under */
} DaemonPinning;
