/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One policy step: per CPU, the tick's data (a PolicyTick, built by the
 * caller from its counters) becomes evidence, the model learns and the
 * CPU's plan is decided under that CPU's own profile (policy.h); then the
 * manual settings and, on KVM guests, the halt-poll economics give the
 * plan in force with its reasons and its one-line explanation; for the
 * machine, the halt-poll decision and the governor the plan wants.
 *
 * The daemon and the simulator run exactly this.  Input is plain data
 * (PolicyStepInput): nothing here knows about the restore journal, the bus
 * or a file, reads the clock or logs.  Nothing writes a knob: a callback
 * tells the caller which CPU's plan moved. */

#include <stdbool.h>
#include <stdint.h>

#include "calibration.h"
#include "cpuidle.h"
#include "policy.h"
#include "poll-search.h"
#include "topology.h"

typedef struct PolicyCpu {
        bool active;                  /* has a model: online, with a state table */
        bool fresh;                   /* learned at this tick */
        bool polled_only;             /* it polled only during the tick: its poll counters measure nothing */
        bool settled;                 /* has a plan in force (cap, floor, reason) */
        unsigned n_states;
        char profile[PROFILE_NAME_MAX];   /* the profile of the last tick it learned */
        ModelCpu model;
        CpuPlan plan;                 /* the policy's own plan */
        PolicyTick tick;              /* the last tick's input */
        /* The plan in force: the policy's plan with the manual settings and
         * polling-only applied; what the bus shows. */
        bool allowed[MODEL_STATES_MAX];
        unsigned cap, floor;
        PlanReason cap_reason, floor_reason;
        bool kvm_plan;                /* the poll economics set the plan in force (policy-step.c,
                                       * cpu_kvm_plan()): the policy's own plan above waits beneath it */
        PollPlan poll;                /* this CPU's poll accounting (PollSuccess) */
        int poll_util;                /* Q10 util of the last tick that measured poll (-1 unknown) */
        bool has_poll;
        char reason[256];             /* one line explaining the plan */
} PolicyCpu;

/* The halt-poll decision of the CPUs under one profile (policy-machine.c). */
#define POLICY_POLL_GROUPS_MAX PROFILES_MAX
typedef struct PollGroup {
        char profile[PROFILE_NAME_MAX];
        PollPlan plan;
        bool has;                     /* plan was decided at least once */
        bool decided;                 /* looked at during this step */
} PollGroup;

typedef struct PolicySystem {
        bool kvm;                     /* haltpoll driver with its module parameters */
        unsigned poll_state, halt_state;  /* on kvm: the polling and the halt state */
        uint32_t halt_cost_us;        /* calibrated extra wakeup cost of a halt, 0 = unknown */
        PollPlan poll;                /* the machine's halt-poll decision (kvm only): the
                                       * longest window any profile's CPUs want */
        bool has_poll;
        unsigned n_groups;            /* per profile in force: its CPUs' own decision */
        PollGroup groups[POLICY_POLL_GROUPS_MAX];
        char governor[32];            /* what the plan wants, "" = no opinion */
        bool governor_required;       /* the plan needs it now (switched without the hold) */
        /* The poll frontier search (poll-search.h), while the machine's
         * profile asks for it: it sets poll (none or a window) and the
         * governor, and the POLL state of the CPUs under that profile
         * (policy-search.c). */
        bool searching;
        char search_profile[PROFILE_NAME_MAX];
        PollSearch search;
        unsigned search_silent;       /* ticks in a row without a progress measurement */
} PolicySystem;

typedef struct PolicyStep {
        unsigned n_cpus;
        PolicyCpu *cpus;
        PolicySystem sys;
        uint64_t rng;                 /* xorshift64* state, never 0 */
        uint64_t ticks;
        bool replanning;              /* inside policy_step_replan(): no new measurement */
} PolicyStep;

/* One CPU's part of a step. */
typedef struct PolicyCpuInput {
        bool online;                      /* false: the CPU loses its model */
        bool valid;                       /* the tick has its rates and state table: it
                                           * learns and decides (else its plan holds) */
        const Profile *profile;           /* the profile in force on this CPU (if valid) */
        const CpuidleStateInfo *info;     /* tick.n_states entries: names, advertised costs */
        PolicyTick tick;                  /* deltas, util, wakeups; per state the costs
                                           * (calibrated ones too) and polling; the step
                                           * sets states[k].manual_disabled */
        bool disabled[MODEL_STATES_MAX];  /* the disable bits during the tick */
        bool manual[MODEL_STATES_MAX];    /* the disable knob was set by hand: the plan leaves it */
        bool owned[MODEL_STATES_MAX];     /* the plan itself disabled it (not by hand) */
        bool resume_latency_na;           /* pm_qos_resume_latency_us was "n/a" */
        bool consolidation_freed;         /* consolidation keeps the background off this CPU:
                                           * floor and cap at the deepest state the profile's
                                           * latency limit allows (reason consolidation) */
} PolicyCpuInput;

/* What one step works on: plain data, borrowed for the call. */
typedef struct PolicyStepInput {
        unsigned n_cpus;
        const PolicyCpuInput *cpus;       /* n_cpus entries */
        const Profile *profile;           /* the machine's: the machine-wide decisions */
        uint64_t interval_us;             /* the tick's wall time */
        const CpuidleSystem *system;      /* driver, governor(s), haltpoll parameters */
        const Calibration *calibration;   /* NULL: not calibrated */
        bool governor_manual;             /* the governor was set by hand: no opinion on it */
        bool window_manual;               /* guest_halt_poll_ns is someone else's */
        bool has_ctxt;                    /* d_ctxt was measured */
        uint64_t d_ctxt;                  /* context switches of the machine in the tick */
        /* Where the step's random numbers come from (uniform 32 bits);
         * NULL: the step's own generator.  Drawn once per fresh CPU for its
         * decision, and once more only when a CPU that polls only may
         * explore. */
        uint32_t (*random)(void *userdata);
        void *random_userdata;
} PolicyStepInput;

/* Called for each CPU whose plan in force moved (cap or floor). */
typedef void (*PlanChangedFunc)(unsigned cpu, const PolicyCpu *c, void *userdata);

/* Allocates a policy step for n_cpus CPU slots with the PRNG seeded from seed.
 * Returns 0 or -ENOMEM. */
int policy_step_new(unsigned n_cpus, uint64_t seed, PolicyStep **ret);
/* Returns NULL. */
PolicyStep *policy_step_free(PolicyStep *l);
void policy_step_freep(PolicyStep **l);

/* After hotplug: n_cpus slots; CPUs offline in t lose their model (a CPU
 * coming back starts from the prior).  Returns 0 or -ENOMEM (l unchanged). */
int policy_step_resize(PolicyStep *l, const Topology *t);

/* Forgets every CPU's model and plan (the next tick starts afresh). */
void policy_step_reset(PolicyStep *l);

/* One step: learns and decides for every valid CPU in in, then the
 * machine's decisions.  A CPU slot beyond in->n_cpus or offline loses its
 * model; one online but not valid keeps it and its plan.  changed (may be
 * NULL) is called per moved plan. */
void policy_step_tick(PolicyStep *l, const PolicyStepInput *in, PlanChangedFunc changed, void *userdata);

/* Between ticks: every CPU whose profile in in differs from the one it
 * last learned under (a pin or hold came or went) gets its plan decided
 * again under the new profile, from its model and its last tick, without
 * learning; then the machine's decisions.  in->cpus[cpu].profile must be
 * set for every online CPU (valid or not).  changed as for
 * policy_step_tick(). */
void policy_step_replan(PolicyStep *l, const PolicyStepInput *in, PlanChangedFunc changed, void *userdata);

/* The CPU's state, or NULL when it has no model. */
const PolicyCpu *policy_step_cpu(const PolicyStep *l, unsigned cpu);

/* The next 32 random bits of the step's PRNG. */
uint32_t policy_step_random(PolicyStep *l);

/* The calibrated state k of cpu, if the calibration has it under the same
 * name; NULL otherwise. */
const CalibrationState *policy_calibrated_state(const Calibration *c, unsigned cpu, unsigned k, const char *name);

/* Fills the calibrated costs of st (state k of cpu, called name) from c:
 * the measured wakeup cost, break-even residency and the mis-described
 * verdict.  Leaves st alone when c has no measurement of that state. */
void policy_state_calibrate(PolicyState *st, const Calibration *c, unsigned cpu, unsigned k, const char *name);

/* Before the CPUs learn: the kvm facts and the calibrated halt cost in
 * l->sys (policy-machine.c). */
void policy_system_facts(PolicyStep *l, const PolicyStepInput *in);

/* A PollInput with no entries yet: the tick's interval, the calibrated
 * halt cost and the window the machine runs with (guest_halt_poll_ns under
 * the haltpoll governor, the only one that polls in a window, else 0). */
PollInput policy_poll_input(const PolicyStepInput *in, const PolicySystem *sys);
/* Adds one CPU's tick (its POLL and halt entries and times, its non-timer
 * wakeups) to pin. */
void policy_poll_input_add(PollInput *pin, const PolicySystem *sys, const PolicyTick *t);

/* After they learned: the machine's halt-poll decision from the fresh
 * CPUs' ticks, and the governor the profile wants (policy-machine.c). */
void policy_system_decide(PolicyStep *l, const PolicyStepInput *in);

/* The poll frontier search's part of policy_system_decide(): engages,
 * steps or disengages it, and sets sys->poll and the governor wanted while
 * it runs (policy-search.c). */
void policy_search_decide(PolicyStep *l, const PolicyStepInput *in);

/* The time tick t's CPU spent halted (in a non-polling state).  The
 * states' time counters are exact but add a period when it ends: a long
 * halt still running at the sample (an idle CPU, the tick stopped) is
 * missing from them and comes back whole in a later tick.  proc/stat's
 * idle time includes the period running, but is sampled at the
 * scheduler tick (CONFIG_TICK_CPU_ACCOUNTING, HZ 250 here): a program
 * that runs in bursts shorter than a jiffy between sleeps can be missed
 * whole (ebizzy's 0.21 CPU read as 0.02 over a 500 ms tick, and 0.75 as
 * 0.39 over a 50 ms one, in bench/results/live-search-fixes/2-margin's logs: a
 * 25 µs window held on that one tick).  So proc/stat (less the polling)
 * is taken only for a CPU that halted (entered a non-polling state) less
 * than once per PROCSTAT_SLACK_US (a running halt can then be long) and
 * whose two readings disagree by more than that; otherwise the counters,
 * whose error is one halt. */
uint64_t policy_tick_halted_us(const PolicyTick *t);

/* Whether cpu's plan follows the search: the search runs and the CPU is
 * under the profile that runs it. */
bool policy_search_owns_cpu(const PolicySystem *sys, const Profile *prof);

/* The same by the profile's name (NULL: none): whether the search runs for
 * that profile, so that its CPUs' and its group's priced poll decisions are
 * made beneath it and not in force (quiet_tick_mark()). */
bool policy_search_owns_profile(const PolicySystem *sys, const char *profile);

/* Whether the next tick should be short (the search climbs or probes). */
bool policy_step_wants_fast_tick(const PolicyStep *l);

/* Whether the search runs and holds no polling: what moves it is a
 * program that starts (the follow of quiet-tick.h is for it). */
bool policy_step_awaits_program(const PolicyStep *l);

/* Writes the one-line explanation of c's plan into c->reason
 * (plan-reason.c).  names[k] are the states' names. */
void plan_reason_format(PolicyCpu *c, const Profile *prof, const PolicySystem *sys, const CpuidleStateInfo *info);

