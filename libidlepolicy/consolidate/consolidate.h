/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Consolidation (issue 15, the 2008 sched_mc_power_savings=0/1/2 series in
 * user space): the CPUs the administrator's background work is confined
 * to, so that the others (the freed CPUs) stay idle and sleep deep.
 * Pure: the caller measures, this decides; no logging, no clock, no paths.
 *
 * Levels:
 *   0  off.
 *   1  the background is packed onto a set sized from its measured
 *      utilisation with headroom (headroom_pct, default 25%: the
 *      grow rule below catches a set that turns out too busy).
 *   2  level 1 with a tighter headroom (headroom_pct_level2, default 10%),
 *      and the caller also steers device interrupts off the freed CPUs.
 *
 * The set (consolidate_pick()): the eligible CPUs (online, not pinned) in
 * fill order — the SMT siblings of a core, then the next core of the same
 * package (and die), then the next package — the first `size` of them.
 * Offline and pinned CPUs are never in it; it holds at least one CPU.
 *
 * Its size (consolidate_step()), from one tick's utilisation:
 *   needed = ceil(background × (100 + headroom) / 100), at least 1, at
 *   most the eligible CPUs (background in CPUs' worth);
 *   grow at once: to needed when needed > size; by one CPU when the set's
 *   CPUs were busier than grow_pct on average (too busy for the headroom
 *   the measurement promised);
 *   shrink only after shrink_ticks ticks in a row in which needed < size.
 * It leaves by itself when the machine is busier than exit_pct (default
 * 50%: the seed's crossover — below it kernbench ran 4.6% faster for 8%
 * less energy at level 2, above it SPECjbb lost 16% of its work for 1% of
 * the power) and comes back below exit_pct - hysteresis_pct. */

#include <stdbool.h>

#include "cpuset.h"
#include "topology.h"

#define CONSOLIDATE_LEVEL_MAX 2u
#define CONSOLIDATE_REASON_MAX 256

typedef struct ConsolidateParams {
        unsigned headroom_pct;          /* level 1 */
        unsigned headroom_pct_level2;   /* level 2: tighter */
        unsigned grow_pct;              /* the set's mean busy share that grows it at once */
        unsigned shrink_ticks;          /* ticks in a row a smaller set must do before shrinking */
        unsigned exit_pct;              /* machine busy share above which consolidation leaves */
        unsigned hysteresis_pct;        /* it comes back below exit_pct - hysteresis_pct */
} ConsolidateParams;

#define CONSOLIDATE_HEADROOM_PCT_DEFAULT 25u
#define CONSOLIDATE_HEADROOM_PCT_LEVEL2_DEFAULT 10u
#define CONSOLIDATE_GROW_PCT_DEFAULT 80u
#define CONSOLIDATE_SHRINK_TICKS_DEFAULT 5u
#define CONSOLIDATE_EXIT_PCT_DEFAULT 50u
#define CONSOLIDATE_HYSTERESIS_PCT_DEFAULT 10u

/* One tick's measurements.  Utilisations are Q10 (1024 = 100%, or one
 * CPU's worth for background); -1: not measured (the decision holds). */
typedef struct ConsolidateInput {
        unsigned level;                 /* 0..CONSOLIDATE_LEVEL_MAX */
        const Topology *topology;
        const CpuSet *pinned;           /* never in the set; NULL: none */
        int machine_util;               /* mean busy share of the online CPUs */
        int background;                 /* the background's use, in CPUs' worth */
        int set_util;                   /* mean busy share of the current set's CPUs */
        bool no_background;             /* nobody named a background: nothing to pack, so no
                                         * CPU is freed (off, whatever the level) */
} ConsolidateInput;

typedef struct Consolidation {
        unsigned level;                 /* of the last step */
        bool active;                    /* the background is confined to set */
        bool suspended;                 /* off by itself: machine above exit_pct */
        unsigned size;                  /* active: CPUs in set */
        unsigned below_ticks;           /* ticks in a row a smaller set would have done */
        CpuSet set;                     /* active: where the background may run */
        CpuSet freed;                   /* active: online, not pinned, not in set */
        int machine_util, background;   /* the last step's input (Q10, -1 unknown) */
        char reason[CONSOLIDATE_REASON_MAX];    /* why the set has its size, or why off */
} Consolidation;

/* Fills p with the defaults above. */
void consolidate_params_init(ConsolidateParams *p);

/* Returns true when p is usable: headrooms <= 400, 1 <= grow_pct <= 100,
 * shrink_ticks <= 3600, 1 <= exit_pct <= 100, hysteresis_pct < exit_pct. */
bool consolidate_params_valid(const ConsolidateParams *p);

/* Starts c off (level 0), with reason "off: level 0". */
void consolidation_init(Consolidation *c);

/* The headroom of level (0 for level 0). */
unsigned consolidate_headroom_pct(const ConsolidateParams *p, unsigned level);

/* The CPUs the background needs at level: ceil(background × (100 +
 * headroom) / 100 / 1024), at least 1.  background < 0 counts as 0. */
unsigned consolidate_needed(const ConsolidateParams *p, unsigned level, int background);

/* Writes the eligible CPUs of t (online, not in pinned, which may be NULL)
 * in fill order into order (room for max entries).  Returns how many are
 * eligible (may exceed max: only max are written), or -ENOMEM. */
int consolidate_fill_order(const Topology *t, const CpuSet *pinned, unsigned *order, unsigned max);

/* The first n eligible CPUs in fill order into *ret.  Returns how many it
 * took (fewer than n when fewer are eligible), or -ENOMEM. */
int consolidate_pick(const Topology *t, const CpuSet *pinned, unsigned n, CpuSet *ret);

/* One tick: decides whether to consolidate and the set, with the reason in
 * c->reason.  Returns 1 when active, set or freed changed, 0 when not,
 * -EINVAL for a level above CONSOLIDATE_LEVEL_MAX or no topology (c
 * untouched), -ENOMEM. */
int consolidate_step(const ConsolidateParams *p, const ConsolidateInput *in, Consolidation *c);
