/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a replay measured, and the figures derived from it against the
 * oracle's replay of the same intervals. */

#include <stdbool.h>
#include <stdint.h>

#include "sim-energy.h"
#include "sim-table.h"

typedef struct SimStateStats {
        uint64_t entries;
        uint64_t correct, too_deep, too_shallow;      /* ground truth (real costs) */
        uint64_t kernel_above, kernel_below;          /* what the kernel would count (advertised) */
        uint64_t time_ns;
} SimStateStats;

typedef struct SimMetrics {
        unsigned n_states;
        uint64_t intervals;           /* idle periods (= wakeups) replayed */
        uint64_t entries;             /* idle entries: a poll that ran out adds one */
        uint64_t correct, too_deep, too_shallow;
        uint64_t kernel_above, kernel_below;
        uint64_t timer_wakeups, other_wakeups;
        double latency_timer_us;      /* sums over wakeups */
        double latency_other_us;
        double energy;                /* sum, shallowest-state power × µs */
        uint64_t idle_ns;
        SimStateStats states[SIM_STATES_MAX];
} SimMetrics;

typedef struct SimSummary {
        double correct_pct, too_deep_pct, too_shallow_pct;   /* of entries */
        double kernel_above_pct, kernel_below_pct;
        double energy;                /* relative to the oracle's (1.0 for it) */
        double latency_us;            /* mean per wakeup */
        double latency_timer_us;      /* mean per timer wakeup */
        double latency_other_us;      /* mean per non-timer wakeup */
        double regret_pct;
} SimSummary;

void sim_metrics_init(SimMetrics *m, const SimTable *t);

/* Accounts one idle entry into state lasting duration_ns. */
void sim_metrics_add_entry(SimMetrics *m, const SimTable *t, const SimEnergyModel *em,
                           unsigned state, uint64_t duration_ns);

/* Accounts the wakeup that ended an idle period in state. */
void sim_metrics_add_wakeup(SimMetrics *m, const SimTable *t, unsigned state, bool timer);

/* The cost regret is measured in: modeled energy plus the non-timer wakeup
 * latency, priced at the shallowest state's power (a waker spinning for a
 * µs burns about one µs of polling power).  Timer wakeups are left out:
 * the kernel can anticipate those. */
double sim_metrics_cost(const SimMetrics *m);

/* Fills *ret from m and the oracle's metrics for the same intervals:
 * energy = m's / oracle's; regret_pct = 100 * (cost - oracle cost) / oracle
 * cost (negative when a governor buys back more latency than the energy it
 * spends: the oracle minimises energy only). */
void sim_metrics_summarize(const SimMetrics *m, const SimMetrics *oracle, SimSummary *ret);
