/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's metrics in the Prometheus text format (exposition.h): the
 * one formatter behind the Manager's Metrics() method, `idlepolicyctl
 * metrics` and the node_exporter textfile (metrics-textfile.c).  The
 * families and their names are listed in idlepolicyd(8), METRICS. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "exposition.h"

typedef struct Manager Manager;

/* What the manager keeps for its metrics. */
typedef struct ManagerMetrics {
        Histogram tick;              /* how long each tick took */
        unsigned ticks;              /* ticks since the textfile was last written */
        bool textfile_failing;       /* the last textfile write failed (logged once) */
        char textfile_error[512];    /* why, "" while it works (MetricsTextfileError) */
} ManagerMetrics;

/* Returns the time of clock in microseconds (the daemon's metrics read
 * the clock: tick durations, the calibration's age). */
uint64_t metrics_now_usec(clockid_t clock);

/* Sets up mm (empty histogram with the tick buckets). */
void metrics_init(ManagerMetrics *mm);

/* The exposition of the running daemon at realtime_usec (CLOCK_REALTIME,
 * for the calibration's age).  Returns 0 and the text (free() it) with its
 * length, or -ENOMEM (-EINVAL: a bad metric name, a bug). */
int metrics_format(Manager *m, uint64_t realtime_usec, char **ret, size_t *ret_len);

/* The exposition a daemon leaves behind at a clean stop: idlepolicy_up 0,
 * the knobs it could not put back (idlepolicy_knobs_changed) and the
 * version.  Returns 0 and the text, or -ENOMEM (-EINVAL: a bug). */
int metrics_format_stopped(size_t knobs_left, char **ret, size_t *ret_len);
