/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The machine-wide part of the policy: on KVM guests (cpuidle driver
 * haltpoll) the halt-poll decision, priced by the profile from the sum of
 * every CPU's poll and halt entries (guest_halt_poll_ns is one value for
 * all CPUs), and the governor the profile asks for. */
#include <stdio.h>
#include <string.h>

#include "policy-step.h"

/* Finds the polling state and the first halt state after it in the state
 * table of the first valid CPU.  Returns true if both exist. */
static bool find_poll_states(const PolicyStepInput *in, unsigned *ret_poll, unsigned *ret_halt) {
        for (unsigned cpu = 0; cpu < in->n_cpus; cpu++) {
                const PolicyCpuInput *c = &in->cpus[cpu];

                if (!c->online || !c->info || c->tick.n_states < 2)
                        continue;
                if (strcmp(c->info[0].name, "POLL") != 0 && c->info[0].latency_us != 0)
                        return false;
                *ret_poll = 0;
                *ret_halt = 1;
                return true;
        }
        return false;
}

/* The mean calibrated wakeup cost of the halt state over the calibrated
 * CPUs, 0 if none. */
static uint32_t halt_cost(const PolicyStepInput *in, unsigned halt_state) {
        uint64_t sum = 0, n = 0;

        for (unsigned cpu = 0; cpu < in->n_cpus; cpu++) {
                const PolicyCpuInput *c = &in->cpus[cpu];
                const CalibrationState *st = c->online && c->info && halt_state < c->tick.n_states ?
                        policy_calibrated_state(in->calibration, cpu, halt_state, c->info[halt_state].name) : NULL;

                if (st && st->wakeup_us > 0) {
                        sum += st->wakeup_us;
                        n++;
                }
        }
        return n > 0 ? (uint32_t) (sum / n) : 0;
}

void policy_system_facts(PolicyStep *l, const PolicyStepInput *in) {
        PolicySystem *sys = &l->sys;
        bool kvm = strcmp(in->system->driver, "haltpoll") == 0 && in->system->haltpoll.present &&
                   find_poll_states(in, &sys->poll_state, &sys->halt_state);

        if (!kvm) {
                sys->has_poll = false;
                sys->halt_cost_us = 0;
                sys->n_groups = 0;
        }
        sys->kvm = kvm;
        if (kvm)
                sys->halt_cost_us = halt_cost(in, sys->halt_state);
}

PollInput policy_poll_input(const PolicyStepInput *in, const PolicySystem *sys) {
        return (PollInput) {
                .interval_us = in->interval_us,
                .halt_cost_us = sys->halt_cost_us,
                .window_ns = strcmp(in->system->governor, "haltpoll") == 0 ? in->system->haltpoll.poll_ns : 0,
        };
}

void policy_poll_input_add(PollInput *pin, const PolicySystem *sys, const PolicyTick *t) {
        pin->d_poll_usage += t->d_usage[sys->poll_state];
        pin->d_halt_usage += t->d_usage[sys->halt_state];
        pin->d_poll_time_us += t->d_time_us[sys->poll_state];
        pin->d_halt_time_us += t->d_time_us[sys->halt_state];
        pin->d_other_wakeups += t->d_other_wakeups;
}

/* Sums the poll and halt entries of the fresh CPUs under profile prof into
 * one PollInput, leaving out the CPUs that polled only (their counters
 * measure nothing about a window).  The machine-wide knob chooses only
 * between no polling and a window: polling only is each CPU's own decision
 * (cpu_kvm_plan()), and a machine "polling only" would leave a CPU that
 * wants a window with none at all.  Returns the number of CPUs summed. */
static unsigned poll_input(const PolicyStep *l, const PolicyStepInput *in, const Profile *prof, PollInput *ret) {
        const PolicySystem *sys = &l->sys;
        int64_t util = 0;
        unsigned n = 0;

        *ret = policy_poll_input(in, sys);
        ret->without_only = true;
        for (unsigned cpu = 0; cpu < l->n_cpus && cpu < in->n_cpus; cpu++) {
                const PolicyCpu *c = &l->cpus[cpu];

                if (!c->fresh || c->polled_only || sys->halt_state >= c->n_states ||
                    !in->cpus[cpu].profile || strcmp(in->cpus[cpu].profile->name, prof->name) != 0)
                        continue;
                policy_poll_input_add(ret, sys, &c->tick);
                util += c->tick.util >= 0 ? c->tick.util : 0;
                n++;
        }
        ret->util = n > 0 ? (int) (util / n) : -1;
        return n;
}

/* The group of the CPUs under the profile called name, added if new.
 * Returns NULL when every slot is taken by another profile. */
static PollGroup *poll_group(PolicySystem *sys, const char *name) {
        for (unsigned i = 0; i < sys->n_groups; i++)
                if (strcmp(sys->groups[i].profile, name) == 0)
                        return &sys->groups[i];
        if (sys->n_groups >= POLICY_POLL_GROUPS_MAX)
                return NULL;
        sys->groups[sys->n_groups] = (PollGroup) {};
        snprintf(sys->groups[sys->n_groups].profile, sizeof(sys->groups[0].profile), "%s", name);
        return &sys->groups[sys->n_groups++];
}

/* Decides the window of every profile in force on a fresh CPU, each over
 * its own CPUs and priced by its own burn price (a CPU pinned with
 * "latency" does not make the machine's "power-saver" CPUs vote for a
 * window, nor the other way round).  Returns true if any group decided. */
static bool decide_groups(PolicyStep *l, const PolicyStepInput *in) {
        PolicySystem *sys = &l->sys;
        bool any = false;

        for (unsigned cpu = 0; cpu < in->n_cpus && cpu < l->n_cpus; cpu++) {
                const Profile *prof = in->cpus[cpu].profile;
                PollGroup *g;
                PollInput pin;

                if (!l->cpus[cpu].fresh || !prof || !(g = poll_group(sys, prof->name)) || g->decided)
                        continue;
                g->decided = true;
                if (poll_input(l, in, prof, &pin) == 0)
                        continue;
                (void) policy_decide_poll(prof, &pin, g->has ? &g->plan : NULL, &g->plan);
                g->has = true;
                any = true;
        }
        return any;
}

/* The machine's window from the groups' decisions: the longest window any
 * group wants (guest_halt_poll_ns is one value: a group that wants none
 * still gets the others' window; its own CPUs' polling-only and caps stay
 * per CPU).  With one profile everywhere this is that profile's decision. */
static void combine_groups(PolicySystem *sys) {
        const PollPlan *best = NULL, *first = NULL;

        for (unsigned i = 0; i < sys->n_groups; i++) {
                const PollPlan *p = &sys->groups[i].plan;

                if (!sys->groups[i].has)
                        continue;
                if (!first)
                        first = p;
                if (p->mode == POLL_MODE_WINDOW && (!best || p->window_ns > best->window_ns))
                        best = p;
        }
        if (!first)
                return;
        sys->poll = *(best ? best : first);
        sys->has_poll = true;
}

/* Drops the groups whose profile no online CPU runs any more (a pin
 * ended): their plan would otherwise come back stale with the profile.  A
 * group whose CPUs were not read at this step (read in turns) keeps its
 * plan. */
static void forget_groups(PolicySystem *sys, const PolicyStepInput *in) {
        unsigned n = 0;

        for (unsigned i = 0; i < sys->n_groups; i++) {
                bool used = false;

                for (unsigned cpu = 0; cpu < in->n_cpus && !used; cpu++)
                        used = in->cpus[cpu].online && in->cpus[cpu].profile &&
                               strcmp(in->cpus[cpu].profile->name, sys->groups[i].profile) == 0;
                if (used)
                        sys->groups[n++] = sys->groups[i];
        }
        sys->n_groups = n;
}

/* The governor the profile wants now, or "" for no opinion; *ret_required
 * says whether the plan needs it (a poll window works only under the
 * haltpoll governor) rather than merely prefers it (menu does not stop the
 * tick on every idle entry: each stop is a VM exit on a guest).  "auto"
 * prefers wteo, the companion governor, wherever the kernel offers it,
 * except on a guest whose plan needs a poll window. */
static const char *wanted_governor(const PolicyStep *l, const PolicyStepInput *in, bool *ret_required) {
        const Profile *p = in->profile;
        const char *g = "";

        *ret_required = false;
        if (in->governor_manual)
                return "";
        if (l->sys.searching) {
                /* The arm needs its governor now: haltpoll for a window,
                 * else menu, which keeps the tick through short idle
                 * periods and honours the disabled POLL (wteo would be
                 * companion mode, where the plan writes no disable bit). */
                *ret_required = true;
                g = l->sys.search.arm > 0 ? "haltpoll" : "menu";
        } else if (p->governor == PROFILE_GOVERNOR_NAMED)
                g = p->governor_name;
        else if (p->governor == PROFILE_GOVERNOR_AUTO) {
                *ret_required = l->sys.kvm && l->sys.has_poll && l->sys.poll.mode == POLL_MODE_WINDOW;
                g = *ret_required ? "haltpoll" : in->system->has_wteo ? CPUIDLE_GOVERNOR_WTEO : l->sys.kvm ? "menu" : "";
        }
        if (!cpuidle_system_has_governor(in->system, g)) {
                *ret_required = false;
                return "";
        }
        return g;
}

void policy_system_decide(PolicyStep *l, const PolicyStepInput *in) {
        PolicySystem *sys = &l->sys;
        unsigned before = sys->n_groups;
        bool changed;

        for (unsigned i = 0; i < sys->n_groups; i++)
                sys->groups[i].decided = false;
        forget_groups(sys, in);
        changed = sys->kvm && (decide_groups(l, in) || sys->n_groups != before);
        policy_search_decide(l, in);
        if (changed && !sys->searching)
                combine_groups(sys);
        snprintf(sys->governor, sizeof(sys->governor), "%s", wanted_governor(l, in, &sys->governor_required));
}
