/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One frame of "idlepolicyctl monitor" as text, without a bus or a clock:
 * the header line, the column titles and one row per CPU.  When every
 * CPU's row fits the terminal on one line, the CAP and FLOOR columns are
 * as wide as their widest cell, then the STATES.  Otherwise (80 columns
 * and a few states) the header wraps at its fields and each CPU takes a
 * line for its plan ("C1 (model) / POLL (none)") and the lines below it
 * for its states, wrapped at a state's start: nothing is cut unless a
 * single cell is wider than the terminal.  No line is wider than the
 * terminal (a longer one is cut with the marker). */

#include <stdio.h>

#include "ctl-model.h"

typedef struct CtlMonitorLayout {
        unsigned width;              /* the terminal's columns */
        const char *ellipsis;        /* the cut marker, one column wide */
        const char *clock;           /* "HH:MM:SS" shown in the header */
} CtlMonitorLayout;

/* Writes the frame of s to f (no screen control codes).  Returns 0 or -EIO. */
int ctl_monitor_frame(FILE *f, const CtlStatus *s, const CtlMonitorLayout *l);
