/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "sim-truth.h"

SimVerdict sim_truth_classify(const SimTable *t, unsigned state, uint64_t duration_ns, SimView v) {
        int deeper;

        if (sim_table_cost(t, state, v)->target_residency_ns > duration_ns)
                return sim_table_enabled_from(t, (int) state - 1, -1) >= 0 ?
                        SIM_VERDICT_TOO_DEEP : SIM_VERDICT_CORRECT;
        deeper = sim_table_enabled_from(t, (int) state + 1, +1);
        if (deeper >= 0) {
                uint64_t delay = sim_table_cost(t, state, v)->exit_latency_ns;

                if (duration_ns > delay &&
                    duration_ns - delay >= sim_table_cost(t, (unsigned) deeper, v)->target_residency_ns)
                        return SIM_VERDICT_TOO_SHALLOW;
        }
        return SIM_VERDICT_CORRECT;
}

unsigned sim_truth_ideal_state(const SimTable *t, uint64_t duration_ns, uint64_t latency_limit_ns, SimView v) {
        unsigned best = sim_table_first_enabled(t);

        for (unsigned i = best + 1; i < t->n_states; i++) {
                const SimCost *c = sim_table_cost(t, i, v);

                if (t->states[i].disabled)
                        continue;
                if (c->exit_latency_ns > latency_limit_ns || c->target_residency_ns > duration_ns)
                        break;
                best = i;
        }
        return best;
}
