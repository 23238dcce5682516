/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "sim-run.h"
#include "sim-util.h"

#define SLEEP_FAR_NS NSEC_PER_SEC
#define SLEEP_MAX_NS (100 * NSEC_PER_SEC)
#define SPLITS_MAX 64
#define UTIL_HALF_LIFE_NS (32.0 * NSEC_PER_MSEC)   /* PELT's */

typedef struct SimCpu {
        Governor *gov;
        double util;
        uint64_t now_ns;             /* simulated time: ∑ busy + idle */
} SimCpu;

typedef struct SimRunner {
        const SimTable *table;
        const SimRunConfig *config;
        SimEnergyModel energy;
        SimMetrics metrics;
        SimCpu *cpus;
        size_t n_cpus;
} SimRunner;

void sim_run_config_init(SimRunConfig *c) {
        *c = (SimRunConfig) { .latency_limit_ns = SIM_NO_LIMIT };
        gov_params_init(&c->params);
}

uint64_t sim_interval_sleep_length(const SimInterval *iv) {
        uint64_t s = iv->sleep_length_ns;

        if (s == SIM_SLEEP_UNKNOWN)
                s = iv->timer_wake ? iv->duration_ns : SLEEP_FAR_NS;
        return min_u64(s, SLEEP_MAX_NS);
}

/* PELT-like utilisation: running pulls it towards 1, idling towards 0,
 * with a 32 ms half-life. */
static double util_after(double util, uint64_t ns, bool running) {
        double keep = exp2(-(double) ns / UTIL_HALF_LIFE_NS);

        return running ? 1.0 - (1.0 - util) * keep : util * keep;
}

static uint64_t poll_limit(const SimRunner *r, const Governor *g) {
        uint64_t limit = g->ops->poll_limit_ns ? g->ops->poll_limit_ns(g) : 0;

        return limit ? limit : sim_table_poll_limit_ns(r->table);
}

static unsigned select_state(const SimRunner *r, Governor *g, const GovInput *in) {
        unsigned s = g->ops->select(g, in);

        return s < r->table->n_states ? s : sim_table_first_enabled(r->table);
}

static void replay_one(SimRunner *r, SimCpu *c, const SimInterval *iv) {
        Governor *g = c->gov;
        uint64_t remaining = iv->duration_ns;
        GovInput in = {
                .sleep_length_ns = sim_interval_sleep_length(iv),
                .latency_limit_ns = r->config->latency_limit_ns,
                .iowait = iv->iowait,
        };

        c->util = util_after(c->util, iv->busy_ns, true);
        in.util = c->util;
        for (unsigned splits = 0;; splits++) {
                unsigned s;
                uint64_t limit;

                in.future_ns = remaining;
                s = select_state(r, g, &in);
                limit = r->table->states[s].polling ? poll_limit(r, g) : 0;
                if (limit > 0 && remaining > limit && splits < SPLITS_MAX) {
                        sim_metrics_add_entry(&r->metrics, r->table, &r->energy, s, limit);
                        g->ops->reflect(g, s, limit, true);
                        remaining -= limit;
                        in.sleep_length_ns -= min_u64(in.sleep_length_ns, limit);
                        continue;
                }
                sim_metrics_add_entry(&r->metrics, r->table, &r->energy, s, remaining);
                sim_metrics_add_wakeup(&r->metrics, r->table, s, iv->timer_wake);
                g->ops->reflect(g, s, remaining, false);
                break;
        }
        c->util = util_after(c->util, iv->duration_ns, false);
        c->now_ns += iv->busy_ns + iv->duration_ns;
        if (r->config->observe)
                r->config->observe(r->config->userdata, iv->cpu, g, c->now_ns);
}

static void runner_done(SimRunner *r) {
        for (size_t i = 0; i < r->n_cpus; i++)
                governor_free(r->cpus[i].gov);
        free(r->cpus);
}

static int runner_init(SimRunner *r, const GovernorOps *ops, const SimInterval *iv, size_t n) {
        uint32_t max_cpu = 0;
        int ret;

        for (size_t i = 0; i < n; i++)
                max_cpu = iv[i].cpu > max_cpu ? iv[i].cpu : max_cpu;
        if (max_cpu >= SIM_CPUS_MAX)
                return -EINVAL;
        r->cpus = calloc(max_cpu + 1, sizeof(SimCpu));
        if (!r->cpus)
                return -ENOMEM;
        r->n_cpus = max_cpu + 1;
        for (size_t i = 0; i < r->n_cpus; i++) {
                ret = governor_new(ops, r->table, &r->config->params, &r->cpus[i].gov);
                if (ret < 0)
                        return ret;
        }
        return 0;
}

int sim_run(const SimTable *t, const GovernorOps *ops, const SimRunConfig *c,
            const SimInterval *iv, size_t n, SimMetrics *ret) {
        _cleanup_(runner_done) SimRunner r = { .table = t, .config = c };
        int err;

        sim_energy_model_init(&r.energy, t);
        sim_metrics_init(&r.metrics, t);
        err = runner_init(&r, ops, iv, n);
        if (err < 0)
                return err;
        for (size_t i = 0; i < n; i++)
                replay_one(&r, &r.cpus[iv[i].cpu], &iv[i]);
        *ret = r.metrics;
        return 0;
}
