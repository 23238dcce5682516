/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The end of a process that is not the daemon's child (a PID pin), and a
 * pidfd known to refer to the process a pin was made for.
 *
 * A pidfd (pidfd_open(2), Linux 5.3) polls readable once its process has
 * ended (every thread gone; a zombie has ended), so the watch is an IO
 * source on it: the exit is seen at once, without polling, SIGCHLD or
 * reaping.  A PID alone names whoever holds it now; the start time, field
 * 22 of /proc/PID/stat (clock ticks after boot), tells whether it is still
 * the process it was, also across a restart of the daemon.  Two processes
 * with one PID and one start time would need the PID to come round within
 * one clock tick (10 ms). */

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

/* A start time that accepts whoever holds the PID. */
#define PROCESS_START_TIME_ANY UINT64_MAX

typedef struct ProcessWatch ProcessWatch;

/* Called once, from the event loop, when the process has ended.  It may
 * free the watch. */
typedef void (*ProcessWatchExit)(pid_t pid, void *userdata);

/* Reads pid's start time (field 22 of the host's /proc/PID/stat, through
 * the library's proc_read_stat()) into *ret.  Returns 0, -ESRCH (no such
 * process), -EBADMSG (not a stat line), or another negative errno of the
 * read.  *ret is untouched on failure. */
int process_get_start_time(pid_t pid, uint64_t *ret);

/* Opens a pidfd for pid, THEN reads the start time of pid and compares it
 * with start_time (PROCESS_START_TIME_ANY: no comparison): a pidfd opened
 * first and a start time that matches after means the pidfd refers to the
 * expected process; an ended one that is still a zombie counts (its pidfd
 * is readable at once).  Returns 0 with a close-on-exec pidfd in *ret_fd,
 * or
 *   -ESRCH   no such process, or the PID now belongs to another process
 *   -EINVAL  pid <= 0, or pid is a thread other than its process's leader
 *   -ENOSYS  a kernel without pidfd_open (before 5.3)
 *   a negative errno of pidfd_open or of process_get_start_time().
 * *ret_fd is untouched on failure. */
int process_pidfd_open_verified(pid_t pid, uint64_t start_time, int *ret_fd);

/* Watches pid (started at start_time, checked as above): on_exit(pid,
 * userdata) is called once from e when it has ended, at the first
 * iteration if it already has.  Returns 0, the errors of
 * process_pidfd_open_verified(), -ENOMEM, or a negative errno of sd-event.
 * *ret is untouched on failure. */
int process_watch_new(sd_event *e, pid_t pid, uint64_t start_time, ProcessWatchExit on_exit, void *userdata,
                      ProcessWatch **ret);

/* The same for a pidfd the caller has (from process_pidfd_open_verified(),
 * or passed over D-Bus) for process pid: ownership of pidfd passes to the
 * watch on success only.  Returns 0, -EBADF (pidfd < 0), -ENOMEM or a
 * negative errno of sd-event. */
int process_watch_new_pidfd(sd_event *e, int pidfd, pid_t pid, ProcessWatchExit on_exit, void *userdata,
                            ProcessWatch **ret);

/* Stops watching and closes the pidfd.  NULL is fine.  Returns NULL. */
ProcessWatch *process_watch_free(ProcessWatch *w);
void process_watch_freep(ProcessWatch **w);
