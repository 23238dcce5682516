/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "cpuidle.h"
#include "errinfo.h"
#include "fileio.h"
#include "knob-idle.h"
#include "log.h"

/* Returns buf. */
char *knob_state_disable_path(unsigned cpu, unsigned state, char buf[static KNOB_PATH_MAX]) {
        snprintf(buf, KNOB_PATH_MAX, SYSFS_CPU_STATE_DISABLE_FMT, cpu, state);
        return buf;
}

/* Returns buf. */
char *knob_resume_latency_path(unsigned cpu, char buf[static KNOB_PATH_MAX]) {
        snprintf(buf, KNOB_PATH_MAX, SYSFS_CPU_RESUME_LATENCY_FMT, cpu);
        return buf;
}

/* Returns buf. */
char *knob_wteo_tolerance_path(unsigned cpu, char buf[static KNOB_PATH_MAX]) {
        snprintf(buf, KNOB_PATH_MAX, SYSFS_CPU_WTEO_TOLERANCE_FMT, cpu);
        return buf;
}

bool knob_kind_system(KnobKind kind) {
        return kind == KNOB_GOVERNOR || kind == KNOB_HALTPOLL || kind == KNOB_WTEO_PARAM;
}

/* Parses a decimal number without sign or leading zeros (except "0") at
 * the start of s.  Returns a pointer past it, or NULL. */
static const char *skip_uint(const char *s, unsigned *ret) {
        unsigned long v = 0;
        const char *p = s;

        if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
                return NULL;
        for (; *p >= '0' && *p <= '9'; p++) {
                v = v * 10 + (unsigned long) (*p - '0');
                if (v > 1000000)
                        return NULL;
        }
        *ret = (unsigned) v;
        return p;
}

/* Returns a pointer past prefix in s, or NULL. */
static const char *skip_prefix(const char *s, const char *prefix) {
        size_t n = strlen(prefix);
        return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

/* Returns true for one of the haltpoll parameters the daemon may write. */
static bool haltpoll_param(const char *path) {
        static const char *const params[] = {
                SYSFS_HALTPOLL_NS, SYSFS_HALTPOLL_GROW, SYSFS_HALTPOLL_GROW_START,
                SYSFS_HALTPOLL_SHRINK, SYSFS_HALTPOLL_ALLOW_SHRINK,
        };

        for (size_t i = 0; i < ELEMENTSOF(params); i++)
                if (strcmp(path, params[i]) == 0)
                        return true;
        return false;
}

/* Returns true for one of the wteo parameters the daemon may write. */
static bool wteo_param(const char *path) {
        return strcmp(path, SYSFS_WTEO_LEARN_SHIFT) == 0 || strcmp(path, SYSFS_WTEO_AGE_SHIFT) == 0 ||
               strcmp(path, SYSFS_WTEO_EXPLORE_SHIFT) == 0;
}

/* Returns 0 or -EINVAL. */
int knob_parse(const char *path, KnobId *ret) {
        unsigned cpu, state;
        const char *p;

        if (strcmp(path, SYSFS_CPUIDLE_GOVERNOR) == 0 || haltpoll_param(path) || wteo_param(path)) {
                *ret = (KnobId) { .kind = haltpoll_param(path) ? KNOB_HALTPOLL :
                                          wteo_param(path) ? KNOB_WTEO_PARAM : KNOB_GOVERNOR };
                return 0;
        }
        p = skip_prefix(path, SYSFS_CPU_PREFIX);
        p = p ? skip_uint(p, &cpu) : NULL;
        if (!p)
                return -EINVAL;
        if (strcmp(p, "/" SYSFS_CPU_REL_RESUME_LATENCY) == 0 || strcmp(p, "/" SYSFS_CPU_REL_WTEO_TOLERANCE) == 0) {
                *ret = (KnobId) { .kind = p[1] == 'w' ? KNOB_WTEO_TOLERANCE : KNOB_RESUME_LATENCY, .cpu = cpu };
                return 0;
        }
        p = skip_prefix(p, "/" SYSFS_CPU_REL_STATE);
        p = p ? skip_uint(p, &state) : NULL;
        if (!p || strcmp(p, "/disable") != 0)
                return -EINVAL;
        *ret = (KnobId) { .kind = KNOB_STATE_DISABLE, .cpu = cpu, .state = state };
        return 0;
}

/* Returns 0 or -EINVAL. */
int knob_parse_path(const char *path, KnobKind *ret_kind, unsigned *ret_cpu) {
        KnobId id;
        int r = knob_parse(path, &id);

        if (r < 0)
                return r;
        *ret_kind = id.kind;
        *ret_cpu = id.cpu;
        return 0;
}

bool knob_value_valid(const char *value) {
        size_t n = strlen(value);

        if (n == 0 || n >= KNOB_VALUE_MAX)
                return false;
        return strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./") == n;
}

/* Returns true if the kernel lists governor in available_governors. */
static bool governor_offered(int root_fd, const char *governor) {
        CpuidleSystem sys;
        ErrorInfo e = {};

        return cpuidle_system_load(root_fd, &sys, &e) >= 0 && cpuidle_system_has_governor(&sys, governor);
}

/* Returns true if the governor in force is wteo. */
static bool wteo_governs(int root_fd) {
        char governor[64];

        if (fileio_read_string_at(root_fd, SYSFS_CPUIDLE_GOVERNOR, governor, sizeof(governor)) < 0 &&
            fileio_read_string_at(root_fd, SYSFS_CPUIDLE_GOVERNOR_RO, governor, sizeof(governor)) < 0)
                return false;
        return strcmp(governor, CPUIDLE_GOVERNOR_WTEO) == 0;
}

static bool is_wteo(KnobKind kind) {
        return kind == KNOB_WTEO_PARAM || kind == KNOB_WTEO_TOLERANCE;
}

/* Parses key as a knob of kind wteo (or not).  Returns 0 or -EINVAL. */
static int parse_as(const char *key, bool wteo, const KnobType *type, KnobAddr *ret) {
        KnobId id;

        if (knob_parse(key, &id) < 0 || is_wteo(id.kind) != wteo)
                return -EINVAL;
        *ret = (KnobAddr) { .type = type, .kind = (int) id.kind, .cpu = knob_kind_system(id.kind) ? KNOB_NO_CPU : id.cpu,
                            .index = id.state, .rel = key };
        return 0;
}

static int idle_parse(const KnobEnv *env, const char *key, KnobAddr *ret) {
        return parse_as(key, false, &knob_type_idle, ret);
}

static int wteo_parse(const KnobEnv *env, const char *key, KnobAddr *ret) {
        return parse_as(key, true, &knob_type_wteo, ret);
}

static bool idle_value_valid(const KnobAddr *a, const char *value) {
        return knob_value_valid(value);
}

/* Returns 0 or a negative errno (-ENOENT: no such file). */
static int idle_read(const KnobEnv *env, const KnobAddr *a, char *buf, size_t size) {
        int r = fileio_read_string_at(env->root_fd, a->rel, buf, size);

        return r < 0 ? r : 0;
}

/* Writes value plus a newline (as echo does, and as sysfs shows it).
 * Returns 0 or the negative errno of the write. */
static int idle_write(const KnobEnv *env, const KnobAddr *a, const char *value) {
        char line[KNOB_VALUE_MAX + 2];

        if (snprintf(line, sizeof(line), "%s\n", value) >= (int) sizeof(line))
                return -EINVAL;
        return fileio_write_string_at(env->root_fd, a->rel, line);
}

static bool online(const KnobAddr *a, const CpuSet *set) {
        return set && a->cpu != KNOB_NO_CPU && cpuset_contains(set, a->cpu);
}

/* A state knob of an offline CPU: the kernel recreates the CPU's states with
 * their defaults when it comes back. */
static bool idle_offline(const KnobAddr *a, const CpuSet *set) {
        return a->kind == KNOB_STATE_DISABLE && set && !cpuset_contains(set, a->cpu);
}

/* A state knob of an online CPU whose file is missing is in the middle of a
 * governor switch (which removes and recreates every CPU's state
 * directories while the disable bits survive). */
static KnobAbsent idle_absent(const KnobEnv *env, const KnobAddr *a, const CpuSet *set) {
        return a->kind == KNOB_STATE_DISABLE && online(a, set) ? KNOB_ABSENT_WAIT : KNOB_ABSENT_GONE;
}

/* A governor the kernel does not offer is never written. */
static bool idle_restorable(const KnobEnv *env, const KnobAddr *a, const char *value) {
        if (a->kind != KNOB_GOVERNOR || governor_offered(env->root_fd, value))
                return true;
        log_error("%s: the recorded governor is not one the kernel offers (available_governors), not restoring it.",
                  a->rel);
        return false;
}

/* A tolerance whose file is missing: its group is being made while wteo
 * governs its CPU (a switch back to wteo, put back just before); while wteo
 * does not govern, the kernel keeps the value set until it does, so the
 * original stays for a later restore. */
static KnobAbsent wteo_absent(const KnobEnv *env, const KnobAddr *a, const CpuSet *set) {
        if (a->kind != KNOB_WTEO_TOLERANCE)
                return KNOB_ABSENT_GONE;
        return online(a, set) && wteo_governs(env->root_fd) ? KNOB_ABSENT_WAIT : KNOB_ABSENT_KEEP;
}

const KnobType knob_type_idle = {
        .name = "idle",
        .value_max = KNOB_VALUE_MAX,
        .counted = true,
        .verify = true,
        .parse = idle_parse,
        .value_valid = idle_value_valid,
        .read = idle_read,
        .write = idle_write,
        .offline = idle_offline,
        .absent = idle_absent,
        .restorable = idle_restorable,
};

const KnobType knob_type_wteo = {
        .name = "wteo",
        .value_max = KNOB_VALUE_MAX,
        .counted = true,
        .parse = wteo_parse,
        .value_valid = idle_value_valid,
        .read = idle_read,
        .write = idle_write,
        .absent = wteo_absent,
        .kept_noun = "wteo tolerance(s)",
        .kept_why = "wteo does not govern their CPUs now, and the kernel keeps the value set until it does; "
                    "a later restore or start puts them back",
};
