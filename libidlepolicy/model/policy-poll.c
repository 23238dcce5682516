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
 *   window = burned × p + missed × H, where, measured at the current window
 *            W0: burned = Δpoll time (successes' durations + failures × W0),
 *            missed = min(failures, O); modelled for any other window W:
 *            timer-ended periods outlast the window (burn W each), the
 *            non-timer ones are exponential with mean d:
 *            burned = (n − O) × W + O × d × (1 − e^(−W/d))   (= E[min(T, W)])
 *            missed = O × e^(−W/d)
 *            d = the successes' mean duration, measured when polling in a
 *            window and remembered (PollPlan.mean_success_us) while not;
 *            before any measurement Δidle time / n (an upper bound: it
 *            includes the timer-ended periods, so it errs toward not
 *            polling).  "Polling in a window" is prev's mode, or without
 *            prev a non-zero in->window_ns (the machine's own setting).
 * The windows tried are 50, 100, 200 and 400 µs; the cheapest wins, ties to
 * the shorter.  The mode (and the window) changes only when the new choice
 * costs less than 7/8 of the current one; with H unknown (0) nothing can
 * justify burning: no polling. */
#include "policy-internal.h"

#define MARGIN_SHIFT 3                 /* switch only when cheaper by 1/8 */
#define USEC_PER_SEC 1000000u

typedef struct PollStats {
        uint64_t n, other, idle_us;
        uint64_t fails;                /* measured failed polls (window mode) */
        uint64_t mean_us;              /* d */
        uint32_t mean_success_us;      /* measured, or remembered from prev */
        bool measured;                 /* polling in a window: success and burn are measured */
} PollStats;

static void poll_stats(const PollInput *in, const PollPlan *prev, PollStats *st) {
        uint64_t successes;

        *st = (PollStats) {
                .n = in->d_poll_usage > in->d_halt_usage ? in->d_poll_usage : in->d_halt_usage,
                .idle_us = in->d_poll_time_us + in->d_halt_time_us,
        };
        st->other = in->d_other_wakeups < st->n ? in->d_other_wakeups : st->n;
        st->mean_us = st->n > 0 ? st->idle_us / st->n : 0;
        st->mean_success_us = prev ? prev->mean_success_us : 0;
        st->measured = in->window_ns > 0 && in->d_poll_usage > 0 &&
                       (prev ? prev->mode == POLL_MODE_WINDOW && in->window_ns == prev->window_ns : true);
        if (st->measured) {
                st->fails = in->d_halt_usage < in->d_poll_usage ? in->d_halt_usage : in->d_poll_usage;
                successes = in->d_poll_usage - st->fails;
                if (successes > 0) {
                        uint64_t spent = st->fails * (in->window_ns / 1000);
                        uint64_t mean = in->d_poll_time_us > spent ? (in->d_poll_time_us - spent) / successes : 0;

                        st->mean_success_us = (uint32_t) (mean < 1 ? 1 : mean > UINT32_MAX ? UINT32_MAX : mean);
                }
        }
        if (st->mean_success_us > 0)
                st->mean_us = st->mean_success_us;
}

static int64_t priced(uint64_t burned_us, uint64_t missed, const Profile *prof, const PollInput *in) {
        return (int64_t) ((burned_us * prof->burn_price >> 10) + missed * in->halt_cost_us);
}

static int64_t window_cost(const Profile *prof, const PollInput *in, const PollStats *st, uint64_t window_ns) {
        uint64_t w_us = window_ns / 1000, q, burned, missed;

        if (st->measured && window_ns == in->window_ns)
                return priced(in->d_poll_time_us, st->fails < st->other ? st->fails : st->other, prof, in);
        q = policy_exp_neg_q10(w_us, st->mean_us);
        burned = (st->n - st->other) * w_us + (st->other * st->mean_us * (1024 - q) >> 10);
        missed = st->other * q >> 10;
        return priced(burned, missed, prof, in);
}

/* The cheapest window (ties to the shorter; the current one kept unless
 * another is cheaper by the margin). */
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
        if (st->measured) {
                int64_t cur = window_cost(prof, in, st, in->window_ns);

                if (best_cost >= cur - (cur >> MARGIN_SHIFT)) {
                        best = in->window_ns;
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

int policy_decide_poll(const Profile *prof, const PollInput *in, const PollPlan *prev, PollPlan *ret) {
        PollPlan next = { .mode = POLL_MODE_NONE };
        PollStats st;
        uint64_t window;

        poll_stats(in, prev, &st);
        if (st.n == 0) {
                next = prev ? *prev : next;
        } else {
                int64_t wcost;

                window = best_window(prof, in, &st, &wcost);
                next.cost[POLL_MODE_NONE] = per_second(priced(0, st.other, prof, in), in->interval_us);
                next.cost[POLL_MODE_WINDOW] = per_second(wcost, in->interval_us);
                next.cost[POLL_MODE_ONLY] = per_second(priced(st.idle_us, 0, prof, in), in->interval_us);
                next.mode = in->halt_cost_us == 0 ? POLL_MODE_NONE : choose_mode(prev, next.cost);
                next.window_ns = next.mode == POLL_MODE_WINDOW ? window : 0;
                next.success = success_q10(&st, window, in);
                next.mean_success_us = st.mean_success_us;
        }
        *ret = next;
        return !prev || next.mode != prev->mode || next.window_ns != prev->window_ns;
}
