/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The model's own moves of the cap and the floor (rules in policy.h).
 *
 * The rows say when a state is entered too deep or too shallow; whether
 * moving its entries to the neighbour pays is priced.  The energy of an
 * idle period of length d in state a and in a shallower state b differ by
 * (P_b - P_a) × (d - R_a), R_a the deeper state's target residency (that is
 * what a target residency is: the break-even), so for the entries of a
 * state, with d their mean idle period (Δtime/Δusage):
 *
 *   Δcost per entry = p × (P_to - P_s) × (d - R_deeper) + φ × (L_to - L_s)
 *
 * p = burn_price (µs of latency one CPU-µs of the shallowest state's power
 * is worth), P_i = 2^-i (each state draws half the power of the next
 * shallower one: the kernel's power field is unset on nearly every driver;
 * the simulator assumes the same), L the exit latency the policy believes,
 * φ the non-timer share of the wakeups (a timer wakeup's exit latency is
 * hidden by the timer's slack).  A move is made only when it costs less
 * than nothing.  Both moves that shed entries (cap down, floor up) and the
 * floor's way back are priced; the cap's way back is priced as if all of
 * the cap's entries moved up (the base governor would move only the long
 * ones, which pays more), or taken when exploration re-measured the capped
 * state and its row no longer says too deep. */
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

/* A row speaks when at least half of it is evidence: a row that is mostly
 * prior (rarely fed, or aged back) says nothing and blocks nothing. */
static bool speaks(const ModelCpu *m, unsigned s) {
        return model_row_evidence(m, s) >= POLICY_EVIDENCE_MIN;
}

/* What a speaking row says is its learned share alone: aging fades how
 * much a row says (until it stops speaking), never what it says. */
static bool says_too_deep(const Profile *prof, const ModelCpu *m, unsigned s) {
        return speaks(m, s) && model_evidence_shallower(m, s) > prof->too_deep_tolerance;
}

static bool says_too_shallow(const Profile *prof, const ModelCpu *m, unsigned s) {
        return speaks(m, s) && model_evidence_deeper(m, s) > prof->too_shallow_tolerance;
}

/* The deepest (dir -1: from hi down) or shallowest (dir +1: from lo up)
 * state in [lo, hi] whose row speaks, or -1. */
static int speaking_from(const ModelCpu *m, unsigned lo, unsigned hi, int dir) {
        for (int j = dir < 0 ? (int) hi : (int) lo; j >= (int) lo && j <= (int) hi; j += dir)
                if (speaks(m, (unsigned) j))
                        return j;
        return -1;
}

/* The mean idle period of the entries of s, as time and count.  A poll
 * that times out is continued in another state, so a polling state's own
 * mean understates its idle periods: it gets the CPU's mean idle period
 * (all states' time over the wakeups) where that is longer. */
static void entry_mean(const PolicyTick *t, unsigned s, uint64_t *ret_time, uint64_t *ret_n) {
        uint64_t all = 0, wakeups = t->d_timer_wakeups + t->d_other_wakeups;

        *ret_time = t->d_time_us[s];
        *ret_n = t->d_usage[s];
        if (!t->states[s].polling || wakeups == 0)
                return;
        for (unsigned j = 0; j < t->n_states; j++)
                all += t->d_time_us[j];
        if ((unsigned __int128) all * *ret_n > (unsigned __int128) *ret_time * wakeups) {
                *ret_time = all;
                *ret_n = wakeups;
        }
}

/* φ in Q10 (1024 when the wakeups are not known). */
static int64_t nontimer_q10(const PolicyTick *t) {
        uint64_t all = t->d_timer_wakeups + t->d_other_wakeups;

        return all == 0 ? 1024 : (int64_t) ((unsigned __int128) t->d_other_wakeups * 1024 / all);
}

/* Whether moving the entries of state s to state to pays (the price at the
 * top of this file, scaled by 2^26 × usage to stay in integers).  A state
 * unused in the tick has nothing to lose. */
static bool move_pays(const Profile *prof, const PolicyTick *t, unsigned s, unsigned to) {
        int64_t residency = policy_residency_us(&t->states[s > to ? s : to]);
        int64_t power = (int64_t) (65536u >> to) - (int64_t) (65536u >> s);      /* Q16 */
        int64_t latency = (int64_t) policy_latency_us(&t->states[to]) - (int64_t) policy_latency_us(&t->states[s]);
        uint64_t time, n;
        __int128 energy, wake;

        entry_mean(t, s, &time, &n);
        if (n == 0)
                return true;
        energy = (__int128) prof->burn_price * power * ((__int128) time - (__int128) residency * (__int128) n);
        wake = (__int128) nontimer_q10(t) * latency * 65536 * (__int128) n;
        return energy + wake < 0;
}

/* The cap comes down from the deepest state whose row speaks (a cap above
 * it binds nothing, or almost), past every state that says too deep and
 * whose entries pay to move below: the state the base governor falls
 * back to is judged by its own row now, not a tick later.  It goes up one
 * state at a time. */
static unsigned cap_rule(const Profile *prof, const ModelCpu *m, const PolicyTick *t,
                         const PlanBounds *b, unsigned cap, unsigned floor) {
        int top = speaking_from(m, floor, cap, -1), hi;
        unsigned s;

        if (top < 0)
                return cap;
        for (s = (unsigned) top;;) {
                int lo = next_usable(t, s, -1, floor, s);

                if (lo < 0 || !says_too_deep(prof, m, s) || !move_pays(prof, t, s, (unsigned) lo))
                        break;
                s = (unsigned) lo;
        }
        if (s != (unsigned) top)
                return s;
        hi = next_usable(t, cap, +1, cap, b->bound);
        if (hi >= 0 && s == cap && says_too_shallow(prof, m, cap) &&
            (move_pays(prof, t, cap, (unsigned) hi) || (speaks(m, (unsigned) hi) && !says_too_deep(prof, m, (unsigned) hi))))
                return (unsigned) hi;
        return cap;
}

/* The mirror image, with the way back priced too: the floor's own entries
 * show whether they would be better off below. */
static unsigned floor_rule(const Profile *prof, const ModelCpu *m, const PolicyTick *t,
                           const PlanBounds *b, unsigned floor, unsigned cap) {
        int bottom = speaking_from(m, floor, cap, +1), lo;
        unsigned s;

        if (bottom < 0)
                return floor;
        for (s = (unsigned) bottom;;) {
                int hi = next_usable(t, s, +1, s, cap);

                if (hi < 0 || !says_too_shallow(prof, m, s) || !move_pays(prof, t, s, (unsigned) hi))
                        break;
                s = (unsigned) hi;
        }
        if (s != (unsigned) bottom)
                return s;
        lo = next_usable(t, floor, -1, b->lowest, floor);
        if (lo >= 0 && s == floor && says_too_deep(prof, m, floor) && move_pays(prof, t, floor, (unsigned) lo))
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
                /* A move is the model's own: stored as it is. */
                plan->model_cap = want_cap;
                plan->model_floor = want_floor;
                plan->held_ticks = 0;
                return;
        }
        ret->cap_held = want_cap != cap;
        ret->floor_held = want_floor != floor;
        if (plan->held_ticks < UINT_MAX)
                plan->held_ticks++;
        /* No move: the stored ends stay, even where a bound (a state
         * disabled by hand, the profile's latency limit) clamps them now;
         * the bound limits the plan, not the model, and once it lifts the
         * model's own ends apply again. */
}
