/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "errinfo.h"
#include "knob-unit.h"
#include "log.h"
#include "systemd-unit.h"

/* Returns 0, -EINVAL or -ENAMETOOLONG. */
int knob_unit_key(const char *unit, char *buf, size_t size) {
        if (systemd_unit_check_name(unit, NULL) < 0)
                return -EINVAL;
        if ((size_t) snprintf(buf, size, KNOB_UNIT_PREFIX "%s", unit) >= size)
                return -ENAMETOOLONG;
        return 0;
}

/* Parses "unit:NAME".  Returns 0 or -EINVAL. */
static int unit_parse(const KnobEnv *env, const char *key, KnobAddr *ret) {
        const char *unit = key + strlen(KNOB_UNIT_PREFIX);

        if (strncmp(key, KNOB_UNIT_PREFIX, strlen(KNOB_UNIT_PREFIX)) != 0 || systemd_unit_check_name(unit, NULL) < 0)
                return -EINVAL;
        *ret = (KnobAddr) { .type = &knob_type_unit, .cpu = KNOB_NO_CPU, .name = unit };
        return 0;
}

static bool unit_value_valid(const KnobAddr *a, const char *value) {
        return knob_cpulist_valid(value, true);
}

/* A unit's AllowedCPUs as a CPU list ("" when not set).  Returns 0,
 * -ENOENT (not loaded now: a write may still reach it, SetUnitProperties
 * loads a unit that exists on disk), -ENOTCONN without a bus, or another
 * negative errno (-EHOSTUNREACH without systemd on the bus). */
static int unit_read(const KnobEnv *env, const KnobAddr *a, char *buf, size_t size) {
        ErrorInfo e = {};
        CpuSet set;
        bool is_set;
        int r;

        if (!env->bus)
                return -ENOTCONN;
        r = systemd_unit_get_allowed_cpus(env->bus, a->name, &set, &is_set, &e);
        if (r < 0 && r != -ENOENT)
                log_warning("%s.", e.message);
        if (r < 0)
                return r;
        if (!is_set) {
                buf[0] = '\0';
                return 0;
        }
        return cpuset_format(&set, buf, size);
}

/* Sets a unit's AllowedCPUs to the CPU list value ("": not set).  Returns
 * 0, -ENOENT (no such unit), -ENOTCONN or another negative errno. */
static int unit_write(const KnobEnv *env, const KnobAddr *a, const char *value) {
        ErrorInfo e = {};
        CpuSet set;
        int r;

        if (!env->bus)
                return -ENOTCONN;
        r = cpuset_parse(value, &set, NULL);
        if (r >= 0)
                r = systemd_unit_set_allowed_cpus(env->bus, a->name, &set, &e);
        if (r < 0 && r != -ENOENT)
                log_warning("%s.", e.message);
        return r;
}

const KnobType knob_type_unit = {
        .name = "unit",
        .value_max = KNOB_CPULIST_MAX,
        .write_when_absent = true,
        .parse = unit_parse,
        .value_valid = unit_value_valid,
        .read = unit_read,
        .write = unit_write,
};
