/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Enforce mode: the plan in force becomes knob writes, and only the knobs
 * that differ are written (through enforce.h: journaled first, restored
 * like every knob).
 *   cap/floor     per-CPU stateK/disable of every state outside [floor, cap]
 *   polling only  per-CPU pm_qos_resume_latency_us "n/a" (KVM guests)
 *   window        sys/module/haltpoll/parameters/guest_halt_poll_ns
 *   governor      what the profile asks for, switched at most once per hold
 * A knob set by hand (overrides.h) is never written; a knob the plan
 * changed and no longer wants changed gets its original value back. */

#include <stdint.h>

#include "enforce.h"
#include "policy-input.h"

typedef struct PlanEnforcer {
        uint64_t governor_switched_usec;  /* when the plan last switched the governor, 0 = never */
        bool failing;                     /* the last write failed (said once) */
} PlanEnforcer;

/* Writes what differs from the plan in force.  now_usec is CLOCK_MONOTONIC.
 * Returns the number of knobs written, or a negative errno (logged once
 * while it keeps failing; nothing changed). */
int plan_enforce(PlanEnforcer *pe, const PolicyLoop *l, const PolicySources *in, const EnforceTarget *t,
                 uint64_t now_usec, uint64_t governor_hold_usec);
