/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idlepolicy-sim: the share of idle periods replayed so far, as one line
 * rewritten on stderr while the matrix runs — only when stderr is a
 * terminal (nothing at all otherwise).  It counts through the replay's
 * observe hook and looks at the clock every PROGRESS_STRIDE periods. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "sim-cli.h"
#include "terminal.h"

#define PROGRESS_STRIDE 65536u          /* periods between two looks at the clock */
#define PROGRESS_USEC 200000u           /* at most five lines a second */

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

static void show(CliProgress *p, uint64_t now) {
        char line[256];

        terminal_progress_format(line, sizeof(line), terminal_columns(STDERR_FILENO, getenv("COLUMNS")) - 1,
                                 "Replaying idle periods", p->done, p->total, now - p->start_usec);
        fprintf(stderr, "\r\033[K%s", line);
        p->shown_usec = now;
        p->shown = true;
}

static void on_period(void *userdata, uint32_t cpu, const Governor *g, uint64_t now_ns) {
        CliProgress *p = userdata;
        uint64_t now;

        if (++p->done % PROGRESS_STRIDE != 0)
                return;
        now = now_usec();
        if (!p->shown || now - p->shown_usec >= PROGRESS_USEC)
                show(p, now);
}

void cli_progress_start(CliProgress *p, uint64_t total, SimRunConfig *run) {
        *p = (CliProgress) { .total = total, .start_usec = now_usec() };
        if (!isatty(STDERR_FILENO) || run->observe)
                return;
        run->observe = on_period;
        run->userdata = p;
}

void cli_progress_end(CliProgress *p) {
        if (p->shown)
                fprintf(stderr, "\r\033[K");
        p->shown = false;
}
