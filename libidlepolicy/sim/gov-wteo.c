/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* wteo: the weighted-history choice on today's teo, per idle entry, with
 * the arithmetic of the kernel governor (libidlepolicy/wteo/wteo-core.h,
 * the same header the kernel patch in kernel/ carries):
 *
 *  - teo (gov-teo.c) keeps its bins, hits and intercepts and gives the
 *    candidate: the deepest state its metrics allow;
 *  - the CPU's matrix row of the state the time to the next timer pointed
 *    at says how often each state was right after such an entry, and the
 *    governor enters the deepest enabled state at or below the candidate
 *    whose risk of being too deep (the row's weight on shallower states)
 *    stays within the tolerance;
 *  - after the wakeup the row learns the state the measured idle time
 *    called for (the deepest enabled one whose advertised target residency
 *    it reached), and one row ages toward the prior.  A poll that ran out,
 *    or a wakeup at or after the timer, counts as the timer's state, as
 *    teo counts it a hit (the kernel's poll_time_limit case).
 *
 * Parameters (-P): wteo_learn_shift, wteo_age_shift, wteo_explore_shift,
 * wteo_tolerance (1/1024). */
#include <errno.h>

#include "gov-teo.h"
#include "wteo-core.h"

typedef struct Wteo {
        Teo teo;                        /* first: teo_reflect() takes the Governor */
        struct wteo_cpu core;
        struct wteo_params params;
        unsigned timer_state;           /* the row of the entry in progress */
} Wteo;

static int wteo_gov_init(Governor *g, const GovParams *p) {
        Wteo *w = (Wteo *) g;

        w->params = (struct wteo_params) {
                .learn_shift = p->wteo_learn_shift,
                .age_shift = p->wteo_age_shift,
                .explore_shift = p->wteo_explore_shift,
        };
        if (!wteo_params_valid(&w->params))
                return -EINVAL;
        wteo_init(&w->core, g->table->n_states, p->wteo_tolerance);
        return 0;
}

static uint32_t enabled_mask(const Governor *g) {
        uint32_t m = 0;

        for (unsigned i = 0; i < g->table->n_states && i < WTEO_STATES_MAX; i++)
                if (gov_enabled(g, i))
                        m |= 1u << i;
        return m;
}

static unsigned wteo_gov_select(Governor *g, const GovInput *in) {
        Wteo *w = (Wteo *) g;
        unsigned candidate = teo_select_state(&w->teo, in, false);

        w->timer_state = gov_bin_of(g, in->sleep_length_ns);
        return wteo_select(&w->core, &w->params, w->timer_state, candidate, enabled_mask(g));
}

/* The deepest enabled state whose advertised target residency measured_ns
 * reached; the shallowest enabled one if none. */
static unsigned right_state(const Governor *g, uint64_t measured_ns) {
        unsigned right = WTEO_STATES_MAX;

        for (unsigned i = 0; i < g->table->n_states; i++) {
                if (!gov_enabled(g, i))
                        continue;
                if (right == WTEO_STATES_MAX || gov_cost(g, i)->target_residency_ns <= measured_ns)
                        right = i;
                else
                        break;
        }
        return right == WTEO_STATES_MAX ? 0 : right;
}

static void wteo_gov_reflect(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout) {
        Wteo *w = (Wteo *) g;

        teo_reflect(g, state, measured_ns, poll_timeout);
        if (poll_timeout || measured_ns >= w->teo.sleep_length_ns)
                measured_ns = w->teo.sleep_length_ns;
        wteo_reflect(&w->core, &w->params, w->timer_state, right_state(g, measured_ns));
}

const GovernorOps governor_wteo = {
        .name = "wteo",
        .summary = "the wteo kernel governor's core on teo: per entry, the deepest state within the matrix's too-deep tolerance",
        .size = sizeof(Wteo),
        .init = wteo_gov_init,
        .select = wteo_gov_select,
        .reflect = wteo_gov_reflect,
};
