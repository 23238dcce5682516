/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "ctl-format.h"
#include "ctl-json.h"
#include "ctl-util.h"

static void ctl_json_decrefp(json_t **j) {
        json_decref(*j);
}
#define _cleanup_json_ _cleanup_(ctl_json_decrefp)

/* Prints j (a new reference, NULL = out of memory) with the dump flags
 * and drops it; a failure is reported on stderr.  Returns 0 or -ENOMEM /
 * -EIO. */
static int print_and_drop_flags(json_t *j, size_t flags) {
        _cleanup_json_ json_t *owned = j;

        if (!owned) {
                fprintf(stderr, "idlepolicyctl: failed to build the JSON output: %s\n", strerror(ENOMEM));
                return -ENOMEM;
        }
        if (json_dumpf(owned, stdout, flags | JSON_REAL_PRECISION(10)) < 0 ||
            fputc('\n', stdout) == EOF || fflush(stdout) == EOF) {
                fprintf(stderr, "idlepolicyctl: failed to write the JSON output: %s\n", strerror(EIO));
                return -EIO;
        }
        return 0;
}

/* Pretty-printed, the default of every command. */
static int print_and_drop(json_t *j) {
        return print_and_drop_flags(j, JSON_INDENT(2));
}

/* Returns a number, or null for an unknown measurement (< 0, NaN). */
static json_t *measurement(double v) {
        return ctl_value_known(v) ? json_real(v) : json_null();
}

/* Builds one array element from element i of base. */
typedef json_t *(*ItemToJson)(const void *base, size_t i);

/* Returns an array of n elements built by item, or NULL on -ENOMEM. */
static json_t *array_to_json(const void *base, size_t n, ItemToJson item) {
        json_t *a = json_array();

        for (size_t i = 0; a && i < n; i++)
                if (json_array_append_new(a, item(base, i)) < 0) {
                        json_decref(a);
                        return NULL;
                }
        return a;
}

static json_t *string_item(const void *base, size_t i) {
        return json_string(((char * const *) base)[i]);
}

/* Returns a JSON array of the strings of l (empty for NULL), or NULL on -ENOMEM. */
static json_t *strv_to_json(char * const *l) {
        return array_to_json(l, strv_length(l), string_item);
}

static json_t *counters_to_json(const CtlState *st) {
        if (!st->has_counters)
                return json_null();
        return json_pack("{s:I, s:I, s:I, s:I, s:I}",
                         "usage", (json_int_t) st->usage, "time_us", (json_int_t) st->time_us,
                         "above", (json_int_t) st->above, "below", (json_int_t) st->below,
                         "rejected", (json_int_t) st->rejected);
}

static json_t *rates_to_json(const CtlState *st) {
        if (!st->has_rates)
                return json_null();
        return json_pack("{s:o, s:o, s:o, s:o, s:o}",
                         "entries_per_s", measurement(st->entries_per_s),
                         "usage_share_pct", measurement(st->usage_share_pct),
                         "time_share_pct", measurement(st->time_share_pct),
                         "too_deep_pct", measurement(st->too_deep_pct),
                         "too_shallow_pct", measurement(st->too_shallow_pct));
}

/* The curve as [{idle_us, penalty_us}], null without CalibratedEntry. */
static json_t *curve_to_json(const CtlState *st) {
        json_t *curve;

        if (!st->has_entry)
                return json_null();
        curve = json_array();
        for (size_t i = 0; curve && i < st->n_curve; i++)
                if (json_array_append_new(curve, json_pack("{s:I, s:I}", "idle_us", (json_int_t) st->curve[i].idle_us,
                                                           "penalty_us", (json_int_t) st->curve[i].penalty_us)) < 0)
                        curve = (json_decref(curve), NULL);
        return curve;
}

/* An integer from CalibratedEntry, null without it. */
static json_t *entry_value(const CtlState *st, uint32_t v) {
        return st->has_entry ? json_integer(v) : json_null();
}

static json_t *calibrated_to_json(const CtlState *st) {
        if (!st->calibrated)
                return json_null();
        return json_pack("{s:I, s:I, s:I, s:b, s:o, s:o, s:o}", "advertised_latency_us", (json_int_t) st->advertised_us,
                         "wakeup_us", (json_int_t) st->measured_us, "wakeup_p99_us", (json_int_t) st->measured_p99_us,
                         "misdescribed", st->misdescribed, "entry_us", entry_value(st, st->entry_us),
                         "residency_us", entry_value(st, st->calibrated_residency_us), "curve", curve_to_json(st));
}

static json_t *state_to_json(const CtlState *st) {
        return json_pack("{s:I, s:s?, s:s?, s:I, s:I, s:b, s:b, s:o, s:o, s:o}",
                         "index", (json_int_t) st->index, "name", st->name, "desc", st->desc,
                         "latency_us", (json_int_t) st->latency_us,
                         "residency_us", (json_int_t) st->residency_us,
                         "disabled", st->disabled, "enabled_by_default", st->default_enabled,
                         "counters", counters_to_json(st), "rates", rates_to_json(st),
                         "calibrated", calibrated_to_json(st));
}

static json_t *state_item(const void *base, size_t i) {
        return state_to_json(&((const CtlCpu *) base)->states[i]);
}

/* [[W[0][0], ...], ...] in 1/1024 parts. */
static json_t *matrix_to_json(const uint16_t *w, size_t n) {
        json_t *rows = json_array();

        for (size_t s = 0; rows && s < n; s++) {
                json_t *row = json_array();

                for (size_t j = 0; row && j < n; j++)
                        if (json_array_append_new(row, json_integer(w[s * n + j])) < 0)
                                row = (json_decref(row), NULL);
                if (!row || json_array_append_new(rows, row) < 0)
                        rows = (json_decref(rows), NULL);
        }
        return rows;
}

static json_t *weights_to_json(const CtlCpu *cpu) {
        return matrix_to_json(cpu->weights, cpu->n_weights);
}

/* The tolerance in force in companion mode, or null. */
static json_t *tolerance_to_json(const CtlCpu *cpu) {
        return cpu->wteo_tolerance >= 0 ? json_integer(cpu->wteo_tolerance) : json_null();
}

static json_t *plan_to_json(const CtlCpu *cpu) {
        return json_pack("{s:I, s:I, s:s?, s:s?, s:s?}", "cap", (json_int_t) cpu->cap, "floor", (json_int_t) cpu->floor,
                         "cap_reason", cpu->cap_reason, "floor_reason", cpu->floor_reason, "reason", cpu->reason);
}

static json_t *cpu_to_json(const CtlCpu *cpu) {
        return json_pack("{s:I, s:b, s:i, s:i, s:i, s:s?, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s?, s:s?, s:o}",
                         "index", (json_int_t) cpu->index, "online", cpu->online,
                         "package", (int) cpu->package, "die", (int) cpu->die, "core", (int) cpu->core,
                         "siblings", cpu->siblings,
                         "resume_latency_us", (json_int_t) cpu->resume_latency_us,
                         "util", measurement(cpu->util),
                         "timer_wakeups_per_s", measurement(cpu->timer_wakeups),
                         "other_wakeups_per_s", measurement(cpu->other_wakeups),
                         "states", array_to_json(cpu, cpu->n_states, state_item),
                         "plan", plan_to_json(cpu), "poll_success", measurement(cpu->poll_success),
                         "weights", weights_to_json(cpu), "profile", cpu->profile,
                         "profile_source", cpu->profile_source, "wteo_tolerance", tolerance_to_json(cpu));
}

static json_t *haltpoll_to_json(const CtlStatus *s) {
        json_t *o = json_object();

        for (size_t i = 0; o && i < s->n_haltpoll; i++)
                if (json_object_set_new(o, s->haltpoll[i].name,
                                        json_integer((json_int_t) s->haltpoll[i].value)) < 0) {
                        json_decref(o);
                        return NULL;
                }
        return o;
}

static json_t *change_item(const void *base, size_t i) {
        const CtlChange *ch = &((const CtlStatus *) base)->changed[i];

        return json_pack("{s:s, s:s}", "path", ch->path, "original", ch->original);
}

static json_t *cpu_item(const void *base, size_t i) {
        return cpu_to_json(&((const CtlStatus *) base)->cpus[i]);
}

/* The policy's Manager properties. */
static json_t *policy_to_json(const CtlStatus *s) {
        return json_pack("{s:s?, s:o, s:s?, s:b, s:b, s:I, s:s?, s:I}",
                         "active_profile", s->active_profile, "profiles", strv_to_json(s->profiles),
                         "mode", s->mode, "companion_mode", s->companion_mode, "calibrating", s->calibrating,
                         "calibration_usec", (json_int_t) s->calibration_usec,
                         "poll_mode", s->poll_mode, "poll_window_ns", (json_int_t) s->poll_window_nsec);
}

static json_t *with_previous(json_t *j, const char *previous);

static json_t *target_item(const void *base, size_t i) {
        const CtlConsolidationTarget *t = &((const CtlConsolidation *) base)->targets[i];

        return json_pack("{s:s?, s:s?}", "name", t->name, "state", t->state);
}

/* The level, the set and why, the measurements (null: unknown). */
static json_t *ctl_json_consolidation(const CtlConsolidation *c) {
        return json_pack("{s:I, s:s?, s:b, s:s?, s:s?, s:o, s:o, s:s?, s:o, s:{s:I, s:I, s:I}}",
                         "level", (json_int_t) c->level, "source", c->source, "active", c->active, "set", c->set,
                         "freed", c->freed,
                         "machine_util", c->machine_util >= 0 ? json_real(c->machine_util) : json_null(),
                         "background_cpus", c->background >= 0 ? json_real(c->background) : json_null(),
                         "reason", c->reason, "background", array_to_json(c, c->n_targets, target_item),
                         "irqs", "steered", (json_int_t) c->irq_steered, "refused", (json_int_t) c->irq_refused,
                         "backed_off", (json_int_t) c->irq_backed_off);
}

int ctl_json_print_consolidation(const CtlConsolidation *c, const char *previous) {
        return print_and_drop(with_previous(ctl_json_consolidation(c), previous));
}

static json_t *latency_holder_item(const void *base, size_t i) {
        const CtlLatencyHolder *h = &((const CtlLatencyRequest *) base)->holders[i];

        return json_pack("{s:I, s:s?}", "pid", (json_int_t) h->pid, "comm", h->comm);
}

/* {"usec": N or null (unknown), "in_force": b, "error": ..., "holders": [...], "hidden": N}. */
static json_t *latency_request_to_json(const CtlLatencyRequest *l) {
        return json_pack("{s:o, s:b, s:s?, s:o, s:I}",
                         "usec", l->usec >= 0 ? json_integer(l->usec) : json_null(),
                         "in_force", l->usec >= 0 && l->usec < CTL_LATENCY_REQUEST_NONE, "error", l->error,
                         "holders", array_to_json(l, l->n_holders, latency_holder_item), "hidden", (json_int_t) l->hidden);
}

/* {"follow": b, "bus_name": ..., "profile": ...}. */
static json_t *power_profiles_to_json(const CtlPowerProfiles *p) {
        return json_pack("{s:b, s:s?, s:s?}", "follow", p->follow, "bus_name", p->bus_name, "profile", p->profile);
}

/* What the CPUs' rates cover: null for the last tick, else the window. */
static json_t *window_to_json(const CtlStatus *s) {
        if (s->window_usec == 0)
                return json_null();
        return json_pack("{s:I, s:I}", "usec", (json_int_t) s->window_usec, "ticks", (json_int_t) s->window_ticks);
}

static json_t *report_item(const void *base, size_t i) {
        const CtlReport *r = &((const CtlStatus *) base)->reports[i];

        return json_pack("{s:I, s:s?, s:s?}", "usec", (json_int_t) r->usec, "source", r->source,
                         "message", r->message);
}

static json_t *status_to_json(const CtlStatus *s) {
        json_t *j = json_pack(
                "{s:s?, s:s?, s:s?, s:o, s:s?, s:I, s:o, s:o, s:o, s:o}",
                "version", s->version, "driver", s->driver, "governor", s->governor,
                "available_governors", strv_to_json(s->available_governors),
                "online_cpus", s->online_cpus, "tick_us", (json_int_t) s->tick_usec,
                "haltpoll", haltpoll_to_json(s), "changed", array_to_json(s, s->n_changed, change_item),
                "cpus", array_to_json(s, s->n_cpus, cpu_item), "reports",
                array_to_json(s, s->n_reports, report_item));

        if (j && json_object_update_new(j, policy_to_json(s)) < 0)
                j = (json_decref(j), NULL);
        if (j && s->consolidation.known &&
            json_object_set_new(j, "consolidation", ctl_json_consolidation(&s->consolidation)) < 0)
                j = (json_decref(j), NULL);
        if (j && s->latency_request.known &&
            json_object_set_new(j, "latency_request", latency_request_to_json(&s->latency_request)) < 0)
                j = (json_decref(j), NULL);
        if (j && s->power_profiles.known &&
            json_object_set_new(j, "power_profiles", power_profiles_to_json(&s->power_profiles)) < 0)
                j = (json_decref(j), NULL);
        if (j && json_object_set_new(j, "window", window_to_json(s)) < 0)
                j = (json_decref(j), NULL);
        if (j && s->metrics_textfile_error &&
            json_object_set_new(j, "metrics_textfile_error", json_string(s->metrics_textfile_error)) < 0)
                j = (json_decref(j), NULL);
        return j;
}

int ctl_json_print_status(const CtlStatus *s) {
        return print_and_drop(status_to_json(s));
}

int ctl_json_print_monitor_line(const CtlStatus *s) {
        return print_and_drop_flags(status_to_json(s), JSON_COMPACT);
}

/* Adds "previous": previous to j when set.  Returns j, or NULL (j dropped). */
static json_t *with_previous(json_t *j, const char *previous) {
        if (j && previous && json_object_set_new(j, "previous", json_string(previous)) < 0)
                j = (json_decref(j), NULL);
        return j;
}

int ctl_json_print_profiles(const CtlStatus *s, const char *previous, const char *warning) {
        json_t *j = with_previous(json_pack("{s:s?, s:o}", "active_profile", s->active_profile,
                                            "profiles", strv_to_json(s->profiles)), previous);

        if (j && warning && json_object_set_new(j, "warning", json_string(warning)) < 0)
                j = (json_decref(j), NULL);
        return print_and_drop(j);
}

/* The plan in force on the CPU now, or null. */
static json_t *preview_now(const CtlCpu *now) {
        if (!now || !now->cap_reason)
                return json_null();
        return json_pack("{s:I, s:I, s:s?, s:s?}", "cap", (json_int_t) now->cap, "floor", (json_int_t) now->floor,
                         "cap_reason", now->cap_reason, "floor_reason", now->floor_reason);
}

static json_t *preview_cpu(const CtlStatus *s, const CtlPreviewCpu *x) {
        const CtlCpu *now = ctl_status_cpu(s, x->index);

        return json_pack("{s:I, s:s?, s:I, s:s, s:s?, s:I, s:s, s:s?, s:b, s:o, s:s?, s:o}",
                         "index", (json_int_t) x->index,
                         "profile", x->profile, "cap", (json_int_t) x->cap,
                         "cap_state", now ? ctl_state_name(now, x->cap) : "?", "cap_reason", x->cap_reason,
                         "floor", (json_int_t) x->floor, "floor_state", now ? ctl_state_name(now, x->floor) : "?",
                         "floor_reason", x->floor_reason, "polls_only", x->polls_only,
                         "burn_cpus", measurement(x->burn),
                         "reason", x->reason, "now", preview_now(now));
}

int ctl_json_print_preview(const CtlStatus *s, const CtlPreview *p) {
        json_t *cpus = json_array(), *knobs = json_array();
        char warning[1024];

        for (size_t i = 0; cpus && i < p->n_cpus; i++)
                if (json_array_append_new(cpus, preview_cpu(s, &p->cpus[i])) < 0)
                        cpus = (json_decref(cpus), NULL);
        for (size_t i = 0; knobs && i < p->n_knobs; i++)
                if (json_array_append_new(knobs, json_pack("{s:s, s:s, s:s}", "path", p->knobs[i].path, "now",
                                                           p->knobs[i].now, "then", p->knobs[i].then)) < 0)
                        knobs = (json_decref(knobs), NULL);
        return print_and_drop(json_pack("{s:s, s:s?, s:s?, s:o, s:o, s:s, s:s, s:I, s:I, s:f, s:b, s:s?}",
                                        "profile", p->profile, "active_profile", s->active_profile, "mode", s->mode,
                                        "cpus", cpus, "knobs", knobs,
                                        "governor", p->governor, "poll_mode", p->poll_mode,
                                        "poll_window_ns", (json_int_t) p->poll_window_nsec,
                                        "consolidation", (json_int_t) p->consolidation,
                                        "burn_cpus", ctl_preview_burn(p),
                                        "polls_every_cpu", ctl_preview_polls_every_cpu(p),
                                        "warning",
                                        ctl_preview_warning(p, warning, sizeof(warning))[0] ? warning : NULL));
}

int ctl_json_print_mode(const CtlStatus *s, const char *previous) {
        return print_and_drop(with_previous(json_pack("{s:s?}", "mode", s->mode), previous));
}

static json_t *calibration_cpu_item(const void *base, size_t i) {
        const CtlCpu *cpu = &((const CtlStatus *) base)->cpus[i];
        json_t *states = json_array();

        for (size_t k = 0; states && k < cpu->n_states; k++) {
                const CtlState *st = &cpu->states[k];
                json_t *o = json_pack("{s:I, s:s?, s:o}", "index", (json_int_t) st->index, "name", st->name,
                                      "calibrated", calibrated_to_json(st));

                if (!o || json_array_append_new(states, o) < 0)
                        states = (json_decref(states), NULL);
        }
        return json_pack("{s:I, s:o}", "index", (json_int_t) cpu->index, "states", states);
}

int ctl_json_print_calibration(const CtlStatus *s) {
        return print_and_drop(json_pack("{s:I, s:o}", "calibration_usec", (json_int_t) s->calibration_usec,
                                        "cpus", array_to_json(s, s->n_cpus, calibration_cpu_item)));
}

static json_t *state_name_item(const void *base, size_t i) {
        const char *name = ((const CtlCpu *) base)->states[i].name;

        return json_string(name ? name : "?");
}

int ctl_json_print_weights(const CtlCpu *cpu, bool kernel) {
        return print_and_drop(json_pack("{s:I, s:o, s:s, s:o, s:s?, s:I}", "cpu", (json_int_t) cpu->index,
                                        "states", array_to_json(cpu, cpu->n_states, state_name_item),
                                        "source", kernel ? "kernel" : "model",
                                        "weights", kernel ? matrix_to_json(cpu->kernel_weights, cpu->n_kernel_weights) :
                                                            weights_to_json(cpu),
                                        "kernel_weights_error", kernel ? cpu->kernel_weights_error : NULL,
                                        "one", (json_int_t) 1024));
}

int ctl_json_print_governor(const CtlStatus *s, const char *previous) {
        return print_and_drop(with_previous(json_pack("{s:s?, s:o}", "governor", s->governor,
                                                      "available_governors", strv_to_json(s->available_governors)),
                                            previous));
}

int ctl_json_print_state(const char *state, bool disabled, const char *cpus) {
        return print_and_drop(json_pack("{s:s, s:b, s:s}", "state", state, "disabled", disabled,
                                        "cpus", cpus));
}

int ctl_json_print_resume_latency(uint32_t usec, const char *cpus) {
        return print_and_drop(json_pack("{s:I, s:s}", "resume_latency_us", (json_int_t) usec,
                                        "cpus", cpus));
}

int ctl_json_print_restored(const CtlStatus *before) {
        return print_and_drop(json_pack("{s:o}", "restored",
                                        array_to_json(before, before->n_changed, change_item)));
}

static json_t *idle_info_state(const CtlState *st, uint64_t idle_us) {
        return json_pack("{s:I, s:s?, s:s?, s:I, s:I, s:b, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o}",
                         "index", (json_int_t) st->index, "name", st->name, "desc", st->desc,
                         "latency_us", (json_int_t) st->latency_us, "residency_us", (json_int_t) st->residency_us,
                         "disabled", st->disabled, "usage", (json_int_t) st->usage, "time_us", (json_int_t) st->time_us,
                         "above", (json_int_t) st->above, "below", (json_int_t) st->below,
                         "rejected", (json_int_t) st->rejected,
                         "idle_time_share_pct", measurement(ctl_pct(st->time_us, idle_us)),
                         "too_deep_pct", measurement(ctl_pct(st->above, st->usage)),
                         "too_shallow_pct", measurement(ctl_pct(st->below, st->usage)));
}

static json_t *idle_info_cpu(const CtlCpu *cpu) {
        uint64_t entries = 0, idle_us = 0;
        json_t *states = json_array();

        for (size_t k = 0; k < cpu->n_states; k++) {
                entries += cpu->states[k].usage;
                idle_us += cpu->states[k].time_us;
        }
        for (size_t k = 0; states && k < cpu->n_states; k++)
                if (json_array_append_new(states, idle_info_state(&cpu->states[k], idle_us)) < 0)
                        states = (json_decref(states), NULL);
        return json_pack("{s:I, s:b, s:I, s:I, s:o}", "index", (json_int_t) cpu->index, "online", cpu->online,
                         "idle_entries", (json_int_t) entries, "idle_time_us", (json_int_t) idle_us, "states", states);
}

int ctl_json_print_idle_info(const CtlStatus *s, const CpuSet *only) {
        json_t *cpus = json_array();

        for (size_t i = 0; cpus && i < s->n_cpus; i++) {
                const CtlCpu *cpu = &s->cpus[i];

                if (only ? !cpuset_contains(only, cpu->index) : !cpu->online)
                        continue;
                if (json_array_append_new(cpus, idle_info_cpu(cpu)) < 0)
                        cpus = (json_decref(cpus), NULL);
        }
        return print_and_drop(json_pack("{s:s?, s:s?, s:o}", "driver", s->driver, "governor", s->governor,
                                        "cpus", cpus));
}

static json_t *pid_item(const void *base, size_t i) {
        return json_integer(((const uint32_t *) base)[i]);
}

static json_t *pin_item(const void *base, size_t i) {
        const CtlPin *p = &((const CtlStatus *) base)->pins[i];

        return json_pack("{s:I, s:s, s:s?, s:s?, s:s?, s:s?, s:o, s:I, s:s?, s:I}",
                         "id", (json_int_t) p->id, "path", p->path, "target", p->target, "cpus", p->cpus,
                         "profile", p->profile, "state", p->state, "pids", array_to_json(p->pids, p->n_pids, pid_item),
                         "created_usec", (json_int_t) p->created_usec, "reason", p->reason,
                         "owner_uid", (json_int_t) p->owner_uid);
}

static json_t *hold_item(const void *base, size_t i) {
        const CtlHold *h = &((const CtlStatus *) base)->holds[i];

        return json_pack("{s:I, s:s?, s:s?, s:s?, s:s?, s:s?}", "cookie", (json_int_t) h->cookie,
                         "profile", h->profile, "cpus", h->cpus, "reason", h->reason, "app_id", h->app_id,
                         "owner", h->owner);
}

int ctl_json_print_pins(const CtlStatus *s) {
        return print_and_drop(json_pack("{s:o, s:o}", "pins", array_to_json(s, s->n_pins, pin_item),
                                        "holds", array_to_json(s, s->n_holds, hold_item)));
}

int ctl_json_print_pin_path(const char *key, const char *path) {
        return print_and_drop(json_pack("{s:s}", key, path));
}

int ctl_json_print_hold(uint32_t cookie, const char *profile, const char *cpus) {
        return print_and_drop_flags(json_pack("{s:I, s:s, s:s}", "cookie", (json_int_t) cookie, "profile", profile,
                                              "cpus", cpus), JSON_COMPACT);
}

int ctl_json_print_error(const char *name, const char *message) {
        return print_and_drop(json_pack("{s:{s:s?, s:s}}", "error", "name", name, "message", message));
}

/* The names of cpu's states that are (not) disabled. */
static json_t *state_names(const CtlCpu *cpu, bool disabled) {
        json_t *a = json_array();

        for (size_t k = 0; a && k < cpu->n_states; k++)
                if (cpu->states[k].disabled == disabled &&
                    json_array_append_new(a, json_string(cpu->states[k].name ? cpu->states[k].name : "?")) < 0)
                        a = (json_decref(a), NULL);
        return a;
}

int ctl_json_print_latency_limit(const CtlStatus *s, uint32_t usec, const CpuSet *set, const char *cpus) {
        json_t *states = json_array();

        for (size_t i = 0; states && i < s->n_cpus; i++) {
                const CtlCpu *cpu = &s->cpus[i];

                if (!cpu->online || cpu->n_states == 0 || (set && !cpuset_contains(set, cpu->index)))
                        continue;
                if (json_array_append_new(states, json_pack("{s:I, s:o, s:o}", "cpu", (json_int_t) cpu->index,
                                                            "enabled", state_names(cpu, false),
                                                            "disabled", state_names(cpu, true))) < 0)
                        states = (json_decref(states), NULL);
        }
        return print_and_drop(json_pack("{s:I, s:s, s:o}", "latency_limit_us", (json_int_t) usec, "cpus", cpus,
                                        "states", states));
}
