/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

int snapshot_new(unsigned n_cpus, Snapshot **ret) {
        _cleanup_snapshot_ Snapshot *s = calloc(1, sizeof(Snapshot));
        size_t n = n_cpus > 0 ? n_cpus : 1;

        if (!s)
                return -ENOMEM;
        s->n_cpus = n_cpus;
        s->idle = calloc(n, sizeof(CpuidleCpuSample));
        s->proc = calloc(n, sizeof(ProcCpuSample));
        s->sampled_usec = calloc(n, sizeof(uint64_t));
        if (!s->idle || !s->proc || !s->sampled_usec)
                return -ENOMEM;
        *ret = s;
        s = NULL;
        return 0;
}

Snapshot *snapshot_free(Snapshot *s) {
        if (s) {
                free(s->idle);
                free(s->proc);
                free(s->sampled_usec);
                free(s);
        }
        return NULL;
}

void snapshot_freep(Snapshot **s) {
        snapshot_free(*s);
}

/* Returns when the record of cpu in s was read (SNAPSHOT_NEVER if unknown). */
static uint64_t cpu_sampled(const Snapshot *s, unsigned cpu) {
        return s->sampled_usec[cpu] != 0 ? s->sampled_usec[cpu] : s->timestamp_usec;
}

/* Stamps the CPUs read at now_usec; gives the others prev's record. */
static void carry_records(Snapshot *s, const Snapshot *prev, uint64_t now_usec) {
        bool have_prev = prev && prev->n_cpus == s->n_cpus;

        for (unsigned cpu = 0; cpu < s->n_cpus; cpu++) {
                if (s->idle[cpu].fresh) {
                        s->sampled_usec[cpu] = now_usec;
                        continue;
                }
                if (!have_prev) {
                        s->proc[cpu] = (ProcCpuSample) {};
                        s->sampled_usec[cpu] = SNAPSHOT_NEVER;
                        continue;
                }
                s->idle[cpu] = prev->idle[cpu];
                s->idle[cpu].fresh = false;
                s->proc[cpu] = prev->proc[cpu];
                s->sampled_usec[cpu] = cpu_sampled(prev, cpu);
        }
}

int snapshot_take(Snapshot *s, CpuidleSampler *sampler, ProcReader *pr, uint64_t now_usec, ErrorInfo *e) {
        return snapshot_take_next(s, NULL, sampler, pr, now_usec, e);
}

int snapshot_take_next(Snapshot *s, const Snapshot *prev, CpuidleSampler *sampler, ProcReader *pr,
                       uint64_t now_usec, ErrorInfo *e) {
        int r;

        if (s->n_cpus != cpuidle_sampler_n_cpus(sampler))
                return errinfo_set(e, -EINVAL, "snapshot has %u CPUs, the sampler %u",
                                   s->n_cpus, cpuidle_sampler_n_cpus(sampler));
        r = cpuidle_sampler_read(sampler, s->idle, e);
        if (r < 0)
                return r;
        s->has_ctxt = false;
        if (pr) {
                r = procreader_read(pr, s->n_cpus, s->proc, e);
                s->has_ctxt = r >= 0 && procreader_ctxt(pr, &s->ctxt);
        } else
                memset(s->proc, 0, sizeof(ProcCpuSample) * s->n_cpus);
        if (r < 0)
                return r;
        snprintf(s->governor, sizeof(s->governor), "%s", cpuidle_sampler_governor(sampler));
        s->timestamp_usec = now_usec;
        carry_records(s, prev, now_usec);
        return 0;
}

/* Returns true if the state counters of a CPU can be compared: online in
 * both, same table (generation, count), no counter went backwards. */
static bool idle_comparable(const CpuidleCpuSample *a, const CpuidleCpuSample *b) {
        if (!a->online || !b->online || a->generation != b->generation || a->n_states != b->n_states)
                return false;
        for (unsigned k = 0; k < b->n_states; k++) {
                const CpuidleStateCounters *x = &a->states[k], *y = &b->states[k];
                if (y->usage < x->usage || y->time_us < x->time_us || y->above < x->above ||
                    y->below < x->below || y->rejected < x->rejected)
                        return false;
        }
        return true;
}

/* Returns part/whole * 100, or 0 when whole is 0. */
static double pct(uint64_t part, uint64_t whole) {
        return whole > 0 ? (double) part * 100.0 / (double) whole : 0.0;
}

/* The idle entries in an interval from which the CPU's utilisation comes
 * from its cpuidle residency counters rather than from proc/stat: the
 * kernel adds an idle period's time when it ends, so the one in progress at
 * the sample is missing; with this many entries it is a few percent of the
 * interval at most, and the next interval gets it back. */
#define UTIL_FROM_IDLE_MIN_ENTRIES 32

/* Fills out->states from the counter deltas of a comparable CPU, and
 * util_idle, its utilisation from the time it spent in idle states, when it
 * entered them often enough. */
static void idle_rates(const CpuidleCpuSample *a, const CpuidleCpuSample *b, uint64_t interval_usec, CpuRates *out) {
        double seconds = (double) interval_usec / 1e6;
        uint64_t total_usage = 0, total_time = 0;

        for (unsigned k = 0; k < b->n_states; k++) {
                total_usage += b->states[k].usage - a->states[k].usage;
                total_time += b->states[k].time_us - a->states[k].time_us;
        }
        /* The kernel adds a period's time when it ends, and the counters are
         * read a little after the timestamp: the states' time can exceed
         * the interval by a period or two.  Time shares never sum past 100%. */
        const uint64_t time_whole = total_time > interval_usec ? total_time : interval_usec;
        out->n_states = b->n_states;
        if (total_usage >= UTIL_FROM_IDLE_MIN_ENTRIES)
                out->util_idle = total_time >= interval_usec ? 0.0 : 1.0 - (double) total_time / (double) interval_usec;
        for (unsigned k = 0; k < b->n_states; k++) {
                const CpuidleStateCounters *x = &a->states[k], *y = &b->states[k];
                StateRates *r = &out->states[k];

                r->d_usage = y->usage - x->usage;
                r->d_time_us = y->time_us - x->time_us;
                r->d_above = y->above - x->above;
                r->d_below = y->below - x->below;
                r->d_rejected = y->rejected - x->rejected;
                r->usage_per_s = (double) r->d_usage / seconds;
                r->usage_share_pct = pct(r->d_usage, total_usage);
                r->time_share_pct = pct(r->d_time_us, time_whole);
                r->too_deep_pct = pct(r->d_above, r->d_usage);
                r->too_shallow_pct = pct(r->d_below, r->d_usage);
                out->idle_entries_per_s += r->usage_per_s;
        }
}

/* Returns the busy fraction between two proc/stat samples, -1 if unknown
 * (missing, no jiffies elapsed, or counters went backwards). */
static double util_between(const ProcCpuSample *a, const ProcCpuSample *b) {
        if (!a->has_stat || !b->has_stat || b->total_jiffies <= a->total_jiffies || b->busy_jiffies < a->busy_jiffies)
                return -1.0;

        double u = (double) (b->busy_jiffies - a->busy_jiffies) / (double) (b->total_jiffies - a->total_jiffies);
        return u > 1.0 ? 1.0 : u;   /* idle can step back on NOHZ kernels */
}

/* Returns (b - a) per second, or -1 if unknown or gone backwards. */
static double per_second(bool known, uint64_t a, uint64_t b, double seconds) {
        return known && b >= a ? (double) (b - a) / seconds : -1.0;
}

int snapshot_delta(const Snapshot *old, const Snapshot *new, CpuRates *out) {
        if (old->n_cpus != new->n_cpus || new->timestamp_usec <= old->timestamp_usec)
                return -EINVAL;

        for (unsigned cpu = 0; cpu < new->n_cpus; cpu++) {
                const ProcCpuSample *pa = &old->proc[cpu], *pb = &new->proc[cpu];
                uint64_t ta = cpu_sampled(old, cpu), tb = cpu_sampled(new, cpu);
                bool irq = pa->has_irq && pb->has_irq;
                CpuRates *r = &out[cpu];

                if (ta == SNAPSHOT_NEVER || tb == SNAPSHOT_NEVER || tb <= ta) {
                        *r = (CpuRates) { .util = -1.0, .util_idle = -1.0, .timer_wakeups_per_s = -1.0,
                                          .other_wakeups_per_s = -1.0 };
                        continue;
                }
                uint64_t interval = tb - ta;
                double seconds = (double) interval / 1e6;
                *r = (CpuRates) {
                        .fresh = true,
                        .interval_usec = interval,
                        .valid = idle_comparable(&old->idle[cpu], &new->idle[cpu]),
                        .util = util_between(pa, pb),
                        .util_idle = -1.0,
                        .timer_wakeups_per_s = per_second(irq, pa->timer_irqs, pb->timer_irqs, seconds),
                        .other_wakeups_per_s = per_second(irq, pa->other_irqs, pb->other_irqs, seconds),
                };
                if (r->valid)
                        idle_rates(&old->idle[cpu], &new->idle[cpu], interval, r);
        }
        return 0;
}
