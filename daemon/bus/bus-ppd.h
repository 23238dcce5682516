/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Following power-profiles-daemon (ppd-follow.h) on the Manager interface:
 * a vtable of org.idlepolicy.IdlePolicy1.Manager on /org/idlepolicy/IdlePolicy1
 * beside the others (sd-bus merges the vtables of an interface). */

typedef struct Manager Manager;

/* Adds the vtable to m->bus.  Returns 0 or a negative errno. */
int bus_ppd_register(Manager *m);
