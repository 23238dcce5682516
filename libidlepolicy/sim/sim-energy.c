/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "sim-energy.h"

void sim_energy_model_init(SimEnergyModel *m, const SimTable *t) {
        *m = (SimEnergyModel) { .n_states = t->n_states };
        m->power[0] = 1.0;
        m->transition[0] = 0.0;
        for (unsigned i = 1; i < t->n_states; i++) {
                double r_us = (double) t->states[i].real.target_residency_ns / 1000.0;

                m->power[i] = m->power[i - 1] / 2.0;
                m->transition[i] = m->transition[i - 1] + (m->power[i - 1] - m->power[i]) * r_us;
        }
}

double sim_energy_idle(const SimEnergyModel *m, unsigned state, uint64_t duration_ns) {
        return m->transition[state] + m->power[state] * ((double) duration_ns / 1000.0);
}

double sim_latency_wakeup_us(const SimTable *t, unsigned state, bool timer) {
        const SimState *s = &t->states[state];
        uint64_t ns = s->real.exit_latency_ns;

        if (!timer && !s->polling)
                ns += t->ipi_ns;
        return (double) ns / 1000.0;
}
