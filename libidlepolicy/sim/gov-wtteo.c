/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* wtteo-rfc: "Weighted approach to gather and use history in TEO governor"
 * (LKML RFC, 2020), on top of teo-2020:
 *
 *  - per CPU an n×n matrix W[s][j], weights 0..10000 per row summing to
 *    10000: when the time to the next timer pointed at state s, how often
 *    state j was the right one;
 *  - prior: 60% on the diagonal, 40% spread evenly over the other states;
 *  - learning: after each wakeup, the row of the sleep-length state moves
 *    LR (10%) of weight to the state the idle duration matched, taken
 *    evenly from the others, every weight clamped to [LR, 100 - LR]%;
 *  - selection: where teo-2020's metrics say "go shallower", pick among the
 *    enabled states at or below s at random, weighted by W[s][·]
 *    (a deterministic PRNG seeded from the parameters). */
#include "gov-teo2020.h"
#include "sim-rand.h"

#define WT_SCALE 10000u

typedef struct WtTeo {
        Teo2020 teo;
        uint32_t w[SIM_STATES_MAX][SIM_STATES_MAX];
        uint32_t lr, lo, hi;
        SimRand rng;
} WtTeo;

static void wtteo_prior(WtTeo *wt, unsigned n) {
        for (unsigned s = 0; s < n; s++) {
                uint32_t spread = n > 1 ? (WT_SCALE * 4 / 10) / (n - 1) : 0;

                for (unsigned j = 0; j < n; j++)
                        wt->w[s][j] = j == s ? 0 : spread;
                wt->w[s][s] = WT_SCALE - spread * (n - 1);
        }
}

/* Moves up to lr of weight to column right, evenly from the other columns,
 * keeping every weight within [lo, hi] and the row sum unchanged. */
static void wtteo_learn(WtTeo *wt, uint32_t *row, unsigned n, unsigned right) {
        uint32_t want, share, taken = 0;

        if (n < 2 || row[right] >= wt->hi)
                return;
        want = wt->lr < wt->hi - row[right] ? wt->lr : wt->hi - row[right];
        share = want / (n - 1);
        for (unsigned k = 0; k < n; k++) {
                uint32_t t;

                if (k == right || row[k] <= wt->lo)
                        continue;
                t = row[k] - wt->lo < share ? row[k] - wt->lo : share;
                row[k] -= t;
                taken += t;
        }
        row[right] += taken;
}

static unsigned wtteo_pick(Teo2020 *t, unsigned idx, int early_idx) {
        WtTeo *wt = (WtTeo *) t;
        const uint32_t *row = wt->w[idx];
        uint64_t sum = 0, r;

        for (unsigned j = 0; j <= idx; j++)
                if (gov_enabled(&t->base, j))
                        sum += row[j];
        if (sum == 0)
                return idx;
        r = sim_rand_below(&wt->rng, sum);
        for (unsigned j = 0; j <= idx; j++) {
                if (!gov_enabled(&t->base, j))
                        continue;
                if (r < row[j])
                        return j;
                r -= row[j];
        }
        return idx;
}

static int wtteo_init(Governor *g, const GovParams *p) {
        WtTeo *wt = (WtTeo *) g;

        teo2020_setup(&wt->teo, wtteo_pick);
        wt->lr = WT_SCALE * p->wtteo_learning_pct / 100;
        wt->lo = wt->lr;
        wt->hi = WT_SCALE - wt->lr;
        sim_rand_seed(&wt->rng, p->seed);
        wtteo_prior(wt, g->table->n_states);
        return 0;
}

static void wtteo_reflect(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout) {
        WtTeo *wt = (WtTeo *) g;
        unsigned timer, hit;

        teo2020_update(&wt->teo, measured_ns, poll_timeout, &timer, &hit);
        wtteo_learn(wt, wt->w[timer], g->table->n_states, hit);
}

const GovernorOps governor_wtteo_rfc = {
        .name = "wtteo-rfc",
        .summary = "weighted TEO RFC (2020): n×n weights, 60/40 prior, 10% learning, weighted random pick",
        .size = sizeof(WtTeo),
        .init = wtteo_init,
        .select = teo2020_select,
        .reflect = wtteo_reflect,
};
