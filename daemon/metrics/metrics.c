/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "build-config.h"
#include "knob-idle.h"
#include "manager.h"
#include "manager-policy.h"
#include "manager-consolidation.h"
#include "metrics.h"

/* The tick durations' buckets: 100 us .. 1 s (a tick of 1024 CPUs takes
 * about 20 ms, bench/results/daemon-scale.md). */
static const uint64_t tick_bounds_usec[] = {
        100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 1000000,
};

uint64_t metrics_now_usec(clockid_t clock) {
        struct timespec ts;

        (void) clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

void metrics_init(ManagerMetrics *mm) {
        *mm = (ManagerMetrics) {};
        (void) histogram_init(&mm->tick, tick_bounds_usec, ELEMENTSOF(tick_bounds_usec));
}

/* ---- a value that may be missing ----------------------------------------- */

typedef enum ValueKind {
        VALUE_NONE,                  /* no sample */
        VALUE_U64,
        VALUE_USEC,                  /* microseconds, written as seconds */
        VALUE_DOUBLE,
} ValueKind;

typedef struct Value {
        ValueKind kind;
        uint64_t u;
        double d;
} Value;

#define NONE ((Value) { .kind = VALUE_NONE })
#define U64(v) ((Value) { .kind = VALUE_U64, .u = (v) })
#define USEC(v) ((Value) { .kind = VALUE_USEC, .u = (v) })
#define DOUBLE(v) ((Value) { .kind = VALUE_DOUBLE, .d = (v) })

static void put(Exposition *x, const char *name, const char *const *labels, Value v) {
        switch (v.kind) {
        case VALUE_U64:
                exposition_u64(x, name, labels, v.u);
                break;
        case VALUE_USEC:
                exposition_usec(x, name, labels, v.u);
                break;
        case VALUE_DOUBLE:
                exposition_double(x, name, labels, v.d);
                break;
        case VALUE_NONE:
                break;
        }
}

/* A family with one sample. */
static void put_one(Exposition *x, const char *name, ExpositionType type, const char *help,
                    const char *const *labels, Value v) {
        exposition_family(x, name, type, help);
        put(x, name, labels, v);
}

/* ---- per state ------------------------------------------------------------ */

/* One state of one CPU as the families see it. */
typedef struct StateRow {
        const CpuidleStateInfo *info;
        const CpuidleStateCounters *counters;   /* NULL: not sampled */
        const CalibrationState *cal;            /* NULL: not measured */
} StateRow;

static Value state_usage(const StateRow *r) { return r->counters ? U64(r->counters->usage) : NONE; }
static Value state_time(const StateRow *r) { return r->counters ? USEC(r->counters->time_us) : NONE; }
static Value state_above(const StateRow *r) { return r->counters ? U64(r->counters->above) : NONE; }
static Value state_below(const StateRow *r) { return r->counters ? U64(r->counters->below) : NONE; }
static Value state_rejected(const StateRow *r) { return r->counters ? U64(r->counters->rejected) : NONE; }
static Value state_disabled(const StateRow *r) { return r->counters ? U64(r->counters->disabled) : NONE; }
static Value state_latency(const StateRow *r) { return USEC(r->info->latency_us); }
static Value state_residency(const StateRow *r) { return USEC(r->info->residency_us); }
static Value state_measured_latency(const StateRow *r) { return r->cal ? USEC(r->cal->wakeup_us) : NONE; }
static Value state_measured_p99(const StateRow *r) { return r->cal ? USEC(r->cal->wakeup_p99_us) : NONE; }
static Value state_measured_entry(const StateRow *r) { return r->cal ? USEC(r->cal->entry_us) : NONE; }
static Value state_misdescribed(const StateRow *r) { return r->cal ? U64(r->cal->misdescribed) : NONE; }

static Value state_measured_residency(const StateRow *r) {
        return r->cal && r->cal->residency_us > 0 ? USEC(r->cal->residency_us) : NONE;
}

static const struct {
        const char *name;
        ExpositionType type;
        const char *help;
        Value (*get)(const StateRow *r);
} state_families[] = {
        { "idlepolicy_cpuidle_state_usage_total", EXPOSITION_COUNTER,
          "Entries into the idle state (the kernel's usage).", state_usage },
        { "idlepolicy_cpuidle_state_time_seconds_total", EXPOSITION_COUNTER,
          "Time spent in the idle state (the kernel's time).", state_time },
        { "idlepolicy_cpuidle_state_above_total", EXPOSITION_COUNTER,
          "Entries that were too deep: shorter than the state's target residency (the kernel's above).", state_above },
        { "idlepolicy_cpuidle_state_below_total", EXPOSITION_COUNTER,
          "Entries that were too shallow: long enough for a deeper state (the kernel's below).", state_below },
        { "idlepolicy_cpuidle_state_rejected_total", EXPOSITION_COUNTER,
          "Entries the driver refused (the kernel's rejected).", state_rejected },
        { "idlepolicy_cpuidle_state_disabled", EXPOSITION_GAUGE,
          "1 if the state is disabled on this CPU.", state_disabled },
        { "idlepolicy_cpuidle_state_exit_latency_seconds", EXPOSITION_GAUGE,
          "The exit latency the kernel advertises for the state.", state_latency },
        { "idlepolicy_cpuidle_state_target_residency_seconds", EXPOSITION_GAUGE,
          "The target residency the kernel advertises for the state.", state_residency },
        { "idlepolicy_cpuidle_state_measured_exit_latency_seconds", EXPOSITION_GAUGE,
          "Calibration: median extra wakeup latency with only this state allowed, over polling.",
          state_measured_latency },
        { "idlepolicy_cpuidle_state_measured_exit_latency_p99_seconds", EXPOSITION_GAUGE,
          "Calibration: 99th percentile of the extra wakeup latency with only this state allowed.",
          state_measured_p99 },
        { "idlepolicy_cpuidle_state_measured_entry_cost_seconds", EXPOSITION_GAUGE,
          "Calibration: how much more a wakeup costs right after entering the state than once settled in it.",
          state_measured_entry },
        { "idlepolicy_cpuidle_state_measured_target_residency_seconds", EXPOSITION_GAUGE,
          "Calibration: the idle duration from which the state's wakeup cost is flat (its break-even residency).",
          state_measured_residency },
        { "idlepolicy_cpuidle_state_misdescribed", EXPOSITION_GAUGE,
          "Calibration: 1 if the measured wakeup latency exceeds 4 times the advertised one plus 10 us.",
          state_misdescribed },
};

/* The state label of state k: its name, "stateK" when it has none, and
 * "NAME#K" when an earlier state of the CPU has the same name (series must
 * be unique).  Returns buf. */
static const char *state_label(const CpuidleStateInfo *info, unsigned k, char buf[static CPUIDLE_NAME_MAX + 16]) {
        if (!info[k].name[0]) {
                snprintf(buf, CPUIDLE_NAME_MAX + 16, "state%u", k);
                return buf;
        }
        for (unsigned j = 0; j < k; j++)
                if (strcmp(info[j].name, info[k].name) == 0) {
                        snprintf(buf, CPUIDLE_NAME_MAX + 16, "%s#%u", info[k].name, k);
                        return buf;
                }
        return info[k].name;
}

/* Writes the samples of state family f for every state of cpu. */
static void put_cpu_states(Exposition *x, const Manager *m, size_t f, unsigned cpu, const char *cpu_label) {
        const CpuidleCpuSample *c = sampling_counters(m->sampling, cpu);
        unsigned n = 0;
        const CpuidleStateInfo *info = cpuidle_sampler_states(m->sampling->sampler, cpu, &n);

        for (unsigned k = 0; info && k < n; k++) {
                char buf[CPUIDLE_NAME_MAX + 16];
                StateRow row = {
                        .info = &info[k],
                        .counters = c && c->online && k < c->n_states ? &c->states[k] : NULL,
                        .cal = policy_calibrated_state(m->calib.result, cpu, k, info[k].name),
                };
                const char *labels[] = { "cpu", cpu_label, "state", state_label(info, k, buf), NULL };

                put(x, state_families[f].name, labels, state_families[f].get(&row));
        }
}

static void put_states(Exposition *x, const Manager *m) {
        for (size_t f = 0; f < ELEMENTSOF(state_families); f++) {
                exposition_family(x, state_families[f].name, state_families[f].type, state_families[f].help);
                CPUSET_FOREACH(cpu, &m->sampling->topology->present) {
                        char label[16];

                        snprintf(label, sizeof(label), "%d", cpu);
                        put_cpu_states(x, m, f, (unsigned) cpu, label);
                }
        }
}

/* ---- per CPU ------------------------------------------------------------------ */

typedef struct CpuRow {
        const Manager *m;
        unsigned cpu;
        const CpuidleCpuSample *counters;       /* NULL: not sampled */
        const CpuRates *rates;                  /* NULL: before the second sample */
        const ProcCpuSample *proc;              /* NULL: no /proc data */
        const PolicyCpu *plan;                  /* NULL: no plan yet */
} CpuRow;

static Value cpu_online(const CpuRow *r) { return U64(r->m->sampling->topology->cpus[r->cpu].online); }
static Value cpu_cap(const CpuRow *r) { return r->plan ? U64(r->plan->cap) : NONE; }
static Value cpu_floor(const CpuRow *r) { return r->plan ? U64(r->plan->floor) : NONE; }

static Value cpu_util(const CpuRow *r) {
        return r->rates && r->rates->util >= 0 ? DOUBLE(r->rates->util) : NONE;
}

static Value cpu_timer_wakeups(const CpuRow *r) {
        return r->proc && r->proc->has_irq ? U64(r->proc->timer_irqs) : NONE;
}

static Value cpu_other_wakeups(const CpuRow *r) {
        return r->proc && r->proc->has_irq ? U64(r->proc->other_irqs) : NONE;
}

static const struct {
        const char *name;
        ExpositionType type;
        const char *help;
        Value (*get)(const CpuRow *r);
} cpu_families[] = {
        { "idlepolicy_cpu_online", EXPOSITION_GAUGE, "1 if the CPU is online.", cpu_online },
        { "idlepolicy_cpu_plan_cap_state", EXPOSITION_GAUGE,
          "The deepest idle state the plan allows (state index).", cpu_cap },
        { "idlepolicy_cpu_plan_floor_state", EXPOSITION_GAUGE,
          "The shallowest idle state the plan allows (state index).", cpu_floor },
        { "idlepolicy_cpu_utilization_ratio", EXPOSITION_GAUGE,
          "Busy fraction of the CPU over its last sampled interval (0..1).", cpu_util },
        { "idlepolicy_cpu_timer_wakeups_total", EXPOSITION_COUNTER,
          "Timer interrupts on the CPU (/proc/interrupts: LOC and timer rows).", cpu_timer_wakeups },
        { "idlepolicy_cpu_other_wakeups_total", EXPOSITION_COUNTER,
          "Non-timer interrupts on the CPU: IPIs and devices (/proc/interrupts).", cpu_other_wakeups },
};

static CpuRow cpu_row(const Manager *m, unsigned cpu) {
        const Snapshot *s = m->sampling->has_latest ? m->sampling->latest : NULL;
        const PolicyCpu *p = policy_step_cpu(m->policy.loop, cpu);

        return (CpuRow) {
                .m = m,
                .cpu = cpu,
                .counters = sampling_counters(m->sampling, cpu),
                .rates = sampling_rates(m->sampling, cpu),
                .proc = s && cpu < s->n_cpus && s->sampled_usec[cpu] != SNAPSHOT_NEVER ? &s->proc[cpu] : NULL,
                .plan = p && p->settled ? p : NULL,
        };
}

/* The name of state k of cpu for a label ("" when it has none). */
static const char *state_name(const Manager *m, unsigned cpu, unsigned k, char buf[static CPUIDLE_NAME_MAX + 16]) {
        unsigned n = 0;
        const CpuidleStateInfo *info = cpuidle_sampler_states(m->sampling->sampler, cpu, &n);

        return info && k < n ? state_label(info, k, buf) : "";
}

/* "machine", "pin" or "hold": the kind of a CpuProfileChoice source. */
static const char *source_kind(const char *source) {
        if (strncmp(source, "pin", 3) == 0)
                return "pin";
        if (strncmp(source, "hold", 4) == 0)
                return "hold";
        return "machine";
}

static void put_plan_info(Exposition *x, const Manager *m) {
        exposition_family(x, "idlepolicy_cpu_plan_info", EXPOSITION_GAUGE,
                          "The plan in force on the CPU: its cap and floor states and why (always 1).");
        CPUSET_FOREACH(cpu, &m->sampling->topology->present) {
                const PolicyCpu *p = cpu_row(m, (unsigned) cpu).plan;
                char label[16], cap[CPUIDLE_NAME_MAX + 16], floor[CPUIDLE_NAME_MAX + 16];

                if (!p)
                        continue;
                snprintf(label, sizeof(label), "%d", cpu);
                exposition_u64(x, "idlepolicy_cpu_plan_info",
                               (const char *[]) { "cpu", label,
                                                  "cap_state", state_name(m, (unsigned) cpu, p->cap, cap),
                                                  "cap_reason", plan_reason_to_string(p->cap_reason),
                                                  "floor_state", state_name(m, (unsigned) cpu, p->floor, floor),
                                                  "floor_reason", plan_reason_to_string(p->floor_reason), NULL }, 1);
        }
}

static void put_profile_info(Exposition *x, Manager *m) {
        exposition_family(x, "idlepolicy_cpu_profile_info", EXPOSITION_GAUGE,
                          "The profile in force on the CPU and where it comes from: machine, pin or hold (always 1).");
        CPUSET_FOREACH(cpu, &m->sampling->topology->present) {
                const CpuProfileChoice *c = (unsigned) cpu < m->pinning.n_choices ? &m->pinning.choices[cpu] : NULL;
                const char *source = c ? c->source : "machine";
                char label[16];

                snprintf(label, sizeof(label), "%d", cpu);
                exposition_u64(x, "idlepolicy_cpu_profile_info",
                               (const char *[]) { "cpu", label,
                                                  "profile", (c && c->profile ? c->profile : manager_profile(m))->name,
                                                  "source", source_kind(source), "origin", source, NULL }, 1);
        }
}

/* Companion mode: the tolerance the kernel shows per CPU. */
static void put_wteo_tolerance(Exposition *x, const Manager *m) {
        exposition_family(x, "idlepolicy_cpu_wteo_tolerance_ratio", EXPOSITION_GAUGE,
                          "Companion mode: the wteo governor's accepted risk of too deep on the CPU (its tolerance / 1024).");
        CPUSET_FOREACH(cpu, &m->sampling->topology->present) {
                const CompanionCpu *c = companion_cpu(&m->policy.companion, (unsigned) cpu);
                char label[16];

                if (!c || !c->has_tolerance)
                        continue;
                snprintf(label, sizeof(label), "%d", cpu);
                exposition_double(x, "idlepolicy_cpu_wteo_tolerance_ratio", (const char *[]) { "cpu", label, NULL },
                                  c->tolerance / 1024.0);
        }
}

static void put_cpus(Exposition *x, Manager *m) {
        for (size_t f = 0; f < ELEMENTSOF(cpu_families); f++) {
                exposition_family(x, cpu_families[f].name, cpu_families[f].type, cpu_families[f].help);
                CPUSET_FOREACH(cpu, &m->sampling->topology->present) {
                        CpuRow row = cpu_row(m, (unsigned) cpu);
                        char label[16];

                        snprintf(label, sizeof(label), "%d", cpu);
                        put(x, cpu_families[f].name, (const char *[]) { "cpu", label, NULL }, cpu_families[f].get(&row));
                }
        }
        put_plan_info(x, m);
        put_profile_info(x, m);
        put_wteo_tolerance(x, m);
}

/* ---- the machine ---------------------------------------------------------- */

static void put_up(Exposition *x, bool up) {
        put_one(x, "idlepolicy_up", EXPOSITION_GAUGE,
                "1 while idlepolicyd runs; 0 in the textfile it leaves at a clean stop.", NULL, U64(up));
        put_one(x, "idlepolicy_build_info", EXPOSITION_GAUGE, "The daemon's version (always 1).",
                (const char *[]) { "version", PACKAGE_VERSION, NULL }, U64(1));
}

static void put_knobs_changed(Exposition *x, size_t n) {
        put_one(x, "idlepolicy_knobs_changed", EXPOSITION_GAUGE,
                "Knobs the daemon has changed and not put back (after a stop: the ones it could not put back).",
                NULL, U64(n));
}

static void put_system(Exposition *x, const Manager *m) {
        CpuidleSystem sys = {};
        ErrorInfo e = {};
        const PolicySystem *ps = &m->policy.loop->sys;

        (void) cpuidle_system_load(m->root_fd, &sys, &e);
        put_one(x, "idlepolicy_governor_info", EXPOSITION_GAUGE, "The cpuidle driver and governor (always 1).",
                (const char *[]) { "governor", m->sampling->has_latest ? m->sampling->latest->governor : sys.governor,
                                   "driver", sys.driver, NULL }, U64(1));
        put_one(x, "idlepolicy_mode_info", EXPOSITION_GAUGE, "The mode: observe or enforce (always 1).",
                (const char *[]) { "mode", daemon_mode_to_string(m->policy.mode), NULL }, U64(1));
        put_one(x, "idlepolicy_companion_mode", EXPOSITION_GAUGE,
                "1 in companion mode: the wteo governor governs, the daemon sets its parameters instead of disable bits.",
                NULL, U64(m->policy.companion.active));
        put_one(x, "idlepolicy_profile_info", EXPOSITION_GAUGE, "The machine's active profile (always 1).",
                (const char *[]) { "profile", manager_profile(m)->name, NULL }, U64(1));
        put_one(x, "idlepolicy_tick_interval_seconds", EXPOSITION_GAUGE, "The sampling period.",
                NULL, USEC(m->tick_usec));
        put_one(x, "idlepolicy_haltpoll_window_seconds", EXPOSITION_GAUGE,
                "KVM guests: the halt-poll window the plan chose (0: no polling before a halt).",
                NULL, ps->kvm ? USEC(ps->has_poll ? ps->poll.window_ns / 1000 : 0) : NONE);
        put_one(x, "idlepolicy_haltpoll_guest_poll_seconds", EXPOSITION_GAUGE,
                "KVM guests: guest_halt_poll_ns, the halt-poll window in force.",
                NULL, sys.haltpoll.present ? USEC(sys.haltpoll.poll_ns / 1000) : NONE);
}

static void put_knobs_and_claims(Exposition *x, const Manager *m) {
        size_t n = 0;
        const PinRegistry *reg = m->pinning.pins ? pins_registry(m->pinning.pins) : NULL;

        n = change_n_changed(m->changes);
        put_knobs_changed(x, n);
        put_one(x, "idlepolicy_knob_writes_total", EXPOSITION_COUNTER,
                "Writes to the knobs since the daemon started (the plan's, manual ones and restores).",
                NULL, U64(change_knob_writes(m->changes)));
        put_one(x, "idlepolicy_pins", EXPOSITION_GAUGE, "Workload pins.", NULL,
                U64(reg ? pin_registry_n_pins(reg) : 0));
        put_one(x, "idlepolicy_holds", EXPOSITION_GAUGE, "Profile holds.", NULL,
                U64(reg ? pin_registry_n_holds(reg) : 0));
}

static void put_calibration(Exposition *x, const Manager *m, uint64_t realtime_usec) {
        const Calibration *c = m->calib.result;

        put_one(x, "idlepolicy_calibrated", EXPOSITION_GAUGE, "1 if a calibration is in use.", NULL, U64(c != NULL));
        put_one(x, "idlepolicy_calibrating", EXPOSITION_GAUGE, "1 while a calibration runs.", NULL,
                U64(calibrator_running(m->calib.run)));
        put_one(x, "idlepolicy_calibration_age_seconds", EXPOSITION_GAUGE,
                "Time since the calibration in use was measured.", NULL,
                c ? USEC(realtime_usec > c->realtime_usec ? realtime_usec - c->realtime_usec : 0) : NONE);
}

/* Consolidation: the level, the set's size, each CPU in it or not, the
 * background's measured utilisation. */
static void put_consolidation(Exposition *x, const Manager *m) {
        const Consolidation *c = m->consolidation.consolidator ? &m->consolidation.consolidator->state : NULL;
        const char *name = "idlepolicy_cpu_consolidation_in_set";

        put_one(x, "idlepolicy_consolidation_level", EXPOSITION_GAUGE,
                "The consolidation level in force (0 off, 1, 2).", NULL, U64(manager_consolidation_level(m)));
        put_one(x, "idlepolicy_consolidation_set_cpus", EXPOSITION_GAUGE,
                "CPUs the background is confined to (0: not consolidating).", NULL,
                U64(c && c->active ? cpuset_count(&c->set) : 0));
        put_one(x, "idlepolicy_consolidation_background_cpus", EXPOSITION_GAUGE,
                "The background's measured utilisation in CPUs' worth (busy time of the CPUs it may use).", NULL,
                c && c->background >= 0 ? DOUBLE(c->background / 1024.0) : NONE);
        exposition_family(x, name, EXPOSITION_GAUGE, "1 if the CPU is in the consolidation set.");
        CPUSET_FOREACH(cpu, &m->sampling->topology->online) {
                char label[16];

                snprintf(label, sizeof(label), "%d", cpu);
                exposition_u64(x, name, (const char *[]) { "cpu", label, NULL },
                               c && c->active && cpuset_contains(&c->set, (unsigned) cpu));
        }
}

int metrics_format(Manager *m, uint64_t realtime_usec, char **ret, size_t *ret_len) {
        Exposition x;

        if (exposition_init(&x) < 0)
                return -ENOMEM;
        put_up(&x, true);
        put_system(&x, m);
        put_knobs_and_claims(&x, m);
        put_calibration(&x, m, realtime_usec);
        put_consolidation(&x, m);
        latency_watch_metrics(&m->latency, &x);
        exposition_family(&x, "idlepolicy_tick_duration_seconds", EXPOSITION_HISTOGRAM,
                          "How long a tick (sample, plan, enforce) took.");
        exposition_histogram(&x, "idlepolicy_tick_duration_seconds", NULL, &m->metrics.tick);
        light_tick_metrics(m, &x);
        put_cpus(&x, m);
        put_states(&x, m);
        return exposition_finish(&x, ret, ret_len);
}

int metrics_format_stopped(size_t knobs_left, char **ret, size_t *ret_len) {
        Exposition x;

        if (exposition_init(&x) < 0)
                return -ENOMEM;
        put_up(&x, false);
        put_knobs_changed(&x, knobs_left);
        return exposition_finish(&x, ret, ret_len);
}
