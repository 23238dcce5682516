/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* org.idlepolicy.IdlePolicy1.CPU on /org/idlepolicy/IdlePolicy1/cpu/N, one
 * object per present CPU (a fallback vtable and a node enumerator). */

#define BUS_CPU_INTERFACE "org.idlepolicy.IdlePolicy1.CPU"

typedef struct Manager Manager;

/* Adds the CPU objects to m->bus and registers the manager's cpus_changed
 * event (ObjectManager InterfacesAdded/Removed).  Returns 0 or a negative
 * errno. */
int bus_cpu_register(Manager *m);

