/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's table of knob types and what works on any of them. */
#include <errno.h>
#include <string.h>

#include "fileio.h"
#include "knob-cgroup.h"
#include "knob-idle.h"
#include "knob-irq.h"
#include "knob-task.h"
#include "knob-unit.h"

const KnobType *const knob_types_default[] = {
        &knob_type_idle,
        &knob_type_wteo,
        &knob_type_task,
        &knob_type_cgroup,
        &knob_type_unit,
        &knob_type_irq,
        NULL,
};

void knob_env_done(KnobEnv *env) {
        fileio_closep(&env->cgroup_fd);
        env->bus = sd_bus_unref(env->bus);
        *env = KNOB_ENV_NULL;
}

/* Returns 0 or -EINVAL. */
int knob_parse_key(const KnobType *const *types, const KnobEnv *env, const char *key, KnobAddr *ret) {
        for (; *types; types++)
                if ((*types)->parse(env, key, ret) >= 0)
                        return 0;
        return -EINVAL;
}

bool knob_entry_valid(const KnobType *const *types, const KnobEnv *env, const char *key, const char *value,
                      const char **ret_why) {
        const char *why = NULL;
        KnobAddr a;

        if (knob_parse_key(types, env, key, &a) < 0)
                why = "not a knob the daemon writes";
        else if (strlen(value) >= a.type->value_max || !a.type->value_valid(&a, value))
                why = "not a valid value for its knob";
        if (ret_why)
                *ret_why = why;
        return !why;
}

const char *knob_error_reason(int r) {
        switch (r) {
        case -EBADFD:
        case -EISDIR:
                return "not a regular file";
        case -ELOOP:
                return "a symbolic link";
        default:
                return strerror(-r);
        }
}

bool knob_cpulist_valid(const char *value, bool allow_empty) {
        CpuSet set;
        size_t n = strlen(value);

        if (n >= KNOB_CPULIST_MAX || (n == 0 && !allow_empty))
                return false;
        return strspn(value, "0123456789,-") == n && cpuset_parse(value, &set, NULL) >= 0;
}
