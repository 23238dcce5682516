/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The idle-trace file format (see idlepolicy-trace(5)): what the recorder
 * writes and the simulator replays.  A versioned text header, then one CSV
 * row per idle interval:
 *
 *   # idlepolicy-trace 1
 *   # recorded <seconds> s, <n> cpus, driver <name>
 *   # state <index> <exit latency us> <target residency us> <name>
 *   # cpu <id> source <cpu_idle|irq-bounded|none>
 *   cpu,start_ns,duration_ns,state,sleep_length_ns,wake,miss
 *   0,123456789,2500000,1,4000000,timer,none
 *   # end <number of rows>
 *
 * wake: timer | other | unknown.  miss: none | above | below | unknown
 * (the kernel's power:cpu_idle_miss, above = too deep, below = too shallow).
 * state: the index entered, -1 unknown.  sleep_length_ns: the time to the
 * next pending timer at entry, or "-" when unknown.  start_ns is
 * CLOCK_MONOTONIC.  Other "# " lines before the column line are ignored (room
 * for additions without a version bump); the "# end" trailer lets a reader
 * tell a complete file from one cut at a line boundary. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cleanup.h"

#include "errinfo.h"

#define TRACE_FORMAT_VERSION 1
#define TRACE_STATES_MAX 10
#define TRACE_SLEEP_UNKNOWN UINT64_MAX

typedef enum TraceWake {
        TRACE_WAKE_UNKNOWN = 0,
        TRACE_WAKE_TIMER,
        TRACE_WAKE_OTHER,
} TraceWake;

typedef enum TraceMiss {
        TRACE_MISS_UNKNOWN = 0,
        TRACE_MISS_NONE,
        TRACE_MISS_ABOVE,
        TRACE_MISS_BELOW,
} TraceMiss;

typedef enum TraceSource {
        TRACE_SOURCE_NONE = 0,      /* no idle periods found for this CPU */
        TRACE_SOURCE_CPU_IDLE,      /* power:cpu_idle entry/exit pairs */
        TRACE_SOURCE_IRQ_BOUNDED,   /* switch to the idle task .. next irq entry */
} TraceSource;

typedef struct IdleInterval {
        uint32_t cpu;
        uint64_t start_ns;
        uint64_t duration_ns;
        int32_t state;              /* -1 unknown */
        uint64_t sleep_length_ns;   /* TRACE_SLEEP_UNKNOWN if unknown */
        TraceWake wake;
        TraceMiss miss;
} IdleInterval;

typedef struct TraceStateInfo {
        char name[32];
        uint32_t exit_latency_us;
        uint32_t target_residency_us;
} TraceStateInfo;

typedef struct TraceHeader {
        unsigned version;
        double seconds;
        unsigned n_cpus;
        char driver[64];
        unsigned n_states;
        TraceStateInfo states[TRACE_STATES_MAX];
        TraceSource *sources;       /* n_cpus entries (owned) */
} TraceHeader;

typedef struct Trace {
        TraceHeader header;
        size_t n_intervals;
        IdleInterval *intervals;    /* sorted by (start_ns, cpu) */
} Trace;

/* Writes header + rows.  Returns 0 or a negative errno. */
int trace_write(FILE *f, const Trace *t);

/* Allocates an empty trace for n_cpus CPUs (all sources NONE, version
 * TRACE_FORMAT_VERSION).  Returns 0 or -ENOMEM. */
int trace_new(unsigned n_cpus, Trace **ret);

/* Parses a whole trace.  Malformed or truncated input gives -EBADMSG with e
 * naming the line number ("line 12: duration_ns: not a number"); a version
 * newer than TRACE_FORMAT_VERSION gives -EPROTONOSUPPORT.  Unsorted rows are
 * sorted.  Returns 0 or a negative errno; *ret untouched on failure. */
int trace_read(FILE *f, Trace **ret, ErrorInfo *e);

/* Frees t (NULL allowed).  Returns NULL. */
Trace *trace_free(Trace *t);
void trace_freep(Trace **t);
#define _cleanup_trace_ _cleanup_(trace_freep)

const char *trace_wake_to_string(TraceWake w);
const char *trace_miss_to_string(TraceMiss m);
const char *trace_source_to_string(TraceSource s);
