/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Authorisation of mutating method calls.  Root (effective uid 0) is always
 * allowed; anyone else is checked with polkit's CheckAuthorization, without
 * blocking the event loop: the method call is parked until polkit answers
 * and is then dispatched again, when polkit_verify() returns the verdict.
 * No polkit on the bus, or any error talking to it, means AccessDenied. */

#include <sys/types.h>
#include <systemd/sd-bus.h>

#define POLKIT_ACTION_PREFIX "org.idlepolicy.IdlePolicy1."

typedef struct PolkitRegistry PolkitRegistry;

/* Allocates an empty registry of pending checks.  Returns 0 or -ENOMEM. */
int polkit_registry_new(PolkitRegistry **ret);

/* Cancels the pending checks and frees r (NULL allowed).  Returns NULL. */
PolkitRegistry *polkit_registry_free(PolkitRegistry *r);

/* Decides whether the sender of message may perform action.
 * Returns 1: go ahead.
 *         0: asked polkit; return 1 from the method handler without
 *            replying, the call is dispatched again when the answer is in.
 *        <0: refused or failed, with error set (AccessDenied when refused). */
int polkit_verify(PolkitRegistry *r, sd_bus_message *message, const char *action, sd_bus_error *error);

/* The effective uid of the sender of message (asked from the bus when the
 * message does not carry it).  Returns 0 or a negative errno; *ret
 * untouched on failure. */
int polkit_sender_euid(sd_bus_message *m, uid_t *ret);
