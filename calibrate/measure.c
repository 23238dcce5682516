/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The wakeup ping-pong and the timer lateness loop (see measure.h).
 *
 * Busy-waiting reads the clock in a tight loop without PAUSE: in a KVM
 * guest a PAUSE loop triggers pause-loop exits, which would let the host
 * deschedule the partner and put its idleness back into the measurement. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "measure.h"

#define NSEC_PER_USEC 1000ull
#define NSEC_PER_SEC 1000000000ull
#define ACK_TIMEOUT_NS NSEC_PER_SEC

static uint64_t now_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * NSEC_PER_SEC + (uint64_t) ts.tv_nsec;
}

/* Pins the calling thread to cpu.  Returns 0 or -EINVAL. */
static int pin_self(unsigned cpu) {
        size_t size = CPU_ALLOC_SIZE(cpu + 1);
        cpu_set_t *set = CPU_ALLOC(cpu + 1);
        int r;

        if (!set)
                return -ENOMEM;
        CPU_ZERO_S(size, set);
        CPU_SET_S(cpu, size, set);
        r = pthread_setaffinity_np(pthread_self(), size, set);
        CPU_FREE(set);
        if (r != 0)
                return -EINVAL;
        return sched_getcpu() == (int) cpu ? 0 : -EINVAL;
}

static int compare_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

/* The nearest-rank percentile p (0..100) of sorted ns[0..n-1], in µs. */
static double percentile_us(const uint64_t *ns, unsigned n, unsigned p) {
        uint64_t rank = ((uint64_t) p * n + 99) / 100;

        return (double) ns[rank > 0 ? rank - 1 : 0] / NSEC_PER_USEC;
}

void measure_stats(uint64_t *ns, unsigned n, MeasureStats *ret) {
        double sum = 0;

        qsort(ns, n, sizeof(uint64_t), compare_u64);
        for (unsigned i = 0; i < n; i++)
                sum += (double) ns[i];
        *ret = (MeasureStats) {
                .n = n,
                .min_us = (double) ns[0] / NSEC_PER_USEC,
                .median_us = percentile_us(ns, n, 50),
                .p90_us = percentile_us(ns, n, 90),
                .p99_us = percentile_us(ns, n, 99),
                .max_us = (double) ns[n - 1] / NSEC_PER_USEC,
                .mean_us = sum / n / NSEC_PER_USEC,
        };
}

/* ---- wakeup ping-pong ---------------------------------------------------- */

typedef struct PingPong {
        int fds[2];
        unsigned cpu, partner, total, gap_us;
        uint64_t *samples;
        bool *slept;                     /* the waiter blocked for sample i */
        _Atomic uint64_t sent_ns;
        _Atomic uint64_t block_ns;       /* when the waiter last called read() */
        _Atomic unsigned armed;          /* samples the waiter has blocked (or is about to block) for */
        _Atomic unsigned acked;          /* samples the waiter has taken */
        _Atomic int error;               /* first failure of either thread */
} PingPong;

static void pingpong_fail(PingPong *p, int error) {
        int expected = 0;

        (void) atomic_compare_exchange_strong(&p->error, &expected, error);
}

/* The calling thread's voluntary context switches so far: it grows when
 * the thread blocks, not when read() finds the byte already there. */
static long voluntary_switches(void) {
        struct rusage ru;

        return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nvcsw : 0;
}

static void *waiter_main(void *arg) {
        PingPong *p = arg;
        int r = pin_self(p->cpu);

        if (r < 0) {
                pingpong_fail(p, r);
                return NULL;
        }
        for (unsigned i = 0; i < p->total; i++) {
                long switches = voluntary_switches();
                ssize_t k;
                char b;

                atomic_store(&p->block_ns, now_ns());
                atomic_store(&p->armed, i + 1);
                do
                        k = read(p->fds[0], &b, 1);
                while (k < 0 && errno == EINTR);
                uint64_t t = now_ns();
                if (k != 1) {
                        pingpong_fail(p, k < 0 ? -errno : -EPIPE);
                        return NULL;
                }
                p->slept[i] = voluntary_switches() > switches;
                p->samples[i] = t - atomic_load(&p->sent_ns);
                atomic_store(&p->acked, i + 1);
        }
        return NULL;
}

/* Busy-waits until *counter reaches n.  Returns 0, the waiter's error or
 * -ETIMEDOUT. */
static int wait_count(PingPong *p, _Atomic unsigned *counter, unsigned n) {
        uint64_t deadline = now_ns() + ACK_TIMEOUT_NS;

        while (atomic_load(counter) < n) {
                int r = atomic_load(&p->error);

                if (r < 0)
                        return r;
                if (now_ns() > deadline)
                        return -ETIMEDOUT;
        }
        return 0;
}

/* Sample i: waits until the waiter is about to block for it, busy-waits
 * until gap_us after that, then writes.  Returns 0 or a negative errno. */
static int sender_send(PingPong *p, unsigned i) {
        uint64_t end;
        ssize_t k;
        int r;

        r = wait_count(p, &p->armed, i + 1);
        if (r < 0)
                return r;
        end = atomic_load(&p->block_ns) + p->gap_us * NSEC_PER_USEC;
        while (now_ns() < end)
                ;
        atomic_store(&p->sent_ns, now_ns());
        do
                k = write(p->fds[1], "x", 1);
        while (k < 0 && errno == EINTR);
        if (k != 1)
                return k < 0 ? -errno : -EIO;
        return 0;
}

static void *sender_main(void *arg) {
        PingPong *p = arg;
        int r = pin_self(p->partner);

        for (unsigned i = 0; r >= 0 && i < p->total; i++)
                r = sender_send(p, i);
        if (r >= 0)
                r = wait_count(p, &p->acked, p->total);
        if (r < 0)
                pingpong_fail(p, r);
        return NULL;
}

/* Runs both threads; closes the write end once the sender is done, so a
 * waiter left in read() sees EOF.  Returns 0 or a negative errno. */
static int pingpong_run(PingPong *p) {
        pthread_t waiter, sender;
        int r;

        r = pthread_create(&waiter, NULL, waiter_main, p);
        if (r != 0)
                return -r;
        r = pthread_create(&sender, NULL, sender_main, p);
        if (r != 0)
                pingpong_fail(p, -r);
        else
                (void) pthread_join(sender, NULL);
        (void) close(p->fds[1]);
        p->fds[1] = -1;
        (void) pthread_join(waiter, NULL);
        return atomic_load(&p->error);
}

int measure_wakeup_samples(unsigned cpu, unsigned partner, unsigned n, unsigned gap_us, uint64_t *ret_ns,
                           bool *ret_slept) {
        PingPong p = { .cpu = cpu, .partner = partner, .total = n + MEASURE_WARMUP, .gap_us = gap_us };
        _cleanup_free_ uint64_t *samples = NULL;
        _cleanup_free_ bool *slept = NULL;
        int r;

        if (n == 0 || cpu == partner)
                return -EINVAL;
        p.samples = samples = calloc(p.total, sizeof(uint64_t));
        p.slept = slept = calloc(p.total, sizeof(bool));
        if (!samples || !slept)
                return -ENOMEM;
        if (pipe2(p.fds, O_CLOEXEC) < 0)
                return -errno;
        r = pingpong_run(&p);
        (void) close(p.fds[0]);
        if (r < 0)
                return r;
        memcpy(ret_ns, samples + MEASURE_WARMUP, n * sizeof(uint64_t));
        memcpy(ret_slept, slept + MEASURE_WARMUP, n * sizeof(bool));
        return 0;
}

int measure_wakeup(unsigned cpu, unsigned partner, unsigned n, unsigned gap_us, MeasureStats *ret) {
        _cleanup_free_ uint64_t *ns = calloc(n, sizeof(uint64_t));
        _cleanup_free_ bool *slept = calloc(n, sizeof(bool));
        int r;

        if (n == 0)
                return -EINVAL;
        if (!ns || !slept)
                return -ENOMEM;
        r = measure_wakeup_samples(cpu, partner, n, gap_us, ns, slept);
        if (r == 0)
                measure_stats(ns, n, ret);
        return r;
}

/* ---- timer lateness ------------------------------------------------------ */

typedef struct TimerRun {
        unsigned cpu, total;
        uint64_t *samples;
        int error;
} TimerRun;

/* Sleeps until target (CLOCK_MONOTONIC ns).  Returns 0 or a negative errno. */
static int sleep_until(uint64_t target) {
        struct timespec ts = { .tv_sec = (time_t) (target / NSEC_PER_SEC), .tv_nsec = (long) (target % NSEC_PER_SEC) };
        int r;

        do
                r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        while (r == EINTR);
        return -r;
}

static void *timer_main(void *arg) {
        TimerRun *t = arg;
        unsigned span = MEASURE_TIMER_MAX_US - MEASURE_TIMER_MIN_US + 1;

        t->error = pin_self(t->cpu);
        if (t->error < 0)
                return NULL;
        /* The default slack (50 µs) would be measured instead of the wakeup. */
        (void) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
        for (unsigned i = 0; i < t->total; i++) {
                uint64_t sleep_us = MEASURE_TIMER_MIN_US + (i * 7919u) % span;
                uint64_t target = now_ns() + sleep_us * NSEC_PER_USEC, woke;

                t->error = sleep_until(target);
                if (t->error < 0)
                        return NULL;
                woke = now_ns();
                t->samples[i] = woke > target ? woke - target : 0;
        }
        return NULL;
}

int measure_timer(unsigned cpu, unsigned n, MeasureStats *ret) {
        TimerRun t = { .cpu = cpu, .total = n + MEASURE_WARMUP };
        pthread_t thread;
        int r;

        if (n == 0)
                return -EINVAL;
        t.samples = calloc(t.total, sizeof(uint64_t));
        if (!t.samples)
                return -ENOMEM;
        r = pthread_create(&thread, NULL, timer_main, &t);
        if (r == 0) {
                (void) pthread_join(thread, NULL);
                r = t.error;
        } else
                r = -r;
        if (r == 0)
                measure_stats(t.samples + MEASURE_WARMUP, n, ret);
        free(t.samples);
        return r;
}
