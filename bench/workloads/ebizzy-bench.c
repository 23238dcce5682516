/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ebizzy-bench: an ebizzy-like load of short searches and short sleeps
 * (ebizzy is not packaged in Debian).  Written for idlepolicyd's
 * bench/workloads.
 *
 * Like ebizzy, every thread searches a random chunk of a shared set of
 * records for a random key, and counts the records it searched; unlike
 * ebizzy's default, each search is followed by a sleep of sleep_us (a
 * nanosleep(), with the thread's default timer slack), so that the CPUs
 * idle for about that long between bursts of work: the case where a poll
 * before the halt catches the timer's wakeup.  Records searched per second
 * is the score.
 *
 * Usage: ebizzy-bench [-r SECONDS] [-t THREADS] [-s SLEEP_US]
 *                     [-c CHUNK_RECORDS] [-n CHUNKS] [-w WARMUP_S]
 * Prints one JSON object on stdout.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct Record {
        uint64_t key, value;
} Record;

static unsigned chunk_records = 256, n_chunks = 64, sleep_us = 100;
static Record *records;
static atomic_bool measuring, stop;

typedef struct Thread {
        pthread_t thread;
        uint64_t rng, searched, found, iterations;
} Thread;

static uint64_t next_random(uint64_t *x) {
        *x ^= *x >> 12;
        *x ^= *x << 25;
        *x ^= *x >> 27;
        return *x * UINT64_C(0x2545f4914f6cdd1d);
}

/* Searches one chunk for key, record by record; returns the records read. */
static uint64_t search(const Record *chunk, uint64_t key, uint64_t *found) {
        for (unsigned i = 0; i < chunk_records; i++)
                if (chunk[i].key == key) {
                        (*found)++;
                        return i + 1;
                }
        return chunk_records;
}

static void *run(void *arg) {
        Thread *t = arg;
        struct timespec nap = { .tv_nsec = (long) sleep_us * 1000 };

        while (!atomic_load(&stop)) {
                uint64_t c = next_random(&t->rng) % n_chunks;
                uint64_t key = next_random(&t->rng) % ((uint64_t) chunk_records * 4);
                uint64_t n = search(records + c * chunk_records, key, &t->found);

                if (atomic_load(&measuring)) {
                        t->searched += n;
                        t->iterations++;
                }
                if (sleep_us > 0)
                        nanosleep(&nap, NULL);
        }
        return NULL;
}

static double now_s(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void sleep_s(double s) {
        struct timespec ts = { .tv_sec = (time_t) s, .tv_nsec = (long) ((s - (double) (time_t) s) * 1e9) };

        while (nanosleep(&ts, &ts) != 0)
                ;
}

int main(int argc, char **argv) {
        double seconds = 5, warmup = 0.5, t0, t1;
        long threads = sysconf(_SC_NPROCESSORS_ONLN);
        uint64_t seed = 0x9e3779b97f4a7c15, searched = 0, iterations = 0;
        Thread *ts;
        int c;

        while ((c = getopt(argc, argv, "r:t:s:c:n:w:")) != -1) {
                switch (c) {
                case 'r': seconds = atof(optarg); break;
                case 't': threads = atol(optarg); break;
                case 's': sleep_us = (unsigned) atoi(optarg); break;
                case 'c': chunk_records = (unsigned) atoi(optarg); break;
                case 'n': n_chunks = (unsigned) atoi(optarg); break;
                case 'w': warmup = atof(optarg); break;
                default:
                        fprintf(stderr, "usage: ebizzy-bench [-r S] [-t THREADS] [-s SLEEP_US] [-c RECORDS] [-n CHUNKS] [-w S]\n");
                        return 2;
                }
        }
        if (threads < 1 || chunk_records < 1 || n_chunks < 1 || seconds <= 0) {
                fprintf(stderr, "ebizzy-bench: bad arguments\n");
                return 2;
        }
        records = calloc((size_t) chunk_records * n_chunks, sizeof(Record));
        ts = calloc((size_t) threads, sizeof(Thread));
        if (!records || !ts) {
                fprintf(stderr, "ebizzy-bench: out of memory\n");
                return 1;
        }
        for (size_t i = 0; i < (size_t) chunk_records * n_chunks; i++)
                records[i] = (Record) { .key = next_random(&seed) % ((uint64_t) chunk_records * 4), .value = i };
        for (long i = 0; i < threads; i++) {
                ts[i].rng = seed + (uint64_t) i * 7919 + 1;
                if (pthread_create(&ts[i].thread, NULL, run, &ts[i]) != 0) {
                        fprintf(stderr, "ebizzy-bench: pthread_create failed\n");
                        return 1;
                }
        }
        sleep_s(warmup);
        atomic_store(&measuring, true);
        t0 = now_s();
        sleep_s(seconds);
        atomic_store(&measuring, false);
        t1 = now_s();
        atomic_store(&stop, true);
        for (long i = 0; i < threads; i++) {
                pthread_join(ts[i].thread, NULL);
                searched += ts[i].searched;
                iterations += ts[i].iterations;
        }
        printf("{\"records_per_s\":%.1f,\"searches_per_s\":%.1f,\"threads\":%ld,\"sleep_us\":%u,"
               "\"chunk_records\":%u,\"seconds\":%.3f}\n",
               (double) searched / (t1 - t0), (double) iterations / (t1 - t0), threads, sleep_us, chunk_records, t1 - t0);
        return 0;
}
