/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ladder: the step-wise governor for periodic-tick systems.  It climbs one
 * state deeper after the last idle period outlasted the current state's
 * promotion threshold (its exit latency) promotion_count (4) times in a
 * row, and steps one state shallower as soon as (demotion_count, 1) an idle
 * period ends below its demotion threshold (its exit latency as well).  A
 * polling state 0 is never used; a state that becomes disabled or too slow
 * for the latency limit is left at once. */
#include "governor.h"

typedef struct LadderStep {
        unsigned promotions;
        unsigned demotions;
} LadderStep;

typedef struct Ladder {
        Governor base;
        unsigned promotion_count, demotion_count;
        unsigned first, last;
        uint64_t last_residency_ns;
        LadderStep steps[SIM_STATES_MAX];
} Ladder;

static int ladder_init(Governor *g, const GovParams *p) {
        Ladder *l = (Ladder *) g;

        l->promotion_count = p->ladder_promotion_count;
        l->demotion_count = p->ladder_demotion_count;
        l->first = g->table->states[0].polling && g->table->n_states > 1 ? 1 : 0;
        l->last = l->first;
        return 0;
}

static unsigned ladder_move(Ladder *l, unsigned to) {
        l->steps[l->last] = (LadderStep) {};
        return to;
}

/* A state that may not be used any more: the deepest usable one below. */
static unsigned ladder_forced(const Ladder *l, uint64_t limit_ns) {
        const Governor *g = &l->base;
        unsigned i = l->last - 1;

        while (i > l->first && (!gov_enabled(g, i) || gov_cost(g, i)->exit_latency_ns > limit_ns))
                i--;
        return i;
}

static unsigned ladder_select(Governor *g, const GovInput *in) {
        Ladder *l = (Ladder *) g;
        LadderStep *step = &l->steps[l->last];
        uint64_t threshold = gov_cost(g, l->last)->exit_latency_ns;
        unsigned next = l->last + 1;

        if (next < g->table->n_states && gov_enabled(g, next) &&
            l->last_residency_ns > threshold && gov_cost(g, next)->exit_latency_ns <= in->latency_limit_ns) {
                step->promotions++;
                step->demotions = 0;
                if (step->promotions >= l->promotion_count)
                        return ladder_move(l, next);
        }
        if (l->last > l->first &&
            (!gov_enabled(g, l->last) || gov_cost(g, l->last)->exit_latency_ns > in->latency_limit_ns))
                return ladder_move(l, ladder_forced(l, in->latency_limit_ns));
        if (l->last > l->first && l->last_residency_ns < threshold) {
                step->demotions++;
                step->promotions = 0;
                if (step->demotions >= l->demotion_count)
                        return ladder_move(l, l->last - 1);
        }
        return l->last;
}

static void ladder_reflect(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout) {
        Ladder *l = (Ladder *) g;

        l->last = state;
        l->last_residency_ns = measured_ns;
}

const GovernorOps governor_ladder = {
        .name = "ladder",
        .summary = "ladder: promote after 4 idles above the exit latency, demote after 1 below",
        .size = sizeof(Ladder),
        .init = ladder_init,
        .select = ladder_select,
        .reflect = ladder_reflect,
};
