/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Processes as procfs shows them, read through a root directory fd
 * ("proc/PID/stat", never "/proc/..."): what the daemon needs to follow a
 * pid pin (is it still the same process?) and to match exe/comm rules.
 * Every read is bounded and never blocks (fileio.h). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pin-target.h"

/* The kernel's task flags (include/linux/sched.h) in stat field 9. */
#define PROC_PF_KTHREAD 0x00200000u
#define PROC_PF_NO_SETAFFINITY 0x04000000u

/* comm bytes kept, NUL included.  A user process's comm has at most 15
 * bytes; kernel threads show longer names (workqueue workers), cut here. */
#define PROC_COMM_MAX 64
/* The largest proc/PID/stat read: real ones are about 300 bytes. */
#define PROC_STAT_MAX 4096

typedef struct ProcStat {
        pid_t pid;
        char comm[PROC_COMM_MAX];       /* field 2 without the parentheses */
        char state;                     /* field 3: 'R', 'S', 'Z', ... */
        pid_t ppid;                     /* field 4 */
        uint32_t flags;                 /* field 9 */
        bool kthread;                   /* flags & PROC_PF_KTHREAD */
        bool no_setaffinity;            /* flags & PROC_PF_NO_SETAFFINITY: affinity cannot be changed */
        uint64_t start_time;            /* field 22: clock ticks after boot */
} ProcStat;

/* Parses the text of a proc/PID/stat file (one trailing newline allowed)
 * into *ret.  The comm may hold anything, ") (" and spaces included: it
 * ends at the last ')'.  Returns 0, or -EBADMSG for a malformed or
 * truncated text (fewer than 22 fields, a number that is not one);
 * *ret untouched on failure. */
int proc_parse_stat(const char *text, ProcStat *ret);

/* Reads and parses root_fd/proc/PID/stat.  Returns 0, -EINVAL for pid <= 0,
 * -ESRCH when the process does not exist (or is gone while being read),
 * -EBADMSG for a malformed file or one whose pid is not pid, or another
 * negative errno of the read (-EACCES, ...); *ret untouched on failure. */
int proc_read_stat(int root_fd, pid_t pid, ProcStat *ret);

/* The largest proc/PID/status read: real ones are about 1.5 KiB. */
#define PROC_STATUS_MAX 65536

/* Reads the thread group (the process) of the task pid from the "Tgid:"
 * line of root_fd/proc/PID/status: pid itself for a process, its
 * process's pid for another thread (proc/TID exists for every thread,
 * though proc lists only processes).  Returns 0, -EINVAL for pid <= 0,
 * -ESRCH when the task does not exist, -EBADMSG for a file without a valid
 * Tgid line, or another negative errno of the read; *ret untouched on
 * failure. */
int proc_read_tgid(int root_fd, pid_t pid, pid_t *ret);

/* Reads the link root_fd/proc/PID/exe into buf (NUL-terminated), without a
 * trailing " (deleted)" (the executable was replaced or removed while
 * running: an upgraded /usr/bin/foo still names /usr/bin/foo).  Returns 0,
 * -EINVAL for pid <= 0, -ESRCH when the process does not exist, -ENOENT
 * when it exists but has no executable (a kernel thread, a zombie),
 * -ENAMETOOLONG when the link does not fit into size bytes, or another
 * negative errno (-EACCES for another user's process without privilege). */
int proc_read_exe(int root_fd, pid_t pid, char *buf, size_t size);

/* Lists the numeric entries of root_fd/proc (the processes), sorted, into
 * a malloc'ed array the caller frees (*ret NULL when there are none).
 * Returns 0 or a negative errno (-ENOENT: no proc directory, -ENOMEM);
 * *ret and *ret_n untouched on failure. */
int proc_list_pids(int root_fd, pid_t **ret, size_t *ret_n);

/* The same for root_fd/proc/PID/task (the threads of pid, pid included).
 * Returns 0, -EINVAL for pid <= 0, -ESRCH when the process does not exist,
 * or another negative errno. */
int proc_list_tasks(int root_fd, pid_t pid, pid_t **ret, size_t *ret_n);

/* Returns true if the rule (an exe or comm target) matches the process st
 * whose executable is exe (NULL: unknown, then exe rules do not match).
 * Kernel threads never match; non-rule targets never match. */
bool pin_rule_matches(const PinTarget *rule, const ProcStat *st, const char *exe);

/* Returns true if st is the process a pid target names: the same pid and,
 * when the target's start time is known, the same start time (else the
 * pid was reused by another process).  False for non-pid targets. */
bool pin_pid_matches(const PinTarget *target, const ProcStat *st);
