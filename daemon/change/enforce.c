/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change-set.h"
#include "cpuset.h"
#include "enforce.h"
#include "sampler-cadence.h"
#include "fileio.h"
#include "knob-idle.h"
#include "log.h"
#include "macro.h"

/* Adds key = value to the set, an unreadable knob a write failure.
 * Returns 0 or a negative errno with e set. */
static int set_add(ChangeSet *s, const char *key, const char *value, ErrorInfo *e) {
        int r = change_set_add(s, key, value, e);

        if (r == -ENOMEM || r == -EBUSY)
                return r;
        return r < 0 ? -EIO : 0;
}

/* Returns 0 or a negative errno with e set. */
int enforce_set_governor(const EnforceTarget *t, const char *name, ErrorInfo *e) {
        _cleanup_(change_set_done) ChangeSet changes = {};
        CpuidleSystem sys;
        ErrorInfo le = {};
        int r;

        r = cpuidle_system_load(change_layer_env(t->changes)->root_fd, &sys, &le);
        if (r == -ENOENT)
                return errinfo_set(e, -ESRCH, "Unknown governor \"%s\": this system has no cpuidle", name);
        if (r < 0)
                return errinfo_set(e, r == -ENOMEM ? r : -EIO, "Failed to read the cpuidle governors: %s", le.message);
        if (!cpuidle_system_has_governor(&sys, name))
                return errinfo_set(e, -ESRCH, "Unknown governor \"%s\"", name);
        if (strcmp(sys.governor, name) != 0 && !sys.governor_writable)
                return errinfo_set(e, -EIO, "%s does not exist: this kernel cannot switch governors", SYSFS_CPUIDLE_GOVERNOR);
        change_set_init(&changes, t->changes, t->owner);
        r = set_add(&changes, SYSFS_CPUIDLE_GOVERNOR, name, e);
        if (r >= 0)
                r = change_set_apply(&changes, e);
        if (r <= 0)
                return r;
        cpuidle_sampler_invalidate(t->sampler);
        log_info("Switched the cpuidle governor from %s to %s.", sys.governor, name);
        return 1;
}

static bool cpu_has_states(const EnforceTarget *t, unsigned cpu) {
        unsigned n = 0;

        (void) cpuidle_sampler_states(t->sampler, cpu, &n);
        return n > 0;
}

/* Fills *ret with the CPUs a call addresses.  Returns 0, -ENXIO or
 * -EHOSTDOWN with e set. */
static int pick_cpus(const EnforceTarget *t, uint32_t cpu, bool need_states, CpuSet *ret, ErrorInfo *e) {
        const Topology *topo = t->topology;

        cpuset_clear(ret);
        if (cpu == ENFORCE_ALL_CPUS) {
                CPUSET_FOREACH(c, &topo->online)
                        if (!need_states || cpu_has_states(t, (unsigned) c))
                                cpuset_add(ret, (unsigned) c);
                if (cpuset_count(ret) == 0)
                        return errinfo_set(e, -EHOSTDOWN, "No online CPU%s", need_states ? " has cpuidle states" : "");
                return 0;
        }
        if (cpu >= topo->n_cpus || !topo->cpus[cpu].present)
                return errinfo_set(e, -ENXIO, "Unknown CPU %" PRIu32, cpu);
        if (!topo->cpus[cpu].online)
                return errinfo_set(e, -EHOSTDOWN, "CPU %" PRIu32 " is offline", cpu);
        if (need_states && !cpu_has_states(t, cpu))
                return errinfo_set(e, -EHOSTDOWN, "CPU %" PRIu32 " has no cpuidle directory", cpu);
        cpuset_add(ret, cpu);
        return 0;
}

/* Adds one CPU's knob to the changes.  Returns 0 or a negative errno with e set. */
typedef int (*ChangeCpuFunc)(const EnforceTarget *t, unsigned cpu, const void *args, ChangeSet *p, ErrorInfo *e);

/* Adds fn's knob of every CPU the call addresses (pick_cpus()), then
 * journals and writes.  list gets the CPUs for the log.  Returns 1, 0 or a
 * negative errno with e set. */
static int apply_on_cpus(const EnforceTarget *t, uint32_t cpu, bool need_states, ChangeCpuFunc fn, const void *args,
                         char list[static 256], ErrorInfo *e) {
        _cleanup_(change_set_done) ChangeSet changes = {};
        CpuSet cpus;
        int r;

        r = pick_cpus(t, cpu, need_states, &cpus, e);
        if (r < 0)
                return r;
        change_set_init(&changes, t->changes, t->owner);
        CPUSET_FOREACH(c, &cpus) {
                r = fn(t, (unsigned) c, args, &changes, e);
                if (r < 0)
                        return r;
        }
        r = change_set_apply(&changes, e);
        if (r > 0)
                (void) cpuset_format(&cpus, list, 256);
        return r;
}

typedef struct StateArgs {
        const char *state;
        bool disabled;
} StateArgs;

/* Adds the disable knob of state k (of states) on cpu to the changes.
 * Returns 0 or a negative errno with e set. */
static int add_state_knob(unsigned cpu, unsigned k, const CpuidleStateInfo *states, bool disabled, ChangeSet *p,
                          ErrorInfo *e) {
        char path[KNOB_PATH_MAX];

        knob_state_disable_path(cpu, k, path);
        if (!(states[k].files & CPUIDLE_HAS_DISABLE))
                return errinfo_set(e, -EIO, "%s does not exist", path);
        return set_add(p, path, disabled ? "1" : "0", e);
}

/* Adds the disable knob of the state on cpu to the changes.  Returns 0 or a
 * negative errno with e set. */
static int add_state(const EnforceTarget *t, unsigned cpu, const void *args, ChangeSet *p, ErrorInfo *e) {
        const StateArgs *a = args;
        const CpuidleStateInfo *states;
        unsigned n;
        int k;

        states = cpuidle_sampler_states(t->sampler, cpu, &n);
        k = cpuidle_state_lookup(states, n, a->state);
        if (k < 0)
                return errinfo_set(e, -ENOENT, "CPU %u has no idle state \"%s\"", cpu, a->state);
        return add_state_knob(cpu, (unsigned) k, states, a->disabled, p, e);
}

/* Returns 1, 0 or a negative errno with e set. */
int enforce_set_state_disabled(const EnforceTarget *t, uint32_t cpu, const char *state, bool disabled, ErrorInfo *e) {
        StateArgs args = { .state = state, .disabled = disabled };
        char list[256] = "";
        int r;

        r = apply_on_cpus(t, cpu, true, add_state, &args, list, e);
        if (r > 0)
                log_info("%s idle state \"%s\" on CPU %s.", disabled ? "Disabled" : "Enabled", state, list);
        return r;
}

/* Adds every state's disable knob of cpu: set above the limit, clear at or
 * below it.  Returns 0 or a negative errno with e set. */
static int add_latency_limit(const EnforceTarget *t, unsigned cpu, const void *args, ChangeSet *p, ErrorInfo *e) {
        uint32_t usec = *(const uint32_t *) args;
        unsigned n = 0;
        const CpuidleStateInfo *states = cpuidle_sampler_states(t->sampler, cpu, &n);

        for (unsigned k = 0; k < n; k++) {
                int r = add_state_knob(cpu, k, states, states[k].latency_us > usec, p, e);

                if (r < 0)
                        return r;
        }
        return 0;
}

/* Returns 1, 0 or a negative errno with e set. */
int enforce_set_latency_limit(const EnforceTarget *t, uint32_t cpu, uint32_t usec, ErrorInfo *e) {
        char list[256] = "";
        int r;

        r = apply_on_cpus(t, cpu, true, add_latency_limit, &usec, list, e);
        if (r > 0)
                log_info("Disabled every idle state with an exit latency above %" PRIu32 " us on CPU %s, enabled the others.",
                         usec, list);
        return r;
}

bool enforce_resume_latency_valid(uint32_t usec) {
        return usec <= CPUIDLE_RESUME_LATENCY_MAX || usec == CPUIDLE_RESUME_LATENCY_NA;
}

/* Adds cpu's resume latency knob to the changes.  Returns 0 or a negative
 * errno with e set. */
static int add_resume_latency(const EnforceTarget *t, unsigned cpu, const void *args, ChangeSet *p, ErrorInfo *e) {
        uint32_t usec = *(const uint32_t *) args, current;
        char path[KNOB_PATH_MAX], old[KNOB_VALUE_MAX], new[16];
        int r;

        knob_resume_latency_path(cpu, path);
        r = fileio_read_string_at(change_layer_env(t->changes)->root_fd, path, old, sizeof(old));
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return errinfo_set(e, -EIO, "Failed to read %s: %s", path, strerror(-r));
        if (cpuidle_parse_resume_latency(old, &current) < 0)
                return errinfo_set(e, -EIO, "Unexpected content \"%s\" in %s", old, path);
        /* "n/a" and its number are the same setting: no write, still addressed. */
        return set_add(p, path, current == usec ? old : cpuidle_format_resume_latency(usec, new), e);
}

/* Returns 1, 0 or a negative errno with e set. */
int enforce_set_resume_latency(const EnforceTarget *t, uint32_t cpu, uint32_t usec, ErrorInfo *e) {
        char list[256] = "", value[16];
        int r;

        if (!enforce_resume_latency_valid(usec))
                return errinfo_set(e, -ERANGE, "Invalid resume latency %" PRIu32 ": valid are 0, 1..%u and %" PRIu32 " (n/a)",
                                   usec, CPUIDLE_RESUME_LATENCY_MAX, CPUIDLE_RESUME_LATENCY_NA);
        r = apply_on_cpus(t, cpu, false, add_resume_latency, &usec, list, e);
        if (r > 0)
                log_info("Set resume latency %s on CPU %s.", cpuidle_format_resume_latency(usec, value), list);
        return r;
}

/* Returns the number written, or a negative errno with e set. */
int enforce_write_knobs(const EnforceTarget *t, const EnforceKnob *knobs, size_t n, ErrorInfo *e) {
        _cleanup_(change_set_done) ChangeSet changes = {};
        ErrorInfo busy = {};
        int r;

        change_set_init(&changes, t->changes, t->owner);
        for (size_t i = 0; i < n; i++) {
                r = set_add(&changes, knobs[i].path, knobs[i].value, &busy);
                if (r == -EBUSY) {
                        log_debug("Not writing %s: %s.", knobs[i].path, busy.message);
                        continue;
                }
                if (r < 0) {
                        *e = busy;
                        return r;
                }
        }
        r = change_set_apply(&changes, e);
        if (r < 0)
                return r;
        for (size_t i = 0; i < changes.n; i++)
                if (!changes.writes[i].noop && strcmp(changes.writes[i].key, SYSFS_CPUIDLE_GOVERNOR) == 0)
                        cpuidle_sampler_invalidate(t->sampler);
        return r;
}
