/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The model's own moves of the cap and the floor (rules in policy.h): one
 * state past the one in use at a time, each checked from both sides so that
 * a move is not undone by the next decision, gated by energy, and held for
 * hold_ticks. */
#include <limits.h>
#include <stdbool.h>

#include "policy-internal.h"

/* The next state from s in direction dir (+1 deeper, -1 shallower) within
 * [lo, hi] that is not disabled by hand; -1 if there is none. */
static int next_usable(const PolicyTick *t, unsigned s, int dir, unsigned lo, unsigned hi) {
        for (int j = (int) s + dir; j >= (int) lo && j <= (int) hi; j += dir)
                if (!t->states[j].manual_disabled)
                        return j;
        return -1;
}

/* A row "says" too deep (too shallow) when its share beyond the state is
 * above the tolerance and at least half of it is evidence: a row that is
 * mostly prior (never fed, or aged back) says nothing and blocks nothing. */
static bool says_too_deep(const Profile *prof, const ModelCpu *m, unsigned s) {
        return model_row_evidence(m, s) >= POLICY_EVIDENCE_MIN &&
               model_row_shallower(m, s) > prof->too_deep_tolerance;
}

static bool says_too_shallow(const Profile *prof, const ModelCpu *m, unsigned s) {
        return model_row_evidence(m, s) >= POLICY_EVIDENCE_MIN &&
               model_row_deeper(m, s) > prof->too_shallow_tolerance;
}

/* The deepest (dir -1: from hi down) or shallowest (dir +1: from lo up)
 * state in [lo, hi] the base governor used this tick, or -1. */
static int used_from(const PolicyTick *t, unsigned lo, unsigned hi, int dir) {
        for (int j = dir < 0 ? (int) hi : (int) lo; j >= (int) lo && j <= (int) hi; j += dir)
                if (t->d_usage[j] > 0)
                        return j;
        return -1;
}

/* Whether moving the entries of state s to state to saves energy: the
 * energy of an idle period of length d differs between the two by a
 * constant times (R - d), R the deeper state's break-even residency (that
 * is what a target residency is), so the move pays when the mean idle
 * duration in s is on the right side of it.  No power figures needed. */
static bool move_saves_energy(const PolicyTick *t, unsigned s, unsigned to) {
        uint64_t residency = policy_residency_us(&t->states[s > to ? s : to]);

        if (to < s)
                return t->d_time_us[s] < residency * t->d_usage[s];
        return t->d_time_us[s] >= residency * t->d_usage[s];
}

/* The cap moves from the deepest state in use (a cap above it binds
 * nothing), so a cap at an unused deep state comes down in one move. */
static unsigned cap_rule(const Profile *prof, const ModelCpu *m, const PolicyTick *t,
                         const PlanBounds *b, unsigned cap, unsigned floor) {
        int used = used_from(t, floor, cap, -1);
        int lo, hi;

        if (used < 0)
                return cap;
        lo = next_usable(t, (unsigned) used, -1, floor, (unsigned) used);
        hi = next_usable(t, cap, +1, cap, b->bound);
        if (lo >= 0 && says_too_deep(prof, m, (unsigned) used) && !says_too_shallow(prof, m, (unsigned) lo) &&
            move_saves_energy(t, (unsigned) used, (unsigned) lo))
                return (unsigned) lo;
        if (hi >= 0 && (unsigned) used == cap && says_too_shallow(prof, m, cap) && !says_too_deep(prof, m, (unsigned) hi))
                return (unsigned) hi;
        return cap;
}

static unsigned floor_rule(const Profile *prof, const ModelCpu *m, const PolicyTick *t,
                           const PlanBounds *b, unsigned floor, unsigned cap) {
        int used = used_from(t, floor, cap, +1);
        int lo, hi;

        if (used < 0)
                return floor;
        hi = next_usable(t, (unsigned) used, +1, (unsigned) used, cap);
        lo = next_usable(t, floor, -1, b->lowest, floor);
        if (hi >= 0 && says_too_shallow(prof, m, (unsigned) used) && !says_too_deep(prof, m, (unsigned) hi) &&
            move_saves_energy(t, (unsigned) used, (unsigned) hi))
                return (unsigned) hi;
        if (lo >= 0 && (unsigned) used == floor && says_too_deep(prof, m, floor) && !says_too_shallow(prof, m, (unsigned) lo))
                return (unsigned) lo;
        return floor;
}

static unsigned clamp_u(unsigned v, unsigned lo, unsigned hi) {
        return v < lo ? lo : v > hi ? hi : v;
}

void policy_model_step(const Profile *prof, const ModelCpu *m, const PolicyTick *t,
                       const PlanBounds *b, CpuPlan *plan, ModelMove *ret) {
        unsigned cap = clamp_u(plan->model_cap, b->lowest, b->bound);
        unsigned floor = clamp_u(plan->model_floor, b->lowest, cap);
        unsigned want_cap = cap_rule(prof, m, t, b, cap, floor);
        unsigned want_floor = floor_rule(prof, m, t, b, floor, cap);

        *ret = (ModelMove) {};
        if (want_floor > want_cap)
                want_floor = floor;     /* the cap moved below the floor's new place: the cap wins */
        if ((want_cap != cap || want_floor != floor) && plan->held_ticks >= prof->hold_ticks) {
                cap = want_cap;
                floor = want_floor;
                plan->held_ticks = 0;
        } else {
                ret->cap_held = want_cap != cap;
                ret->floor_held = want_floor != floor;
                if (plan->held_ticks < UINT_MAX)
                        plan->held_ticks++;
        }
        plan->model_cap = cap;
        plan->model_floor = floor;
}
