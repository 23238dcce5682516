/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Light ticks: while the machine is quiet, a tick reads proc/stat alone
 * (the machine's context switches and busy time, ProcTotals) instead of
 * every cpuidle counter, proc/interrupts and the policy step.  On an idle
 * machine a full tick costs about 0.3 ms of CPU (bench/daemon-overhead),
 * most of it reading the counters; a light one a read of proc/stat.
 *
 * A tick may be light only when a full one would change nothing:
 *   the machine is quiet since the last reading (light or full):
 *     - under POLL_SEARCH_ACTIVE context switches a second: the poll
 *       search's own line below which there is nothing to poll for (it
 *       holds no polling and is not probed there), and what a program
 *       that starts does at once (every request, wakeup or message it
 *       serves is a switch);
 *     - busy under QUIET_TICK_BUSY_SHARE_Q10 of the machine and
 *       QUIET_TICK_BUSY_CPU_MAX_Q10 of one CPU: a program that computes
 *       without switching (a spinning loop) shows there, not in the
 *       switches;
 *   and the state the last full tick left is settled (QuietTickState):
 *     - it moved no plan and wrote no knob, and nothing moved a plan or
 *       wrote a knob since (a pin, a profile switch, a manual write: the
 *       sampler then wants its full read, and the plan its next step);
 *     - no knob write is pending (enforce mode: a write that failed and
 *       is retried at the next tick, a governor switch the hold keeps
 *       back);
 *     - no CPU's plan holds a wanted move back (hysteresis: it is made at
 *       a later tick), explores (the lifted cap must drop at the next
 *       tick, not after a stretch of light ones) or has the util rule
 *       engaged (it releases on a measured tick only);
 *     - the poll search is not running, or holds no polling, or waited
 *       at its last full tick for an arm
 *       that is not in force (observe mode writes none: nothing moves it
 *       until the knobs do);
 *     - no calibration runs (it reads the counters itself, and the policy
 *       step waits for it);
 *     - sampling works (a failing sample is retried every tick);
 *     - consolidation has no shrink counting down (it counts ticks).
 * And a full tick comes at least every quiet_full_tick_usec all the same
 * (the model learns, the sampler's slow files are read, someone else's
 * knob writes are seen), and at once, in the same wakeup, when the light
 * reading shows activity.
 *
 * The full tick after a stretch of light ones samples the whole stretch:
 * the sampler's rates, the poll search's sample and the model's evidence
 * are deltas over real timestamps (snapshot.h) and take any interval.
 * Two things are per tick, not per second, and so slower in wall time
 * while ticks are light: the model's aging of rows without evidence
 * (2^-g per tick) and the exploration draws (one per CPU per tick).
 *
 * Pure: no clock (the times are arguments), no logging, no paths. */

#include <stdbool.h>
#include <stdint.h>

#include "policy-step.h"
#include "procstat.h"

/* Busy under 10% of the machine: an idle machine here is 0.75% of two
 * CPUs (bench/live's idle program: 0.06 CPU s per 4 s), and proc/stat
 * counts in 10 ms (USER_HZ 100), so that one reading of a 500 ms tick of
 * two CPUs is ±1% of the machine; 10% leaves room for both. */
#define QUIET_TICK_BUSY_SHARE_Q10 102u
/* ... and under half of one CPU whatever the machine's size: then no CPU
 * can be above 50% busy, the lowest util_threshold of the shipped
 * profiles (latency), and a program that keeps one CPU busy is seen on a
 * machine of any size. */
#define QUIET_TICK_BUSY_CPU_MAX_Q10 512u
/* Busy is told only over at least this many jiffies per CPU (200 ms at
 * USER_HZ 100): a reading is then within one jiffy per CPU, 5% of it,
 * half the 10% bound.  A shorter one -- the tick 50 ms after an exec wake
 * -- is one jiffy from 10% busy: a program's start-up (loading, linking,
 * an interpreter's imports) reads as busy there, and a full tick taken
 * for it samples the whole quiet stretch before it, where the util rule
 * sees nothing.  Such a reading that switches under POLL_SEARCH_ACTIVE
 * is QUIET_TICK_TOO_SHORT: the tick is light, its reading is not the next
 * one's reference, and the next tick comes as soon as the reference is
 * long enough (QUIET_TICK_JUDGE_USEC), where the machine is judged over
 * both. */
#define QUIET_TICK_BUSY_MIN_JIFFIES 20u
/* proc/stat's unit: USER_HZ is 100 on every architecture this daemon is
 * built for. */
#define QUIET_TICK_JIFFY_USEC 10000u

/* The tick after one too short to tell (QUIET_TICK_TOO_SHORT) comes when
 * its reference reading spans QUIET_TICK_BUSY_MIN_JIFFIES and one more
 * (a reading's jiffies lag the clock by up to one): 210 ms after it, not
 * at the normal pace.  That reference is the exec wake's reading, so the
 * tick that judges a program's start comes 210 ms after its exec rather
 * than the check's 50 ms plus a tick.  In bench/live, pgbench, one client,
 * began its measured window 0.25-0.3 s after the exec that woke the
 * daemon; the judging tick came 0.55 s after the exec, and the poll
 * search's climb started there, 0.3 s into the 4 s run.  Its sample, 0.9 s
 * at 0.91-0.93 CPU with 11000-12600 switches a second, puts about one
 * CPU busy from the exec on, enough to start a follow at 210 ms
 * (bench/live --logs, timestamped: bench/results/live-judge-tick).  A
 * quiet machine pays the same two ticks per exec as before, the check and
 * the judge.  The judge holds a start-up to the bar of the tick it
 * replaces, not to its own: busy means 10% of the machine (or half a CPU)
 * over the normal tick, however soon it looks (QuietTickState.
 * busy_span_usec, the tick).  Over its own 210 ms, an interpreter's
 * start-up alone is busy: bench/live's idle runner, python, burns 33-47 ms
 * of CPU in its first 210 ms (read by hand from its /proc/PID/schedstat),
 * the 10% of two CPUs there; every such exec then cost a full tick after
 * a long quiet stretch and a follow's ticks (a first version of this
 * judge, not kept: own CPU 1.16 ms per 4 s idle run against 0.85, 8
 * rounds).  pgbench's start kept a CPU busy (1.02-1.04 CPU over its first
 * 240-375 ms, 8 starts of 8: bench/results/live-judge-tick/logs), five
 * times the tick's 10%.  What an earlier judge misses:
 * a program quiet (blocked, not busy) for its first 210 ms and working
 * after, which the judge at 0.55 s saw when it started by then; it is now
 * seen at the next long tick, as a program that gets busy without an exec
 * always was.  Returns the
 * interval from a tick since_reference_usec after the reference to the
 * judging one, 0 when that is already past (the normal pace then). */
#define QUIET_TICK_JUDGE_USEC ((QUIET_TICK_BUSY_MIN_JIFFIES + 1u) * QUIET_TICK_JIFFY_USEC)

uint64_t quiet_tick_judge_in_usec(uint64_t since_reference_usec);

/* What the policy looked like, to tell whether it moved: a hash of every
 * CPU's plan in force and the machine's decisions (quiet_tick_mark()). */
typedef struct QuietTickMark {
        uint64_t plan;               /* the hash */
        uint64_t search_samples;     /* the poll search's samples measured */
} QuietTickMark;

/* What the caller knows besides the policy step. */
typedef struct QuietTickState {
        uint64_t quiet_full_tick_usec;    /* 0: every tick is full */
        uint64_t since_full_usec;         /* since the last full tick */
        QuietTickMark full_before;        /* the policy before the last full tick's step */
        QuietTickMark full_after;         /* ... and after it */
        bool knobs_written;               /* a knob was written since the last full tick
                                           * began (by the plan or anyone else) */
        bool write_pending;               /* enforce: a knob the plan wants is not written yet */
        bool calibrating;
        bool sampling_failing;
        bool has_rates;                   /* the policy has had a step with rates */
        bool consolidation_pending;       /* consolidation counts ticks towards a shrink */
        unsigned n_online;                /* online CPUs: what proc/stat's "cpu" line sums */
        uint64_t busy_span_usec;          /* the span a reading's busy time is judged over where
                                           * it is shorter (QUIET_TICK_JUDGE_USEC); 0: its own */
} QuietTickState;

typedef enum QuietTickVerdict {
        QUIET_TICK_LIGHT = 0,        /* quiet and settled: a light tick */
        QUIET_TICK_OFF,              /* quiet_full_tick_usec 0 */
        QUIET_TICK_DUE,              /* quiet_full_tick_usec since the last full tick */
        QUIET_TICK_UNSETTLED,        /* the state asks for full ticks */
        QUIET_TICK_NO_READING,       /* no two readings of proc/stat to compare */
        QUIET_TICK_SWITCHING,        /* context switches at or above POLL_SEARCH_ACTIVE a second */
        QUIET_TICK_BUSY,             /* busy at or above the bound */
        QUIET_TICK_TOO_SHORT,        /* not switching, too short to tell busy: light, judged
                                      * again at the normal pace from the same reference */
        QUIET_TICK_HOTPLUG,          /* proc/stat lists other CPUs than the online ones the
                                      * daemon knows (procstat_parse_online()): a CPU came or
                                      * went; the full tick reads the online file */
        _QUIET_TICK_VERDICT_MAX,
} QuietTickVerdict;

/* "light", "off", "due", "unsettled", "no reading", "switching", "busy",
 * "too short", "hotplug". */
const char *quiet_tick_verdict_to_string(QuietTickVerdict v);

/* The mark of l now. */
QuietTickMark quiet_tick_mark(const PolicyStep *l);

/* Whether the policy step l is settled (the CPUs' plans and the poll
 * search, as above); before and after are the marks around the last
 * full tick's step. */
bool quiet_tick_policy_settled(const PolicyStep *l, const QuietTickMark *before, const QuietTickMark *after);

/* Whether the machine was quiet from before to now, interval_us apart,
 * with n_online CPUs: QUIET_TICK_LIGHT, or NO_READING, SWITCHING, BUSY or
 * TOO_SHORT.  Busy is the busy time over the reading's span or
 * busy_span_usec, whichever is longer (0: the reading's own;
 * QuietTickState.busy_span_usec). */
QuietTickVerdict quiet_tick_machine(const ProcTotals *before, const ProcTotals *now, uint64_t interval_us,
                                    unsigned n_online, uint64_t busy_span_usec);

/* Whether the state st and the policy step l are settled: the
 * UNSETTLED part of quiet_tick_decide(), asked also right after a full
 * tick (by the clock) to tell whether the quiet stretch goes on. */
bool quiet_tick_settled(const QuietTickState *st, const PolicyStep *l);

/* Why they are not (the first reason found: "a knob was written", "the
 * plan moved", "a CPU's move is held back", "the poll search steps",
 * ...), NULL when they are: what the caller logs for a full tick that the
 * state asked for. */
const char *quiet_tick_unsettled(const QuietTickState *st, const PolicyStep *l);

/* The tick to take now: QUIET_TICK_LIGHT, or why it is full.  before is
 * the previous reading of proc/stat (light or full), now this tick's,
 * interval_us between them. */
QuietTickVerdict quiet_tick_decide(const QuietTickState *st, const PolicyStep *l, const ProcTotals *before,
                                   const ProcTotals *now, uint64_t interval_us);

/* Long ticks while quiet.  A light tick still wakes the daemon: on an
 * idle 2-CPU KVM guest one costs about 0.13 ms of CPU (the timer, the
 * wakeup and a read of proc/stat, bench/daemon-overhead), 2.6% of what
 * the whole idle machine burns at a 500 ms tick (bench/results/
 * live-idle-8.md).  So once QUIET_TICK_STRETCH_AFTER tick(s) in a row found
 * the machine quiet and the state settled, the next tick comes
 * quiet_tick_usec later instead of a tick later -- but only where the
 * caller is woken when a process starts (an exec: the proc connector),
 * since a program that starts is what ends a quiet stretch.  The wake
 * takes a reading of proc/stat at once (the next tick measures from the
 * program's start, not diluted over the long tick) and brings the tick
 * back at once: that tick is the check, and finding the machine quiet
 * again it lets the next one be long.  One tick, not two: bench/live
 * starts a program (an exec) every run, and each wake's ticks at the
 * normal pace were most of the daemon's 1.07 ms per 4 s idle run with
 * two (bench/results/live-idle-ab-8.md).  What the
 * long tick delays: a program already running that gets busy without an
 * exec (a server whose load comes over the network) is seen at most
 * quiet_tick_usec later, where it was a tick. */
#define QUIET_TICK_STRETCH_AFTER 1u

typedef struct QuietTickPace {
        uint64_t tick_usec;               /* the next tick otherwise (the poll search's short
                                           * one while it climbs or probes) */
        uint64_t quiet_tick_usec;         /* the long tick's base; 0: none */
        uint64_t long_tick_usec;          /* the long tick now (quiet_tick_long_period()); under
                                           * quiet_tick_usec: quiet_tick_usec */
        uint64_t quiet_full_tick_usec;    /* 0: no light ticks, so no long ones */
        uint64_t since_full_usec;         /* from the last full tick's start to now */
        unsigned quiet_run;               /* ticks in a row, this one included, that were light,
                                           * or full by the clock and settled after */
        bool wakeable;                    /* an exec wakes the caller */
        bool following;                   /* a program's start is followed (quiet_tick_follows()) */
        uint64_t follow_tick_usec;        /* ... at this pace (0: none, the poll search does not
                                           * wait for a program) */
        uint64_t judge_in_usec;           /* after a tick too short to tell: the interval to the one
                                           * that judges (quiet_tick_judge_in_usec()), 0: none */
} QuietTickPace;

/* The full tick by the clock backs off while nothing happens.  A quiet
 * machine's full tick is most of what the daemon costs idle: one every
 * quiet_full_tick_usec (4 s) and a light one at each long tick came to
 * 0.259 ms of CPU a second, 1.04 ms per 4 s (bench/daemon-overhead,
 * bench/results/overhead-backoff), where bench/live's idle program burns
 * 0.05 CPU s per 4 s, whose 2% is 1 ms.  So where the caller takes long
 * ticks (an exec wakes it: a program that starts is seen at once, not at
 * a full tick), each full tick by the clock that
 * left the state settled doubles the period to the next one, up to
 * QUIET_TICK_FULL_BACKOFF times quiet_full_tick_usec; a full tick by the
 * clock that found something to do brings it back to quiet_full_tick_usec,
 * and every other tick keeps it.  A program that runs between keeps it
 * too: its ticks are full ones (busy, switching, then unsettled while the
 * plan comes back), and the clock counts from the last of them, so the
 * quiet machine after it is looked at as often as before it.  Bringing
 * the period back at every such tick put a full tick by the clock 4 s
 * after every program that ran: in bench/live, inside each idle run that
 * followed one (bench/results/live-idle-backoff).  What the longer
 * period delays on a quiet machine: someone else's knob write, and the
 * slow files, are seen up to 16 s later instead of 4 s. */
#define QUIET_TICK_FULL_BACKOFF 4u

/* The period of the full tick by the clock after a tick with verdict v
 * (settled: the state after it, for QUIET_TICK_DUE), from period_usec;
 * base_usec is quiet_full_tick_usec (0: no light ticks), wakeable
 * whether an exec wakes the caller and long ticks are taken. */
uint64_t quiet_tick_full_period(uint64_t base_usec, uint64_t period_usec, QuietTickVerdict v, bool settled,
                                bool wakeable);

/* The long tick backs off too.  Once the full tick by the clock has
 * backed off, the light tick at each long one is most of what a quiet
 * machine costs: each wakeup of the daemon costs about 0.36 ms of CPU on
 * an idle 2-CPU KVM guest whatever it reads (bench/daemon-overhead at 2 s
 * long ticks: 24 ticks in 48 s, 21 of them light;
 * bench/results/overhead-long-backoff), and the whole idle machine burns
 * 0.05 CPU s in 4 (bench/live's
 * idle program), whose 2% is 1 ms.  So each light tick doubles the long
 * tick, up to QUIET_TICK_LONG_BACKOFF times quiet_tick_usec; a tick too
 * short to tell, or a full one by the clock that left the state settled,
 * keeps it; any other tick (switching, busy, unsettled, no reading)
 * brings it back to quiet_tick_usec.  An exec wake keeps it as well: its
 * check tick judges the machine, and an exec of a program that leaves
 * the machine quiet (a cron job, a monitoring probe, a runner's start)
 * costs the check tick alone.  What the longer tick delays: a program
 * already running that gets busy without an exec is seen up to 8 s later
 * (quiet_tick_usec 2 s) where it was 2 s. */
#define QUIET_TICK_LONG_BACKOFF 4u

/* The long tick after a tick with verdict v (settled: the state after it,
 * for QUIET_TICK_DUE), from period_usec; base_usec is quiet_tick_usec
 * (0: none). */
uint64_t quiet_tick_long_period(uint64_t base_usec, uint64_t period_usec, QuietTickVerdict v, bool settled);

/* Following a program's start.  An exec that cuts a long tick short is
 * often a program on its way up: loading, connecting, warming up, busy
 * without switching, before the work it serves.  pgbench, one client,
 * in every balanced round of bench/results/live-frontier-v8-logs: the
 * tick at the normal pace after the exec's found the machine busy (0.93
 * CPU) and switching 640-1300 times a second, the next one 27000-32000;
 * the poll search saw the program up to a tick after it started, and
 * its climb began there: 27-36% of a 4 s run without polling where a
 * fixed window polled from the program's start.  So a tick within
 * QUIET_TICK_FOLLOW_USEC of an exec wake that finds the machine
 * switching or busy starts a follow, and while its ticks are not light
 * (nor past that time) the next comes at the follow pace, the poll
 * search's short tick.  A follow tick too short to tell busy reads
 * proc/stat alone (QUIET_TICK_TOO_SHORT); one that finds the machine
 * switching is full at once, in the same wakeup.  An exec whose check
 * tick finds the machine quiet (light, or too short) starts none: an
 * idle machine pays the check tick alone, as before.  2 s: pgbench's
 * work began 0.6-1.0 s after the first exec there (a runner, then the
 * client, which connects); a follow costs about 3 ms of CPU a second
 * (a full tick every 200 ms where busy takes one every tick, and light
 * ones between).  Whether the tick
 * after one with verdict v follows, following whether this one did,
 * since_wake_usec after the exec wake (UINT64_MAX: none). */
#define QUIET_TICK_FOLLOW_USEC 2000000u

bool quiet_tick_follows(bool following, QuietTickVerdict v, uint64_t since_wake_usec);

/* The interval to the next tick: the follow pace while following, when
 * it is shorter than tick_usec; else judge_in_usec where that is shorter
 * than tick_usec; else tick_usec, or the long tick
 * (long_tick_usec, at least quiet_tick_usec) when the
 * run is long enough, an exec wakes the caller and quiet_tick_usec is
 * longer than tick_usec.  The long tick does not pass the full tick
 * that falls due (quiet_full_tick_usec after the last), unless that is
 * nearer than tick_usec. */
uint64_t quiet_tick_next_usec(const QuietTickPace *p);

/* Whether the quiet stretch allows long ticks at all (the run long
 * enough, an exec wakes the caller, a long tick longer than the tick),
 * whatever the next interval: the caller keeps its exec wake armed over
 * the short interval before a full tick that falls due, rather than
 * closing and opening the proc connector around it (a socket, its
 * subscription and its end: 17 system calls twice per quiet_full_tick_usec
 * on an idle machine). */
bool quiet_tick_stretching(const QuietTickPace *p);
