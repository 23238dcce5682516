/* SPDX-License-Identifier: GPL-2.0-only OR LGPL-2.1-or-later */
/*
 * wteo-core.h - the per-entry choice of the wteo cpuidle governor: one
 * header for the kernel governor (drivers/cpuidle/governors/), the
 * idlepolicy library and its simulator, so that the three run the same
 * arithmetic.  Integer only, no libc, no allocation, no floating point, no
 * division on the idle path (one in wteo_set_tolerance()); O(n) per call in
 * the number of states.
 *
 * Per CPU, two n x n matrices, both indexed by the row s of the entry: the
 * deepest state whose target residency the time to the next timer reached.
 *
 *   W[s][j]  the weighted history, in 1/1024 parts: after an entry in row
 *            s, how often state j was the right one (the deepest enabled
 *            state whose target residency the measured idle time reached).
 *            Every row sums to WTEO_ONE.  What a human (and the daemon's
 *            `weights`) reads.
 *     prior  60% on the diagonal, 40% spread evenly over the other states
 *            (the weighted-TEO RFC's prior); one state: all of it;
 *     learn  after a wakeup, every other weight of row s gives up
 *            w >> learn_shift and the right state gets what they gave: the
 *            row stays a distribution exactly.  A weight below
 *            2^learn_shift gives nothing: the clamp that keeps every state
 *            a little weight (the RFC clamped at [LR, 100 - LR]%);
 *     age    after every wakeup one row, in turn, moves (prior - w) >>
 *            age_shift toward the prior (the diagonal takes the rounding).
 *
 *   C[s][j]  what entering j cost, on average, after entries in row s, and
 *            T[s] what teo's own choice cost there.  After a wakeup the
 *            governor knows the idle time d, so it knows what *every*
 *            state would have cost (full information: nothing has to be
 *            tried to be learned); each C[s][j] and T[s] moves 1/2^learn_shift
 *            of the way to it (an average that forgets: aging).
 *     cost   of state j for an idle time d:  E[j] + P[j] * d  (energy)
 *            plus, for a wakeup that was not the timer's, price * exit
 *            latency of j.  The energy model needs only what the driver
 *            advertises: each state draws half the power of the next
 *            shallower one (P[0] = WTEO_ONE) and a state's target residency
 *            is its break-even with that one, so
 *            E[j] = E[j-1] + (P[j-1] - P[j]) * target_residency[j].
 *            With a zero price, the choice between two neighbours depends
 *            only on the mean idle time against the deeper one's target
 *            residency, whatever the real power ratio.  Time in units of
 *            1024 ns, capped at 2^20 units; costs saturate at U32_MAX.
 *     price  of a microsecond of exit latency, in P[0] per 1/1024: from
 *            the CPU's tolerance, price = WTEO_ONE * WTEO_TOLERANCE_DEFAULT
 *            / tolerance: the default tolerance prices a microsecond of
 *            wakeup latency like a microsecond at the shallowest state's
 *            power; a lower tolerance (a latency-bound CPU) prices it
 *            higher, a higher one lower.
 *
 *   select   given teo's choice c and the deepest state the timer and the
 *            latency limit allow (fit >= c), the enabled state j <= fit with
 *            the least C[s][j], if it cost less than teo's choice did in
 *            this row (T[s]); teo's choice otherwise, and while row s has
 *            seen no wakeup.  So per row wteo is never expected to do worse
 *            than teo.  One entry in 2^explore_shift takes teo's choice as
 *            it is (explore_shift 0: never).
 *
 * The caller owns the state indices: s, c, fit, right and teo below n, and
 * enabled is a bit mask of the states that may be entered (bit j for state
 * j; states at or above n are ignored).  The states' costs are set with
 * wteo_set_state() after wteo_init(), in order from the shallowest.
 */
#ifndef WTEO_CORE_H
#define WTEO_CORE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
#endif

#define WTEO_STATES_MAX 10              /* CPUIDLE_STATE_MAX */
#define WTEO_ONE 1024u                  /* a row's sum: 1/1024 parts */
#define WTEO_PRIOR_SELF 614u            /* 60% of WTEO_ONE, rounded down */

#define WTEO_LEARN_SHIFT_DEFAULT 4u     /* a wakeup moves 1/16 of the way */
#define WTEO_AGE_SHIFT_DEFAULT 6u       /* a row's turn moves 1/64 of the way to the prior */
#define WTEO_EXPLORE_SHIFT_DEFAULT 0u   /* never take teo's choice as it is */
#define WTEO_TOLERANCE_DEFAULT 102u     /* a us of exit latency = a us at P[0] */
#define WTEO_SHIFT_MAX 15u
#define WTEO_TIME_SHIFT 10u             /* time unit: 1024 ns */
#define WTEO_TIME_MAX (1u << 20)        /* about a second, in time units */
#define WTEO_COST_MAX 0xffffffffu

struct wteo_params {
	u32 learn_shift;                /* 1..WTEO_SHIFT_MAX */
	u32 age_shift;                  /* 1..WTEO_SHIFT_MAX */
	u32 explore_shift;              /* 0 (off)..WTEO_SHIFT_MAX */
};

struct wteo_cpu {
	u16 w[WTEO_STATES_MAX][WTEO_STATES_MAX];
	u32 cost[WTEO_STATES_MAX][WTEO_STATES_MAX];  /* C[s][j] */
	u32 teo_cost[WTEO_STATES_MAX];  /* T[s] */
	u32 energy[WTEO_STATES_MAX];    /* E[j]: entering and leaving j */
	u32 exit[WTEO_STATES_MAX];      /* exit latency of j, time units */
	u32 latency[WTEO_STATES_MAX];   /* price * exit[j], saturated */
	u32 n;                          /* states, 1..WTEO_STATES_MAX */
	u32 prior_self, prior_other;    /* wteo_prior() of this n, kept */
	u32 tolerance;                  /* 0..WTEO_ONE, see price */
	u32 price;                      /* of a time unit of exit latency */
	u32 rows_seen;                  /* bit s: row s has costs */
	u32 age_next;                   /* the row aged at the next wakeup */
	u32 entries;                    /* selections so far (exploration) */
};

static inline void wteo_params_default(struct wteo_params *p)
{
	p->learn_shift = WTEO_LEARN_SHIFT_DEFAULT;
	p->age_shift = WTEO_AGE_SHIFT_DEFAULT;
	p->explore_shift = WTEO_EXPLORE_SHIFT_DEFAULT;
}

/* Whether every shift is in range. */
static inline bool wteo_params_valid(const struct wteo_params *p)
{
	return p->learn_shift >= 1 && p->learn_shift <= WTEO_SHIFT_MAX &&
	       p->age_shift >= 1 && p->age_shift <= WTEO_SHIFT_MAX &&
	       p->explore_shift <= WTEO_SHIFT_MAX;
}

/* The prior weight of state j in row s of an n-state matrix. */
static inline u32 wteo_prior(u32 n, u32 s, u32 j)
{
	u32 spread;

	if (n <= 1)
		return WTEO_ONE;
	spread = (WTEO_ONE - WTEO_PRIOR_SELF) / (n - 1);
	return j == s ? WTEO_ONE - spread * (n - 1) : spread;
}

/* The modelled power of state j, in 1/1024 of the shallowest state's. */
static inline u32 wteo_power(u32 j)
{
	return WTEO_ONE >> j;
}

static inline u32 wteo_saturate(u64 v)
{
	return v > WTEO_COST_MAX ? WTEO_COST_MAX : (u32)v;
}

/* A duration in ns as time units, capped at WTEO_TIME_MAX. */
static inline u32 wteo_time(u64 ns)
{
	u64 t = ns >> WTEO_TIME_SHIFT;

	return t > WTEO_TIME_MAX ? WTEO_TIME_MAX : (u32)t;
}

/* Sets the CPU's tolerance (clamped to 0..WTEO_ONE) and with it the price
 * of exit latency: WTEO_ONE * WTEO_TOLERANCE_DEFAULT / tolerance per time
 * unit (tolerance 0 prices it as 1). */
static inline void wteo_set_tolerance(struct wteo_cpu *cpu, u32 tolerance)
{
	u32 j;

	if (tolerance > WTEO_ONE)
		tolerance = WTEO_ONE;
	cpu->tolerance = tolerance;
	cpu->price = WTEO_ONE * WTEO_TOLERANCE_DEFAULT / (tolerance ? tolerance : 1);
	for (j = 0; j < WTEO_STATES_MAX; j++)
		cpu->latency[j] = wteo_saturate((u64)cpu->price * cpu->exit[j]);
}

/* Sets cpu to the prior of an n-state table (n clamped to 1..MAX), no
 * costs learned, every state free (call wteo_set_state() for each). */
static inline void wteo_init(struct wteo_cpu *cpu, u32 n, u32 tolerance)
{
	u32 s, j;

	if (n < 1)
		n = 1;
	if (n > WTEO_STATES_MAX)
		n = WTEO_STATES_MAX;
	cpu->n = n;
	cpu->prior_self = wteo_prior(n, 0, 0);
	cpu->prior_other = wteo_prior(n, 0, 1);
	cpu->rows_seen = 0;
	cpu->age_next = 0;
	cpu->entries = 0;
	for (s = 0; s < WTEO_STATES_MAX; s++) {
		for (j = 0; j < WTEO_STATES_MAX; j++) {
			cpu->w[s][j] = s < n && j < n ? (u16)wteo_prior(n, s, j) : 0;
			cpu->cost[s][j] = 0;
		}
		cpu->teo_cost[s] = 0;
		cpu->energy[s] = 0;
		cpu->exit[s] = 0;
	}
	wteo_set_tolerance(cpu, tolerance);
}

/* State j's advertised target residency and exit latency; states are set
 * in order, j = 0 first (E[j] builds on E[j - 1]). */
static inline void wteo_set_state(struct wteo_cpu *cpu, u32 j, u64 target_residency_ns, u64 exit_latency_ns)
{
	if (j >= cpu->n)
		return;
	cpu->exit[j] = wteo_time(exit_latency_ns);
	cpu->latency[j] = wteo_saturate((u64)cpu->price * cpu->exit[j]);
	cpu->energy[j] = j == 0 ? 0 : cpu->energy[j - 1] +
		(wteo_power(j - 1) - wteo_power(j)) * wteo_time(target_residency_ns);
}

/* What entering j cost for an idle time of t time units; non_timer: the
 * wakeup was not the timer's (it pays the exit latency). */
static inline u32 wteo_cost(const struct wteo_cpu *cpu, u32 j, u32 t, bool non_timer)
{
	u64 c = (u64)cpu->energy[j] + (u64)wteo_power(j) * t;

	if (non_timer)
		c += cpu->latency[j];
	return wteo_saturate(c);
}

/* Moves *avg 1/2^shift of the way to v. */
static inline void wteo_average(u32 *avg, u32 v, u32 shift)
{
	if (v >= *avg)
		*avg += (v - *avg) >> shift;
	else
		*avg -= (*avg - v) >> shift;
}

/* Row s learns that right was the right state. */
static inline void wteo_learn(struct wteo_cpu *cpu, u32 s, u32 right, u32 learn_shift)
{
	u16 *row = cpu->w[s];
	u32 moved = 0, j;

	for (j = 0; j < cpu->n; j++) {
		u32 d;

		if (j == right)
			continue;
		d = (u32)row[j] >> learn_shift;
		row[j] = (u16)(row[j] - d);
		moved += d;
	}
	row[right] = (u16)(row[right] + moved);
}

/* Moves row s toward the prior; the diagonal absorbs the rounding so that
 * the row keeps its sum. */
static inline void wteo_age_row(struct wteo_cpu *cpu, u32 s, u32 age_shift)
{
	u16 *row = cpu->w[s];
	u32 sum = 0, j;

	for (j = 0; j < cpu->n; j++) {
		s32 diff = (s32)(j == s ? cpu->prior_self : cpu->prior_other) - (s32)row[j];

		/* Symmetric rounding toward zero: no drift from shifting a
		 * negative number. */
		diff = diff >= 0 ? diff >> age_shift : -((-diff) >> age_shift);
		row[j] = (u16)((s32)row[j] + diff);
		if (j != s)
			sum += row[j];
	}
	row[s] = (u16)(WTEO_ONE - sum);
}

/* Row s's costs learn an idle time of idle_ns after which teo's choice was
 * teo; the first wakeup of a row sets them. */
static inline void wteo_learn_costs(struct wteo_cpu *cpu, u32 s, u32 teo, u64 idle_ns, bool non_timer,
				    u32 learn_shift)
{
	u32 t = wteo_time(idle_ns), j;
	u32 *row = cpu->cost[s];

	if (!(cpu->rows_seen & (1u << s))) {
		for (j = 0; j < cpu->n; j++)
			row[j] = wteo_cost(cpu, j, t, non_timer);
		cpu->teo_cost[s] = row[teo];
		cpu->rows_seen |= 1u << s;
		return;
	}
	wteo_average(&cpu->teo_cost[s], wteo_cost(cpu, teo, t, non_timer), learn_shift);
	for (j = 0; j < cpu->n; j++)
		wteo_average(&row[j], wteo_cost(cpu, j, t, non_timer), learn_shift);
}

/* After a wakeup: row s (the timer's state at entry) learns right (the
 * state the measured idle time called for) and what every state would
 * have cost for idle_ns (the measured idle time, at most the time to the
 * timer; non_timer: it ended before the timer) against teo's choice teo;
 * one row of W ages. */
static inline void wteo_reflect(struct wteo_cpu *cpu, const struct wteo_params *p, u32 s, u32 right,
				u32 teo, u64 idle_ns, bool non_timer)
{
	if (s >= cpu->n || right >= cpu->n || teo >= cpu->n)
		return;
	wteo_learn(cpu, s, right, p->learn_shift);
	wteo_learn_costs(cpu, s, teo, idle_ns, non_timer, p->learn_shift);
	wteo_age_row(cpu, cpu->age_next, p->age_shift);
	cpu->age_next = cpu->age_next + 1 >= cpu->n ? 0 : cpu->age_next + 1;
}

/* The state to enter after teo chose c, in row s, with fit the deepest
 * state the timer and the latency limit allow.  Returns c when no enabled
 * state at or below fit costs less than c did. */
static inline u32 wteo_select(struct wteo_cpu *cpu, const struct wteo_params *p, u32 s, u32 c, u32 fit,
			      u32 enabled)
{
	const u32 *row;
	u32 best = WTEO_STATES_MAX, j;

	if (s >= cpu->n)
		s = cpu->n - 1;
	if (c >= cpu->n)
		c = cpu->n - 1;
	if (fit >= cpu->n)
		fit = cpu->n - 1;
	cpu->entries++;
	if (p->explore_shift && (cpu->entries & ((1u << p->explore_shift) - 1)) == 0)
		return c;
	if (!(cpu->rows_seen & (1u << s)))
		return c;
	row = cpu->cost[s];
	for (j = 0; j <= fit; j++)
		if (((enabled >> j) & 1u) && (best == WTEO_STATES_MAX || row[j] < row[best]))
			best = j;
	return best != WTEO_STATES_MAX && row[best] < cpu->teo_cost[s] ? best : c;
}

#endif /* WTEO_CORE_H */
