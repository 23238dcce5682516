/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-CPU decision: cap and floor with their reasons (precedence in
 * policy.h).  The model's own moves are in policy-model.c, the evidence in
 * policy-evidence.c, the KVM polling decision in policy-poll.c. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>

#include "policy-internal.h"

static const char *const reason_names[_PLAN_REASON_MAX] = {
        [PLAN_REASON_NONE] = "none",
        [PLAN_REASON_PROFILE_LIMIT] = "profile-limit",
        [PLAN_REASON_MODEL] = "model",
        [PLAN_REASON_UTIL] = "util",
        [PLAN_REASON_MISDESCRIBED] = "misdescribed",
        [PLAN_REASON_POLL_ECONOMICS] = "poll-economics",
        [PLAN_REASON_EXPLORATION] = "exploration",
        [PLAN_REASON_MANUAL] = "manual",
        [PLAN_REASON_HOLD] = "hold",
        [PLAN_REASON_CONSOLIDATION] = "consolidation",
};

const char *plan_reason_to_string(PlanReason r) {
        if ((unsigned) r >= _PLAN_REASON_MAX)
                return NULL;
        return reason_names[r];
}

void cpu_plan_init(CpuPlan *p, unsigned n_states) {
        unsigned deepest = n_states > 0 ? n_states - 1 : 0;

        *p = (CpuPlan) {
                .cap = deepest,
                .model_cap = deepest,
                .held_ticks = UINT_MAX,       /* nothing moved yet: nothing to hold */
        };
}

void cpu_plan_enabled(const CpuPlan *p, const PolicyTick *t, bool ret_enabled[static MODEL_STATES_MAX]) {
        for (unsigned s = 0; s < MODEL_STATES_MAX; s++)
                ret_enabled[s] = s < t->n_states && s >= p->floor && s <= p->cap &&
                                 !t->states[s].manual_disabled;
}

void policy_model_params(const Profile *prof, ModelParams *ret) {
        *ret = (ModelParams) {
                .learn_shift = prof->learn_shift,
                .age_shift = prof->age_shift,
                .clamp = MODEL_CLAMP_DEFAULT,
        };
}

PlanReason policy_state_excluded(const Profile *prof, const PolicyState *st) {
        if (st->manual_disabled)
                return PLAN_REASON_MANUAL;
        if (prof->latency_limit_us == 0 || policy_latency_us(st) <= prof->latency_limit_us)
                return PLAN_REASON_NONE;
        return st->latency_us <= prof->latency_limit_us ? PLAN_REASON_MISDESCRIBED : PLAN_REASON_PROFILE_LIMIT;
}

/* The hard bounds: lowest = the shallowest state not disabled by hand,
 * bound = the deepest state not excluded (never below lowest: at least one
 * state stays allowed), each with the reason that set it. */
static void plan_bounds(const Profile *prof, const PolicyTick *t, PlanBounds *b) {
        unsigned n = t->n_states;

        *b = (PlanBounds) { .lowest = 0, .bound = n - 1 };
        while (b->lowest + 1 < n && t->states[b->lowest].manual_disabled)
                b->lowest++;
        if (b->lowest > 0)
                b->floor_reason = PLAN_REASON_MANUAL;
        while (b->bound > b->lowest && policy_state_excluded(prof, &t->states[b->bound]) != PLAN_REASON_NONE) {
                b->cap_reason = policy_state_excluded(prof, &t->states[b->bound]);
                b->bound--;
        }
        if (b->bound == b->lowest && policy_state_excluded(prof, &t->states[b->bound]) == PLAN_REASON_PROFILE_LIMIT)
                b->cap_reason = PLAN_REASON_PROFILE_LIMIT;
}

/* The util rule with its hysteresis; returns the util cap, or bound. */
static unsigned util_cap(const Profile *prof, const PolicyTick *t, const PlanBounds *b, CpuPlan *plan) {
        if (prof->util_threshold >= 1024 || t->util > 1024) {
                plan->util_active = false;
                return b->bound;
        }
        if (t->util >= 0) {
                if ((unsigned) t->util > prof->util_threshold)
                        plan->util_active = true;
                else if ((unsigned) t->util + prof->util_hysteresis < prof->util_threshold)
                        plan->util_active = false;
        }
        if (!plan->util_active)
                return b->bound;
        for (unsigned s = b->lowest; s <= b->bound; s++)
                if (!t->states[s].polling && !t->states[s].manual_disabled)
                        return s;
        return b->bound;
}

bool policy_explore_draw(const Profile *prof, unsigned share, uint32_t random) {
        if (prof->explore_shift == 0)
                return false;
        return (random >> 22) < ((share + POLICY_EXPLORE_BASE) >> prof->explore_shift);
}

/* The next state from s in direction dir within [lo, hi] not disabled by
 * hand, or s. */
static unsigned next_allowed(const PolicyTick *t, unsigned s, int dir, unsigned lo, unsigned hi) {
        for (int j = (int) s + dir; j >= (int) lo && j <= (int) hi; j += dir)
                if (!t->states[j].manual_disabled)
                        return (unsigned) j;
        return s;
}

static void compose_cap(const Profile *prof, const ModelCpu *m, const PolicyTick *t, const PlanBounds *b,
                        unsigned ucap, const ModelMove *mv, uint32_t random, CpuPlan *next) {
        next->cap = b->bound;
        next->cap_reason = b->cap_reason;
        if (ucap < next->cap) {
                next->cap = ucap;
                next->cap_reason = PLAN_REASON_UTIL;
        }
        if (next->model_cap < next->cap) {
                next->cap = next->model_cap;
                next->cap_reason = mv->cap_held ? PLAN_REASON_HOLD : PLAN_REASON_MODEL;
                if (policy_explore_draw(prof, model_row_deeper(m, next->cap), random)) {
                        unsigned lifted = next_allowed(t, next->cap, +1, next->cap, ucap);

                        next->exploring = lifted != next->cap;
                        next->cap_reason = next->exploring ? PLAN_REASON_EXPLORATION : next->cap_reason;
                        next->cap = lifted;
                }
        } else if (mv->cap_held && next->cap == next->model_cap)
                next->cap_reason = PLAN_REASON_HOLD;
}

/* The floor needs no exploration: whether its entries would be better off
 * below is measured every tick (policy-model.c). */
static void compose_floor(const PlanBounds *b, const ModelMove *mv, CpuPlan *next) {
        next->floor = b->lowest;
        next->floor_reason = b->floor_reason;
        if (next->model_floor > next->floor) {
                next->floor = next->model_floor;
                next->floor_reason = mv->floor_held ? PLAN_REASON_HOLD : PLAN_REASON_MODEL;
        } else if (mv->floor_held && next->floor == next->model_floor)
                next->floor_reason = PLAN_REASON_HOLD;
        if (next->floor > next->cap) {
                next->floor = next->cap;
                next->floor_reason = next->cap_reason;
        }
}

int policy_decide_cpu(const Profile *prof, const ModelCpu *m, const PolicyTick *t,
                      uint32_t random, CpuPlan *plan) {
        CpuPlan next = *plan;
        PlanBounds b;
        ModelMove mv;
        unsigned ucap;
        bool changed;

        if (t->n_states == 0 || t->n_states > MODEL_STATES_MAX || m->n_states != t->n_states)
                return -EINVAL;
        plan_bounds(prof, t, &b);
        ucap = util_cap(prof, t, &b, &next);
        policy_model_step(prof, m, t, &b, &next, &mv);
        next.exploring = false;
        compose_cap(prof, m, t, &b, ucap, &mv, random, &next);
        compose_floor(&b, &mv, &next);
        changed = next.cap != plan->cap || next.floor != plan->floor;
        *plan = next;
        return changed;
}
