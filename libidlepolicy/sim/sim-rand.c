/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>

#include "sim-rand.h"

static uint64_t splitmix64(uint64_t *x) {
        uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) {
        return (x << k) | (x >> (64 - k));
}

void sim_rand_seed(SimRand *r, uint64_t seed) {
        for (unsigned i = 0; i < 4; i++)
                r->s[i] = splitmix64(&seed);
}

uint64_t sim_rand_u64(SimRand *r) {
        uint64_t *s = r->s;
        uint64_t result = rotl(s[1] * 5, 7) * 9;
        uint64_t t = s[1] << 17;

        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return result;
}

uint64_t sim_rand_below(SimRand *r, uint64_t n) {
        /* The modulo bias is below 2^-40 for every n used here. */
        return n ? sim_rand_u64(r) % n : 0;
}

double sim_rand_unit(SimRand *r) {
        return (double) (sim_rand_u64(r) >> 11) * 0x1.0p-53;
}

double sim_rand_range(SimRand *r, double lo, double hi) {
        return lo + (hi - lo) * sim_rand_unit(r);
}

double sim_rand_exp(SimRand *r, double mean) {
        return -mean * log1p(-sim_rand_unit(r));
}

double sim_rand_lognormal(SimRand *r, double median, double sigma) {
        /* Box-Muller; 1 - unit() is in (0, 1], so log() is finite. */
        double u1 = 1.0 - sim_rand_unit(r), u2 = sim_rand_unit(r);
        double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);

        return median * exp(sigma * z);
}
