/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wakeup-bench: a schbench-like wakeup latency benchmark (schbench is not
 * packaged in Debian).  Written for idlepolicyd's bench/workloads.
 *
 * One or more message threads serve a set of worker threads each.  A worker
 * runs a loop of requests:
 *
 *   post itself to its message thread (futex wake) and block on its own
 *   futex; the message thread wakes it; the time from posting to running
 *   again is the WAKEUP LATENCY (a round trip through the message thread,
 *   as in schbench);
 *   then the request: usleep(sleep_us) (simulated network/disk), then
 *   `ops` rounds of a small matrix multiply (think time); the time from
 *   the start of the sleep to the end of the math is the REQUEST LATENCY.
 *
 * Completed requests per second is the throughput score.  Idle periods on
 * the machine mostly end at the workers' usleep timers, the rest at the
 * futex wake-ups sent between CPUs.
 *
 * Usage: wakeup-bench [-r SECONDS] [-m MSG_THREADS] [-t WORKERS_PER_MSG]
 *                     [-s SLEEP_US] [-n OPS] [-N MATRIX_DIM] [-w WARMUP_S]
 * Prints one JSON object on stdout.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define HIST_US 100000          /* 1 µs buckets up to 100 ms, then overflow */
#define MAX_WORKERS 64          /* per message thread: one bit each */

enum { BLOCKED = 0, RUNNING = 1 };

struct msg;

struct worker {
        struct msg *msg;
        unsigned idx;
        _Atomic uint32_t futex;
        pthread_t thread;
        double *matrix;         /* 3 × dim × dim */
        uint64_t requests;
        uint32_t *wake_hist;    /* µs buckets, last one = overflow */
        uint32_t *req_hist;
        uint64_t wake_max_ns, req_max_ns;
};

struct msg {
        _Atomic uint64_t ready; /* bit per posted worker */
        _Atomic uint32_t seq;   /* futex: bumped on every post */
        pthread_t thread;
        struct worker *workers;
        unsigned nworkers;
};

static atomic_bool stopping;
static atomic_bool recording;
static unsigned sleep_us = 100, ops = 5, dim = 24;

static long futex(_Atomic uint32_t *uaddr, int op, uint32_t val) {
        return syscall(SYS_futex, (uint32_t *) uaddr, op, val, NULL, NULL, 0);
}

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static void add_hist(uint32_t *hist, uint64_t *max, uint64_t ns) {
        uint64_t us = ns / 1000;
        hist[us < HIST_US ? us : HIST_US]++;
        if (ns > *max)
                *max = ns;
}

/* Think time: ops rounds of C = A × B on dim × dim doubles. */
static void do_work(struct worker *w) {
        double *a = w->matrix, *b = a + dim * dim, *c = b + dim * dim;
        for (unsigned o = 0; o < ops; o++) {
                for (unsigned i = 0; i < dim; i++)
                        for (unsigned j = 0; j < dim; j++) {
                                double s = 0;
                                for (unsigned k = 0; k < dim; k++)
                                        s += a[i * dim + k] * b[k * dim + j];
                                c[i * dim + j] = s;
                        }
                /* feed back so the compiler cannot drop the work */
                a[o % (dim * dim)] = c[(o * 7) % (dim * dim)] * 1e-3 + 1.0;
        }
}

static void *worker_main(void *arg) {
        struct worker *w = arg;
        struct msg *m = w->msg;

        while (!atomic_load(&stopping)) {
                uint64_t posted, woke, end;

                atomic_store(&w->futex, BLOCKED);
                posted = now_ns();
                atomic_fetch_or(&m->ready, 1ull << w->idx);
                atomic_fetch_add(&m->seq, 1);
                futex(&m->seq, FUTEX_WAKE_PRIVATE, 1);
                while (atomic_load(&w->futex) == BLOCKED && !atomic_load(&stopping))
                        futex(&w->futex, FUTEX_WAIT_PRIVATE, BLOCKED);
                if (atomic_load(&stopping))
                        break;
                woke = now_ns();

                if (sleep_us)
                        usleep(sleep_us);
                do_work(w);
                end = now_ns();

                if (atomic_load(&recording)) {
                        add_hist(w->wake_hist, &w->wake_max_ns, woke - posted);
                        add_hist(w->req_hist, &w->req_max_ns, end - woke);
                        w->requests++;
                }
        }
        return NULL;
}

static void *msg_main(void *arg) {
        struct msg *m = arg;

        while (!atomic_load(&stopping)) {
                uint32_t seq = atomic_load(&m->seq);
                uint64_t ready = atomic_exchange(&m->ready, 0);

                if (!ready) {
                        futex(&m->seq, FUTEX_WAIT_PRIVATE, seq);
                        continue;
                }
                while (ready) {
                        struct worker *w = &m->workers[__builtin_ctzll(ready)];
                        ready &= ready - 1;
                        atomic_store(&w->futex, RUNNING);
                        futex(&w->futex, FUTEX_WAKE_PRIVATE, 1);
                }
        }
        return NULL;
}

static uint64_t pct(const uint64_t *hist, uint64_t total, double q) {
        uint64_t rank = (uint64_t) (q / 100.0 * (double) total + 0.999999), seen = 0;
        if (rank == 0)
                rank = 1;
        for (unsigned i = 0; i <= HIST_US; i++) {
                seen += hist[i];
                if (seen >= rank)
                        return i;
        }
        return HIST_US;
}

static void usage(FILE *f) {
        fprintf(f, "usage: wakeup-bench [-r SECONDS] [-m MSG_THREADS] [-t WORKERS_PER_MSG]\n"
                   "                    [-s SLEEP_US] [-n OPS] [-N MATRIX_DIM] [-w WARMUP_S]\n");
}

int main(int argc, char **argv) {
        double runtime = 5, warmup = 0.5;
        unsigned nmsg = 1, nworkers = 0;
        int c;

        while ((c = getopt(argc, argv, "r:m:t:s:n:N:w:h")) != -1) {
                switch (c) {
                case 'r': runtime = atof(optarg); break;
                case 'm': nmsg = (unsigned) atoi(optarg); break;
                case 't': nworkers = (unsigned) atoi(optarg); break;
                case 's': sleep_us = (unsigned) atoi(optarg); break;
                case 'n': ops = (unsigned) atoi(optarg); break;
                case 'N': dim = (unsigned) atoi(optarg); break;
                case 'w': warmup = atof(optarg); break;
                case 'h': usage(stdout); return 0;
                default: usage(stderr); return 2;
                }
        }
        if (nworkers == 0) {
                long n = sysconf(_SC_NPROCESSORS_ONLN);
                nworkers = n > 0 ? (unsigned) n : 1;
        }
        if (runtime <= 0 || warmup < 0 || nmsg < 1 || nmsg > 64 || nworkers > MAX_WORKERS || dim < 1 || dim > 512) {
                usage(stderr);
                return 2;
        }

        struct msg *msgs = calloc(nmsg, sizeof(*msgs));
        if (!msgs)
                return 1;
        for (unsigned i = 0; i < nmsg; i++) {
                msgs[i].nworkers = nworkers;
                msgs[i].workers = calloc(nworkers, sizeof(struct worker));
                if (!msgs[i].workers)
                        return 1;
                for (unsigned j = 0; j < nworkers; j++) {
                        struct worker *w = &msgs[i].workers[j];
                        w->msg = &msgs[i];
                        w->idx = j;
                        w->matrix = malloc(3 * sizeof(double) * dim * dim);
                        w->wake_hist = calloc(HIST_US + 1, sizeof(uint32_t));
                        w->req_hist = calloc(HIST_US + 1, sizeof(uint32_t));
                        if (!w->matrix || !w->wake_hist || !w->req_hist)
                                return 1;
                        for (unsigned k = 0; k < 3 * dim * dim; k++)
                                w->matrix[k] = 1.0 + (double) (k % 17) / 17.0;
                }
        }

        for (unsigned i = 0; i < nmsg; i++)
                if (pthread_create(&msgs[i].thread, NULL, msg_main, &msgs[i]) != 0)
                        return 1;
        for (unsigned i = 0; i < nmsg; i++)
                for (unsigned j = 0; j < nworkers; j++)
                        if (pthread_create(&msgs[i].workers[j].thread, NULL, worker_main, &msgs[i].workers[j]) != 0)
                                return 1;

        struct timespec ts;
        ts.tv_sec = (time_t) warmup;
        ts.tv_nsec = (long) ((warmup - (double) ts.tv_sec) * 1e9);
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
                ;
        uint64_t t0 = now_ns();
        atomic_store(&recording, true);
        ts.tv_sec = (time_t) runtime;
        ts.tv_nsec = (long) ((runtime - (double) ts.tv_sec) * 1e9);
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
                ;
        atomic_store(&recording, false);
        uint64_t t1 = now_ns();
        atomic_store(&stopping, true);

        for (unsigned i = 0; i < nmsg; i++) {
                atomic_fetch_add(&msgs[i].seq, 1);
                futex(&msgs[i].seq, FUTEX_WAKE_PRIVATE, 1);
                for (unsigned j = 0; j < nworkers; j++) {
                        atomic_store(&msgs[i].workers[j].futex, RUNNING);
                        futex(&msgs[i].workers[j].futex, FUTEX_WAKE_PRIVATE, 1);
                }
        }
        for (unsigned i = 0; i < nmsg; i++) {
                for (unsigned j = 0; j < nworkers; j++)
                        pthread_join(msgs[i].workers[j].thread, NULL);
                /* the message thread may sleep again after stopping was set */
                atomic_fetch_add(&msgs[i].seq, 1);
                futex(&msgs[i].seq, FUTEX_WAKE_PRIVATE, 1);
                pthread_join(msgs[i].thread, NULL);
        }

        uint64_t *wake = calloc(HIST_US + 1, sizeof(uint64_t)), *req = calloc(HIST_US + 1, sizeof(uint64_t));
        uint64_t requests = 0, wake_max = 0, req_max = 0, wake_sum = 0;
        if (!wake || !req)
                return 1;
        for (unsigned i = 0; i < nmsg; i++)
                for (unsigned j = 0; j < nworkers; j++) {
                        struct worker *w = &msgs[i].workers[j];
                        requests += w->requests;
                        for (unsigned k = 0; k <= HIST_US; k++) {
                                wake[k] += w->wake_hist[k];
                                req[k] += w->req_hist[k];
                                wake_sum += (uint64_t) w->wake_hist[k] * k;
                        }
                        if (w->wake_max_ns > wake_max)
                                wake_max = w->wake_max_ns;
                        if (w->req_max_ns > req_max)
                                req_max = w->req_max_ns;
                }
        double secs = (double) (t1 - t0) / 1e9;
        printf("{\"requests\":%llu,\"rps\":%.1f,\"measured_s\":%.3f,"
               "\"wakeup_p50_us\":%llu,\"wakeup_p90_us\":%llu,\"wakeup_p99_us\":%llu,\"wakeup_p999_us\":%llu,"
               "\"wakeup_avg_us\":%.1f,\"wakeup_max_us\":%.1f,"
               "\"request_p50_us\":%llu,\"request_p99_us\":%llu,\"request_max_us\":%.1f,"
               "\"message_threads\":%u,\"workers_per_message_thread\":%u,\"sleep_us\":%u,\"ops\":%u,\"matrix_dim\":%u}\n",
               (unsigned long long) requests, (double) requests / secs, secs,
               (unsigned long long) pct(wake, requests, 50), (unsigned long long) pct(wake, requests, 90),
               (unsigned long long) pct(wake, requests, 99), (unsigned long long) pct(wake, requests, 99.9),
               requests ? (double) wake_sum / (double) requests : 0.0, (double) wake_max / 1e3,
               (unsigned long long) pct(req, requests, 50), (unsigned long long) pct(req, requests, 99),
               (double) req_max / 1e3, nmsg, nworkers, sleep_us, ops, dim);
        return 0;
}
