/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The hrtimers pending on each CPU, as far as a trace shows them: armed by
 * hrtimer_start, gone at hrtimer_cancel or hrtimer_expire_entry, seeded
 * from the text of /proc/timer_list (same hashed pointers as the trace) so
 * that timers armed before the recording started are known too.  Expiry
 * times are CLOCK_MONOTONIC nanoseconds; a timer on CLOCK_REALTIME/TAI is
 * converted with the offset timer_list printed, or ignored when that offset
 * is unknown.  Pure: no files, no clock. */

#include <stddef.h>
#include <stdint.h>

#include "cleanup.h"

/* A timer interrupt lands this long after the timer's expiry at most (16-58
 * us measured on a KVM guest, with margin). */
#define TIMER_LAG_MAX_NS 100000ull

typedef struct TimerTrack TimerTrack;

/* Returns 0 or -ENOMEM. */
int timer_track_new(unsigned n_cpus, TimerTrack **ret);
/* Frees t (NULL allowed).  Returns NULL. */
TimerTrack *timer_track_free(TimerTrack *t);
void timer_track_freep(TimerTrack **t);
#define _cleanup_timer_track_ _cleanup_(timer_track_freep)

/* Makes room for CPUs up to n_cpus-1 (never shrinks).  Returns 0 or -ENOMEM. */
int timer_track_grow(TimerTrack *t, unsigned n_cpus);

/* Timer id was armed on cpu (re-arming moves it) to fire at expires_ns in
 * its own clock's time; now_ns is the event's CLOCK_MONOTONIC time.
 * Returns 0, -ENOMEM, or -ERANGE for a CPU out of range. */
int timer_track_start(TimerTrack *t, unsigned cpu, uint64_t id, uint64_t expires_ns, uint64_t now_ns);

/* Timer id is no longer pending anywhere (cancelled or expired); hint_cpu
 * is looked at first. */
void timer_track_remove(TimerTrack *t, uint64_t id, unsigned hint_cpu);

/* Adds the timers listed in the text of /proc/timer_list.  Returns the
 * number of timers added, or -ENOMEM. */
int timer_track_seed(TimerTrack *t, const char *timer_list);

/* The sleep length of an idle period of cpu from start to end, evaluated at
 * end (the wake-up, before the timer that woke the CPU is removed): the time
 * from start to the earliest pending timer that may really have been
 * pending -- one whose expiry passed more than TIMER_LAG_MAX_NS before end
 * without waking the CPU was not (its re-arm or cancel was not traced, e.g.
 * the tick stopped by an idle task that emits no events).  Returns
 * nanoseconds (0 for an overdue timer), or TRACE_SLEEP_UNKNOWN. */
uint64_t timer_track_sleep_length(const TimerTrack *t, unsigned cpu, uint64_t start_ns, uint64_t end_ns);
