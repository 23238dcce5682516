/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Consolidation's knobs: the background's cpusets and AllowedCPUs, and at
 * level 2 the interrupts' affinities (consolidation.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "change-set.h"
#include "consolidation.h"
#include "knob-irq.h"
#include "knob-unit.h"
#include "log.h"
#include "macro.h"

int consolidator_new(ChangeLayer *changes, Consolidator **ret) {
        Consolidator *c = calloc(1, sizeof(Consolidator));

        if (!c)
                return -ENOMEM;
        c->changes = changes;
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
static int target_key(const Consolidator *c, ConsolidationTarget *t) {
        const KnobEnv *env = change_layer_env(c->changes);
        const char *n = t->name;
        char dir[KNOB_CGROUP_PATH_MAX];

        if (strncmp(n, KNOB_CGROUP_PREFIX, strlen(KNOB_CGROUP_PREFIX)) == 0) {
                snprintf(dir, sizeof(dir), "%s%s", env->cgroup_root, n + strlen(KNOB_CGROUP_PREFIX));
                if (knob_cgroup_key(env, dir, t->key, sizeof(t->key)) >= 0)
                        return 0;
                target_state(t, "invalid: not a cgroup path below %s", env->cgroup_root);
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

/* Forgets what was steered or refused: the next level 2 starts afresh. */
static void irqs_reset(Consolidator *c) {
        c->n_irqs = 0;
        c->irq_steered = c->irq_refused = c->irq_backed_off = 0;
}

/* Returns 0 or -EIO with e set. */
int consolidator_release(Consolidator *c, ErrorInfo *e) {
        int r = change_restore(c->changes, CHANGE_OWNER(CONSOLIDATION), e);

        if (r < 0)
                return r;
        for (unsigned i = 0; i < c->n_targets; i++) {
                ConsolidationTarget *t = &c->targets[i];

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
                if (target_key(c, t) < 0)
                        log_warning("Consolidation background \"%s\": %s, ignoring.", t->name, t->state);
                else
                        target_state(t, "not confined");
        }
        return 0;
}

/* Why a target's knob cannot be read, for its state. */
static const char *read_failure(int r) {
        if (r == -ELOOP || r == -EXDEV || r == -ENOTDIR)
                return knob_cgroup_refusal(r);
        switch (r) {
        case -ENOTCONN:
                return "no system bus (units need systemd)";
        case -EHOSTUNREACH:
                return "no systemd on the bus";
        case -ENOENT:
                return "no such cgroup or unit";
        case -EISDIR:
        case -EBADFD:
                return "its cpuset.cpus is not a regular file";
        default:
                return knob_error_reason(r);
        }
}

/* Confines one target to list.  Its state says what happened. */
static void target_confine(Consolidator *c, ConsolidationTarget *t, const char *list) {
        _cleanup_(change_set_done) ChangeSet set = {};
        ChangeOwner holder;
        ErrorInfo e = {};
        int r;

        if (!t->key[0])
                return;
        holder = change_owner_of(c->changes, t->key);
        if (holder.kind == CHANGE_OWNER_PIN) {
                target_state(t, "skipped: a pin holds its CPUs");
                return;
        }
        change_set_init(&set, c->changes, CHANGE_OWNER(CONSOLIDATION));
        r = change_set_add(&set, t->key, list, &e);
        if (r < 0) {
                target_state(t, "skipped: %s", r == -EBUSY ? e.message : read_failure(r));
                return;
        }
        r = change_set_apply(&set, &e);
        if (r < 0) {
                log_warning("Consolidation: failed to confine %s to %s: %s, ignoring.", t->name, list, e.message);
                target_state(t, "failed: %s", e.message);
                return;
        }
        if (r > 0)
                log_debug("Consolidation: %s confined to %s (was \"%s\").", t->name, list, set.writes[0].old);
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

/* Steers one interrupt to set (list its text).  Someone else's change
 * since the daemon's write backs the daemon off it. */
static void irq_steer(Consolidator *c, IrqSteer *q, const CpuSet *set, const char *list) {
        _cleanup_(change_set_done) ChangeSet change = {};
        char key[32];
        ErrorInfo e = {};
        CpuSet now;
        int r;

        if (q->refused || q->backed_off)
                return;
        knob_irq_key(q->irq, key, sizeof(key));
        change_set_init(&change, c->changes, CHANGE_OWNER(CONSOLIDATION));
        change.tag = CONSOLIDATION_TAG_IRQ;
        if (change_set_add(&change, key, list, &e) < 0 || cpuset_parse(change.writes[0].old, &now, NULL) < 0)
                return;
        if (q->steered && !change_owned_by(c->changes, key, CHANGE_OWNER(CONSOLIDATION)))
                q->steered = false;     /* Restore() put it back: not someone else */
        if (q->steered && !cpuset_equal(&now, &q->written)) {
                log_notice("Consolidation: IRQ %u's affinity was changed to %s by someone else (irqbalance?), "
                           "leaving it alone.", q->irq, change.writes[0].old);
                change_forget(c->changes, key);
                q->steered = false;
                q->backed_off = true;
                return;
        }
        if (cpuset_equal(&now, set))
                return;
        r = change_set_apply(&change, &e);
        if (r < 0) {
                /* per-CPU and managed interrupts: EIO; a set it cannot route to: EINVAL */
                log_debug("Consolidation: IRQ %u refuses an affinity of %s: %s, skipping it.", q->irq, list, e.message);
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
        int r = knob_irq_list(change_layer_env(c->changes), &irqs, &n);

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
        if (change_restore_tag(c->changes, CHANGE_OWNER(CONSOLIDATION), CONSOLIDATION_TAG_IRQ, &e) < 0)
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
