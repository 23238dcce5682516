/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Replays idle periods through a governor: per period, the governor selects
 * a state from what the kernel would tell it, the CPU stays idle for the
 * period's duration (a polling state that reaches its poll limit first
 * gives the governor another chance for the rest), and the metrics account
 * the entry, the wakeup and the energy.  Each CPU gets its own instance. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "governor.h"
#include "sim-metrics.h"
#include "sim-table.h"

#define SIM_SLEEP_UNKNOWN UINT64_MAX
#define SIM_CPUS_MAX 4096

typedef struct SimInterval {
        uint64_t busy_ns;            /* run time since the previous idle period on this CPU */
        uint64_t duration_ns;        /* idle entry to the wakeup event */
        uint64_t sleep_length_ns;    /* time to the next timer at entry, or SIM_SLEEP_UNKNOWN */
        uint32_t cpu;
        bool timer_wake;             /* a timer ended it (else an IPI or a device) */
        bool iowait;
} SimInterval;

typedef struct SimRunConfig {
        uint64_t latency_limit_ns;   /* SIM_NO_LIMIT for none */
        GovParams params;
        /* Optional: called after each idle period with the CPU's governor
         * and the CPU's simulated time (∑ busy + idle) at its end. */
        void (*observe)(void *userdata, uint32_t cpu, const Governor *g, uint64_t now_ns);
        void *userdata;
} SimRunConfig;

void sim_run_config_init(SimRunConfig *c);

/* The time to the next timer a governor is told for iv: its own, or when
 * unknown the duration itself for a timer wakeup and one second otherwise;
 * capped at 100 s. */
uint64_t sim_interval_sleep_length(const SimInterval *iv);

/* Replays n intervals (in time order per CPU; cpu < SIM_CPUS_MAX) through
 * ops on table t.  Returns 0 or a negative errno (-EOPNOTSUPP: the governor
 * does not suit the table; -EINVAL: a CPU number too large). */
int sim_run(const SimTable *t, const GovernorOps *ops, const SimRunConfig *c,
            const SimInterval *iv, size_t n, SimMetrics *ret);
