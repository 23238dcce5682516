/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* org.idlepolicy.IdlePolicy1.Manager on /org/idlepolicy/IdlePolicy1. */

#define BUS_MANAGER_INTERFACE "org.idlepolicy.IdlePolicy1.Manager"

#include <stdbool.h>
#include <systemd/sd-bus.h>

typedef struct Manager Manager;

/* Adds the Manager vtable to m->bus and registers the manager's events it
 * turns into PropertiesChanged, PlanChanged(cpu, cap, floor, cap_reason,
 * floor_reason) and CalibrationFinished(ok, error).  Returns 0 or a
 * negative errno. */
int bus_manager_register(Manager *m);

