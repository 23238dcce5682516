/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* teo-2020: the timer events oriented governor as its 2020 documentation
 * (kernels 5.4 .. 5.10) describes it:
 *
 *  - per state "hits" and "misses" of the state matching the sleep length
 *    (the idle duration matched it too, or fell into a shallower state) and
 *    "early hits" of the state the duration matched on a miss; all decayed
 *    by 1/8, pulse 1024;
 *  - take the deepest enabled state whose residency fits the sleep length;
 *    if it missed at least as often as it hit, use the shallower state with
 *    the most early hits instead;
 *  - if more than half of the last 8 non-timer idle durations are shorter
 *    than what was chosen so far, and their mean is below its residency,
 *    go to the deepest state fitting that mean. */
#include "gov-teo2020.h"
#include "sim-util.h"

#define TEO2020_PULSE 1024u
#define TEO2020_DECAY_SHIFT 3

static unsigned teo2020_early(Teo2020 *t, unsigned idx, int early_idx) {
        return early_idx >= 0 ? (unsigned) early_idx : idx;
}

void teo2020_setup(Teo2020 *t, Teo2020Shallower shallower) {
        for (unsigned i = 0; i < TEO2020_INTERVALS; i++)
                t->intervals[i] = UINT64_MAX;
        t->shallower = shallower;
}

static int teo2020_init(Governor *g, const GovParams *p) {
        teo2020_setup((Teo2020 *) g, teo2020_early);
        return 0;
}

/* The deepest enabled state fitting the sleep length (and the limit), and
 * the state below it with the most early hits.  Returns the former. */
static unsigned teo2020_candidate(const Teo2020 *t, const GovInput *in, int *ret_early) {
        const Governor *g = &t->base;
        unsigned idx = gov_deepest_fitting(g, in->sleep_length_ns, in->latency_limit_ns);
        uint32_t best = 0;
        int early = -1;

        for (unsigned i = 0; i < idx; i++)
                if (gov_enabled(g, i) && t->states[i].early_hits > best) {
                        best = t->states[i].early_hits;
                        early = (int) i;
                }
        *ret_early = early;
        return idx;
}

/* Returns a shallower state if most recent non-timer durations say so. */
static unsigned teo2020_pattern(const Teo2020 *t, unsigned idx, uint64_t duration_ns, uint64_t limit_ns) {
        const Governor *g = &t->base;
        uint64_t sum = 0, avg;
        unsigned count = 0;

        for (unsigned i = 0; i < TEO2020_INTERVALS; i++)
                if (t->intervals[i] < duration_ns) {
                        sum += t->intervals[i];
                        count++;
                }
        if (count <= TEO2020_INTERVALS / 2)
                return idx;
        avg = sum / count;
        if (gov_cost(g, idx)->target_residency_ns <= avg)
                return idx;
        return min_u64(idx, gov_deepest_fitting(g, avg, limit_ns));
}

unsigned teo2020_select(Governor *g, const GovInput *in) {
        Teo2020 *t = (Teo2020 *) g;
        uint64_t duration = in->sleep_length_ns;
        unsigned idx;
        int early;

        t->sleep_length_ns = in->sleep_length_ns;
        idx = teo2020_candidate(t, in, &early);
        if (t->states[idx].hits <= t->states[idx].misses) {
                unsigned alt = t->shallower(t, idx, early);
                if (alt != idx) {
                        idx = alt;
                        duration = gov_cost(g, idx)->target_residency_ns;
                }
        }
        if (idx > 0)
                idx = teo2020_pattern(t, idx, duration, in->latency_limit_ns);
        return idx;
}

void teo2020_update(Teo2020 *t, uint64_t measured_ns, bool poll_timeout, unsigned *ret_timer, unsigned *ret_hit) {
        Governor *g = &t->base;
        Teo2020State *timer;
        unsigned idx_timer, idx_hit;

        /* A wakeup at the timer (or a poll that ran out) is a hit for the
         * sleep-length state and not a pattern sample. */
        if (poll_timeout || measured_ns >= t->sleep_length_ns)
                measured_ns = UINT64_MAX;
        idx_timer = gov_bin_of(g, t->sleep_length_ns);
        idx_hit = gov_bin_of(g, min_u64(measured_ns, t->sleep_length_ns));

        for (unsigned i = 0; i < g->table->n_states; i++)
                t->states[i].early_hits -= t->states[i].early_hits >> TEO2020_DECAY_SHIFT;
        timer = &t->states[idx_timer];
        timer->hits -= timer->hits >> TEO2020_DECAY_SHIFT;
        timer->misses -= timer->misses >> TEO2020_DECAY_SHIFT;
        if (idx_hit == idx_timer)
                timer->hits += TEO2020_PULSE;
        else {
                timer->misses += TEO2020_PULSE;
                t->states[idx_hit].early_hits += TEO2020_PULSE;
        }

        t->intervals[t->next_interval] = measured_ns;
        t->next_interval = (t->next_interval + 1) % TEO2020_INTERVALS;
        *ret_timer = idx_timer;
        *ret_hit = idx_hit;
}

static void teo2020_reflect(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout) {
        unsigned timer, hit;

        teo2020_update((Teo2020 *) g, measured_ns, poll_timeout, &timer, &hit);
}

const GovernorOps governor_teo_2020 = {
        .name = "teo-2020",
        .summary = "teo of 2020 (5.x): hits, misses, early hits, last 8 intervals",
        .size = sizeof(Teo2020),
        .init = teo2020_init,
        .select = teo2020_select,
        .reflect = teo2020_reflect,
};
