/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* menu, as described for today's kernels (Documentation/admin-guide/pm/
 * cpuidle.rst and the governor's own notes), without the removed
 * "performance multiplier":
 *
 *  - 12 buckets: 6 ranges of the time to the next timer (<10 µs, <100 µs,
 *    <1 ms, <10 ms, <100 ms, longer), doubled by "a task waits for I/O";
 *  - per bucket a correction factor, a decaying average (1/8) of
 *    measured/predicted, starting at 1; the timer-based prediction is the
 *    time to the next timer times that factor;
 *  - a "typical interval" from the last 8 idle durations: their mean if
 *    they are steady (standard deviation at most 20 µs, or the mean more
 *    than 6 standard deviations), else drop the largest and retry while at
 *    least 3/4 of them remain;
 *  - predicted = min(both); pick the deepest enabled state whose residency
 *    fits it and whose exit latency is within the limit, but do not poll
 *    when the next state's residency still fits before the next timer. */
#include "governor.h"
#include "sim-util.h"

#define MENU_RANGES 6
#define MENU_BUCKETS (2 * MENU_RANGES)
#define MENU_INTERVALS 8
#define MENU_RESOLUTION 1024u
#define MENU_DECAY 8u
#define MENU_UNITY (MENU_RESOLUTION * MENU_DECAY)
#define MENU_MAX_INTERESTING_NS (50 * NSEC_PER_MSEC)
#define MENU_INTERVAL_MAX_US UINT64_C(100000000)    /* keeps squares in range */
#define MENU_NO_TYPICAL UINT64_MAX

typedef struct Menu {
        Governor base;
        unsigned bucket;
        uint64_t next_timer_ns;
        uint32_t correction[MENU_BUCKETS];
        uint64_t intervals_us[MENU_INTERVALS];
        unsigned next_interval;
} Menu;

static int menu_init(Governor *g, const GovParams *p) {
        Menu *m = (Menu *) g;

        for (unsigned i = 0; i < MENU_BUCKETS; i++)
                m->correction[i] = MENU_UNITY;
        return 0;
}

static unsigned menu_bucket(uint64_t next_timer_ns, bool iowait) {
        uint64_t limit = 10 * NSEC_PER_USEC;
        unsigned b = 0;

        while (b < MENU_RANGES - 1 && next_timer_ns >= limit) {
                b++;
                limit *= 10;
        }
        return iowait ? b + MENU_RANGES : b;
}

/* One pass over the intervals not above threshold.  Returns how many there
 * were; *ret_avg, *ret_var and *ret_max describe them. */
static unsigned menu_stats(const Menu *m, uint64_t threshold, uint64_t *ret_avg, uint64_t *ret_var, uint64_t *ret_max) {
        uint64_t sum = 0, max = 0, var = 0;
        unsigned n = 0;

        for (unsigned i = 0; i < MENU_INTERVALS; i++)
                if (m->intervals_us[i] <= threshold) {
                        sum += m->intervals_us[i];
                        max = max_u64(max, m->intervals_us[i]);
                        n++;
                }
        if (n == 0)
                return 0;
        for (unsigned i = 0; i < MENU_INTERVALS; i++)
                if (m->intervals_us[i] <= threshold) {
                        int64_t d = (int64_t) m->intervals_us[i] - (int64_t) (sum / n);
                        var += (uint64_t) (d * d);
                }
        *ret_avg = sum / n;
        *ret_var = var / n;
        *ret_max = max;
        return n;
}

/* Returns the typical interval in ns, or MENU_NO_TYPICAL. */
static uint64_t menu_typical_ns(const Menu *m) {
        uint64_t threshold = UINT64_MAX;

        for (;;) {
                uint64_t avg = 0, var = 0, max = 0;
                unsigned n = menu_stats(m, threshold, &avg, &var, &max);

                if (n == 0)
                        return MENU_NO_TYPICAL;
                if (var <= 400 || (avg * avg > 36 * var && 4 * n >= 3 * MENU_INTERVALS))
                        return avg * NSEC_PER_USEC;
                if (4 * n <= 3 * MENU_INTERVALS || max == 0)
                        return MENU_NO_TYPICAL;
                threshold = max - 1;
        }
}

/* Walks the enabled states shallowest first and keeps the deepest that
 * fits predicted_ns and the latency limit. */
static unsigned menu_pick(const Menu *m, uint64_t predicted_ns, uint64_t limit_ns) {
        const Governor *g = &m->base;
        int idx = -1;

        for (unsigned i = 0; i < g->table->n_states; i++) {
                const SimCost *c = gov_cost(g, i);

                if (!gov_enabled(g, i))
                        continue;
                if (idx < 0) {
                        idx = (int) i;
                        continue;
                }
                if (c->target_residency_ns > predicted_ns) {
                        /* Rather a real idle state than polling, if the
                         * timer leaves time for it. */
                        if (g->table->states[idx].polling && c->exit_latency_ns <= limit_ns &&
                            c->target_residency_ns <= m->next_timer_ns)
                                idx = (int) i;
                        break;
                }
                if (c->exit_latency_ns > limit_ns)
                        break;
                idx = (int) i;
        }
        return idx < 0 ? 0 : (unsigned) idx;
}

static unsigned menu_select(Governor *g, const GovInput *in) {
        Menu *m = (Menu *) g;
        uint64_t predicted, typical;
        int second;

        m->next_timer_ns = in->sleep_length_ns;
        m->bucket = menu_bucket(in->sleep_length_ns, in->iowait);
        second = sim_table_enabled_from(g->table, (int) sim_table_first_enabled(g->table) + 1, +1);
        if (second < 0 || in->latency_limit_ns == 0 ||
            in->sleep_length_ns < gov_cost(g, (unsigned) second)->target_residency_ns)
                return sim_table_first_enabled(g->table);

        predicted = (in->sleep_length_ns * m->correction[m->bucket] + MENU_UNITY / 2) / MENU_UNITY;
        typical = menu_typical_ns(m);
        return menu_pick(m, min_u64(predicted, typical), in->latency_limit_ns);
}

static void menu_reflect(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout) {
        Menu *m = (Menu *) g;
        uint64_t factor = m->correction[m->bucket];

        /* A poll that ran out says nothing about the length: count it as
         * long, as the kernel does. */
        if (poll_timeout)
                measured_ns = 9 * MENU_MAX_INTERESTING_NS / 10;
        measured_ns = min_u64(measured_ns, m->next_timer_ns);

        factor -= factor / MENU_DECAY;
        if (m->next_timer_ns > 0 && measured_ns < MENU_MAX_INTERESTING_NS)
                factor += MENU_RESOLUTION * measured_ns / m->next_timer_ns;
        else
                factor += MENU_RESOLUTION;
        m->correction[m->bucket] = (uint32_t) max_u64(factor, 1);

        m->intervals_us[m->next_interval] = min_u64(measured_ns / NSEC_PER_USEC, MENU_INTERVAL_MAX_US);
        m->next_interval = (m->next_interval + 1) % MENU_INTERVALS;
}

const GovernorOps governor_menu = {
        .name = "menu",
        .summary = "today's menu: 12 buckets, correction factors, 8-interval typical interval",
        .size = sizeof(Menu),
        .init = menu_init,
        .select = menu_select,
        .reflect = menu_reflect,
};
