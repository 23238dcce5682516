/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The poll frontier search in the policy step: when it runs, what a tick
 * measured under which arm, and what the plan wants while it runs.
 *
 * It runs on a KVM guest (policy_system_facts()) whose machine profile has
 * a poll_search weight and lets the policy choose the governor ("auto"),
 * while the governor and guest_halt_poll_ns are nobody else's and the
 * ticks measure the machine's context switches.  A tree whose context
 * switch count never moves (a fake one), or whose CPUs are read in turns
 * (a read budget), gives the search nothing to measure: after
 * SILENT_TICKS such ticks it stops and the priced rule (policy-poll.c)
 * decides again.  Arm 0's governor is menu, never wteo: wteo would be
 * companion mode, where the plan writes no disable bit. */
#include <stdio.h>
#include <string.h>

#include "policy-step.h"

#define SILENT_TICKS 4

bool policy_search_owns_profile(const PolicySystem *sys, const char *profile) {
        return sys->searching && profile && strcmp(profile, sys->search_profile) == 0;
}

bool policy_search_owns_cpu(const PolicySystem *sys, const Profile *prof) {
        return policy_search_owns_profile(sys, prof ? prof->name : NULL);
}

bool policy_step_wants_fast_tick(const PolicyStep *l) {
        return l->sys.searching && l->sys.search.fast;
}

bool policy_step_awaits_program(const PolicyStep *l) {
        return l->sys.searching && l->sys.search.phase == POLL_SEARCH_HOLD && l->sys.search.best == 0;
}

/* Whether this CPU takes part in the search's measurement and plan. */
static bool cpu_searched(const PolicyStep *l, const PolicyStepInput *in, unsigned cpu) {
        return cpu < l->n_cpus && in->cpus[cpu].online && in->cpus[cpu].profile &&
               strcmp(in->cpus[cpu].profile->name, in->profile->name) == 0;
}

/* Whether every searched CPU polled only during the tick: its resume
 * latency "n/a", or every state but the polling ones disabled. */
static bool searched_poll_only(const PolicyStep *l, const PolicyStepInput *in) {
        bool any = false;

        for (unsigned cpu = 0; cpu < in->n_cpus; cpu++) {
                const PolicyCpuInput *c = &in->cpus[cpu];

                if (!cpu_searched(l, in, cpu))
                        continue;
                any = true;
                if (c->resume_latency_na)
                        continue;
                for (unsigned k = 0; k < c->tick.n_states && k < MODEL_STATES_MAX; k++)
                        if (!c->tick.states[k].polling && !c->disabled[k])
                                return false;
        }
        return any;
}

/* The arm in force during the tick: polling only on every searched CPU
 * (whatever the governor and window); a haltpoll window of one of the
 * arms' lengths; or another governor with POLL disabled on every
 * searched CPU; -1 for anything else. */
static int arm_in_force(const PolicyStep *l, const PolicyStepInput *in) {
        const PolicySystem *sys = &l->sys;

        if (searched_poll_only(l, in))
                return POLL_SEARCH_ONLY;
        if (strcmp(in->system->governor, "haltpoll") == 0) {
                for (int a = 1; a < POLL_SEARCH_ONLY; a++)
                        if (in->system->haltpoll.poll_ns == poll_search_window_ns[a])
                                return a;
                return -1;
        }
        for (unsigned cpu = 0; cpu < in->n_cpus; cpu++)
                if (cpu_searched(l, in, cpu) && !in->cpus[cpu].disabled[sys->poll_state])
                        return -1;
        return 0;
}

/* The µs of proc/stat's resolution (USER_HZ 100) that two readings of the
 * same idle time may differ by. */
#define PROCSTAT_SLACK_US 20000u

uint64_t policy_tick_halted_us(const PolicyTick *t) {
        uint64_t counted = 0, polled = 0, halts = 0, idle, from_stat;

        for (unsigned k = 0; k < t->n_states; k++)
                if (t->states[k].polling)
                        polled += t->d_time_us[k];
                else {
                        counted += t->d_time_us[k];
                        halts += t->d_usage[k];
                }
        if (t->util < 0 || halts * PROCSTAT_SLACK_US >= t->interval_us)
                return counted;
        idle = t->interval_us - (t->interval_us * (uint64_t) (t->util > 1024 ? 1024 : t->util) >> 10);
        from_stat = idle > polled ? idle - polled : 0;
        if (counted + PROCSTAT_SLACK_US < from_stat || from_stat + PROCSTAT_SLACK_US < counted)
                return from_stat;
        return counted;
}

/* The tick as a sample: the machine's context switches, the CPU time of
 * every online CPU not spent halted (policy_tick_halted_us()), and the
 * idle periods the states' counters saw (entries and time, polling and
 * not).  Not a sample (complete false) when a CPU was not read at this
 * tick. */
typedef struct SearchSample {
        PollSearchSample s;
        bool complete;                  /* every online CPU was read */
} SearchSample;

static SearchSample search_sample(const PolicyStep *l, const PolicyStepInput *in) {
        SearchSample r = {
                .s = { .arm = arm_in_force(l, in), .progress = in->d_ctxt, .interval_us = in->interval_us,
                       .idle_known = true },
                .complete = true,
        };

        for (unsigned cpu = 0; cpu < in->n_cpus && cpu < l->n_cpus; cpu++) {
                const PolicyCpuInput *c = &in->cpus[cpu];
                uint64_t halted;

                if (!c->online)
                        continue;
                if (!c->valid || !l->cpus[cpu].fresh) {
                        r.complete = false;
                        continue;
                }
                halted = policy_tick_halted_us(&c->tick);
                if (halted > c->tick.interval_us)
                        halted = c->tick.interval_us;
                r.s.burned_us += c->tick.interval_us - halted;
                r.s.idle_us += halted;
                for (unsigned k = 0; k < c->tick.n_states; k++)
                        if (c->tick.states[k].polling) {
                                r.s.polls += c->tick.d_usage[k];
                                r.s.polled_us += c->tick.d_time_us[k];
                                r.s.idle_us += c->tick.d_time_us[k];
                        } else {
                                r.s.halts += c->tick.d_usage[k];
                                r.s.halted_us += c->tick.d_time_us[k];
                        }
        }
        return r;
}

/* Whether the search may run under the machine's profile now. */
static bool search_allowed(const PolicyStep *l, const PolicyStepInput *in) {
        const Profile *p = in->profile;

        return l->sys.kvm && p && p->poll_search > 0 && p->governor == PROFILE_GOVERNOR_AUTO &&
               !in->governor_manual && !in->window_manual && in->system->governor_writable &&
               in->system->haltpoll.present && cpuidle_system_has_governor(in->system, "haltpoll") &&
               cpuidle_system_has_governor(in->system, "menu");
}

static void search_stop(PolicySystem *sys) {
        if (sys->searching) {
                sys->has_poll = false;      /* the priced rule decides afresh */
                sys->n_groups = 0;
        }
        sys->searching = false;
        sys->search_profile[0] = '\0';
        poll_search_reset(&sys->search);
}

void policy_search_decide(PolicyStep *l, const PolicyStepInput *in) {
        PolicySystem *sys = &l->sys;
        SearchSample s = {};
        bool measured;

        if (l->replanning)
                return;                 /* the tick was measured already */
        if (!search_allowed(l, in) || (sys->searching && strcmp(sys->search_profile, in->profile->name) != 0)) {
                search_stop(sys);
                return;
        }
        /* A tick is a measurement when the machine's context switches
         * moved and every CPU was read (not with a read budget that reads
         * CPUs in turns). */
        measured = in->has_ctxt && in->d_ctxt > 0;
        if (measured) {
                s = search_sample(l, in);
                measured = s.complete;
        }
        sys->search_silent = measured ? 0 : sys->search_silent + (sys->search_silent < SILENT_TICKS);
        if (sys->search_silent >= SILENT_TICKS) {
                search_stop(sys);
                return;
        }
        if (!measured)
                return;                 /* the arm holds */
        if (!sys->searching) {
                poll_search_reset(&sys->search);
                snprintf(sys->search_profile, sizeof(sys->search_profile), "%s", in->profile->name);
                sys->searching = true;
        }
        (void) poll_search_step(&sys->search, &s.s, in->profile->poll_search);
        sys->poll = (PollPlan) {
                .mode = sys->search.arm == 0                ? POLL_MODE_NONE :
                        sys->search.arm == POLL_SEARCH_ONLY ? POLL_MODE_ONLY :
                                                              POLL_MODE_WINDOW,
                .window_ns = poll_search_window_ns[sys->search.arm],
                .held_ticks = sys->search.held,
        };
        sys->has_poll = true;
}
