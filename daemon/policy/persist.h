/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the daemon keeps across restarts, in its state directory:
 *
 *   state.json         {"profile": "balanced", "mode": "enforce"}, and
 *                      "consolidation": 0..2 while SetConsolidation()'s level
 *                      overrides the profile's
 *   calibration.json   the last calibration (calibration.h)
 *
 * The daemon writes both itself, atomically (fs-util.h), so each must be a
 * regular file, not a symbolic link, of text within its limit; they are
 * opened without blocking.  A file that is not, or cannot be parsed, is
 * reported with its path and the reason and treated as missing; nothing
 * here is ever fatal. */

#include <stdbool.h>

#include "calibration.h"
#include "config.h"
#include "profile.h"

#define PERSIST_STATE_FILE "state.json"
#define PERSIST_CALIBRATION_FILE "calibration.json"
/* The largest files read.  state.json holds two short strings.  A
 * calibration of 1024 CPUs with 10 states and 16-point curves each is
 * 48 MB as calibration_to_json() writes it (JSON_INDENT(8)), 51 MB with
 * every number at its widest: 64 MiB leaves a quarter of margin there;
 * a larger calibration is not saved (logged). */
#define PERSIST_STATE_MAX ((size_t) 64 * 1024)
#define PERSIST_CALIBRATION_MAX ((size_t) 64 * 1024 * 1024)

typedef struct PersistedState {
        char profile[PROFILE_NAME_MAX];   /* "" = not set */
        bool has_mode;
        DaemonMode mode;
        bool has_consolidation;           /* set by SetConsolidation(), not the profile's */
        unsigned consolidation;           /* 0..2 */
} PersistedState;

typedef struct Persist {
        char *dir;
        int dir_fd;                       /* -1: the directory is unusable (logged once) */
} Persist;

#define PERSIST_NULL ((Persist) { .dir_fd = -1 })

/* Creates dir (and its parents) and opens it.  A failure is logged and
 * leaves p without a directory (nothing persists).  Returns 0 or -ENOMEM. */
int persist_open(Persist *p, const char *dir);
void persist_done(Persist *p);

/* Loads state.json into *ret.  Returns 1 if loaded, 0 if there is none (or
 * it cannot be read: logged), or -EINVAL for a corrupt file (not a regular
 * file, a symlink, too large, not text, bad JSON: logged; the caller writes
 * its defaults over it), -ENOMEM. */
int persist_load_state(const Persist *p, PersistedState *ret);

/* Writes state.json.  Returns 0 or a negative errno (logged). */
int persist_save_state(const Persist *p, const PersistedState *s);

/* Loads calibration.json.  Returns 1 and *ret, 0 if there is none (or it
 * cannot be read: logged), -EINVAL for a corrupt file (as for state.json,
 * logged), -ENOMEM. */
int persist_load_calibration(const Persist *p, Calibration **ret);

/* Writes calibration.json.  Returns 0 or a negative errno (logged; -EFBIG:
 * larger than PERSIST_CALIBRATION_MAX, it could not be read back). */
int persist_save_calibration(const Persist *p, const Calibration *c);

/* Reads the state directory's file name (at most max bytes of text) into
 * a malloc'ed *ret.  Returns 1, 0 if there is none or no directory (an
 * unreadable one is logged), -EINVAL with e set for a file that is not a
 * regular file, a symlink, too large or not text, or -ENOMEM. */
int persist_read_text(const Persist *p, const char *name, size_t max, char **ret, ErrorInfo *e);

/* Writes text as the state directory's file name, atomically.  Returns 0
 * or a negative errno (logged). */
int persist_write_text(const Persist *p, const char *name, const char *text);
