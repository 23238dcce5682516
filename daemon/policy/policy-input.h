/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's side of the policy step (policy-step.h in the library):
 * builds its plain-data input from what the daemon holds (the sampling,
 * and from the change layer who owns which knob: the administrator's
 * settings, the plan's own changes). */

#include <stdbool.h>

#include "calibration.h"
#include "companion.h"
#include "cpuidle.h"
#include "change.h"
#include "pin-precedence.h"
#include "policy-step.h"
#include "sampling.h"

/* What the daemon holds, borrowed for one tick. */
typedef struct PolicySources {
        const Profile *profile;           /* the machine's */
        const CpuProfileChoice *choices;  /* the profile in force per CPU (pins, holds); */
        unsigned n_choices;               /* a CPU at or beyond n_choices: the machine's */
        const Sampling *sampling;
        const CpuidleSystem *system;
        const Calibration *calibration;   /* NULL: not calibrated */
        const ChangeLayer *changes;       /* who changed which knob */
        const Companion *companion;       /* companion mode (NULL: never) */
        const CpuSet *consolidation_freed;  /* the CPUs consolidation freed; NULL: none */
} PolicySources;

/* The profile in force on cpu: its pin's or hold's, else the machine's. */
const Profile *policy_sources_profile(const PolicySources *src, unsigned cpu);

/* The per-CPU inputs, kept across ticks (no allocation per tick). */
typedef struct PolicyInputBuffer {
        PolicyCpuInput *cpus;
        unsigned n_allocated;
} PolicyInputBuffer;

/* Frees the buffer's memory.  b may hold nothing. */
void policy_input_buffer_done(PolicyInputBuffer *b);

/* Builds the step's input from src into b and *ret (which points into b).
 * Returns 0 or -ENOMEM. */
int policy_input_build(PolicyInputBuffer *b, const PolicySources *src, PolicyStepInput *ret);

/* Whether the knob at path is the plan's own change. */
bool policy_owns_knob(const PolicySources *src, const char *path);

/* Whether the knob at path is set by hand (the plan leaves it alone). */
bool policy_knob_manual(const PolicySources *src, const char *path);
