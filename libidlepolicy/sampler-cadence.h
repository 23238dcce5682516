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

/* Makes the next read of cpu a full one (call after writing one of its
 * knobs): under a read budget that CPU's alone, so that a daemon writing
 * knobs at many ticks does not make every turn read every file; without a
 * budget the next read, as cpuidle_sampler_request_full().  A cpu out of
 * range is ignored. */
void cpuidle_sampler_request_full_cpu(CpuidleSampler *s, unsigned cpu);

/* Returns the number of files the last cpuidle_sampler_read() read (the
 * governor file included; 0 before the first read). */
unsigned cpuidle_sampler_files_read(const CpuidleSampler *s);

/* ---- read budget ---------------------------------------------------------
 * On a big machine even the usage files alone cost more than a tick should
 * (1024 CPUs x 10 states: 10 240 reads, ~20 ms; 41 000 when every state
 * moves, ~160 ms).  With a read budget a read takes the CPUs in turns:
 *   - the governor file is read first, as always (a change marks every CPU
 *     for a reopen, done as each CPU's turn comes);
 *   - then whole CPUs from a rotating cursor, in CPU order and wrapping, as
 *     long as the files read so far plus the CPU's expected cost stay
 *     within files_per_read; at least one CPU is read at every call.  A
 *     CPU's expected cost is what its last read read, or all its counter
 *     files when it was not read since it was opened or is due a full read;
 *     a CPU that needs (re)opening also counts its open (per state the
 *     directory, six static files, six counters; plus two);
 *   - the cursor moves on to the first CPU not read; a CPU offline in the
 *     topology costs nothing and is always fresh.
 * So every CPU is read at least once in every ceil(n / m) reads, m =
 * max(1, floor((files_per_read - 1) / c)) CPUs fitting in a read, c the
 * largest CPU's cost and n the CPUs (about ceil(files / files_per_read),
 * files the sum of all CPUs' costs, when a CPU is small beside the budget);
 * at every read when they all fit.  A CPU not read at a call has fresh = false in out[cpu], which holds
 * the values of its last read (zeros and its generation before the first).
 * A read CPU's values are exactly what an unbudgeted read would give.
 * The cadence applies per CPU under a budget: a CPU's own reads count its
 * full_every, cpuidle_sampler_request_full() and a failed read make the
 * next read of every CPU full, and a (re)opened CPU's read is full; after
 * such a read the next full one of CPU c comes c % full_every reads sooner,
 * so that the CPUs' full reads spread over the turns (else every tenth turn
 * of a big machine would read every file and take several times longer).
 * Stale fds and vanished directories are noticed at the CPU's turn. */

/* Sets the files one cpuidle_sampler_read() may read, 0 for no limit (the
 * default: every CPU at every read).  Takes effect at the next read, which
 * is full for every CPU it reads.  Returns 0. */
int cpuidle_sampler_set_read_budget(CpuidleSampler *s, unsigned files_per_read);
