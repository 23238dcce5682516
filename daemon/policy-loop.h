/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The policy's tick: per online CPU, the last sample's deltas become a
 * PolicyTick; the library turns it into evidence, learns and decides the
 * CPU's plan (policy.h); on KVM guests the whole machine's halt-poll
 * decision and, per the profile, the governor the plan wants.  Nothing
 * here writes a knob (plan-enforce.h does, in enforce mode) or talks to
 * the bus: a callback tells the caller which CPU's plan moved. */

#include <stdbool.h>
#include <stdint.h>

#include "calibration.h"
#include "cpuidle.h"
#include "journal.h"
#include "overrides.h"
#include "policy.h"
#include "sampling.h"

typedef struct PolicyCpu {
        bool active;                  /* has a model: online, with a state table */
        bool fresh;                   /* learned at this tick */
        bool polled_only;             /* it polled only during the tick: its poll counters measure nothing */
        bool settled;                 /* has a plan in force (cap, floor, reason) */
        unsigned n_states;
        ModelCpu model;
        CpuPlan plan;                 /* the policy's own plan */
        PolicyTick tick;              /* the last tick's input */
        /* The plan in force: the policy's plan with the manual settings and
         * polling-only applied; what the bus shows. */
        bool allowed[MODEL_STATES_MAX];
        unsigned cap, floor;
        PlanReason cap_reason, floor_reason;
        PollPlan poll;                /* this CPU's poll accounting (PollSuccess) */
        int poll_util;                /* Q10 util of the last tick that measured poll (-1 unknown) */
        bool has_poll;
        char reason[256];             /* one line explaining the plan */
} PolicyCpu;

typedef struct PolicySystem {
        bool kvm;                     /* haltpoll driver with its module parameters */
        unsigned poll_state, halt_state;  /* on kvm: the polling and the halt state */
        uint32_t halt_cost_us;        /* calibrated extra wakeup cost of a halt, 0 = unknown */
        PollPlan poll;                /* the machine's halt-poll decision (kvm only) */
        bool has_poll;
        char governor[32];            /* what the plan wants, "" = no opinion */
        bool governor_required;       /* the plan needs it now (switched without the hold) */
} PolicySystem;

typedef struct PolicyLoop {
        unsigned n_cpus;
        PolicyCpu *cpus;
        PolicySystem sys;
        uint64_t rng;                 /* xorshift64* state, never 0 */
        uint64_t ticks;
} PolicyLoop;

/* What one tick works on, borrowed from the manager. */
typedef struct PolicyInput {
        const Profile *profile;
        const Sampling *sampling;
        const CpuidleSystem *system;
        const Calibration *calibration;   /* NULL: not calibrated */
        const Overrides *overrides;
        const Journal *journal;           /* the knobs the daemon changed */
} PolicyInput;

/* Called for each CPU whose plan in force moved (cap or floor). */
typedef void (*PlanChangedFunc)(unsigned cpu, const PolicyCpu *c, void *userdata);

/* Allocates a loop for n_cpus CPU slots with the PRNG seeded from seed.
 * Returns 0 or -ENOMEM. */
int policy_loop_new(unsigned n_cpus, uint64_t seed, PolicyLoop **ret);
/* Returns NULL. */
PolicyLoop *policy_loop_free(PolicyLoop *l);
void policy_loop_freep(PolicyLoop **l);

/* After hotplug: n_cpus slots; CPUs offline in t lose their model (a CPU
 * coming back starts from the prior).  Returns 0 or -ENOMEM (l unchanged). */
int policy_loop_resize(PolicyLoop *l, const Topology *t);

/* Forgets every CPU's model and plan (the next tick starts afresh). */
void policy_loop_reset(PolicyLoop *l);

/* One tick: learns and decides for every online CPU with rates, then the
 * system decisions.  changed (may be NULL) is called per moved plan. */
void policy_loop_tick(PolicyLoop *l, const PolicyInput *in, PlanChangedFunc changed, void *userdata);

/* The CPU's state, or NULL when it has no model. */
const PolicyCpu *policy_loop_cpu(const PolicyLoop *l, unsigned cpu);

/* The next 32 random bits of the loop's PRNG. */
uint32_t policy_loop_random(PolicyLoop *l);

/* The calibrated state k of cpu, if the calibration has it under the same
 * name; NULL otherwise. */
const CalibrationState *policy_calibrated_state(const Calibration *c, unsigned cpu, unsigned k, const char *name);

/* Whether the daemon changed the knob at path and it is not set by hand:
 * the plan's own change. */
bool policy_owns_knob(const PolicyInput *in, const char *path);

/* Before the CPUs learn: the kvm facts and the calibrated halt cost in
 * l->sys (policy-system.c). */
void policy_system_facts(PolicyLoop *l, const PolicyInput *in);

/* A PollInput with no entries yet: the tick's interval, the calibrated
 * halt cost and the window the machine runs with (guest_halt_poll_ns under
 * the haltpoll governor, the only one that polls in a window, else 0). */
PollInput policy_poll_input(const PolicyInput *in, const PolicySystem *sys);
/* Adds one CPU's tick (its POLL and halt entries and times, its non-timer
 * wakeups) to pin. */
void policy_poll_input_add(PollInput *pin, const PolicySystem *sys, const PolicyTick *t);

/* After they learned: the machine's halt-poll decision from the fresh
 * CPUs' ticks, and the governor the profile wants (policy-system.c). */
void policy_system_decide(PolicyLoop *l, const PolicyInput *in);

/* Writes the one-line explanation of c's plan into c->reason
 * (plan-reason.c).  names[k] are the states' names. */
void plan_reason_format(PolicyCpu *c, const Profile *prof, const PolicySystem *sys, const CpuidleStateInfo *info);

/* "none", "window", "poll-only". */
const char *poll_mode_to_string(PollMode m);
