/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Whether a process belongs to a user, for the bus's Pin(): an
 * unprivileged caller may pin a process it owns (polkit action
 * org.idlepolicy.IdlePolicy1.pin-own-process).  The process is held by a
 * pidfd while its owner is read from the host's /proc/PID/status, and the
 * pidfd says afterwards whether the PID still names that process: a PID
 * reused in between is never taken for the one that was checked. */

#include <stdbool.h>
#include <sys/types.h>

/* Opens a pidfd for pid and reads the process's uids.  It belongs to uid
 * when its real, effective and saved uids all equal uid (a setuid program
 * the user started does not).  Returns 1 (belongs) or 0 (it does not) with
 * the pidfd in *ret_pidfd (the caller closes it), or -ESRCH (no such
 * process, or it was reaped while being read), -EBADMSG (an unreadable
 * status file) or another negative errno; *ret_pidfd untouched then. */
int process_owner_check(pid_t pid, uid_t uid, int *ret_pidfd);

/* Returns true if the process of pidfd has not been reaped yet, that is
 * its PID still names it. */
bool process_pidfd_alive(int pidfd);
