/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "cpuidle.h"
#include "kernel-count.h"

typedef struct CpuCount {
        bool known;             /* read at the start and online since */
        uint64_t generation;
        uint64_t start, last;
} CpuCount;

struct KernelCount {
        CpuidleSampler *sampler;
        CpuidleCpuSample *sample;
        CpuCount *cpus;
        unsigned n_cpus;
        unsigned n_reads;
};

int kernel_count_new(CpuidleSampler *sampler, unsigned n_cpus, KernelCount **ret) {
        KernelCount *k = calloc(1, sizeof(*k));

        if (!k)
                return -ENOMEM;
        k->n_cpus = n_cpus;
        k->sample = calloc(n_cpus ? n_cpus : 1, sizeof(*k->sample));
        k->cpus = calloc(n_cpus ? n_cpus : 1, sizeof(*k->cpus));
        if (!k->sample || !k->cpus) {
                kernel_count_free(k);   /* k->sampler still NULL: the caller keeps it */
                return -ENOMEM;
        }
        k->sampler = sampler;
        *ret = k;
        return 0;
}

KernelCount *kernel_count_free(KernelCount *k) {
        if (!k)
                return NULL;
        cpuidle_sampler_free(k->sampler);
        free(k->sample);
        free(k->cpus);
        free(k);
        return NULL;
}

void kernel_count_freep(KernelCount **k) {
        kernel_count_free(*k);
}

static uint64_t entries(const CpuidleCpuSample *s) {
        uint64_t n = 0;

        for (unsigned i = 0; i < s->n_states; i++)
                n += s->states[i].usage;
        return n;
}

int kernel_count_read(KernelCount *k) {
        ErrorInfo e = { "" };
        int r = cpuidle_sampler_read(k->sampler, k->sample, &e);

        if (r < 0)
                return r;
        for (unsigned c = 0; c < k->n_cpus; c++) {
                const CpuidleCpuSample *s = &k->sample[c];
                CpuCount *cc = &k->cpus[c];
                bool usable = s->online && s->n_states > 0;

                if (k->n_reads == 0)
                        *cc = (CpuCount) { .known = usable, .generation = s->generation, .start = entries(s) };
                else if (!usable || s->generation != cc->generation)
                        cc->known = false;
                if (cc->known)
                        cc->last = entries(s);
        }
        k->n_reads++;
        return 0;
}

bool kernel_count_get(const KernelCount *k, unsigned cpu, uint64_t *ret) {
        if (!k || cpu >= k->n_cpus || k->n_reads < 2 || !k->cpus[cpu].known)
                return false;
        *ret = k->cpus[cpu].last - k->cpus[cpu].start;
        return true;
}
