/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the daemon shows of the idle knobs (the bus, the metrics) and plans
 * from: the system-wide files (governor, driver, governors, halt-poll
 * parameters) and each CPU's disable bits and resume latency as the last
 * sample read them, updated by every write through the change layer in
 * between.  Nothing that shows them reads sysfs. */

#include <stdbool.h>
#include <stdint.h>

#include "cpuidle.h"
#include "knob-type.h"
#include "sampling.h"

typedef struct KnobViewCpu {
        uint64_t disabled;            /* bit k: state k disabled */
        uint32_t resume_latency_us;   /* CPUIDLE_RESUME_LATENCY_NA for "n/a" */
        bool has_resume_latency;
} KnobViewCpu;

typedef struct KnobView {
        CpuidleSystem system;         /* all zero: no cpuidle (or not read) */
        bool has_system;
        KnobViewCpu *cpus;
        unsigned n_cpus;
} KnobView;

/* Frees what v holds; v can be used again. */
void knob_view_done(KnobView *v);

/* Takes the system files read at a tick (NULL: none could be read) and
 * every CPU's knobs from the sample.  Returns 0 or -ENOMEM. */
int knob_view_sampled(KnobView *v, const Sampling *s, const CpuidleSystem *sys);

/* A knob written through the change layer now holds value. */
void knob_view_written(KnobView *v, const KnobAddr *a, const char *value);

/* CPU cpu's knobs, or NULL (never sampled). */
const KnobViewCpu *knob_view_cpu(const KnobView *v, unsigned cpu);
