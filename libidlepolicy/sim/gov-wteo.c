/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* wteo: the per-entry choice of the wteo kernel governor on today's teo,
 * with the kernel's arithmetic (libidlepolicy/wteo/wteo-core.h, the same
 * header the kernel patch in kernel/ carries):
 *
 *  - teo (gov-teo.c) keeps its bins, hits and intercepts and makes its
 *    choice, the deepest state its metrics allow;
 *  - the row is the pair (time to the next timer in half octaves, right
 *    state of the last idle period); its mean idle time prices every
 *    state; the governor enters the cheapest enabled state the latency
 *    limit allows if it is cheaper than teo's choice there (and, at the
 *    default tolerance, draws no more than teo's unless the CPU saved
 *    that energy before), teo's choice otherwise;
 *  - after the wakeup the row learns the measured idle time (past the
 *    timer when the timer fired late) and whether the timer ended it.  A
 *    poll that ran out counts as lasting until the timer and as the
 *    timer's wakeup, as teo counts it a hit (the kernel's poll_time_limit
 *    case), and the idle period goes on (WTEO_NONE).
 *
 * Parameters (-P): wteo_learn_shift, wteo_age_shift, wteo_explore_shift,
 * wteo_tolerance (the price of exit latency, see wteo-core.h). */
#include <errno.h>

#include "gov-teo.h"
#include "wteo-core.h"

typedef struct Wteo {
        Teo teo;                        /* first: teo_reflect() takes the Governor */
        struct wteo_cpu core;
        struct wteo_params params;
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
        for (unsigned i = 0; i < g->table->n_states && i < WTEO_STATES_MAX; i++)
                wteo_set_state(&w->core, i, gov_cost(g, i)->target_residency_ns, gov_cost(g, i)->exit_latency_ns);
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
        /* The deepest state the latency limit allows, whatever the timer. */
        unsigned limit = gov_deepest_fitting(g, UINT64_MAX, in->latency_limit_ns);
        unsigned teo = teo_select_state(&w->teo, in, false);

        return wteo_select(&w->core, &w->params, gov_bin_of(g, in->sleep_length_ns), in->sleep_length_ns, teo,
                           limit, enabled_mask(g));
}

static void wteo_gov_reflect(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout) {
        Wteo *w = (Wteo *) g;
        bool non_timer = !poll_timeout && measured_ns < w->teo.sleep_length_ns;

        teo_reflect(g, state, measured_ns, poll_timeout);
        if (poll_timeout)
                measured_ns = w->teo.sleep_length_ns;
        /* The right state: the deepest enabled one whose advertised
         * target residency the idle time reached. */
        wteo_reflect(&w->core, &w->params, gov_deepest_fitting(g, measured_ns, SIM_NO_LIMIT),
                     poll_timeout ? WTEO_NONE : state, measured_ns, non_timer);
}

const GovernorOps governor_wteo = {
        .name = "wteo",
        .summary = "the wteo kernel governor's core on teo: per entry, the state with the least mean cost in its row (time to the timer, last idle period), if less than teo's choice, idle power first",
        .size = sizeof(Wteo),
        .init = wteo_gov_init,
        .select = wteo_gov_select,
        .reflect = wteo_gov_reflect,
};
