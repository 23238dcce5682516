/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the C benchmarks share: the clock (a benchmark may read it; the
 * library never does), the order of doubles for a median and the way out
 * of their JSON. */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
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

/* Prints json on stdout and, if out is not NULL, writes it to the file
 * out.  Returns 0 or a negative errno (the file's). */
static inline int bench_json_out(const char *json, const char *out) {
        FILE *f;

        fputs(json, stdout);
        if (!out)
                return 0;
        f = fopen(out, "w");
        if (!f)
                return -errno;
        if (fputs(json, f) < 0) {
                int r = -errno;

                fclose(f);
                return r;
        }
        return fclose(f) != 0 ? -errno : 0;
}
