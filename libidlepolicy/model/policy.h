/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The policy: profile + model + util rule + calibration + manual overrides
 * → a per-CPU plan (deepest and shallowest allowed state, with the reason for
 * each) and a system plan (governor, KVM halt-poll window).  Pure: the
 * caller passes the time-free tick data and a random number; the daemon and
 * the simulator call exactly this code. */

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "profile.h"

typedef enum PlanReason {
        PLAN_REASON_NONE = 0,         /* nothing limits this end */
        PLAN_REASON_PROFILE_LIMIT,    /* the profile's latency limit */
        PLAN_REASON_MODEL,            /* the weights said too deep / too shallow */
        PLAN_REASON_UTIL,             /* the util rule */
        PLAN_REASON_MISDESCRIBED,     /* a state whose measured cost is far above its advertised one */
        PLAN_REASON_POLL_ECONOMICS,   /* KVM: poll vs halt priced by the profile */
        PLAN_REASON_EXPLORATION,      /* a capped state re-allowed to re-measure it */
        PLAN_REASON_MANUAL,           /* an administrator's explicit setting */
        PLAN_REASON_HOLD,             /* the last decision is held (hysteresis) */
        PLAN_REASON_CONSOLIDATION,    /* a CPU consolidation freed: the deepest state the profile allows */
        _PLAN_REASON_MAX,
} PlanReason;

/* "profile-limit", "model", "util", ... */
const char *plan_reason_to_string(PlanReason r);

/* What the policy knows of one state on one CPU. */
typedef struct PolicyState {
        uint32_t latency_us;          /* advertised exit latency */
        uint32_t residency_us;        /* advertised target residency */
        uint32_t real_latency_us;     /* calibrated wakeup cost; 0 = not calibrated */
        uint32_t real_residency_us;   /* calibrated break-even residency; 0 = derive it
                                       * (see policy_residency_us()) */
        bool polling;                 /* a polling state (POLL: exit latency 0) */
        bool misdescribed;            /* calibration found the advertised cost wrong */
        bool manual_disabled;         /* an administrator disabled it explicitly */
} PolicyState;

/* One tick of data for one CPU. */
typedef struct PolicyTick {
        unsigned n_states;
        PolicyState states[MODEL_STATES_MAX];
        uint64_t d_usage[MODEL_STATES_MAX];
        uint64_t d_above[MODEL_STATES_MAX];
        uint64_t d_below[MODEL_STATES_MAX];
        uint64_t d_time_us[MODEL_STATES_MAX];
        uint64_t interval_us;         /* wall time of the tick */
        int util;                     /* Q10 busy fraction, -1 unknown */
        uint64_t d_timer_wakeups;     /* timer interrupts in the tick */
        uint64_t d_other_wakeups;     /* IPIs and device interrupts */
} PolicyTick;

/* The per-CPU decision and the state that hysteresis needs. */
typedef struct CpuPlan {
        unsigned cap;                 /* deepest allowed state index */
        unsigned floor;               /* shallowest allowed state index (floor <= cap) */
        PlanReason cap_reason;
        PlanReason floor_reason;
        bool exploring;               /* this tick's cap was lifted by exploration */
        bool util_active;             /* the util rule is engaged (hysteresis) */
        unsigned held_ticks;          /* ticks since the model last moved model_cap/model_floor
                                       * (UINT_MAX before its first move) */
        unsigned model_cap;           /* the cap the model alone wants (kept across exploration) */
        unsigned model_floor;         /* the floor the model alone wants */
} CpuPlan;

/* Initial plan: everything allowed (cap = n-1, floor = 0); the model's
 * first move may come as soon as a row speaks (nothing to hold yet). */
void cpu_plan_init(CpuPlan *p, unsigned n_states);

/* Which states the plan allows: floor <= s <= cap and not manual_disabled
 * (manual settings are never overridden; if an administrator disabled
 * every state, none is allowed and the kernel falls back as it always
 * does). */
void cpu_plan_enabled(const CpuPlan *p, const PolicyTick *t, bool ret_enabled[static MODEL_STATES_MAX]);

/* The model parameters a profile asks for (learn_shift, age_shift, and the
 * default clamp). */
void policy_model_params(const Profile *prof, ModelParams *ret);

/* The exit latency the policy believes: the calibrated one where there is
 * one, else the advertised one. */
uint32_t policy_latency_us(const PolicyState *st);

/* Why state st may not be used at all under prof: MANUAL (disabled by
 * hand), MISDESCRIBED or PROFILE_LIMIT (policy_latency_us() above the
 * profile's latency_limit_us), or NONE. */
PlanReason policy_state_excluded(const Profile *prof, const PolicyState *st);

/* The break-even residency the policy believes: real_residency_us when
 * calibrated; for a misdescribed state without one,
 * max(residency_us, 2 * real_latency_us) (entering and leaving cost about
 * the exit latency each: below twice that, the shallower state wins);
 * else the advertised residency_us. */
uint32_t policy_residency_us(const PolicyState *st);

/* Turns one tick's kernel counters into model evidence: from the kernel's
 * above/below when the state is trustworthy, otherwise re-derived from the
 * calibrated costs and the measured mean idle duration (d_time/d_usage) and
 * the timer/non-timer split.  enabled[] = states allowed during the tick.
 * "Otherwise" covers: the state itself misdescribed (its above is wrong),
 * the next enabled deeper state misdescribed (its below is wrong), and a
 * neighbour disabled by the plan (the kernel counts nothing against a
 * disabled state: the counts against it are estimated).  The derivation
 * is in policy-evidence.c. */
void policy_evidence(const PolicyTick *t, const bool enabled[], ModelEvidence ret_ev[static MODEL_STATES_MAX]);

/* Decides the next plan for one CPU from the model rows, the profile and the
 * previous plan; random is a uniformly distributed 32-bit number (the caller
 * owns the PRNG: deterministic in tests and the simulator).  Returns 1 if
 * cap or floor changed, 0 if not, -EINVAL if m and t disagree on the number
 * of states (plan untouched).
 *
 * Precedence, strongest first (each end carries the reason of the rule
 * that set it):
 *   cap:   MANUAL (states the administrator disabled are never re-enabled)
 *          and PROFILE_LIMIT (policy_latency_us() above latency_limit_us;
 *          MISDESCRIBED when only the calibrated latency breaks the limit)
 *          bound it; UTIL (above util_threshold, until below threshold -
 *          hysteresis: the shallowest allowed non-polling state); MODEL
 *          (model_cap); EXPLORATION lifts a MODEL cap one state for one tick;
 *          HOLD replaces MODEL while hold_ticks keep a wanted move back.
 *   floor: MANUAL (shallower states disabled by hand), MODEL / HOLD; a floor
 *          above the cap yields to it and takes the cap's reason.
 * The model moves model_cap and model_floor once hold_ticks ticks have
 * passed since its last move.  A row "speaks" when at least half of it is
 * evidence (model_row_evidence() >= 512; a row that is mostly prior, never
 * fed or aged back, says nothing); it then "says too deep" when its learned
 * shallower share (model_evidence_shallower()) exceeds too_deep_tolerance,
 * "too shallow" when its learned deeper share exceeds
 * too_shallow_tolerance.  The rows say when; a price says whether: moving
 * the entries of s to to costs, per entry, in µs of latency,
 *     burn_price × (P_to - P_s) × (d_s - R_deeper) + φ × (L_to - L_s)
 * (d_s the tick's mean idle period in s, R the break-even residency, so
 * the energy term is exact up to the power ratio P_i = 2^-i assumed per
 * state; L the believed exit latency, φ the non-timer share of wakeups),
 * and a move is made only when that is negative (policy-model.c).
 *   cap down:   from the deepest state whose row speaks, past every state
 *               that says too deep and whose entries pay to move down;
 *   cap up:     one state, when the cap's row says too shallow and either
 *               its entries would pay to move up or the capped state's row,
 *               re-measured by exploration, speaks and no longer says too
 *               deep;
 *   floor up:   the mirror of cap down;
 *   floor down: one state, when the floor's row says too deep and its
 *               entries pay to move down.
 * Exploration: with probability (deeper(cap) + 32) >> explore_shift per tick
 * (Q10) the state above a model cap is allowed for this tick, so that its
 * row is re-measured.  explore_shift 0 = never.  (The floor needs none: its
 * own entries show every tick whether they would be better off below.) */
int policy_decide_cpu(const Profile *prof, const ModelCpu *m, const PolicyTick *t,
                      uint32_t random, CpuPlan *plan);

/* Whether this tick explores: with probability (share + 32) >> explore_shift
 * in Q10 (share: the Q10 evidence that the capped choice would have been
 * right), drawn from the top 10 bits of random; never with explore_shift 0.
 * The cap's exploration (policy_decide_cpu()) and the daemon's re-measuring
 * of a CPU that polls only use it alike. */
bool policy_explore_draw(const Profile *prof, unsigned share, uint32_t random);

/* KVM guests (driver haltpoll): the halt-poll decision. */
typedef enum PollMode {
        POLL_MODE_NONE = 0,           /* guest_halt_poll_ns = 0: halt at once */
        POLL_MODE_WINDOW,             /* a poll window (guest_halt_poll_ns = window_ns), haltpoll governor */
        POLL_MODE_ONLY,               /* never halt: polling only (per CPU: resume latency n/a) */
} PollMode;

/* "none", "window", "poll-only". */
const char *poll_mode_to_string(PollMode m);

typedef struct PollInput {
        uint64_t d_poll_usage;        /* POLL entries in the tick */
        uint64_t d_halt_usage;        /* halt entries */
        uint64_t d_poll_time_us;
        uint64_t d_halt_time_us;
        uint64_t interval_us;
        uint64_t d_other_wakeups;     /* non-timer wakeups (the ones polling catches) */
        uint32_t halt_cost_us;        /* calibrated extra wakeup latency of halt over poll; 0 = unknown */
        uint64_t window_ns;           /* current poll window */
        int util;                     /* Q10 */
        bool without_only;            /* price none and window only: the machine-wide knob
                                       * (guest_halt_poll_ns) cannot poll only, each CPU does */
} PollInput;

#define POLL_WINDOW_MIN_NS 50000u     /* the windows tried: 50, 100, 200, 400 µs */
#define POLL_WINDOW_MAX_NS 400000u

typedef struct PollPlan {
        PollMode mode;
        uint64_t window_ns;
        unsigned success;             /* Q10 poll success rate (a poll that ended in a wakeup) */
        uint32_t mean_success_us;     /* learned mean duration of a successful poll; 0 = never
                                       * measured (kept while not polling in a window) */
        int64_t cost[3];              /* the priced cost of each mode, same units, lower is better */
        unsigned held_ticks;          /* decisions since the mode or window last changed (saturates) */
} PollPlan;

/* A tick that measured nothing (the CPU polled only): the decision holds
 * one tick more (held_ticks saturates). */
void poll_plan_hold(PollPlan *p);

/* Prices the three modes with prof->burn_price and picks the cheapest (with
 * hysteresis against prev, which may be NULL for the first tick: a change
 * needs a 1/8 margin and prev held for at least prof->hold_ticks ticks).  Returns
 * 1 if the mode or window changed, 0 if not.  Costs are µs of wakeup
 * latency (or its burn-priced equivalent) per second; the formulas are in
 * policy-poll.c. */
int policy_decide_poll(const Profile *prof, const PollInput *in, const PollPlan *prev, PollPlan *ret);
