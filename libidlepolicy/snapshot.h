/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A snapshot is everything sampled at one instant; the delta of two
 * snapshots gives the per-second rates and shares the daemon shows and the
 * model learns from.  The caller supplies the time (CLOCK_MONOTONIC usec):
 * the library never reads the clock. */

#include <stdbool.h>
#include <stdint.h>

#include "cleanup.h"

#include "cpuidle.h"
#include "errinfo.h"
#include "procstat.h"

/* A CPU's sampled_usec when it was never read (its record is unknown). */
#define SNAPSHOT_NEVER UINT64_MAX

/* Each CPU's record is idle[cpu], proc[cpu] and sampled_usec[cpu], the time
 * they were read.  With a sampler read budget (sampler-cadence.h) a CPU
 * whose turn has not come carries its record from the previous snapshot,
 * counters, /proc values and time together, so that the delta at its next
 * read spans exactly the time since its own last read.  sampled_usec 0
 * means timestamp_usec (a snapshot filled by hand). */
typedef struct Snapshot {
        uint64_t timestamp_usec;
        char governor[64];
        unsigned n_cpus;
        CpuidleCpuSample *idle;     /* n_cpus entries */
        ProcCpuSample *proc;        /* n_cpus entries */
        uint64_t *sampled_usec;     /* n_cpus entries: when idle[] and proc[] were read */
        bool has_ctxt;              /* proc/stat's context switch count, read with it */
        uint64_t ctxt;
} Snapshot;

/* Allocates an empty snapshot for n_cpus.  Returns 0 or -ENOMEM. */
int snapshot_new(unsigned n_cpus, Snapshot **ret);
/* Frees s (NULL allowed).  Returns NULL. */
Snapshot *snapshot_free(Snapshot *s);
void snapshot_freep(Snapshot **s);
#define _cleanup_snapshot_ _cleanup_(snapshot_freep)

/* Samples everything into s (which must have been created with
 * cpuidle_sampler_n_cpus(sampler) CPUs) and stamps it with now_usec.
 * pr may be NULL (no proc data).  Returns 0 or a negative errno (e set);
 * on failure s holds a partial sample and must not be used for a delta. */
int snapshot_take(Snapshot *s, CpuidleSampler *sampler, ProcReader *pr, uint64_t now_usec, ErrorInfo *e);

/* As snapshot_take(), for a sampler with a read budget: a CPU the sampler
 * did not read (fresh = false) gets prev's record of it (idle, proc and
 * sampled_usec; idle[cpu].fresh false), or SNAPSHOT_NEVER and no proc data
 * when prev is NULL or of another size.  A CPU read gets sampled_usec =
 * now_usec.  prev must not be s.  Returns as snapshot_take(). */
int snapshot_take_next(Snapshot *s, const Snapshot *prev, CpuidleSampler *sampler, ProcReader *pr,
                       uint64_t now_usec, ErrorInfo *e);

typedef struct StateRates {
        uint64_t d_usage, d_time_us, d_above, d_below, d_rejected;
        double usage_per_s;
        double usage_share_pct;     /* of all entries on this CPU in the interval */
        double time_share_pct;      /* of the interval's wall time spent in this state (scaled so
                                     * that the states never sum past 100%) */
        double too_deep_pct;        /* d_above / d_usage * 100 (0 if no usage) */
        double too_shallow_pct;     /* d_below / d_usage * 100 */
} StateRates;

typedef struct CpuRates {
        bool fresh;                 /* the CPU was read in new since its record in old
                                     * (its sampled_usec moved on).  false: nothing new,
                                     * valid is false, util and the wakeups are -1 and
                                     * interval_usec is 0 */
        uint64_t interval_usec;     /* between this CPU's two records (its own interval:
                                     * the snapshots' timestamps without a read budget) */
        bool valid;                 /* fresh, and the counters compare: false when offline
                                     * in either record, the state table changed
                                     * (generation), or a counter went backwards; then
                                     * n_states = 0.  For a fresh CPU util and the wakeup
                                     * rates come from proc data and are computed
                                     * regardless. */
        double util;                /* busy fraction 0..1 (proc/stat); < 0 if unknown */
        double util_idle;           /* busy fraction 0..1 from the idle states'
                                     * residency, when the CPU entered them 32 times
                                     * or more in the interval; < 0 if not.  Exact
                                     * where util is not: proc/stat's busy jiffies are
                                     * sampled at the tick, and a load whose period
                                     * divides the tick's (a 1 kHz timer loop at
                                     * HZ=250) is seen at the same phase every time:
                                     * a 10% load reads 0% or 100% */
        double timer_wakeups_per_s; /* < 0 if unknown */
        double other_wakeups_per_s;
        double idle_entries_per_s;  /* sum of usage_per_s over states */
        unsigned n_states;
        StateRates states[CPUIDLE_STATES_MAX];
} CpuRates;

/* Computes rates between old and new (same n_cpus, new later than old) into
 * out[0 .. n_cpus-1], each CPU over its own interval between its records'
 * sampled_usec (per second and shares as before; a CPU with the same record
 * in both is not fresh).  Returns 0; -EINVAL if the snapshots do not match or
 * time did not advance. */
int snapshot_delta(const Snapshot *old, const Snapshot *new, CpuRates *out);
