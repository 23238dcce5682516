/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cleanup.h"
#include "policy-step.h"
#include "sim-calibrate.h"
#include "sim-util.h"

static int cmp_u32(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

        return x < y ? -1 : x > y;
}

/* The median of v[0..n-1] (n > 0), sorting v. */
static uint32_t median(uint32_t *v, unsigned n) {
        qsort(v, n, sizeof(uint32_t), cmp_u32);
        return n % 2 ? v[n / 2] : (uint32_t) (((uint64_t) v[n / 2 - 1] + v[n / 2]) / 2);
}

/* State k's costs as the policy takes them on each CPU that measured it,
 * into latency[] and residency[].  Returns how many CPUs. */
static unsigned state_costs(const SimState *s, unsigned k, const Calibration *c, uint32_t *latency,
                            uint32_t *residency) {
        unsigned n = 0;

        for (unsigned cpu = 0; cpu < c->n_cpus; cpu++) {
                PolicyState st = { .latency_us = (uint32_t) (s->advertised.exit_latency_ns / NSEC_PER_USEC),
                                   .residency_us = (uint32_t) (s->advertised.target_residency_ns / NSEC_PER_USEC),
                                   .polling = s->polling };

                if (!policy_calibrated_state(c, cpu, k, s->name))
                        continue;
                policy_state_calibrate(&st, c, cpu, k, s->name);
                latency[n] = policy_latency_us(&st);
                residency[n++] = policy_residency_us(&st);
        }
        return n;
}

int sim_table_calibrate(SimTable *t, const Calibration *c, const char *source) {
        _cleanup_free_ uint32_t *latency = calloc(c->n_cpus + 1, sizeof(uint32_t));
        _cleanup_free_ uint32_t *residency = calloc(c->n_cpus + 1, sizeof(uint32_t));
        unsigned done = 0;

        if (!latency || !residency)
                return -ENOMEM;
        for (unsigned k = 0; k < t->n_states; k++) {
                SimState *s = &t->states[k];
                unsigned n = state_costs(s, k, c, latency, residency);

                if (n == 0)
                        continue;
                s->real.exit_latency_ns = (uint64_t) median(latency, n) * NSEC_PER_USEC;
                s->real.target_residency_ns = (uint64_t) median(residency, n) * NSEC_PER_USEC;
                done++;
        }
        if (done > 0)
                snprintf(t->costs, sizeof(t->costs), "calibrated: %u of %u states measured (%s)", done, t->n_states,
                         source);
        return (int) done;
}
