/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "log.h"
#include "macro.h"
#include "sampler-cadence.h"
#include "sampling.h"

/* Returns how many fds the cpuidle sampler may hold: RLIMIT_NOFILE's soft
 * limit (main() raised it to the hard one) less SAMPLING_FD_RESERVE for
 * everything else, or half the limit when it is below twice the reserve. */
unsigned sampling_fd_budget(void) {
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= UINT_MAX)
                return CPUIDLE_SAMPLER_FDS_UNLIMITED;
        if (rl.rlim_cur < 2 * SAMPLING_FD_RESERVE)
                return (unsigned) rl.rlim_cur / 2;
        return (unsigned) rl.rlim_cur - SAMPLING_FD_RESERVE;
}

/* Returns 0 or a negative errno with e set. */
int sampling_new(int root_fd, unsigned files_per_tick, Sampling **ret, ErrorInfo *e) {
        _cleanup_(sampling_freep) Sampling *s = NULL;
        ErrorInfo pe = {};
        int r;

        s = calloc(1, sizeof(Sampling));
        if (!s)
                return -ENOMEM;
        r = topology_load(root_fd, &s->topology, e);
        if (r < 0)
                return r;
        /* Fds for the counter files that are read most, within the limit;
         * the rest are opened at each read (cpuidle.h).  The new sampler of
         * a hotplug takes its fds only after the old one is gone. */
        r = cpuidle_sampler_new_budget(root_fd, s->topology, sampling_fd_budget(), &s->sampler, e);
        if (r < 0)
                return r;
        /* Read rejected/disable/resume latency every 10th tick and time/above/
         * below only where usage moved: about half the sysfs reads per tick
         * (bench/README.md).  The enforcement layer asks for a full sample
         * after each of its own writes. */
        r = cpuidle_sampler_set_cadence(s->sampler, CPUIDLE_SAMPLER_SLOW_TIER | CPUIDLE_SAMPLER_USAGE_GATE,
                                        CPUIDLE_SAMPLER_FULL_EVERY_DEFAULT);
        if (r < 0)
                return r;
        /* On big machines the CPUs are read in turns, so that a tick costs
         * about the same from 256 CPUs up (idlepolicyd.conf(5)). */
        r = cpuidle_sampler_set_read_budget(s->sampler, files_per_tick);
        if (r < 0)
                return r;
        /* The governor and guest_halt_poll_ns every tick, the driver, the
         * governor list and the other haltpoll parameters every 10th (and
         * at once when one of the first two moved). */
        r = cpuidle_system_reader_new(root_fd, CPUIDLE_SAMPLER_FULL_EVERY_DEFAULT, &s->system, e);
        if (r < 0)
                return r;
        r = procreader_new(root_fd, &s->proc, &pe);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                log_warning_errno(r, "Failed to open proc/stat: %s, utilisation and wakeups will be unknown, ignoring",
                                  pe.message[0] ? pe.message : strerror(-r));
        if (snapshot_new(s->topology->n_cpus, &s->latest) < 0 ||
            snapshot_new(s->topology->n_cpus, &s->scratch) < 0)
                return -ENOMEM;
        s->rates = calloc(s->topology->n_cpus ? s->topology->n_cpus : 1, sizeof(CpuRates));
        s->delta = calloc(s->topology->n_cpus ? s->topology->n_cpus : 1, sizeof(CpuRates));
        if (!s->rates || !s->delta)
                return -ENOMEM;
        for (unsigned cpu = 0; cpu < s->topology->n_cpus; cpu++)
                s->rates[cpu] = (CpuRates) { .util = -1, .util_idle = -1, .timer_wakeups_per_s = -1,
                                             .other_wakeups_per_s = -1 };
        *ret = TAKE_PTR(s);
        return 0;
}

/* Returns NULL. */
Sampling *sampling_free(Sampling *s) {
        if (!s)
                return NULL;
        free(s->rates);
        free(s->delta);
        snapshot_free(s->scratch);
        snapshot_free(s->latest);
        procreader_free(s->proc);
        cpuidle_system_reader_free(s->system);
        cpuidle_sampler_free(s->sampler);
        topology_free(s->topology);
        free(s);
        return NULL;
}

void sampling_freep(Sampling **s) {
        sampling_free(*s);
}

/* Returns 0 or a negative errno with e set. */
int sampling_take(Sampling *s, uint64_t now_usec, ErrorInfo *e) {
        Snapshot *t;
        int r;

        r = snapshot_take_next(s->scratch, s->has_latest ? s->latest : NULL, s->sampler, s->proc, now_usec, e);
        if (r < 0)
                return r;
        if (s->has_latest && snapshot_delta(s->latest, s->scratch, s->delta) >= 0) {
                s->has_rates = true;
                s->interval_usec = s->scratch->timestamp_usec - s->latest->timestamp_usec;
                s->has_ctxt = s->latest->has_ctxt && s->scratch->has_ctxt && s->scratch->ctxt >= s->latest->ctxt;
                s->d_ctxt = s->has_ctxt ? s->scratch->ctxt - s->latest->ctxt : 0;
                /* A CPU not read at this tick keeps showing its last rates. */
                for (unsigned cpu = 0; cpu < s->topology->n_cpus; cpu++)
                        if (s->delta[cpu].fresh)
                                s->rates[cpu] = s->delta[cpu];
                        else
                                s->rates[cpu].fresh = false;
        }
        t = s->latest;
        s->latest = s->scratch;
        s->scratch = t;
        s->has_latest = true;
        return 0;
}

/* Returns the rates or NULL. */
const CpuRates *sampling_rates(const Sampling *s, unsigned cpu) {
        if (!s->has_rates || cpu >= s->topology->n_cpus)
                return NULL;
        return &s->rates[cpu];
}

/* Returns the counters or NULL. */
const CpuidleCpuSample *sampling_counters(const Sampling *s, unsigned cpu) {
        if (!s->has_latest || cpu >= s->latest->n_cpus || !s->latest->idle[cpu].online)
                return NULL;
        return &s->latest->idle[cpu];
}
