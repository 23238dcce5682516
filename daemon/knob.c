/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "fileio.h"
#include "knob.h"

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

/* Successful writes, for the metrics: the daemon is one thread. */
static uint64_t n_writes;

/* Returns 0 or a negative errno. */
int knob_write(int root_fd, const char *path, const char *value) {
        char line[KNOB_VALUE_MAX + 2];
        int r;

        if (snprintf(line, sizeof(line), "%s\n", value) >= (int) sizeof(line))
                return -EINVAL;
        r = fileio_write_string_at(root_fd, path, line);
        if (r >= 0)
                n_writes++;
        return r;
}

uint64_t knob_writes(void) {
        return n_writes;
}
