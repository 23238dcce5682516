/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Light ticks (libidlepolicy/model/quiet-tick.h) in the manager: at each
 * tick, before anything is sampled, proc/stat alone is read and the rule
 * asked; a light tick then skips the full sample (cpuidle counters,
 * proc/interrupts, the system files), the flap check, consolidation and
 * the policy step, and the CPU latency request's watch (an open, read and
 * close of /dev/cpu_dma_latency, which adds and removes a PM QoS request
 * in the kernel: 17 us of a light tick's ~150 here; nothing the plan
 * decides depends on it, it is shown on the bus and in the metrics, and a
 * request set on a quiet machine shows at the next full tick).  The
 * hotplug check (one pread of a kept fd: a CPU that comes or goes makes
 * the tick full), the pins' refresh (nothing unless their profiles went
 * stale) and the tick's metrics run at every tick.  A full tick comes when
 * the rule says so, in the same wakeup as the reading that showed
 * activity. */

#include <stdbool.h>
#include <stdint.h>

#include "exposition.h"
#include "procstat.h"
#include "quiet-tick.h"

typedef struct Manager Manager;

typedef struct LightTick {
        ProcTotals last;             /* the last reading of proc/stat (light or full) */
        uint64_t last_usec;          /* its time (CLOCK_MONOTONIC), 0 = none */
        uint64_t full_usec;          /* when the last full tick began, 0 = none yet */
        uint64_t full_writes;        /* change_knob_writes() then */
        QuietTickMark full_before;   /* the policy before the last full tick's step */
        QuietTickMark full_after;    /* ... and after it */
        QuietTickVerdict verdict;    /* of the last tick but the full ones by the clock */
        bool light;                  /* the last tick was light */
        uint64_t n_light;            /* light ticks since the start */
} LightTick;

/* At the start of a tick at now_usec: reads proc/stat and decides.
 * Returns true for a light tick (counted), false for a full one. */
bool manager_light_tick(Manager *m, uint64_t now_usec);

/* Around a full tick at now_usec: begin before its sample, end after its
 * policy step. */
void manager_light_full_begin(Manager *m, uint64_t now_usec);
void manager_light_full_end(Manager *m, uint64_t now_usec);

/* idlepolicy_light_ticks_total and idlepolicy_tick_light. */
void light_tick_metrics(const LightTick *t, Exposition *x);
