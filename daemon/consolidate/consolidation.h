/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Consolidation on the machine (issue 15): the library's decision
 * (consolidate.h) made real through the journaled workload knobs
 * (knob-workload.h).  Only what the configuration names as background
 * ("consolidation_background") is confined: a unit's AllowedCPUs through
 * systemd, a cgroup's cpuset.cpus (v2 with the cpuset controller, or the
 * v1 cpuset hierarchy).  No process is ever moved between cgroups.  Every
 * original is journaled before the first write and put back exactly (the
 * value read, not "all CPUs") when consolidation ends, at exit, and after
 * a crash by the next start's replay.
 *
 * Level 2 also steers every device interrupt whose affinity can be set
 * (/proc/irq/N/smp_affinity_list) to the set.  The kernel refuses per-CPU
 * and managed interrupts (EIO, EINVAL): they are skipped and counted.  An
 * interrupt whose affinity someone else changed after the daemon wrote it
 * (irqbalance rewrites affinities every 10 s) is left to them: its journal
 * entry is dropped (they own it now), it is counted as backed off and not
 * touched again until consolidation ends.  Run irqbalance with the freed
 * CPUs in IRQBALANCE_BANNED_CPULIST (or IRQBALANCE_BANNED_CPUS) instead,
 * or stop it, to keep them quiet. */

#include <stdbool.h>

#include "config.h"
#include "consolidate.h"
#include "change.h"
#include "errinfo.h"
#include "knob-cgroup.h"

/* One configured background entry and what happened to it. */
typedef struct ConsolidationTarget {
        char name[CONFIG_BACKGROUND_NAME_MAX];  /* as configured */
        char key[KNOB_KEY_MAX];                 /* its knob's key; "" when the name is invalid */
        char state[192];                        /* "confined to 0", "not confined", "skipped: ..." */
} ConsolidationTarget;

typedef struct IrqSteer {
        unsigned irq;
        CpuSet written;                         /* what the daemon set (valid when steered) */
        bool steered, refused, backed_off;
} IrqSteer;

/* The tag of consolidation's interrupt knobs (its targets have tag 0). */
#define CONSOLIDATION_TAG_IRQ 1

typedef struct Consolidator {
        ChangeLayer *changes;                   /* not owned: its knobs are CHANGE_OWNER(CONSOLIDATION)'s */
        ConsolidateParams params;
        Consolidation state;                    /* the library's decision */
        ConsolidationTarget targets[CONFIG_BACKGROUND_MAX];
        unsigned n_targets;
        IrqSteer *irqs;
        size_t n_irqs, n_allocated;
        unsigned irq_steered, irq_refused, irq_backed_off;
} Consolidator;

/* Returns 0 or -ENOMEM. */
int consolidator_new(ChangeLayer *changes, Consolidator **ret);
/* Frees c (NULL allowed) without touching a knob.  Returns NULL. */
Consolidator *consolidator_free(Consolidator *c);

/* Takes the background entries and thresholds of cfg.  A target no longer
 * configured is put back first.  Returns 0 (a bad entry is logged and its
 * state says why). */
int consolidator_configure(Consolidator *c, const Config *cfg);

/* One tick: the library's step on in, then, when enforce is set and it is
 * active, the targets confined to the set (and at level 2 the interrupts
 * steered); otherwise what it changed is put back.  Returns 1 when the
 * decision (active, set, reason) changed, 0 when not, -EINVAL for a bad
 * level, -ENOMEM. */
int consolidator_tick(Consolidator *c, const ConsolidateInput *in, bool enforce);

/* Puts back every knob consolidation changed.  Returns 0 or -EIO with e
 * naming the knobs that stay in the journal. */
int consolidator_release(Consolidator *c, ErrorInfo *e);

/* Consolidation's state in the manager (manager-consolidation.c). */
typedef struct DaemonConsolidation {
        Consolidator *consolidator;
        int level;                    /* SetConsolidation()'s, -1: the profile's */
        const CpuSet *freed;          /* the CPUs it freed (its output for the policy), NULL: none */
} DaemonConsolidation;
