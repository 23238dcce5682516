/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy-step.h"

/* Returns 0 or -ENOMEM. */
int policy_step_new(unsigned n_cpus, uint64_t seed, PolicyStep **ret) {
        PolicyStep *l = calloc(1, sizeof(PolicyStep));

        if (!l)
                return -ENOMEM;
        l->cpus = calloc(n_cpus ? n_cpus : 1, sizeof(PolicyCpu));
        if (!l->cpus) {
                free(l);
                return -ENOMEM;
        }
        l->n_cpus = n_cpus;
        l->rng = seed ? seed : UINT64_C(0x9e3779b97f4a7c15);
        *ret = l;
        return 0;
}

PolicyStep *policy_step_free(PolicyStep *l) {
        if (l)
                free(l->cpus);
        free(l);
        return NULL;
}

void policy_step_freep(PolicyStep **l) {
        policy_step_free(*l);
}

/* Returns 0 or -ENOMEM. */
int policy_step_resize(PolicyStep *l, const Topology *t) {
        PolicyCpu *n;

        if (t->n_cpus > l->n_cpus) {
                n = realloc(l->cpus, t->n_cpus * sizeof(PolicyCpu));
                if (!n)
                        return -ENOMEM;
                memset(n + l->n_cpus, 0, (t->n_cpus - l->n_cpus) * sizeof(PolicyCpu));
                l->cpus = n;
                l->n_cpus = t->n_cpus;
        }
        for (unsigned c = 0; c < l->n_cpus; c++)
                if (c >= t->n_cpus || !t->cpus[c].online)
                        l->cpus[c].active = false;
        return 0;
}

void policy_step_reset(PolicyStep *l) {
        for (unsigned c = 0; c < l->n_cpus; c++)
                l->cpus[c].active = false;
        l->sys = (PolicySystem) {};
}

/* xorshift64*: fast, good enough for exploration, deterministic per seed. */
uint32_t policy_step_random(PolicyStep *l) {
        uint64_t x = l->rng;

        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        l->rng = x;
        return (uint32_t) ((x * UINT64_C(0x2545f4914f6cdd1d)) >> 32);
}

const PolicyCpu *policy_step_cpu(const PolicyStep *l, unsigned cpu) {
        if (cpu >= l->n_cpus || !l->cpus[cpu].active)
                return NULL;
        return &l->cpus[cpu];
}

/* The step's next random number: the caller's source, else its own. */
static uint32_t step_random(PolicyStep *l, const PolicyStepInput *in) {
        return in->random ? in->random(in->random_userdata) : policy_step_random(l);
}

/* Starts cpu's model and plan from the prior. */
static void cpu_reset(PolicyCpu *c, unsigned n_states) {
        *c = (PolicyCpu) { .active = true, .n_states = n_states, .poll_util = -1 };
        (void) model_cpu_init(&c->model, n_states);
        cpu_plan_init(&c->plan, n_states);
}

/* The tick as the policy reads it: the caller's, with the states disabled
 * by someone else (by hand, or found so: not the plan's own) marked. */
static void tick_take(const PolicyCpuInput *in, PolicyTick *t) {
        *t = in->tick;
        for (unsigned k = 0; k < t->n_states; k++)
                t->states[k].manual_disabled = in->disabled[k] && !in->owned[k];
}

/* Whether the CPU went nearly idle (busy under 1/16) since the last tick
 * that measured its polling, at no more than half the busy share it had
 * then: the one signal that polling only does not blur (the kernel counts
 * a poll as idle), and the case where polling only burns the most.  A
 * load that stops is re-measured at once rather than at the next random
 * exploration.  (Any move of 1/8 was tried first: a pgbench client and
 * server that the scheduler moves between CPUs swing each CPU's busy
 * share by more than that every tick, and the re-measuring cost a third
 * of the throughput; bench/results/live-a727a6a.) */
static bool load_stopped(const PolicyCpu *c) {
        int now = c->tick.util, then = c->poll_util;

        return now >= 0 && then >= 0 && now < 64 && 2 * now <= then;
}

/* A CPU under the poll frontier search: every state allowed but, in the
 * arm without polling, POLL (a governor that keeps the tick, halting at
 * once); in the arm that polls only, POLL alone (its resume latency
 * "n/a" with it, plan-enforce.c). */
static void cpu_search_plan(PolicyCpu *c, const PolicySystem *sys) {
        bool no_poll = sys->search.arm == 0, only = sys->search.arm == POLL_SEARCH_ONLY;

        for (unsigned k = 0; k < c->n_states; k++)
                c->allowed[k] = !c->tick.states[k].manual_disabled && !(no_poll && k == sys->poll_state) &&
                                !(only && k != sys->poll_state);
        c->cap = only ? sys->poll_state : c->n_states - 1;
        c->floor = no_poll ? sys->halt_state : 0;
        c->cap_reason = PLAN_REASON_POLL_ECONOMICS;
        c->floor_reason = no_poll || only ? PLAN_REASON_POLL_ECONOMICS : PLAN_REASON_NONE;
}

/* On KVM guests the halt-poll decision, not the weights, sets the plan:
 * with two states (POLL and halt) the cap is the only lever and polling
 * only is priced against halting by policy_decide_poll() (the weights'
 * above/below of a mis-described halt say nothing the price does not).
 * This CPU polls only when its own poll economics says so; otherwise every
 * state is allowed and the machine-wide window decides how long a halt is
 * preceded by a poll.  (The util rule caps at the shallowest non-polling
 * state, the halt: a cap that polling only, the shallower one, already
 * keeps.)  While it polls only its counters measure nothing (cpu_poll()):
 * once the decision has held for hold_ticks, a tick lets the halt back
 * (reason exploration) so that the next tick re-measures it: at random,
 * like the cap's exploration, with the share of its polls that timed out
 * when last measured as the evidence (a CPU whose polls almost all end in
 * a wakeup explores rarely), and always when the load stopped
 * (load_stopped()).
 * A cap the profile's latency limit set (a halt slower than the limit)
 * stands: that is the profile's word, not a price.
 * Returns true if it set the plan (cap, floor and reasons in c). */
static bool cpu_kvm_plan(PolicyCpu *c, const PolicySystem *sys, const Profile *prof, PolicyStep *l,
                         const PolicyStepInput *in) {
        bool want_only, explore, only;

        if (!sys->kvm || !sys->has_poll || !c->has_poll || sys->halt_state >= c->n_states ||
            c->plan.cap_reason == PLAN_REASON_PROFILE_LIMIT || c->plan.cap_reason == PLAN_REASON_MISDESCRIBED)
                return false;
        if (policy_search_owns_cpu(sys, prof)) {
                cpu_search_plan(c, sys);
                return true;
        }
        want_only = c->poll.mode == POLL_MODE_ONLY;
        explore = want_only && c->poll.held_ticks >= prof->hold_ticks &&
                  (policy_explore_draw(prof, c->poll.success < 1024 ? 1024 - c->poll.success : 0, step_random(l, in)) ||
                   load_stopped(c));
        only = want_only && !explore;
        for (unsigned k = 0; k < c->n_states; k++)
                c->allowed[k] = !c->tick.states[k].manual_disabled && (!only || k == sys->poll_state);
        c->cap = only ? sys->poll_state : c->n_states - 1;
        c->floor = 0;
        c->cap_reason = explore ? PLAN_REASON_EXPLORATION : PLAN_REASON_POLL_ECONOMICS;
        c->floor_reason = only ? PLAN_REASON_POLL_ECONOMICS : PLAN_REASON_NONE;
        return true;
}

/* A CPU consolidation freed runs nothing but what nobody named as
 * background (kernel threads, timers, unconfined services): it sleeps in
 * the deepest state the profile allows (policy_state_excluded(): not
 * disabled by hand, within the latency limit), and only there, whatever
 * the model says.  Nothing when no state qualifies. */
static void cpu_consolidation_freed(PolicyCpu *c, const Profile *prof) {
        unsigned deepest = c->n_states;

        for (unsigned k = 0; k < c->n_states; k++)
                if (policy_state_excluded(prof, &c->tick.states[k]) == PLAN_REASON_NONE)
                        deepest = k;
        if (deepest == c->n_states)
                return;
        for (unsigned k = 0; k < c->n_states; k++)
                c->allowed[k] = k == deepest;
        c->cap = c->floor = deepest;
        c->cap_reason = c->floor_reason = PLAN_REASON_CONSOLIDATION;
}

/* The plan in force: the policy's [floor, cap] (on KVM the poll
 * economics' one), a CPU consolidation freed at its deepest allowed state,
 * with the manual settings on top; an end that the manual settings moved
 * says so. */
static void cpu_effective(PolicyStep *l, PolicyCpu *c, const PolicyStepInput *step, const PolicyCpuInput *in) {
        unsigned n = c->n_states, cap = 0, floor = n;

        c->kvm_plan = cpu_kvm_plan(c, &l->sys, in->profile, l, step);
        if (!c->kvm_plan) {
                cpu_plan_enabled(&c->plan, &c->tick, c->allowed);
                c->cap = c->plan.cap;
                c->floor = c->plan.floor;
                c->cap_reason = c->plan.cap_reason;
                c->floor_reason = c->plan.floor_reason;
        }
        if (in->consolidation_freed)
                cpu_consolidation_freed(c, in->profile);
        for (unsigned k = 0; k < n; k++) {
                if (in->manual[k])
                        c->allowed[k] = !in->disabled[k];
                if (c->allowed[k]) {
                        cap = k;
                        floor = floor < n ? floor : k;
                }
        }
        floor = floor < n ? floor : cap;
        if (cap != c->cap)
                c->cap_reason = PLAN_REASON_MANUAL;
        if (floor != c->floor)
                c->floor_reason = PLAN_REASON_MANUAL;
        c->cap = cap;
        c->floor = floor;
}

/* Whether the CPU polled only during the tick: resume latency "n/a", or
 * every non-polling state disabled.  Its counters then say nothing about
 * halting: the POLL entries count the poll loop's time-limit exits rather
 * than idle periods, and a wakeup of a polling CPU sends no IPI. */
static bool polled_only(const PolicyCpuInput *in) {
        if (in->resume_latency_na)
                return true;
        for (unsigned k = 0; k < in->tick.n_states; k++)
                if (!in->tick.states[k].polling && !in->disabled[k])
                        return false;
        return true;
}

/* This CPU's halt-poll decision on kvm (its own: polling only or not; and
 * PollSuccess).  A tick in which it polled only measures nothing: the
 * decision holds, to be re-measured by exploration (cpu_kvm_plan()). */
static void cpu_poll(PolicyCpu *c, const PolicyStepInput *in, const Profile *prof, const PolicySystem *sys) {
        const PolicyTick *t = &c->tick;
        PollInput pin;

        if (!sys->kvm || sys->halt_state >= c->n_states) {
                c->has_poll = false;
                return;
        }
        if (c->polled_only && c->has_poll) {
                poll_plan_hold(&c->poll);
                return;
        }
        pin = policy_poll_input(in, sys);
        pin.interval_us = t->interval_us;
        pin.util = t->util;
        policy_poll_input_add(&pin, sys, t);
        (void) policy_decide_poll(prof, &pin, c->has_poll ? &c->poll : NULL, &c->poll);
        c->has_poll = true;
        c->poll_util = t->util;
}

/* A CPU whose profile changed (a pin came or went) keeps what its model
 * learned, but nothing the old profile decided holds it back: the new
 * profile's plan may move at once and its poll decision starts afresh. */
static void profile_switch(PolicyCpu *c, const Profile *prof) {
        if (strcmp(c->profile, prof->name) == 0)
                return;
        if (c->profile[0]) {
                c->plan.held_ticks = UINT_MAX;
                /* A poll decision is the old profile's pricing: the new one
                 * decides afresh (a CPU that polled only under "latency"
                 * would otherwise keep polling, its ticks measuring
                 * nothing, until an exploration). */
                c->has_poll = false;
        }
        snprintf(c->profile, sizeof(c->profile), "%s", prof->name);
}

/* Learns and decides for one CPU; c->fresh says whether it did. */
static void cpu_learn(PolicyStep *l, unsigned cpu, const PolicyStepInput *in) {
        const PolicyCpuInput *ci = &in->cpus[cpu];
        PolicyCpu *c = &l->cpus[cpu];
        unsigned n = ci->tick.n_states;
        bool enabled[MODEL_STATES_MAX] = {};
        ModelEvidence ev[MODEL_STATES_MAX];
        ModelParams mp;

        c->fresh = false;
        if (!ci->valid || !ci->profile || !ci->info || n == 0 || n > MODEL_STATES_MAX)
                return;
        if (!c->active || c->n_states != n)
                cpu_reset(c, n);
        profile_switch(c, ci->profile);
        tick_take(ci, &c->tick);
        c->polled_only = polled_only(ci);
        for (unsigned k = 0; k < n; k++)
                enabled[k] = !ci->disabled[k];
        policy_evidence(&c->tick, enabled, ev);
        policy_model_params(ci->profile, &mp);
        (void) model_cpu_learn(&c->model, ev, enabled, &mp);
        (void) policy_decide_cpu(ci->profile, &c->model, &c->tick, step_random(l, in), &c->plan);
        cpu_poll(c, in, ci->profile, &l->sys);
        c->fresh = true;
}

/* Applies the manual settings and the system decision to a CPU that
 * learned this tick.  Returns true if its plan in force moved. */
static bool cpu_settle(PolicyStep *l, unsigned cpu, const PolicyStepInput *in) {
        const PolicyCpuInput *ci = &in->cpus[cpu];
        PolicyCpu *c = &l->cpus[cpu];
        unsigned old_cap = c->cap, old_floor = c->floor;
        bool first = !c->settled;

        if (!c->fresh)
                return false;
        cpu_effective(l, c, in, ci);
        plan_reason_format(c, ci->profile, &l->sys, ci->info);
        c->settled = true;
        return first || c->cap != old_cap || c->floor != old_floor;
}

void policy_step_tick(PolicyStep *l, const PolicyStepInput *in, PlanChangedFunc changed, void *userdata) {
        unsigned n = l->n_cpus < in->n_cpus ? l->n_cpus : in->n_cpus;

        policy_system_facts(l, in);
        for (unsigned cpu = 0; cpu < l->n_cpus; cpu++) {
                if (cpu < n && in->cpus[cpu].online)
                        cpu_learn(l, cpu, in);
                else
                        l->cpus[cpu].active = l->cpus[cpu].fresh = false;
        }
        policy_system_decide(l, in);
        for (unsigned cpu = 0; cpu < n; cpu++)
                if (cpu_settle(l, cpu, in) && changed)
                        changed(cpu, &l->cpus[cpu], userdata);
        l->ticks++;
}

/* Re-decides one CPU whose profile changed from the model and the last
 * tick it learned from, without learning.  Returns true if it did. */
static bool cpu_redecide(PolicyStep *l, unsigned cpu, const PolicyStepInput *in) {
        const PolicyCpuInput *ci = &in->cpus[cpu];
        PolicyCpu *c = &l->cpus[cpu];

        c->fresh = false;
        /* A CPU whose states the sampler lost (offline and back between two
         * ticks) waits for the next tick that learns it again. */
        if (!ci->online || !ci->profile || !ci->info || ci->tick.n_states != c->n_states || !c->active ||
            !c->settled || strcmp(c->profile, ci->profile->name) == 0)
                return false;
        profile_switch(c, ci->profile);
        (void) policy_decide_cpu(ci->profile, &c->model, &c->tick, step_random(l, in), &c->plan);
        cpu_poll(c, in, ci->profile, &l->sys);
        c->fresh = true;
        return true;
}

void policy_step_replan(PolicyStep *l, const PolicyStepInput *in, PlanChangedFunc changed, void *userdata) {
        unsigned n = l->n_cpus < in->n_cpus ? l->n_cpus : in->n_cpus;
        bool any = false;

        for (unsigned cpu = 0; cpu < n; cpu++)
                any |= cpu_redecide(l, cpu, in);
        if (!any)
                return;
        l->replanning = true;
        policy_system_decide(l, in);
        l->replanning = false;
        for (unsigned cpu = 0; cpu < n; cpu++)
                if (l->cpus[cpu].fresh && cpu_settle(l, cpu, in) && changed)
                        changed(cpu, &l->cpus[cpu], userdata);
        for (unsigned cpu = 0; cpu < n; cpu++)
                l->cpus[cpu].fresh = false;
}
