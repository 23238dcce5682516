/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internal: what the policy's files share. */

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

#define POLICY_EXPLORE_BASE 32u       /* Q10: 1/32, so a cap with no deeper weight is still re-tried */
#define POLICY_EVIDENCE_MIN 512u      /* Q10: a row speaks when at least half of it is evidence */

/* The hard limits of one tick's plan. */
typedef struct PlanBounds {
        unsigned lowest;              /* shallowest state not disabled by hand */
        unsigned bound;               /* deepest state not excluded (manual, latency limit) */
        PlanReason cap_reason;        /* why bound is not the deepest state (NONE if it is) */
        PlanReason floor_reason;      /* why lowest is not state 0 */
} PlanBounds;

/* What the model step did. */
typedef struct ModelMove {
        bool cap_held;                /* the model wanted to move the cap; hold_ticks kept it */
        bool floor_held;
} ModelMove;

/* Moves plan->model_cap and plan->model_floor by the model's rules (one
 * state per decision, hold_ticks between moves), within the bounds. */
void policy_model_step(const Profile *prof, const ModelCpu *m, const PolicyTick *t,
                       const PlanBounds *b, CpuPlan *plan, ModelMove *ret);

/* e^(-num/den) in Q10 (1024 = 1.0) from fixed-point tables; den 0 gives 0
 * (an infinitely short mean: nothing is that long). */
uint32_t policy_exp_neg_q10(uint64_t num, uint64_t den);
