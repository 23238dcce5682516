/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The pins and holds of a running daemon, as plain data (DESIGN.md §5):
 *
 *   - a Pin binds a target (pin-target.h) to CPUs and a profile; it has an
 *     id that names its bus object and is never reused within a registry
 *     (pin_registry_set_next_id() carries the counter over a restart);
 *   - a Hold is power-profiles-daemon's HoldProfile: a profile held by a
 *     bus client (its unique name) until it releases the cookie or leaves
 *     the bus (pin_registry_release_owner()).
 *
 * The registry copies what it is given and owns its pins and holds; the
 * pointers it hands out stay valid until that pin or hold is removed or the
 * registry freed.  A caller may change a pin's cpus, cpus_given, profile
 * and reason in place; id, target, state and pids change only through the
 * functions below (they keep the registry's invariants). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cleanup.h"
#include "cpuset.h"
#include "pin-target.h"
#include "profile.h"

/* The limits (idlepolicyd(8), Pin() and Hold()): each table holds at most
 * 4096; a user other than root (uid 0) has at most 64 pins and 64 holds,
 * over all of its bus connections; every bus connection, root's too, at
 * most 64 holds; and users other than root together stop 1024 short of a
 * full table, which is kept for root.  One unprivileged user, allowed
 * pin-own-process and hold by the shipped polkit defaults, so fills 64 of
 * each, and 48 such users cannot lock root out. */
#define PIN_REGISTRY_PINS_MAX 4096
#define PIN_REGISTRY_HOLDS_MAX 4096
#define PINS_PER_UID_MAX 64
#define HOLDS_PER_UID_MAX 64
#define HOLDS_PER_OWNER_MAX 64
#define PIN_REGISTRY_ROOT_RESERVE 1024
/* The most pids a pin follows (pin_registry_set_pids()). */
#define PIN_PIDS_MAX PIN_TARGET_PID_MAX

typedef enum PinState {
        PIN_STATE_WAITING,      /* a rule with no match yet, or a pin restored and not yet re-applied */
        PIN_STATE_ACTIVE,
        PIN_STATE_ENDED,        /* the workload ended; kept until removed */
        _PIN_STATE_MAX,
} PinState;

typedef struct Pin {
        uint32_t id;                    /* 1, 2, ...; set by the registry */
        PinTarget target;
        CpuSet cpus;                    /* with !cpus_given: the workload's own CPUs, as the daemon last read them */
        bool cpus_given;                /* false: keep the workload's CPUs */
        char profile[PROFILE_NAME_MAX];
        PinState state;
        uint64_t created_usec;          /* realtime, given by the caller */
        char reason[128];
        uint32_t owner_uid;
        bool from_rules_dir;            /* read from a rules file: not persisted */
        pid_t *pids;                    /* the processes it applies to now (owned) */
        size_t n_pids;
        uint64_t sequence;              /* set by the registry: creation order among pins and holds */
} Pin;

typedef struct Hold {
        uint32_t cookie;                /* never 0; set by the registry */
        char profile[PROFILE_NAME_MAX];
        CpuSet cpus;
        bool cpus_given;                /* false: all CPUs */
        char reason[128];
        char app_id[128];
        char owner[256];                /* the holder's unique bus name */
        uint32_t owner_uid;
        uint64_t sequence;              /* set by the registry: creation order among pins and holds */
} Hold;

typedef struct PinRegistry PinRegistry;

/* Which limit a new pin or hold would break. */
typedef enum PinQuota {
        PIN_QUOTA_OK,
        PIN_QUOTA_TABLE,                /* the table is full */
        PIN_QUOTA_OWNER,                /* holds: the bus connection has HOLDS_PER_OWNER_MAX */
        PIN_QUOTA_UID,                  /* the user (not root) has PINS_PER_UID_MAX / HOLDS_PER_UID_MAX */
        PIN_QUOTA_USERS,                /* users other than root have MAX - PIN_REGISTRY_ROOT_RESERVE */
} PinQuota;

/* Returns "waiting", "active" or "ended"; NULL for an invalid state. */
const char *pin_state_to_string(PinState s);

/* Returns a new empty registry (next id 1, next cookie 1), or NULL on -ENOMEM. */
PinRegistry *pin_registry_new(void);
/* Frees r (NULL allowed) with its pins and holds.  Returns NULL. */
PinRegistry *pin_registry_free(PinRegistry *r);
void pin_registry_freep(PinRegistry **r);
#define _cleanup_pin_registry_ _cleanup_(pin_registry_freep)

/* Which limit a new pin of uid would break (PIN_QUOTA_OK: none); stored
 * pins count, ended ones included. */
PinQuota pin_registry_pin_quota(const PinRegistry *r, uint32_t uid);

/* Adds a copy of spec (pids included) under the next id; spec->id and
 * spec->sequence are ignored.  Returns 0 and the stored pin in *ret (may be
 * NULL), or -EINVAL (an empty or unterminated profile name, reason or
 * target value, an invalid kind or state), -EEXIST (a pin that has not
 * ended has an equal target: pin_target_equal(), and for pid targets the
 * same pid whatever the start times), -EDQUOT (a limit of
 * pin_registry_pin_quota() for spec->owner_uid), -ERANGE (the ids are used
 * up) or -ENOMEM; nothing changed on failure. */
int pin_registry_add(PinRegistry *r, const Pin *spec, Pin **ret);

/* pin_registry_add() under spec->id, for restoring persisted pins; the
 * next id becomes at least spec->id + 1.  Only the table's limit applies
 * (pins made before are taken back whatever their owners hold).  Returns
 * what pin_registry_add() returns, -EINVAL also for id 0 and -EEXIST also
 * for an id in use. */
int pin_registry_add_with_id(PinRegistry *r, const Pin *spec, Pin **ret);

/* Moves every pin of from into r under its id (its pids, state and all),
 * in id order, and raises r's next id to from's: how a file is loaded into
 * a scratch registry first and then taken over whole.  Holds stay in
 * from.  Returns 0 (from then has no pins), or -EDQUOT (more than
 * PIN_REGISTRY_PINS_MAX pins together), -EEXIST (an id r has, or a target
 * a pin of r that has not ended has) or -ENOMEM; nothing changed on
 * failure. */
int pin_registry_absorb(PinRegistry *r, PinRegistry *from);

/* Sets the id the next pin_registry_add() assigns.  Returns 0, or -EINVAL
 * when id is 0 or below the current next id (ids are never reused). */
int pin_registry_set_next_id(PinRegistry *r, uint32_t id);
/* Returns the id the next pin_registry_add() assigns. */
uint32_t pin_registry_get_next_id(const PinRegistry *r);

/* Returns the pin with this id, or NULL. */
Pin *pin_registry_find(const PinRegistry *r, uint32_t id);
/* Returns the pin that has not ended and whose target is equal to target
 * (for pid targets: the same pid), or NULL. */
Pin *pin_registry_find_target(const PinRegistry *r, const PinTarget *target);
/* Removes and frees the pin.  Returns 0 or -ENOENT. */
int pin_registry_remove(PinRegistry *r, uint32_t id);

/* Replaces the pin's pids by a copy of the n at pids (n 0: none).  Returns
 * 0, -ENOENT (no such pin), -E2BIG (more than PIN_PIDS_MAX) or -ENOMEM;
 * nothing changed on failure. */
int pin_registry_set_pids(PinRegistry *r, uint32_t id, const pid_t *pids, size_t n);
/* Sets the pin's state.  Returns 0, -ENOENT, -EINVAL (invalid state) or
 * -EEXIST (reviving an ended pin while another pin has taken its target). */
int pin_registry_set_state(PinRegistry *r, uint32_t id, PinState state);

/* The pins in id order: pin_registry_pin_at() returns the pin at index i
 * (0 .. pin_registry_n_pins() - 1), NULL past the end.  Adding or removing
 * pins invalidates indices (not the pointers to other pins). */
size_t pin_registry_n_pins(const PinRegistry *r);
Pin *pin_registry_pin_at(const PinRegistry *r, size_t i);
#define PIN_REGISTRY_FOREACH_PIN(p, r)                                          \
        for (size_t _i_ = 0; _i_ < pin_registry_n_pins(r); _i_++)               \
                for (Pin *p = pin_registry_pin_at((r), _i_); p; p = NULL)

/* Which limit a new hold of uid through the bus connection owner would
 * break (PIN_QUOTA_OK: none). */
PinQuota pin_registry_hold_quota(const PinRegistry *r, uint32_t uid, const char *owner);

/* Adds a copy of spec under the next cookie (never 0, never one in use);
 * spec->cookie and spec->sequence are ignored.  Returns 0 and the stored
 * hold in *ret (may be NULL), or -EINVAL (an empty or unterminated profile
 * or owner, an unterminated reason or app_id), -EDQUOT (a limit of
 * pin_registry_hold_quota() for spec->owner_uid and spec->owner) or
 * -ENOMEM; nothing changed on failure. */
int pin_registry_hold_add(PinRegistry *r, const Hold *spec, Hold **ret);
/* Returns the hold with this cookie, or NULL. */
Hold *pin_registry_hold_find(const PinRegistry *r, uint32_t cookie);
/* Removes and frees the hold.  Returns 0 or -ENOENT. */
int pin_registry_hold_remove(PinRegistry *r, uint32_t cookie);
/* Removes every hold of the bus name owner, calling callback (if not NULL)
 * with each before it is freed, in cookie order.  Returns the number of
 * holds removed (0 or more). */
int pin_registry_release_owner(PinRegistry *r, const char *owner,
                               void (*callback)(const Hold *h, void *userdata), void *userdata);

/* The holds in cookie order, like the pins (NULL past the end). */
size_t pin_registry_n_holds(const PinRegistry *r);
Hold *pin_registry_hold_at(const PinRegistry *r, size_t i);
#define PIN_REGISTRY_FOREACH_HOLD(h, r)                                         \
        for (size_t _i_ = 0; _i_ < pin_registry_n_holds(r); _i_++)              \
                for (Hold *h = pin_registry_hold_at((r), _i_); h; h = NULL)
