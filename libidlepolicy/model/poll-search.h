/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The poll frontier search (KVM guests, driver haltpoll): instead of
 * pricing a poll window from a model of the idle periods, measure what
 * each stock setting does for the machine and keep the best at the
 * profile's price.
 *
 * The arms are settings a user could make with one sysfs write, so that
 * whatever the search holds is a point of the stock frontier:
 *   arm 0          no polling: a governor that keeps the tick while idle
 *                  periods are short (menu, or wteo), POLL disabled;
 *   arms 1..4      the haltpoll governor with guest_halt_poll_ns = 25, 50,
 *                  100 or 200 µs (the kernel's own grow/shrink).
 *                  The kernel's other parameters (guest_halt_poll_grow,
 *                  _grow_start, _shrink, _allow_shrink) stay as booted:
 *                  measured beside the windows, none moved pgbench-ro past
 *                  the noise (allow_shrink=N +3-10% at 100 and 200 µs,
 *                  p 0.28 over 8 rounds).  A lower grow_start saved CPU at
 *                  100 µs only on programs where the search holds no
 *                  polling (wakeup, ebizzy); at 50 µs it cost pgbench 26%
 *                  (bench/results/live-haltpoll-params);
 *   arm 5          polling only (POLL_SEARCH_ONLY): every other state
 *                  disabled on the searched CPUs, their resume latency
 *                  "n/a" (the haltpoll governor kept).  A window polls up
 *                  to its limit and halts past it, and the kernel shrinks
 *                  the limit at every idle period longer than the window:
 *                  pgbench, one client, makes 30000 tps under a 100 or
 *                  200 µs window and 33800 polling only, at the same 7.9-8.0
 *                  CPU s (bench/results/live-follow: both windows 10%
 *                  under the line from no polling to polling only, which
 *                  is the programs' upper hull there).
 * Each tick under an arm is a sample: the progress the machine made (its
 * context switches: a request served, a sleep ended, a message passed —
 * a wakeup that ran something), and the CPU it burned (busy or polling:
 * the CPUs' time not halted).  Its utility is
 *     U = log2(progress/s + P0) − weight × log2(burned/s + C0)
 * (weight: the profile's poll_search, Q10; P0 = 1000/s and C0 = 5% of a
 * CPU keep an idle machine's noise — a few hundred switches and 1–3% of
 * a CPU that double from one tick to the next — from steering).  With weight 1 the arm
 * held makes the most progress per CPU second; any weight <= 1 picks a
 * point of the upper hull of the arms (the level curves of U are concave),
 * so no mix of two arms makes more progress at no more CPU.
 *
 * How it moves (each measurement is POLL_SEARCH_TICKS ticks under one arm;
 * fast = the caller should make the next tick short, poll_search_tick_usec):
 *   climb   from arm 0 upwards while each arm loses to the best so far by
 *           less than the look-ahead (4 margins; past the 25 µs window
 *           whatever it lost by, in a climb, while a probe keeps the
 *           look-ahead: a 25 µs window can lose 0.5 to 1.0 log2 to none
 *           on a program whose 50 µs window triples its progress, pgbench
 *           with one client; and past a window whose halts just outlast
 *           it, a quarter or more of the idle periods halted for a mean
 *           within the next window: the kernel's governor hardly polls
 *           there, the next window polls through them); then it holds
 *           the best arm seen, a window only where it beats no polling
 *           by more than the
 *           margin (a tie is two ticks' noise, polling's CPU is
 *           certain), and a window no longer than the kernel's grow
 *           start over a longer one only where it beats it by more than
 *           the margin (climb_step()).  An arm
 *           whose first tick loses by more than twice the look-ahead is
 *           measured by that tick alone (a 200 µs window burns two CPUs).  A climb starts at the first sample and whenever the
 *           held arm's progress leaves its running mean by more
 *           than a factor 2 for 150 ms in a row (a program started or
 *           stopped; one or two 50 ms ticks out are a program's own
 *           jitter), unless that tick is idle (below): the program
 *           stopped, no polling is held at once.  A
 *           machine that makes under POLL_SEARCH_ACTIVE context switches a
 *           second has nothing a poll could catch: it holds no polling at
 *           once, and is not probed (a program starting in the middle of a
 *           walk through the windows of an idle machine made the window it
 *           started under look best).  Nor has a saturated machine, idle
 *           under POLL_SEARCH_SATURATED_US (a quarter of a CPU, all CPUs
 *           together) at every tick of the measurement of no polling: a
 *           window can burn no more than that idle time and catch no more
 *           wakeups than there are, and the settings' measurements differ
 *           by the program's own swings (hackbench on two CPUs: 0 to 47 ms
 *           of idle a second, 10777 to 63087 switches a second from one
 *           50 ms tick to the next, and a 25 µs window held by that noise
 *           made it 25% slower than any stock setting, bench/results/
 *           live-frontier-v5).  The climb ends at no polling; held there,
 *           a saturated machine is not probed and its swings start no
 *           climb.
 *   hold    the best arm (a window held whose ticks lose to no polling's
 *           measurement by more than hopeless for 150 ms in a row is
 *           measured again, a climb: window_lost()); now and then a
 *           probe: a measurement of the held
 *           arm, then downwards the arm below and no polling (the cheapest
 *           arm, whatever lies between), or upwards from the one above as
 *           long as each loses to the held arm by less than the look-ahead
 *           (the climb's rule), then of the held arm again.  A probe that finds nothing better, not
 *           even a hint, doubles the wait for the next (12 ticks at
 *           first, at most 96).  A program's progress moves by ±25%
 *           from one 100 ms tick to the next (pgbench, one client: whether
 *           client and server share a CPU), so one probe proves little: a
 *           probed arm replaces the held one once at least
 *           POLL_SEARCH_PROBES_MIN of its probes beat the held arm by more
 *           than the margin on average and by more than twice their
 *           standard error.
 * A sample whose arm is not the one asked for (the knobs not yet
 * written, or someone else's) is not a measurement; the search waits,
 * and gives up an arm it moved to that is not in force after
 * POLL_SEARCH_WAIT_TICKS such samples (a climb holds the best so far, a
 * probe ends as one that found nothing).
 * Fast ticks: climbing and probing.  Not while holding, a window either:
 * a program that stops leaves idle periods longer than the window, and
 * the kernel's haltpoll governor shrinks each CPU's poll limit at each
 * one (halved, to 0 below guest_halt_poll_grow_start, 50 µs: two long
 * idle periods from 200 µs; drivers/cpuidle/governors/haltpoll.c,
 * adjust_poll_limit()), so the window burns a few hundred µs, not a
 * tick. */

#include <stdbool.h>
#include <stdint.h>

#define POLL_SEARCH_ARMS 6
#define POLL_SEARCH_ONLY 5             /* the arm that polls only */
#define POLL_SEARCH_TICKS 2            /* ticks per measurement of an arm */
#define POLL_SEARCH_PROBE_TICKS 12     /* ticks held between probes, at first */
#define POLL_SEARCH_PROBE_TICKS_MAX 96 /* ... doubling after each that found nothing, up to this */
#define POLL_SEARCH_PROBES_MIN 3       /* probes of a neighbour before it may replace the held arm */
#define POLL_SEARCH_MARGIN_Q10 90      /* log2(1 + 1/16) in Q10 (89.6) */
#define POLL_SEARCH_LOOKAHEAD_Q10 360 /* 4 margins (a factor 1.27): the loss to the best an arm
                                        * may show and the climb still try the next */
#define POLL_SEARCH_HOPELESS_Q10 720  /* 2 look-aheads (a factor 1.63): a first tick of an arm
                                        * walked to that loses by more is its measurement */
#define POLL_SEARCH_CHANGE_Q10 1024    /* log2 2 in Q10 */
#define POLL_SEARCH_CHANGE_US 150000u  /* time in a row beyond it that makes a change:
                                        * three 50 ms ticks, one of 500 ms */
#define POLL_SEARCH_ACTIVE 2000u       /* context switches per second below which there is
                                        * nothing to poll for: no polling, no climb, no probe */
#define POLL_SEARCH_SATURATED_US 250000u /* idle CPU-µs a second (halted or polling), all CPUs
                                          * together, below which the machine is saturated */
#define POLL_SEARCH_WAIT_TICKS 4       /* samples in a row under another arm before the one asked for is given up */
#define POLL_SEARCH_P0 1000u           /* context switches per second */
#define POLL_SEARCH_C0 50000u          /* CPU-µs per second: 5% of one CPU */
#define POLL_SEARCH_GROW_START_NS 50000u /* the kernel's guest_halt_poll_grow_start, which the
                                          * daemon leaves as booted: a window no longer than it
                                          * is fragile (climb_step()) */

/* The window of each arm in ns (0: arm 0, no polling, and
 * POLL_SEARCH_ONLY, polling only, which has none). */
extern const uint64_t poll_search_window_ns[POLL_SEARCH_ARMS];

typedef enum PollSearchPhase {
        POLL_SEARCH_IDLE = 0,          /* no sample yet */
        POLL_SEARCH_CLIMB,
        POLL_SEARCH_HOLD,
        POLL_SEARCH_PROBE,
} PollSearchPhase;

/* "idle", "climb", "hold", "probe". */
const char *poll_search_phase_to_string(PollSearchPhase p);

typedef struct PollSearchSample {
        int arm;                       /* the arm in force during the tick, -1 = none of them */
        uint64_t progress;             /* context switches in the tick */
        uint64_t burned_us;            /* CPU-µs not halted, summed over the CPUs */
        uint64_t interval_us;
        bool idle_known;               /* idle_us was measured (false: unknown) */
        uint64_t idle_us;              /* CPU-µs idle, halted (as burned_us counts it) or
                                        * polling, summed over the CPUs */
        /* The idle periods, from the cpuidle counters summed over the CPUs
         * (0 where unknown; a halt's time is counted when it ends): the
         * search reads the halts' mean length under a window (a climb's
         * walk, walk_on()), the rest is for the log: */
        uint64_t polls;                /* entries into the polling state */
        uint64_t polled_us;            /* time in it */
        uint64_t halts;                /* entries into the other states */
        uint64_t halted_us;            /* time in them */
} PollSearchSample;

typedef struct PollSearchProbes {
        unsigned n;                    /* probes of this neighbour since the held arm changed */
        int64_t sum, sum_sq;           /* of U(neighbour) − U(held), Q10 and Q20 */
} PollSearchProbes;

typedef struct PollSearch {
        PollSearchPhase phase;
        unsigned arm;                  /* the arm to run next */
        unsigned best;                 /* the arm held (climb: the best so far) */
        bool fast;                     /* the next tick should be short */
        int64_t utility[POLL_SEARCH_ARMS]; /* Q10, the last measurement, valid where measured[] */
        int64_t log_p[POLL_SEARCH_ARMS]; /* its log2 progress, Q10 (idle(), the hold's mean) */
        bool measured[POLL_SEARCH_ARMS];
        unsigned ticks;                /* ticks into the measurement under way */
        int64_t acc_u, acc_p;          /* their sums */
        unsigned acc_saturated;        /* of them, saturated ones */
        uint64_t acc_polls, acc_halts, acc_halted_us; /* their idle periods */
        bool saturated[POLL_SEARCH_ARMS]; /* every tick of the arm's last measurement was saturated */
        bool outlasted[POLL_SEARCH_ARMS]; /* the arm's halts just outlast its window (outlasts()) */
        int64_t mean_log_p;            /* Q10 running mean of the held arm's log2 progress */
        bool has_mean;
        uint64_t out_of_band_us;       /* time in a row beyond the change threshold */
        uint64_t lost_us;              /* time in a row the held window lost to no polling (window_lost()) */
        unsigned waited;               /* samples in a row not under the arm asked for */
        unsigned held;                 /* ticks held since the last climb or probe */
        unsigned probe_every;          /* ticks between probes now (every climb starts it at
                                        * POLL_SEARCH_PROBE_TICKS) */
        unsigned probe_step;           /* 0 before, 1 under the probed arms, 2 after */
        bool probe_up;                 /* this probe walks upwards */
        unsigned probe_visited;        /* bit a: arm a measured by this probe */
        int64_t probe_ref;             /* the held arm's utility before the probe */
        PollSearchProbes probed[POLL_SEARCH_ARMS]; /* per arm, since the held arm changed */
        unsigned climbs, probes, moves;/* counters, for status */
        uint64_t samples;
        PollSearchSample last;         /* the last sample measured */
} PollSearch;

/* log2(x) in Q10, x >= 1 (0 for x = 0). */
int64_t poll_search_log2_q10(uint64_t x);

/* The utility of a sample under weight (Q10). */
int64_t poll_search_utility(const PollSearchSample *s, unsigned weight);

/* Forgets everything: the next sample starts a climb. */
void poll_search_reset(PollSearch *ps);

/* One tick.  Returns true when the arm to run next changed. */
bool poll_search_step(PollSearch *ps, const PollSearchSample *s, unsigned weight);
