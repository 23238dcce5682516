/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The sampler's state, shared by cpuidle-sampler.c (opening, reading and
 * the cadence of one CPU) and sampler-turns.c (the read budget: which CPUs
 * a read takes).  Not for use outside these two files. */

#include <stdbool.h>
#include <stdint.h>

#include "cpuidle.h"

typedef enum Counter {
        COUNTER_USAGE,
        COUNTER_TIME,
        COUNTER_ABOVE,
        COUNTER_BELOW,
        COUNTER_REJECTED,
        COUNTER_DISABLE,
        _COUNTER_MAX,
} Counter;

/* Which files keep an fd under a budget, in this order: usage is read at
 * every sample, time/above/below whenever usage moved (on a busy machine:
 * every sample too), rejected/disable/resume latency only in full samples
 * when a cadence is set.  An fd saves an openat() and a close() (a path
 * walk of 7 components) per read. */
typedef enum FdTier {
        TIER_USAGE,
        TIER_GATED,
        TIER_SLOW,
        _TIER_MAX,
} FdTier;

typedef struct SamplerCpu {
        bool wanted;                /* online in the topology the sampler was made from */
        bool needs_open;            /* (re)open the fds at the next read */
        bool online;                /* the cpuidle directory existed at the last open */
        bool full;                  /* read every file at the next read (set at open) */
        unsigned n_states;
        uint64_t generation;
        uint64_t stale_reopens;       /* reopens because the fds went stale (see cpuidle.h) */
        int qos_fd;                 /* -1: not held (see has_qos) */
        bool has_qos;               /* pm_qos_resume_latency_us exists */
        int fds[CPUIDLE_STATES_MAX][_COUNTER_MAX];      /* -1: not held (see present) */
        unsigned present[CPUIDLE_STATES_MAX];           /* bit i: counter file i exists */
        CpuidleStateInfo info[CPUIDLE_STATES_MAX];
        /* The last values read, carried over by partial samples. */
        CpuidleStateCounters last[CPUIDLE_STATES_MAX];
        unsigned moved;             /* bit k: usage of state k moved at the last read */
        bool has_resume_latency;
        uint32_t resume_latency_us;
        /* With a read budget (cpuidle_sampler_set_read_budget()): */
        unsigned partial_left;      /* partial samples of this CPU before its next full one */
        unsigned open_cost;         /* files the last open of this CPU touched */
        unsigned read_cost;         /* files its last read read (0: none yet) */
} SamplerCpu;

struct CpuidleSampler {
        int root_fd;                /* our own dup, or AT_FDCWD */
        int cpu_dir_fd;             /* SYSFS_CPU_DIR, for the files without an fd (with a budget only) */
        int governor_fd;
        bool governor_ro;           /* governor_fd is current_governor_ro (before 5.8) */
        char governor[64];
        unsigned cadence;           /* CPUIDLE_SAMPLER_* */
        unsigned full_every;
        unsigned partial_left;      /* partial samples before the next full one */
        bool full_next;             /* the next sample is full */
        unsigned skip;              /* CPUIDLE_SAMPLER_* skipping in this sample, 0 = full */
        unsigned files_read;        /* by the last sample */
        unsigned budget;            /* counter fds we may hold; UINT_MAX: no limit */
        unsigned files[_TIER_MAX];  /* counter files of the open CPUs, by tier */
        unsigned held[_TIER_MAX];   /* fds held, by tier */
        unsigned limit[_TIER_MAX];  /* fds a tier may hold (see budget_plan()) */
        bool planned;               /* the limits follow the files (after creation) */
        unsigned read_budget;       /* files per read, 0 = every CPU at every read */
        unsigned cursor;            /* the CPU whose turn comes next (with a read budget) */
        unsigned n_cpus;
        SamplerCpu cpus[];
};

/* Samples one CPU into *out (cpuidle-sampler.c, passed to
 * sampler_read_turn() so that the turns do not call back by name).
 * Returns 0 or a negative errno with e set. */
typedef int (*SamplerCpuFunc)(CpuidleSampler *s, unsigned cpu, CpuidleCpuSample *out, ErrorInfo *e);

/* Reads one turn of CPUs within the read budget (sampler-turns.c).
 * Returns 0 or a negative errno. */
int sampler_read_turn(CpuidleSampler *s, SamplerCpuFunc sample, CpuidleCpuSample *out, ErrorInfo *e);

/* Makes the next read of every CPU a full one (sampler-turns.c). */
void sampler_mark_full(CpuidleSampler *s);
