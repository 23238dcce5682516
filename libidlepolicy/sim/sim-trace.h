/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Replaying recorded traces (idlepolicy-trace(5)) in the simulator. */

#include <stddef.h>

#include "errinfo.h"
#include "sim-run.h"
#include "sim-table.h"
#include "trace-format.h"

/* Converts t's intervals (sorted by start, any CPUs) into simulator
 * periods: busy time is the gap since the previous period on the same CPU
 * ended; a wake cause the recorder could not tell is taken as a timer if
 * the period reached the known time to the next timer.  Returns 0, -ENOMEM,
 * or -ENODATA with e filled if the trace has no intervals. */
int sim_trace_intervals(const Trace *t, SimInterval **ret, size_t *ret_n, ErrorInfo *e);

/* Builds a state table named name from the trace header (advertised costs
 * only; a state 0 named POLL or snooze counts as polling).  Returns 0 or
 * -EBADMSG with e filled if the header lists no states. */
int sim_trace_table(const Trace *t, const char *name, SimTable *ret, ErrorInfo *e);
