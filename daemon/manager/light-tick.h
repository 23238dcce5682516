/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Light ticks (libidlepolicy/model/quiet-tick.h) in the manager: at each
 * tick, before anything is sampled, proc/stat alone is read and the rule
 * asked; a light tick then skips the full sample (cpuidle counters,
 * proc/interrupts, the system files), the flap check, consolidation and
 * the policy step.  The hotplug check (one pread of a kept fd), the pins'
 * refresh (nothing unless their profiles went stale), the latency
 * request's watch (one open and read of /dev/cpu_dma_latency: a request
 * should not wait for a full tick to show) and the tick's metrics run at
 * every tick.  A full tick comes when the rule says so, in the same
 * wakeup as the reading that showed activity. */

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
        QuietTickVerdict verdict;    /* of the last tick */
        bool light;                  /* the last tick was light */
        uint64_t n_light;            /* light ticks since the start */
} LightTick;

/* At the start of a tick at now_usec: reads proc/stat and decides.
 * Returns true for a light tick (counted), false for a full one. */
bool manager_light_tick(Manager *m, uint64_t now_usec);

/* Around a full tick: begin before its sample, end after its policy step. */
void manager_light_full_begin(Manager *m, uint64_t now_usec);
void manager_light_full_end(Manager *m);

/* idlepolicy_light_ticks_total and idlepolicy_tick_light. */
void light_tick_metrics(const LightTick *t, Exposition *x);
