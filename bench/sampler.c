/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/sampler: what one sampling tick costs.
 *
 * Builds fake trees of 64, 256 and 1024 CPUs x 10 states (faketree.h) in a
 * temp dir and measures, with the library's real sampler:
 *   - ns_per_tick: the median of snapshot_take() (every counter of every
 *     CPU plus proc/stat and proc/interrupts), over many ticks;
 *   - ns_per_cpu_state: the median of cpuidle_sampler_read() alone, divided
 *     by CPUs x states;
 *   - rss_kb (VmRSS with the sampler alive) and fds (open descriptors);
 * then the same on this machine's real /sys and /proc (read-only) when
 * readable, and a least-squares line ns_per_tick = a + b * cpu_states over
 * the fake trees.  Prints one JSON object.  The numbers are reported, never
 * asserted.
 *
 * Usage: sampler [--ticks N] [--real-root DIR] [--no-real] */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cpuidle.h"
#include "faketree.h"
#include "fileio.h"
#include "procstat.h"
#include "snapshot.h"
#include "topology.h"

#define N_TREES 3
#define STATES_PER_CPU 10
#define TICKS_DEFAULT 201
#define WARMUP_TICKS 3

static const unsigned tree_cpus[N_TREES] = { 64, 256, 1024 };

typedef struct Result {
        bool ok;
        char error[512];
        long fd_limit;              /* soft RLIMIT_NOFILE when the tree failed */
        unsigned cpus;              /* CPU slots sampled */
        unsigned online;            /* of which online with cpuidle */
        unsigned cpu_states;        /* sum of states over online CPUs */
        unsigned ticks;
        double ns_per_tick;         /* median snapshot_take() */
        double ns_per_tick_p90;
        double ns_sampler_read;     /* median cpuidle_sampler_read() */
        double ns_per_cpu_state;
        long rss_kb;
        long rss_delta_kb;          /* VmRSS growth from before opening the sampler */
        int fds;
} Result;

/* Returns CLOCK_MONOTONIC in ns (the benchmark may read the clock; the
 * library never does). */
static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

/* Returns VmRSS of this process in kB, or -1. */
static long rss_kb(void) {
        char line[256];
        long kb = -1;
        FILE *f = fopen("/proc/self/status", "re");

        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
                        break;
        fclose(f);
        return kb;
}

/* Returns the number of open file descriptors, or -1. */
static int count_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        int n = 0;

        if (!d)
                return -1;
        while (readdir(d))
                n++;
        closedir(d);
        return n - 3;            /* ".", ".." and the one opendir() holds */
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

/* Sorts v and returns the value at quantile q (0..1). */
static double quantile(uint64_t *v, unsigned n, double q) {
        qsort(v, n, sizeof(*v), cmp_u64);
        return (double) v[(unsigned) (q * (n - 1) + 0.5)];
}

/* The sampler needs one fd per counter file (6 per state): raise the soft
 * limit as far as we may (root may also raise the hard one). */
static void raise_fd_limit(void) {
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                return;
        rl.rlim_cur = rl.rlim_max;
        if (rl.rlim_max < 262144) {
                struct rlimit big = { 262144, 262144 };

                if (setrlimit(RLIMIT_NOFILE, &big) == 0)
                        return;
        }
        (void) setrlimit(RLIMIT_NOFILE, &rl);
}

static unsigned count_cpu_states(const CpuidleSampler *s, unsigned *ret_online) {
        unsigned total = 0, online = 0;

        for (unsigned c = 0; c < cpuidle_sampler_n_cpus(s); c++) {
                unsigned n = 0;

                if (cpuidle_sampler_states(s, c, &n) && n > 0) {
                        online++;
                        total += n;
                }
        }
        *ret_online = online;
        return total;
}

/* Times ticks of snapshot_take() and of cpuidle_sampler_read() alone. */
static int time_ticks(CpuidleSampler *sampler, ProcReader *pr, Snapshot *snap, CpuidleCpuSample *raw,
                      unsigned ticks, Result *res, ErrorInfo *e) {
        _cleanup_free_ uint64_t *take = calloc(ticks, sizeof(uint64_t));
        _cleanup_free_ uint64_t *read = calloc(ticks, sizeof(uint64_t));
        uint64_t t0;
        int r;

        if (!take || !read)
                return -ENOMEM;
        for (unsigned i = 0; i < WARMUP_TICKS + ticks; i++) {
                t0 = now_ns();
                r = snapshot_take(snap, sampler, pr, t0 / 1000, e);
                if (r < 0)
                        return r;
                if (i >= WARMUP_TICKS)
                        take[i - WARMUP_TICKS] = now_ns() - t0;
                t0 = now_ns();
                r = cpuidle_sampler_read(sampler, raw, e);
                if (r < 0)
                        return r;
                if (i >= WARMUP_TICKS)
                        read[i - WARMUP_TICKS] = now_ns() - t0;
        }
        res->ticks = ticks;
        res->ns_per_tick = quantile(take, ticks, 0.5);
        res->ns_per_tick_p90 = quantile(take, ticks, 0.9);
        res->ns_sampler_read = quantile(read, ticks, 0.5);
        return 0;
}

/* Samples the tree at root (a directory) and fills res.  Returns 0 or a
 * negative errno with res->error set. */
static int bench_root(const char *root, unsigned ticks, Result *res) {
        _cleanup_close_ int root_fd = -1;
        _cleanup_topology_ Topology *t = NULL;
        _cleanup_cpuidle_sampler_ CpuidleSampler *sampler = NULL;
        _cleanup_procreader_ ProcReader *pr = NULL;
        _cleanup_snapshot_ Snapshot *snap = NULL;
        _cleanup_free_ CpuidleCpuSample *raw = NULL;
        ErrorInfo e = {};
        long rss_before = rss_kb();
        int r;

        root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0)
                return snprintf(res->error, sizeof(res->error), "%.200s: %s", root, strerror(errno)), -errno;
        r = topology_load(root_fd, &t, &e);
        if (r >= 0)
                r = cpuidle_sampler_new(root_fd, t, &sampler, &e);
        if (r >= 0 && procreader_new(root_fd, &pr, &e) < 0)
                pr = NULL;       /* no proc data: the tick is the sampler alone */
        if (r >= 0)
                r = snapshot_new(cpuidle_sampler_n_cpus(sampler), &snap);
        raw = r >= 0 ? calloc(cpuidle_sampler_n_cpus(sampler), sizeof(*raw)) : NULL;
        if (r >= 0 && !raw)
                r = -ENOMEM;
        if (r >= 0)
                r = time_ticks(sampler, pr, snap, raw, ticks, res, &e);
        if (r < 0) {
                struct rlimit rl = {};

                snprintf(res->error, sizeof(res->error), "%.200s: %.300s", root,
                         e.message[0] ? e.message : strerror(-r));
                res->fd_limit = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (long) rl.rlim_cur : -1;
                return r;
        }
        res->cpus = cpuidle_sampler_n_cpus(sampler);
        res->cpu_states = count_cpu_states(sampler, &res->online);
        res->ns_per_cpu_state = res->cpu_states ? res->ns_sampler_read / res->cpu_states : 0;
        res->rss_kb = rss_kb();
        res->rss_delta_kb = res->rss_kb - rss_before;
        res->fds = count_fds();
        res->ok = true;
        return 0;
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        (void) st, (void) type, (void) ftw;
        return remove(path);
}

/* Generates a tree of cpus x STATES_PER_CPU under a new temp dir and
 * benchmarks it.  Returns 0 or a negative errno (res->error set). */
static int bench_fake_tree(unsigned cpus, unsigned ticks, Result *res) {
        char dir[] = "/tmp/idlepolicy-bench-XXXXXX";
        FakeTreeOptions o;
        int r, fd;

        if (!mkdtemp(dir))
                return snprintf(res->error, sizeof(res->error), "mkdtemp: %s", strerror(errno)), -errno;
        faketree_options_init(&o);
        o.n_cpus = cpus;
        o.n_states = STATES_PER_CPU;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        r = fd < 0 ? -errno : faketree_create(fd, &o);
        if (r >= 0)
                r = faketree_tick(fd);   /* non-zero counters, as on a real machine */
        if (fd >= 0)
                close(fd);
        if (r < 0)
                snprintf(res->error, sizeof(res->error), "faketree for %u CPUs: %s", cpus, strerror(-r));
        else
                r = bench_root(dir, ticks, res);
        nftw(dir, rm_entry, 64, FTW_DEPTH | FTW_PHYS);
        return r;
}

static void print_error(const Result *r) {
        printf("\"error\": \"");
        for (const char *p = r->error; *p; p++) {
                if (*p == '"' || *p == '\\')
                        putchar('\\');
                putchar((unsigned char) *p < 0x20 ? ' ' : *p);
        }
        printf("\"");
}

/* Fits ns_per_tick = intercept + slope * cpu_states over the successful
 * results.  Returns the number of points (the fit needs 2). */
static unsigned linear_fit(const Result *res, unsigned n, double *ret_slope, double *ret_intercept,
                           double *ret_r2) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, ss_res = 0, ss_tot;
        unsigned k = 0;

        for (unsigned i = 0; i < n; i++)
                if (res[i].ok) {
                        double x = res[i].cpu_states, y = res[i].ns_per_tick;

                        sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y, k++;
                }
        if (k < 2 || k * sxx - sx * sx == 0)
                return k < 2 ? k : 0;
        *ret_slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
        *ret_intercept = (sy - *ret_slope * sx) / k;
        for (unsigned i = 0; i < n; i++)
                if (res[i].ok) {
                        double d = res[i].ns_per_tick - (*ret_intercept + *ret_slope * res[i].cpu_states);

                        ss_res += d * d;
                }
        ss_tot = syy - sy * sy / k;
        *ret_r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
        return k;
}

/* Prints a failed tree with what it would have needed and cost, going by
 * the trees that worked (descriptors per CPU-state, the linear fit). */
static void print_failed_tree(const Result *r, unsigned cpus, const Result *all, unsigned n) {
        double slope, intercept, r2, fds_per_cpu_state = 0;
        unsigned x = cpus * STATES_PER_CPU;

        for (unsigned i = 0; i < n; i++)
                if (all[i].ok && all[i].cpu_states)
                        fds_per_cpu_state = (double) all[i].fds / all[i].cpu_states;
        printf("{\"cpus\": %u, \"states\": %u, ", cpus, STATES_PER_CPU);
        print_error(r);
        if (r->fd_limit > 0)
                printf(", \"fd_limit\": %ld", r->fd_limit);
        if (fds_per_cpu_state > 0)
                printf(", \"fds_needed_estimate\": %.0f", fds_per_cpu_state * x);
        if (linear_fit(all, n, &slope, &intercept, &r2) >= 2)
                printf(", \"ns_per_tick_extrapolated\": %.0f", intercept + slope * x);
        printf("}");
}

static void print_result(const Result *r, const char *indent) {
        printf("{\n%s  \"cpus\": %u, \"online\": %u, \"states\": %u, \"cpu_states\": %u, \"ticks\": %u,\n"
               "%s  \"ns_per_cpu_state\": %.1f, \"ns_per_tick\": %.0f, \"ns_per_tick_p90\": %.0f,\n"
               "%s  \"ns_sampler_read\": %.0f, \"rss_kb\": %ld, \"rss_delta_kb\": %ld, \"fds\": %d\n%s}",
               indent, r->cpus, r->online, r->online ? r->cpu_states / r->online : 0, r->cpu_states, r->ticks,
               indent, r->ns_per_cpu_state, r->ns_per_tick, r->ns_per_tick_p90,
               indent, r->ns_sampler_read, r->rss_kb, r->rss_delta_kb, r->fds, indent);
}

/* Prints the fit over the fake trees, or null with fewer than two. */
static void print_linear_fit(const Result *res, unsigned n) {
        double slope, intercept, r2;
        unsigned k = linear_fit(res, n, &slope, &intercept, &r2);

        if (k < 2) {
                printf("null");
                return;
        }
        printf("{\"x\": \"cpu_states\", \"y\": \"ns_per_tick\", \"slope_ns_per_cpu_state\": %.2f, "
               "\"intercept_ns\": %.0f, \"r2\": %.4f, \"points\": %u}", slope, intercept, r2, k);
}

static void usage(FILE *f) {
        fprintf(f, "Usage: sampler [--ticks N] [--real-root DIR] [--no-real]\n"
                   "Prints the cost of one sampling tick on fake trees of 64, 256 and 1024 CPUs x 10\n"
                   "states and on the real /sys and /proc, as one JSON object.\n");
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "ticks", required_argument, NULL, 't' },
                { "real-root", required_argument, NULL, 'r' },
                { "no-real", no_argument, NULL, 'n' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        unsigned ticks = TICKS_DEFAULT;
        const char *real_root = "/";
        Result fake[N_TREES] = {}, real = {};
        bool do_real = true;
        int c;

        while ((c = getopt_long(argc, argv, "t:r:nh", options, NULL)) >= 0)
                switch (c) {
                case 't': ticks = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'r': real_root = optarg; break;
                case 'n': do_real = false; break;
                case 'h': usage(stdout); return 0;
                default: usage(stderr); return 2;
                }
        if (ticks < 1 || ticks > 100000) {
                fprintf(stderr, "sampler: --ticks must be 1..100000\n");
                return 2;
        }
        raise_fd_limit();
        for (unsigned i = 0; i < N_TREES; i++)
                bench_fake_tree(tree_cpus[i], ticks, &fake[i]);
        if (do_real)
                bench_root(real_root, ticks, &real);

        printf("{\n  \"trees\": [\n");
        for (unsigned i = 0; i < N_TREES; i++) {
                printf("    ");
                if (fake[i].ok)
                        print_result(&fake[i], "    ");
                else
                        print_failed_tree(&fake[i], tree_cpus[i], fake, N_TREES);
                printf(i + 1 < N_TREES ? ",\n" : "\n");
        }
        printf("  ],\n  \"real\": ");
        if (!do_real)
                printf("null");
        else if (real.ok)
                print_result(&real, "  ");
        else {
                printf("{");
                print_error(&real);
                printf("}");
        }
        printf(",\n  \"linear_fit\": ");
        print_linear_fit(fake, N_TREES);
        printf("\n}\n");
        /* A tree that could not be sampled is reported in the JSON; fail only
         * when nothing could be measured at all. */
        for (unsigned i = 0; i < N_TREES; i++)
                if (fake[i].ok)
                        return 0;
        return 1;
}
