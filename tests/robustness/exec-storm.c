/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* exec-storm: many short-lived processes exec'ing one binary, for the
 * robustness suite's exec storm against a comm: rule.
 *
 *   exec-storm STORMLING N RATE SHORT_MS LONG_EVERY LONG_MS CPUS
 *
 * execs STORMLING (a link to this program whose name the rule matches) N
 * times at RATE per second; each child lives SHORT_MS, every LONG_EVERY-th
 * LONG_MS, and a long one checks at its end that its affinity is CPUS (the
 * rule's CPUs).  Prints one JSON line: {"execs", "long", "long_pinned",
 * "long_missed", "failed", "seconds"}.
 *
 *   STORMLING child MS CPUS|-    (the child: sleeps MS ms; with CPUS,
 *                                 exits 0 when its affinity is CPUS, 3 if not) */
#include <errno.h>
#include <stdbool.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* Parses "0-1,3" into set.  Returns 0 or -1. */
static int parse_cpus(const char *s, cpu_set_t *set) {
        CPU_ZERO(set);
        while (*s) {
                char *end;
                long a = strtol(s, &end, 10), b = a;

                if (end == s || a < 0 || a >= CPU_SETSIZE)
                        return -1;
                if (*end == '-')
                        b = strtol(end + 1, &end, 10);
                for (long c = a; c <= b && c < CPU_SETSIZE; c++)
                        CPU_SET(c, set);
                if (*end == ',')
                        end++;
                else if (*end)
                        return -1;
                s = end;
        }
        return 0;
}

static int child(const char *ms, const char *cpus) {
        struct timespec d = { .tv_sec = atol(ms) / 1000, .tv_nsec = atol(ms) % 1000 * 1000000L };
        cpu_set_t want, have;

        nanosleep(&d, NULL);
        if (strcmp(cpus, "-") == 0)
                return 0;
        if (parse_cpus(cpus, &want) < 0 || sched_getaffinity(0, sizeof(have), &have) < 0)
                return 2;
        return CPU_EQUAL(&want, &have) ? 0 : 3;
}

int main(int argc, char *argv[]) {
        long n, rate, short_ms, long_every, long_ms, execs = 0, longs = 0, pinned = 0, missed = 0, failed = 0;
        double start, next;
        int status;
        pid_t pid;

        if (argc == 4 && strcmp(argv[1], "child") == 0)
                return child(argv[2], argv[3]);
        if (argc != 8) {
                fprintf(stderr, "usage: exec-storm STORMLING N RATE SHORT_MS LONG_EVERY LONG_MS CPUS\n");
                return 2;
        }
        n = atol(argv[2]), rate = atol(argv[3]), short_ms = atol(argv[4]);
        long_every = atol(argv[5]), long_ms = atol(argv[6]);
        start = next = now_s();
        for (long i = 0; i < n; i++) {
                bool is_long = long_every > 0 && i % long_every == long_every - 1;
                char ms[32];

                snprintf(ms, sizeof(ms), "%ld", is_long ? long_ms : short_ms);
                pid = fork();
                if (pid == 0) {
                        execl(argv[1], argv[1], "child", ms, is_long ? argv[7] : "-", (char *) NULL);
                        _exit(127);
                }
                if (pid < 0) {
                        failed++;
                        continue;
                }
                execs++;
                while (waitpid(-1, &status, WNOHANG) > 0) {
                        failed += WIFEXITED(status) && (WEXITSTATUS(status) == 127 || WEXITSTATUS(status) == 2);
                        missed += WIFEXITED(status) && WEXITSTATUS(status) == 3;
                }
                longs += is_long;
                next += 1.0 / (double) rate;
                while (now_s() < next) {
                        struct timespec d = { 0, 200000 };
                        nanosleep(&d, NULL);
                }
        }
        while ((pid = wait(&status)) > 0 || errno == EINTR) {
                if (pid <= 0)
                        continue;
                failed += WIFEXITED(status) && (WEXITSTATUS(status) == 127 || WEXITSTATUS(status) == 2);
                missed += WIFEXITED(status) && WEXITSTATUS(status) == 3;
        }
        pinned = longs - missed;
        printf("{\"execs\": %ld, \"long\": %ld, \"long_pinned\": %ld, \"long_missed\": %ld, \"failed\": %ld, "
               "\"seconds\": %.1f}\n", execs, longs, pinned, missed, failed, now_s() - start);
        return 0;
}
