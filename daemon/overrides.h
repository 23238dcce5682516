/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The administrator's manual settings (SetStateDisabled, SetResumeLatency,
 * SetGovernor): every knob such a call addressed, changed or not.  The
 * policy leaves these knobs alone (reason "manual") until Restore(). */

#include <stdbool.h>

typedef struct Overrides Overrides;

/* Returns 0 or -ENOMEM. */
int overrides_new(Overrides **ret);
/* Returns NULL. */
Overrides *overrides_free(Overrides *o);

/* Records the knob at path (a knob.h path).  Returns 0, -EINVAL for a path
 * that is not a knob, or -ENOMEM. */
int overrides_add(Overrides *o, const char *path);

/* Forgets every override. */
void overrides_clear(Overrides *o);

/* Whether the knob at path is set by hand. */
bool overrides_contains(const Overrides *o, const char *path);
bool overrides_state(const Overrides *o, unsigned cpu, unsigned state);
bool overrides_resume_latency(const Overrides *o, unsigned cpu);
bool overrides_governor(const Overrides *o);

/* The number of knobs set by hand. */
unsigned overrides_count(const Overrides *o);

/* A JournalFilter (journal.h): true for a knob that is not set by hand
 * (userdata is the Overrides). */
bool overrides_filter_not_manual(const char *path, void *userdata);
