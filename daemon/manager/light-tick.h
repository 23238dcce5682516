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
 * request set on a quiet machine shows at the next full tick).  A light
 * tick does not read devices/system/cpu/online either: proc/stat lists the
 * online CPUs (procstat_parse_online()), and a reading whose list is not
 * the CPUs known online makes the tick full (QUIET_TICK_HOTPLUG), which
 * reads the file first, as every full tick does (a pread of a kept fd,
 * but each file a wakeup after a long idle touches runs a cold kernel
 * path: on a quiet machine a light tick's CPU is mostly such paths).  The
 * pins' refresh (nothing unless their profiles went stale) and the tick's
 * metrics run at every tick.  A full tick comes when the rule says so, in
 * the same wakeup as the reading that showed activity.
 *
 * The long tick while quiet (quiet-tick.h, QuietTickPace): after each
 * tick, manager_light_next_usec() gives the interval to the next one and
 * arms the exec wake (exec-wake.h) for a long one, or disarms it.  An exec
 * while the tick is long, or a replan from outside the tick (a profile, a
 * pin, a mode: manager_light_wake()), brings the tick back at once: the
 * next one comes min(tick, poll_search_tick_usec) later, measured from a
 * reading of proc/stat taken at the wake; that check, too short to tell
 * busy unless the machine switches, is judged over again
 * QUIET_TICK_JUDGE_USEC after the wake's reading (quiet_tick_judge_in_usec()),
 * not at the normal pace, and busy against the tick's span
 * (QuietTickState.busy_span_usec).  After an exec wake, a tick that
 * finds the machine busy or switching starts a follow of the program's
 * start (quiet-tick.h, quiet_tick_follows()): the ticks then come at the
 * poll search's short pace while the search holds no polling.  While long
 * ticks are taken, the full tick by the clock backs off (quiet-tick.h,
 * quiet_tick_full_period()). */

#include <stdbool.h>
#include <stdint.h>

#include "exec-wake.h"
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
        bool decided;                /* this tick asked the rule (not a full one after a hotplug) */
        QuietTickVerdict tick_verdict;  /* ... and its answer */
        const char *unsettled;       /* why the state kept the last tick full, NULL if it did not */
        unsigned quiet_run;          /* QuietTickPace.quiet_run */
        bool long_tick;              /* the next tick is a long one */
        uint64_t long_period_usec;   /* the long tick now (quiet_tick_long_period()), 0 = quiet_tick_usec */
        uint64_t n_long;             /* long ticks armed since the start */
        uint64_t full_period_usec;   /* the full tick by the clock's period now (quiet_tick_full_period()),
                                      * 0 = quiet_full_tick_usec */
        uint64_t wake_usec;          /* the last exec wake (CLOCK_MONOTONIC), 0 = none */
        bool following;              /* the ticks follow a program's start (quiet_tick_follows()) */
        uint64_t n_follows;          /* follows started since the start */
        ExecWake wake;
} LightTick;

/* At the start of a tick at now_usec: reads proc/stat and decides.
 * Returns true for a light tick (counted), false for a full one. */
bool manager_light_tick(Manager *m, uint64_t now_usec);

/* Around a full tick at now_usec: begin before its sample, end after its
 * policy step. */
void manager_light_full_begin(Manager *m, uint64_t now_usec);
void manager_light_full_end(Manager *m, uint64_t now_usec);

/* After the tick at now_usec, whose pace otherwise is pace_usec: the
 * interval to the next tick (the long one or pace_usec), the exec wake
 * armed for a long one and disarmed otherwise. */
uint64_t manager_light_next_usec(Manager *m, uint64_t now_usec, uint64_t pace_usec);

/* Brings a long tick back (a no-op otherwise): the next tick comes
 * min(tick, poll_search_tick_usec) from now, measured from a reading of
 * proc/stat now; why is logged at debug. */
void manager_light_wake(Manager *m, const char *why);

/* Closes the exec wake. */
void manager_light_done(Manager *m);

/* The full tick by the clock's period now: quiet_full_tick_usec, or up to
 * QUIET_TICK_FULL_BACKOFF times it on a quiet machine with long ticks. */
uint64_t manager_light_full_period_usec(const Manager *m);

/* The long tick now: quiet_tick_usec, or up to QUIET_TICK_LONG_BACKOFF
 * times it while light ticks find the machine quiet. */
uint64_t manager_light_long_period_usec(const Manager *m);

/* idlepolicy_light_ticks_total, idlepolicy_tick_light, idlepolicy_tick_long,
 * idlepolicy_exec_wakes_total, idlepolicy_follows_total,
 * idlepolicy_quiet_full_tick_seconds and idlepolicy_quiet_tick_seconds. */
void light_tick_metrics(const Manager *m, Exposition *x);
