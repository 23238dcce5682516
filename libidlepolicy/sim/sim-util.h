/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Small helpers shared by the simulator's files. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"

#define NSEC_PER_USEC UINT64_C(1000)
#define NSEC_PER_MSEC UINT64_C(1000000)
#define NSEC_PER_SEC UINT64_C(1000000000)


static inline bool streq(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}

static inline uint64_t min_u64(uint64_t a, uint64_t b) {
        return a < b ? a : b;
}

static inline uint64_t max_u64(uint64_t a, uint64_t b) {
        return a > b ? a : b;
}

/* Percentage of part in whole; 0 when whole is 0. */
static inline double pct(uint64_t part, uint64_t whole) {
        return whole ? 100.0 * (double) part / (double) whole : 0.0;
}

