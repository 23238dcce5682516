/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The restore journal (not the systemd journal): the file in which the
 * original value of every knob the daemon changes is made durable before
 * the first write to it, so that a start after a crash or SIGKILL can put
 * it back.  This file only keeps the file; which knobs there are and who
 * changed them is the change layer's (change.h, knob-type.h).
 *
 * <runtime_dir>/restore.journal, one line each, keys relative to the root
 * the daemon runs on:
 *
 *   # idlepolicyd restore journal v2 root=/
 *   sys/devices/system/cpu/cpu1/cpuidle/state0/disable 0     KEY ORIGINAL
 *   task:4242:81234 0-3
 *   -task:4242:81234                                          KEY is back (or gone)
 *
 * A record is appended and fsync'ed (file, and the directory when the file
 * is new) before the knob is written; many records of one change go in one
 * write and one fsync.  A "-KEY" line is appended when a knob holds its
 * original again; it is made durable by the next fsync (a forget lost in a
 * crash only puts back an original the knob already holds, or a thread that
 * is gone).  The caller says when no fsync is needed (sync false): records
 * and forgets of knobs that die with the machine whatever the root (a
 * thread's affinity) need only the page cache, which outlives the daemon's
 * crash; a disk that stalls then delays no pin.  When the file has grown
 * to several times what is live it is rewritten (atomically, by rename)
 * with the live records only; it is deleted when nothing is left.  Version 1 files (records only) read the
 * same. */

#include <stdbool.h>
#include <stddef.h>

#define RESTORE_JOURNAL_FILE "restore.journal"
#define RESTORE_JOURNAL_LOCK_FILE "idlepolicyd.lock"
#define RESTORE_JOURNAL_REJECTED_FILE "restore.journal.rejected"
/* Knobs taken from a file at most. */
#define RESTORE_JOURNAL_MAX_ENTRIES 100000

typedef struct RestoreJournal RestoreJournal;

/* One record: a key and its original value. */
typedef struct RestoreRecord {
        const char *key;
        const char *value;
} RestoreRecord;

/* Creates runtime_dir (and its parents, mode 0755) and takes the lock file
 * in it, so one daemon owns one journal.  root is the canonical root path,
 * written into the header.  Returns 0, -EBUSY if another instance holds the
 * lock, or another negative errno (logged). */
int restore_journal_open(const char *runtime_dir, const char *root, RestoreJournal **ret);

/* Frees j (NULL allowed) without touching the file.  Returns NULL. */
RestoreJournal *restore_journal_free(RestoreJournal *j);
void restore_journal_freep(RestoreJournal **j);

/* What restore_journal_load() hands over, line by line. */
typedef struct RestoreJournalReader {
        /* Whether key and value may be in a journal; *ret_why says why not. */
        bool (*valid)(const char *key, const char *value, const char **ret_why, void *userdata);
        /* A record (value) or a forget (value NULL), in the file's order.
         * Returns 0, -ENOMEM, or -EDQUOT when no more knobs are taken. */
        int (*take)(const char *key, const char *value, void *userdata);
        void *userdata;
} RestoreJournalReader;

/* Reads the file a previous run left, in time linear in its length.
 * Corrupt lines are logged by line number and reason, never by content,
 * and skipped.  Returns 1 if there was a file, 0 if not (or it was not
 * trusted: a symbolic link, not a regular file, not owned by the daemon's
 * user, larger than 16 MiB: logged, never read, moved aside to
 * RESTORE_JOURNAL_REJECTED_FILE), -EXDEV if it was written for another root
 * (left alone), -EINTR if SIGTERM or SIGINT arrived meanwhile, -ENOMEM. */
int restore_journal_load(RestoreJournal *j, const RestoreJournalReader *reader);

/* Appends records (one write) and, with sync, makes them durable (one
 * fsync).  Returns 0 or a negative errno (nothing of them is in the file
 * then). */
int restore_journal_append(RestoreJournal *j, const RestoreRecord *records, size_t n, bool sync);

/* Appends "-KEY" lines for keys (with sync, durable at the next
 * restore_journal_sync()).  Returns 0 or a negative errno. */
int restore_journal_forget(RestoreJournal *j, const char *const *keys, size_t n, bool sync);

/* Makes forgets appended since the last fsync durable.  Returns 0 or a
 * negative errno. */
int restore_journal_sync(RestoreJournal *j);

/* Whether the file has grown enough past live_bytes (the bytes of the live
 * records' lines) to be rewritten. */
bool restore_journal_wants_rewrite(const RestoreJournal *j, size_t live_bytes);

/* Replaces the file with the live records (atomically), or deletes it when
 * n is 0; with sync, durably (the file and its directory fsync'ed).
 * Returns 0 or a negative errno (the old file stays). */
int restore_journal_rewrite(RestoreJournal *j, const RestoreRecord *live, size_t n, bool sync);

/* Stops writing to the file (it stays as it is, for the next start):
 * nothing is appended, forgotten or rewritten after. */
void restore_journal_detach(RestoreJournal *j);

/* The bytes a record takes in the file. */
size_t restore_record_bytes(const char *key, const char *value);

/* The file's path, for messages. */
const char *restore_journal_path(const RestoreJournal *j);

/* Bytes written to the file since the start (bench/robustness-storm). */
unsigned long long restore_journal_bytes_written(const RestoreJournal *j);
