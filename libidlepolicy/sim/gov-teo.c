/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* teo, as its own documentation describes today's version:
 *
 *  - one bin per state, from its target residency up to the next state's;
 *    per bin "hits" (the CPU woke in the bin the time to the next timer
 *    pointed at) and "intercepts" (it woke in a shallower bin: an earlier,
 *    non-timer wakeup), both decayed by 1/8 (x -= x >> 3) at every wakeup
 *    before the new event adds 1024;
 *  - selection: the candidate is the deepest enabled state whose target
 *    residency fits the time to the next timer (and whose exit latency fits
 *    the limit); if the intercepts in the bins below it outnumber the hits
 *    and intercepts of its bin and the deeper ones, walk shallower to the
 *    deepest state below which at most half of those intercepts lie.
 *  The tick-stopping side of teo is not modelled.  (Kernels from 6.12 take
 *  the deepest enabled state as the first candidate and apply the sleep
 *  length afterwards; this follows the earlier, documented order.) */
#include "gov-teo.h"
#include "sim-util.h"

#define TEO_PULSE 1024u
#define TEO_DECAY_SHIFT 3

/* Walks shallower from idx while the intercepts say the CPU will wake
 * early.  Returns the new candidate. */
static unsigned teo_walk_intercepts(const Teo *t, unsigned idx) {
        const Governor *g = &t->base;
        uint64_t intercepts_below = 0, hits_below = 0, sum = 0;
        unsigned suitable = idx;

        for (unsigned i = 0; i < idx; i++) {
                intercepts_below += t->bins[i].intercepts;
                hits_below += t->bins[i].hits;
        }
        if (2 * intercepts_below <= t->total - hits_below)
                return idx;

        for (int i = (int) idx - 1; i >= 0; i--) {
                sum += t->bins[i].intercepts;
                if (2 * sum > intercepts_below)
                        return gov_enabled(g, (unsigned) i) ? (unsigned) i : suitable;
                if (gov_enabled(g, (unsigned) i))
                        suitable = (unsigned) i;
        }
        return suitable;
}

/* Returns the next enabled non-polling state shallower than idx, or idx. */
static unsigned teo_shallower_no_poll(const Teo *t, unsigned idx) {
        const SimTable *tab = t->base.table;

        for (int i = (int) idx - 1; i >= 0; i--)
                if (!tab->states[i].disabled && !tab->states[i].polling)
                        return (unsigned) i;
        return idx;
}

unsigned teo_select_state(Teo *t, const GovInput *in, bool utilized) {
        unsigned idx;

        t->sleep_length_ns = in->sleep_length_ns;
        idx = gov_deepest_fitting(&t->base, in->sleep_length_ns, in->latency_limit_ns);
        idx = teo_walk_intercepts(t, idx);
        if (utilized)
                idx = teo_shallower_no_poll(t, idx);
        return idx;
}

static unsigned teo_select(Governor *g, const GovInput *in) {
        return teo_select_state((Teo *) g, in, false);
}

void teo_reflect(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout) {
        Teo *t = (Teo *) g;
        unsigned idx_timer, idx_duration;

        /* A poll that ran out, or a wakeup at (or after) the timer: a hit. */
        if (poll_timeout || measured_ns >= t->sleep_length_ns)
                measured_ns = t->sleep_length_ns;
        idx_timer = gov_bin_of(g, t->sleep_length_ns);
        idx_duration = gov_bin_of(g, measured_ns);

        t->total = 0;
        for (unsigned i = 0; i < g->table->n_states; i++) {
                t->bins[i].hits -= t->bins[i].hits >> TEO_DECAY_SHIFT;
                t->bins[i].intercepts -= t->bins[i].intercepts >> TEO_DECAY_SHIFT;
                t->total += t->bins[i].hits + t->bins[i].intercepts;
        }
        if (idx_duration == idx_timer)
                t->bins[idx_timer].hits += TEO_PULSE;
        else
                t->bins[idx_duration].intercepts += TEO_PULSE;
        t->total += TEO_PULSE;
}

const GovernorOps governor_teo = {
        .name = "teo",
        .summary = "today's teo: per-state hits/intercepts decayed by 1/8, walk shallower while intercepts dominate",
        .size = sizeof(Teo),
        .select = teo_select,
        .reflect = teo_reflect,
};
