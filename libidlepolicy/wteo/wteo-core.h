/* SPDX-License-Identifier: GPL-2.0-only OR LGPL-2.1-or-later */
/*
 * wteo-core.h - the weighted-history choice of the wteo cpuidle governor:
 * one header for the kernel governor (drivers/cpuidle/governors/), the
 * idlepolicy library and its simulator, so that the three run the same
 * arithmetic.  Integer only, no libc, no allocation, no floating point,
 * no division but by constants that are powers of two; O(n) per call in the
 * number of states.
 *
 * Per CPU, an n x n matrix W in 1/1024 parts: row s is "when the time to
 * the next timer pointed at state s, how often state j was the right one"
 * (the deepest enabled state whose target residency the measured idle time
 * reached).  Every row sums to WTEO_ONE.
 *
 *   prior    60% on the diagonal, 40% spread evenly over the other states
 *            (the weighted-TEO RFC's prior); one state: all of it;
 *   learn    after a wakeup, every other weight of row s gives up
 *            w >> learn_shift, and the right state gets what they gave: the
 *            row stays a distribution exactly.  A weight below
 *            2^learn_shift gives nothing: that is the clamp that keeps every
 *            state a little weight (the RFC clamped at [LR, 100 - LR]%);
 *   age      after every wakeup one row, in turn, moves (prior - w) >>
 *            age_shift toward the prior (the diagonal takes the rounding):
 *            a row nobody visits forgets its history, so a workload that
 *            changed is not judged by the old one (the RFC's review asked
 *            for aging);
 *   select   given teo's candidate c and the timer's row s, the deepest
 *            enabled state j <= c whose risk of being too deep, the weight
 *            of row s on states shallower than j, stays within the CPU's
 *            tolerance; the shallowest enabled state when none does.  One
 *            entry in 2^explore_shift takes teo's candidate as it is
 *            (explore_shift 0: never).
 *
 * The caller owns the state indices: s, c and right must be below n, and
 * enabled is a bit mask of the states that may be entered (bit j for state
 * j; states at or above n are ignored).
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
#endif

#define WTEO_STATES_MAX 10              /* CPUIDLE_STATE_MAX */
#define WTEO_ONE 1024u                  /* a row's sum: 1/1024 parts */
#define WTEO_PRIOR_SELF 614u            /* 60% of WTEO_ONE, rounded down */

#define WTEO_LEARN_SHIFT_DEFAULT 4u     /* a wakeup moves 1/16 of every other weight */
#define WTEO_AGE_SHIFT_DEFAULT 6u       /* a row's turn moves 1/64 of the way to the prior */
#define WTEO_EXPLORE_SHIFT_DEFAULT 0u   /* never take teo's candidate as it is */
#define WTEO_TOLERANCE_DEFAULT 102u     /* 10% risk of too deep */
#define WTEO_SHIFT_MAX 15u

struct wteo_params {
	u32 learn_shift;                /* 1..WTEO_SHIFT_MAX */
	u32 age_shift;                  /* 1..WTEO_SHIFT_MAX */
	u32 explore_shift;              /* 0 (off)..WTEO_SHIFT_MAX */
};

struct wteo_cpu {
	u16 w[WTEO_STATES_MAX][WTEO_STATES_MAX];
	u32 n;                          /* states, 1..WTEO_STATES_MAX */
	u32 tolerance;                  /* accepted risk of too deep, 0..WTEO_ONE */
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

/* Sets cpu to the prior of an n-state table (n clamped to 1..MAX). */
static inline void wteo_init(struct wteo_cpu *cpu, u32 n, u32 tolerance)
{
	u32 s, j;

	if (n < 1)
		n = 1;
	if (n > WTEO_STATES_MAX)
		n = WTEO_STATES_MAX;
	cpu->n = n;
	cpu->tolerance = tolerance > WTEO_ONE ? WTEO_ONE : tolerance;
	cpu->age_next = 0;
	cpu->entries = 0;
	for (s = 0; s < WTEO_STATES_MAX; s++)
		for (j = 0; j < WTEO_STATES_MAX; j++)
			cpu->w[s][j] = s < n && j < n ? (u16)wteo_prior(n, s, j) : 0;
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
		s32 diff = (s32)wteo_prior(cpu->n, s, j) - (s32)row[j];

		/* Symmetric rounding toward zero: no drift from shifting a
		 * negative number. */
		diff = diff >= 0 ? diff >> age_shift : -((-diff) >> age_shift);
		row[j] = (u16)((s32)row[j] + diff);
		if (j != s)
			sum += row[j];
	}
	row[s] = (u16)(WTEO_ONE - sum);
}

/* After a wakeup: row s (the timer's state at entry) learns right (the
 * state the measured idle time called for), and one row ages. */
static inline void wteo_reflect(struct wteo_cpu *cpu, const struct wteo_params *p, u32 s, u32 right)
{
	if (s >= cpu->n || right >= cpu->n)
		return;
	wteo_learn(cpu, s, right, p->learn_shift);
	wteo_age_row(cpu, cpu->age_next, p->age_shift);
	cpu->age_next = cpu->age_next + 1 >= cpu->n ? 0 : cpu->age_next + 1;
}

/* The state to enter: at or below teo's candidate c, by row s.  Returns c
 * if no enabled state is at or below it. */
static inline u32 wteo_select(struct wteo_cpu *cpu, const struct wteo_params *p, u32 s, u32 c, u32 enabled)
{
	const u16 *row;
	u32 risk = 0, best = WTEO_STATES_MAX, j;

	if (s >= cpu->n)
		s = cpu->n - 1;
	if (c >= cpu->n)
		c = cpu->n - 1;
	cpu->entries++;
	if (p->explore_shift && (cpu->entries & ((1u << p->explore_shift) - 1)) == 0)
		return c;
	row = cpu->w[s];
	for (j = 0; j <= c; j++) {
		if ((enabled >> j) & 1u) {
			if (best == WTEO_STATES_MAX || risk <= cpu->tolerance)
				best = j;
			else
				break;
		}
		risk += row[j];
	}
	return best == WTEO_STATES_MAX ? c : best;
}

#endif /* WTEO_CORE_H */
