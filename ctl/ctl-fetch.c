/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-bus.h"
#include "ctl-hint.h"
#include "ctl-model.h"
#include "ctl-util.h"
#include "fileio.h"

static void cpu_done(CtlCpu *cpu) {
        for (size_t i = 0; i < cpu->n_states; i++) {
                free(cpu->states[i].name);
                free(cpu->states[i].desc);
        }
        free(cpu->states);
        free(cpu->siblings);
        free(cpu->cap_reason);
        free(cpu->floor_reason);
        free(cpu->reason);
        free(cpu->weights);
        free(cpu->kernel_weights);
        free(cpu->kernel_weights_error);
        free(cpu->profile);
        free(cpu->profile_source);
}

static void pin_done(CtlPin *p) {
        free(p->path);
        free(p->target);
        free(p->cpus);
        free(p->profile);
        free(p->state);
        free(p->reason);
        free(p->pids);
}

static void hold_done(CtlHold *h) {
        free(h->profile);
        free(h->cpus);
        free(h->reason);
        free(h->app_id);
        free(h->owner);
}

static void consolidation_done(CtlConsolidation *c) {
        free(c->source);
        free(c->set);
        free(c->freed);
        free(c->reason);
        for (size_t i = 0; i < c->n_targets; i++) {
                free(c->targets[i].name);
                free(c->targets[i].state);
        }
        free(c->targets);
}

static void latency_request_done(CtlLatencyRequest *l) {
        free(l->error);
        for (size_t i = 0; i < l->n_holders; i++)
                free(l->holders[i].comm);
        free(l->holders);
}

static void power_profiles_done(CtlPowerProfiles *p) {
        free(p->bus_name);
        free(p->profile);
}

void ctl_status_done(CtlStatus *s) {
        free(s->version);
        free(s->driver);
        free(s->governor);
        free(s->online_cpus);
        strv_free(s->available_governors);
        strv_free(s->cpu_paths);
        for (size_t i = 0; i < s->n_haltpoll; i++)
                free(s->haltpoll[i].name);
        free(s->haltpoll);
        for (size_t i = 0; i < s->n_changed; i++) {
                free(s->changed[i].path);
                free(s->changed[i].original);
        }
        free(s->changed);
        for (size_t i = 0; i < s->n_cpus; i++)
                cpu_done(&s->cpus[i]);
        free(s->cpus);
        free(s->active_profile);
        free(s->mode);
        free(s->poll_mode);
        strv_free(s->profiles);
        strv_free(s->pin_paths);
        for (size_t i = 0; i < s->n_pins; i++)
                pin_done(&s->pins[i]);
        free(s->pins);
        for (size_t i = 0; i < s->n_holds; i++)
                hold_done(&s->holds[i]);
        free(s->holds);
        for (size_t i = 0; i < s->n_reports; i++) {
                free(s->reports[i].source);
                free(s->reports[i].message);
        }
        free(s->reports);
        consolidation_done(&s->consolidation);
        latency_request_done(&s->latency_request);
        power_profiles_done(&s->power_profiles);
        free(s->metrics_textfile_error);
        *s = CTL_STATUS_NULL;
}

static int read_haltpoll_item(sd_bus_message *m, void *userdata) {
        CtlStatus *s = userdata;
        const char *name;
        uint64_t value;
        CtlParam *p;
        int r;

        r = sd_bus_message_read(m, "st", &name, &value);
        if (r < 0)
                return r;
        p = ctl_array_append((void **) &s->haltpoll, &s->n_haltpoll, sizeof(*p));
        if (!p || !(p->name = strdup(name)))
                return -ENOMEM;
        p->value = value;
        return 0;
}

/* HaltPoll a{st}; field is the CtlStatus. */
static int parse_haltpoll(sd_bus_message *m, void *field) {
        return ctl_bus_read_array(m, 'e', "st", read_haltpoll_item, field);
}

static int read_changed_item(sd_bus_message *m, void *userdata) {
        CtlStatus *s = userdata;
        const char *path, *original;
        CtlChange *ch;
        int r;

        r = sd_bus_message_read(m, "ss", &path, &original);
        if (r < 0)
                return r;
        ch = ctl_array_append((void **) &s->changed, &s->n_changed, sizeof(*ch));
        if (!ch || !(ch->path = strdup(path)) || !(ch->original = strdup(original)))
                return -ENOMEM;
        return 0;
}

/* Changed a(ss); field is the CtlStatus. */
static int parse_changed(sd_bus_message *m, void *field) {
        return ctl_bus_read_array(m, 'r', "ss", read_changed_item, field);
}

static int read_hold_item(sd_bus_message *m, void *userdata) {
        CtlStatus *s = userdata;
        const char *profile, *cpus, *reason, *app_id, *owner;
        uint32_t cookie;
        CtlHold *h;
        int r;

        r = sd_bus_message_read(m, "usssss", &cookie, &profile, &cpus, &reason, &app_id, &owner);
        if (r < 0)
                return r;
        h = ctl_array_append((void **) &s->holds, &s->n_holds, sizeof(*h));
        if (!h)
                return -ENOMEM;
        h->cookie = cookie;
        if (ctl_strdup_replace(&h->profile, profile) < 0 || ctl_strdup_replace(&h->cpus, cpus) < 0 ||
            ctl_strdup_replace(&h->reason, reason) < 0 || ctl_strdup_replace(&h->app_id, app_id) < 0 ||
            ctl_strdup_replace(&h->owner, owner) < 0)
                return -ENOMEM;
        return 0;
}

/* Holds a(usssss); field is the CtlStatus. */
static int parse_holds(sd_bus_message *m, void *field) {
        return ctl_bus_read_array(m, 'r', "usssss", read_hold_item, field);
}

static int read_report_item(sd_bus_message *m, void *userdata) {
        CtlStatus *s = userdata;
        const char *source, *message;
        CtlReport *rep;
        uint64_t usec;
        int r = sd_bus_message_read(m, "tss", &usec, &source, &message);

        if (r < 0)
                return r;
        rep = ctl_array_append((void **) &s->reports, &s->n_reports, sizeof(*rep));
        if (!rep)
                return -ENOMEM;
        rep->usec = usec;
        return ctl_strdup_replace(&rep->source, source) < 0 || ctl_strdup_replace(&rep->message, message) < 0 ? -ENOMEM : 0;
}

/* Reports a(tss); field is the CtlStatus. */
static int parse_reports(sd_bus_message *m, void *field) {
        return ctl_bus_read_array(m, 'r', "tss", read_report_item, field);
}

static int read_target_item(sd_bus_message *m, void *userdata) {
        CtlConsolidation *c = userdata;
        const char *name, *state;
        CtlConsolidationTarget *t;
        int r = sd_bus_message_read(m, "ss", &name, &state);

        if (r < 0)
                return r;
        t = ctl_array_append((void **) &c->targets, &c->n_targets, sizeof(*t));
        if (!t || ctl_strdup_replace(&t->name, name) < 0 || ctl_strdup_replace(&t->state, state) < 0)
                return -ENOMEM;
        return 0;
}

/* ConsolidationStatus (sbssddsa(ss)(uuu)); field is the CtlStatus. */
static int parse_consolidation(sd_bus_message *m, void *field) {
        CtlConsolidation *c = &((CtlStatus *) field)->consolidation;
        const char *source, *set, *freed, *reason;
        int active, r;

        r = sd_bus_message_enter_container(m, 'r', "sbssddsa(ss)(uuu)");
        if (r >= 0)
                r = sd_bus_message_read(m, "sbssdds", &source, &active, &set, &freed, &c->machine_util,
                                        &c->background, &reason);
        if (r < 0)
                return r;
        c->active = active;
        c->known = true;
        if (ctl_strdup_replace(&c->source, source) < 0 || ctl_strdup_replace(&c->set, set) < 0 ||
            ctl_strdup_replace(&c->freed, freed) < 0 || ctl_strdup_replace(&c->reason, reason) < 0)
                return -ENOMEM;
        r = ctl_bus_read_array(m, 'r', "ss", read_target_item, c);
        if (r >= 0)
                r = sd_bus_message_read(m, "(uuu)", &c->irq_steered, &c->irq_refused, &c->irq_backed_off);
        return r < 0 ? r : sd_bus_message_exit_container(m);
}

/* LatencyRequestUSec i; field is the CtlStatus. */
static int parse_latency_usec(sd_bus_message *m, void *field) {
        CtlLatencyRequest *l = &((CtlStatus *) field)->latency_request;

        l->known = true;
        return sd_bus_message_read(m, "i", &l->usec);
}

static int read_latency_holder(sd_bus_message *m, void *userdata) {
        CtlLatencyRequest *l = userdata;
        CtlLatencyHolder *h;
        const char *comm;
        uint32_t pid;
        int r = sd_bus_message_read(m, "us", &pid, &comm);

        if (r < 0)
                return r;
        h = ctl_array_append((void **) &l->holders, &l->n_holders, sizeof(*h));
        if (!h || ctl_strdup_replace(&h->comm, comm) < 0)
                return -ENOMEM;
        h->pid = pid;
        return 0;
}

/* LatencyRequestHolders a(us); field is the CtlStatus. */
static int parse_latency_holders(sd_bus_message *m, void *field) {
        return ctl_bus_read_array(m, 'r', "us", read_latency_holder, &((CtlStatus *) field)->latency_request);
}

/* FollowPowerProfiles (bss); field is the CtlStatus. */
static int parse_power_profiles(sd_bus_message *m, void *field) {
        CtlPowerProfiles *p = &((CtlStatus *) field)->power_profiles;
        const char *name, *profile;
        int follow, r = sd_bus_message_read(m, "(bss)", &follow, &name, &profile);

        if (r < 0)
                return r;
        p->known = true;
        p->follow = follow;
        if (ctl_strdup_replace(&p->bus_name, name) < 0 || ctl_strdup_replace(&p->profile, profile) < 0)
                return -ENOMEM;
        return 0;
}

/* The map's offset 0 entries (HaltPoll, Changed; States, Counters, Rates
 * below) receive the whole struct. */
static const PropMap manager_map[] = {
        { "Version", "s", prop_parse_string, offsetof(CtlStatus, version) },
        { "Driver", "s", prop_parse_string, offsetof(CtlStatus, driver) },
        { "Governor", "s", prop_parse_string, offsetof(CtlStatus, governor) },
        { "AvailableGovernors", "as", prop_parse_strv, offsetof(CtlStatus, available_governors) },
        { "CPUs", "ao", prop_parse_strv, offsetof(CtlStatus, cpu_paths) },
        { "OnlineCPUs", "s", prop_parse_string, offsetof(CtlStatus, online_cpus) },
        { "TickUSec", "t", prop_parse_u64, offsetof(CtlStatus, tick_usec) },
        { "HaltPoll", "a{st}", parse_haltpoll, 0 },
        { "Changed", "a(ss)", parse_changed, 0 },
        { "ActiveProfile", "s", prop_parse_string, offsetof(CtlStatus, active_profile) },
        { "Profiles", "as", prop_parse_strv, offsetof(CtlStatus, profiles) },
        { "Mode", "s", prop_parse_string, offsetof(CtlStatus, mode) },
        { "CompanionMode", "b", prop_parse_bool, offsetof(CtlStatus, companion_mode) },
        { "Calibrating", "b", prop_parse_bool, offsetof(CtlStatus, calibrating) },
        { "CalibrationUSec", "t", prop_parse_u64, offsetof(CtlStatus, calibration_usec) },
        { "PollMode", "s", prop_parse_string, offsetof(CtlStatus, poll_mode) },
        { "PollWindowNSec", "t", prop_parse_u64, offsetof(CtlStatus, poll_window_nsec) },
        { "Pins", "ao", prop_parse_strv, offsetof(CtlStatus, pin_paths) },
        { "Holds", "a(usssss)", parse_holds, 0 },
        { "Reports", "a(tss)", parse_reports, 0 },
        { "Consolidation", "u", prop_parse_u32, offsetof(CtlStatus, consolidation.level) },
        { "ConsolidationStatus", "(sbssddsa(ss)(uuu))", parse_consolidation, 0 },
        { "LatencyRequestUSec", "i", parse_latency_usec, 0 },
        { "LatencyRequestError", "s", prop_parse_string, offsetof(CtlStatus, latency_request.error) },
        { "LatencyRequestHolders", "a(us)", parse_latency_holders, 0 },
        { "LatencyRequestHidden", "u", prop_parse_u32, offsetof(CtlStatus, latency_request.hidden) },
        { "FollowPowerProfiles", "(bss)", parse_power_profiles, 0 },
        { "MetricsTextfileError", "s", prop_parse_string, offsetof(CtlStatus, metrics_textfile_error) },
        {}
};

int ctl_fetch_manager(Ctl *c, CtlStatus *s) {
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("read the daemon's properties");

        return ctl_bus_get_all(c, &ctx, IDLEPOLICY_MANAGER_PATH, IDLEPOLICY_MANAGER_IFACE,
                               manager_map, s);
}

/* Returns the state with this index, appending it if new; NULL on -ENOMEM. */
static CtlState *cpu_state_get(CtlCpu *cpu, uint32_t index) {
        CtlState *st;

        for (size_t i = 0; i < cpu->n_states; i++)
                if (cpu->states[i].index == index)
                        return &cpu->states[i];
        st = ctl_array_append((void **) &cpu->states, &cpu->n_states, sizeof(*st));
        if (st)
                st->index = index;
        return st;
}

static int read_state_item(sd_bus_message *m, void *userdata) {
        const char *name, *desc;
        uint32_t index;
        uint64_t latency, residency;
        int disabled, default_enabled, r;
        CtlState *st;

        r = sd_bus_message_read(m, "ussttbb", &index, &name, &desc, &latency, &residency,
                                &disabled, &default_enabled);
        if (r < 0)
                return r;
        st = cpu_state_get(userdata, index);
        if (!st || ctl_strdup_replace(&st->name, name) < 0 || ctl_strdup_replace(&st->desc, desc) < 0)
                return -ENOMEM;
        st->latency_us = latency;
        st->residency_us = residency;
        st->disabled = disabled;
        st->default_enabled = default_enabled;
        return 0;
}

/* States a(ussttbb); field is the CtlCpu. */
static int parse_states(sd_bus_message *m, void *field) {
        return ctl_bus_read_array(m, 'r', "ussttbb", read_state_item, field);
}

static int read_counters_item(sd_bus_message *m, void *userdata) {
        uint32_t index;
        CtlState *st;
        uint64_t v[5];
        int r;

        r = sd_bus_message_read(m, "uttttt", &index, &v[0], &v[1], &v[2], &v[3], &v[4]);
        if (r < 0)
                return r;
        st = cpu_state_get(userdata, index);
        if (!st)
                return -ENOMEM;
        st->has_counters = true;
        st->usage = v[0];
        st->time_us = v[1];
        st->above = v[2];
        st->below = v[3];
        st->rejected = v[4];
        return 0;
}

/* Counters a(uttttt); field is the CtlCpu. */
static int parse_counters(sd_bus_message *m, void *field) {
        return ctl_bus_read_array(m, 'r', "uttttt", read_counters_item, field);
}

static int read_rates_item(sd_bus_message *m, void *userdata) {
        uint32_t index;
        CtlState *st;
        double v[5];
        int r;

        r = sd_bus_message_read(m, "uddddd", &index, &v[0], &v[1], &v[2], &v[3], &v[4]);
        if (r < 0)
                return r;
        st = cpu_state_get(userdata, index);
        if (!st)
                return -ENOMEM;
        st->has_rates = true;
        st->entries_per_s = v[0];
        st->usage_share_pct = v[1];
        st->time_share_pct = v[2];
        st->too_deep_pct = v[3];
        st->too_shallow_pct = v[4];
        return 0;
}

/* Rates a(uddddd); field is the CtlCpu. */
static int parse_rates(sd_bus_message *m, void *field) {
        return ctl_bus_read_array(m, 'r', "uddddd", read_rates_item, field);
}

static int read_calibrated_item(sd_bus_message *m, void *userdata) {
        uint32_t index, advertised, measured, p99;
        int misdescribed, r;
        CtlState *st;

        r = sd_bus_message_read(m, "uuuub", &index, &advertised, &measured, &p99, &misdescribed);
        if (r < 0)
                return r;
        st = cpu_state_get(userdata, index);
        if (!st)
                return -ENOMEM;
        st->calibrated = true;
        st->advertised_us = advertised;
        st->measured_us = measured;
        st->measured_p99_us = p99;
        st->misdescribed = misdescribed;
        return 0;
}

/* Calibrated a(uuuub); field is the CtlCpu. */
static int parse_calibrated(sd_bus_message *m, void *field) {
        return ctl_bus_read_array(m, 'r', "uuuub", read_calibrated_item, field);
}

/* One (ui) point of a CalibratedEntry curve; userdata is the CtlState. */
static int read_curve_point(sd_bus_message *m, void *userdata) {
        CtlState *st = userdata;
        uint32_t idle;
        int32_t penalty;
        int r = sd_bus_message_read(m, "ui", &idle, &penalty);

        if (r < 0)
                return r;
        if (st->n_curve >= CTL_CURVE_MAX)
                return -EBADMSG;
        st->curve[st->n_curve++] = (CtlCurvePoint) { .idle_us = idle, .penalty_us = penalty };
        return 0;
}

static int read_calibrated_entry_item(sd_bus_message *m, void *userdata) {
        uint32_t index, entry, residency;
        CtlState *st;
        int r;

        r = sd_bus_message_read(m, "uuu", &index, &entry, &residency);
        if (r < 0)
                return r;
        st = cpu_state_get(userdata, index);
        if (!st)
                return -ENOMEM;
        st->has_entry = true;
        st->entry_us = entry;
        st->calibrated_residency_us = residency;
        st->n_curve = 0;
        return ctl_bus_read_array(m, 'r', "ui", read_curve_point, st);
}

/* CalibratedEntry a(uuua(ui)); field is the CtlCpu. */
static int parse_calibrated_entry(sd_bus_message *m, void *field) {
        return ctl_bus_read_array(m, 'r', "uuua(ui)", read_calibrated_entry_item, field);
}

/* Reads one row of an aaq matrix into *w (rows must all have the length
 * of the first).  Returns 0, -EBADMSG or -ENOMEM. */
static int read_matrix_row(sd_bus_message *m, uint16_t **w, size_t *n_w, size_t row) {
        const void *data;
        size_t size, n;
        int r;

        r = sd_bus_message_read_array(m, 'q', &data, &size);
        if (r < 0)
                return r;
        n = size / sizeof(uint16_t);
        if (row == 0) {
                free(*w);
                *w = calloc(n * n + 1, sizeof(uint16_t));
                if (!*w)
                        return -ENOMEM;
                *n_w = n;
        }
        if (n != *n_w || row >= n)
                return -EBADMSG;
        memcpy(*w + row * n, data, size);
        return 0;
}

/* An aaq square matrix into *w, *n_w. */
static int parse_matrix(sd_bus_message *m, uint16_t **w, size_t *n_w) {
        size_t row = 0;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "aq");
        while (r >= 0 && !sd_bus_message_at_end(m, false))
                r = read_matrix_row(m, w, n_w, row++);
        if (r < 0)
                return r;
        if (row != *n_w)
                return -EBADMSG;
        return sd_bus_message_exit_container(m);
}

/* Weights aaq; field is the CtlCpu. */
static int parse_weights(sd_bus_message *m, void *field) {
        CtlCpu *cpu = field;

        return parse_matrix(m, &cpu->weights, &cpu->n_weights);
}

/* KernelWeights aaq; field is the CtlCpu. */
static int parse_kernel_weights(sd_bus_message *m, void *field) {
        CtlCpu *cpu = field;

        return parse_matrix(m, &cpu->kernel_weights, &cpu->n_kernel_weights);
}

static const PropMap cpu_map[] = {
        { "Index", "u", prop_parse_u32, offsetof(CtlCpu, index) },
        { "Online", "b", prop_parse_bool, offsetof(CtlCpu, online) },
        { "Package", "i", prop_parse_i32, offsetof(CtlCpu, package) },
        { "Die", "i", prop_parse_i32, offsetof(CtlCpu, die) },
        { "Core", "i", prop_parse_i32, offsetof(CtlCpu, core) },
        { "Siblings", "s", prop_parse_string, offsetof(CtlCpu, siblings) },
        { "ResumeLatencyUSec", "u", prop_parse_u32, offsetof(CtlCpu, resume_latency_us) },
        { "Util", "d", prop_parse_double, offsetof(CtlCpu, util) },
        { "TimerWakeups", "d", prop_parse_double, offsetof(CtlCpu, timer_wakeups) },
        { "OtherWakeups", "d", prop_parse_double, offsetof(CtlCpu, other_wakeups) },
        { "States", "a(ussttbb)", parse_states, 0 },
        { "Counters", "a(uttttt)", parse_counters, 0 },
        { "Rates", "a(uddddd)", parse_rates, 0 },
        { "Calibrated", "a(uuuub)", parse_calibrated, 0 },
        { "CalibratedEntry", "a(uuua(ui))", parse_calibrated_entry, 0 },
        { "Weights", "aaq", parse_weights, 0 },
        { "KernelWeights", "aaq", parse_kernel_weights, 0 },
        { "KernelWeightsError", "s", prop_parse_string, offsetof(CtlCpu, kernel_weights_error) },
        { "WteoTolerance", "i", prop_parse_i32, offsetof(CtlCpu, wteo_tolerance) },
        { "Cap", "u", prop_parse_u32, offsetof(CtlCpu, cap) },
        { "Floor", "u", prop_parse_u32, offsetof(CtlCpu, floor) },
        { "CapReason", "s", prop_parse_string, offsetof(CtlCpu, cap_reason) },
        { "FloorReason", "s", prop_parse_string, offsetof(CtlCpu, floor_reason) },
        { "Reason", "s", prop_parse_string, offsetof(CtlCpu, reason) },
        { "PollSuccess", "d", prop_parse_double, offsetof(CtlCpu, poll_success) },
        { "Profile", "s", prop_parse_string, offsetof(CtlCpu, profile) },
        { "ProfileSource", "s", prop_parse_string, offsetof(CtlCpu, profile_source) },
        {}
};

static int state_compare(const void *a, const void *b) {
        const CtlState *x = a, *y = b;

        return x->index < y->index ? -1 : x->index > y->index;
}

static int cpu_compare(const void *a, const void *b) {
        const CtlCpu *x = a, *y = b;

        return x->index < y->index ? -1 : x->index > y->index;
}

/* Reads the CPU object at path into a new element of s->cpus.  Returns 0
 * or a negative errno (printed). */
static int fetch_cpu(Ctl *c, CtlStatus *s, const char *path) {
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("read a CPU's properties");
        CtlCpu *cpu = ctl_array_append((void **) &s->cpus, &s->n_cpus, sizeof(*cpu));
        int r;

        if (!cpu)
                return ctl_error_print(NULL, -ENOMEM, &ctx, c->json);
        *cpu = (CtlCpu) { .package = -1, .wteo_tolerance = -1, .die = -1, .core = -1, .util = -1,
                          .timer_wakeups = -1, .other_wakeups = -1, .poll_success = -1 };
        r = ctl_bus_get_all(c, &ctx, path, IDLEPOLICY_CPU_IFACE, cpu_map, cpu);
        if (r < 0)
                return r;
        if (cpu->n_states > 0)
                qsort(cpu->states, cpu->n_states, sizeof(CtlState), state_compare);
        return 0;
}

int ctl_fetch_cpus(Ctl *c, CtlStatus *s) {
        int r;

        for (char **p = s->cpu_paths; p && *p; p++) {
                r = fetch_cpu(c, s, *p);
                if (r < 0)
                        return r;
        }
        if (s->n_cpus > 0)
                qsort(s->cpus, s->n_cpus, sizeof(CtlCpu), cpu_compare);
        return 0;
}

/* PIDs au; field is the CtlPin. */
static int parse_pids(sd_bus_message *m, void *field) {
        CtlPin *p = field;
        const void *data;
        size_t size;
        int r;

        r = sd_bus_message_read_array(m, 'u', &data, &size);
        if (r < 0)
                return r;
        free(p->pids);
        p->n_pids = size / sizeof(uint32_t);
        p->pids = malloc(size + 1);
        if (!p->pids)
                return -ENOMEM;
        memcpy(p->pids, data, size);
        return 0;
}

static const PropMap pin_map[] = {
        { "Target", "s", prop_parse_string, offsetof(CtlPin, target) },
        { "CPUs", "s", prop_parse_string, offsetof(CtlPin, cpus) },
        { "Profile", "s", prop_parse_string, offsetof(CtlPin, profile) },
        { "State", "s", prop_parse_string, offsetof(CtlPin, state) },
        { "Reason", "s", prop_parse_string, offsetof(CtlPin, reason) },
        { "PIDs", "au", parse_pids, 0 },
        { "Created", "t", prop_parse_u64, offsetof(CtlPin, created_usec) },
        { "OwnerUID", "u", prop_parse_u32, offsetof(CtlPin, owner_uid) },
        {}
};

static int pin_compare(const void *a, const void *b) {
        const CtlPin *x = a, *y = b;

        return x->id < y->id ? -1 : x->id > y->id;
}

/* Reads the pin object at path into a new element of s->pins; a pin gone
 * meanwhile is left out.  Returns 0 or a negative errno (printed). */
static int fetch_pin(Ctl *c, CtlStatus *s, const char *path) {
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("read a pin's properties");
        CtlPin *p = ctl_array_append((void **) &s->pins, &s->n_pins, sizeof(*p));
        const char *slash = strrchr(path, '/');
        int r;

        if (!p || !(p->path = strdup(path)))
                return ctl_error_print(NULL, -ENOMEM, &ctx, c->json);
        (void) parse_u32(slash ? slash + 1 : path, &p->id);
        r = ctl_bus_get_all_if_exists(c, &ctx, path, IDLEPOLICY_PIN_IFACE, pin_map, p);
        if (r == -ENOENT) {
                pin_done(&s->pins[--s->n_pins]);
                return 0;
        }
        return r;
}

int ctl_fetch_pins(Ctl *c, CtlStatus *s) {
        int r;

        for (char **p = s->pin_paths; p && *p; p++) {
                r = fetch_pin(c, s, *p);
                if (r < 0)
                        return r;
        }
        if (s->n_pins > 0)
                qsort(s->pins, s->n_pins, sizeof(CtlPin), pin_compare);
        return 0;
}

int ctl_fetch_all(Ctl *c, CtlStatus *s) {
        int r = ctl_fetch_manager(c, s);

        return r < 0 ? r : ctl_fetch_cpus(c, s);
}

void ctl_hint_from_daemon(Ctl *c, const sd_bus_error *e, const CtlErrorContext *ctx, char *buf, size_t size) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;

        buf[0] = '\0';
        if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
                ctl_bus_run_here_hint(buf, size);
                return;
        }
        if (!sd_bus_error_has_names(e, IDLEPOLICY_ERROR_PREFIX "UnknownState", IDLEPOLICY_ERROR_PREFIX "UnknownCPU",
                                    IDLEPOLICY_ERROR_PREFIX "CPUOffline"))
                return;
        if (ctl_fetch_all(c, &s) >= 0)
                ctl_hint_format(e, ctx, &s, buf, size);
}
