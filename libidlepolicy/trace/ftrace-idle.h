/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Rebuilding per-CPU idle intervals from ftrace events (ftrace-parse.h).
 * Pure: events in, IdleInterval rows out; no files, no clock, no logging.
 *
 * Two reconstructions run side by side on every CPU:
 *
 *  cpu_idle     power:cpu_idle entry (state >= 0) .. exit (state -1).  Wake
 *               cause: the first interrupt entry on that CPU in between.
 *               miss: power:cpu_idle_miss after the exit (none if absent).
 *
 *  irq-bounded  for a CPU whose idle task emits no task-context events: an
 *               idle period starts at the sched_switch to the idle task, or
 *               where an interrupt burst taken by the idle task ended (its
 *               last irq/softirq event) when the idle task did not leave
 *               idle, and ends at the next hard interrupt entry on that CPU
 *               (or a polling wake-up, sched_wake_idle_without_ipi).  A
 *               period during which a task's event shows up without a
 *               visible end is dropped.  A task woken onto the CPU
 *               (sched_wakeup, target_cpu) makes the idle task leave: no
 *               period starts after that interrupt burst until the next
 *               switch to the idle task, or an idle-task interrupt whose
 *               flags show need-resched clear again (the woken task ran
 *               and slept untraced).  State is unknown (-1); miss is
 *               unknown unless a cpu_idle_miss follows the period.
 *
 * At the end each CPU takes the cpu_idle intervals if that CPU produced
 * power:cpu_idle events (at least half as many as irq-bounded ones), else
 * the irq-bounded ones, else none; where both exist the irq-bounded result
 * is checked against cpu_idle (see FtraceIdleCpuStats).
 *
 * Sleep length: the time from the start to the earliest hrtimer pending on
 * that CPU at the wake-up (timer-track.h; the tick included while armed).
 * Wake cause: timer for a timer interrupt (local APIC timer, a device irq
 * named *timer*, or an hrtimer expiring in hard irq context on a platform
 * without timer-interrupt events), other for IPIs, device interrupts and
 * polling wake-ups; with no interrupt seen, timer if the period ended
 * within TIMER_LAG_MAX_NS after the predicted expiry, else unknown.
 *
 * Timestamps must be CLOCK_MONOTONIC (trace_clock "mono") for sleep
 * lengths to mean anything. */

#include <stddef.h>
#include <stdint.h>

#include "cleanup.h"

#include "ftrace-parse.h"
#include "trace-format.h"

typedef struct FtraceIdleCpuStats {
        TraceSource source;
        size_t n_intervals;             /* of the chosen source */
        size_t n_cpu_idle;              /* from power:cpu_idle pairs */
        size_t n_irq_bounded;           /* from the irq-bounded reconstruction */
        size_t n_dropped;               /* irq-bounded periods whose end was not seen */
        size_t n_wake_timer;            /* chosen intervals with wake = timer */
        size_t n_at_predicted;          /* ...that ended within TIMER_LAG_MAX_NS of the predicted timer */
        size_t n_sleep_known;           /* chosen intervals with a sleep length */
        uint64_t lost_events;           /* "[LOST n EVENTS]" on this CPU */
        /* where both sources exist: how many cpu_idle intervals an
         * irq-bounded one ends within TIMER_LAG_MAX_NS of, and the median of
         * (irq-bounded - cpu_idle) duration over those */
        size_t n_cross_found;
        int64_t cross_median_error_ns;
} FtraceIdleCpuStats;

typedef struct FtraceIdleTotals {
        uint64_t lines;                 /* fed to ftrace_idle_feed_line() */
        uint64_t events;                /* events used */
        uint64_t malformed;             /* lines that did not parse */
        uint64_t lost;                  /* events the kernel reported lost, all CPUs */
        uint64_t first_ns, last_ns;     /* timestamps of the first and the latest event used */
} FtraceIdleTotals;

typedef struct FtraceIdle FtraceIdle;

/* Creates a reconstruction for CPUs 0 .. n_cpus-1.  Returns 0 or -ENOMEM. */
int ftrace_idle_new(unsigned n_cpus, FtraceIdle **ret);
/* Frees p (NULL allowed).  Returns NULL. */
FtraceIdle *ftrace_idle_free(FtraceIdle *p);
void ftrace_idle_freep(FtraceIdle **p);
#define _cleanup_ftrace_idle_ _cleanup_(ftrace_idle_freep)

/* Seeds the pending timers from the text of /proc/timer_list, read just
 * after tracing was switched on.  Returns the number of timers, or -ENOMEM. */
int ftrace_idle_seed_timers(FtraceIdle *p, const char *timer_list);

/* For a trace whose CPU count is not known up front: events that name a
 * CPU below max_cpus add it (and the CPUs below it) instead of being
 * ignored. */
void ftrace_idle_allow_growth(FtraceIdle *p, unsigned max_cpus);

/* Makes CPUs 0 .. n_cpus-1 known (a trace's stated CPU count, so that CPUs
 * without events are in it too; never shrinks).  Returns 0, -ENOMEM, or
 * -ERANGE beyond the growth limit. */
int ftrace_idle_reserve(FtraceIdle *p, unsigned n_cpus);

/* Feeds one event (in trace order).  Events of CPUs out of range (see
 * ftrace_idle_allow_growth) are ignored.  Returns 0 or -ENOMEM. */
int ftrace_idle_feed(FtraceIdle *p, const FtraceEvent *ev);

/* Parses and feeds one line; lines that are not events are skipped,
 * malformed ones counted.  Returns 0 or -ENOMEM. */
int ftrace_idle_feed_line(FtraceIdle *p, const char *line);

/* Closes the reconstruction: picks each CPU's source, writes n_cpus,
 * sources and the sorted intervals into t (replacing what t->intervals
 * held; t's other header fields are left to the caller).  Call once.
 * Returns 0, -ENOMEM, or -EALREADY. */
int ftrace_idle_finish(FtraceIdle *p, Trace *t);

/* Per-CPU statistics, complete after ftrace_idle_finish().  Returns 0 or
 * -ERANGE. */
int ftrace_idle_cpu_stats(const FtraceIdle *p, unsigned cpu, FtraceIdleCpuStats *ret);

void ftrace_idle_totals(const FtraceIdle *p, FtraceIdleTotals *ret);
