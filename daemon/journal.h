/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The restore journal: the original value of every knob the daemon changed,
 * appended and fsync'ed (file and directory) before the first write to that
 * knob.  A clean exit or Restore() writes the originals back and deletes the
 * file; a start that finds the file (the previous run was killed) replays it
 * first.
 *
 * <runtime_dir>/restore.journal, one knob per line, paths relative to the
 * root the daemon runs on:
 *
 *   # idlepolicyd restore journal v1 root=/
 *   sys/devices/system/cpu/cpuidle/current_governor haltpoll
 *   sys/devices/system/cpu/cpu1/cpuidle/state0/disable 0
 *   sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us 0
 *   sys/module/haltpoll/parameters/guest_halt_poll_ns 0
 *   sys/module/wteo/parameters/learn_shift 4
 *   sys/devices/system/cpu/cpu1/wteo/tolerance 102
 *
 * Only these six kinds of path (knob.h), and the workload keys of
 * knob-workload.h (task:, cgroup:, unit:, irq:), are accepted; anything else is
 * a corrupt line, reported and skipped.
 *
 * Companion mode (companion.h): the governor the daemon switched to wteo
 * is journaled before any wteo knob (those exist only under wteo), so
 * newest first puts the wteo parameters and tolerances back before the
 * governor.  A CPU's wteo/tolerance exists only while wteo governs it, and
 * the kernel keeps its value across a governor switch: one whose file is
 * missing while wteo does not govern is kept in the journal (not a
 * failure; the file stays after a clean exit) and put back by a later
 * restore or start that finds the file again. */

#include <stdbool.h>
#include <stddef.h>

#include "errinfo.h"

#define JOURNAL_FILE "restore.journal"
#define JOURNAL_LOCK_FILE "idlepolicyd.lock"
#define JOURNAL_REJECTED_FILE "restore.journal.rejected"

typedef struct JournalEntry {
        char *path;              /* relative to the root */
        char *value;             /* the original value */
        bool vanished;           /* journal.c's own: its directory was missing at the last try */
} JournalEntry;

typedef struct Journal Journal;

/* Creates runtime_dir (and its parents, mode 0755) and takes the lock file
 * in it, so one daemon owns one journal.  root is the canonical root path,
 * written into the journal header.  Returns 0, -EBUSY if another instance
 * holds the lock, or another negative errno (logged). */
int journal_open(const char *runtime_dir, const char *root, Journal **ret);

/* Frees j (NULL allowed) without touching the file or the knobs.  Returns NULL. */
Journal *journal_free(Journal *j);
void journal_freep(Journal **j);

/* Loads a journal left by a previous run that did not exit cleanly and puts
 * every knob in it back (see journal_restore), in time linear in its
 * length (at most 100000 knobs are taken; corrupt lines are logged by line
 * number and reason, never by content).  A knob whose idle state directory
 * is still missing after the wait (see journal_restore) is gone for good
 * here and forgotten.  Returns the number of knobs found (0: no journal),
 * -EXDEV if it was written for another root (the file is left alone),
 * 0 for a journal that is a symbolic link, not a regular file, not owned
 * by the daemon's user or larger than 16 MiB (logged; never read, moved
 * aside to JOURNAL_REJECTED_FILE),
 * -EINTR if SIGTERM or SIGINT arrived meanwhile (the knobs not yet put back
 * stay in the file, none in memory), or another negative errno.  Restore
 * failures are logged and keep their entries, they do not fail the call. */
int journal_replay(Journal *j, int root_fd);

/* Records original as the value of path to restore, unless path is
 * recorded already (the first original wins).  The line is on disk when
 * this returns.  Returns 1 if recorded now, 0 if known, negative errno. */
int journal_record(Journal *j, const char *path, const char *original);

/* Forgets the given paths (after a roll-back put their originals back).
 * Returns 0 or a negative errno. */
int journal_forget(Journal *j, char *const *paths, size_t n_paths);

/* Writes every original back, newest first.  A per-CPU idle state knob of
 * an offline CPU is skipped with a notice: the kernel recreates that CPU's
 * states with their defaults when it comes back.  A state knob of an online
 * CPU whose file is missing is in the middle of a governor switch (which
 * removes and recreates every CPU's state directories while the disable
 * bits survive): it is tried again every 10 ms for up to 2 s (blocking),
 * then counts as failed and stays.  A governor the kernel does not list in
 * available_governors is never written (logged, forgotten).  A state knob
 * is read back after the write.  A unit knob (knob-workload.h) while no
 * system bus is set (knob_workload_set_system_bus) is kept for a later
 * restore, noticed once, not a failure; one whose unit no longer exists
 * is forgotten.  A wteo tolerance whose file is missing: waited for like a
 * state knob while wteo governs (its group is being made), else kept (see
 * above).  Knobs put back or skipped are forgotten; the file is
 * deleted when none is left.  Returns the number of knobs put back, or
 * -EIO with e naming the knobs that failed (they stay in the journal). */
int journal_restore(Journal *j, int root_fd, ErrorInfo *e);

/* Decides whether journal_restore_some() puts path back. */
typedef bool (*JournalFilter)(const char *path, void *userdata);

/* journal_restore() for the knobs want() accepts only; the others stay.
 * Returns the number put back, or -EIO with e naming the failures. */
int journal_restore_some(Journal *j, int root_fd, JournalFilter want, void *userdata, ErrorInfo *e);

/* The original value recorded for path, or NULL. */
const char *journal_original(const Journal *j, const char *path);

/* The recorded knobs, oldest first. */
const JournalEntry *journal_entries(const Journal *j, size_t *ret_n);
