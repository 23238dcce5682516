/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's bus connection (the manager's last start-up phase, given to
 * it by main() as ManagerOptions.connect_bus). */

#include "manager.h"

/* Connects to the system bus, registers the Manager, CPU and pin objects, the
 * object manager and the manager's event callbacks, attaches to m->event
 * and takes the name.  Returns 0 or a negative errno (logged). */
int bus_connect(Manager *m);

