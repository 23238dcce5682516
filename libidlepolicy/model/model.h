/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The weighted-history model (DESIGN.md §4), shared by the daemon, the
 * simulator's "idlepolicy" governor and (later) the kernel companion
 * governor: per CPU an n×n matrix W[s][j] in 1/1024 parts — "when state s
 * was entered, how often j was the right state".  Integer arithmetic only:
 * shifts, no division by 100, no floating point, no clock, no allocation. */

#include <stdbool.h>
#include <stdint.h>

#define MODEL_ONE 1024u               /* a row sums to exactly MODEL_ONE */
#define MODEL_STATES_MAX 10u          /* CPUIDLE_STATES_MAX */
#define MODEL_PRIOR_SELF 614u         /* 60% of 1024 on the diagonal (the RFC's prior) */
#define MODEL_CLAMP_DEFAULT 4u        /* ~0.4%: no weight ever reaches 0, so exploration never stops */
#define MODEL_CLAMP_MAX (MODEL_ONE / MODEL_STATES_MAX)
#define MODEL_FINE_SHIFT 14u          /* the learning state keeps 14 more bits than w */
#define MODEL_FINE_ONE (MODEL_ONE << MODEL_FINE_SHIFT)   /* 2^24 */

typedef struct ModelParams {
        unsigned learn_shift;         /* k: per-wakeup learning rate 2^-k (1..15) */
        unsigned age_shift;           /* g: per-tick aging toward the prior 2^-g (1..15) */
        unsigned clamp;               /* every weight stays within [clamp, 1024 - clamp*(n-1)] (the RFC's LR);
                                       * 0..MODEL_CLAMP_MAX */
} ModelParams;

/* One tick's evidence for one entered state s: of `usage` entries,
 * `too_deep` should have been the next enabled shallower state, `too_shallow`
 * the next enabled deeper one, the rest were right.  too_deep + too_shallow
 * <= usage (the producer clamps). */
typedef struct ModelEvidence {
        uint64_t usage;
        uint64_t too_deep;
        uint64_t too_shallow;
} ModelEvidence;

typedef struct ModelCpu {
        unsigned n_states;
        uint16_t w[MODEL_STATES_MAX][MODEL_STATES_MAX];
        uint64_t learned[MODEL_STATES_MAX];   /* entries learned from, per row (saturating) */
        /* The learning state: the same rows in 1/2^24 parts (each row sums
         * to MODEL_FINE_ONE and is clamped), so that slow rates (2^-15 per
         * wakeup, one wakeup per tick) still move it; w is its rounding to
         * 1/1024 (largest remainders first, ties to the lower index). */
        uint32_t fine[MODEL_STATES_MAX][MODEL_STATES_MAX];
        /* How much of each row is evidence rather than prior, 1/2^24: it
         * grows by the same 1 - (1 - 2^-k)^u as the row and shrinks by 2^-g
         * per tick of aging.  A row back at the prior says nothing. */
        uint32_t evidence[MODEL_STATES_MAX];
} ModelCpu;

/* Fills m with the prior: W[s][s] = 614, the remaining 410 spread evenly over
 * the other states (n = 1: W[0][0] = 1024).  Returns 0, -EINVAL for n_states
 * 0 or > MODEL_STATES_MAX. */
int model_cpu_init(ModelCpu *m, unsigned n_states);

/* The prior row for s (what aging drifts toward). */
void model_prior_row(unsigned n_states, unsigned s, uint16_t ret_row[static MODEL_STATES_MAX]);

/* Sets row s from a saved row (state kept across restarts): row[0..n-1]
 * must sum to MODEL_ONE and every weight must be at least clamp.  The row
 * counts as evidence.  Returns 0, or -EINVAL (m untouched). */
int model_cpu_set_row(ModelCpu *m, unsigned s, const uint16_t row[], unsigned clamp);

/* Returns 0 if p is usable for n_states states, else -EINVAL. */
int model_params_check(const ModelParams *p, unsigned n_states);

/* Q16 fixed point: (1 - 2^-k)^u by binary exponentiation, rounded at each
 * step; 65536 = 1.0.  The fraction of a row that u wakeups leave in place. */
uint32_t model_keep_q16(unsigned k, uint64_t u);

/* Learns one tick.  ev[s] for every state; enabled[s] says which states the
 * kernel could pick during the tick (the "next enabled shallower/deeper"
 * targets; where no shallower (deeper) state was enabled, the evidence
 * producer estimated against the adjacent disabled state s-1 (s+1), and
 * that state is the target; a too-shallow count on the deepest state or a
 * too-deep count on state 0 counts as right).  A row with usage > 0 moves
 * toward its evidence distribution by
 * 1 - (1 - 2^-k)^usage (computed in Q16 by binary exponentiation); a row with
 * usage 0 ages toward the prior by 2^-g.  Rows stay normalised and clamped.
 * Returns 0, or -EINVAL for bad params. */
int model_cpu_learn(ModelCpu *m, const ModelEvidence ev[], const bool enabled[], const ModelParams *p);

/* How much of row s is evidence rather than prior, Q10 (0..1024). */
unsigned model_row_evidence(const ModelCpu *m, unsigned s);

/* The shallower (deeper) share of row s as the evidence alone has it, Q10:
 * a row is evidence × what was learned + (1 - evidence) × prior (learning
 * and aging both keep that form; only the clamps bend it), so the learned share is
 * recovered from the row; aging then fades how much a row says, not what
 * it says.  0 for a row without evidence. */
unsigned model_evidence_shallower(const ModelCpu *m, unsigned s);
unsigned model_evidence_deeper(const ModelCpu *m, unsigned s);

/* Sum of W[s][j] for j < s (weight of "too deep"), and for j > s. */
unsigned model_row_shallower(const ModelCpu *m, unsigned s);
unsigned model_row_deeper(const ModelCpu *m, unsigned s);
