/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Ground truth per idle entry, with the kernel's own definitions of the
 * per-state "above" and "below" counters (cpuidle_enter_state()):
 *
 *   too deep    (above): the entered state's target residency is longer than
 *                        the idle duration while a shallower enabled state
 *                        existed;
 *   too shallow (below): the idle duration less the entered state's exit
 *                        latency reached the target residency of the next
 *                        deeper enabled state;
 *   correct:             neither.
 *
 * "Duration" is the idle period as the kernel measures it, from entry to
 * the end of the exit, as a recorded trace gives it.  Like the kernel (6.12
 * cpuidle_enter_state()), "below" subtracts the exit latency, "above" does
 * not: a 21 us entry into a state that takes 2 us to leave, before a state
 * of 20 us target residency, is right, not too shallow.  Each view uses its
 * own exit latency (the kernel its advertised one). */

#include <stdint.h>

#include "sim-table.h"

typedef enum SimVerdict {
        SIM_VERDICT_CORRECT,
        SIM_VERDICT_TOO_DEEP,
        SIM_VERDICT_TOO_SHALLOW,
} SimVerdict;

/* Classifies entering state for duration_ns, with the real costs (the
 * simulator's truth) or the advertised ones (what the kernel would count). */
SimVerdict sim_truth_classify(const SimTable *t, unsigned state, uint64_t duration_ns, SimView v);

/* The right state for an idle period of duration_ns: the deepest enabled
 * state whose target residency does not exceed it and whose exit latency is
 * within latency_limit_ns (SIM_NO_LIMIT for none); the first enabled state
 * if none fits.  This is the oracle's choice. */
unsigned sim_truth_ideal_state(const SimTable *t, uint64_t duration_ns, uint64_t latency_limit_ns, SimView v);
