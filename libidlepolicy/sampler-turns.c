/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sampler's read budget: CPUs read in turns (sampler-cadence.h). */
#include <string.h>

#include "sampler-cadence.h"
#include "sampler-internal.h"

/* With a read budget every CPU keeps its own cadence (a CPU read at every
 * third read would otherwise meet the full samples only by chance).  After
 * a full read that every CPU makes at once (an open, a request) the next
 * one comes sooner by cpu % full_every reads, so that the CPUs' full reads
 * spread over the turns instead of making every tenth turn long.  Returns
 * what this read of cpu skips, and advances its cadence. */
static unsigned cpu_cadence_next(const CpuidleSampler *s, SamplerCpu *c, unsigned cpu) {
        if (s->cadence == 0 || s->full_every <= 1)
                return 0;
        if (c->full || c->needs_open) {
                c->partial_left = s->full_every - 1 - cpu % s->full_every;
                return 0;
        }
        if (c->partial_left == 0) {
                c->partial_left = s->full_every - 1;
                return 0;
        }
        c->partial_left--;
        return s->cadence;
}

/* Returns the number of counter files c has (the resume latency included). */
static unsigned cpu_files(const SamplerCpu *c) {
        unsigned n = c->has_qos;

        for (unsigned k = 0; k < c->n_states; k++)
                n += (unsigned) __builtin_popcount(c->present[k]);
        return n;
}

/* Returns what reading c at this turn is expected to cost in files: its
 * last read, or all its files when it has not been read since it was
 * opened or is due a full read, plus its open when it needs one. */
static unsigned cpu_cost_estimate(const CpuidleSampler *s, const SamplerCpu *c) {
        unsigned read = c->read_cost > 0 && !c->full && !c->needs_open ? c->read_cost : cpu_files(c);

        return read + (c->needs_open ? c->open_cost : 0);
}

/* Fills out with the values of c's last read, not fresh. */
static void cpu_carry(const SamplerCpu *c, CpuidleCpuSample *out) {
        *out = (CpuidleCpuSample) {
                .online = c->online,
                .n_states = c->n_states,
                .generation = c->generation,
                .resume_latency_us = c->resume_latency_us,
                .has_resume_latency = c->has_resume_latency,
        };
        memcpy(out->states, c->last, sizeof(c->last[0]) * c->n_states);
}

/* Reads one turn of CPUs from the cursor within the read budget (at least
 * one wanted CPU), moves the cursor past them and carries the others.
 * Returns 0 or a negative errno. */
int sampler_read_turn(CpuidleSampler *s, SamplerCpuFunc sample, CpuidleCpuSample *out, ErrorInfo *e) {
        unsigned spent = s->files_read, n_read = 0, step, start = s->cursor;
        int r;

        for (step = 0; step < s->n_cpus; step++) {
                unsigned cpu = (start + step) % s->n_cpus, before = s->files_read;
                SamplerCpu *c = &s->cpus[cpu];
                uint64_t generation = c->generation;

                if (c->wanted && n_read > 0 && spent + cpu_cost_estimate(s, c) > s->read_budget)
                        break;
                if (c->wanted)
                        s->skip = cpu_cadence_next(s, c, cpu);
                r = sample(s, cpu, &out[cpu], e);
                if (r < 0)
                        return r;
                out[cpu].fresh = true;
                if (!c->wanted)
                        continue;
                c->read_cost = s->files_read - before;
                spent += c->read_cost + (c->generation != generation ? c->open_cost : 0);
                n_read++;
        }
        s->cursor = s->n_cpus > 0 ? (start + step) % s->n_cpus : 0;
        for (; step < s->n_cpus; step++)
                cpu_carry(&s->cpus[(start + step) % s->n_cpus], &out[(start + step) % s->n_cpus]);
        return 0;
}

/* Makes the next read of every CPU a full one. */
void sampler_mark_full(CpuidleSampler *s) {
        for (unsigned cpu = 0; cpu < s->n_cpus; cpu++)
                s->cpus[cpu].full = true;
}

int cpuidle_sampler_set_read_budget(CpuidleSampler *s, unsigned files_per_read) {
        s->read_budget = files_per_read;
        s->full_next = true;
        return 0;
}

void cpuidle_sampler_request_full_cpu(CpuidleSampler *s, unsigned cpu) {
        if (s->read_budget == 0)
                s->full_next = true;
        else if (cpu < s->n_cpus)
                s->cpus[cpu].full = true;
}
