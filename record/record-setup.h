/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Preparing a tracefs session directory for an idle recording: the events
 * the reconstruction reads (ftrace-idle.h), the output options its parser
 * expects, the "mono" trace clock (hrtimer expiries are CLOCK_MONOTONIC), the
 * buffer size, no event filters.  Every change goes through tracefs_set(),
 * so it is journalled and undone by tracefs_restore(). */

#include "tracefs.h"

typedef struct RecordSetupInfo {
        unsigned n_enabled;             /* events enabled */
        unsigned n_missing;             /* optional events this kernel lacks */
        bool have_cpu_idle;             /* power:cpu_idle exists */
        char missing[256];              /* their names, space-separated (truncated) */
} RecordSetupInfo;

/* Configures the session with tracing off and the buffer cleared.  Returns
 * 0, -ENOENT naming a required event in ret->missing, -EOPNOTSUPP without
 * the mono clock, or -errno. */
int record_setup(Tracefs *tf, unsigned buffer_kb, RecordSetupInfo *ret);
