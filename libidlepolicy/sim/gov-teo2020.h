/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internal: teo as of 2020 (5.x), shared with the weighted-TEO RFC that was
 * written on top of it. */

#include "governor.h"

#define TEO2020_INTERVALS 8

typedef struct Teo2020State {
        uint32_t hits;        /* the sleep length matched the idle duration */
        uint32_t misses;      /* it matched the sleep length, not the duration */
        uint32_t early_hits;  /* the duration matched it; the sleep length a deeper one */
} Teo2020State;

typedef struct Teo2020 Teo2020;

/* Called when the metrics say "the CPU will wake early": returns the state
 * to use instead of the sleep-length state idx; early_idx is the state
 * with the most early hits below idx, or -1. */
typedef unsigned (*Teo2020Shallower)(Teo2020 *t, unsigned idx, int early_idx);

struct Teo2020 {
        Governor base;
        Teo2020State states[SIM_STATES_MAX];
        uint64_t sleep_length_ns;
        uint64_t intervals[TEO2020_INTERVALS];   /* UINT64_MAX: a timer wakeup */
        unsigned next_interval;
        Teo2020Shallower shallower;
};

/* Sets up the shared state; shallower decides where "go shallower" leads. */
void teo2020_setup(Teo2020 *t, Teo2020Shallower shallower);

/* Returns the bins the last wakeup fell into (the sleep-length one and the
 * duration one) after updating the metrics. */
void teo2020_update(Teo2020 *t, uint64_t measured_ns, bool poll_timeout, unsigned *ret_timer, unsigned *ret_hit);

unsigned teo2020_select(Governor *g, const GovInput *in);
