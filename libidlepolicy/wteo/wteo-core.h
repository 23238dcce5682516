/* SPDX-License-Identifier: GPL-2.0-only OR LGPL-2.1-or-later */
/*
 * wteo-core.h - the per-entry choice of the wteo cpuidle governor: one
 * header for the kernel governor (drivers/cpuidle/governors/), the
 * idlepolicy library and its simulator, so that the three run the same
 * arithmetic.  Integer only, no libc, no allocation, no floating point, no
 * division on the idle path (one in wteo_set_tolerance()); O(n) per call in
 * the number of states.
 *
 * Per CPU:
 *
 *   W[s][j]  the weighted history, in 1/1024 parts: after an entry whose
 *            timer pointed at state s (the deepest state whose target
 *            residency the time to the next timer reached), how often
 *            state j was the right one (the deepest enabled state whose
 *            target residency the measured idle time reached).  Every row
 *            sums to WTEO_ONE.  What a human (and the daemon's `weights`)
 *            reads; the choice does not depend on it.
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
 *   R[r]     what the entries of row r were followed by, for the choice.
 *            The row is the pair (the time to the next timer in half
 *            octaves, the right state of the CPU's last idle period): the
 *            time to the timer says when the CPU will wake at the latest,
 *            the last idle period whether wakeups come early now.  A row
 *            keeps three averages that forget (each moves 1/2^learn_shift
 *            of the way at a wakeup):
 *              - the share of its wakeups that were not the timer's;
 *              - the mean idle time of those;
 *              - the mean time the timer's wakeups came after the timer
 *                (timers fire late: slack, interrupt delivery).
 *            For an entry in row r with the timer t away, the mean idle
 *            time is then  share * idle + (1 - share) * (t + late).
 *     cost   of state j for an idle time d:  E[j] + P[j] * d  (energy)
 *            plus, for a wakeup that was not the timer's, price * exit
 *            latency of j.  The energy model needs only what the driver
 *            advertises: each state draws half the power of the next
 *            shallower one (P[0] = WTEO_ONE) and a state's target residency
 *            is its break-even with that one, so
 *            E[j] = E[j-1] + (P[j-1] - P[j]) * target_residency[j].
 *            The cost is linear in d, so the mean cost of j over a row's
 *            wakeups is the cost at the row's mean idle time plus the
 *            share times price * exit latency of j: three numbers per row
 *            price every state.  Time in units of 1024 ns, capped at 2^20
 *            units.
 *     price  of a microsecond of exit latency, in P[0] per 1/1024: from
 *            the CPU's tolerance, price = WTEO_ONE * WTEO_TOLERANCE_DEFAULT
 *            / tolerance: the default tolerance prices a microsecond of
 *            wakeup latency like a microsecond at the shallowest state's
 *            power; a lower tolerance (a latency-bound CPU) prices it
 *            higher, a higher one lower.
 *
 *   balance  idle power first: an average that forgets (1/64 per wakeup) of
 *            what teo's choice would have drawn, plus 1/64 of it, less
 *            what the entered state drew, for the measured idle time.  At
 *            the default tolerance and above (price <= WTEO_ONE), while the
 *            balance is negative (the CPU drew more than teo would have,
 *            the slack spent), no state that draws more than teo's choice
 *            plus 1/64 in the row is entered: latency is bought only with
 *            energy saved elsewhere.  A lower tolerance lifts the guard.
 *
 *   select   given teo's choice c and the deepest state the latency limit
 *            allows (limit >= c), the enabled state j <= limit (within the
 *            guard) with the least mean cost in the entry's row, if that is
 *            less than the mean cost of c there; c otherwise.  A state
 *            deeper than the timer allows is taken only when the row's
 *            timers fire late enough to pay for it.  One entry in
 *            2^explore_shift takes c as it is (explore_shift 0: never).
 *
 *   young    a row that has seen fewer than WTEO_MIN_SAMPLES wakeups
 *            knows nothing of its entries yet, and one entry of a deep
 *            state woken at once pays its whole exit latency: there the
 *            choice is the state whose worst regret over what the entry can
 *            turn out to be is least (minimax regret, from the table and
 *            the time to the timer alone), if it is shallower than c; c
 *            otherwise.  The outcomes: a wakeup that is not the timer's
 *            right after entry or just before the timer (both pay the exit
 *            latency), and the timer's.  The regret of j is its cost less
 *            the least cost of any state the limit allows for the same
 *            outcome; between the two early ends it is convex in the idle
 *            time (j's cost is linear in it, the least of them concave),
 *            so the ends bound it.  A young row never goes deeper than c:
 *            teo's history has not vouched for the latency a deeper state
 *            risks.
 *
 *   reflect  after the wakeup: W row s learns the right state, row r
 *            learns the idle time (the real one, past the timer if the
 *            timer fired late) and whether the timer ended it, the balance
 *            learns what the entered state drew against teo's choice, and
 *            the right state becomes the CPU's last one.  A wakeup that
 *            did not end the idle period (a poll that ran out, one of teo's
 *            safety nets: entered = WTEO_NONE) counts as lasting until the
 *            timer and teaches neither the balance nor the last state.
 *
 * Memory: W (n x n u16) and 41 x WTEO_STATES_MAX rows of 12 bytes, about
 * 5 KiB per CPU.
 *
 * The caller owns the state indices: s, c, limit, right and entered below
 * n (entered may be WTEO_NONE), and enabled is a bit mask of the states
 * that may be entered (bit j for state j; states at or above n are
 * ignored).  The states' costs are set with wteo_set_state() after
 * wteo_init(), in order from the shallowest.
 */
#ifndef WTEO_CORE_H
#define WTEO_CORE_H

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/types.h>
#define wteo_fls(x) fls(x)
#else
#include <stdbool.h>
#include <stdint.h>
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;
static inline int wteo_fls(u32 x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}
#endif

#define WTEO_STATES_MAX 10              /* CPUIDLE_STATE_MAX */
#define WTEO_NONE WTEO_STATES_MAX       /* entered: the idle period goes on */
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
#define WTEO_SLEEP_ROWS 41u             /* half octaves of 0..WTEO_TIME_MAX */
#define WTEO_ROWS (WTEO_SLEEP_ROWS * WTEO_STATES_MAX)
#define WTEO_SHARE_ONE (1u << 15)       /* a row's share of non-timer wakeups */
#define WTEO_MIN_SAMPLES 4u             /* wakeups a row needs before it decides */
#define WTEO_SLACK_SHIFT 6u             /* energy slack: 1/64 of teo's */
#define WTEO_BALANCE_SHIFT 6u           /* the balance forgets 1/64 per wakeup */

struct wteo_params {
	u32 learn_shift;                /* 1..WTEO_SHIFT_MAX */
	u32 age_shift;                  /* 1..WTEO_SHIFT_MAX */
	u32 explore_shift;              /* 0 (off)..WTEO_SHIFT_MAX */
};

struct wteo_row {
	u32 idle;                       /* mean idle time of the non-timer wakeups, 1/1024 time units */
	u32 late;                       /* mean lateness of the timer's wakeups, 1/1024 time units */
	u16 share;                      /* non-timer wakeups, 1/WTEO_SHARE_ONE */
	u16 samples;                    /* wakeups learned, saturating */
};

struct wteo_cpu {
	u16 w[WTEO_STATES_MAX][WTEO_STATES_MAX];
	struct wteo_row rows[WTEO_ROWS];
	u32 energy[WTEO_STATES_MAX];    /* E[j]: entering and leaving j */
	u32 exit[WTEO_STATES_MAX];      /* exit latency of j, time units */
	u32 latency[WTEO_STATES_MAX];   /* price * exit[j], saturated */
	u32 n;                          /* states, 1..WTEO_STATES_MAX */
	u32 prior_self, prior_other;    /* wteo_prior() of this n, kept */
	u32 tolerance;                  /* 0..WTEO_ONE, see price */
	u32 price;                      /* of a time unit of exit latency */
	u32 age_next;                   /* the row of W aged at the next wakeup */
	u32 entries;                    /* selections so far (exploration) */
	s64 balance;                    /* energy saved against teo's choice */
	u32 last;                       /* the right state of the last idle period */
	/* The entry in progress, set by wteo_select(). */
	u32 s;                          /* its row of W: the timer's state */
	u32 row;                        /* its row of R */
	u32 teo;                        /* teo's choice */
	u32 sleep;                      /* the time to the timer, time units */
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

/* The half octave of a time to the timer of t time units: t itself below
 * 4, then 2k and 2k + 1 for the lower and upper halves of [2^k, 2^(k+1));
 * 0..WTEO_SLEEP_ROWS - 1. */
static inline u32 wteo_sleep_row(u32 t)
{
	u32 k;

	if (t < 4)
		return t;
	k = (u32)wteo_fls(t) - 1;
	return 2 * k + ((t >> (k - 1)) & 1u);
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
 * wakeup learned, every state free (call wteo_set_state() for each). */
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
	cpu->age_next = 0;
	cpu->entries = 0;
	cpu->balance = 0;
	cpu->last = 0;
	cpu->s = 0;
	cpu->row = 0;
	cpu->teo = 0;
	cpu->sleep = 0;
	for (s = 0; s < WTEO_STATES_MAX; s++) {
		for (j = 0; j < WTEO_STATES_MAX; j++)
			cpu->w[s][j] = s < n && j < n ? (u16)wteo_prior(n, s, j) : 0;
		cpu->energy[s] = 0;
		cpu->exit[s] = 0;
	}
	for (s = 0; s < WTEO_ROWS; s++) {
		cpu->rows[s].idle = 0;
		cpu->rows[s].late = 0;
		cpu->rows[s].share = 0;
		cpu->rows[s].samples = 0;
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

/* Row s of W learns that right was the right state. */
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

/* Moves row s of W toward the prior; the diagonal absorbs the rounding so
 * that the row keeps its sum. */
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

/* Row r learns a wakeup after t time units, sleep units being the time to
 * the timer at entry.  The first wakeup sets the row; later ones move its
 * averages, a young row's faster: the k-th wakeup 1/2^fls(k - 1) of the way
 * (1/2, 1/4, 1/4, 1/8...: about the running mean of its first wakeups),
 * then 1/2^learn_shift.  The mean idle time of the non-timer wakeups starts
 * at the first such wakeup (the share is 0 until then, and never 0 again:
 * an integer average stops short of 0), the mean lateness at the first
 * timer wakeup (the share is WTEO_SHARE_ONE until then). */
static inline void wteo_learn_row(struct wteo_row *row, u32 t, u32 sleep, bool non_timer, u32 learn_shift)
{
	u32 v = non_timer ? t << 10 : (t > sleep ? (t - sleep) << 10 : 0);
	u32 share = row->share, young = (u32)wteo_fls(row->samples);

	if (young < learn_shift)
		learn_shift = young;

	if (!row->samples) {
		row->idle = non_timer ? v : 0;
		row->late = non_timer ? 0 : v;
		row->share = non_timer ? WTEO_SHARE_ONE : 0;
		row->samples = 1;
		return;
	}
	if (non_timer && share == 0)
		row->idle = v;
	else if (non_timer)
		wteo_average(&row->idle, v, learn_shift);
	else if (share == WTEO_SHARE_ONE)
		row->late = v;
	else
		wteo_average(&row->late, v, learn_shift);
	wteo_average(&share, non_timer ? WTEO_SHARE_ONE : 0, learn_shift);
	row->share = (u16)share;
	if (row->samples < 0xffff)
		row->samples++;
}

/* The mean idle time in row r for the entry in progress (its time to the
 * timer), in 1/1024 time units. */
static inline u64 wteo_row_mean(const struct wteo_cpu *cpu, u32 r)
{
	const struct wteo_row *row = &cpu->rows[r];
	u64 timer = ((u64)cpu->sleep << 10) + row->late;

	return ((u64)row->share * row->idle + (u64)(WTEO_SHARE_ONE - row->share) * timer) >> 15;
}

/* The mean energy of state j at a mean idle time of mean/1024 units:
 * E[j] + P[j] * mean / 1024, and P[j] / 1024 is 2^-j. */
static inline u64 wteo_row_energy(const struct wteo_cpu *cpu, u32 j, u64 mean)
{
	return (u64)cpu->energy[j] + (mean >> j);
}

/* The mean latency cost of state j in row r. */
static inline u64 wteo_row_latency(const struct wteo_cpu *cpu, u32 r, u32 j)
{
	return ((u64)cpu->latency[j] * cpu->rows[r].share) >> 15;
}

/* What entering j costs (energy plus the latency price) for each outcome
 * of an entry the timer t time units away: a wakeup that is not the
 * timer's right after entry (*now), the timer's (*timer), one that is not
 * just before the timer (*before). */
static inline void wteo_outcomes(const struct wteo_cpu *cpu, u32 j, u32 t, u64 *now, u64 *timer, u64 *before)
{
	*timer = (u64)cpu->energy[j] + (u64)wteo_power(j) * t;
	*now = (u64)cpu->energy[j] + cpu->latency[j];
	*before = *timer + cpu->latency[j];
}

/* A young row's choice: of the enabled states up to limit, the one whose
 * worst regret over the three outcomes is least, if shallower than c; c
 * otherwise. */
static inline u32 wteo_select_young(const struct wteo_cpu *cpu, u32 c, u32 limit, u32 enabled)
{
	u64 least_now = ~0ull, least_timer = ~0ull, least_before = ~0ull, least_worst = ~0ull;
	u64 now, timer, before, worst;
	u32 best = c, j;

	for (j = 0; j <= limit; j++) {
		if (!((enabled >> j) & 1u))
			continue;
		wteo_outcomes(cpu, j, cpu->sleep, &now, &timer, &before);
		least_now = now < least_now ? now : least_now;
		least_timer = timer < least_timer ? timer : least_timer;
		least_before = before < least_before ? before : least_before;
	}
	for (j = 0; j <= limit; j++) {
		if (!((enabled >> j) & 1u))
			continue;
		wteo_outcomes(cpu, j, cpu->sleep, &now, &timer, &before);
		worst = now - least_now;
		if (timer - least_timer > worst)
			worst = timer - least_timer;
		if (before - least_before > worst)
			worst = before - least_before;
		if (worst < least_worst) {
			least_worst = worst;
			best = j;
		}
	}
	return best < c ? best : c;
}

/* After a wakeup: W row s (the timer's state at entry) learns right (the
 * state the measured idle time called for); the entry's row learns the
 * idle time idle_ns (measured, past the timer if it fired late) and
 * non_timer (it ended before the timer); the balance learns what entered
 * drew against teo's choice, and right becomes the last state (entered =
 * WTEO_NONE: the idle period goes on, neither); one row of W ages. */
static inline void wteo_reflect(struct wteo_cpu *cpu, const struct wteo_params *p, u32 right, u32 entered,
				u64 idle_ns, bool non_timer)
{
	u32 t = wteo_time(idle_ns);

	if (right >= cpu->n || (entered >= cpu->n && entered != WTEO_NONE))
		return;
	wteo_learn(cpu, cpu->s, right, p->learn_shift);
	wteo_learn_row(&cpu->rows[cpu->row], t, cpu->sleep, non_timer, p->learn_shift);
	if (entered != WTEO_NONE) {
		s64 teo = wteo_cost(cpu, cpu->teo, t, false), drawn = wteo_cost(cpu, entered, t, false);

		cpu->balance += teo + (teo >> WTEO_SLACK_SHIFT) - drawn - (cpu->balance >> WTEO_BALANCE_SHIFT);
		cpu->last = right;
	}
	wteo_age_row(cpu, cpu->age_next, p->age_shift);
	cpu->age_next = cpu->age_next + 1 >= cpu->n ? 0 : cpu->age_next + 1;
}

/* The state to enter after teo chose c, the timer sleep_ns away pointing
 * at state s, with limit the deepest state the latency limit allows.
 * Returns c when no enabled state at or below limit (within the energy
 * guard) costs less than c in the entry's row; in a young row, the least
 * worst regret's state if shallower than c. */
static inline u32 wteo_select(struct wteo_cpu *cpu, const struct wteo_params *p, u32 s, u64 sleep_ns, u32 c,
			      u32 limit, u32 enabled)
{
	u32 best = c, j, r;
	u64 mean, budget = ~0ull, best_cost;

	if (s >= cpu->n)
		s = cpu->n - 1;
	if (c >= cpu->n)
		c = cpu->n - 1;
	if (limit >= cpu->n)
		limit = cpu->n - 1;
	cpu->sleep = wteo_time(sleep_ns);
	r = wteo_sleep_row(cpu->sleep) * WTEO_STATES_MAX + cpu->last;
	cpu->s = s;
	cpu->row = r;
	cpu->teo = c;
	cpu->entries++;
	if (p->explore_shift && (cpu->entries & ((1u << p->explore_shift) - 1)) == 0)
		return c;
	if (cpu->rows[r].samples < WTEO_MIN_SAMPLES)
		return wteo_select_young(cpu, c, limit, enabled);
	mean = wteo_row_mean(cpu, r);
	best_cost = wteo_row_energy(cpu, c, mean) + wteo_row_latency(cpu, r, c);
	if (cpu->price <= WTEO_ONE && cpu->balance < 0) {
		budget = wteo_row_energy(cpu, c, mean);
		budget += budget >> WTEO_SLACK_SHIFT;
	}
	for (j = 0; j <= limit; j++) {
		u64 e, cost;

		if (!((enabled >> j) & 1u))
			continue;
		e = wteo_row_energy(cpu, j, mean);
		if (e > budget || e >= best_cost)
			continue;
		cost = e + wteo_row_latency(cpu, r, j);
		if (cost < best_cost) {
			best = j;
			best_cost = cost;
		}
	}
	return best;
}

#endif /* WTEO_CORE_H */
