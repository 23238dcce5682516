/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internal: today's teo, shared with teo-util (the util-aware variant that
 * was part of teo from 6.3 to 6.11). */

#include "governor.h"

typedef struct TeoBin {
        uint32_t hits;
        uint32_t intercepts;
} TeoBin;

typedef struct Teo {
        Governor base;
        TeoBin bins[SIM_STATES_MAX];
        uint64_t total;
        uint64_t sleep_length_ns;
        double util_threshold;
} Teo;

/* Selects a state; with utilized set, one enabled non-polling state
 * shallower than the metrics' choice (if there is one). */
unsigned teo_select_state(Teo *t, const GovInput *in, bool utilized);

void teo_reflect(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout);
