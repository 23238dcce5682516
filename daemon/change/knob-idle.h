/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The idle knobs: the cpuidle governor, a CPU's state disable bits and
 * resume latency, the haltpoll parameters, and in companion mode the wteo
 * governor's parameters and tolerances, as paths relative to the root
 * (their keys in the restore journal), the pure checks on them, and their
 * knob types (knob-type.h): knob_type_idle, knob_type_wteo. */

#include <stdbool.h>
#include <stdint.h>

#include "knob-type.h"
#include "sysfs-paths.h"

#define KNOB_PATH_MAX 96
#define KNOB_VALUE_MAX 64

/* The knobs' paths are in sysfs-paths.h: SYSFS_CPUIDLE_GOVERNOR,
 * SYSFS_CPU_STATE_DISABLE_FMT, SYSFS_CPU_RESUME_LATENCY_FMT, the
 * SYSFS_HALTPOLL_* parameters, and in companion mode the wteo governor's
 * SYSFS_WTEO_* parameters and SYSFS_CPU_WTEO_TOLERANCE_FMT. */

typedef enum KnobKind {
        KNOB_GOVERNOR,
        KNOB_STATE_DISABLE,
        KNOB_RESUME_LATENCY,
        KNOB_HALTPOLL,
        KNOB_WTEO_PARAM,              /* learn_shift, age_shift, explore_shift (system-wide) */
        KNOB_WTEO_TOLERANCE,          /* cpuN/wteo/tolerance: exists only while wteo governs N */
} KnobKind;

/* Returns true for the system-wide kinds (no CPU). */
bool knob_kind_system(KnobKind kind);

/* Formats the disable knob of cpu's idle state into buf.  Returns buf. */
char *knob_state_disable_path(unsigned cpu, unsigned state, char buf[static KNOB_PATH_MAX]);

/* Formats the resume latency knob of cpu into buf.  Returns buf. */
char *knob_resume_latency_path(unsigned cpu, char buf[static KNOB_PATH_MAX]);

/* Formats the wteo tolerance knob of cpu into buf.  Returns buf. */
char *knob_wteo_tolerance_path(unsigned cpu, char buf[static KNOB_PATH_MAX]);

/* What a knob path names. */
typedef struct KnobId {
        KnobKind kind;
        unsigned cpu;                 /* 0 for the system-wide knobs */
        unsigned state;               /* KNOB_STATE_DISABLE only */
} KnobId;

/* Parses a knob path (see knob_parse_path()).  Returns 0 or -EINVAL. */
int knob_parse(const char *path, KnobId *ret);

/* Recognises one of the knob paths (the governor, a state's disable, a
 * resume latency, one of the haltpoll parameters guest_halt_poll_ns,
 * _grow, _grow_start, _shrink, _allow_shrink, one of the wteo parameters
 * learn_shift, age_shift, explore_shift, a CPU's wteo tolerance).  Returns 0 and sets
 * *ret_kind and *ret_cpu (0 for the system-wide ones), or -EINVAL for any
 * other path. */
int knob_parse_path(const char *path, KnobKind *ret_kind, unsigned *ret_cpu);

/* Returns true for a value the daemon may write or record: 1..63 bytes of
 * letters, digits and "_-./" (governor names, 0/1, numbers, "n/a"). */
bool knob_value_valid(const char *value);

/* The governor, a state's disable bit, a resume latency, the haltpoll
 * parameters: offline CPUs' state knobs are skipped by a restore (the
 * kernel recreates them with their defaults), a missing state knob of an
 * online CPU is waited for (a governor switch recreates the directories),
 * a governor the kernel does not offer is never written, a state knob is
 * read back after a restore's write. */
extern const KnobType knob_type_idle;

/* The wteo parameters and tolerances (companion mode): a tolerance exists
 * only while wteo governs its CPU and the kernel keeps its value across a
 * governor switch, so a missing one is waited for while wteo governs (its
 * group is being made), else kept for a later restore. */
extern const KnobType knob_type_wteo;
