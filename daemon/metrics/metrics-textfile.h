/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The metrics for node_exporter's textfile collector: when the configured
 * metrics_textfile (idlepolicyd.conf(5)) is written, from metrics.h's
 * formatter.  Each write replaces the file atomically (a temporary file in
 * the same directory, fsync'ed, renamed over it): the collector never
 * reads half a file.  A failure is logged once, not at every write, and
 * its end once. */

#include <stdint.h>

#include "manager.h"

/* After a tick that took duration_usec: counts it, and every
 * metrics_every_ticks-th tick writes the textfile. */
void manager_metrics_tick(Manager *m, uint64_t duration_usec);

/* Writes the textfile now (at start; nothing when none is configured). */
void manager_metrics_write(Manager *m);

/* At a clean stop, after the knobs were put back: writes the textfile of
 * a daemon that is down, with the knobs it could not put back. */
void manager_metrics_stopped(Manager *m);

/* After a reload: if metrics_textfile moved or was turned off, removes the
 * file at old_path (the previous configuration's) and writes the new one
 * at once. */
void manager_metrics_reconfigured(Manager *m, const char *old_path);
