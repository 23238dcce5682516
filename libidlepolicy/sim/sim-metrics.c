/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>

#include "sim-metrics.h"
#include "sim-truth.h"
#include "sim-util.h"

void sim_metrics_init(SimMetrics *m, const SimTable *t) {
        *m = (SimMetrics) { .n_states = t->n_states };
}

void sim_metrics_add_entry(SimMetrics *m, const SimTable *t, const SimEnergyModel *em,
                           unsigned state, uint64_t duration_ns) {
        SimStateStats *s = &m->states[state];

        m->entries++;
        s->entries++;
        s->time_ns += duration_ns;
        m->idle_ns += duration_ns;
        m->energy += sim_energy_idle(em, state, duration_ns);

        switch (sim_truth_classify(t, state, duration_ns, SIM_VIEW_REAL)) {
        case SIM_VERDICT_TOO_DEEP:
                s->too_deep++;
                m->too_deep++;
                break;
        case SIM_VERDICT_TOO_SHALLOW:
                s->too_shallow++;
                m->too_shallow++;
                break;
        case SIM_VERDICT_CORRECT:
                s->correct++;
                m->correct++;
                break;
        }
        switch (sim_truth_classify(t, state, duration_ns, SIM_VIEW_ADVERTISED)) {
        case SIM_VERDICT_TOO_DEEP:
                s->kernel_above++;
                m->kernel_above++;
                break;
        case SIM_VERDICT_TOO_SHALLOW:
                s->kernel_below++;
                m->kernel_below++;
                break;
        case SIM_VERDICT_CORRECT:
                break;
        }
}

void sim_metrics_add_wakeup(SimMetrics *m, const SimTable *t, unsigned state, bool timer) {
        double us = sim_latency_wakeup_us(t, state, timer);

        m->intervals++;
        if (timer) {
                m->timer_wakeups++;
                m->latency_timer_us += us;
        } else {
                m->other_wakeups++;
                m->latency_other_us += us;
        }
}

double sim_metrics_cost(const SimMetrics *m) {
        return m->energy + m->latency_other_us;
}

static double ratio(double a, double b) {
        return b > 0 ? a / b : NAN;
}

void sim_metrics_summarize(const SimMetrics *m, const SimMetrics *oracle, SimSummary *ret) {
        double oracle_cost = sim_metrics_cost(oracle);

        *ret = (SimSummary) {
                .correct_pct = pct(m->correct, m->entries),
                .too_deep_pct = pct(m->too_deep, m->entries),
                .too_shallow_pct = pct(m->too_shallow, m->entries),
                .kernel_above_pct = pct(m->kernel_above, m->entries),
                .kernel_below_pct = pct(m->kernel_below, m->entries),
                .energy = ratio(m->energy, oracle->energy),
                .latency_us = ratio(m->latency_timer_us + m->latency_other_us, (double) m->intervals),
                .latency_timer_us = ratio(m->latency_timer_us, (double) m->timer_wakeups),
                .latency_other_us = ratio(m->latency_other_us, (double) m->other_wakeups),
                .regret_pct = 100.0 * ratio(sim_metrics_cost(m) - oracle_cost, oracle_cost),
        };
}
