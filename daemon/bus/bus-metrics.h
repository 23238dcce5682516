/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The metrics textfile's property (metrics-textfile.h) on the Manager
 * interface: a vtable of its own on /org/idlepolicy/IdlePolicy1, merged by
 * sd-bus with the others of the interface. */

typedef struct Manager Manager;

/* Adds the vtable to m->bus.  Returns 0 or a negative errno. */
int bus_metrics_register(Manager *m);
