/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Consolidation's knobs: the background's cpusets and AllowedCPUs, and at
 * level 2 the interrupts' affinities (consolidation.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "consolidation.h"
#include "log.h"
#include "macro.h"

int consolidator_new(Journal *journal, int root_fd, Consolidator **ret) {
        Consolidator *c = calloc(1, sizeof(Consolidator));

        if (!c)
                return -ENOMEM;
        c->journal = journal;
        c->root_fd = root_fd;
        consolidate_params_init(&c->params);
        consolidation_init(&c->state);
        *ret = c;
        return 0;
}

Consolidator *consolidator_free(Consolidator *c) {
        if (c)
                free(c->irqs);
        free(c);
        return NULL;
}

/* Sets t's state (truncated quietly: an explanation, not data). */
static void target_state(ConsolidationTarget *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void target_state(ConsolidationTarget *t, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(t->state, sizeof(t->state), fmt, ap);
        va_end(ap);
}

/* The journal key of a configured entry: "cgroup:/PATH" below the cgroup
 * mount, "unit:NAME" or a bare unit name.  Returns 0 or -EINVAL with
 * t->state saying why. */
static int target_key(ConsolidationTarget *t) {
        const char *n = t->name;
        char dir[KNOB_CGROUP_PATH_MAX];

        if (strncmp(n, KNOB_CGROUP_PREFIX, strlen(KNOB_CGROUP_PREFIX)) == 0) {
                snprintf(dir, sizeof(dir), "%s%s", knob_workload_cgroup_root(), n + strlen(KNOB_CGROUP_PREFIX));
                if (knob_cgroup_key(dir, t->key, sizeof(t->key)) >= 0)
                        return 0;
                target_state(t, "invalid: not a cgroup path below %s", knob_workload_cgroup_root());
        } else {
                if (strncmp(n, KNOB_UNIT_PREFIX, strlen(KNOB_UNIT_PREFIX)) == 0)
                        n += strlen(KNOB_UNIT_PREFIX);
                if (knob_unit_key(n, t->key, sizeof(t->key)) >= 0)
                        return 0;
                target_state(t, "invalid: not a unit name with a cgroup (.slice, .service, ...)");
        }
        t->key[0] = '\0';
        return -EINVAL;
}

/* Whether the journal key is an interrupt consolidation steered (a
 * JournalFilter). */
static bool is_our_irq(const char *path, void *userdata) {
        const Consolidator *c = userdata;
        WorkloadKnob k;

        if (knob_workload_parse(path, &k) < 0 || k.kind != WORKLOAD_KNOB_IRQ)
                return false;
        for (size_t i = 0; i < c->n_irqs; i++)
                if (c->irqs[i].irq == k.irq)
                        return c->irqs[i].steered;
        return false;
}

/* Whether the journal key is one consolidation changed (a JournalFilter). */
static bool is_ours(const char *path, void *userdata) {
        const Consolidator *c = userdata;

        for (unsigned i = 0; i < c->n_targets; i++)
                if (c->targets[i].ours && strcmp(c->targets[i].key, path) == 0)
                        return true;
        return is_our_irq(path, userdata);
}

/* Forgets what was steered or refused: the next level 2 starts afresh. */
static void irqs_reset(Consolidator *c) {
        c->n_irqs = 0;
        c->irq_steered = c->irq_refused = c->irq_backed_off = 0;
}

/* Returns 0 or -EIO with e set. */
int consolidator_release(Consolidator *c, ErrorInfo *e) {
        bool any = c->irq_steered > 0;
        int r = 0;

        for (unsigned i = 0; i < c->n_targets; i++)
                any |= c->targets[i].ours;
        if (any)
                r = journal_restore_some(c->journal, c->root_fd, is_ours, c, e);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < c->n_targets; i++) {
                ConsolidationTarget *t = &c->targets[i];

                t->ours = false;
                if (t->key[0])
                        target_state(t, "not confined");
        }
        irqs_reset(c);
        return 0;
}

int consolidator_configure(Consolidator *c, const Config *cfg) {
        ErrorInfo e = {};

        c->params = (ConsolidateParams) {
                .headroom_pct = (unsigned) cfg->consolidation_headroom,
                .headroom_pct_level2 = (unsigned) cfg->consolidation_headroom_level2,
                .grow_pct = CONSOLIDATE_GROW_PCT_DEFAULT,
                .shrink_ticks = (unsigned) cfg->consolidation_shrink_ticks,
                .exit_pct = (unsigned) cfg->consolidation_exit_util,
                .hysteresis_pct = (unsigned) cfg->consolidation_hysteresis,
        };
        /* What the old entries confined comes back before they change. */
        if (consolidator_release(c, &e) < 0)
                log_warning("Consolidation: %s, ignoring.", e.message);
        c->n_targets = cfg->n_consolidation_background;
        for (unsigned i = 0; i < c->n_targets; i++) {
                ConsolidationTarget *t = &c->targets[i];

                *t = (ConsolidationTarget) {};
                snprintf(t->name, sizeof(t->name), "%s", cfg->consolidation_background[i]);
                if (target_key(t) < 0)
                        log_warning("Consolidation background \"%s\": %s, ignoring.", t->name, t->state);
                else
                        target_state(t, "not confined");
        }
        return 0;
}

/* Why a target's knob cannot be read, for its state. */
static const char *read_failure(int r) {
        switch (r) {
        case -ENOTCONN:
                return "no system bus (units need systemd)";
        case -EHOSTUNREACH:
                return "no systemd on the bus";
        case -ENOENT:
                return "no such cgroup or unit";
        default:
                return strerror(-r);
        }
}

/* Confines one target to list.  Its state says what happened. */
static void target_confine(Consolidator *c, ConsolidationTarget *t, const char *list) {
        _cleanup_free_ char *cur = malloc(KNOB_CPULIST_MAX);
        WorkloadKnob k;
        int r;

        if (!t->key[0] || !cur || knob_workload_parse(t->key, &k) < 0)
                return;
        r = knob_workload_read(&k, cur, KNOB_CPULIST_MAX);
        if (r < 0) {
                target_state(t, "skipped: %s", read_failure(r));
                return;
        }
        if (strcmp(cur, list) == 0) {
                target_state(t, "confined to %s", list);
                return;
        }
        if (!t->ours && journal_original(c->journal, t->key)) {
                target_state(t, "skipped: a pin holds its CPUs");
                return;
        }
        r = journal_record(c->journal, t->key, cur);
        if (r < 0) {
                target_state(t, "skipped: its original could not be journaled (%s)", strerror(-r));
                return;
        }
        t->ours = true;
        r = knob_workload_write(&k, list);
        if (r < 0) {
                log_warning_errno(r, "Consolidation: failed to confine %s to %s: %m, ignoring", t->name, list);
                target_state(t, "failed: %s", strerror(-r));
                return;
        }
        log_debug("Consolidation: %s confined to %s (was \"%s\").", t->name, list, cur);
        target_state(t, "confined to %s", list);
}

/* The IrqSteer of irq, added when new.  Returns NULL on -ENOMEM. */
static IrqSteer *irq_entry(Consolidator *c, unsigned irq) {
        for (size_t i = 0; i < c->n_irqs; i++)
                if (c->irqs[i].irq == irq)
                        return &c->irqs[i];
        if (array_reserve_one((void **) &c->irqs, c->n_irqs, &c->n_allocated, sizeof(IrqSteer)) < 0)
                return NULL;
        c->irqs[c->n_irqs] = (IrqSteer) { .irq = irq };
        return &c->irqs[c->n_irqs++];
}

/* Drops key from the journal (its original is no longer ours to put back). */
static void journal_drop(Consolidator *c, const char *key) {
        char *keys[] = { (char *) key };

        if (journal_forget(c->journal, keys, 1) < 0)
                log_warning("Consolidation: failed to drop %s from the restore journal, ignoring.", key);
}

/* Steers one interrupt to set (list its text).  Someone else's change
 * since the daemon's write backs the daemon off it. */
static void irq_steer(Consolidator *c, IrqSteer *q, const CpuSet *set, const char *list) {
        char key[32], cur[4096];
        WorkloadKnob k = { .kind = WORKLOAD_KNOB_IRQ, .irq = q->irq };
        CpuSet now;
        int r;

        if (q->refused || q->backed_off)
                return;
        knob_irq_key(q->irq, key, sizeof(key));
        if (knob_workload_read(&k, cur, sizeof(cur)) < 0 || cpuset_parse(cur, &now, NULL) < 0)
                return;
        if (q->steered && !journal_original(c->journal, key))
                q->steered = false;     /* Restore() put it back: not someone else */
        if (q->steered && !cpuset_equal(&now, &q->written)) {
                log_notice("Consolidation: IRQ %u's affinity was changed to %s by someone else (irqbalance?), "
                           "leaving it alone.", q->irq, cur);
                journal_drop(c, key);
                q->steered = false;
                q->backed_off = true;
                return;
        }
        if (cpuset_equal(&now, set))
                return;
        r = journal_record(c->journal, key, cur);
        if (r < 0)
                return;
        r = knob_workload_write(&k, list);
        if (r < 0) {
                /* per-CPU and managed interrupts: EIO; a set it cannot route to: EINVAL */
                log_debug_errno(r, "Consolidation: IRQ %u refuses an affinity of %s: %m, skipping it.", q->irq, list);
                if (!q->steered)
                        journal_drop(c, key);
                q->steered = false;
                q->refused = true;
                return;
        }
        q->written = *set;
        q->steered = true;
}

/* Level 2: every interrupt steered to set, the counts updated. */
static void irqs_steer(Consolidator *c, const CpuSet *set, const char *list) {
        _cleanup_free_ unsigned *irqs = NULL;
        size_t n = 0;
        int r = knob_irq_list(&irqs, &n);

        if (r < 0) {
                log_debug_errno(r, "Consolidation: no interrupts to steer: %m");
                return;
        }
        for (size_t i = 0; i < n; i++) {
                IrqSteer *q = irq_entry(c, irqs[i]);

                if (!q)
                        return;
                irq_steer(c, q, set, list);
        }
        c->irq_steered = c->irq_refused = c->irq_backed_off = 0;
        for (size_t i = 0; i < c->n_irqs; i++) {
                c->irq_steered += c->irqs[i].steered;
                c->irq_refused += c->irqs[i].refused;
                c->irq_backed_off += c->irqs[i].backed_off;
        }
}

/* Puts back only the interrupts (leaving level 2 for level 1). */
static void irqs_release(Consolidator *c) {
        ErrorInfo e = {};

        if (c->n_irqs == 0)
                return;
        if (journal_restore_some(c->journal, c->root_fd, is_our_irq, c, &e) < 0)
                log_warning("Consolidation: %s, ignoring.", e.message);
        irqs_reset(c);
}

/* Makes the decision real. */
static void consolidator_apply(Consolidator *c, bool enforce) {
        char list[4096];
        ErrorInfo e = {};

        if (!enforce || !c->state.active || cpuset_format(&c->state.set, list, sizeof(list)) < 0) {
                if (consolidator_release(c, &e) < 0)
                        log_warning("Consolidation: %s, ignoring.", e.message);
                return;
        }
        for (unsigned i = 0; i < c->n_targets; i++)
                target_confine(c, &c->targets[i], list);
        if (c->state.level >= 2)
                irqs_steer(c, &c->state.set, list);
        else
                irqs_release(c);
}

int consolidator_tick(Consolidator *c, const ConsolidateInput *in, bool enforce) {
        char before[CONSOLIDATE_REASON_MAX];
        bool was = c->state.active;
        int r;

        snprintf(before, sizeof(before), "%s", c->state.reason);
        r = consolidate_step(&c->params, in, &c->state);
        if (r < 0)
                return r;
        if (r > 0 || was != c->state.active)
                log_info("Consolidation: %s%s.", c->state.active ? "background on " : "", c->state.reason);
        consolidator_apply(c, enforce);
        return r > 0 || strcmp(before, c->state.reason) != 0;
}
