/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the manager tells the outside: property changes, CPUs that came or
 * went, moved plans, the end of a calibration.  Through the callbacks the
 * bus registered (ManagerEvents); with none registered, nothing is said. */
#include <stdio.h>
#include <string.h>

#include "fileio.h"
#include "knob-idle.h"
#include "log.h"
#include "manager.h"

void manager_emit(Manager *m, const char *property) {
        if (m->events.property_changed)
                m->events.property_changed(m, property);
}

void manager_emit_cpus(Manager *m, const Topology *old, const Topology *new) {
        if (cpuset_equal(&old->present, &new->present))
                return;
        manager_emit(m, "CPUs");
        if (m->events.cpus_changed)
                m->events.cpus_changed(m, old, new);
}

void manager_emit_plan_changed(Manager *m, unsigned cpu, const PolicyCpu *c) {
        if (m->events.plan_changed)
                m->events.plan_changed(m, cpu, c);
}

void manager_emit_calibration_finished(Manager *m, bool ok, const char *message) {
        if (m->events.calibration_finished)
                m->events.calibration_finished(m, ok, message);
}

void manager_note_governor(Manager *m, const char *governor, bool external) {
        if (!governor || strcmp(governor, m->governor) == 0)
                return;
        if (external && m->governor[0])
                log_info("cpuidle governor is now %s (was %s).", governor, m->governor);
        snprintf(m->governor, sizeof(m->governor), "%s", governor);
        manager_emit(m, "Governor");
}

void manager_knobs_changed(Manager *m) {
        char governor[64];

        manager_emit(m, "Changed");
        if (fileio_read_string_at(m->root_fd, SYSFS_CPUIDLE_GOVERNOR, governor, sizeof(governor)) >= 0)
                manager_note_governor(m, governor, false);
}

EnforceTarget manager_enforce_target(Manager *m, ChangeOwner owner) {
        return (EnforceTarget) {
                .changes = m->changes,
                .owner = owner,
                .topology = m->sampling->topology,
                .sampler = m->sampling->sampler,
        };
}
