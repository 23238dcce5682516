/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "monitor": a live view like top, redrawn every tick until Ctrl-C (plain
 * ANSI: home, clear; the frame is ctl-monitor-frame.c's, as wide as the
 * terminal); with --json one status object per line and tick. */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ctl-json.h"
#include "ctl-monitor-frame.h"
#include "terminal.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig) {
        interrupted = 1;
}

/* Ctrl-C and SIGTERM end the loop (the sleep returns EINTR). */
static void catch_signals(void) {
        struct sigaction sa = { .sa_handler = on_signal };

        sigemptyset(&sa.sa_mask);
        (void) sigaction(SIGINT, &sa, NULL);
        (void) sigaction(SIGTERM, &sa, NULL);
}

static void sleep_usec(uint64_t usec) {
        struct timespec ts = { .tv_sec = (time_t) (usec / 1000000u), .tv_nsec = (long) (usec % 1000000u) * 1000 };

        (void) nanosleep(&ts, NULL);
}

/* One frame.  Returns 0 or a negative errno. */
static int draw(Ctl *c, const CtlStatus *s) {
        char clock[16];
        time_t t = time(NULL);
        struct tm tm;
        CtlMonitorLayout l = {
                .width = terminal_columns(STDOUT_FILENO, getenv("COLUMNS")),
                .ellipsis = terminal_ellipsis(nl_langinfo(CODESET)),
                .clock = clock,
        };

        if (c->json)
                return ctl_json_print_monitor_line(s);
        strftime(clock, sizeof(clock), "%H:%M:%S", localtime_r(&t, &tm));
        printf("\033[H\033[2J");
        if (ctl_monitor_frame(stdout, s, &l) < 0)
                return -EIO;
        return fflush(stdout) == EOF ? -EIO : 0;
}

int ctl_cmd_monitor(Ctl *c, char **args) {
        (void) setlocale(LC_CTYPE, "");       /* the cut marker: "…" on UTF-8 */
        catch_signals();
        while (!interrupted) {
                _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;
                uint64_t tick;

                if (ctl_fetch_all(c, &s) < 0)
                        return interrupted ? CTL_EXIT_OK : CTL_EXIT_FAILURE;
                if (draw(c, &s) < 0)
                        return CTL_EXIT_FAILURE;
                tick = s.tick_usec ? s.tick_usec : 1000000u;
                sleep_usec(tick);
        }
        return CTL_EXIT_OK;
}
