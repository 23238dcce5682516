/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The machine-wide CPU latency request in view (latency-request.h): what
 * /dev/cpu_dma_latency holds and which processes hold it, sampled at the
 * tick, shown on the bus (bus-latency.c), in the metrics and the log.
 *
 * Cadence and cost (bench/latency-request, bench/README.md): the device is
 * read every tick (one open, read and close: 3-4 us).  The holders are
 * found by reading every process's proc/PID/fd links, about 3.5 us per
 * open file on the machine (1.5 ms for 400 files here, 35-41 ms for
 * 20,000 on a fake tree): so only while a request is in force, and then
 * when the request changes, when a holder listed has exited, and every
 * LATENCY_WATCH_RESCAN_USEC otherwise.  With no request in force nothing
 * is scanned and no holder is listed. */

#include <stdbool.h>
#include <stdint.h>

#include "exposition.h"
#include "latency-request.h"

/* A request that stays in force is scanned for its holders again after
 * this long (a holder replaced by another with the same value shows up). */
#define LATENCY_WATCH_RESCAN_USEC (60 * UINT64_C(1000000))

typedef struct Manager Manager;

typedef struct LatencyWatch {
        bool known;                  /* the device was read at the last tick */
        int32_t usec;                /* the request then (LATENCY_REQUEST_NONE: none) */
        int error;                   /* why not known: the read's negative errno (0 before
                                      * the first tick) */
        LatencyHolders holders;      /* the last scan's, empty while no request is in force */
        uint64_t scanned_usec;       /* CLOCK_MONOTONIC of that scan */
        bool scan_failed;            /* proc/ could not be listed (logged once) */
} LatencyWatch;

/* Frees what w holds; w is then as zero-initialised. */
void latency_watch_done(LatencyWatch *w);

/* The tick: reads the request and, as above, its holders; logs a request
 * that comes, moves or goes, and signals the properties that changed.
 * Returns 0 or -ENOMEM (logged). */
int manager_latency_tick(Manager *m, uint64_t now_usec);

/* The start-up phase after the sampling: the first read, so that the
 * request is known before the first tick.  Returns 0 or -ENOMEM (logged). */
int manager_latency_start(Manager *m);

/* The request in force (-1 unknown), for the bus and ctl. */
int32_t latency_watch_usec(const LatencyWatch *w);

/* Why the request is unknown ("" when known), into buf.  Returns buf. */
const char *latency_watch_error(const LatencyWatch *w, char *buf, size_t size);

/* The metrics families of idlepolicyd(8), METRICS: the request, its
 * holders and each holder's pid and comm. */
void latency_watch_metrics(const LatencyWatch *w, Exposition *x);
