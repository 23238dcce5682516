/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "knob-idle.h"
#include "knob-view.h"

void knob_view_done(KnobView *v) {
        free(v->cpus);
        *v = (KnobView) {};
}

/* Returns 0 or -ENOMEM. */
static int view_resize(KnobView *v, unsigned n) {
        KnobViewCpu *c;

        if (n <= v->n_cpus)
                return 0;
        c = realloc(v->cpus, n * sizeof(KnobViewCpu));
        if (!c)
                return -ENOMEM;
        memset(c + v->n_cpus, 0, (n - v->n_cpus) * sizeof(KnobViewCpu));
        v->cpus = c;
        v->n_cpus = n;
        return 0;
}

/* Returns 0 or -ENOMEM. */
int knob_view_sampled(KnobView *v, const Sampling *s, const CpuidleSystem *sys) {
        unsigned n = s->topology->n_cpus;

        v->has_system = sys != NULL;
        v->system = sys ? *sys : (CpuidleSystem) {};
        if (view_resize(v, n) < 0)
                return -ENOMEM;
        for (unsigned cpu = 0; cpu < n; cpu++) {
                const CpuidleCpuSample *smp = sampling_counters(s, cpu);
                KnobViewCpu *c = &v->cpus[cpu];

                if (!smp) {
                        *c = (KnobViewCpu) {};
                        continue;
                }
                c->disabled = 0;
                for (unsigned k = 0; k < smp->n_states && k < 64; k++)
                        c->disabled |= (uint64_t) smp->states[k].disabled << k;
                c->has_resume_latency = smp->has_resume_latency;
                c->resume_latency_us = smp->resume_latency_us;
        }
        return 0;
}

/* A halt-poll parameter written: its field in h. */
static void haltpoll_written(HaltpollParams *h, const char *path, const char *value) {
        uint64_t x;

        if (strcmp(path, SYSFS_HALTPOLL_ALLOW_SHRINK) == 0) {
                h->allow_shrink = value[0] == 'Y' || value[0] == 'y' || value[0] == '1';
                return;
        }
        if (parse_u64(value, &x) < 0)
                return;
        if (strcmp(path, SYSFS_HALTPOLL_NS) == 0)
                h->poll_ns = x;
        else if (strcmp(path, SYSFS_HALTPOLL_GROW) == 0)
                h->grow = x;
        else if (strcmp(path, SYSFS_HALTPOLL_GROW_START) == 0)
                h->grow_start = x;
        else if (strcmp(path, SYSFS_HALTPOLL_SHRINK) == 0)
                h->shrink = x;
}

void knob_view_written(KnobView *v, const KnobAddr *a, const char *value) {
        KnobViewCpu *c = a->cpu < v->n_cpus ? &v->cpus[a->cpu] : NULL;
        uint32_t usec;

        if (a->type != &knob_type_idle)
                return;
        switch ((KnobKind) a->kind) {
        case KNOB_GOVERNOR:
                if (v->has_system)
                        snprintf(v->system.governor, sizeof(v->system.governor), "%s", value);
                break;
        case KNOB_HALTPOLL:
                haltpoll_written(&v->system.haltpoll, a->rel, value);
                break;
        case KNOB_STATE_DISABLE:
                if (c && a->index < 64)
                        c->disabled = (c->disabled & ~(UINT64_C(1) << a->index)) |
                                      (uint64_t) (strcmp(value, "0") != 0) << a->index;
                break;
        case KNOB_RESUME_LATENCY:
                if (c && cpuidle_parse_resume_latency(value, &usec) >= 0) {
                        c->resume_latency_us = usec;
                        c->has_resume_latency = true;
                }
                break;
        default:
                break;
        }
}

const KnobViewCpu *knob_view_cpu(const KnobView *v, unsigned cpu) {
        return cpu < v->n_cpus ? &v->cpus[cpu] : NULL;
}
