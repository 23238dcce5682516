/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idlepolicy-calibrate: measures the wakeup cost of one CPU with whatever
 * idle knobs are set now (see measure.h and idlepolicy-calibrate(8)).  It
 * reads the CPU's cpuidle state names, disable bits and usage counters, and
 * never writes a knob: idlepolicyd sets them around each run. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build-config.h"
#include "calibration.h"
#include "fileio.h"
#include "measure.h"
#include "sysfs-paths.h"

#define STATES_MAX 10u
#define NO_PARTNER UINT32_MAX
#define CPU_ID_MAX 8191u
#define SWEEP_MAX CALIBRATION_CURVE_MAX
#define SWEEP_DEFAULT "2,5,10,20,50,100,200,500,1000,2000"

typedef struct Options {
        uint32_t cpu, partner;
        uint32_t samples, gap_us, timer_samples;
        uint32_t sweep_samples;         /* per idle duration; 0: no sweep */
        uint32_t sweep_passes;
        uint32_t sweep_us[SWEEP_MAX];   /* ascending */
        unsigned n_sweep;
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

/* One idle duration of the sweep: stats over the samples in which the
 * waiter blocked; awake = the others. */
typedef struct SweepPoint {
        uint32_t idle_us;
        Phase phase;
        unsigned awake;
} SweepPoint;

typedef struct Sweep {
        unsigned n;
        SweepPoint points[SWEEP_MAX];
} Sweep;

/* ---- cpuidle counters (read only) ---------------------------------------- */

static int state_read(int root, unsigned cpu, unsigned k, const char *file, char *buf, size_t size) {
        char path[128];

        snprintf(path, sizeof(path), SYSFS_CPU_STATE_FILE_FMT, cpu, k, file);
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

/* The samples of one idle duration, gathered over the passes. */
typedef struct SweepBuffer {
        uint64_t *ns;                   /* the samples in which the waiter blocked */
        unsigned n, total;
        uint64_t entries[STATES_MAX];
} SweepBuffer;

/* One pass over the idle durations, n samples each, appended to buf[].
 * Returns 0 or a negative errno (printed). */
static int sweep_pass(int root, const Options *o, const StateTable *t, unsigned n, SweepBuffer *buf, uint64_t *ns,
                      bool *slept) {
        for (unsigned i = 0; i < o->n_sweep; i++) {
                uint64_t before[STATES_MAX], delta[STATES_MAX];
                int r;

                usage_read(root, o->cpu, t->n, before);
                r = measure_wakeup_samples(o->cpu, o->partner, n, o->sweep_us[i], ns, slept);
                if (r < 0)
                        return measure_failed("the idle-duration sweep", o, r);
                usage_delta(root, o->cpu, t->n, before, delta);
                for (unsigned k = 0; k < t->n; k++)
                        buf[i].entries[k] += delta[k];
                for (unsigned j = 0; j < n; j++)
                        if (slept[j])
                                buf[i].ns[buf[i].n++] = ns[j];
                buf[i].total += n;
        }
        return 0;
}

/* Sums up buf into ret. */
static void sweep_fill(const Options *o, SweepBuffer *buf, Sweep *ret) {
        *ret = (Sweep) { .n = o->n_sweep };
        for (unsigned i = 0; i < o->n_sweep; i++) {
                SweepPoint *p = &ret->points[i];

                p->idle_us = o->sweep_us[i];
                p->awake = buf[i].total - buf[i].n;
                memcpy(p->phase.entries, buf[i].entries, sizeof(p->phase.entries));
                if (buf[i].n > 0)
                        measure_stats(buf[i].ns, buf[i].n, &p->phase.stats);
        }
}

/* The sweep: a few passes over the idle durations (the samples spread
 * over them, the first passes taking the remainder), so that a slow
 * change of the machine (another guest busy on the host) spreads over all
 * durations instead of spoiling one.  Returns 0 or a negative errno
 * (printed). */
static int run_sweep(int root, const Options *o, const StateTable *t, Sweep *ret) {
        unsigned passes = o->sweep_passes < o->sweep_samples ? o->sweep_passes : o->sweep_samples;
        unsigned most = (o->sweep_samples + passes - 1) / passes;
        _cleanup_free_ uint64_t *ns = calloc(most, sizeof(uint64_t));
        _cleanup_free_ bool *slept = calloc(most, sizeof(bool));
        SweepBuffer buf[SWEEP_MAX] = {};
        int r = ns && slept ? 0 : -ENOMEM;

        for (unsigned i = 0; r == 0 && i < o->n_sweep; i++) {
                buf[i].ns = calloc(o->sweep_samples, sizeof(uint64_t));
                if (!buf[i].ns)
                        r = -ENOMEM;
        }
        if (r < 0)
                fprintf(stderr, "Failed to measure the idle-duration sweep: %s\n", strerror(-r));
        for (unsigned pass = 0; r == 0 && pass < passes; pass++)
                r = sweep_pass(root, o, t, o->sweep_samples / passes + (pass < o->sweep_samples % passes), buf, ns, slept);
        if (r == 0)
                sweep_fill(o, buf, ret);
        for (unsigned i = 0; i < o->n_sweep; i++)
                free(buf[i].ns);
        return r;
}

static int run_phases(int root, const Options *o, const StateTable *t, Phase *wakeup, Sweep *sweep, Phase *timer) {
        uint64_t before[STATES_MAX];
        int r;

        if (o->partner != NO_PARTNER) {
                usage_read(root, o->cpu, t->n, before);
                r = measure_wakeup(o->cpu, o->partner, o->samples, o->gap_us, &wakeup->stats);
                if (r < 0)
                        return measure_failed("wakeups", o, r);
                usage_delta(root, o->cpu, t->n, before, wakeup->entries);
                if (o->sweep_samples > 0) {
                        r = run_sweep(root, o, t, sweep);
                        if (r < 0)
                                return r;
                }
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

/* A sweep point counts when the waiter blocked in at least half of its
 * wakeups and the CPU entered an allowed idle state at least 9 times per
 * 10 of them (the daemon's rule): else many wakeups came before the CPU
 * was in the state, and measure the way into idle instead.  Without
 * cpuidle only the first. */
static bool point_valid(const StateTable *t, const SweepPoint *p) {
        unsigned total = p->phase.stats.n + p->awake;
        uint64_t entered = 0;

        for (unsigned k = 0; k < t->n; k++)
                if (!t->disabled[k])
                        entered += p->phase.entries[k];
        return p->phase.stats.n > 0 && 2 * p->phase.stats.n >= total && (t->n == 0 || 10 * entered >= 9 * (uint64_t) total);
}

/* The sweep's own curve (median wakeup per idle duration, no baseline
 * subtracted) and what calibration_curve_derive() makes of it. */
static void sweep_derive(const StateTable *t, const Sweep *sw, uint32_t *ret_entry_us, uint32_t *ret_residency_us) {
        CalibrationPoint curve[SWEEP_MAX];
        unsigned n = 0;

        for (unsigned i = 0; i < sw->n; i++)
                if (point_valid(t, &sw->points[i]))
                        curve[n++] = (CalibrationPoint) { .idle_us = sw->points[i].idle_us,
                                                          .penalty_us = (int32_t) (sw->points[i].phase.stats.median_us + 0.5) };
        calibration_curve_derive(curve, n, ret_entry_us, ret_residency_us);
}

static json_t *sweep_to_json(const Options *o, const StateTable *t, const Sweep *sw) {
        json_t *points = json_array();
        uint32_t entry, residency;

        for (unsigned i = 0; points && i < sw->n; i++) {
                const SweepPoint *p = &sw->points[i];
                json_t *j = stats_to_json(&p->phase, t->n);

                if (!j || json_object_update_new(j, json_pack("{s:I, s:I, s:b}", "idle_us", (json_int_t) p->idle_us,
                                                              "awake", (json_int_t) p->awake,
                                                              "valid", point_valid(t, p))) < 0 ||
                    json_array_append_new(points, j) < 0)
                        points = (json_decref(points), NULL);
        }
        sweep_derive(t, sw, &entry, &residency);
        return json_pack("{s:s, s:I, s:o, s:I, s:I}", "method", "pipe", "samples", (json_int_t) o->sweep_samples,
                         "points", points, "entry_us", (json_int_t) entry, "residency_us", (json_int_t) residency);
}

static int print_json(const Options *o, const StateTable *t, const Phase *wakeup, const Sweep *sweep, const Phase *timer) {
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
        (void) json_object_set_new(root, "sweep", sweep->n > 0 ? sweep_to_json(o, t, sweep) : json_null());
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

static void print_sweep(const Options *o, const StateTable *t, const Sweep *sw) {
        uint32_t entry, residency;

        printf("idle-duration sweep, %u wakeups each (median and p90 of those that found the CPU idle):\n",
               o->sweep_samples);
        for (unsigned i = 0; i < sw->n; i++) {
                const SweepPoint *p = &sw->points[i];

                printf("  idle %6u µs  median %8.2f µs  p90 %8.2f µs  awake %4u  entries",
                       p->idle_us, p->phase.stats.median_us, p->phase.stats.p90_us, p->awake);
                for (unsigned k = 0; k < t->n; k++)
                        printf(" %" PRIu64, p->phase.entries[k]);
                printf("%s\n", point_valid(t, p) ? "" : "  (does not count: woken before it was in the state)");
        }
        sweep_derive(t, sw, &entry, &residency);
        if (residency > 0)
                printf("entry cost %u µs, flat from %u µs of idleness\n", entry, residency);
        else
                printf("entry cost %u µs, no flat point\n", entry);
}

static void print_text(const Options *o, const StateTable *t, const Phase *wakeup, const Sweep *sweep, const Phase *timer) {
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
        if (sweep->n > 0)
                print_sweep(o, t, sweep);
}

/* ---- command line -------------------------------------------------------- */

static void usage(FILE *f) {
        fputs("Usage: idlepolicy-calibrate --cpu C [--partner P] [--samples N] [--gap-us G]\n"
              "                            [--timer-samples N] [--sweep-us LIST] [--sweep-samples N]\n"
              "                            [--sweep-passes N] [--json]\n\n"
              "Measures the wakeup latency of CPU C with the idle knobs as they are now,\n"
              "and how it depends on how long the CPU has been idle.\n\n"
              "  -c, --cpu C            the CPU to measure\n"
              "  -p, --partner P        the CPU that wakes it (busy-waits; without it only timer\n"
              "                         lateness is measured)\n"
              "  -n, --samples N        pipe wakeups to measure (default 1000)\n"
              "  -g, --gap-us G         busy-wait before each wakeup, µs (default 1000)\n"
              "  -t, --timer-samples N  timer sleeps of 200-1000 µs to measure (default 500)\n"
              "  -s, --sweep-us LIST    idle durations to wake the CPU after, µs, ascending, comma-\n"
              "                         separated, at most 16 (default " SWEEP_DEFAULT ")\n"
              "  -S, --sweep-samples N  pipe wakeups per idle duration (default 200; 0: no sweep)\n"
              "  -P, --sweep-passes N   passes over the idle durations (default 3)\n"
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

/* Parses "2,5,10": 1-16 durations of 1..1000000 µs, strictly ascending.
 * Returns 0 or -EINVAL. */
static int parse_sweep(const char *s, Options *o) {
        unsigned n = 0;

        for (const char *p = s;; p++) {
                char item[16];
                size_t len = strcspn(p, ",");

                if (n >= SWEEP_MAX || len == 0 || len >= sizeof(item))
                        return -EINVAL;
                memcpy(item, p, len);
                item[len] = '\0';
                if (parse_bounded(item, 1, 1000000, &o->sweep_us[n]) < 0 || (n > 0 && o->sweep_us[n] <= o->sweep_us[n - 1]))
                        return -EINVAL;
                n++;
                p += len;
                if (*p == '\0')
                        break;
        }
        o->n_sweep = n;
        return 0;
}

/* Returns 0, 1 to exit successfully (help, version), -EINVAL on misuse. */
static int parse_args(int argc, char **argv, Options *o) {
        enum { ARG_VERSION = 0x100 };
        static const struct option longopts[] = {
                { "cpu", required_argument, NULL, 'c' },           { "partner", required_argument, NULL, 'p' },
                { "samples", required_argument, NULL, 'n' },       { "gap-us", required_argument, NULL, 'g' },
                { "timer-samples", required_argument, NULL, 't' }, { "json", no_argument, NULL, 'j' },
                { "sweep-us", required_argument, NULL, 's' },      { "sweep-samples", required_argument, NULL, 'S' },
                { "sweep-passes", required_argument, NULL, 'P' },
                { "help", no_argument, NULL, 'h' },                { "version", no_argument, NULL, ARG_VERSION },
                {}
        };
        bool have_cpu = false;
        int c, r = 0;

        while (r == 0 && (c = getopt_long(argc, argv, "c:p:n:g:t:s:S:P:jh", longopts, NULL)) >= 0)
                switch (c) {
                case 'c': r = parse_bounded(optarg, 0, CPU_ID_MAX, &o->cpu); have_cpu = true; break;
                case 'p': r = parse_bounded(optarg, 0, CPU_ID_MAX, &o->partner); break;
                case 'n': r = parse_bounded(optarg, 1, 1000000, &o->samples); break;
                case 'g': r = parse_bounded(optarg, 1, 1000000, &o->gap_us); break;
                case 't': r = parse_bounded(optarg, 1, 100000, &o->timer_samples); break;
                case 's': r = parse_sweep(optarg, o); break;
                case 'S': r = parse_bounded(optarg, 0, 100000, &o->sweep_samples); break;
                case 'P': r = parse_bounded(optarg, 1, 100, &o->sweep_passes); break;
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
        Options o = { .partner = NO_PARTNER, .samples = 1000, .gap_us = 1000, .timer_samples = 500, .sweep_samples = 200,
                      .sweep_passes = 3 };
        Phase wakeup = {}, timer = {};
        Sweep sweep = {};
        _cleanup_close_ int root = -1;
        StateTable t;
        int r;

        (void) parse_sweep(SWEEP_DEFAULT, &o);
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
        if (run_phases(root, &o, &t, &wakeup, &sweep, &timer) < 0)
                return EXIT_FAILURE;
        if (!o.json) {
                print_text(&o, &t, &wakeup, &sweep, &timer);
                return EXIT_SUCCESS;
        }
        r = print_json(&o, &t, &wakeup, &sweep, &timer);
        if (r < 0) {
                fprintf(stderr, "Failed to format the result: %s\n", strerror(-r));
                return EXIT_FAILURE;
        }
        return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
