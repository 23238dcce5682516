/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The commands that change something: governor, state, resume-latency,
 * restore.  Each is one Manager method call (one per CPU for a --cpu list). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-bus.h"
#include "ctl-format.h"
#include "ctl-json.h"
#include "ctl-model.h"
#include "fileio.h"

/* Where a per-CPU change goes: all online CPUs, or the CPUs of a list. */
typedef struct CtlTargets {
        bool all;
        CpuSet set;
        char text[256];          /* "all" or the list as "0-3,5" */
} CtlTargets;

/* One per-CPU method call.  Returns 0 or a negative errno (printed). */
typedef int (*CpuCall)(Ctl *c, uint32_t cpu, const void *userdata);

static int show_governor(Ctl *c, const CtlStatus *s, const char *previous) {
        if (c->json)
                return ctl_json_print_governor(s, previous) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        printf("Governor: %s", s->governor ? s->governor : "?");
        if (previous)
                printf(" (was %s)", previous);
        printf("\nAvailable:");
        for (char **g = s->available_governors; g && *g; g++)
                printf(" %s", *g);
        printf("\n");
        return CTL_EXIT_OK;
}

int ctl_cmd_governor(Ctl *c, char **args) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("switch the governor");
        _cleanup_free_ char *previous = NULL;

        if (ctl_fetch_manager(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        if (!args[0])
                return show_governor(c, &s, NULL);
        ctx.governor = args[0];
        if (ctl_bus_call_manager(c, &ctx, "SetGovernor", "s", args[0]) < 0)
                return CTL_EXIT_FAILURE;
        previous = s.governor;           /* hand-off: s no longer owns it */
        s.governor = NULL;
        ctl_status_done(&s);
        if (ctl_fetch_manager(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        return show_governor(c, &s, previous ? previous : "?");
}

/* Parses --cpu into t.  Returns 0, or CTL_EXIT_USAGE after printing why. */
static int targets_parse(const Ctl *c, CtlTargets *t) {
        ErrorInfo e = {};

        if (ctl_parse_cpus(c->cpu_list, &t->all, &t->set, &e) < 0)
                return ctl_usage_error("invalid CPU list '%s': %s", c->cpu_list, e.message);
        if (t->all)
                snprintf(t->text, sizeof(t->text), "all");
        else if (cpuset_format(&t->set, t->text, sizeof(t->text)) < 0)
                snprintf(t->text, sizeof(t->text), "%s", c->cpu_list);
        return 0;
}

/* Returns a human description: "all online CPUs", "CPU 3", "CPUs 0-3". */
static const char *targets_describe(const CtlTargets *t, char *buf, size_t size) {
        if (t->all)
                snprintf(buf, size, "all online CPUs");
        else
                snprintf(buf, size, "CPU%s %s", cpuset_count(&t->set) == 1 ? "" : "s", t->text);
        return buf;
}

/* Tells which CPUs of a list were already changed when a call failed. */
static void report_partial(const CpuSet *done) {
        char list[256];

        if (cpuset_count(done) == 0 || cpuset_format(done, list, sizeof(list)) < 0)
                return;
        fprintf(stderr, "idlepolicyctl: note: CPU%s %s had already been changed "
                "('idlepolicyctl restore' puts every changed knob back)\n",
                cpuset_count(done) == 1 ? "" : "s", list);
}

/* Calls call once for all CPUs, or once per CPU of the list, stopping at the
 * first failure.  Returns 0 or a negative errno (printed). */
static int targets_call(Ctl *c, const CtlTargets *t, CpuCall call, const void *userdata) {
        CpuSet done;
        int r;

        if (t->all)
                return call(c, CTL_CPU_ALL, userdata);
        cpuset_clear(&done);
        CPUSET_FOREACH(cpu, &t->set) {
                r = call(c, (uint32_t) cpu, userdata);
                if (r < 0) {
                        report_partial(&done);
                        return r;
                }
                cpuset_add(&done, (unsigned) cpu);
        }
        return 0;
}

/* Parses --cpu into t and makes the calls.  Returns 0, or the exit status
 * after printing what went wrong. */
static int targets_apply(Ctl *c, CtlTargets *t, CpuCall call, const void *userdata) {
        int r;

        r = targets_parse(c, t);
        if (r != 0)
                return r;
        return targets_call(c, t, call, userdata) < 0 ? CTL_EXIT_FAILURE : 0;
}

typedef struct StateChange {
        const char *state;
        bool disable;
} StateChange;

static int call_set_state(Ctl *c, uint32_t cpu, const void *userdata) {
        const StateChange *ch = userdata;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT(ch->disable ? "disable the state" : "enable the state");

        ctx.cpu = cpu;
        ctx.state = ch->state;
        return ctl_bus_call_manager(c, &ctx, "SetStateDisabled", "usb", cpu, ch->state, (int) ch->disable);
}

int ctl_cmd_state(Ctl *c, char **args) {
        StateChange ch = { .state = args[1] };
        CtlTargets t;
        char where[300];
        int r;

        if (ctl_parse_state_action(args[0], &ch.disable) < 0)
                return ctl_usage_error("unknown action '%s' for 'state' (use enable or disable)", args[0]);
        r = targets_apply(c, &t, call_set_state, &ch);
        if (r != 0)
                return r;
        if (c->json)
                return ctl_json_print_state(ch.state, ch.disable, t.text) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        printf("%s state '%s' on %s.\n", ch.disable ? "Disabled" : "Enabled", ch.state,
               targets_describe(&t, where, sizeof(where)));
        return CTL_EXIT_OK;
}

typedef struct LatencyChange {
        const char *text;
        uint32_t usec;
} LatencyChange;

static int call_set_latency(Ctl *c, uint32_t cpu, const void *userdata) {
        const LatencyChange *ch = userdata;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("set the resume latency");

        ctx.cpu = cpu;
        ctx.latency = ch->text;
        return ctl_bus_call_manager(c, &ctx, "SetResumeLatency", "uu", cpu, ch->usec);
}

int ctl_cmd_resume_latency(Ctl *c, char **args) {
        LatencyChange ch = { .text = args[0] };
        CtlTargets t;
        char where[300], value[32];
        int r;

        if (ctl_parse_latency(args[0], &ch.usec) < 0)
                return ctl_usage_error("invalid resume latency '%s' (use microseconds, 0 for no "
                                       "constraint, or n/a)", args[0]);
        r = targets_apply(c, &t, call_set_latency, &ch);
        if (r != 0)
                return r;
        if (c->json)
                return ctl_json_print_resume_latency(ch.usec, t.text) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        printf("Resume latency on %s: %s.\n", targets_describe(&t, where, sizeof(where)),
               ctl_format_latency(ch.usec, value, sizeof(value)));
        return CTL_EXIT_OK;
}

int ctl_cmd_restore(Ctl *c, char **args) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("restore the changed knobs");

        if (ctl_fetch_manager(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        if (ctl_bus_call_manager(c, &ctx, "Restore", "") < 0)
                return CTL_EXIT_FAILURE;
        if (c->json)
                return ctl_json_print_restored(&s) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        if (s.n_changed == 0)
                printf("Nothing to restore.\n");
        for (size_t i = 0; i < s.n_changed; i++)
                printf("Restored %s to %s\n", s.changed[i].path, s.changed[i].original);
        return CTL_EXIT_OK;
}

static int call_set_latency_limit(Ctl *c, uint32_t cpu, const void *userdata) {
        const LatencyChange *ch = userdata;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("limit the idle states' exit latency");

        ctx.cpu = cpu;
        ctx.latency = ch->text;
        return ctl_bus_call_manager(c, &ctx, "SetLatencyLimit", "uu", cpu, ch->usec);
}

/* Prints the states of cpu that t addressed, as "enabled ...; disabled ...". */
static void print_limited_cpu(const CtlCpu *cpu) {
        char lat[32];

        printf("  CPU %u:", cpu->index);
        for (int disabled = 0; disabled <= 1; disabled++) {
                bool first = true;

                for (size_t k = 0; k < cpu->n_states; k++) {
                        const CtlState *st = &cpu->states[k];

                        if (st->disabled != disabled)
                                continue;
                        printf("%s %s (%s)", first ? (disabled ? "; disabled" : " enabled") : ",", st->name ? st->name : "?",
                               ctl_format_usec(st->latency_us, lat, sizeof(lat)));
                        first = false;
                }
        }
        printf("\n");
}

int ctl_cmd_latency_limit(Ctl *c, char **args) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;
        LatencyChange ch = { .text = args[0] };
        CtlTargets t;
        char where[300];
        int r;

        if (parse_u32(args[0], &ch.usec) < 0)
                return ctl_usage_error("invalid exit latency '%s' (use microseconds, e.g. 20)", args[0]);
        r = targets_apply(c, &t, call_set_latency_limit, &ch);
        if (r != 0)
                return r;
        if (ctl_fetch_all(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        if (c->json)
                return ctl_json_print_latency_limit(&s, ch.usec, t.all ? NULL : &t.set, t.text) < 0 ? CTL_EXIT_FAILURE
                                                                                                  : CTL_EXIT_OK;
        printf("Idle states with an exit latency above %" PRIu32 " us disabled on %s, the others enabled "
               "('idlepolicyctl restore' puts them back):\n", ch.usec, targets_describe(&t, where, sizeof(where)));
        for (size_t i = 0; i < s.n_cpus; i++)
                if (s.cpus[i].online && s.cpus[i].n_states > 0 && (t.all || cpuset_contains(&t.set, s.cpus[i].index)))
                        print_limited_cpu(&s.cpus[i]);
        return CTL_EXIT_OK;
}
