/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* KVM halt polling priced by the profile.
 *
 * Per tick (then scaled to one second), with H = halt_cost_us (the extra
 * wakeup latency of a halt over a poll), p = burn_price / 1024 (µs of
 * latency one burned CPU-µs is worth), O = non-timer wakeups (the ones a
 * poll can catch: a timer's expiry is known, polling for it is waste):
 *
 *   idle periods  n = max(ΔPOLL usage, Δhalt usage)  (with the haltpoll
 *                 governor every period starts with a poll and a poll that
 *                 times out is followed by one halt entry)
 *   success       = (ΔPOLL − Δhalt) / ΔPOLL, clipped, when polling in a window
 *   none   = O × H                         every surprise pays a halt
 *   only   = (Δpoll time + Δhalt time) × p every idle µs is burned
 *   window = burned × p + missed × H, modelled for every window W alike:
 *            timer-ended periods outlast the window (burn W each), the
 *            non-timer ones are exponential with mean d:
 *            burned = (n − O) × W + O × d × (1 − e^(−W/d))   (= E[min(T, W)])
 *            missed = O × e^(−W/d)
 * Like is compared with like: the window in force is priced by the same
 * model as the candidates, never by its measured cost (measured and
 * modelled costs differ systematically — e.g. the measurement charges a
 * timer-ended poll that times out as a miss, the model does not — so
 * "the measured cost of W0 is worse than the modelled cost of W1" held in
 * both directions and the window flapped between two values every tick).
 * The measurement calibrates the model instead: polling in a window W0,
 * d is fitted to the tick as an exponential censored at W0 (maximum
 * likelihood): the poll time of the non-timer periods (Δpoll time minus
 * W0 for each timed-out poll that the timer-ended periods explain) over
 * the polls that ended in a wakeup; it is learned as a moving average
 * (1/4 per tick, PollPlan.mean_success_us) and remembered while not
 * polling in a window; before any measurement Δidle time / n (an upper
 * bound: it includes the timer-ended periods, so it errs toward not
 * polling).  With no poll censored the fit is the successes' plain mean.
 * A tick is a measurement when the machine polled in a window
 * (in->window_ns non-zero, POLL entered), whatever the plan said.  The
 * window the margin protects is prev's when prev polls in a window; the
 * first decision (no prev) has no hysteresis, as for the mode: the
 * machine's own setting is measured, not defended.
 * With in->without_only (the machine-wide decision, whose knob has no
 * polling only: that is each CPU's) polling only costs INT64_MAX and is
 * never chosen, nor kept from prev.
 * The windows tried are 50, 100, 200 and 400 µs; the cheapest wins, ties to
 * the shorter.  A decision, once changed, holds for prof->hold_ticks ticks
 * (the cap's hysteresis, applied to the mode and the window alike).  The
 * mode (and the window) changes only when the new choice costs less than
 * 7/8 of the current one — as both sides of that
 * comparison come from one model with one d, the margin holds: a window
 * kept by it stays kept while the data does not move.  With H unknown (0)
 * nothing can justify burning: no polling. */
#include <limits.h>

#include "policy-internal.h"

const char *poll_mode_to_string(PollMode m) {
        switch (m) {
        case POLL_MODE_NONE:
                return "none";
        case POLL_MODE_WINDOW:
                return "window";
        case POLL_MODE_ONLY:
                return "poll-only";
        }
        return "?";
}

#define MARGIN_SHIFT 3                 /* switch only when cheaper by 1/8 */
#define LEARN_SHIFT 2                  /* d moves 1/4 of the way to each tick's fit */
#define USEC_PER_SEC 1000000u

typedef struct PollStats {
        uint64_t n, other, idle_us;
        uint64_t fails;                /* measured failed polls (window mode) */
        uint64_t mean_us;              /* d, as the model uses it */
        uint32_t mean_success_us;      /* d learned (measured, or remembered from prev) */
        uint64_t current_ns;           /* the window in force, 0 = not polling in a window */
        bool measured;                 /* polling in a window: success and burn are measured */
} PollStats;

static uint32_t clamp_u32(uint64_t v) {
        return (uint32_t) (v < 1 ? 1 : v > UINT32_MAX ? UINT32_MAX : v);
}

/* The tick's maximum-likelihood d for exponential non-timer periods
 * censored at w_us: their poll time over their polls that ended in a
 * wakeup.  0 when no poll succeeded (nothing to fit). */
static uint64_t fit_mean_us(const PollInput *in, const PollStats *st, uint64_t w_us) {
        uint64_t successes = in->d_poll_usage - st->fails;
        uint64_t timer = st->n - st->other, timer_fails = st->fails < timer ? st->fails : timer;
        uint64_t spent = timer_fails * w_us, at_risk;

        if (successes == 0)
                return 0;
        at_risk = in->d_poll_time_us > spent ? in->d_poll_time_us - spent : 0;
        return at_risk / successes;
}

/* d moved 1/LEARN of the way from d to fit (rounded away from d, so it
 * always reaches fit). */
static uint64_t learn(uint64_t d, uint64_t fit) {
        const uint64_t round = (UINT64_C(1) << LEARN_SHIFT) - 1;

        if (d == 0)
                return fit;
        if (fit > d)
                return d + ((fit - d + round) >> LEARN_SHIFT);
        return d - ((d - fit + round) >> LEARN_SHIFT);
}

static void poll_stats(const PollInput *in, const PollPlan *prev, PollStats *st) {
        *st = (PollStats) {
                .n = in->d_poll_usage > in->d_halt_usage ? in->d_poll_usage : in->d_halt_usage,
                .idle_us = in->d_poll_time_us + in->d_halt_time_us,
                .current_ns = prev && prev->mode == POLL_MODE_WINDOW ? prev->window_ns : 0,
        };
        st->other = in->d_other_wakeups < st->n ? in->d_other_wakeups : st->n;
        st->mean_us = st->n > 0 ? st->idle_us / st->n : 0;
        st->mean_success_us = prev ? prev->mean_success_us : 0;
        /* The machine polled in a window: whatever the plan says (observe
         * mode, an administrator's setting), that is a measurement of d. */
        st->measured = in->window_ns > 0 && in->d_poll_usage > 0;
        if (st->measured) {
                st->fails = in->d_halt_usage < in->d_poll_usage ? in->d_halt_usage : in->d_poll_usage;
                if (in->d_poll_usage > st->fails)
                        st->mean_success_us = clamp_u32(learn(st->mean_success_us,
                                                              fit_mean_us(in, st, in->window_ns / 1000)));
        }
        if (st->mean_success_us > 0)
                st->mean_us = st->mean_success_us;
}

static int64_t priced(uint64_t burned_us, uint64_t missed, const Profile *prof, const PollInput *in) {
        return (int64_t) ((burned_us * prof->burn_price >> 10) + missed * in->halt_cost_us);
}

/* The modelled cost of polling in a window of window_ns: the same formula
 * for every window, the one in force included. */
static int64_t window_cost(const Profile *prof, const PollInput *in, const PollStats *st, uint64_t window_ns) {
        uint64_t w_us = window_ns / 1000, q, burned, missed;

        q = policy_exp_neg_q10(w_us, st->mean_us);
        burned = (st->n - st->other) * w_us + (st->other * st->mean_us * (1024 - q) >> 10);
        missed = st->other * q >> 10;
        return priced(burned, missed, prof, in);
}

/* The cheapest window (ties to the shorter; the window in force kept
 * unless another is cheaper by the margin). */
static uint64_t best_window(const Profile *prof, const PollInput *in, const PollStats *st, int64_t *ret_cost) {
        uint64_t best = POLL_WINDOW_MIN_NS;
        int64_t best_cost = window_cost(prof, in, st, best);

        for (uint64_t w = best * 2; w <= POLL_WINDOW_MAX_NS; w *= 2) {
                int64_t c = window_cost(prof, in, st, w);

                if (c < best_cost) {
                        best = w;
                        best_cost = c;
                }
        }
        if (st->current_ns > 0 && best != st->current_ns) {
                int64_t cur = window_cost(prof, in, st, st->current_ns);

                if (best_cost >= cur - (cur >> MARGIN_SHIFT)) {
                        best = st->current_ns;
                        best_cost = cur;
                }
        }
        *ret_cost = best_cost;
        return best;
}

static int64_t per_second(int64_t cost, uint64_t interval_us) {
        if (interval_us == 0)
                return cost;
        return (int64_t) ((__int128) cost * USEC_PER_SEC / interval_us);
}

static unsigned success_q10(const PollStats *st, uint64_t window_ns, const PollInput *in) {
        if (st->measured)
                return (unsigned) ((in->d_poll_usage - st->fails) * 1024 / in->d_poll_usage);
        if (st->n == 0)
                return 0;
        return (unsigned) (st->other * (1024 - policy_exp_neg_q10(window_ns / 1000, st->mean_us)) / st->n);
}

/* The cheapest mode; the previous one is kept unless beaten by the margin. */
static PollMode choose_mode(const PollPlan *prev, const int64_t cost[3]) {
        PollMode best = POLL_MODE_NONE;

        for (PollMode m = POLL_MODE_WINDOW; m <= POLL_MODE_ONLY; m++)
                if (cost[m] < cost[best])
                        best = m;
        if (prev && cost[best] >= cost[prev->mode] - (cost[prev->mode] >> MARGIN_SHIFT))
                return prev->mode;
        return best;
}

void poll_plan_hold(PollPlan *p) {
        p->held_ticks += p->held_ticks < UINT_MAX;
}

int policy_decide_poll(const Profile *prof, const PollInput *in, const PollPlan *prev, PollPlan *ret) {
        PollPlan next = { .mode = POLL_MODE_NONE }, was_only;
        const PollPlan *given = prev;
        PollStats st;
        uint64_t window;

        if (prev && in->without_only && prev->mode == POLL_MODE_ONLY) {
                was_only = *prev;       /* not kept: decided afresh, with what it learned */
                was_only.mode = POLL_MODE_NONE;
                was_only.window_ns = 0;
                was_only.held_ticks = prof->hold_ticks;
                prev = &was_only;
        }
        poll_stats(in, prev, &st);
        if (st.n == 0) {
                next = prev ? *prev : next;
        } else {
                int64_t wcost;

                window = best_window(prof, in, &st, &wcost);
                next.cost[POLL_MODE_NONE] = per_second(priced(0, st.other, prof, in), in->interval_us);
                next.cost[POLL_MODE_WINDOW] = per_second(wcost, in->interval_us);
                next.cost[POLL_MODE_ONLY] = in->without_only ? INT64_MAX :
                                            per_second(priced(st.idle_us, 0, prof, in), in->interval_us);
                next.mode = in->halt_cost_us == 0 ? POLL_MODE_NONE : choose_mode(prev, next.cost);
                next.window_ns = next.mode == POLL_MODE_WINDOW ? window : 0;
                next.success = success_q10(&st, window, in);
                next.mean_success_us = st.mean_success_us;
                if (prev && prev->held_ticks < prof->hold_ticks) {
                        next.mode = prev->mode;
                        next.window_ns = prev->window_ns;
                }
        }
        if (prev && next.mode == prev->mode && next.window_ns == prev->window_ns) {
                next.held_ticks = prev->held_ticks;
                poll_plan_hold(&next);
        }
        *ret = next;
        return !given || next.mode != given->mode || next.window_ns != given->window_ns;
}
