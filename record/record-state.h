/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The recorder's journal in the runtime directory: a lock that keeps two
 * recordings apart, and a state file describing what the running recording
 * changed in tracefs (tracefs.h), rewritten before every change, so that a
 * recorder killed with SIGKILL can be undone by the next start or by
 * "idlepolicy-record --restore".
 *
 *   idlepolicy-record-state 1
 *   pid 1234
 *   tracefs /sys/kernel/tracing
 *   mounted 0
 *   instance idlepolicy-record 1
 *   set <path relative to the session directory><TAB><original value>
 */

#include "tracefs.h"

typedef struct RecordState {
        char dir[200];
        int lock_fd;
} RecordState;

#define RECORD_STATE_NULL { .lock_fd = -1 }

/* Creates dir if needed and takes its lock.  Returns 0, -EBUSY if another
 * recorder holds it, or -errno. */
int record_state_lock(RecordState *s, const char *dir);

/* Atomically replaces the state file with tf's description.  Returns 0 or
 * -errno.  Usable as a TracefsJournalFn (userdata: the RecordState). */
int record_state_save(const Tracefs *tf, void *userdata);

/* Loads a left-over state file into tf (which must be TRACEFS_NULL).
 * Returns 1 if there was one (*ret_pid: the recorder that wrote it), 0 if
 * not, -EBADMSG if it is garbled, or -errno. */
int record_state_load(const RecordState *s, Tracefs *tf, long *ret_pid);

/* Removes the state file.  Returns 0 or -errno. */
int record_state_remove(const RecordState *s);

/* Releases the lock. */
void record_state_unlock(RecordState *s);
