/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bus-error.h"
#include "consolidation.h"
#include "log.h"
#include "manager-consolidation.h"
#include "manager-policy.h"

int manager_consolidation_start(Manager *m) {
        int r;

        r = consolidator_new(m->changes, &m->consolidation.consolidator);
        if (r < 0)
                return log_oom();
        m->consolidation.freed = &m->consolidation.consolidator->state.freed;
        (void) consolidator_configure(m->consolidation.consolidator, &m->config);
        log_info("Consolidation level %u (%s), %u background entr%s configured.", manager_consolidation_level(m),
                 m->consolidation.level >= 0 ? "set by SetConsolidation" : "the profile's",
                 m->consolidation.consolidator->n_targets, m->consolidation.consolidator->n_targets == 1 ? "y" : "ies");
        return 0;
}

/* Returns 0 or -EIO with e set. */
int manager_consolidation_release(Manager *m, ErrorInfo *e) {
        return m->consolidation.consolidator ? consolidator_release(m->consolidation.consolidator, e) : 0;
}

void manager_consolidation_free(Manager *m) {
        m->consolidation.freed = NULL;
        m->consolidation.consolidator = consolidator_free(m->consolidation.consolidator);
}

void manager_consolidation_reconfigure(Manager *m) {
        if (!m->consolidation.consolidator)
                return;
        (void) consolidator_configure(m->consolidation.consolidator, &m->config);
        manager_emit(m, "ConsolidationStatus");
}

unsigned manager_consolidation_level(const Manager *m) {
        return m->consolidation.level >= 0 ? (unsigned) m->consolidation.level : manager_profile(m)->consolidation;
}

const char *manager_consolidation_source(const Manager *m, char *buf, size_t size) {
        if (m->consolidation.level >= 0)
                snprintf(buf, size, "SetConsolidation");
        else
                snprintf(buf, size, "profile %s", manager_profile(m)->name);
        return buf;
}

/* Returns 0 or -ERRNO_INVALID_LEVEL with e set. */
int manager_set_consolidation(Manager *m, uint32_t level, ErrorInfo *e) {
        unsigned before = manager_consolidation_level(m);

        if (level > CONSOLIDATE_LEVEL_MAX)
                return errinfo_set(e, -ERRNO_INVALID_LEVEL, "Invalid consolidation level %u: use 0 (off), 1 or 2",
                                   level);
        log_info("Consolidation level %u set (was %u).", level, before);
        m->consolidation.level = (int) level;
        manager_policy_save_state(m);
        if (before != level)
                manager_emit(m, "Consolidation");
        manager_emit(m, "ConsolidationStatus");
        manager_consolidation_tick(m);
        return 0;
}

void manager_consolidation_profile_changed(Manager *m) {
        if (m->consolidation.level < 0)
                return;
        log_info("The profile changed: consolidation follows its level (%u) again.", manager_profile(m)->consolidation);
        m->consolidation.level = -1;
        manager_policy_save_state(m);
        manager_emit(m, "ConsolidationStatus");
}

/* The CPUs pins hold (never in the set). */
static void pinned_cpus(const Manager *m, CpuSet *ret) {
        const PinRegistry *r = m->pinning.pins ? pins_registry(m->pinning.pins) : NULL;

        cpuset_clear(ret);
        if (!r)
                return;
        PIN_REGISTRY_FOREACH_PIN(p, r)
                if (p->cpus_given)
                        CPUSET_FOREACH(cpu, &p->cpus)
                                cpuset_add(ret, (unsigned) cpu);
}

/* Sums the busy share of the online CPUs in the set (NULL: all) into
 * *ret_sum (Q10 CPUs) and counts those measured.  The share comes from the
 * idle residency where it is known (snapshot.h: proc/stat aliases a
 * background that wakes with the tick's period, which is what a timer-driven
 * background does), else from proc/stat.  Returns the count. */
static unsigned busy_sum(const Manager *m, const CpuSet *only, const CpuSet *without, uint64_t *ret_sum) {
        unsigned n = 0;

        *ret_sum = 0;
        CPUSET_FOREACH(cpu, &m->sampling->topology->online) {
                const CpuRates *r = sampling_rates(m->sampling, (unsigned) cpu);

                if ((only && !cpuset_contains(only, (unsigned) cpu)) || (without && cpuset_contains(without, (unsigned) cpu)))
                        continue;
                double util = r && r->util_idle >= 0 ? r->util_idle : r ? r->util : -1;

                if (util < 0)
                        continue;
                *ret_sum += (uint64_t) (util * 1024.0 + 0.5);
                n++;
        }
        return n;
}

/* The step's input: the machine's mean busy share, the background's use
 * (the busy time of the CPUs it may run on: online, not pinned, which
 * bounds it from above, so the set is never too small for what the count
 * misses), the set's mean busy share. */
static void build_input(const Manager *m, const CpuSet *pinned, ConsolidateInput *in) {
        const Consolidation *st = &m->consolidation.consolidator->state;
        uint64_t sum;
        unsigned n;

        *in = (ConsolidateInput) { .level = manager_consolidation_level(m), .topology = m->sampling->topology,
                                   .pinned = pinned, .machine_util = -1, .background = -1, .set_util = -1,
                                   .no_background = m->consolidation.consolidator->n_targets == 0 };
        n = busy_sum(m, NULL, NULL, &sum);
        if (n == 0)
                return;
        in->machine_util = (int) (sum / n);
        (void) busy_sum(m, NULL, pinned, &sum);
        in->background = (int) (sum > INT32_MAX ? INT32_MAX : sum);
        if (st->active && (n = busy_sum(m, &st->set, NULL, &sum)) > 0)
                in->set_util = (int) (sum / n);
}

void manager_consolidation_tick(Manager *m) {
        ConsolidateInput in;
        CpuSet pinned;
        int r;

        if (!m->consolidation.consolidator || !m->sampling)
                return;
        pinned_cpus(m, &pinned);
        build_input(m, &pinned, &in);
        r = consolidator_tick(m->consolidation.consolidator, &in, m->policy.mode == DAEMON_MODE_ENFORCE);
        if (r == -ENOMEM) {
                (void) sd_event_exit(m->event, log_oom());
                return;
        }
        if (r < 0)
                log_warning_errno(r, "Consolidation step failed: %m, ignoring");
        if (r > 0)
                manager_emit(m, "ConsolidationStatus");
}

const CpuSet *manager_consolidation_freed(const Manager *m) {
        static const CpuSet none;

        return m->consolidation.consolidator ? &m->consolidation.consolidator->state.freed : &none;
}
