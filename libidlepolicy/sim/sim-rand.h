/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A small deterministic PRNG (xoshiro256**, seeded through splitmix64) and
 * the distributions the workloads and the weighted governor draw from.  The
 * same seed gives the same sequence on every machine. */

#include <stdint.h>

typedef struct SimRand {
        uint64_t s[4];
} SimRand;

void sim_rand_seed(SimRand *r, uint64_t seed);

/* Returns 64 random bits. */
uint64_t sim_rand_u64(SimRand *r);

/* Returns a value uniform in [0, n); 0 when n is 0. */
uint64_t sim_rand_below(SimRand *r, uint64_t n);

/* Returns a double uniform in [0, 1). */
double sim_rand_unit(SimRand *r);

/* Returns a double uniform in [lo, hi). */
double sim_rand_range(SimRand *r, double lo, double hi);

/* Returns an exponentially distributed value with the given mean. */
double sim_rand_exp(SimRand *r, double mean);

/* Returns a log-normally distributed value with the given median and
 * sigma (the standard deviation of its logarithm). */
double sim_rand_lognormal(SimRand *r, double median, double sigma);
