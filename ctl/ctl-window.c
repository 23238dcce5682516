/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-format.h"
#include "ctl-window.h"

/* More states than cpuidle has (CPUIDLE_STATE_MAX is 10). */
#define WINDOW_STATES_MAX 64

void ctl_window_done(CtlWindow *w) {
        free(w->cpus);
        *w = CTL_WINDOW_NULL;
}

/* The accumulator of CPU index, appended if new; NULL on -ENOMEM. */
static CtlWindowCpu *window_cpu(CtlWindow *w, uint32_t index) {
        CtlWindowCpu *a;

        for (size_t i = 0; i < w->n_cpus; i++)
                if (w->cpus[i].index == index)
                        return &w->cpus[i];
        a = realloc(w->cpus, (w->n_cpus + 1) * sizeof(CtlWindowCpu));
        if (!a)
                return NULL;
        w->cpus = a;
        w->cpus[w->n_cpus] = (CtlWindowCpu) { .index = index };
        return &w->cpus[w->n_cpus++];
}

static void add_known(double v, double *sum, unsigned *n) {
        if (ctl_value_known(v)) {
                *sum += v;
                (*n)++;
        }
}

int ctl_window_add(CtlWindow *w, const CtlStatus *s) {
        for (size_t i = 0; i < s->n_cpus; i++) {
                const CtlCpu *cpu = &s->cpus[i];
                CtlWindowCpu *a;

                if (!cpu->online)
                        continue;
                a = window_cpu(w, cpu->index);
                if (!a)
                        return -ENOMEM;
                add_known(cpu->util, &a->util, &a->n_util);
                add_known(cpu->timer_wakeups, &a->timer, &a->n_timer);
                add_known(cpu->other_wakeups, &a->other, &a->n_other);
        }
        w->ticks++;
        return 0;
}

static double mean(double sum, unsigned n) {
        return n > 0 ? sum / n : -1;
}

/* A share as the daemon's Rates give it: 0 when the whole is 0. */
static double pct(uint64_t part, uint64_t whole) {
        return whole > 0 ? ctl_pct(part, whole) : 0;
}

static const CtlState *state_in(const CtlCpu *cpu, const CtlState *st) {
        for (size_t k = 0; cpu && k < cpu->n_states; k++)
                if (cpu->states[k].index == st->index && cpu->states[k].name && st->name &&
                    strcmp(cpu->states[k].name, st->name) == 0)
                        return &cpu->states[k];
        return NULL;
}

/* The counters' differences of st since a, or false when they do not compare. */
static bool delta(const CtlState *a, const CtlState *b, CtlState *ret) {
        if (!a || !a->has_counters || !b->has_counters || b->usage < a->usage || b->time_us < a->time_us ||
            b->above < a->above || b->below < a->below)
                return false;
        *ret = (CtlState) { .usage = b->usage - a->usage, .time_us = b->time_us - a->time_us,
                            .above = b->above - a->above, .below = b->below - a->below };
        return true;
}

/* The window's rates of cpu (as read at the end) from its record at the start. */
static void cpu_rates(const CtlCpu *start, CtlCpu *cpu, uint64_t usec) {
        CtlState d[WINDOW_STATES_MAX];
        bool ok[WINDOW_STATES_MAX] = {};
        uint64_t usage = 0, time = 0;
        size_t n = cpu->n_states < WINDOW_STATES_MAX ? cpu->n_states : WINDOW_STATES_MAX;

        for (size_t k = 0; k < n; k++) {
                ok[k] = delta(state_in(start, &cpu->states[k]), &cpu->states[k], &d[k]);
                if (ok[k]) {
                        usage += d[k].usage;
                        time += d[k].time_us;
                }
        }
        time = time > usec ? time : usec;       /* the time shares never sum past 100% */
        for (size_t k = 0; k < cpu->n_states; k++) {
                CtlState *st = &cpu->states[k];

                st->has_rates = k < n && ok[k];
                if (!st->has_rates)
                        continue;
                st->entries_per_s = usec > 0 ? (double) d[k].usage * 1e6 / (double) usec : 0;
                st->usage_share_pct = pct(d[k].usage, usage);
                st->time_share_pct = pct(d[k].time_us, time);
                st->too_deep_pct = pct(d[k].above, d[k].usage);
                st->too_shallow_pct = pct(d[k].below, d[k].usage);
        }
}

void ctl_window_apply(const CtlWindow *w, const CtlStatus *first, CtlStatus *last, uint64_t usec) {
        for (size_t i = 0; i < last->n_cpus; i++) {
                CtlCpu *cpu = &last->cpus[i];
                const CtlWindowCpu *a = NULL;

                for (size_t j = 0; j < w->n_cpus; j++)
                        if (w->cpus[j].index == cpu->index)
                                a = &w->cpus[j];
                cpu->util = a ? mean(a->util, a->n_util) : -1;
                cpu->timer_wakeups = a ? mean(a->timer, a->n_timer) : -1;
                cpu->other_wakeups = a ? mean(a->other, a->n_other) : -1;
                cpu_rates(ctl_status_cpu(first, cpu->index), cpu, usec);
        }
        last->window_usec = usec;
        last->window_ticks = w->ticks;
}
