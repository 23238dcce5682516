/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Energy and latency models, derived from a state table alone (real costs).
 *
 * Energy of one idle entry of duration t in state i: E_i + P_i * t, in units
 * of "shallowest-state power × µs".
 *   - P_0 = 1 for the shallowest state, and each deeper state draws half the
 *     power of the one before it: P_i = 2^-i (an assumption: tables carry no
 *     power figures, and the kernel's "power" file is almost always unset).
 *   - The target residency R_i is the break-even time against the next
 *     shallower state: E_i + P_i R_i = E_{i-1} + P_{i-1} R_i, with E_0 = 0,
 *     hence E_i = E_{i-1} + (P_{i-1} - P_i) R_i.
 * With non-decreasing residencies this makes "the deepest state whose target
 * residency fits the duration" the cheapest choice for every duration, so
 * the oracle is also the energy optimum.
 *
 * Latency of one wakeup from state i: its real exit latency, plus the
 * table's ipi-us for a non-timer wakeup of a non-polling state (the waker
 * has to send an interrupt; a polling state only needs a flag write). */

#include <stdbool.h>
#include <stdint.h>

#include "sim-table.h"

typedef struct SimEnergyModel {
        unsigned n_states;
        double power[SIM_STATES_MAX];        /* relative to the shallowest state */
        double transition[SIM_STATES_MAX];   /* entry + exit energy, power × µs */
} SimEnergyModel;

void sim_energy_model_init(SimEnergyModel *m, const SimTable *t);

/* Returns the modeled energy of an idle entry into state for duration_ns. */
double sim_energy_idle(const SimEnergyModel *m, unsigned state, uint64_t duration_ns);

/* Returns the wakeup latency in µs of leaving state; timer tells whether a
 * timer (true) or another event (an IPI, a device) woke the CPU. */
double sim_latency_wakeup_us(const SimTable *t, unsigned state, bool timer);
