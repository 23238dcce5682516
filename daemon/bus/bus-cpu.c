/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "bus-util.h"
#include "bus-cpu.h"
#include "fileio.h"
#include "knob-idle.h"
#include "manager.h"
#include "manager-policy.h"
#include "policy-step.h"

/* Parses ".../cpu/N" for a present CPU.  Returns 0, or -ENOENT. */
static int cpu_from_path(const Manager *m, const char *path, unsigned *ret) {
        const Topology *t = m->sampling->topology;
        size_t n = strlen(BUS_CPU_PREFIX "/");
        unsigned long cpu;
        char *end;

        if (strncmp(path, BUS_CPU_PREFIX "/", n) != 0)
                return -ENOENT;
        path += n;
        if (path[0] < '0' || path[0] > '9' || (path[0] == '0' && path[1] != '\0'))
                return -ENOENT;
        errno = 0;
        cpu = strtoul(path, &end, 10);
        if (errno != 0 || *end != '\0' || cpu >= t->n_cpus || !t->cpus[cpu].present)
                return -ENOENT;
        *ret = (unsigned) cpu;
        return 0;
}

/* The CPU of an object whose path cpu_find() accepted. */
static unsigned path_cpu(const Manager *m, const char *path) {
        unsigned cpu = 0;

        (void) cpu_from_path(m, path, &cpu);
        return cpu;
}

static int cpu_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
                    void **ret_found, sd_bus_error *error) {
        unsigned cpu;

        if (cpu_from_path(userdata, path, &cpu) < 0)
                return 0;
        *ret_found = userdata;
        return 1;
}

static int cpu_enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes, sd_bus_error *error) {
        Manager *m = userdata;
        const CpuSet *present = &m->sampling->topology->present;
        size_t n = 0;
        char **l = calloc(cpuset_count(present) + 1, sizeof(char *));

        if (!l)
                return -ENOMEM;
        CPUSET_FOREACH(cpu, present) {
                char p[64];
                if (bus_nodes_add(l, &n, bus_cpu_path((unsigned) cpu, p)) < 0)
                        return -ENOMEM;
        }
        *ret_nodes = l;
        return 0;
}

static int property_get_index(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "u", path_cpu(userdata, path));
}

static int property_get_online(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        unsigned cpu = path_cpu(m, path), n = 0;

        (void) cpuidle_sampler_states(m->sampling->sampler, cpu, &n);
        return sd_bus_message_append(reply, "b", m->sampling->topology->cpus[cpu].online && n > 0);
}

static int property_get_topology_id(sd_bus *bus, const char *path, const char *interface, const char *property,
                                    sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const TopologyCpu *c = &m->sampling->topology->cpus[path_cpu(m, path)];
        int id = strcmp(property, "Package") == 0 ? c->package_id :
                 strcmp(property, "Die") == 0 ? c->die_id : c->core_id;

        return sd_bus_message_append(reply, "i", id);
}

static int property_get_siblings(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const TopologyCpu *c = &m->sampling->topology->cpus[path_cpu(m, path)];
        char list[1024] = "";
        int r = cpuset_format(&c->siblings, list, sizeof(list));

        return r < 0 ? r : sd_bus_message_append(reply, "s", list);
}

/* The resume latency as last sampled or written (knob-view.h). */
static int property_get_resume_latency(sd_bus *bus, const char *path, const char *interface, const char *property,
                                       sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const KnobViewCpu *c = knob_view_cpu(&m->view, path_cpu(m, path));

        return sd_bus_message_append(reply, "u", c && c->has_resume_latency ? c->resume_latency_us : 0);
}

/* A state's disable bit as last sampled or written (knob-view.h). */
static bool state_disabled(const Manager *m, unsigned cpu, unsigned k, const CpuidleStateInfo *s) {
        const KnobViewCpu *c = knob_view_cpu(&m->view, cpu);

        return (s->files & CPUIDLE_HAS_DISABLE) && c && k < 64 && (c->disabled >> k & 1);
}

static int property_get_states(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        unsigned cpu = path_cpu(m, path), n = 0;
        const CpuidleStateInfo *s = cpuidle_sampler_states(m->sampling->sampler, cpu, &n);
        int r = sd_bus_message_open_container(reply, 'a', "(ussttbb)");

        for (unsigned k = 0; r >= 0 && k < n; k++)
                r = sd_bus_message_append(reply, "(ussttbb)", k, s[k].name, s[k].desc, s[k].latency_us, s[k].residency_us,
                                          state_disabled(m, cpu, k, &s[k]), s[k].default_enabled);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int property_get_counters(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const CpuidleCpuSample *c = sampling_counters(m->sampling, path_cpu(m, path));
        int r = sd_bus_message_open_container(reply, 'a', "(uttttt)");

        for (unsigned k = 0; r >= 0 && c && k < c->n_states; k++) {
                const CpuidleStateCounters *s = &c->states[k];
                r = sd_bus_message_append(reply, "(uttttt)", k, s->usage, s->time_us, s->above, s->below, s->rejected);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* Rates: one row per state; zeros until two samples of the same state
 * table are known. */
static int property_get_rates(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        static const StateRates zero = {};
        Manager *m = userdata;
        unsigned cpu = path_cpu(m, path), n = 0;
        const CpuRates *c = sampling_rates(m->sampling, cpu);
        bool known = c && c->valid;
        int r = sd_bus_message_open_container(reply, 'a', "(uddddd)");

        (void) cpuidle_sampler_states(m->sampling->sampler, cpu, &n);
        if (known)
                n = c->n_states;
        for (unsigned k = 0; r >= 0 && k < n; k++) {
                const StateRates *s = known ? &c->states[k] : &zero;
                r = sd_bus_message_append(reply, "(uddddd)", k, s->usage_per_s, s->usage_share_pct, s->time_share_pct,
                                          s->too_deep_pct, s->too_shallow_pct);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int property_get_cpu_rate(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const CpuRates *c = sampling_rates(m->sampling, path_cpu(m, path));
        double v = -1;

        if (c)
                v = strcmp(property, "Util") == 0 ? c->util :
                    strcmp(property, "TimerWakeups") == 0 ? c->timer_wakeups_per_s : c->other_wakeups_per_s;
        return sd_bus_message_append(reply, "d", v < 0 ? -1.0 : v);
}

/* The CPU's policy state, or NULL before its first plan. */
static const PolicyCpu *path_plan(const Manager *m, const char *path) {
        const PolicyCpu *c = policy_step_cpu(m->policy.loop, path_cpu(m, path));

        return c && c->settled ? c : NULL;
}

static int property_get_plan_end(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const PolicyCpu *c = path_plan(m, path);
        unsigned n = 0;

        if (c)
                return sd_bus_message_append(reply, "u", (uint32_t) (strcmp(property, "Cap") == 0 ? c->cap : c->floor));
        (void) cpuidle_sampler_states(m->sampling->sampler, path_cpu(m, path), &n);
        return sd_bus_message_append(reply, "u", (uint32_t) (strcmp(property, "Cap") == 0 && n > 0 ? n - 1 : 0));
}

static int property_get_plan_reason(sd_bus *bus, const char *path, const char *interface, const char *property,
                                    sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const PolicyCpu *c = path_plan(userdata, path);
        PlanReason r = !c ? PLAN_REASON_NONE : strcmp(property, "CapReason") == 0 ? c->cap_reason : c->floor_reason;

        return sd_bus_message_append(reply, "s", plan_reason_to_string(r));
}

static int property_get_reason(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const PolicyCpu *c = path_plan(userdata, path);

        return sd_bus_message_append(reply, "s", c ? c->reason : "no plan yet: waiting for two samples of this CPU");
}

static int property_get_weights(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const PolicyCpu *c = path_plan(userdata, path);
        int r = sd_bus_message_open_container(reply, 'a', "aq");

        for (unsigned s = 0; r >= 0 && c && s < c->n_states; s++)
                r = sd_bus_message_append_array(reply, 'q', c->model.w[s], c->n_states * sizeof(uint16_t));
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* Companion mode: the tolerance in force (-1: none read). */
static int property_get_wteo_tolerance(sd_bus *bus, const char *path, const char *interface, const char *property,
                                       sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const CompanionCpu *x = companion_cpu(&m->policy.companion, path_cpu(m, path));

        return sd_bus_message_append(reply, "i", x && x->has_tolerance ? (int32_t) x->tolerance : -1);
}

/* Companion mode: the kernel's own matrix (empty: none, or ignored). */
static int property_get_kernel_weights(sd_bus *bus, const char *path, const char *interface, const char *property,
                                       sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        WteoMatrix w;
        bool ok = companion_matrix(&m->policy.companion, m->root_fd, m->sampling, path_cpu(m, path), &w) >= 0;
        int r = sd_bus_message_open_container(reply, 'a', "aq");

        for (unsigned s = 0; r >= 0 && ok && s < w.n; s++)
                r = sd_bus_message_append_array(reply, 'q', w.w[s], w.n * sizeof(uint16_t));
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* Why KernelWeights is empty: "" when it is not (or outside companion
 * mode), else the reason the matrix was ignored. */
static int property_get_kernel_weights_error(sd_bus *bus, const char *path, const char *interface,
                                             const char *property, sd_bus_message *reply, void *userdata,
                                             sd_bus_error *error) {
        Manager *m = userdata;
        unsigned cpu = path_cpu(m, path);
        const CompanionCpu *x;
        WteoMatrix w;

        (void) companion_matrix(&m->policy.companion, m->root_fd, m->sampling, cpu, &w);
        x = companion_cpu(&m->policy.companion, cpu);
        return sd_bus_message_append(reply, "s", x ? x->matrix_error : "");
}

static int property_get_poll_success(sd_bus *bus, const char *path, const char *interface, const char *property,
                                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const PolicyCpu *c = path_plan(userdata, path);
        double v = c && c->has_poll ? c->poll.success / 1024.0 : -1.0;

        return sd_bus_message_append(reply, "d", v);
}

static int property_get_calibrated(sd_bus *bus, const char *path, const char *interface, const char *property,
                                   sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        unsigned cpu = path_cpu(m, path), n = 0;
        const CpuidleStateInfo *info = cpuidle_sampler_states(m->sampling->sampler, cpu, &n);
        int r = sd_bus_message_open_container(reply, 'a', "(uuuub)");

        for (unsigned k = 0; r >= 0 && k < n; k++) {
                const CalibrationState *st = policy_calibrated_state(m->calib.result, cpu, k, info[k].name);

                if (st)
                        r = sd_bus_message_append(reply, "(uuuub)", k, st->advertised_latency_us, st->wakeup_us,
                                                  st->wakeup_p99_us, st->misdescribed);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* Appends (index, entry, residency, curve) for one calibrated state.
 * Returns 0 or a negative errno. */
static int append_entry_cost(sd_bus_message *reply, unsigned k, const CalibrationState *st) {
        int r = sd_bus_message_open_container(reply, 'r', "uuua(ui)");

        if (r >= 0)
                r = sd_bus_message_append(reply, "uuu", k, st->entry_us, st->residency_us);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(ui)");
        for (unsigned i = 0; r >= 0 && i < st->n_curve && i < CALIBRATION_CURVE_MAX; i++)
                r = sd_bus_message_append(reply, "(ui)", st->curve[i].idle_us, st->curve[i].penalty_us);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int property_get_calibrated_entry(sd_bus *bus, const char *path, const char *interface, const char *property,
                                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        unsigned cpu = path_cpu(m, path), n = 0;
        const CpuidleStateInfo *info = cpuidle_sampler_states(m->sampling->sampler, cpu, &n);
        int r = sd_bus_message_open_container(reply, 'a', "(uuua(ui))");

        for (unsigned k = 0; r >= 0 && k < n; k++) {
                const CalibrationState *st = policy_calibrated_state(m->calib.result, cpu, k, info[k].name);

                if (st)
                        r = append_entry_cost(reply, k, st);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* The profile in force on the CPU (Profile) and where it comes from
 * (ProfileSource: "machine", "pin …", "hold …"); a CPU the pins have not
 * been resolved for runs the machine's. */
static int property_get_profile(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        unsigned cpu = path_cpu(m, path);
        const CpuProfileChoice *c = cpu < m->pinning.n_choices ? &m->pinning.choices[cpu] : NULL;

        if (strcmp(property, "ProfileSource") == 0)
                return sd_bus_message_append(reply, "s", c ? c->source : "machine");
        return sd_bus_message_append(reply, "s", (c && c->profile ? c->profile : manager_profile(m))->name);
}

static const sd_bus_vtable cpu_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Index", "u", property_get_index, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Online", "b", property_get_online, 0, 0),
        SD_BUS_PROPERTY("Package", "i", property_get_topology_id, 0, 0),
        SD_BUS_PROPERTY("Die", "i", property_get_topology_id, 0, 0),
        SD_BUS_PROPERTY("Core", "i", property_get_topology_id, 0, 0),
        SD_BUS_PROPERTY("Siblings", "s", property_get_siblings, 0, 0),
        SD_BUS_PROPERTY("ResumeLatencyUSec", "u", property_get_resume_latency, 0, 0),
        SD_BUS_PROPERTY("States", "a(ussttbb)", property_get_states, 0, 0),
        SD_BUS_PROPERTY("Counters", "a(uttttt)", property_get_counters, 0, 0),
        SD_BUS_PROPERTY("Rates", "a(uddddd)", property_get_rates, 0, 0),
        SD_BUS_PROPERTY("Util", "d", property_get_cpu_rate, 0, 0),
        SD_BUS_PROPERTY("TimerWakeups", "d", property_get_cpu_rate, 0, 0),
        SD_BUS_PROPERTY("OtherWakeups", "d", property_get_cpu_rate, 0, 0),
        SD_BUS_PROPERTY("Cap", "u", property_get_plan_end, 0, 0),
        SD_BUS_PROPERTY("Floor", "u", property_get_plan_end, 0, 0),
        SD_BUS_PROPERTY("CapReason", "s", property_get_plan_reason, 0, 0),
        SD_BUS_PROPERTY("FloorReason", "s", property_get_plan_reason, 0, 0),
        SD_BUS_PROPERTY("Reason", "s", property_get_reason, 0, 0),
        SD_BUS_PROPERTY("Weights", "aaq", property_get_weights, 0, 0),
        SD_BUS_PROPERTY("KernelWeights", "aaq", property_get_kernel_weights, 0, 0),
        SD_BUS_PROPERTY("KernelWeightsError", "s", property_get_kernel_weights_error, 0, 0),
        SD_BUS_PROPERTY("WteoTolerance", "i", property_get_wteo_tolerance, 0, 0),
        SD_BUS_PROPERTY("PollSuccess", "d", property_get_poll_success, 0, 0),
        SD_BUS_PROPERTY("Calibrated", "a(uuuub)", property_get_calibrated, 0, 0),
        SD_BUS_PROPERTY("CalibratedEntry", "a(uuua(ui))", property_get_calibrated_entry, 0, 0),
        SD_BUS_PROPERTY("Profile", "s", property_get_profile, 0, 0),
        SD_BUS_PROPERTY("ProfileSource", "s", property_get_profile, 0, 0),
        SD_BUS_VTABLE_END,
};

/* Announces CPU objects that appeared or vanished between two topologies. */
static void emit_cpus_changed(Manager *m, const Topology *old, const Topology *new) {
        unsigned n = old->n_cpus > new->n_cpus ? old->n_cpus : new->n_cpus;

        for (unsigned cpu = 0; m->bus && cpu < n; cpu++) {
                bool was = cpuset_contains(&old->present, cpu), is = cpuset_contains(&new->present, cpu);
                char path[64];

                if (was == is)
                        continue;
                bus_cpu_path(cpu, path);
                if (is)
                        (void) sd_bus_emit_object_added(m->bus, path);
                else
                        (void) sd_bus_emit_object_removed(m->bus, path);
        }
}

/* Returns 0 or a negative errno. */
int bus_cpu_register(Manager *m) {
        int r;

        r = sd_bus_add_fallback_vtable(m->bus, NULL, BUS_CPU_PREFIX, BUS_CPU_INTERFACE, cpu_vtable, cpu_find, m);
        if (r >= 0)
                r = sd_bus_add_node_enumerator(m->bus, NULL, BUS_CPU_PREFIX, cpu_enumerate, m);
        if (r < 0)
                return r;
        m->events.cpus_changed = emit_cpus_changed;
        return 0;
}
