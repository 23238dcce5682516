/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "monitor": a live view like top, redrawn every tick until Ctrl-C (plain
 * ANSI: home, clear); with --json one status object per line and tick. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ctl-format.h"
#include "ctl-json.h"
#include "ctl-model.h"

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

static void draw_header(const CtlStatus *s) {
        char clock[16], window[32] = "";
        time_t t = time(NULL);
        struct tm tm;

        strftime(clock, sizeof(clock), "%H:%M:%S", localtime_r(&t, &tm));
        if (s->poll_mode && strcmp(s->poll_mode, "window") == 0)
                snprintf(window, sizeof(window), " %lluus", (unsigned long long) (s->poll_window_nsec / 1000));
        printf("idlepolicyd %s  %s  profile %s  mode %s%s  governor %s", s->version ? s->version : "?", clock,
               s->active_profile ? s->active_profile : "?", s->mode ? s->mode : "?",
               s->calibrating ? " (calibrating)" : "", s->governor ? s->governor : "?");
        if (s->poll_mode && s->poll_mode[0])
                printf("  halt-poll %s%s", s->poll_mode, window);
        printf("\n\n%4s  %6s  %9s  %-22s  %-22s  %s\n", "CPU", "UTIL", "WAKEUPS/s", "CAP", "FLOOR",
               "STATES: share of entries (too deep / too shallow)");
}

/* "C1 (model)". */
static const char *plan_end(const CtlCpu *cpu, uint32_t state, const char *reason, char *buf, size_t size) {
        snprintf(buf, size, "%s (%s)", ctl_state_name(cpu, state), reason ? reason : "?");
        return buf;
}

static void draw_cpu(const CtlCpu *cpu) {
        char util[16], wake[32], cap[64], floor[64];

        if (!cpu->online) {
                printf("%4u  offline\n", cpu->index);
                return;
        }
        printf("%4u  %6s  %9s  %-22s  %-22s ", cpu->index,
               ctl_format_percent(cpu->util >= 0 ? cpu->util * 100 : -1, util, sizeof(util)),
               ctl_format_rate(cpu->timer_wakeups >= 0 && cpu->other_wakeups >= 0 ?
                               cpu->timer_wakeups + cpu->other_wakeups : -1, wake, sizeof(wake)),
               plan_end(cpu, cpu->cap, cpu->cap_reason, cap, sizeof(cap)),
               plan_end(cpu, cpu->floor, cpu->floor_reason, floor, sizeof(floor)));
        for (size_t k = 0; k < cpu->n_states; k++) {
                const CtlState *st = &cpu->states[k];
                char share[16], deep[16], shallow[16];

                printf(" %s%s %s (%s/%s)", st->name ? st->name : "?", st->disabled ? "[off]" : "",
                       ctl_format_percent(st->has_rates ? st->usage_share_pct : -1, share, sizeof(share)),
                       ctl_format_percent(st->has_rates ? st->too_deep_pct : -1, deep, sizeof(deep)),
                       ctl_format_percent(st->has_rates ? st->too_shallow_pct : -1, shallow, sizeof(shallow)));
        }
        printf("\n");
}

/* One frame.  Returns 0 or a negative errno. */
static int draw(Ctl *c, const CtlStatus *s) {
        if (c->json)
                return ctl_json_print_monitor_line(s);
        printf("\033[H\033[2J");
        draw_header(s);
        for (size_t i = 0; i < s->n_cpus; i++)
                draw_cpu(&s->cpus[i]);
        printf("\nCtrl-C to quit.\n");
        return fflush(stdout) == EOF ? -EIO : 0;
}

int ctl_cmd_monitor(Ctl *c, char **args) {
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
