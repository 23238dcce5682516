/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Evidence: the kernel's above/below where they can be believed, an estimate
 * where they cannot.
 *
 * The kernel counts an entry of s as "above" when it lasted less than s's
 * advertised target residency (and a shallower state was enabled), and as
 * "below" when it lasted at least the advertised residency of the next
 * enabled deeper state.  Both go wrong in three cases:
 *   1. s is misdescribed: its advertised residency is too small, "above"
 *      misses entries that were too short for the real cost (the KVM
 *      "haltpoll idle" state advertises 1 µs: "never too deep");
 *   2. the next enabled deeper state is misdescribed: "below" counts entries
 *      that would not have paid off there (POLL on KVM: "always too
 *      shallow");
 *   3. the plan disabled the neighbour: the kernel counts nothing against a
 *      disabled state, so the state at the cap never looks too shallow and
 *      the one at the floor never too deep; the estimate is made against
 *      the next state the plan could enable (one disabled by hand is
 *      skipped: the plan can never offer it).
 * In those cases the count is re-derived:
 *   d   = Δtime / Δusage, the mean idle duration in s (µs);
 *   R   = policy_residency_us() of the state compared against: the
 *         calibrated break-even, or max(advertised, 2 × calibrated exit
 *         latency) for a misdescribed state, else the advertised residency;
 *   q(R) = e^(-R/d), the fraction of entries lasting at least R if the
 *         durations are exponential with mean d (fixed-point table);
 *   φ   = Δnon-timer / (Δtimer + Δnon-timer) wakeups (1 when unknown);
 *   too deep    = usage × φ × (1 − q(R(s))): an entry ends before the
 *                 break-even only by surprise — a timer-ended one was seen
 *                 coming by the governor, which does not enter a state
 *                 whose residency exceeds the time to the timer (for a
 *                 misdescribed s this is a lower bound: timers that fall
 *                 between the advertised and the real residency are missed);
 *   too shallow = usage × q(R(next deeper)): every entry that lasted long
 *                 enough for the deeper state, whatever ended it.
 * The exponential model over-states the tail of a bimodal mix (many short
 * wakeups, a few long sleeps), so it errs toward "too shallow" at a cap;
 * whether lifting the cap pays is then priced from the measured mean
 * (policy-model.c), which the mix does not fool. */
#include "policy-internal.h"

/* e^-i, e^-(i/16) and e^-(i/256) for i = 0..15, in Q16. */
static const uint32_t exp_int[16] = {
        65536, 24109, 8869, 3263, 1200, 442, 162, 60, 22, 8, 3, 1, 0, 0, 0, 0,
};
static const uint32_t exp_hi[16] = {
        65536, 61565, 57835, 54331, 51039, 47947, 45042, 42313,
        39750, 37341, 35079, 32954, 30957, 29081, 27319, 25664,
};
static const uint32_t exp_lo[16] = {
        65536, 65280, 65026, 64772, 64520, 64268, 64018, 63768,
        63520, 63272, 63025, 62780, 62535, 62291, 62048, 61806,
};

uint32_t policy_exp_neg_q10(uint64_t num, uint64_t den) {
        uint64_t x, v;

        while (num >= (UINT64_C(1) << 50) || den >= (UINT64_C(1) << 50)) {
                num >>= 1;
                den >>= 1;
        }
        if (num == 0)
                return 1024;
        if (den == 0 || num >= (den << 4))
                return 0;
        x = (num << 8) / den;                 /* Q8, below 16.0 */
        v = exp_int[x >> 8];
        v = (v * exp_hi[(x >> 4) & 15] + 32768) >> 16;
        v = (v * exp_lo[x & 15] + 32768) >> 16;
        return (uint32_t) ((v + 32) >> 6);
}

/* The next state from s in direction dir enabled during the tick (any:
 * false) or that the plan could enable (any: true, i.e. not disabled by
 * hand), or -1. */
static int state_from(const PolicyTick *t, const bool enabled[], unsigned s, int dir, bool any) {
        for (int j = (int) s + dir; j >= 0 && j < (int) t->n_states; j += dir)
                if (any ? !t->states[j].manual_disabled : enabled[j])
                        return j;
        return -1;
}

/* φ in Q10. */
static uint64_t nontimer_share(const PolicyTick *t) {
        uint64_t all = t->d_timer_wakeups + t->d_other_wakeups;

        if (all == 0)
                return 1024;
        if (all >= (UINT64_C(1) << 50))
                return (t->d_other_wakeups >> 10) * 1024 / (all >> 10);
        return t->d_other_wakeups * 1024 / all;
}

/* usage × q10 / 1024 without overflow for any usage. */
static uint64_t scale_q10(uint64_t usage, uint64_t q10) {
        return (usage >> 10) * q10 + ((usage & 1023) * q10 >> 10);
}

/* q(R) for the entries of s: e^(-R/d) with d = time/usage, computed as
 * e^(-R·usage/time) to keep the precision of short means. */
static uint64_t tail_q10(const PolicyTick *t, unsigned s, uint32_t residency_us) {
        uint64_t u = t->d_usage[s], time = t->d_time_us[s];

        while (u >= (UINT64_C(1) << 31)) {
                u >>= 1;
                time >>= 1;
        }
        return policy_exp_neg_q10((uint64_t) residency_us * u, time);
}

static uint64_t derive_too_deep(const PolicyTick *t, unsigned s) {
        uint64_t q = tail_q10(t, s, policy_residency_us(&t->states[s]));

        return scale_q10(scale_q10(t->d_usage[s], nontimer_share(t)), 1024 - q);
}

static uint64_t derive_too_shallow(const PolicyTick *t, unsigned s, unsigned deeper) {
        return scale_q10(t->d_usage[s], tail_q10(t, s, policy_residency_us(&t->states[deeper])));
}

static void state_evidence(const PolicyTick *t, const bool enabled[], unsigned s, ModelEvidence *ev) {
        uint64_t u = t->d_usage[s];
        int shallower = state_from(t, enabled, s, -1, false), deeper = state_from(t, enabled, s, +1, false);
        int usable_shallower = state_from(t, enabled, s, -1, true), usable_deeper = state_from(t, enabled, s, +1, true);
        uint64_t deep = 0, shallow = 0;

        if (shallower >= 0 && !t->states[s].misdescribed)
                deep = t->d_above[s];
        else if (usable_shallower >= 0)
                deep = derive_too_deep(t, s);
        if (deeper >= 0 && !t->states[deeper].misdescribed)
                shallow = t->d_below[s];
        else if (deeper >= 0 || usable_deeper >= 0)
                shallow = derive_too_shallow(t, s, (unsigned) (deeper >= 0 ? deeper : usable_deeper));
        deep = deep < u ? deep : u;
        shallow = shallow < u - deep ? shallow : u - deep;
        *ev = (ModelEvidence) { .usage = u, .too_deep = deep, .too_shallow = shallow };
}

void policy_evidence(const PolicyTick *t, const bool enabled[], ModelEvidence ret_ev[static MODEL_STATES_MAX]) {
        for (unsigned s = 0; s < MODEL_STATES_MAX; s++) {
                ret_ev[s] = (ModelEvidence) {};
                if (s < t->n_states && t->d_usage[s] > 0)
                        state_evidence(t, enabled, s, &ret_ev[s]);
        }
}
