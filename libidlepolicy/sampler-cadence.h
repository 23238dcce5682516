/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* How much of every sample the cpuidle sampler re-reads (implemented in
 * cpuidle-sampler.c; these declarations belong in cpuidle.h once its owner
 * takes them).
 *
 * A sysfs attribute read costs about 1 us in a hot loop and 2.5-3 us at a
 * 1 s tick (kernfs, seq_file, sysfs_emit and usercopy checks; syscall entry
 * is only ~0.2 us of it), and batching the reads in io_uring does not help:
 * kernfs cannot be read without blocking in io_uring's sense, so every
 * IORING_OP_READ is tried, refused, polled and issued again from task work
 * (measured 30-40% slower per file, see bench/README.md).  What saves time
 * is reading fewer files.
 *
 * By default (flags 0) every sample is full: every counter file of every
 * state plus pm_qos_resume_latency_us of every CPU, as cpuidle.h describes.
 * With a cadence set, a full sample is taken
 *   - at the first sample after a CPU was (re)opened (creation, stale fds,
 *     a governor change, cpuidle_sampler_invalidate()) - for that CPU;
 *   - at the first sample after cpuidle_sampler_request_full() or after a
 *     sample that failed;
 *   - otherwise after every full_every - 1 partial samples.
 * A partial sample still reads the governor and every state's usage (so
 * stale fds and vanished CPUs are noticed exactly as before) and then:
 *   CPUIDLE_SAMPLER_SLOW_TIER: carries rejected, disable and the resume
 *       latency over from the last full sample (they change rarely: at most
 *       full_every - 1 samples late);
 *   CPUIDLE_SAMPLER_USAGE_GATE: reads time, above and below of a state only
 *       if its usage moved at this sample or at the previous one, else
 *       carries them over.  The kernel updates all three in the same exit
 *       path as usage (cpuidle_enter_state()), so the values are the same as
 *       a full read's; the extra sample after a move catches a read that
 *       raced with that update.
 * Garbage in a file that a sample skips is reported when the file is next
 * read (at the latest by the next full sample), with the same -EBADMSG
 * naming the file.  No allocation per sample either way. */

#include <stdbool.h>

#include "cpuidle.h"

enum {
        CPUIDLE_SAMPLER_SLOW_TIER  = 1u << 0,
        CPUIDLE_SAMPLER_USAGE_GATE = 1u << 1,
};

/* A reasonable full_every for a 1 s tick: rejected, disable and the resume
 * latency at most 9 s late (the daemon calls cpuidle_sampler_request_full()
 * after writing a knob itself). */
#define CPUIDLE_SAMPLER_FULL_EVERY_DEFAULT 10u

/* Sets the cadence: flags (CPUIDLE_SAMPLER_*, 0 = every sample full) and
 * full_every (>= 1; 1 also makes every sample full).  Takes effect at the
 * next read, which is full.  Returns 0 or -EINVAL (s unchanged). */
int cpuidle_sampler_set_cadence(CpuidleSampler *s, unsigned flags, unsigned full_every);

/* Makes the next cpuidle_sampler_read() a full one, without reopening any
 * fd (call after writing a disable or resume latency knob). */
void cpuidle_sampler_request_full(CpuidleSampler *s);

/* Returns the number of files the last cpuidle_sampler_read() read (the
 * governor file included; 0 before the first read). */
unsigned cpuidle_sampler_files_read(const CpuidleSampler *s);
