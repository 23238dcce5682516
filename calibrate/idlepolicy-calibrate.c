/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idlepolicy-calibrate: measures the wakeup cost of one CPU with whatever
 * idle knobs are set now (see measure.h and idlepolicy-calibrate(8)).  It
 * reads the CPU's cpuidle state names, disable bits and usage counters, and
 * never writes a knob: idlepolicyd sets them around each run. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build-config.h"
#include "fileio.h"
#include "measure.h"

#define STATES_MAX 10u
#define NO_PARTNER UINT32_MAX
#define CPU_ID_MAX 8191u

typedef struct Options {
        uint32_t cpu, partner;
        uint32_t samples, gap_us, timer_samples;
        bool json;
} Options;

/* The target CPU's cpuidle states as seen now (n = 0 without cpuidle). */
typedef struct StateTable {
        unsigned n;
        char name[STATES_MAX][32];
        bool disabled[STATES_MAX];
} StateTable;

typedef struct Phase {
        MeasureStats stats;
        uint64_t entries[STATES_MAX];   /* usage counter deltas over the phase */
} Phase;

/* ---- cpuidle counters (read only) ---------------------------------------- */

static int state_read(int root, unsigned cpu, unsigned k, const char *file, char *buf, size_t size) {
        char path[128];

        snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%u/cpuidle/state%u/%s", cpu, k, file);
        return fileio_read_string_at(root, path, buf, size);
}

static void states_load(int root, unsigned cpu, StateTable *t) {
        char buf[32];

        *t = (StateTable) {};
        for (unsigned k = 0; k < STATES_MAX; k++) {
                if (state_read(root, cpu, k, "name", t->name[k], sizeof(t->name[k])) < 0)
                        break;
                t->disabled[k] = state_read(root, cpu, k, "disable", buf, sizeof(buf)) >= 0 && strcmp(buf, "0") != 0;
                t->n = k + 1;
        }
}

/* Reads the usage counters (0 where unreadable). */
static void usage_read(int root, unsigned cpu, unsigned n, uint64_t *ret) {
        for (unsigned k = 0; k < n; k++) {
                char buf[32];
                uint64_t v = 0;

                if (state_read(root, cpu, k, "usage", buf, sizeof(buf)) >= 0)
                        (void) parse_u64(buf, &v);
                ret[k] = v;
        }
}

static void usage_delta(int root, unsigned cpu, unsigned n, const uint64_t *before, uint64_t *ret) {
        uint64_t after[STATES_MAX];

        usage_read(root, cpu, n, after);
        for (unsigned k = 0; k < n; k++)
                ret[k] = after[k] >= before[k] ? after[k] - before[k] : 0;
}

/* ---- measuring ----------------------------------------------------------- */

static int measure_failed(const char *what, const Options *o, int r) {
        if (r == -EINVAL)
                fprintf(stderr, "Failed to measure %s: CPU %u%s is offline or outside the CPUs this process may use.\n",
                        what, o->cpu, o->partner == NO_PARTNER ? "" : " or its partner");
        else
                fprintf(stderr, "Failed to measure %s on CPU %u: %s\n", what, o->cpu, strerror(-r));
        return r;
}

static int run_phases(int root, const Options *o, const StateTable *t, Phase *wakeup, Phase *timer) {
        uint64_t before[STATES_MAX];
        int r;

        if (o->partner != NO_PARTNER) {
                usage_read(root, o->cpu, t->n, before);
                r = measure_wakeup(o->cpu, o->partner, o->samples, o->gap_us, &wakeup->stats);
                if (r < 0)
                        return measure_failed("wakeups", o, r);
                usage_delta(root, o->cpu, t->n, before, wakeup->entries);
        }
        usage_read(root, o->cpu, t->n, before);
        r = measure_timer(o->cpu, o->timer_samples, &timer->stats);
        if (r < 0)
                return measure_failed("timer wakeups", o, r);
        usage_delta(root, o->cpu, t->n, before, timer->entries);
        return 0;
}

/* ---- output -------------------------------------------------------------- */

static json_t *stats_to_json(const Phase *p, unsigned n_states) {
        const MeasureStats *s = &p->stats;
        json_t *o = json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f}", "samples", (json_int_t) s->n,
                              "min_us", s->min_us, "median_us", s->median_us, "p90_us", s->p90_us,
                              "p99_us", s->p99_us, "max_us", s->max_us, "mean_us", s->mean_us);
        json_t *entries = json_array();

        for (unsigned k = 0; entries && k < n_states; k++)
                (void) json_array_append_new(entries, json_integer((json_int_t) p->entries[k]));
        if (o)
                (void) json_object_set_new(o, "entries", entries);
        else
                json_decref(entries);
        return o;
}

static int print_json(const Options *o, const StateTable *t, const Phase *wakeup, const Phase *timer) {
        json_auto_t *root = json_pack("{s:I, s:o, s:[], s:o, s:o}", "cpu", (json_int_t) o->cpu, "partner",
                                      o->partner == NO_PARTNER ? json_null() : json_integer(o->partner), "states",
                                      "wakeup", o->partner == NO_PARTNER ? json_null() : stats_to_json(wakeup, t->n),
                                      "timer", stats_to_json(timer, t->n));
        json_t *w = json_object_get(root, "wakeup"), *states = json_object_get(root, "states");
        char *text;

        if (!root)
                return -ENOMEM;
        if (json_is_object(w))
                (void) json_object_update_new(w, json_pack("{s:s, s:I}", "method", "pipe", "gap_us", (json_int_t) o->gap_us));
        (void) json_object_update_new(json_object_get(root, "timer"),
                                      json_pack("{s:I, s:I}", "sleep_min_us", (json_int_t) MEASURE_TIMER_MIN_US,
                                                "sleep_max_us", (json_int_t) MEASURE_TIMER_MAX_US));
        for (unsigned k = 0; k < t->n; k++)
                (void) json_array_append_new(states, json_pack("{s:s, s:b}", "name", t->name[k], "disabled", t->disabled[k]));
        text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
        if (!text)
                return -ENOMEM;
        puts(text);
        free(text);
        return 0;
}

static void print_stats(const char *what, const MeasureStats *s) {
        printf("%-16s median %8.2f µs  p90 %8.2f µs  p99 %8.2f µs  (min %.2f, max %.2f, %u samples)\n",
               what, s->median_us, s->p90_us, s->p99_us, s->min_us, s->max_us, s->n);
}

static void print_text(const Options *o, const StateTable *t, const Phase *wakeup, const Phase *timer) {
        printf("CPU %u, allowed idle states:", o->cpu);
        for (unsigned k = 0; k < t->n; k++)
                if (!t->disabled[k])
                        printf(" \"%s\"", t->name[k]);
        printf("%s\n", t->n == 0 ? " (no cpuidle)" : "");
        if (o->partner != NO_PARTNER) {
                printf("partner CPU %u, gap %u µs\n", o->partner, o->gap_us);
                print_stats("pipe wakeup", &wakeup->stats);
        }
        print_stats("timer lateness", &timer->stats);
}

/* ---- command line -------------------------------------------------------- */

static void usage(FILE *f) {
        fputs("Usage: idlepolicy-calibrate --cpu C [--partner P] [--samples N] [--gap-us G]\n"
              "                            [--timer-samples N] [--json]\n\n"
              "Measures the wakeup latency of CPU C with the idle knobs as they are now.\n\n"
              "  -c, --cpu C            the CPU to measure\n"
              "  -p, --partner P        the CPU that wakes it (busy-waits; without it only timer\n"
              "                         lateness is measured)\n"
              "  -n, --samples N        pipe wakeups to measure (default 1000)\n"
              "  -g, --gap-us G         busy-wait before each wakeup, µs (default 1000)\n"
              "  -t, --timer-samples N  timer sleeps of 200-1000 µs to measure (default 500)\n"
              "  -j, --json             print one JSON object\n"
              "  -h, --help             show this help\n"
              "      --version          show the version\n", f);
}

static int parse_bounded(const char *s, uint32_t min, uint32_t max, uint32_t *ret) {
        uint32_t v;

        if (parse_u32(s, &v) < 0 || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

/* Returns 0, 1 to exit successfully (help, version), -EINVAL on misuse. */
static int parse_args(int argc, char **argv, Options *o) {
        enum { ARG_VERSION = 0x100 };
        static const struct option longopts[] = {
                { "cpu", required_argument, NULL, 'c' },           { "partner", required_argument, NULL, 'p' },
                { "samples", required_argument, NULL, 'n' },       { "gap-us", required_argument, NULL, 'g' },
                { "timer-samples", required_argument, NULL, 't' }, { "json", no_argument, NULL, 'j' },
                { "help", no_argument, NULL, 'h' },                { "version", no_argument, NULL, ARG_VERSION },
                {}
        };
        bool have_cpu = false;
        int c, r = 0;

        while (r == 0 && (c = getopt_long(argc, argv, "c:p:n:g:t:jh", longopts, NULL)) >= 0)
                switch (c) {
                case 'c': r = parse_bounded(optarg, 0, CPU_ID_MAX, &o->cpu); have_cpu = true; break;
                case 'p': r = parse_bounded(optarg, 0, CPU_ID_MAX, &o->partner); break;
                case 'n': r = parse_bounded(optarg, 1, 1000000, &o->samples); break;
                case 'g': r = parse_bounded(optarg, 1, 1000000, &o->gap_us); break;
                case 't': r = parse_bounded(optarg, 1, 100000, &o->timer_samples); break;
                case 'j': o->json = true; break;
                case 'h': usage(stdout); return 1;
                case ARG_VERSION: puts("idlepolicy-calibrate " PACKAGE_VERSION); return 1;
                default: return -EINVAL;
                }
        if (r < 0 || optind < argc || !have_cpu || o->cpu == o->partner)
                return -EINVAL;
        return 0;
}

int main(int argc, char **argv) {
        Options o = { .partner = NO_PARTNER, .samples = 1000, .gap_us = 1000, .timer_samples = 500 };
        Phase wakeup = {}, timer = {};
        _cleanup_close_ int root = -1;
        StateTable t;
        int r;

        r = parse_args(argc, argv, &o);
        if (r != 0) {
                if (r < 0)
                        usage(stderr);
                return r < 0 ? 2 : EXIT_SUCCESS;
        }
        root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root < 0) {
                perror("Failed to open /");
                return EXIT_FAILURE;
        }
        states_load(root, o.cpu, &t);
        if (run_phases(root, &o, &t, &wakeup, &timer) < 0)
                return EXIT_FAILURE;
        if (!o.json) {
                print_text(&o, &t, &wakeup, &timer);
                return EXIT_SUCCESS;
        }
        r = print_json(&o, &t, &wakeup, &timer);
        if (r < 0) {
                fprintf(stderr, "Failed to format the result: %s\n", strerror(-r));
                return EXIT_FAILURE;
        }
        return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
