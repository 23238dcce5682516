/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The knobs the daemon writes, as paths relative to the root, and the pure
 * checks on them (the journal accepts nothing else). */

#include <stdbool.h>
#include <stdint.h>

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

/* Writes value plus a newline (as echo does, and as sysfs shows it) to the
 * knob at root_fd/path.  Returns 0 or the negative errno of the write. */
int knob_write(int root_fd, const char *path, const char *value);

/* Returns the number of successful knob_write() calls since the start (the
 * idlepolicy_knob_writes_total metric). */
uint64_t knob_writes(void);
