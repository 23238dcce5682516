/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the C benchmarks share: the clock (a benchmark may read it; the
 * library never does) and the order of doubles for a median. */

#include <stdint.h>
#include <time.h>

/* Returns CLOCK_MONOTONIC in ns. */
static inline uint64_t bench_now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* qsort() comparison of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;

        return x < y ? -1 : x > y;
}
