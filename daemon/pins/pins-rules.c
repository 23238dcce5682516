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

/* Process events are queued and handled in batches: a batch at most every
 * RULES_BATCH_USEC, of at most RULES_BATCH_MAX events (the rest at the next
 * turn of the loop, the bus answering in between); one change set per rule
 * and batch (one journal write).  A queue of more than RULES_QUEUE_MAX
 * events is dropped for a scan of /proc. */
#define RULES_BATCH_USEC (10 * 1000ULL)
#define RULES_BATCH_MAX 256
#define RULES_QUEUE_MAX 65536

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

/* A rule's matches in one batch of processes. */
typedef struct RuleMatches {
        Pin *pin;
        PinProcess *procs;
        size_t n, allocated;
} RuleMatches;

/* Adds the matching process to the rule's matches, or, for a rule that
 * keeps the workload's CPUs, takes it at once (nothing is written then).
 * Returns 0 or -ENOMEM. */
static int rule_add(Pins *p, RuleMatches *m, pid_t pid, const ProcStat *st) {
        CpuSet cur;

        if (!m->pin->cpus_given) {
                if (task_affinity_get(pid, &cur) >= 0)
                        CPUSET_FOREACH(cpu, &cur)
                                cpuset_add(&m->pin->cpus, (unsigned) cpu);
                return pin_pids_update(p, m->pin, pid, true);
        }
        if (array_reserve_one((void **) &m->procs, m->n, &m->allocated, sizeof(PinProcess)) < 0)
                return -ENOMEM;
        m->procs[m->n++] = (PinProcess) { .pid = pid, .start_time = st->start_time };
        return 0;
}

/* Matches process pid against every rule (into matches, one per rule pin
 * in registry order).  Returns 0 or -ENOMEM. */
static int process_match(Pins *p, pid_t pid, RuleMatches *matches, size_t n_matches) {
        char exe[PIN_TARGET_VALUE_MAX];
        bool want_exe = false, have_exe = false;
        ProcStat st;

        if (proc_read_stat(p->host_fd, pid, &st) < 0 || st.kthread || st.no_setaffinity)
                return 0;
        /* Every exec of the machine comes here: the link is read only
         * when an exe: rule needs it. */
        for (size_t i = 0; i < n_matches; i++)
                want_exe |= matches[i].pin->target.kind == PIN_TARGET_EXE;
        if (want_exe)
                have_exe = proc_read_exe(p->host_fd, pid, exe, sizeof(exe)) >= 0;
        for (size_t i = 0; i < n_matches; i++) {
                Pin *pin = matches[i].pin;
                int r;

                if (pin_has_pid(pin, pid) || !pin_rule_matches(&pin->target, &st, have_exe ? exe : NULL))
                        continue;
                r = rule_add(p, &matches[i], pid, &st);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Pins a rule's matches of a batch (one change set, one journal write) and
 * adds those pinned to its pids.  Returns 0 or -ENOMEM. */
static int rule_pin(Pins *p, RuleMatches *m) {
        PinRuntime *rt = pins_runtime(p, m->pin->id, true);
        _cleanup_free_ pid_t *pids = NULL;
        ErrorInfo e = {};
        size_t n = 0;
        int r;

        if (!rt)
                return -ENOMEM;
        r = pins_pin_processes(p, rt, m->procs, m->n, &m->pin->cpus, &e);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_warning("Pin %u: %zu process(es): %s, ignoring.", m->pin->id, m->n, e.message);
                return 0;
        }
        pids = calloc(m->pin->n_pids + m->n, sizeof(pid_t));
        if (!pids)
                return -ENOMEM;
        memcpy(pids, m->pin->pids, m->pin->n_pids * sizeof(pid_t));
        n = m->pin->n_pids;
        for (size_t i = 0; i < m->n; i++)
                if (m->procs[i].pinned)
                        pids[n++] = m->procs[i].pid;
        return pin_registry_set_pids(p->registry, m->pin->id, pids, n);
}

/* The rule pins, as empty matches.  Returns their number, or -ENOMEM. */
static ssize_t rules_matches(Pins *p, RuleMatches **ret) {
        RuleMatches *m = NULL;
        size_t n = 0, allocated = 0;

        PIN_REGISTRY_FOREACH_PIN(pin, p->registry) {
                if (!pin_is_rule(pin))
                        continue;
                if (array_reserve_one((void **) &m, n, &allocated, sizeof(RuleMatches)) < 0) {
                        free(m);
                        return -ENOMEM;
                }
                m[n++] = (RuleMatches) { .pin = pin };
        }
        *ret = m;
        return (ssize_t) n;
}

/* Matches processes pids[0..n-1] against every rule and pins those that
 * match, a change set per rule.  Returns the number of rules that moved,
 * or -ENOMEM. */
static int processes_match(Pins *p, const pid_t *pids, size_t n) {
        RuleMatches *matches = NULL;
        ssize_t n_matches = rules_matches(p, &matches);
        int r = 0, moved = 0;

        if (n_matches < 0)
                return (int) n_matches;
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = process_match(p, pids[i], matches, (size_t) n_matches);
        for (ssize_t k = 0; r >= 0 && k < n_matches; k++) {
                size_t before = matches[k].pin->n_pids;

                if (matches[k].n > 0)
                        r = rule_pin(p, &matches[k]);
                moved += matches[k].pin->n_pids != before;
        }
        for (ssize_t k = 0; k < n_matches; k++)
                free(matches[k].procs);
        free(matches);
        return r < 0 ? r : moved;
}

/* The processes pids[0..n-1] are gone (or were renamed off a comm rule:
 * still pinned; only an exit drops them).  Returns the number of rules
 * that moved. */
static int processes_gone(Pins *p, const pid_t *pids, size_t n) {
        int moved = 0;

        PIN_REGISTRY_FOREACH_PIN(pin, p->registry) {
                PinRuntime *rt = pin_is_rule(pin) ? pins_runtime(p, pin->id, false) : NULL;
                size_t before = pin->n_pids;

                for (size_t i = 0; pin_is_rule(pin) && i < n; i++) {
                        if (!pin_has_pid(pin, pids[i]))
                                continue;
                        if (rt)
                                pins_runtime_forget_process(p, rt, pids[i]);
                        if (pin_pids_update(p, pin, pids[i], false) < 0)
                                log_oom();
                }
                moved += pin->n_pids != before;
        }
        return moved;
}

/* Tells the manager, once, that rules' processes moved. */
static void rules_moved(Pins *p) {
        PIN_REGISTRY_FOREACH_PIN(pin, p->registry)
                if (pin_is_rule(pin)) {
                        PinState want = pin->n_pids > 0 ? PIN_STATE_ACTIVE : PIN_STATE_WAITING;

                        if (pin->state != want)
                                (void) pin_registry_set_state(p->registry, pin->id, want);
                }
        if (p->ctx.changed)
                p->ctx.changed(p->ctx.userdata);
}

/* Handles at most RULES_BATCH_MAX queued events: the exits first, then the
 * execs of processes that did not exit in the same batch.  Returns the
 * number of rules that moved, or -ENOMEM. */
static int queue_handle(Pins *p) {
        size_t n = p->n_queue < RULES_BATCH_MAX ? p->n_queue : RULES_BATCH_MAX, n_exec = 0, n_exit = 0;
        _cleanup_free_ pid_t *execs = calloc(n + 1, sizeof(pid_t)), *exits = calloc(n + 1, sizeof(pid_t));
        int moved, r;

        if (!execs || !exits)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                bool later_exit = false;

                if (p->queue[i].exited) {
                        exits[n_exit++] = p->queue[i].pid;
                        continue;
                }
                for (size_t k = i + 1; k < n && !later_exit; k++)
                        /* an exit later in the batch, or the same process again (exec and comm) */
                        later_exit = p->queue[k].pid == p->queue[i].pid;
                if (!later_exit)
                        execs[n_exec++] = p->queue[i].pid;
        }
        memmove(p->queue, p->queue + n, (p->n_queue - n) * sizeof(RuleEvent));
        p->n_queue -= n;
        moved = processes_gone(p, exits, n_exit);
        r = processes_match(p, execs, n_exec);
        return r < 0 ? r : moved + r;
}

static int on_batch(sd_event_source *s, uint64_t usec, void *userdata) {
        Pins *p = userdata;
        int r;

        if (p->queue_overrun) {
                p->queue_overrun = false;
                p->n_queue = 0;
                log_notice("More process events came than a batch holds, scanning /proc again.");
                if (pins_rules_rescan(p) < 0)
                        log_warning("Failed to scan /proc, ignoring.");
                return 0;
        }
        r = queue_handle(p);
        if (r == -ENOMEM)
                return log_oom();
        if (r > 0)
                rules_moved(p);
        /* the rest at the next turn of the loop: the bus answers in between */
        if (p->n_queue > 0 && sd_event_source_set_time_relative(s, 0) >= 0)
                (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return 0;
}

/* Queues a process event for the next batch (arming it).  Never fails: a
 * full queue is a scan of /proc instead. */
static void queue_event(Pins *p, pid_t pid, bool exited) {
        int enabled = SD_EVENT_OFF;

        if (p->n_queue >= RULES_QUEUE_MAX ||
            array_reserve_one((void **) &p->queue, p->n_queue, &p->queue_allocated, sizeof(RuleEvent)) < 0)
                p->queue_overrun = true;
        else
                p->queue[p->n_queue++] = (RuleEvent) { .pid = pid, .exited = exited };
        if (!p->batch || sd_event_source_get_enabled(p->batch, &enabled) < 0 || enabled != SD_EVENT_OFF)
                return;
        if (sd_event_source_set_time_relative(p->batch, RULES_BATCH_USEC) >= 0)
                (void) sd_event_source_set_enabled(p->batch, SD_EVENT_ONESHOT);
}

static void on_exec(pid_t pid, pid_t tgid, void *userdata) {
        queue_event(userdata, tgid, false);
}

static void on_comm(pid_t pid, pid_t tgid, const char *comm, void *userdata) {
        queue_event(userdata, tgid, false);
}

static void on_exit_event(pid_t pid, pid_t tgid, int exit_code, void *userdata) {
        if (pid == tgid)
                queue_event(userdata, tgid, true);
}

/* Scans /proc: every process is matched, and the rules drop the pids
 * that no longer exist.  Returns 0 or a negative errno. */
int pins_rules_rescan(Pins *p) {
        _cleanup_free_ pid_t *pids = NULL, *gone = NULL;
        size_t n = 0, n_gone = 0, total = 0;
        int r, moved;

        r = proc_list_pids(p->host_fd, &pids, &n);
        if (r < 0)
                return r;
        PIN_REGISTRY_FOREACH_PIN(pin, p->registry)
                total += pin_is_rule(pin) ? pin->n_pids : 0;
        gone = calloc(total + 1, sizeof(pid_t));
        if (!gone)
                return -ENOMEM;
        PIN_REGISTRY_FOREACH_PIN(pin, p->registry)
                for (size_t i = 0; pin_is_rule(pin) && i < pin->n_pids; i++)
                        if (!bsearch(&pin->pids[i], pids, n, sizeof(pid_t), pid_compare))
                                gone[n_gone++] = pin->pids[i];
        moved = processes_gone(p, gone, n_gone);
        r = processes_match(p, pids, n);
        if (r < 0)
                return r;
        if (moved + r > 0)
                rules_moved(p);
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

        if (!p->batch) {
                r = sd_event_add_time_relative(p->ctx.event, &p->batch, CLOCK_MONOTONIC, RULES_BATCH_USEC, 0, on_batch, p);
                if (r >= 0)
                        r = sd_event_source_set_enabled(p->batch, SD_EVENT_OFF);
                if (r < 0)
                        return errinfo_set(e, r, "Failed to set up the exec rules' batches: %s", strerror(-r));
        }
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
        pins_rules_done(p);
}

void pins_rules_done(Pins *p) {
        p->events = proc_events_free(p->events);
        p->batch = sd_event_source_disable_unref(p->batch);
        free(p->queue);
        p->queue = NULL;
        p->n_queue = p->queue_allocated = 0;
        p->queue_overrun = false;
}
