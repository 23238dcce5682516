/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Everything the tick reads, built for one set of online CPUs: topology,
 * cpuidle sampler, the reader of the system-wide cpuidle files, proc reader,
 * the last two snapshots and the per-CPU rates between them.  On hotplug the
 * manager builds a new Sampling and drops the old one. */

#include <stdbool.h>
#include <stdint.h>

#include "cpuidle.h"
#include "errinfo.h"
#include "procstat.h"
#include "snapshot.h"
#include "topology.h"

typedef struct Sampling {
        Topology *topology;
        CpuidleSampler *sampler;
        CpuidleSystemReader *system; /* driver, governor, haltpoll parameters */
        ProcReader *proc;           /* NULL when proc/stat cannot be read */
        Snapshot *latest;           /* the last good sample (valid if has_latest) */
        Snapshot *scratch;          /* where the next sample goes */
        bool has_latest;
        CpuRates *rates;            /* topology->n_cpus entries (valid if has_rates): each
                                     * CPU's last fresh rates; fresh says whether they are
                                     * new at the last tick */
        CpuRates *delta;            /* scratch for snapshot_delta() */
        bool has_rates;
        uint64_t interval_usec;     /* between the two ticks behind the rates (a CPU's own
                                     * interval is its rates' interval_usec) */
        bool has_ctxt;              /* d_ctxt is known */
        uint64_t d_ctxt;            /* the machine's context switches over interval_usec */
} Sampling;

/* Fds left to everything but the cpuidle sampler (the bus and its clients,
 * the journal, the system and proc readers, state files, the calibration
 * helper's pidfd and pipes): about 30 are in use on any machine. */
#define SAMPLING_FD_RESERVE 1024u

/* Returns the sampler's fd budget from RLIMIT_NOFILE (see sampling.c). */
unsigned sampling_fd_budget(void);

/* Loads the topology and opens the counter files under root_fd, keeping
 * as many open as sampling_fd_budget() allows, reading at most
 * files_per_tick of them per tick (0: all; CPUs in turns otherwise, see
 * sampler-cadence.h).  A proc tree that cannot be read is logged and
 * tolerated.  Returns 0 or a negative errno with e set. */
int sampling_new(int root_fd, unsigned files_per_tick, Sampling **ret, ErrorInfo *e);

/* Frees s (NULL allowed).  Returns NULL. */
Sampling *sampling_free(Sampling *s);
void sampling_freep(Sampling **s);

/* Takes a sample at now_usec (CLOCK_MONOTONIC) and, if there was one
 * before, computes the rates since then.  On failure the previous sample
 * and rates stay.  Returns 0 or a negative errno with e set. */
int sampling_take(Sampling *s, uint64_t now_usec, ErrorInfo *e);

/* The last fresh rates of cpu (over its own interval up to its last read;
 * fresh set if that read was at the last tick), or NULL before the second
 * sample.  Before the CPU's first fresh rates: valid and fresh false, util
 * and the wakeups -1.  The per-state part is only meaningful when valid is
 * set. */
const CpuRates *sampling_rates(const Sampling *s, unsigned cpu);

/* The counters of cpu at the last sample, or NULL when unknown. */
const CpuidleCpuSample *sampling_counters(const Sampling *s, unsigned cpu);
