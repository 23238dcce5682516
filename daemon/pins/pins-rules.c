/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Exec rules: an exe:PATH or comm:NAME pin applies to every matching
 * process now (a /proc scan when the rule comes) and to each one that
 * execs or renames itself later (the proc connector, proc-events.h).  A
 * buffer overrun may have lost events: /proc is scanned again, so no exec
 * is missed for long and no exited process is kept.  The connector is open
 * only while a rule is active. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "knob-task.h"
#include "log.h"
#include "macro.h"
#include "pin-proc.h"
#include "pins-internal.h"
#include "pins-rules.h"

static int pid_compare(const void *a, const void *b) {
        pid_t x = *(const pid_t *) a, y = *(const pid_t *) b;

        return x < y ? -1 : x > y;
}

static bool pin_is_rule(const Pin *pin) {
        return pin->state != PIN_STATE_ENDED && pin_target_is_rule(&pin->target);
}

static bool pin_has_pid(const Pin *pin, pid_t pid) {
        for (size_t i = 0; i < pin->n_pids; i++)
                if (pin->pids[i] == pid)
                        return true;
        return false;
}

/* Adds or removes pid in pin's pids.  Returns 0 or -ENOMEM. */
static int pin_pids_update(Pins *p, Pin *pin, pid_t pid, bool add) {
        _cleanup_free_ pid_t *pids = calloc(pin->n_pids + 1, sizeof(pid_t));
        size_t n = 0;

        if (!pids)
                return -ENOMEM;
        for (size_t i = 0; i < pin->n_pids; i++)
                if (pin->pids[i] != pid)
                        pids[n++] = pin->pids[i];
        if (add)
                pids[n++] = pid;
        return pin_registry_set_pids(p->registry, pin->id, pids, n);
}

/* Tells the manager that the rule's processes (and so, for a rule that
 * keeps the workload's CPUs, possibly its CPUs and state) moved. */
static void rule_moved(Pins *p, Pin *pin) {
        PinState want = pin->n_pids > 0 ? PIN_STATE_ACTIVE : PIN_STATE_WAITING;

        if (pin->state != want)
                (void) pin_registry_set_state(p->registry, pin->id, want);
        if (p->ctx.changed)
                p->ctx.changed(p->ctx.userdata);
}

/* Applies rule pin to process pid if it matches and is not taken yet.
 * Returns 1 if applied, 0 if not a match, or a negative errno (logged). */
static int rule_apply(Pins *p, Pin *pin, pid_t pid, const ProcStat *st, const char *exe) {
        PinRuntime *rt;
        ErrorInfo e = {};
        CpuSet cur;
        int r;

        if (pin_has_pid(pin, pid) || !pin_rule_matches(&pin->target, st, exe) || st->no_setaffinity)
                return 0;
        rt = pins_runtime(p, pin->id, true);
        if (!rt)
                return log_oom();
        if (pin->cpus_given)
                r = pins_pin_process(p, rt, pid, &pin->cpus, &e);
        else {
                r = task_affinity_get(pid, &cur);
                if (r >= 0)
                        CPUSET_FOREACH(cpu, &cur)
                                cpuset_add(&pin->cpus, (unsigned) cpu);
        }
        if (r == -ESRCH)
                return 0;
        if (r < 0)
                return log_warning_errno(r, "Pin %u: process %d: %s, ignoring", pin->id, (int) pid, e.message);
        r = pin_pids_update(p, pin, pid, true);
        return r < 0 ? log_oom() : 1;
}

/* Matches process pid against every rule.  Returns the number of rules
 * it was applied to. */
static unsigned process_match(Pins *p, pid_t pid) {
        char exe[PIN_TARGET_VALUE_MAX];
        bool want_exe = false, have_exe = false;
        unsigned n = 0;
        ProcStat st;

        if (proc_read_stat(p->host_fd, pid, &st) < 0 || st.kthread)
                return 0;
        /* Every exec of the machine comes here: the link is read only
         * when an exe: rule needs it. */
        PIN_REGISTRY_FOREACH_PIN(pin, p->registry)
                want_exe |= pin_is_rule(pin) && pin->target.kind == PIN_TARGET_EXE;
        if (want_exe)
                have_exe = proc_read_exe(p->host_fd, pid, exe, sizeof(exe)) >= 0;
        PIN_REGISTRY_FOREACH_PIN(pin, p->registry)
                if (pin_is_rule(pin) && rule_apply(p, pin, pid, &st, have_exe ? exe : NULL) > 0) {
                        rule_moved(p, pin);
                        n++;
                }
        return n;
}

/* The process pid is gone (or was renamed off a comm rule: still pinned;
 * only an exit drops it). */
static void process_gone(Pins *p, pid_t pid) {
        PIN_REGISTRY_FOREACH_PIN(pin, p->registry) {
                PinRuntime *rt;

                if (!pin_is_rule(pin) || !pin_has_pid(pin, pid))
                        continue;
                rt = pins_runtime(p, pin->id, false);
                if (rt)
                        pins_runtime_forget_process(p, rt, pid);
                if (pin_pids_update(p, pin, pid, false) < 0) {
                        log_oom();
                        continue;
                }
                rule_moved(p, pin);
        }
}

static void on_exec(pid_t pid, pid_t tgid, void *userdata) {
        (void) process_match(userdata, tgid);
}

static void on_comm(pid_t pid, pid_t tgid, const char *comm, void *userdata) {
        (void) process_match(userdata, tgid);
}

static void on_exit_event(pid_t pid, pid_t tgid, int exit_code, void *userdata) {
        if (pid == tgid)
                process_gone(userdata, tgid);
}

/* Scans /proc: every process is matched, and the rules drop the pids
 * that no longer exist.  Returns 0 or a negative errno. */
int pins_rules_rescan(Pins *p) {
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0;
        int r;

        r = proc_list_pids(p->host_fd, &pids, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                (void) process_match(p, pids[i]);
        PIN_REGISTRY_FOREACH_PIN(pin, p->registry) {
                for (size_t i = 0; pin_is_rule(pin) && i < pin->n_pids;) {
                        pid_t pid = pin->pids[i];

                        if (bsearch(&pid, pids, n, sizeof(pid_t), pid_compare))
                                i++;
                        else
                                process_gone(p, pid);           /* shrinks pin->pids */
                }
        }
        return 0;
}

static void on_overrun(void *userdata) {
        Pins *p = userdata;

        log_notice("Process events were lost (receive buffer overrun), scanning /proc again.");
        if (pins_rules_rescan(p) < 0)
                log_warning("Failed to scan /proc, ignoring.");
}

/* Returns 0, or -EOPNOTSUPP with e set (no proc connector here). */
int pins_rules_start(Pins *p, Pin *pin, ErrorInfo *e) {
        static const ProcEventsCallbacks callbacks = {
                .on_exec = on_exec,
                .on_exit = on_exit_event,
                .on_comm = on_comm,
                .on_overrun = on_overrun,
        };
        int r;

        if (!p->events) {
                r = proc_events_new(p->ctx.event, &callbacks, p, &p->events);
                if (r < 0)
                        return errinfo_set(e, -ERRNO_NOT_PINNABLE,
                                           "Exec rules need the proc connector, which is not available: %s",
                                           strerror(-r));
        }
        if (!pin->cpus_given)
                cpuset_clear(&pin->cpus);
        /* Events that came before the connector listened: the scan. */
        r = pins_rules_rescan(p);
        if (r < 0)
                log_warning_errno(r, "Failed to scan /proc for pin %u: %m, ignoring", pin->id);
        return 0;
}

/* Closes the connector when no rule is left. */
void pins_rules_stop_unused(Pins *p) {
        PIN_REGISTRY_FOREACH_PIN(pin, p->registry)
                if (pin_is_rule(pin))
                        return;
        p->events = proc_events_free(p->events);
}
