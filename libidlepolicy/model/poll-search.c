/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The poll frontier search: see poll-search.h. */
#include <stdlib.h>
#include <string.h>

#include "poll-search.h"

#define USEC_PER_SEC UINT64_C(1000000)
#define MEAN_SHIFT 2                   /* the held arm's running means move 1/4 per tick */

const uint64_t poll_search_window_ns[POLL_SEARCH_ARMS] = { 0, 25000, 50000, 100000, 200000, 0 };

const char *poll_search_phase_to_string(PollSearchPhase p) {
        switch (p) {
        case POLL_SEARCH_IDLE:
                return "idle";
        case POLL_SEARCH_CLIMB:
                return "climb";
        case POLL_SEARCH_HOLD:
                return "hold";
        case POLL_SEARCH_PROBE:
                return "probe";
        }
        return "?";
}

/* Exact to the last of its 10 fractional bits: the mantissa, normalised to
 * [1, 2) in Q32, is squared once per bit. */
int64_t poll_search_log2_q10(uint64_t x) {
        unsigned msb;
        uint64_t m;
        int64_t r;

        if (x == 0)
                return 0;
        msb = 63u - (unsigned) __builtin_clzll(x);
        m = msb >= 32 ? x >> (msb - 32) : x << (32 - msb);
        r = (int64_t) msb << 10;
        for (int bit = 9; bit >= 0; bit--) {
                m = (uint64_t) (((unsigned __int128) m * m) >> 32);
                if (m >= (UINT64_C(2) << 32)) {
                        m >>= 1;
                        r |= INT64_C(1) << bit;
                }
        }
        return r;
}

/* x per second over interval_us. */
static uint64_t rate(uint64_t x, uint64_t interval_us) {
        return interval_us ? (uint64_t) ((unsigned __int128) x * USEC_PER_SEC / interval_us) : 0;
}

static int64_t log_progress(const PollSearchSample *s) {
        return poll_search_log2_q10(rate(s->progress, s->interval_us) + POLL_SEARCH_P0);
}

static int64_t log_burned(const PollSearchSample *s) {
        return poll_search_log2_q10(rate(s->burned_us, s->interval_us) + POLL_SEARCH_C0);
}

static int64_t utility_of(int64_t lp, int64_t lc, unsigned weight) {
        return lp - ((lc * (int64_t) weight) >> 10);
}

int64_t poll_search_utility(const PollSearchSample *s, unsigned weight) {
        return utility_of(log_progress(s), log_burned(s), weight);
}

void poll_search_reset(PollSearch *ps) {
        *ps = (PollSearch) {};
}

/* Drops the measurement under way. */
static void measure_reset(PollSearch *ps) {
        ps->ticks = 0;
        ps->acc_u = ps->acc_p = 0;
        ps->acc_saturated = 0;
        ps->acc_polls = ps->acc_halts = ps->acc_halted_us = 0;
}

/* Whether the machine was saturated during s: idle under
 * POLL_SEARCH_SATURATED_US, where the idle periods were measured. */
static bool saturated(const PollSearchSample *s) {
        return s->idle_known && rate(s->idle_us, s->interval_us) < POLL_SEARCH_SATURATED_US;
}

/* Whether the best arm is no polling and the last tick was saturated:
 * held there, no probe comes and the program's swings start no climb. */
static bool none_saturated(const PollSearch *ps) {
        return ps->best == 0 && saturated(&ps->last);
}

/* Doubles the wait before the next probe, up to POLL_SEARCH_PROBE_TICKS_MAX. */
static void probe_wait_lengthen(PollSearch *ps) {
        ps->probe_every = 2 * ps->probe_every < POLL_SEARCH_PROBE_TICKS_MAX ? 2 * ps->probe_every :
                          POLL_SEARCH_PROBE_TICKS_MAX;
}

static void climb_start(PollSearch *ps) {
        ps->phase = POLL_SEARCH_CLIMB;
        ps->arm = ps->best = 0;
        memset(ps->measured, 0, sizeof(ps->measured));
        memset(ps->probed, 0, sizeof(ps->probed));
        ps->probe_every = POLL_SEARCH_PROBE_TICKS;
        ps->fast = true;
        ps->climbs++;
}

/* Whether the idle periods measured under window arm a (polls, halts and
 * the halts' time, summed over its ticks) just outlast it: a quarter or
 * more of them halted, for a mean longer than the window and no longer
 * than the next.  Under the haltpoll governor a CPU's poll limit grows
 * only on an idle period no longer than guest_halt_poll_ns, and any
 * longer one shrinks it (to 0 below guest_halt_poll_grow_start, 50 µs:
 * drivers/cpuidle/governors/haltpoll.c, adjust_poll_limit()), so a
 * program whose halts last a little longer than the window is hardly
 * polled: it measures as no polling for more CPU.  A halt's length is
 * the idle period and the halt's own wakeup (tens of µs on KVM), which
 * polling saves; the next window polls through them, and a program whose
 * round trips that shortens moves to a fast regime: pgbench, one client,
 * halts 68–92 µs long under the 50 µs window, which lost to no polling by
 * 0.51–0.88 log2 in two climbs of four, while the 100 µs window makes
 * 141000–151000 switches a second against 43000 (bench/results/
 * live-frontier-v7-logs, rounds 2, 3 against 4); wakeup's (142–147 µs)
 * and ebizzy's (169–175 µs) outlast the next window too, and their climbs
 * still end there.  Between windows only: polling only is no window, and
 * halts longer than the longest one are idle periods it would burn. */
static bool outlasts(unsigned a, uint64_t polls, uint64_t halts, uint64_t halted_us) {
        return a > 0 && a + 1 < POLL_SEARCH_ONLY && halts > 0 && 4 * halts >= polls + halts &&
               halted_us * 1000 > poll_search_window_ns[a] * halts &&
               halted_us * 1000 <= poll_search_window_ns[a + 1] * halts;
}

/* Sets arm's measurement: its utility u, log2 progress lp, whether the
 * machine was saturated throughout, whether its halts outlast it. */
static void record(PollSearch *ps, unsigned arm, int64_t u, int64_t lp, bool sat, bool outlasted) {
        ps->utility[arm] = u;
        ps->log_p[arm] = lp;
        ps->saturated[arm] = sat;
        ps->outlasted[arm] = outlasted;
        ps->measured[arm] = true;
}

/* Holds arm, its running means starting from its last measurement. */
static void hold(PollSearch *ps, unsigned arm) {
        if (arm != ps->best) {
                ps->moves++;
                memset(ps->probed, 0, sizeof(ps->probed));
                ps->probe_every = POLL_SEARCH_PROBE_TICKS;
        }
        ps->phase = POLL_SEARCH_HOLD;
        ps->arm = ps->best = arm;
        ps->has_mean = ps->measured[arm];
        ps->out_of_band_us = ps->lost_us = 0;
        ps->mean_log_p = ps->log_p[arm];
        ps->held = 0;
        ps->waited = 0;
        ps->fast = false;
}

/* Adds interval_us to the run *run_us while beyond holds, else ends the
 * run: whether it lasted POLL_SEARCH_CHANGE_US (moved(), window_lost()). */
static bool lasting(uint64_t *run_us, bool beyond, uint64_t interval_us) {
        if (!beyond) {
                *run_us = 0;
                return false;
        }
        return (*run_us += interval_us) >= POLL_SEARCH_CHANGE_US;
}

/* Whether the log2 progress lp (Q10) left the held arm's running mean by
 * more than the change threshold for POLL_SEARCH_CHANGE_US in a row (a
 * program started or stopped; one short tick out is a program's own
 * jitter, and is not learned); otherwise the mean learns it.  Progress
 * only: a context switch count is exact, while the CPU a tick measured
 * below a tenth of a CPU moves by a factor 2 from one 500 ms tick to the
 * next on a steady program (ebizzy: 0.02 to 0.10 CPU), which made it
 * climb again every few seconds; a program that starts or stops moves
 * both. */
static bool moved(PollSearch *ps, int64_t lp, uint64_t interval_us) {
        bool beyond = ps->has_mean && llabs(lp - ps->mean_log_p) > POLL_SEARCH_CHANGE_Q10;
        bool lasted = lasting(&ps->out_of_band_us, beyond, interval_us);

        if (beyond)
                return lasted;
        if (!ps->has_mean) {
                ps->mean_log_p = lp;
                ps->has_mean = true;
        } else
                ps->mean_log_p += (lp - ps->mean_log_p) / (1 << MEAN_SHIFT);
        return false;
}

/* Holding a window: whether its ticks' utility u lost to no polling's
 * last measurement by more than POLL_SEARCH_HOPELESS_Q10 for
 * POLL_SEARCH_CHANGE_US in a row (as moved(), one short tick is noise).
 * The progress need not move for a window to stop paying: the kernel's
 * per-CPU poll limit keeps a history that the window written does not
 * reset.  ebizzy held a 25 µs window that a climb measured at 0.32 CPU
 * (no polls, its halts of 195 µs longer than the window); after the
 * climb's tick of the 200 µs window it ran at 1.08 CPU for the rest of
 * the run, the same progress, 2900 polls of 160 µs each per 500 ms
 * (the poll loop checks its limit every 200 cpu_relax(), each a pause
 * exit on KVM, so a 25 µs limit polled through ebizzy's 170 µs sleeps,
 * and the short halts after a poll that timed out grew the limit back:
 * drivers/cpuidle/poll_state.c, governors/haltpoll.c; bench/results/
 * live-outlasted, round 4).  The window is then measured again: a climb. */
static bool window_lost(PollSearch *ps, int64_t u, uint64_t interval_us) {
        return lasting(&ps->lost_us,
                       ps->best > 0 && ps->measured[0] && u < ps->utility[0] - POLL_SEARCH_HOPELESS_Q10,
                       interval_us);
}

/* Whether a machine at log2 progress lp (Q10, P0 added) makes under
 * POLL_SEARCH_ACTIVE context switches a second. */
static bool idle(int64_t lp) {
        return lp < poll_search_log2_q10(POLL_SEARCH_ACTIVE + POLL_SEARCH_P0);
}

/* The climb's rule: whether the walk upwards goes on past arm a (just
 * measured at utility u, the best so far at best_u): a lost to the best
 * by less than POLL_SEARCH_LOOKAHEAD_Q10 (or is the best).  Not whether
 * it bought progress over the arm below: the wakeup program's 100 µs
 * window makes 5% more than 50 µs for 50% more CPU, and the walk on to
 * 200 µs burnt two CPUs for a measurement.  The windows' frontier is
 * not concave: a window shorter than a program's idle periods costs CPU
 * and catches nothing, one longer catches them all (pgbench-ro, one
 * client: 9434 tps at 25 µs, 27704 at 50 µs, bench/results/
 * live-frontier.md); and a program can settle in either of two regimes
 * under one window (pgbench at 50 µs: 38000 or 111000 switches a second
 * in two runs of one bench, bench/results/live-search-regimes/logs, as
 * client and server share a CPU or not),
 * so two 100 ms ticks can make a window look a little worse than a
 * shorter one although the next pays.  The look-ahead costs measurements
 * of longer windows where polling pays nothing; a loss beyond it
 * (a 50 µs window losing 0.7 log2 to none) ends the climb.  Past the
 * shortest window, 25 µs, the look-ahead reaches as far as hopeless: it
 * is the window a program's idle periods most often just outlast, so
 * that it polls, catches nothing and halts anyway.  pgbench-ro, one
 * client, idles about 60 µs at a time: its 25 µs window lost to no
 * polling by 0.35–0.52 log2 in 3 climbs of 30 (by 0.52 over four ticks:
 * no noise, a regime), where 50 µs triples its progress (bench/results/
 * live-pgbench-15 and live-pgbench-15-v2); and by 1.0 in one tick of
 * another climb (43553 switches a second at no polling, 26484 at 25 µs,
 * bench/results/live-search-fixes/3-halted, round 3): a loss the hopeless
 * rule ended the climb on, holding no polling for the run at a third of
 * what polling makes.  So a climb always walks on from the 25 µs window,
 * whatever it lost by (its measurement still ends at one hopeless
 * tick).  A program where polling pays nothing (nanosleep's 25 µs
 * window: 5% more progress for 55% more CPU, 0.48 lost; ebizzy's: 60%
 * more CPU for nothing, 0.5) pays one hopeless tick of the 50 µs window
 * for it, once a climb: a probe (climbing false) keeps the look-ahead,
 * as it comes back every few seconds.  A climb or a probe also walks on,
 * whatever it lost by, from a window whose halts just outlast it
 * (outlasts()): the next window is the one that polls through them.
 * Polling only is walked to from the longest window only where that
 * window is as good as the best (within the margin): it polls what the
 * window halts for, idle periods longer than it, fewer of which a poll
 * catches than of those between the two longest windows; a look-ahead
 * there measured both on every probe upwards from 100 µs (test_noise's
 * PGBENCH: 21% of the ticks away from 100 µs rather than 11%). */
static bool walk_on(const PollSearch *ps, unsigned a, int64_t u, int64_t best_u, bool climbing) {
        if (a + 1 == POLL_SEARCH_ONLY)
                return u >= best_u - POLL_SEARCH_MARGIN_Q10;
        if ((a == 1 && climbing) || ps->outlasted[a])
                return a + 1 < POLL_SEARCH_ARMS;
        return a + 1 < POLL_SEARCH_ARMS && u >= best_u - POLL_SEARCH_LOOKAHEAD_Q10;
}

/* The end of a climb: holds the best arm it measured (a move, for hold(),
 * when that is not no polling: the climb started from there). */
static void climb_end(PollSearch *ps) {
        unsigned best = ps->best;

        ps->best = 0;
        hold(ps, best);
}

/* Climbing: arm's measurement u; on to the next arm while walk_on(),
 * else hold the best.  A window becomes the best over no polling only
 * by beating it by more than the margin, as a probed arm must
 * (probes_prove()): polling's CPU is certain (and the governor switch
 * with it), a gain within the margin is two ticks' noise.  Without it a
 * climb held a window on a tie: wakeup's 50 µs window measured 0.04 log2
 * above no polling in one climb of four and was held for the run, at
 * 0.5 CPU s more than no polling for no more requests (bench/results/
 * live-search-fixes/1-head).  Between two windows the better one is held as
 * measured: a margin there kept pgbench, one client, at 50 µs where
 * 100 µs is 0.2 log2 better (test-poll-search's test_noise: 18% of the
 * ticks away from 100 µs rather than 11%).  Unless the better one is a
 * fragile window, no longer than guest_halt_poll_grow_start: the kernel
 * shrinks a CPU's poll limit below that start to 0 (adjust_poll_limit()),
 * so there one idle period longer than the window stops the polling until
 * a halt shorter than the window grows it again, where a longer window
 * halves its limit and polls on.  A fragile window is held over a longer
 * one only where it beats it by more than the margin: pgbench, one
 * client, held 50 µs on a climb that measured it 0.04 log2 above 100 µs
 * and 200 µs, and ran 2 of its 7 ticks at 62000-69000 switches a second
 * with 1000-3000 halts of 70 µs per 500 ms, where 100 and 200 µs held
 * ran at 89000-113000 with 32-168 halts (bench/results/
 * live-window-lost-logs, rounds 3 against 1 and 2); a fixed 50 µs window
 * ran a whole run at 11373 tps against 28784 for the median (bench/
 * results/live-frontier-v7, round 2). */
static bool fragile(unsigned a) {
        return a > 0 && a < POLL_SEARCH_ONLY && poll_search_window_ns[a] <= POLL_SEARCH_GROW_START_NS;
}

static void climb_step(PollSearch *ps, int64_t u) {
        unsigned a = ps->arm, b = ps->best;

        if (a == 0 || u > ps->utility[b] + (b == 0 ? POLL_SEARCH_MARGIN_Q10 : 0) ||
            (fragile(b) && u >= ps->utility[b] - POLL_SEARCH_MARGIN_Q10))
                ps->best = a;
        if (!(a == 0 && (idle(ps->log_p[0]) || ps->saturated[0])) && walk_on(ps, a, u, ps->utility[ps->best], true))
                ps->arm = a + 1;
        else
                climb_end(ps);
}

/* Whether the probes of an arm prove it better than the held arm: enough
 * of them, their mean above the margin and above twice its standard error
 * (mean² × n > 4 × variance, in integers). */
static bool probes_prove(const PollSearchProbes *p) {
        int64_t n = p->n, mean, var;

        if (p->n < POLL_SEARCH_PROBES_MIN)
                return false;
        mean = p->sum / n;
        var = (p->sum_sq - p->sum * p->sum / n) / (n - 1);
        return mean > POLL_SEARCH_MARGIN_Q10 && mean * mean * n > 4 * var;
}

/* The end of a probe: each arm it measured is compared with the mean of
 * the held arm's two measurements around it (ref2 the second); the arm
 * whose probes prove it best replaces the held one. */
static void probe_end(PollSearch *ps, int64_t ref2) {
        int64_t ref = (ps->probe_ref + ref2) / 2, best_mean = 0;
        unsigned to = ps->best;
        bool promising = false;

        for (unsigned a = 0; a < POLL_SEARCH_ARMS; a++) {
                PollSearchProbes *p = &ps->probed[a];
                int64_t d = ps->utility[a] - ref;

                if (!(ps->probe_visited & (1u << a)))
                        continue;
                p->n++;
                p->sum += d;
                p->sum_sq += d * d;
                if (probes_prove(p) && p->sum / (int64_t) p->n > best_mean) {
                        best_mean = p->sum / (int64_t) p->n;
                        to = a;
                }
        }
        for (unsigned a = 0; a < POLL_SEARCH_ARMS; a++)
                promising |= ps->probed[a].n > 0 && ps->probed[a].sum / (int64_t) ps->probed[a].n > POLL_SEARCH_MARGIN_Q10;
        hold(ps, to);
        /* While no probed arm so much as hints at beating the held one,
         * each probe makes the next wait twice as long (up to
         * POLL_SEARCH_PROBE_TICKS_MAX); a move or a hint brings the wait
         * back to the shortest. */
        if (to == ps->best && promising)
                ps->probe_every = POLL_SEARCH_PROBE_TICKS;
        else if (to == ps->best)
                probe_wait_lengthen(ps);
}

static void probe_step(PollSearch *ps, int64_t u) {
        unsigned a = ps->arm;

        switch (ps->probe_step) {
        case 0:                        /* the held arm, before */
                ps->probe_ref = u;
                ps->probe_visited = 0;
                ps->arm = ps->probe_up ? a + 1 : a - 1;
                ps->probe_step = 1;
                break;
        case 1:                        /* a probed arm */
                ps->probe_visited |= 1u << a;
                if (ps->probe_up && walk_on(ps, a, u, ps->probe_ref, false))
                        ps->arm = a + 1;
                else if (!ps->probe_up && a > 0)
                        ps->arm = 0;            /* downwards: the arm below, then no polling */
                else {
                        ps->arm = ps->best;
                        ps->probe_step = 2;
                }
                break;
        default:                       /* the held arm, after */
                probe_end(ps, u);
                break;
        }
}

/* The program stopped (the held arm's progress left its mean, and this
 * tick, measured under the held arm, is idle()): no polling at once, this
 * tick its measurement, with no climb.  A climb would measure no polling
 * over fast ticks only to find the machine idle and hold it; and as a
 * quiet machine takes light ticks (quiet-tick.h), which do not step the
 * search, a program's end was seen at the next full tick, often the one
 * an exec brought: the next program's start then paid the climb
 * (bench/results/live-search-fixes/3-halted: 3 fast ticks and the ticks at the
 * normal pace until settled, 3.1 ms of the daemon's CPU in a 4 s idle
 * run where the others took 1.0 to 1.9). */
static void hold_idle(PollSearch *ps, int64_t lp, int64_t u) {
        record(ps, 0, u, lp, false, false);
        hold(ps, 0);
}

/* Holding: a probe every probe_every ticks, upwards and downwards in turn
 * where both exist. */
static void hold_step(PollSearch *ps) {
        if (++ps->held < ps->probe_every ||
            (ps->best == 0 && idle(ps->mean_log_p)) || none_saturated(ps))
                return;
        ps->phase = POLL_SEARCH_PROBE;
        ps->probe_up = ps->best == 0 || (ps->best + 1 < POLL_SEARCH_ARMS && !ps->probe_up);
        ps->probe_step = 0;
        ps->fast = true;
        ps->probes++;
}

/* The utility under which the first tick of an arm walked to (climbing,
 * or probing) is its whole measurement: a loss to the reference (the best
 * so far, or the held arm's measurement before the probe) beyond
 * POLL_SEARCH_HOPELESS_Q10.  A second tick would cost as much again for
 * nothing: the 200 µs window on a program between requests burns two
 * CPUs (wakeup: 2.2 CPUs against 0.7 without polling, bench/results/
 * live-frontier.md), and one tick of it loses by a factor 3 where the
 * tick-to-tick noise is ±25%.  INT64_MIN where there is no reference. */
static int64_t hopeless_below(const PollSearch *ps) {
        if (ps->phase == POLL_SEARCH_CLIMB && ps->arm > 0)
                return ps->utility[ps->best] - POLL_SEARCH_HOPELESS_Q10;
        if (ps->phase == POLL_SEARCH_PROBE && ps->probe_step == 1)
                return ps->probe_ref - POLL_SEARCH_HOPELESS_Q10;
        return INT64_MIN;
}

/* Adds a tick to the measurement under way.  Returns true when it is
 * complete (utility and log_p of the arm set): POLL_SEARCH_TICKS
 * ticks, or one hopeless one (hopeless_below()), or a climb's first
 * tick of no polling on an idle machine (idle(): the climb ends there,
 * a second tick would only be another fast one). */
static bool measure(PollSearch *ps, int64_t lp, int64_t lc, unsigned weight) {
        int64_t u = utility_of(lp, lc, weight), n;
        unsigned a = ps->arm;

        ps->acc_p += lp;
        ps->acc_u += u;
        ps->acc_saturated += saturated(&ps->last);
        ps->acc_polls += ps->last.polls;
        ps->acc_halts += ps->last.halts;
        ps->acc_halted_us += ps->last.halted_us;
        n = ++ps->ticks;
        if (n < POLL_SEARCH_TICKS &&
            !(n == 1 && (u < hopeless_below(ps) || (ps->phase == POLL_SEARCH_CLIMB && a == 0 && idle(lp)))))
                return false;
        record(ps, a, ps->acc_u / n, ps->acc_p / n, ps->acc_saturated == n,
               outlasts(a, ps->acc_polls, ps->acc_halts, ps->acc_halted_us));
        measure_reset(ps);
        return true;
}

/* A sample under another arm than the one asked for: the search waits.
 * An arm it moved to (climbing or probing) that does not come into force
 * within POLL_SEARCH_WAIT_TICKS samples (its knob unwritable, someone
 * else's) is given up rather than asked for with short ticks forever: a
 * climb holds the best arm so far, a probe ends as one that found nothing
 * (the wait for the next doubles).  The held arm is waited for.  Returns
 * true when the arm to run next changed. */
static bool wait_arm(PollSearch *ps) {
        if (ps->arm == ps->best || ++ps->waited < POLL_SEARCH_WAIT_TICKS)
                return false;
        measure_reset(ps);
        if (ps->phase == POLL_SEARCH_PROBE) {
                hold(ps, ps->best);
                probe_wait_lengthen(ps);
        } else
                climb_end(ps);
        return true;
}

bool poll_search_step(PollSearch *ps, const PollSearchSample *s, unsigned weight) {
        unsigned before = ps->arm;
        int64_t lp, lc;

        if (ps->phase == POLL_SEARCH_IDLE)
                climb_start(ps);
        if (s->interval_us == 0)
                return false;
        if (s->arm != (int) ps->arm)
                return wait_arm(ps);
        ps->waited = 0;
        ps->samples++;
        ps->last = *s;
        lp = log_progress(s);
        lc = log_burned(s);
        /* A tick of the held arm (holding, or around a probe) whose
         * progress left its mean: the program changed, climb again; not
         * held at no polling on a saturated machine, whose swings are the
         * program's own and which a climb would end where it is. */
        if ((ps->phase == POLL_SEARCH_HOLD || (ps->phase == POLL_SEARCH_PROBE && ps->probe_step != 1)) &&
            moved(ps, lp, s->interval_us) && !(ps->phase == POLL_SEARCH_HOLD && none_saturated(ps))) {
                measure_reset(ps);
                if (idle(lp))
                        hold_idle(ps, lp, utility_of(lp, lc, weight));
                else
                        climb_start(ps);
                return ps->arm != before;
        }
        if (ps->phase == POLL_SEARCH_HOLD) {
                if (window_lost(ps, utility_of(lp, lc, weight), s->interval_us))
                        climb_start(ps);
                else
                        hold_step(ps);
                return ps->arm != before;
        }
        if (!measure(ps, lp, lc, weight))
                return false;
        if (ps->phase == POLL_SEARCH_CLIMB)
                climb_step(ps, ps->utility[ps->arm]);
        else
                probe_step(ps, ps->utility[ps->arm]);
        return ps->arm != before;
}
