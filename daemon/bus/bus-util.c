/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-error.h"
#include "bus-util.h"
#include "knob-type.h"
#include "manager.h"

/* Returns buf. */
char *bus_cpu_path(unsigned cpu, char buf[static 64]) {
        snprintf(buf, 64, BUS_CPU_PREFIX "/%u", cpu);
        return buf;
}

/* Returns 0 or -ENOMEM. */
int bus_format_cpus(const CpuSet *set, char **ret) {
        char *buf = malloc(KNOB_CPULIST_MAX);

        if (!buf)
                return -ENOMEM;
        if (cpuset_format(set, buf, KNOB_CPULIST_MAX) < 0)
                buf[0] = '\0';          /* cannot happen: the longest list fits */
        *ret = buf;
        return 0;
}

/* Returns 0 or -ENOMEM (l freed). */
int bus_nodes_add(char **l, size_t *n, const char *path) {
        l[*n] = strdup(path);
        if (l[*n]) {
                (*n)++;
                return 0;
        }
        while (*n > 0)
                free(l[--*n]);
        free(l);
        return -ENOMEM;
}

/* Returns 1, 0 or a negative errno with error set. */
int bus_authorize(Manager *m, sd_bus_message *message, const char *action, sd_bus_error *error) {
        int r = polkit_verify(m->polkit, message, action, error);

        if (r > 0)
                manager_check_hotplug(m);
        return r;
}

/* Returns 0 or a negative errno with error set. */
int bus_sender_uid(sd_bus_message *message, uid_t *ret, sd_bus_error *error) {
        int r = polkit_sender_euid(message, ret);

        if (r == -ENOMEM || r >= 0)
                return r;
        return sd_bus_error_setf(error, BUS_ERROR_ACCESS_DENIED, "Cannot tell who the caller is: %s", strerror(-r));
}
