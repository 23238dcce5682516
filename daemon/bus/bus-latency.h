/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The CPU latency request's properties (latency-watch.h) on the Manager
 * interface: a second vtable of org.idlepolicy.IdlePolicy1.Manager on
 * /org/idlepolicy/IdlePolicy1 (sd-bus merges the vtables of an interface). */

typedef struct Manager Manager;

/* Adds the vtable to m->bus.  Returns 0 or a negative errno. */
int bus_latency_register(Manager *m);
