/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "sim-trace.h"
#include "sim-util.h"

static bool interval_timer(const IdleInterval *in) {
        if (in->wake != TRACE_WAKE_UNKNOWN)
                return in->wake == TRACE_WAKE_TIMER;
        return in->sleep_length_ns != TRACE_SLEEP_UNKNOWN && in->duration_ns >= in->sleep_length_ns;
}

int sim_trace_intervals(const Trace *t, SimInterval **ret, size_t *ret_n, ErrorInfo *e) {
        _cleanup_free_ uint64_t *ends = NULL;
        _cleanup_free_ SimInterval *iv = NULL;
        uint32_t max_cpu = 0;

        if (t->n_intervals == 0)
                return errinfo_set(e, -ENODATA, "trace has no idle intervals");
        for (size_t i = 0; i < t->n_intervals; i++)
                max_cpu = t->intervals[i].cpu > max_cpu ? t->intervals[i].cpu : max_cpu;
        if (max_cpu >= SIM_CPUS_MAX)
                return errinfo_set(e, -EINVAL, "trace has CPU %u, more than the simulator handles", max_cpu);
        ends = calloc(max_cpu + 1, sizeof(uint64_t));
        iv = calloc(t->n_intervals, sizeof(SimInterval));
        if (!ends || !iv)
                return -ENOMEM;
        for (size_t i = 0; i < t->n_intervals; i++) {
                const IdleInterval *in = &t->intervals[i];
                uint64_t *end = &ends[in->cpu];

                iv[i] = (SimInterval) {
                        .busy_ns = *end && in->start_ns > *end ? in->start_ns - *end : 0,
                        .duration_ns = in->duration_ns,
                        .sleep_length_ns = in->sleep_length_ns == TRACE_SLEEP_UNKNOWN ?
                                SIM_SLEEP_UNKNOWN : in->sleep_length_ns,
                        .cpu = in->cpu,
                        .timer_wake = interval_timer(in),
                };
                *end = in->start_ns + in->duration_ns;
        }
        *ret = TAKE_PTR(iv);
        *ret_n = t->n_intervals;
        return 0;
}

int sim_trace_table(const Trace *t, const char *name, SimTable *ret, ErrorInfo *e) {
        SimTable tab = {};
        const TraceHeader *h = &t->header;

        if (h->n_states == 0 || h->n_states > SIM_STATES_MAX)
                return errinfo_set(e, -EBADMSG, "trace header lists %u states", h->n_states);
        snprintf(tab.name, sizeof(tab.name), "%s", name);
        snprintf(tab.costs, sizeof(tab.costs), "the trace's advertised costs, taken as real");
        tab.n_states = h->n_states;
        for (unsigned i = 0; i < h->n_states; i++) {
                SimState *s = &tab.states[i];

                snprintf(s->name, sizeof(s->name), "%s", h->states[i].name);
                s->advertised.exit_latency_ns = (uint64_t) h->states[i].exit_latency_us * NSEC_PER_USEC;
                s->advertised.target_residency_ns = (uint64_t) h->states[i].target_residency_us * NSEC_PER_USEC;
                s->real = s->advertised;
                s->polling = i == 0 && (streq(s->name, "POLL") || streq(s->name, "snooze"));
        }
        *ret = tab;
        return 0;
}
