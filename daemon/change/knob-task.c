/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "fileio.h"
#include "knob-task.h"
#include "pin-proc.h"

/* Returns buf. */
char *knob_task_key(pid_t tid, uint64_t start_time, char *buf, size_t size) {
        snprintf(buf, size, KNOB_TASK_PREFIX "%d:%" PRIu64, (int) tid, start_time);
        return buf;
}

/* Parses "task:TID:START".  Returns 0 or -EINVAL. */
static int task_parse(const KnobEnv *env, const char *key, KnobAddr *ret) {
        const char *s = key + strlen(KNOB_TASK_PREFIX), *colon;
        char tid[16];
        uint64_t t, start;

        if (strncmp(key, KNOB_TASK_PREFIX, strlen(KNOB_TASK_PREFIX)) != 0)
                return -EINVAL;
        colon = strchr(s, ':');
        if (!colon || (size_t) (colon - s) >= sizeof(tid))
                return -EINVAL;
        memcpy(tid, s, (size_t) (colon - s));
        tid[colon - s] = '\0';
        if (parse_u64(tid, &t) < 0 || t == 0 || t > PIN_TARGET_PID_MAX || parse_u64(colon + 1, &start) < 0 ||
            strchr(colon + 1, '\n'))
                return -EINVAL;
        *ret = (KnobAddr) { .type = &knob_type_task, .cpu = KNOB_NO_CPU, .tid = (pid_t) t, .start_time = start };
        return 0;
}

static bool task_value_valid(const KnobAddr *a, const char *value) {
        return knob_cpulist_valid(value, false);
}

/* Returns 0 if the thread is the one started at start_time, else -ENOENT. */
static int task_check(const KnobEnv *env, const KnobAddr *a) {
        ProcStat st;
        int r;

        if (env->host_fd < 0)
                return -EBADF;
        r = proc_read_stat(env->host_fd, a->tid, &st);
        if (r == -ESRCH || (r >= 0 && st.start_time != a->start_time))
                return -ENOENT;
        return r < 0 ? r : 0;
}

/* Returns 0 or -errno. */
int task_affinity_get(pid_t tid, CpuSet *ret) {
        size_t size = CPU_ALLOC_SIZE(CPUSET_MAX);
        _cleanup_free_ cpu_set_t *mask = CPU_ALLOC(CPUSET_MAX);

        if (!mask)
                return -ENOMEM;
        if (sched_getaffinity(tid, size, mask) < 0)
                return -errno;
        cpuset_clear(ret);
        for (unsigned cpu = 0; cpu < CPUSET_MAX; cpu++)
                if (CPU_ISSET_S(cpu, size, mask))
                        cpuset_add(ret, cpu);
        return 0;
}

/* Returns 0 or -errno. */
int task_affinity_set(pid_t tid, const CpuSet *cpus) {
        size_t size = CPU_ALLOC_SIZE(CPUSET_MAX);
        _cleanup_free_ cpu_set_t *mask = CPU_ALLOC(CPUSET_MAX);

        if (!mask)
                return -ENOMEM;
        CPU_ZERO_S(size, mask);
        CPUSET_FOREACH(cpu, cpus)
                CPU_SET_S((unsigned) cpu, size, mask);
        return sched_setaffinity(tid, size, mask) < 0 ? -errno : 0;
}

/* Returns 0, -ENOENT (the thread is gone) or another negative errno. */
static int task_read(const KnobEnv *env, const KnobAddr *a, char *buf, size_t size) {
        CpuSet set;
        int r = task_check(env, a);

        if (r >= 0)
                r = task_affinity_get(a->tid, &set);
        if (r == -ESRCH)
                return -ENOENT;
        return r < 0 ? r : cpuset_format(&set, buf, size);
}

/* Returns 0, -ENOENT (gone), -EINVAL or another negative errno. */
static int task_write(const KnobEnv *env, const KnobAddr *a, const char *value) {
        CpuSet set;
        int r = cpuset_parse(value, &set, NULL);

        if (r >= 0)
                r = task_check(env, a);
        if (r >= 0)
                r = task_affinity_set(a->tid, &set);
        return r == -ESRCH ? -ENOENT : r;
}

const KnobType knob_type_task = {
        .name = "task",
        .value_max = KNOB_CPULIST_MAX,
        .write_when_absent = true,
        .parse = task_parse,
        .value_valid = task_value_valid,
        .read = task_read,
        .write = task_write,
};
