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

typedef struct Snapshot {
        uint64_t timestamp_usec;
        char governor[64];
        unsigned n_cpus;
        CpuidleCpuSample *idle;     /* n_cpus entries */
        ProcCpuSample *proc;        /* n_cpus entries */
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
        bool valid;                 /* false: offline in either snapshot, state table
                                     * changed (generation), or a counter went backwards;
                                     * then n_states = 0.  util and the wakeup rates come
                                     * from proc data and are computed regardless. */
        double util;                /* busy fraction 0..1; < 0 if unknown */
        double timer_wakeups_per_s; /* < 0 if unknown */
        double other_wakeups_per_s;
        double idle_entries_per_s;  /* sum of usage_per_s over states */
        unsigned n_states;
        StateRates states[CPUIDLE_STATES_MAX];
} CpuRates;

/* Computes rates between old and new (same n_cpus, new later than old) into
 * out[0 .. n_cpus-1].  Returns 0; -EINVAL if the snapshots do not match or
 * time did not advance. */
int snapshot_delta(const Snapshot *old, const Snapshot *new, CpuRates *out);
