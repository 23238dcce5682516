/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* oracle: knows how long every idle period will last and picks the deepest
 * enabled state whose real target residency fits it and whose real exit
 * latency is within the limit.  The limit every other governor is measured
 * against: it never errs by the simulator's ground truth. */
#include "governor.h"
#include "sim-truth.h"

static unsigned oracle_select(Governor *g, const GovInput *in) {
        return sim_truth_ideal_state(g->table, in->future_ns, in->latency_limit_ns, SIM_VIEW_REAL);
}

static void oracle_reflect(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout) {
}

const GovernorOps governor_oracle = {
        .name = "oracle",
        .summary = "knows each idle duration: deepest state whose real residency fits (the limit)",
        .size = sizeof(Governor),
        .select = oracle_select,
        .reflect = oracle_reflect,
};
