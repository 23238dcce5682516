/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uml-idle-sleep: what User-Mode Linux's idle sleep costs on this host, the
 * figures behind the exit latency and target residency of the test cpuidle
 * driver for UML (kernel/0004).  UML's idle (arch/um/os-Linux/time.c,
 * os_idle_sleep()) blocks SIGALRM, looks at its POSIX timer
 * (timer_create(CLOCK_MONOTONIC) with the default SIGALRM) and
 * sigsuspend()s until the timer fires; the driver's polling state spins
 * until the same signal's handler has run.  This program does both on the
 * host, the way the UML kernel process does them:
 *
 *   uml-idle-sleep [--wakeups N] [--runs R] [--out FILE]
 *
 * For each of R runs (default 3) and each timer period (100 us, 1 ms,
 * 10 ms: UML's tick at HZ=100), N wakeups (default 2000; N / 10 at 10 ms)
 * of each kind, the timer armed at an absolute time:
 *   late_us   return from the wait minus the timer's expiry (p50, p90, p99);
 *   cpu_us    the thread's CPU time per wakeup (CLOCK_THREAD_CPUTIME_ID).
 * The sleep's extra latency is its median lateness minus polling's (the
 * signal's delivery and handler are in both).  Polling burns the whole
 * wait, the sleep only its cpu_us: the idle time above which the sleep
 * costs the host less CPU time than polling (its break-even).  The
 * summary: exit_latency_us, the extra latency's median and largest value
 * over the measurements at 100 us and 1 ms (at 10 ms a spinning thread on a
 * busy host is preempted for whole time slices: its lateness there is the
 * host scheduler's, and comes out above the sleep's); break_even_us, the
 * median and range of cpu_us over all of them.  The test cpuidle driver
 * for UML takes the largest extra latency as SLEEP's exit latency (a
 * state's exit latency is a worst case) and the median break-even as its
 * target residency, each rounded up to 5 us.
 * Prints JSON (and writes it to FILE). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "bench-clock.h"

typedef struct WaitFigures {
        double late_us[3];            /* p50, p90, p99 */
        double cpu_us;                /* per wakeup */
} WaitFigures;

static volatile sig_atomic_t fired;

static void on_alarm(int sig) {
        (void) sig;
        fired = 1;
}

static uint64_t thread_cpu_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* Arms timer to fire once at the absolute CLOCK_MONOTONIC time at_ns. */
static int arm(timer_t timer, uint64_t at_ns) {
        struct itimerspec its = {
                .it_value.tv_sec = (time_t) (at_ns / 1000000000u),
                .it_value.tv_nsec = (long) (at_ns % 1000000000u),
        };

        return timer_settime(timer, TIMER_ABSTIME, &its, NULL) < 0 ? -errno : 0;
}

/* One wakeup the way os_idle_sleep() waits: SIGALRM blocked while the
 * timer is looked at, then sigsuspend() with the old mask. */
static void wait_sleeping(timer_t timer) {
        struct itimerspec its;
        sigset_t set, old;

        sigemptyset(&set);
        sigaddset(&set, SIGALRM);
        sigprocmask(SIG_BLOCK, &set, &old);
        timer_gettime(timer, &its);
        while (!fired && (its.it_value.tv_sec || its.it_value.tv_nsec))
                sigsuspend(&old);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* One wakeup the way a polling state waits: spinning on the handler's flag. */
static void wait_polling(void) {
        while (!fired)
                ;
}

/* n wakeups of period_ns each, sleeping or polling, into *ret.  Returns 0
 * or a negative errno. */
static int measure(timer_t timer, uint64_t period_ns, unsigned n, bool sleeping, WaitFigures *ret) {
        double *late = calloc(n, sizeof(double));
        uint64_t cpu0;

        if (!late)
                return -ENOMEM;
        cpu0 = thread_cpu_ns();
        for (unsigned i = 0; i < n; i++) {
                uint64_t at = bench_now_ns() + period_ns;
                int r;

                fired = 0;
                r = arm(timer, at);
                if (r < 0) {
                        free(late);
                        return r;
                }
                if (sleeping)
                        wait_sleeping(timer);
                else
                        wait_polling();
                late[i] = (double) (int64_t) (bench_now_ns() - at) / 1000.0;
        }
        ret->cpu_us = (double) (thread_cpu_ns() - cpu0) / 1000.0 / n;
        qsort(late, n, sizeof(double), bench_cmp_double);
        ret->late_us[0] = late[n / 2];
        ret->late_us[1] = late[n * 9 / 10];
        ret->late_us[2] = late[n * 99 / 100];
        free(late);
        return 0;
}

static size_t print_figures(char *buf, size_t size, const char *name, const WaitFigures *f) {
        return (size_t) snprintf(buf, size,
                                 "\"%s\": {\"late_us\": {\"p50\": %.1f, \"p90\": %.1f, \"p99\": %.1f}, "
                                 "\"cpu_us\": %.1f}",
                                 name, f->late_us[0], f->late_us[1], f->late_us[2], f->cpu_us);
}

/* "name": {"median": .., "min": .., "max": ..} of the n values v (sorts v). */
static size_t print_summary(char *buf, size_t size, const char *name, double *v, size_t n) {
        qsort(v, n, sizeof(double), bench_cmp_double);
        return (size_t) snprintf(buf, size, "\"%s\": {\"median\": %.1f, \"min\": %.1f, \"max\": %.1f}",
                                 name, v[n / 2], v[0], v[n - 1]);
}

#define PERIODS 3
#define RUNS_MAX 20

int main(int argc, char **argv) {
        static const uint64_t periods_ns[PERIODS] = { 100000, 1000000, 10000000 };
        static const struct option options[] = {
                { "wakeups", required_argument, NULL, 'n' },
                { "runs",    required_argument, NULL, 'r' },
                { "out",     required_argument, NULL, 'o' },
                {}
        };
        struct sigaction sa = { .sa_handler = on_alarm };
        double extra[PERIODS * RUNS_MAX], cpu[PERIODS * RUNS_MAX];
        size_t n_extra = 0;
        unsigned wakeups = 2000, runs = 3;
        const char *out = NULL;
        static char json[32768];
        struct utsname u;
        size_t len = 0, k = 0;
        timer_t timer;
        int opt;

        while ((opt = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (opt) {
                case 'n': wakeups = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'r': runs = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'o': out = optarg; break;
                default: return 2;
                }
        if (wakeups < 100 || runs < 1 || runs > RUNS_MAX || sigaction(SIGALRM, &sa, NULL) < 0 ||
            timer_create(CLOCK_MONOTONIC, NULL, &timer) < 0)
                return 2;
        uname(&u);
        len += (size_t) snprintf(json + len, sizeof(json) - len, "{\"host\": \"%s %s\", \"measurements\": [",
                                 u.sysname, u.release);
        for (unsigned r = 0; r < runs; r++)
                for (size_t i = 0; i < PERIODS; i++, k++) {
                        unsigned n = periods_ns[i] >= 10000000 ? wakeups / 10 : wakeups;
                        WaitFigures sleep, poll;

                        if (measure(timer, periods_ns[i], n, true, &sleep) < 0 ||
                            measure(timer, periods_ns[i], n, false, &poll) < 0) {
                                fprintf(stderr, "uml-idle-sleep: the timer failed: %s\n", strerror(errno));
                                return 1;
                        }
                        if (periods_ns[i] <= 1000000)
                                extra[n_extra++] = sleep.late_us[0] - poll.late_us[0];
                        cpu[k] = sleep.cpu_us;
                        len += (size_t) snprintf(json + len, sizeof(json) - len,
                                                 "%s\n  {\"run\": %u, \"period_us\": %.0f, \"wakeups\": %u, ",
                                                 k ? "," : "", r + 1, (double) periods_ns[i] / 1000.0, n);
                        len += print_figures(json + len, sizeof(json) - len, "sleep", &sleep);
                        len += (size_t) snprintf(json + len, sizeof(json) - len, ", ");
                        len += print_figures(json + len, sizeof(json) - len, "poll", &poll);
                        len += (size_t) snprintf(json + len, sizeof(json) - len, ", \"extra_late_us\": %.1f}",
                                                 sleep.late_us[0] - poll.late_us[0]);
                }
        len += (size_t) snprintf(json + len, sizeof(json) - len, "],\n \"summary\": {");
        len += print_summary(json + len, sizeof(json) - len, "exit_latency_us", extra, n_extra);
        len += (size_t) snprintf(json + len, sizeof(json) - len, ", ");
        len += print_summary(json + len, sizeof(json) - len, "break_even_us", cpu, k);
        len += (size_t) snprintf(json + len, sizeof(json) - len, "}}\n");
        return bench_json_out(json, out) < 0;
}
