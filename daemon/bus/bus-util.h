/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What every bus file uses and none of them owns: object paths, CPU lists
 * in replies, node enumerators, the authorisation of a mutating call. */

#include <stddef.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "cpuset.h"

#define BUS_CPU_PREFIX "/org/idlepolicy/IdlePolicy1/cpu"

typedef struct Manager Manager;

/* Formats the object path of cpu into buf.  Returns buf. */
char *bus_cpu_path(unsigned cpu, char buf[static 64]);

/* Formats set as a CPU list into a malloc'ed string.  Returns 0 or -ENOMEM. */
int bus_format_cpus(const CpuSet *set, char **ret);

/* For a node enumerator: stores a copy of path at l[*n] (the caller made
 * room) and counts it.  Returns 0, or -ENOMEM after freeing l and the *n
 * paths in it. */
int bus_nodes_add(char **l, size_t *n, const char *path);

/* Authorises a mutating call (polkit.h) and brings the online CPUs up to
 * date.  Returns 1 to go on, 0 for a call parked until polkit answers (the
 * handler returns 1), or a negative errno with error set. */
int bus_authorize(Manager *m, sd_bus_message *message, const char *action, sd_bus_error *error);

/* The caller's effective uid (polkit_sender_euid()); a caller that cannot
 * be told (it left the bus meanwhile) is AccessDenied.  Returns 0, or
 * -ENOMEM / -EACCES with error set. */
int bus_sender_uid(sd_bus_message *message, uid_t *ret, sd_bus_error *error);
