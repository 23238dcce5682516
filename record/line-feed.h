/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The ftrace text, however it arrives -- trace_pipe while recording, a saved
 * file with --from -- cut into lines and fed to the reconstruction.  One
 * path for both, so that a recording and the import of its --save-raw copy
 * give the same intervals.
 *
 * A --save-raw copy (tee) starts with idlepolicy-record's own comment
 * lines, which other ftrace readers skip as comments:
 *
 *   # idlepolicy-record raw ftrace text (trace_pipe, trace_clock mono) #P:2
 *   #timer_list <a line of /proc/timer_list as read when tracing started>
 *
 * On import, "#P:N" (or trace-cmd's "cpus=N") makes CPUs 0..N-1 known and
 * the "#timer_list" lines are seeded before the first event, as the
 * recording did. */

#include <stdint.h>
#include <stdio.h>

#include "ftrace-idle.h"

typedef struct LineFeed {
        FtraceIdle *idle;
        FILE *tee;                      /* every byte pushed is copied here (--save-raw), or NULL */
        char buf[1 << 16];
        size_t len;
        char *timer_list;               /* "#timer_list" lines not seeded yet */
        size_t timer_list_len;
        uint64_t bytes;                 /* pushed */
        uint64_t lines;                 /* complete lines fed */
        uint64_t long_lines;            /* longer than buf: dropped */
        uint64_t first_bad_line;        /* number of the first line that did not parse, 0 none */
        char first_bad[96];             /* its start */
} LineFeed;

#define LINE_FEED_INIT(p, t) { .idle = (p), .tee = (t) }

/* Feeds the complete lines of data (and the rest with the next push).
 * Returns 0, -ENOMEM, -ERANGE (a CPU count beyond the growth limit), or
 * -EIO when the tee failed. */
int line_feed_push(LineFeed *lf, const char *data, size_t n);

/* Feeds a last line without a newline and seeds "#timer_list" lines that
 * no event followed.  Returns 0 or -ENOMEM. */
int line_feed_finish(LineFeed *lf);

/* Writes the tee's first line (stating n_cpus); nothing without a tee.
 * Call before anything else.  Returns 0 or -EIO. */
int line_feed_tee_header(LineFeed *lf, unsigned n_cpus);

/* Seeds the pending timers from /proc/timer_list text and copies it to the
 * tee as "#timer_list" lines (call before the first push).  Returns the
 * number of timers, -ENOMEM, or -EIO. */
int line_feed_seed_timers(LineFeed *lf, const char *timer_list);

void line_feed_done(LineFeed *lf);
