/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The "idlepolicy" governor: a base governor (teo, or menu for
 * "idlepolicy-menu") with the model's plan applied at tick granularity, as
 * the daemon applies it — the daemon's own policy step (policy-step.h),
 * no copy.  Per tick it counts what the kernel would count (usage, above
 * and below against the advertised costs and the states enabled during
 * the tick, time, timer and other wakeups), runs the step for its CPU and
 * disables the states the plan in force does not allow in its own copy of
 * the table, which is the one the base governor sees.  On the
 * cpuidle-haltpoll driver's table (POLL and "haltpoll idle": a KVM guest)
 * it also does what the daemon's enforcement does with the machine's
 * halt-poll decision: a window runs the base as the kernel's haltpoll
 * governor with guest_halt_poll_ns = the window (restarted, as a switch
 * restarts the kernel's, when the window changes); no window, the governor
 * the profile wants (menu under "auto"; a preferred switch at most once per
 * IDLEPOLICY_GOVERNOR_HOLD_TICKS, a needed one at once); polling only, a
 * latency limit of 0 (resume latency "n/a").  States disabled in the simulated table itself
 * (--disable) are the administrator's: manual_disabled.  The table's real
 * costs play the calibration's part: a state whose real costs differ from
 * the advertised ones is misdescribed, with real_latency_us and
 * real_residency_us from the table. */

#include "governor.h"
#include "policy-step.h"
#include "profile.h"

#define IDLEPOLICY_TICK_NS UINT64_C(1000000000)   /* one second of simulated time */
/* A governor switch the plan merely prefers, at most once per this many
 * ticks (the daemon's governor_hold_usec, 30 s); one it needs, at once. */
#define IDLEPOLICY_GOVERNOR_HOLD_TICKS 30u

extern const GovernorOps governor_idlepolicy;        /* on teo, the balanced profile */
extern const GovernorOps governor_idlepolicy_menu;   /* on menu, the balanced profile */
/* "teo-range": teo on its own copy of the table with the states outside
 * [GovParams.range_floor, range_cap] disabled, or, for a range2_share of
 * the ticks (spread evenly), outside [range2_floor, range2_cap]: fixed
 * plans and their mix in time, the yardstick bench/static-plans measures
 * idlepolicy's plans against.  Not in "all".  init: -EINVAL if a floor is
 * above its cap, -EOPNOTSUPP if the table has no state at a floor in use. */

/* Creates an idlepolicy governor on base with profile prof (NULL: the
 * built-in balanced one) and a tick of tick_ns simulated ns (0: one
 * second), for table t.  Returns 0, -ENOMEM, -EINVAL (base too large to
 * wrap, or itself an idlepolicy governor), or base's init error. */
int gov_idlepolicy_new(const GovernorOps *base, const Profile *prof, uint64_t tick_ns,
                       const SimTable *t, const GovParams *p, Governor **ret);

/* The plan in force, the model, the table the base governor sees. */
const CpuPlan *gov_idlepolicy_plan(const Governor *g);
const ModelCpu *gov_idlepolicy_model(const Governor *g);
const SimTable *gov_idlepolicy_table(const Governor *g);
/* Ticks completed so far. */
uint64_t gov_idlepolicy_ticks(const Governor *g);
/* The policy step's state (the plan in force, the machine's halt-poll
 * decision); the base governor running now. */
const PolicyStep *gov_idlepolicy_step(const Governor *g);
const char *gov_idlepolicy_base(const Governor *g);
