/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A progress line on a terminal: rewritten in place ("\r", erase to the end
 * of the line) at most every PROGRESS_EVERY_NS, and removed at the end.
 * Quiet when the stream is not a terminal (a pipe, a file, a journal). */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PROGRESS_EVERY_NS 250000000ull

typedef struct Progress {
        FILE *f;
        bool on;                /* f is a terminal */
        bool shown;             /* a line is on screen */
        uint64_t next_ns;       /* no update before this */
} Progress;

/* Shows progress on f if f is a terminal, first after PROGRESS_EVERY_NS
 * from now_ns. */
void progress_init(Progress *p, FILE *f, uint64_t now_ns);

/* Returns true if a line is due at now_ns (then call progress_show). */
bool progress_due(Progress *p, uint64_t now_ns);

void progress_show(Progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Removes the line, if one is shown. */
void progress_end(Progress *p);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t progress_now_ns(void);
