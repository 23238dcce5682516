/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stddef.h>

#include "build-config.h"
#include "bus-cpu.h"
#include "bus-error.h"
#include "bus-util.h"
#include "bus-manager.h"
#include "log.h"
#include "manager.h"
#include "manager-consolidation.h"
#include "manager-ops.h"
#include "manager-policy.h"
#include "metrics.h"

/* The system-wide cpuidle files as last sampled (knob-view.h); a system
 * without cpuidle gives an empty one.  Returns 0. */
static int load_system(Manager *m, CpuidleSystem *ret, sd_bus_error *error) {
        *ret = m->view.system;
        return 0;
}

static int property_get_version(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", PACKAGE_VERSION);
}

static int property_get_system_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                                      sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        CpuidleSystem sys;
        int r = load_system(userdata, &sys, error);

        if (r < 0)
                return r;
        return sd_bus_message_append(reply, "s", property[0] == 'D' ? sys.driver : sys.governor);
}

static int property_get_available_governors(sd_bus *bus, const char *path, const char *interface, const char *property,
                                            sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        CpuidleSystem sys;
        int r = load_system(userdata, &sys, error);

        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "s");
        for (unsigned i = 0; r >= 0 && i < sys.n_governors; i++)
                r = sd_bus_message_append(reply, "s", sys.governors[i]);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int property_get_cpus(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        int r = sd_bus_message_open_container(reply, 'a', "o");

        CPUSET_FOREACH(cpu, &m->sampling->topology->present) {
                char p[64];
                if (r >= 0)
                        r = sd_bus_message_append(reply, "o", bus_cpu_path((unsigned) cpu, p));
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int property_get_online_cpus(sd_bus *bus, const char *path, const char *interface, const char *property,
                                    sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        char list[4096] = "";
        int r = cpuset_format(&m->sampling->topology->online, list, sizeof(list));

        if (r < 0)
                return r;
        return sd_bus_message_append(reply, "s", list);
}

static int property_get_haltpoll(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        CpuidleSystem sys;
        int r = load_system(userdata, &sys, error);
        const HaltpollParams *h = &sys.haltpoll;

        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "{st}");
        if (r >= 0 && h->present)
                r = sd_bus_message_append(reply, "{st}{st}{st}{st}{st}",
                                          "guest_halt_poll_ns", h->poll_ns,
                                          "guest_halt_poll_grow", h->grow,
                                          "guest_halt_poll_grow_start", h->grow_start,
                                          "guest_halt_poll_shrink", h->shrink,
                                          "guest_halt_poll_allow_shrink", (uint64_t) h->allow_shrink);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* Appends one changed knob to the Changed reply (a change_foreach_changed() callback). */
typedef struct ChangedReply {
        sd_bus_message *reply;
        int r;
} ChangedReply;

static void append_changed(const ChangeEntry *x, void *userdata) {
        ChangedReply *c = userdata;

        if (c->r >= 0)
                c->r = sd_bus_message_append(c->reply, "(ss)", x->key, x->original);
}

static int property_get_changed(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        ChangedReply c = { .reply = reply, .r = sd_bus_message_open_container(reply, 'a', "(ss)") };

        if (c.r >= 0)
                change_foreach_changed(m->changes, append_changed, &c);
        return c.r < 0 ? c.r : sd_bus_message_close_container(reply);
}

/* Replies to a change: the named error, or success (signalling a change). */
static int reply_change(Manager *m, sd_bus_message *message, int r, const ErrorInfo *e, const BusMethodErrors *names,
                        sd_bus_error *error) {
        if (r < 0)
                return bus_error_from_errno(error, r, e, names);
        if (r > 0)
                manager_knobs_changed(m);
        return sd_bus_reply_method_return(message, NULL);
}

/* The target of a manual setting (recorded as an override), or Busy while
 * a calibration holds the knobs.  Returns 0 or a negative errno with error
 * set. */
static int manual_target(Manager *m, EnforceTarget *ret, sd_bus_error *error) {
        if (calibrator_running(m->calib.run))
                return sd_bus_error_set(error, BUS_ERROR_BUSY, "A calibration is running, try again when it has finished");
        *ret = manager_enforce_target(m, CHANGE_OWNER(MANUAL));
        return 0;
}

static int method_set_governor(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        EnforceTarget t;
        ErrorInfo e = {};
        const char *name;
        int r;

        r = bus_authorize(m, message, POLKIT_ACTION_PREFIX "set-governor", error);
        if (r <= 0)
                return r < 0 ? r : 1;
        r = sd_bus_message_read(message, "s", &name);
        if (r < 0)
                return r;
        r = manual_target(m, &t, error);
        if (r < 0)
                return r;
        r = enforce_set_governor(&t, name, &e);
        return reply_change(m, message, r, &e, &bus_errors_set_governor, error);
}

static int method_set_state_disabled(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        EnforceTarget t;
        ErrorInfo e = {};
        const char *state;
        uint32_t cpu;
        int disabled, r;

        r = bus_authorize(m, message, POLKIT_ACTION_PREFIX "set-state", error);
        if (r <= 0)
                return r < 0 ? r : 1;
        r = sd_bus_message_read(message, "usb", &cpu, &state, &disabled);
        if (r < 0)
                return r;
        r = manual_target(m, &t, error);
        if (r < 0)
                return r;
        r = enforce_set_state_disabled(&t, cpu, state, disabled, &e);
        return reply_change(m, message, r, &e, &bus_errors_set_state_disabled, error);
}

typedef int (*CpuSetter)(const EnforceTarget *t, uint32_t cpu, uint32_t usec, ErrorInfo *e);

/* A manual setting taking (u cpu, u usec): authorise action, then set(). */
static int call_cpu_setter(sd_bus_message *message, Manager *m, const char *action, CpuSetter set,
                           const BusMethodErrors *names, sd_bus_error *error) {
        EnforceTarget t;
        ErrorInfo e = {};
        uint32_t cpu, usec;
        int r;

        r = bus_authorize(m, message, action, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        r = sd_bus_message_read(message, "uu", &cpu, &usec);
        if (r < 0)
                return r;
        r = manual_target(m, &t, error);
        if (r < 0)
                return r;
        r = set(&t, cpu, usec, &e);
        return reply_change(m, message, r, &e, names, error);
}

static int method_set_resume_latency(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        return call_cpu_setter(message, userdata, POLKIT_ACTION_PREFIX "set-resume-latency", enforce_set_resume_latency,
                               &bus_errors_set_resume_latency, error);
}

/* Every state above the exit latency disabled, the others enabled (enforce.h). */
static int method_set_latency_limit(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        return call_cpu_setter(message, userdata, POLKIT_ACTION_PREFIX "set-state", enforce_set_latency_limit,
                               &bus_errors_set_latency_limit, error);
}

static int method_restore(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        ErrorInfo e = {};
        int r;

        r = bus_authorize(m, message, POLKIT_ACTION_PREFIX "restore", error);
        if (r <= 0)
                return r < 0 ? r : 1;
        r = manager_restore(m, &e);
        if (r < 0)
                return bus_error_from_errno(error, r, &e, &bus_errors_restore);
        return sd_bus_reply_method_return(message, NULL);
}

static int property_get_active_profile(sd_bus *bus, const char *path, const char *interface, const char *property,
                                       sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", manager_profile(userdata)->name);
}

static int property_get_profiles(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        int r = sd_bus_message_open_container(reply, 'a', "s");

        for (unsigned i = 0; r >= 0 && i < m->policy.profiles->n; i++)
                r = sd_bus_message_append(reply, "s", m->policy.profiles->profiles[i].name);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int property_get_mode(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;

        return sd_bus_message_append(reply, "s", daemon_mode_to_string(m->policy.mode));
}

static int property_get_calibrating(sd_bus *bus, const char *path, const char *interface, const char *property,
                                    sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;

        return sd_bus_message_append(reply, "b", calibrator_running(m->calib.run));
}

/* Whether wteo governs (companion.h). */
static int property_get_companion(sd_bus *bus, const char *path, const char *interface, const char *property,
                                  sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;

        return sd_bus_message_append(reply, "b", m->policy.companion.active);
}

/* (measured, total, cpu, state); (0, 0, 4294967295, "") when none runs.
 * Not signalled: it moves with every state, clients read it. */
static int property_get_calibration_progress(sd_bus *bus, const char *path, const char *interface,
                                             const char *property, sd_bus_message *reply, void *userdata,
                                             sd_bus_error *error) {
        Manager *m = userdata;
        CalibrateProgress p = { .cpu = UINT32_MAX, .state = "" };

        (void) calibrator_progress(m->calib.run, &p);
        return sd_bus_message_append(reply, "(uuus)", p.measured, p.total, p.cpu, p.state);
}

static int property_get_calibration_usec(sd_bus *bus, const char *path, const char *interface, const char *property,
                                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;

        return sd_bus_message_append(reply, "t", m->calib.result ? m->calib.result->realtime_usec : UINT64_C(0));
}

static int property_get_poll_mode(sd_bus *bus, const char *path, const char *interface, const char *property,
                                  sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const PolicySystem *sys = &((Manager *) userdata)->policy.loop->sys;

        return sd_bus_message_append(reply, "s", sys->kvm && sys->has_poll ? poll_mode_to_string(sys->poll.mode) : "");
}

static int property_get_poll_window(sd_bus *bus, const char *path, const char *interface, const char *property,
                                    sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const PolicySystem *sys = &((Manager *) userdata)->policy.loop->sys;

        return sd_bus_message_append(reply, "t", sys->kvm && sys->has_poll ? sys->poll.window_ns : UINT64_C(0));
}

static int property_get_consolidation(sd_bus *bus, const char *path, const char *interface, const char *property,
                                      sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "u", (uint32_t) manager_consolidation_level(userdata));
}

/* (source, active, set, freed, machine util, background CPUs, reason,
 * [(background entry, state)], (IRQs steered, refused, backed off)). */
static int property_get_consolidation_status(sd_bus *bus, const char *path, const char *interface,
                                             const char *property, sd_bus_message *reply, void *userdata,
                                             sd_bus_error *error) {
        Manager *m = userdata;
        const Consolidator *c = m->consolidation.consolidator;
        const Consolidation *st = &c->state;
        char source[96], set[4096] = "", freed[4096] = "";
        int r;

        (void) cpuset_format(&st->set, set, sizeof(set));
        (void) cpuset_format(&st->freed, freed, sizeof(freed));
        r = sd_bus_message_open_container(reply, 'r', "sbssddsa(ss)(uuu)");
        if (r >= 0)
                r = sd_bus_message_append(reply, "sbssdds", manager_consolidation_source(m, source, sizeof(source)),
                                          (int) st->active, set, freed,
                                          st->machine_util >= 0 ? st->machine_util / 1024.0 : -1.0,
                                          st->background >= 0 ? st->background / 1024.0 : -1.0, st->reason);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(ss)");
        for (unsigned i = 0; r >= 0 && i < c->n_targets; i++)
                r = sd_bus_message_append(reply, "(ss)", c->targets[i].name, c->targets[i].state);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "(uuu)", c->irq_steered, c->irq_refused, c->irq_backed_off);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int method_set_consolidation(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        ErrorInfo e = {};
        uint32_t level;
        int r;

        r = bus_authorize(m, message, POLKIT_ACTION_PREFIX "consolidate", error);
        if (r <= 0)
                return r < 0 ? r : 1;
        r = sd_bus_message_read(message, "u", &level);
        if (r < 0)
                return r;
        r = manager_set_consolidation(m, level, &e);
        if (r < 0)
                return bus_error_from_errno(error, r, &e, &bus_errors_set_consolidation);
        return sd_bus_reply_method_return(message, NULL);
}

typedef int (*StringSetter)(Manager *m, const char *value, ErrorInfo *e);

/* A method taking one string: authorise action, then set(). */
static int call_setter(sd_bus_message *message, Manager *m, const char *action, StringSetter set,
                       const BusMethodErrors *names, sd_bus_error *error) {
        ErrorInfo e = {};
        const char *value;
        int r;

        r = bus_authorize(m, message, action, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        r = sd_bus_message_read(message, "s", &value);
        if (r < 0)
                return r;
        r = set(m, value, &e);
        if (r < 0)
                return bus_error_from_errno(error, r, &e, names);
        return sd_bus_reply_method_return(message, NULL);
}

static int method_set_profile(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        return call_setter(message, userdata, POLKIT_ACTION_PREFIX "set-profile", manager_set_profile,
                           &bus_errors_set_profile, error);
}

static int method_set_mode(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        return call_setter(message, userdata, POLKIT_ACTION_PREFIX "set-mode", manager_set_mode, &bus_errors_set_mode,
                           error);
}

static int method_calibrate(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        ErrorInfo e = {};
        int r;

        r = bus_authorize(m, message, POLKIT_ACTION_PREFIX "calibrate", error);
        if (r <= 0)
                return r < 0 ? r : 1;
        r = manager_calibrate(m, &e);
        if (r < 0)
                return bus_error_from_errno(error, r, &e, &bus_errors_calibrate);
        return sd_bus_reply_method_return(message, NULL);
}

/* Metrics(): the Prometheus text exposition (metrics.h); anyone may read
 * it, as the properties. */
static int method_metrics(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *text = NULL;
        int r;

        r = metrics_format(userdata, metrics_now_usec(CLOCK_REALTIME), &text, NULL);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(message, "s", text);
}

static void emit_plan_changed(Manager *m, unsigned cpu, const PolicyCpu *c) {
        int r;

        if (!m->bus)
                return;
        r = sd_bus_emit_signal(m->bus, BUS_PATH, BUS_MANAGER_INTERFACE, "PlanChanged", "uuuss", (uint32_t) cpu,
                               (uint32_t) c->cap, (uint32_t) c->floor, plan_reason_to_string(c->cap_reason),
                               plan_reason_to_string(c->floor_reason));
        if (r < 0)
                log_debug_errno(r, "Failed to emit PlanChanged: %m, ignoring");
}

static void emit_calibration_finished(Manager *m, bool ok, const char *message) {
        int r;

        if (!m->bus)
                return;
        r = sd_bus_emit_signal(m->bus, BUS_PATH, BUS_MANAGER_INTERFACE, "CalibrationFinished", "bs", (int) ok, message);
        if (r < 0)
                log_debug_errno(r, "Failed to emit CalibrationFinished: %m, ignoring");
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Driver", "s", property_get_system_string, 0, 0),
        SD_BUS_PROPERTY("Governor", "s", property_get_system_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("AvailableGovernors", "as", property_get_available_governors, 0, 0),
        SD_BUS_PROPERTY("CPUs", "ao", property_get_cpus, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("OnlineCPUs", "s", property_get_online_cpus, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("TickUSec", "t", NULL, offsetof(Manager, tick_usec), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("HaltPoll", "a{st}", property_get_haltpoll, 0, 0),
        SD_BUS_PROPERTY("Changed", "a(ss)", property_get_changed, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ActiveProfile", "s", property_get_active_profile, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Profiles", "as", property_get_profiles, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Mode", "s", property_get_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("CompanionMode", "b", property_get_companion, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Calibrating", "b", property_get_calibrating, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("CalibrationUSec", "t", property_get_calibration_usec, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("CalibrationProgress", "(uuus)", property_get_calibration_progress, 0, 0),
        SD_BUS_PROPERTY("PollMode", "s", property_get_poll_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("PollWindowNSec", "t", property_get_poll_window, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Consolidation", "u", property_get_consolidation, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ConsolidationStatus", "(sbssddsa(ss)(uuu))", property_get_consolidation_status, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS("SetGovernor", SD_BUS_ARGS("s", name), SD_BUS_NO_RESULT,
                                method_set_governor, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetStateDisabled", SD_BUS_ARGS("u", cpu, "s", state, "b", disabled), SD_BUS_NO_RESULT,
                                method_set_state_disabled, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetResumeLatency", SD_BUS_ARGS("u", cpu, "u", usec), SD_BUS_NO_RESULT,
                                method_set_resume_latency, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetLatencyLimit", SD_BUS_ARGS("u", cpu, "u", usec), SD_BUS_NO_RESULT,
                                method_set_latency_limit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Restore", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT,
                                method_restore, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetProfile", SD_BUS_ARGS("s", name), SD_BUS_NO_RESULT,
                                method_set_profile, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetMode", SD_BUS_ARGS("s", mode), SD_BUS_NO_RESULT,
                                method_set_mode, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetConsolidation", SD_BUS_ARGS("u", level), SD_BUS_NO_RESULT,
                                method_set_consolidation, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Calibrate", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT,
                                method_calibrate, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Metrics", SD_BUS_NO_ARGS, SD_BUS_RESULT("s", text),
                                method_metrics, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL_WITH_ARGS("CalibrationFinished", SD_BUS_ARGS("b", ok, "s", error), 0),
        SD_BUS_SIGNAL_WITH_ARGS("PlanChanged", SD_BUS_ARGS("u", cpu, "u", cap, "u", floor, "s", cap_reason,
                                                           "s", floor_reason), 0),
        SD_BUS_VTABLE_END,
};

static void emit_property_changed(Manager *m, const char *property) {
        int r;

        if (!m->bus)
                return;
        r = sd_bus_emit_properties_changed(m->bus, BUS_PATH, BUS_MANAGER_INTERFACE, property, NULL);
        if (r < 0)
                log_debug_errno(r, "Failed to emit PropertiesChanged for %s: %m, ignoring", property);
}

/* Returns 0 or a negative errno. */
int bus_manager_register(Manager *m) {
        int r = sd_bus_add_object_vtable(m->bus, NULL, BUS_PATH, BUS_MANAGER_INTERFACE, manager_vtable, m);

        if (r < 0)
                return r;
        m->events.property_changed = emit_property_changed;
        m->events.plan_changed = emit_plan_changed;
        m->events.calibration_finished = emit_calibration_finished;
        return 0;
}
