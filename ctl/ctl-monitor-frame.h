/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One frame of "idlepolicyctl monitor" as text, without a bus or a clock:
 * the header line, the column titles and one row per CPU.  The CAP and
 * FLOOR columns are as wide as their widest cell, narrowed (cells cut with
 * the marker) so that the STATES column keeps room; no line is wider than
 * the terminal (a longer one is cut with the marker). */

#include <stdio.h>

#include "ctl-model.h"

/* The STATES column keeps at least this many columns while CAP and FLOOR
 * are narrowed, down to CTL_MONITOR_PLAN_MIN each. */
#define CTL_MONITOR_STATES_MIN 24u
#define CTL_MONITOR_PLAN_MIN 10u

typedef struct CtlMonitorLayout {
        unsigned width;              /* the terminal's columns */
        const char *ellipsis;        /* the cut marker, one column wide */
        const char *clock;           /* "HH:MM:SS" shown in the header */
} CtlMonitorLayout;

/* Writes the frame of s to f (no screen control codes).  Returns 0 or -EIO. */
int ctl_monitor_frame(FILE *f, const CtlStatus *s, const CtlMonitorLayout *l);
