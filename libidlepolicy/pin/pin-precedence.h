/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The profile in force on each CPU, and where it comes from.
 *
 * A CPU nobody claims runs the machine profile (source "machine").  A pin
 * or a hold claims CPUs for a profile; where claims meet on a CPU they
 * resolve like PM QoS latency requests: the stricter latency wins, that is
 * the smaller latency_limit_us, 0 ("no limit") being the loosest; among
 * equals the earlier claim wins.  The source then names the winner with
 * its profile and limit, and the claims it won over:
 *
 *   pin /org/idlepolicy/IdlePolicy1/pin/3 unit:postgresql.service (latency, 10 us) over hold 7 by org.gnome.Foo (balanced)
 *
 * Claims are plain data; pin_claims_from_registry() builds them from the
 * registry so that the daemon does not repeat the arithmetic. */

#include <stddef.h>

#include "cpuset.h"
#include "pin-registry.h"
#include "profile.h"

/* A claim's source: "pin " + its object path (at most 60 bytes) + " " +
 * its whole target. */
#define PIN_CLAIM_SOURCE_MAX (PIN_TARGET_TEXT_MAX + 80)

typedef struct PinClaim {
        const Profile *profile;         /* NULL: not applied */
        CpuSet cpus;                    /* CPUs at or above n_cpus are ignored; empty: not applied */
        char source[PIN_CLAIM_SOURCE_MAX]; /* "pin PATH TARGET", "hold COOKIE by APP" */
} PinClaim;

typedef struct CpuProfileChoice {
        const Profile *profile;         /* the machine profile or a claim's: not owned */
        char source[PIN_CLAIM_SOURCE_MAX + 256];  /* the winner's whole source always fits */
} CpuProfileChoice;

/* Fills ret[0 .. n_cpus-1] from the claims, given in creation order (the
 * order breaks ties).  A claim with an empty CPU set or no profile is not
 * applied: in particular a pin that keeps the workload's CPUs must come
 * with those CPUs already resolved into cpus (the daemon reads the
 * workload's affinity or cpuset; pin_claims_from_registry() uses
 * Pin.cpus).  A source too long for CpuProfileChoice.source lists the
 * claims that fit and ends with " and N more" (" over N other claims" when
 * none fits).  Returns 0, -EINVAL (machine NULL, n_cpus 0 or above
 * CPUSET_MAX) or -ENOMEM. */
int pin_precedence_resolve(const Profile *machine, const PinClaim *claims, size_t n_claims,
                           unsigned n_cpus, CpuProfileChoice *ret);

/* Returns the profile called name, or NULL (the claim is then left out). */
typedef const Profile *(*PinProfileLookup)(const char *name, void *userdata);
/* Writes the bus object path of pin into buf.  Returns 0 or a negative
 * errno (the source then says "pin ID" instead). */
typedef int (*PinObjectPath)(const Pin *pin, char *buf, size_t size, void *userdata);

/* Builds the claims of r in creation order: every active pin (its cpus,
 * which for a pin without cpus_given the daemon keeps set to the
 * workload's CPUs) with source "pin PATH TARGET", and every hold (all
 * CPUs below n_cpus without cpus_given) with source "hold COOKIE by APP"
 * (APP: the app_id, else the owner's bus name).  A pin or hold whose
 * profile lookup returns NULL or whose CPUs are empty is left out.
 * object_path may be NULL ("pin ID TARGET").  Sources longer than
 * PinClaim.source are cut.  Returns 0 and a malloc'ed array (NULL when
 * empty) in *ret, its length in *ret_n, or -EINVAL (n_cpus 0 or above
 * CPUSET_MAX) or -ENOMEM. */
int pin_claims_from_registry(const PinRegistry *r, unsigned n_cpus,
                             PinProfileLookup lookup, PinObjectPath object_path, void *userdata,
                             PinClaim **ret, size_t *ret_n);
