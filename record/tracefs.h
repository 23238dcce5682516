/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The tracefs state a recording changes, and how it is put back.
 *
 * A Tracefs is one recording session: where tracefs is mounted (mounted by
 * us if it was not), the directory the session works in (a fresh instance
 * "instances/idlepolicy-record", or the top-level buffer), and every file the
 * session wrote, with the value it had before.  Every change goes through
 * tracefs_set(): the first time a file is touched its original value is
 * read and the journal callback is called (to persist the session) before
 * the new value is written.  tracefs_restore() writes the originals back in
 * reverse order, removes the instance and unmounts what we mounted; the
 * same happens from a persisted journal after a crash (record-state.h). */

#include <stdbool.h>
#include <stddef.h>

#define TRACEFS_INSTANCE_NAME "idlepolicy-record"

typedef struct TracefsSetting {
        char path[160];         /* relative to the session directory */
        char saved[256];        /* the original, as it must be written back */
} TracefsSetting;

typedef struct Tracefs Tracefs;

/* Called after the session's description changed and before the change is
 * made; a negative return aborts the change.  Returns 0 or a negative errno. */
typedef int (*TracefsJournalFn)(const Tracefs *tf, void *userdata);

struct Tracefs {
        char mount_path[256];
        bool mounted_by_us;
        char instance[64];      /* "" for the top-level buffer */
        bool instance_created;
        int dir_fd;             /* the session directory, -1 before tracefs_open() */
        TracefsSetting *settings;
        size_t n_settings;
        TracefsJournalFn journal;
        void *userdata;
};

#define TRACEFS_NULL { .dir_fd = -1 }

/* Finds tracefs: dir if given (must be tracefs), else /sys/kernel/tracing,
 * else /sys/kernel/debug/tracing; if none is mounted, mounts tracefs on
 * /sys/kernel/tracing (journalled first; unmounted by tracefs_restore()).
 * Returns 0, -ENOENT (no tracefs and no way to mount it), or -errno. */
int tracefs_locate(Tracefs *tf, const char *dir);

/* Opens the session directory: a new instance (use_instance) or the top
 * level.  Returns 0, -EEXIST if our instance is already there (a leftover:
 * run --restore or remove it), or -errno. */
int tracefs_open(Tracefs *tf, bool use_instance);

/* Reads file path (relative to the session directory) as a value that can
 * be written back ("[mono] local" -> "mono", "7 (expanded: 1408)" -> "1408").
 * Returns 0 or -errno (-ENOENT for a file this kernel does not have). */
int tracefs_read(const Tracefs *tf, const char *path, char *buf, size_t size);

/* Writes value to path, journalling the original first when path was not
 * touched before.  Returns 0 or -errno. */
int tracefs_set(Tracefs *tf, const char *path, const char *value);

/* Sets the ring buffer size of every CPU, keeping per-CPU originals when
 * the sizes differed.  Returns 0 or -errno. */
int tracefs_set_buffer_kb(Tracefs *tf, unsigned kb);

/* Writes the originals back (newest first), removes the instance, unmounts
 * tracefs if we mounted it.  Goes on after failures.  Returns 0 or the
 * first error. */
int tracefs_restore(Tracefs *tf);

/* Frees the settings and closes the directory (no restoring). */
void tracefs_done(Tracefs *tf);

/* Adds an already saved setting (when loading a journal).  Returns 0 or
 * -ENOMEM/-E2BIG. */
int tracefs_add_saved(Tracefs *tf, const char *path, const char *saved);
