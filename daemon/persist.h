/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the daemon keeps across restarts, in its state directory:
 *
 *   state.json         {"profile": "balanced", "mode": "enforce"}
 *   calibration.json   the last calibration (calibration.h)
 *
 * A file that cannot be parsed is reported and treated as missing; nothing
 * here is ever fatal. */

#include <stdbool.h>

#include "calibration.h"
#include "config.h"
#include "profile.h"

#define PERSIST_STATE_FILE "state.json"
#define PERSIST_CALIBRATION_FILE "calibration.json"
#define PERSIST_FILE_MAX (16 * 1024 * 1024)

typedef struct PersistedState {
        char profile[PROFILE_NAME_MAX];   /* "" = not set */
        bool has_mode;
        DaemonMode mode;
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

/* Loads state.json into *ret.  Returns 1 if loaded, 0 if there is none, or
 * -EINVAL for a corrupt file (logged; the caller writes its defaults over
 * it), -ENOMEM. */
int persist_load_state(const Persist *p, PersistedState *ret);

/* Writes state.json.  Returns 0 or a negative errno (logged). */
int persist_save_state(const Persist *p, const PersistedState *s);

/* Loads calibration.json.  Returns 1 and *ret, 0 if there is none, -EINVAL
 * for a corrupt file (logged), -ENOMEM. */
int persist_load_calibration(const Persist *p, Calibration **ret);

/* Writes calibration.json.  Returns 0 or a negative errno (logged). */
int persist_save_calibration(const Persist *p, const Calibration *c);
