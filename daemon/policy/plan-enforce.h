/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Enforce mode: the plan in force becomes knob writes, and only the knobs
 * that differ are written (through enforce.h: journaled first, restored
 * like every knob).
 *   cap/floor     per-CPU stateK/disable of every state outside [floor, cap]
 *   polling only  per-CPU pm_qos_resume_latency_us "n/a" (KVM guests)
 *   window        sys/module/haltpoll/parameters/guest_halt_poll_ns
 *   governor      what the profile asks for, switched at most once per hold
 * and in companion mode (companion.h: wteo governs) no disable bit but
 *   wteo          the three sys/module/wteo parameters from the machine's profile,
 *                 per-CPU cpuN/wteo/tolerance from the CPU's profile;
 *                 put back when companion mode ends
 * A knob set by hand (the manual owner's, change.h) is never written; a knob the plan
 * changed and no longer wants changed gets its original value back.
 *
 * What a knob holds now comes from the last sample, except for the knobs
 * written since: a plan enforced between ticks (a pin that ends right
 * after it began) would otherwise take the sample's value from before its
 * own write for the truth and leave the knob changed until the next tick.
 * Those knobs are handed to enforce_write_knobs(), which reads each one
 * before writing it. */

#include <stdint.h>

#include "enforce.h"
#include "policy-input.h"

typedef struct PlanEnforcer {
        uint64_t governor_switched_usec;  /* when the plan last switched the governor, 0 = never */
        bool failing;                     /* the last write failed (said once) */
        EnforceKnob *unsampled;           /* knobs written that no sample has read since */
        size_t n_unsampled, allocated;
} PlanEnforcer;

/* Frees what pe holds; pe can be used again. */
void plan_enforcer_done(PlanEnforcer *pe);

/* Call after every sample: forgets the written knobs the sample read
 * again (a CPU's knobs once it is fresh in it: its next read after a write
 * is a full one; the system-wide knobs at any sample; those of a CPU
 * the sample does not have).  s NULL forgets them all. */
void plan_enforcer_sampled(PlanEnforcer *pe, const Sampling *s);

/* The knobs plan_enforce() would write for the plan of l at now_usec, and
 * their values, written nowhere (PreviewProfile): into *ret_knobs
 * (malloc'ed, *ret_n of them; NULL when none).  Returns 0 or -ENOMEM. */
int plan_wanted_knobs(const PlanEnforcer *pe, const PolicyStep *l, const PolicySources *in, uint64_t now_usec,
                      uint64_t governor_hold_usec, EnforceKnob **ret_knobs, size_t *ret_n);

/* Writes what differs from the plan in force.  now_usec is CLOCK_MONOTONIC.
 * Returns the number of knobs written, or a negative errno (logged once
 * while it keeps failing; nothing changed). */
int plan_enforce(PlanEnforcer *pe, const PolicyStep *l, const PolicySources *in, const EnforceTarget *t,
                 uint64_t now_usec, uint64_t governor_hold_usec);
