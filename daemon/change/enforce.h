/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Writes the kernel's idle knobs on request, as one change set of the
 * target's owner (change-set.h): validate everything first, write only
 * what differs, record each original in the restore journal before the
 * first write to it, and roll back a multi-CPU change that fails half-way.
 * The administrator's settings (SetGovernor, SetStateDisabled,
 * SetResumeLatency) are the manual owner's: every knob such a call
 * addresses, changed or not, is claimed, and the plan leaves it alone until
 * Restore().  No D-Bus here: verdicts are negative errnos (named in
 * bus-error.h) with an ErrorInfo for the caller to show:
 *
 *   -ENXIO      unknown CPU          -EHOSTDOWN  CPU offline
 *   -ENOENT     unknown state        -ERANGE     latency out of range
 *   -ESRCH      unknown governor     -EIO        write (or journal) failed
 *   -ENOMEM
 *
 * On any failure nothing has changed. */

#include <stdbool.h>
#include <stdint.h>

#include "cpuidle.h"
#include "errinfo.h"
#include "change.h"
#include "knob-idle.h"
#include "topology.h"

#define ENFORCE_ALL_CPUS UINT32_MAX

/* What a change works on: borrowed from the manager for one call. */
typedef struct EnforceTarget {
        ChangeLayer *changes;
        ChangeOwner owner;          /* whose change: CHANGE_OWNER(MANUAL) for the Set* calls */
        const Topology *topology;
        CpuidleSampler *sampler;
} EnforceTarget;

/* Switches the cpuidle governor and makes the sampler reopen its files.
 * Returns 1 if switched, 0 if it already was name, or a verdict above. */
int enforce_set_governor(const EnforceTarget *t, const char *name, ErrorInfo *e);

/* Disables or enables the state (name or decimal index) on cpu, or on every
 * online CPU with cpuidle for ENFORCE_ALL_CPUS.  Returns 1 if anything was
 * written, 0 if all was as asked, or a verdict above. */
int enforce_set_state_disabled(const EnforceTarget *t, uint32_t cpu, const char *state, bool disabled, ErrorInfo *e);

/* Sets pm_qos_resume_latency_us (0, 1..CPUIDLE_RESUME_LATENCY_MAX or
 * CPUIDLE_RESUME_LATENCY_NA) on cpu or on every online CPU.  Returns 1 if
 * anything was written, 0 if all was as asked, or a verdict above. */
int enforce_set_resume_latency(const EnforceTarget *t, uint32_t cpu, uint32_t usec, ErrorInfo *e);

/* Like cpupower idle-set -D: on cpu (or every online CPU with cpuidle for
 * ENFORCE_ALL_CPUS) disables every state whose exit latency is above usec
 * and enables the others (the kernel's rule for a latency request: a
 * state whose exit latency equals it is allowed).  Returns 1 if anything
 * was written, 0 if all was as asked, or a verdict above. */
int enforce_set_latency_limit(const EnforceTarget *t, uint32_t cpu, uint32_t usec, ErrorInfo *e);

/* Returns true for a latency SetResumeLatency accepts. */
bool enforce_resume_latency_valid(uint32_t usec);

/* One knob the policy wants set: a path knob.h accepts and its value. */
typedef struct EnforceKnob {
        char path[KNOB_PATH_MAX];
        char value[KNOB_VALUE_MAX];
} EnforceKnob;

/* Writes a list of knobs as one change of the target's owner (the plan, the
 * companion, a calibration): reads each, journals the originals of those
 * that differ, writes them (rolling back on failure).  A knob another
 * owner holds that this one may not take (change_owner_take()) is left
 * out.  A knob that now holds its journaled original is forgotten.  Logs
 * each write at debug level only.  Returns the number of knobs written, or
 * -EIO (e set) / -ENOMEM; on failure nothing has changed. */
int enforce_write_knobs(const EnforceTarget *t, const EnforceKnob *knobs, size_t n, ErrorInfo *e);
