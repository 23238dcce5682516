/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "knob-idle.h"
#include "policy-input.h"

void policy_input_buffer_done(PolicyInputBuffer *b) {
        free(b->cpus);
        *b = (PolicyInputBuffer) {};
}

bool policy_owns_knob(const PolicySources *src, const char *path) {
        return change_owned_by(src->changes, path, CHANGE_OWNER(PLAN));
}

bool policy_knob_manual(const PolicySources *src, const char *path) {
        return change_owned_by(src->changes, path, CHANGE_OWNER(MANUAL));
}

static uint64_t per_interval(double per_s, uint64_t interval_usec) {
        return per_s > 0 ? (uint64_t) (per_s * (double) interval_usec / 1e6 + 0.5) : 0;
}

static uint32_t clamp_u32(uint64_t v) {
        return v > UINT32_MAX ? UINT32_MAX : (uint32_t) v;
}

/* What the policy is told about state k of cpu: the advertised costs, the
 * calibrated ones, the tick's deltas. */
static void state_fill(const PolicySources *src, unsigned cpu, unsigned k, const CpuidleStateInfo *info,
                       const CpuRates *r, PolicyTick *t) {
        PolicyState *st = &t->states[k];

        *st = (PolicyState) {
                .latency_us = clamp_u32(info->latency_us),
                .residency_us = clamp_u32(info->residency_us),
                .polling = strcmp(info->name, "POLL") == 0 || (k == 0 && info->latency_us == 0),
        };
        policy_state_calibrate(st, src->calibration, cpu, k, info->name);
        t->d_usage[k] = r->states[k].d_usage;
        t->d_above[k] = r->states[k].d_above;
        t->d_below[k] = r->states[k].d_below;
        t->d_time_us[k] = r->states[k].d_time_us;
}

const Profile *policy_sources_profile(const PolicySources *src, unsigned cpu) {
        return cpu < src->n_choices && src->choices[cpu].profile ? src->choices[cpu].profile : src->profile;
}

/* Fills one CPU's input. */
static void cpu_fill(const PolicySources *src, unsigned cpu, PolicyCpuInput *in) {
        const Sampling *s = src->sampling;
        const CpuRates *r = sampling_rates(s, cpu);
        const CpuidleCpuSample *smp = sampling_counters(s, cpu);
        uint64_t interval = r ? r->interval_usec : 0;
        bool any_manual = change_count_kind(src->changes, CHANGE_OWNER_MANUAL) > 0;
        bool any_plan = change_count_kind(src->changes, CHANGE_OWNER_PLAN) > 0;
        char path[KNOB_PATH_MAX];
        unsigned n = 0;

        *in = (PolicyCpuInput) { .online = cpuset_contains(&s->topology->online, cpu) };
        if (!in->online)
                return;
        in->profile = policy_sources_profile(src, cpu);
        in->consolidation_freed = src->consolidation_freed && cpuset_contains(src->consolidation_freed, cpu);
        in->info = cpuidle_sampler_states(s->sampler, cpu, &n);
        in->tick.n_states = n;
        /* A CPU not read at this tick: its plan holds, its model waits. */
        if (!r || !r->fresh || !r->valid || !smp || n == 0 || n > MODEL_STATES_MAX || r->n_states != n || smp->n_states != n)
                return;
        in->valid = true;
        in->resume_latency_na = smp->has_resume_latency && smp->resume_latency_us == CPUIDLE_RESUME_LATENCY_NA;
        in->tick.interval_us = interval;
        in->tick.util = r->util >= 0 ? (int) (r->util * 1024.0 + 0.5) : -1;
        in->tick.d_timer_wakeups = per_interval(r->timer_wakeups_per_s, interval);
        in->tick.d_other_wakeups = per_interval(r->other_wakeups_per_s, interval);
        for (unsigned k = 0; k < n; k++) {
                state_fill(src, cpu, k, &in->info[k], r, &in->tick);
                in->disabled[k] = smp->states[k].disabled;
                if ((any_manual || (any_plan && in->disabled[k])))
                        knob_state_disable_path(cpu, k, path);
                in->manual[k] = any_manual && policy_knob_manual(src, path);
                in->owned[k] = any_plan && in->disabled[k] && policy_owns_knob(src, path);
        }
}

int policy_input_build(PolicyInputBuffer *b, const PolicySources *src, PolicyStepInput *ret) {
        unsigned n = src->sampling->topology->n_cpus;

        if (n > b->n_allocated) {
                PolicyCpuInput *p = realloc(b->cpus, n * sizeof(PolicyCpuInput));
                if (!p)
                        return -ENOMEM;
                b->cpus = p;
                b->n_allocated = n;
        }
        for (unsigned cpu = 0; cpu < n; cpu++)
                cpu_fill(src, cpu, &b->cpus[cpu]);
        *ret = (PolicyStepInput) {
                .n_cpus = n,
                .cpus = b->cpus,
                .profile = src->profile,
                .interval_us = src->sampling->interval_usec,
                .system = src->system,
                .calibration = src->calibration,
                .governor_manual = policy_knob_manual(src, SYSFS_CPUIDLE_GOVERNOR),
                .window_manual = policy_knob_manual(src, SYSFS_HALTPOLL_NS),
                .has_ctxt = src->sampling->has_ctxt,
                .d_ctxt = src->sampling->d_ctxt,
        };
        return 0;
}
