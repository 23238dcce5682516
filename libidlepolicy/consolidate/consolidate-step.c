/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The state machine: on or off, the set's size with its hysteresis, and
 * the reason for both (consolidate.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "consolidate.h"

#define PCT(q10) ((unsigned) (((unsigned) (q10) * 100u + 512u) / 1024u))

void consolidate_params_init(ConsolidateParams *p) {
        *p = (ConsolidateParams) {
                .headroom_pct = CONSOLIDATE_HEADROOM_PCT_DEFAULT,
                .headroom_pct_level2 = CONSOLIDATE_HEADROOM_PCT_LEVEL2_DEFAULT,
                .grow_pct = CONSOLIDATE_GROW_PCT_DEFAULT,
                .shrink_ticks = CONSOLIDATE_SHRINK_TICKS_DEFAULT,
                .exit_pct = CONSOLIDATE_EXIT_PCT_DEFAULT,
                .hysteresis_pct = CONSOLIDATE_HYSTERESIS_PCT_DEFAULT,
        };
}

bool consolidate_params_valid(const ConsolidateParams *p) {
        return p->headroom_pct <= 400 && p->headroom_pct_level2 <= 400 && p->grow_pct >= 1 && p->grow_pct <= 100 &&
               p->shrink_ticks <= 3600 && p->exit_pct >= 1 && p->exit_pct <= 100 && p->hysteresis_pct < p->exit_pct;
}

void consolidation_init(Consolidation *c) {
        *c = (Consolidation) { .machine_util = -1, .background = -1 };
        snprintf(c->reason, sizeof(c->reason), "off: level 0");
}

unsigned consolidate_headroom_pct(const ConsolidateParams *p, unsigned level) {
        return level == 0 ? 0 : level == 1 ? p->headroom_pct : p->headroom_pct_level2;
}

unsigned consolidate_needed(const ConsolidateParams *p, unsigned level, int background) {
        uint64_t want = (uint64_t) (background > 0 ? background : 0) * (100u + consolidate_headroom_pct(p, level));
        uint64_t one = UINT64_C(1024) * 100u;
        uint64_t n = (want + one - 1) / one;

        return n < 1 ? 1 : n > UINT32_MAX ? UINT32_MAX : (unsigned) n;
}

static void reason(Consolidation *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reason(Consolidation *c, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
        va_end(ap);
}

/* Switches c off.  Returns 1 if it was on. */
static int turn_off(Consolidation *c) {
        bool was = c->active;

        c->active = false;
        c->size = c->below_ticks = 0;
        cpuset_clear(&c->set);
        cpuset_clear(&c->freed);
        return was;
}

/* Leaves above exit_pct, comes back below exit_pct - hysteresis_pct.
 * Returns true while suspended (reason set). */
static bool machine_too_busy(const ConsolidateParams *p, const ConsolidateInput *in, Consolidation *c) {
        unsigned util = PCT(in->machine_util), back = p->exit_pct - p->hysteresis_pct;

        if (!c->suspended && util > p->exit_pct)
                c->suspended = true;
        else if (c->suspended && util < back)
                c->suspended = false;
        if (c->suspended)
                reason(c, "off: the machine is %u%% busy, above %u%% consolidation costs more work than it saves "
                       "power; back below %u%%", util, p->exit_pct, back);
        return c->suspended;
}

/* The size for this tick under the hysteresis rules, the reason's first
 * part in c->reason.  size is c->size (0: just switched on). */
static unsigned next_size(const ConsolidateParams *p, const ConsolidateInput *in, Consolidation *c, unsigned needed) {
        unsigned size = c->size, h = consolidate_headroom_pct(p, in->level);
        double bg = (in->background > 0 ? in->background : 0) / 1024.0;

        if (size == 0 || needed > size) {
                c->below_ticks = 0;
                reason(c, "background %.2f CPUs + %u%% headroom needs %u", bg, h, needed);
                return needed;
        }
        if (in->set_util >= 0 && PCT(in->set_util) > p->grow_pct) {
                c->below_ticks = 0;
                reason(c, "grown by one: the set was %u%% busy, above %u%%", PCT(in->set_util), p->grow_pct);
                return size + 1;
        }
        if (needed == size) {
                c->below_ticks = 0;
                reason(c, "background %.2f CPUs + %u%% headroom needs %u", bg, h, needed);
                return size;
        }
        if (++c->below_ticks >= p->shrink_ticks) {
                c->below_ticks = 0;
                reason(c, "shrunk after %u ticks: background %.2f CPUs + %u%% headroom needs %u", p->shrink_ticks,
                       bg, h, needed);
                return needed;
        }
        reason(c, "held: %u would do (background %.2f CPUs + %u%% headroom), shrinking after %u more tick(s)", needed,
               bg, h, p->shrink_ticks - c->below_ticks);
        return size;
}

/* Returns 1 if changed, 0 if not, -ENOMEM. */
static int consolidate_on(const ConsolidateParams *p, const ConsolidateInput *in, Consolidation *c) {
        const Topology *t = in->topology;
        unsigned needed = consolidate_needed(p, in->level, in->background), size;
        char why[CONSOLIDATE_REASON_MAX];
        CpuSet set, freed = t->online;
        int n;

        n = consolidate_pick(t, in->pinned, UINT32_MAX, &set);
        if (n < 0)
                return n;
        if (n == 0) {
                reason(c, "off: every online CPU is pinned");
                return turn_off(c);
        }
        size = next_size(p, in, c, needed);
        snprintf(why, sizeof(why), "%s", c->reason);
        if (size >= (unsigned) n) {
                size = (unsigned) n;
                reason(c, "%u CPU(s), all the online CPUs not pinned, nothing freed: %s", size, why);
        } else
                reason(c, "%u CPU(s): %s", size, why);
        n = consolidate_pick(t, in->pinned, size, &set);
        if (n < 0)
                return n;
        CPUSET_FOREACH(cpu, &set)
                cpuset_remove(&freed, (unsigned) cpu);
        if (in->pinned)
                CPUSET_FOREACH(cpu, in->pinned)
                        cpuset_remove(&freed, (unsigned) cpu);
        n = !c->active || !cpuset_equal(&set, &c->set) || !cpuset_equal(&freed, &c->freed);
        c->active = true;
        c->size = size;
        c->set = set;
        c->freed = freed;
        return n;
}

/* Returns 1 if changed, 0 if not, -EINVAL, -ENOMEM. */
int consolidate_step(const ConsolidateParams *p, const ConsolidateInput *in, Consolidation *c) {
        if (in->level > CONSOLIDATE_LEVEL_MAX || !in->topology)
                return -EINVAL;
        c->level = in->level;
        c->machine_util = in->machine_util;
        c->background = in->background;
        if (in->level == 0) {
                c->suspended = false;
                reason(c, "off: level 0");
                return turn_off(c);
        }
        /* A CPU freed of nothing would only be held in its deepest state
         * while it runs everything it ran before. */
        if (in->no_background) {
                c->suspended = false;
                reason(c, "off: no background configured, nothing to confine (consolidation_background "
                          "in idlepolicyd.conf(5))");
                return turn_off(c);
        }
        if (in->machine_util < 0 || in->background < 0) {
                if (!c->active)
                        reason(c, "off: no utilisation measured yet");
                return 0;
        }
        if (machine_too_busy(p, in, c))
                return turn_off(c);
        return consolidate_on(p, in, c);
}
