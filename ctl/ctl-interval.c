/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* status --interval: reads the daemon at the window's start, once per tick
 * until it ends (the per-tick utilisation and wakeups to average), and at
 * its end; ctl-window.c turns the reads into the window's rates.  On a
 * terminal a line on stderr counts down. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl-format.h"
#include "ctl-interval.h"
#include "ctl-window.h"
#include "terminal.h"

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

static void sleep_usec(uint64_t usec) {
        struct timespec ts = { .tv_sec = (time_t) (usec / 1000000u), .tv_nsec = (long) (usec % 1000000u) * 1000 };

        (void) nanosleep(&ts, NULL);
}

/* "Averaging over 10s: 4s left" on stderr, rewritten. */
static void show_progress(uint64_t window, uint64_t left) {
        char w[32], l[32], label[128], line[128];

        snprintf(label, sizeof(label), "Averaging over %s: %s left", ctl_format_usec(window, w, sizeof(w)),
                 ctl_format_usec((left + 999999) / 1000000 * 1000000, l, sizeof(l)));
        terminal_text_fit(label, terminal_columns(STDERR_FILENO, getenv("COLUMNS")) - 1, "~", line, sizeof(line));
        fprintf(stderr, "\r\033[K%s", line);
}

/* Reads once per tick until usec have passed since start, adding each read
 * to w; the last one stays in *last.  Returns 0 or a negative errno
 * (printed). */
static int read_ticks(Ctl *c, uint64_t start, uint64_t usec, CtlWindow *w, CtlStatus *last) {
        bool tty = isatty(STDERR_FILENO);
        int r;

        for (;;) {
                uint64_t elapsed = now_usec() - start, tick = last->tick_usec ? last->tick_usec : 1000000u;

                if (tty)
                        show_progress(usec, elapsed < usec ? usec - elapsed : 0);
                if (elapsed >= usec)
                        break;
                sleep_usec(usec - elapsed < tick ? usec - elapsed : tick);
                ctl_status_done(last);
                r = ctl_fetch_all(c, last);
                if (r < 0)
                        return r;
                r = ctl_window_add(w, last);
                if (r < 0)
                        return r;
        }
        if (tty)
                fprintf(stderr, "\r\033[K");
        return 0;
}

int ctl_fetch_window(Ctl *c, uint64_t usec, CtlStatus *ret) {
        _cleanup_(ctl_status_done) CtlStatus first = CTL_STATUS_NULL;
        _cleanup_(ctl_window_done) CtlWindow w = CTL_WINDOW_NULL;
        uint64_t start;
        int r;

        r = ctl_fetch_all(c, &first);
        if (r < 0)
                return r;
        start = now_usec();
        *ret = CTL_STATUS_NULL;
        ret->tick_usec = first.tick_usec;
        r = read_ticks(c, start, usec, &w, ret);
        if (r == -ENOMEM)
                fprintf(stderr, "idlepolicyctl: %s\n", strerror(ENOMEM));
        if (r < 0)
                return r;
        if (w.ticks == 0) {        /* a window shorter than the first sleep */
                ctl_status_done(ret);
                r = ctl_fetch_all(c, ret);
                if (r < 0)
                        return r;
        }
        ctl_window_apply(&w, &first, ret, now_usec() - start);
        return 0;
}
