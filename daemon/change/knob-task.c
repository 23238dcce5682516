/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "knob-task.h"
#include "log.h"
#include "pin-proc.h"

/* pidfd_open()'s flag for a thread (Linux 6.9; <linux/pidfd.h> of older
 * libcs lacks it). */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

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

/* A pidfd of the thread the knob names: opened, then checked against its
 * start time (so it refers to that thread, not to one that took its TID
 * since).  Returns the fd, -ENOENT (gone, or the TID names another thread
 * now), -EOPNOTSUPP (a kernel without thread pidfds: before 6.9) or
 * another negative errno. */
static int task_pidfd(const KnobEnv *env, const KnobAddr *a) {
        _cleanup_close_ int fd = (int) syscall(SYS_pidfd_open, a->tid, PIDFD_THREAD);
        int r;

        if (fd < 0)
                return errno == ESRCH ? -ENOENT : errno == EINVAL ? -EOPNOTSUPP : -errno;
        r = task_check(env, a);
        return r < 0 ? r : TAKE_FD(fd);
}

/* Whether the thread of pidfd still runs (a running thread's TID names
 * nobody else). */
static bool task_alive(int pidfd) {
        return pidfd < 0 || syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

/* Returns 0, -ENOENT (the thread is gone) or another negative errno. */
static int task_read(const KnobEnv *env, const KnobAddr *a, char *buf, size_t size) {
        _cleanup_close_ int fd = task_pidfd(env, a);
        CpuSet set;
        int r = fd == -EOPNOTSUPP ? task_check(env, a) : fd;

        if (r >= 0)
                r = task_affinity_get(a->tid, &set);
        /* read from the thread itself, not from one that took its TID */
        if (r >= 0 && (!task_alive(fd) || (fd < 0 && task_check(env, a) < 0)))
                r = -ESRCH;
        if (r == -ESRCH)
                return -ENOENT;
        return r < 0 ? r : cpuset_format(&set, buf, size);
}

/* The affinity a thread that took a TID would have had: its process
 * leader's for a thread, its parent's for a process (what clone() gives).
 * Returns 0 or a negative errno. */
static int inherited_affinity(const KnobEnv *env, pid_t tid, CpuSet *ret) {
        ProcStat st;
        int r = proc_read_stat(env->host_fd, tid, &st);

        return r < 0 ? r : task_affinity_get(st.ppid > 0 ? st.ppid : 1, ret);
}

/* The thread died between the check and the write, and its TID may name
 * another thread now: if the write set that one to set, it is put back to
 * what it inherited (undone by what was actually changed).  dead: a pidfd
 * proved the thread gone, so whoever holds the TID is another, even one
 * started within the same clock tick (its start time says nothing then). */
static void undo_taken_tid(const KnobEnv *env, const KnobAddr *a, const CpuSet *set, bool dead) {
        CpuSet now, back;
        ProcStat st;

        if (proc_read_stat(env->host_fd, a->tid, &st) < 0 || (!dead && st.start_time == a->start_time) ||
            task_affinity_get(a->tid, &now) < 0 || !cpuset_equal(&now, set) ||
            inherited_affinity(env, a->tid, &back) < 0 || cpuset_equal(&back, set))
                return;
        if (task_affinity_set(a->tid, &back) < 0)
                return;
        log_notice("Thread %d exited while being pinned and its TID was taken by another one: "
                   "that one's affinity was put back.", (int) a->tid);
}

/* Returns 0, -ENOENT (gone), -EINVAL or another negative errno. */
static int task_write(const KnobEnv *env, const KnobAddr *a, const char *value) {
        _cleanup_close_ int fd = -1;
        CpuSet set;
        int r = cpuset_parse(value, &set, NULL);

        if (r < 0)
                return r;
        fd = task_pidfd(env, a);
        r = fd == -EOPNOTSUPP ? task_check(env, a) : fd;
        if (r >= 0)
                r = task_affinity_set(a->tid, &set);
        /* verified again after the write: the thread is still the one */
        if (r >= 0 && (!task_alive(fd) || (fd < 0 && task_check(env, a) < 0))) {
                undo_taken_tid(env, a, &set, fd >= 0);
                r = -ESRCH;
        }
        return r == -ESRCH ? -ENOENT : r;
}

const KnobType knob_type_task = {
        .name = "task",
        .value_max = KNOB_CPULIST_MAX,
        .write_when_absent = true,
        .ephemeral = true,
        .parse = task_parse,
        .value_valid = task_value_valid,
        .read = task_read,
        .write = task_write,
};
