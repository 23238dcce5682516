/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* org.idlepolicy.IdlePolicy1.Manager on /org/idlepolicy/IdlePolicy1. */

#define BUS_MANAGER_INTERFACE "org.idlepolicy.IdlePolicy1.Manager"

#include <stdbool.h>

typedef struct Manager Manager;
typedef struct PolicyCpu PolicyCpu;

/* Adds the Manager vtable to m->bus.  Returns 0 or a negative errno. */
int bus_manager_register(Manager *m);

/* Signals PlanChanged(cpu, cap, floor, cap_reason, floor_reason). */
void bus_manager_emit_plan_changed(Manager *m, unsigned cpu, const PolicyCpu *c);

/* Signals CalibrationFinished(ok, error); message is "" when ok. */
void bus_manager_emit_calibration_finished(Manager *m, bool ok, const char *message);
