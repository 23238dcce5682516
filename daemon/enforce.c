/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "enforce.h"
#include "sampler-cadence.h"
#include "fileio.h"
#include "knob.h"
#include "log.h"
#include "macro.h"

/* One knob to change: its path, what it holds now and what it gets. */
typedef struct KnobWrite {
        char path[KNOB_PATH_MAX];
        char old[KNOB_VALUE_MAX];
        char new[KNOB_VALUE_MAX];
        bool journaled;             /* recorded in the journal by this call */
        bool noop;                  /* already as asked: addressed, not written */
} KnobWrite;

/* Knob writes made as one change: journaled first, written, rolled back
 * together on a failure (not to be confused with the policy's CpuPlan). */
typedef struct ChangeSet {
        KnobWrite *writes;
        size_t n, allocated;
        size_t n_writes;            /* entries that are not noop */
} ChangeSet;

static void change_set_done(ChangeSet *p) {
        free(p->writes);
        *p = (ChangeSet) {};
}

/* Adds a write (a noop one if old already equals new).  Returns 0 or
 * -ENOMEM. */
static int change_set_add(ChangeSet *p, const char *path, const char *old, const char *new) {
        KnobWrite *w;

        if (array_reserve_one((void **) &p->writes, p->n, &p->allocated, sizeof(KnobWrite)) < 0)
                return -ENOMEM;
        w = &p->writes[p->n++];
        *w = (KnobWrite) {};
        snprintf(w->path, sizeof(w->path), "%s", path);
        snprintf(w->old, sizeof(w->old), "%s", old);
        snprintf(w->new, sizeof(w->new), "%s", new);
        w->noop = strcmp(old, new) == 0;
        p->n_writes += !w->noop;
        return 0;
}

/* Records every knob of the changes as set by hand, if the target asks. */
static void change_set_mark_manual(const EnforceTarget *t, const ChangeSet *p) {
        for (size_t i = 0; t->manual && i < p->n; i++)
                if (overrides_add(t->manual, p->writes[i].path) == -ENOMEM)
                        log_oom();
}

/* Drops the journal entries this call added (their knobs hold their
 * originals again). */
static void change_set_forget(const EnforceTarget *t, ChangeSet *p) {
        char *paths[p->n ? p->n : 1];
        size_t n = 0;
        int r;

        for (size_t i = 0; i < p->n; i++)
                if (p->writes[i].journaled)
                        paths[n++] = p->writes[i].path;
        r = journal_forget(t->journal, paths, n);
        if (r < 0)
                log_warning_errno(r, "Failed to drop rolled-back knobs from the restore journal: %m, ignoring");
}

/* Records every original before anything is written.  Returns 0, -EIO
 * (e set) or -ENOMEM. */
static int change_set_record(const EnforceTarget *t, ChangeSet *p, ErrorInfo *e) {
        for (size_t i = 0; i < p->n; i++) {
                KnobWrite *w = &p->writes[i];
                int r = w->noop ? 0 : journal_record(t->journal, w->path, w->old);

                if (r < 0) {
                        change_set_forget(t, p);
                        if (r == -ENOMEM)
                                return r;
                        return errinfo_set(e, -EIO, "Failed to record the original value of %s in the restore journal: %s",
                                           w->path, strerror(-r));
                }
                w->journaled = r > 0;
        }
        return 0;
}

/* Puts back the first n_written knobs, newest first.  A knob that cannot be
 * put back stays in the journal, so it is restored later. */
static void change_set_roll_back(const EnforceTarget *t, ChangeSet *p, size_t n_written) {
        for (size_t i = n_written; i-- > 0; ) {
                KnobWrite *w = &p->writes[i];
                int r = w->noop ? 0 : knob_write(t->root_fd, w->path, w->old);

                if (r < 0) {
                        log_error_errno(r, "Failed to roll back %s to \"%s\": %m", w->path, w->old);
                        w->journaled = false;
                }
        }
        change_set_forget(t, p);
}

/* Makes the sampler read every file of the CPUs whose knobs p wrote (all
 * CPUs for a system-wide knob) at their next read. */
static void sampler_request_full(const EnforceTarget *t, const ChangeSet *p) {
        KnobId id;

        if (!t->sampler)
                return;
        for (size_t i = 0; i < p->n; i++) {
                int k = knob_parse(p->writes[i].path, &id);

                /* The sampler reads no wteo file (companion.c does). */
                if (p->writes[i].noop || (k >= 0 && (id.kind == KNOB_WTEO_PARAM || id.kind == KNOB_WTEO_TOLERANCE)))
                        continue;
                if (k < 0 || knob_kind_system(id.kind)) {
                        cpuidle_sampler_request_full(t->sampler);
                        return;
                }
                cpuidle_sampler_request_full_cpu(t->sampler, id.cpu);
        }
}

/* Journals, then writes.  Returns 1 if anything was written, 0 for an
 * empty changes, or a negative errno with e set (nothing changed). */
static int change_set_apply(const EnforceTarget *t, ChangeSet *p, ErrorInfo *e) {
        int r;

        if (p->n_writes == 0)
                return 0;
        r = change_set_record(t, p, e);
        if (r < 0)
                return r;
        for (size_t i = 0; i < p->n; i++) {
                KnobWrite *w = &p->writes[i];

                if (w->noop)
                        continue;
                r = knob_write(t->root_fd, w->path, w->new);
                if (r < 0) {
                        errinfo_set(e, -EIO, "Failed to write \"%s\" to %s: %s", w->new, w->path, strerror(-r));
                        log_warning("%s; rolling back %zu earlier write(s).", e->message, i);
                        change_set_roll_back(t, p, i);
                        return -EIO;
                }
                log_debug("Wrote \"%s\" to %s (was \"%s\").", w->new, w->path, w->old);
        }
        sampler_request_full(t, p);
        return 1;
}

/* Reads a knob's current value.  Returns 0 or -EIO with e set. */
static int read_knob(const EnforceTarget *t, const char *path, char buf[static KNOB_VALUE_MAX], ErrorInfo *e) {
        int r = fileio_read_string_at(t->root_fd, path, buf, KNOB_VALUE_MAX);

        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return errinfo_set(e, -EIO, "Failed to read %s: %s", path, strerror(-r));
        return 0;
}

/* Returns 0 or a negative errno with e set. */
int enforce_set_governor(const EnforceTarget *t, const char *name, ErrorInfo *e) {
        _cleanup_(change_set_done) ChangeSet changes = {};
        CpuidleSystem sys;
        ErrorInfo le = {};
        int r;

        r = cpuidle_system_load(t->root_fd, &sys, &le);
        if (r == -ENOENT)
                return errinfo_set(e, -ESRCH, "Unknown governor \"%s\": this system has no cpuidle", name);
        if (r < 0)
                return errinfo_set(e, r == -ENOMEM ? r : -EIO, "Failed to read the cpuidle governors: %s", le.message);
        if (!cpuidle_system_has_governor(&sys, name))
                return errinfo_set(e, -ESRCH, "Unknown governor \"%s\"", name);
        if (strcmp(sys.governor, name) != 0 && !sys.governor_writable)
                return errinfo_set(e, -EIO, "%s does not exist: this kernel cannot switch governors", SYSFS_CPUIDLE_GOVERNOR);
        r = change_set_add(&changes, SYSFS_CPUIDLE_GOVERNOR, sys.governor, name);
        if (r < 0)
                return r;
        r = change_set_apply(t, &changes, e);
        if (r >= 0)
                change_set_mark_manual(t, &changes);
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
        CPUSET_FOREACH(c, &cpus) {
                r = fn(t, (unsigned) c, args, &changes, e);
                if (r < 0)
                        return r;
        }
        r = change_set_apply(t, &changes, e);
        if (r >= 0)
                change_set_mark_manual(t, &changes);
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
static int add_state_knob(const EnforceTarget *t, unsigned cpu, unsigned k, const CpuidleStateInfo *states,
                          bool disabled, ChangeSet *p, ErrorInfo *e) {
        char path[KNOB_PATH_MAX], old[KNOB_VALUE_MAX];
        int r;

        knob_state_disable_path(cpu, k, path);
        if (!(states[k].files & CPUIDLE_HAS_DISABLE))
                return errinfo_set(e, -EIO, "%s does not exist", path);
        r = read_knob(t, path, old, e);
        if (r < 0)
                return r;
        return change_set_add(p, path, old, disabled ? "1" : "0");
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
        return add_state_knob(t, cpu, (unsigned) k, states, a->disabled, p, e);
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
                int r = add_state_knob(t, cpu, k, states, states[k].latency_us > usec, p, e);

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
        r = read_knob(t, path, old, e);
        if (r < 0)
                return r;
        if (cpuidle_parse_resume_latency(old, &current) < 0)
                return errinfo_set(e, -EIO, "Unexpected content \"%s\" in %s", old, path);
        /* "n/a" and its number are the same setting: no write, still addressed. */
        return change_set_add(p, path, old, current == usec ? old : cpuidle_format_resume_latency(usec, new));
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

/* Forgets the journal entries of the change set's knobs that hold their
 * original value again (written back, or found so). */
static void forget_originals(const EnforceTarget *t, const ChangeSet *p) {
        char *paths[p->n ? p->n : 1];
        size_t n = 0;
        int r;

        for (size_t i = 0; i < p->n; i++) {
                const char *original = journal_original(t->journal, p->writes[i].path);

                if (original && strcmp(original, p->writes[i].new) == 0)
                        paths[n++] = p->writes[i].path;
        }
        r = n > 0 ? journal_forget(t->journal, paths, n) : 0;
        if (r < 0)
                log_warning_errno(r, "Failed to drop knobs back at their original value from the restore journal: %m, ignoring");
}

/* Returns the number written, or a negative errno with e set. */
int enforce_write_knobs(const EnforceTarget *t, const EnforceKnob *knobs, size_t n, ErrorInfo *e) {
        _cleanup_(change_set_done) ChangeSet changes = {};
        char old[KNOB_VALUE_MAX];
        int r;

        for (size_t i = 0; i < n; i++) {
                r = read_knob(t, knobs[i].path, old, e);
                if (r >= 0)
                        r = change_set_add(&changes, knobs[i].path, old, knobs[i].value);
                if (r < 0)
                        return r;
        }
        r = change_set_apply(t, &changes, e);
        if (r < 0)
                return r;
        forget_originals(t, &changes);
        for (size_t i = 0; i < changes.n; i++)
                if (!changes.writes[i].noop && strcmp(changes.writes[i].path, SYSFS_CPUIDLE_GOVERNOR) == 0)
                        cpuidle_sampler_invalidate(t->sampler);
        return (int) changes.n_writes;
}
