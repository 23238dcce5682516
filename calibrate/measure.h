/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The measurements of idlepolicy-calibrate, with whatever idle knobs are
 * set (this code never writes one):
 *
 * wakeup  a waiter thread pinned on the target CPU blocks in read() on a
 *         pipe; a sender thread pinned on the partner CPU busy-waits (so the
 *         partner never idles) until the gap has passed since the waiter
 *         called read(), takes a CLOCK_MONOTONIC timestamp and writes one
 *         byte.  The waiter's time of return from read() minus that
 *         timestamp is one sample: write + wakeup of an idle CPU + the
 *         switch to the waiter (the context_switch2 idea).  Whether the
 *         waiter really blocked (its voluntary context switches grew) is
 *         kept per sample: with a short gap the byte may come before it
 *         did, and such a sample measures no idle state at all.  A sweep
 *         of the gap (the idle duration) is a series of such runs.
 * timer   a thread pinned on the target CPU, timer slack 1 ns, sleeps with
 *         clock_nanosleep(TIMER_ABSTIME) for 200..1000 µs; how late it wakes
 *         is one sample. */

#include <stdbool.h>
#include <stdint.h>

#define MEASURE_WARMUP 16u              /* first samples dropped */
#define MEASURE_TIMER_MIN_US 200u
#define MEASURE_TIMER_MAX_US 1000u

typedef struct MeasureStats {
        unsigned n;
        double min_us, median_us, p90_us, p99_us, max_us, mean_us;
} MeasureStats;

/* Sorts ns[0..n-1] in place and fills *ret (nearest-rank percentiles).
 * n must be > 0. */
void measure_stats(uint64_t *ns, unsigned n, MeasureStats *ret);

/* Runs the pipe ping-pong: n samples (after MEASURE_WARMUP more), each
 * sent gap_us after the waiter called read(), into ret_ns[0..n-1], and
 * whether the waiter really blocked for each into ret_slept[0..n-1].
 * Returns 0, -EINVAL if a thread cannot be pinned (CPU offline or outside
 * our affinity), -ETIMEDOUT if the waiter did not wake within a second,
 * or another negative errno. */
int measure_wakeup_samples(unsigned cpu, unsigned partner, unsigned n, unsigned gap_us, uint64_t *ret_ns,
                           bool *ret_slept);

/* measure_wakeup_samples() summed up over every sample.  Returns as it. */
int measure_wakeup(unsigned cpu, unsigned partner, unsigned n, unsigned gap_us, MeasureStats *ret);

/* Runs n timer sleeps (after MEASURE_WARMUP more) on cpu.  Returns 0,
 * -EINVAL if the thread cannot be pinned, or another negative errno. */
int measure_timer(unsigned cpu, unsigned n, MeasureStats *ret);
