/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/proc-events: what an exec costs the daemon (issue 12: "µs per
 * event, at 1000 execs/s").
 *
 * A listener thread runs the daemon's ProcEvents source (daemon/
 * proc-events.c, the real one, every callback set) on its own sd-event
 * loop and counts what arrives, while the main thread spawns /bin/true
 * (posix_spawn) at --rate per second for --seconds and reaps them.  The
 * listener's CPU time (CLOCK_THREAD_CPUTIME_ID: its recvmmsg, parsing,
 * callbacks and epoll_wait, kernel time included) is divided by the events
 * it saw.  Each wakeup's dispatch is timed on the wall clock (preemption
 * included), and that time divided by the wakeup's events gives the
 * handling time of each of its events: median and p99 over events.  The
 * socket sees the whole machine, so events of other processes count too;
 * own_execs_seen says how many of the spawned execs arrived.  The kernel's
 * cost of building and multicasting an event is charged to the exec'ing
 * process, not measured here.  Prints one JSON object (and writes it to
 * --out).  Exit 77 where the kernel refuses to let it listen (outside the
 * initial namespaces; without CAP_NET_ADMIN before Linux 6.6).
 *
 * Usage: proc-events [--seconds N] [--rate N] [--buffer BYTES] [--out FILE] */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc-events.h"

extern char **environ;

typedef struct Sample {
        double ns;                     /* dispatch wall time of one wakeup */
        unsigned events;
} Sample;

typedef struct Listener {
        size_t buffer;                 /* 0: the default */
        int stop_fd;                   /* eventfd: the spawner is done */
        int ready_fd;                  /* eventfd: listening (1) or failed (2) */
        int error;
        uint64_t exec_events, exit_events, comm_events, overruns;
        pid_t *exec_tgids;             /* every exec's tgid, up to cap */
        size_t n_exec_tgids, cap;
        Sample *samples;
        size_t n_samples;
        double cpu_ns;
} Listener;

static uint64_t clock_ns(clockid_t id) {
        struct timespec ts;

        clock_gettime(id, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void on_exec(pid_t pid, pid_t tgid, void *userdata) {
        Listener *l = userdata;

        l->exec_events++;
        if (l->n_exec_tgids < l->cap)
                l->exec_tgids[l->n_exec_tgids++] = tgid;
}

static void on_exit_event(pid_t pid, pid_t tgid, int code, void *userdata) {
        ((Listener *) userdata)->exit_events++;
}

static void on_comm(pid_t pid, pid_t tgid, const char *comm, void *userdata) {
        ((Listener *) userdata)->comm_events++;
}

static void on_overrun(void *userdata) {
        ((Listener *) userdata)->overruns++;
}

static int on_stop(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

static void signal_fd(int fd, uint64_t v) {
        if (write(fd, &v, sizeof(v)) != sizeof(v))
                abort();
}

static uint64_t events_of(const Listener *l) {
        return l->exec_events + l->exit_events + l->comm_events;
}

/* The listener's loop, each dispatch timed.  Returns 0 or a negative errno. */
static int listen_loop(Listener *l, sd_event *e) {
        uint64_t cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

        while (sd_event_get_state(e) != SD_EVENT_FINISHED) {
                int r = sd_event_prepare(e);
                uint64_t t0, before;

                if (r == 0)
                        r = sd_event_wait(e, UINT64_MAX);
                if (r < 0)
                        return r;
                if (r == 0)
                        continue;
                before = events_of(l);
                t0 = clock_ns(CLOCK_MONOTONIC);
                r = sd_event_dispatch(e);
                if (r < 0)
                        return r;
                if (events_of(l) > before && l->n_samples < l->cap)
                        l->samples[l->n_samples++] = (Sample) {
                                .ns = (double) (clock_ns(CLOCK_MONOTONIC) - t0),
                                .events = (unsigned) (events_of(l) - before),
                        };
        }
        l->cpu_ns = (double) (clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0);
        return 0;
}

static void *listener_main(void *arg) {
        static const ProcEventsCallbacks cb = {
                .on_exec = on_exec, .on_exit = on_exit_event, .on_comm = on_comm, .on_overrun = on_overrun,
        };
        Listener *l = arg;
        ProcEvents *p = NULL;
        sd_event *e = NULL;
        int r;

        (void) pthread_setname_np(pthread_self(), "pe-listener");      /* for perf --comm */
        r = sd_event_new(&e);
        if (r >= 0)
                r = proc_events_new(e, &cb, l, &p);
        if (r >= 0 && l->buffer > 0)
                r = proc_events_set_buffer_size(p, l->buffer);
        if (r >= 0)
                r = sd_event_add_io(e, NULL, l->stop_fd, EPOLLIN, on_stop, l);
        signal_fd(l->ready_fd, r < 0 ? 2 : 1);
        if (r >= 0)
                r = listen_loop(l, e);
        l->error = r < 0 ? r : 0;
        proc_events_free(p);
        sd_event_unref(e);
        return NULL;
}

static int compare_pid(const void *a, const void *b) {
        pid_t x = *(const pid_t *) a, y = *(const pid_t *) b;

        return (x > y) - (x < y);
}

static int compare_per_event(const void *a, const void *b) {
        const Sample *x = a, *y = b;
        double u = x->ns / x->events, v = y->ns / y->events;

        return (u > v) - (u < v);
}

/* The per-event handling time at quantile q over events (each event
 * weighs its wakeup's time / events), in µs; samples sorted by it. */
static double quantile_per_event(const Sample *s, size_t n, uint64_t total, double q) {
        uint64_t want = (uint64_t) (q * (double) total), seen = 0;

        for (size_t i = 0; i < n; i++) {
                seen += s[i].events;
                if (seen > want)
                        return s[i].ns / s[i].events / 1000.0;
        }
        return n ? s[n - 1].ns / s[n - 1].events / 1000.0 : 0;
}

static int compare_ns(const void *a, const void *b) {
        double u = ((const Sample *) a)->ns, v = ((const Sample *) b)->ns;

        return (u > v) - (u < v);
}

/* Spawns /bin/true rate times a second for seconds, reaping as it goes.
 * Returns how many were spawned; their PIDs in pids (of cap). */
static size_t spawn_storm(double seconds, double rate, pid_t *pids, size_t cap) {
        char *argv[] = { (char *) "/bin/true", NULL };
        uint64_t start = clock_ns(CLOCK_MONOTONIC), period = (uint64_t) (1e9 / rate);
        uint64_t end = start + (uint64_t) (seconds * 1e9);
        size_t n = 0;

        for (uint64_t next = start; next < end && n < cap; next += period) {
                struct timespec ts = { .tv_sec = (time_t) (next / 1000000000u), .tv_nsec = (long) (next % 1000000000u) };

                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                        ;
                if (posix_spawn(&pids[n], argv[0], NULL, NULL, argv, environ) == 0)
                        n++;
                while (waitpid(-1, NULL, WNOHANG) > 0)
                        ;
        }
        while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
                ;
        return n;
}

/* Counts the PIDs of a (sorted) that are in b (sorted). */
static size_t count_common(const pid_t *a, size_t na, const pid_t *b, size_t nb) {
        size_t i = 0, j = 0, n = 0;

        while (i < na && j < nb) {
                if (a[i] < b[j])
                        i++;
                else if (a[i] > b[j])
                        j++;
                else
                        n++, i++, j++;
        }
        return n;
}

/* Returns the 1-minute load average, or -1. */
static double loadavg(void) {
        double a[1];

        return getloadavg(a, 1) == 1 ? a[0] : -1;
}

static void print_json(FILE *f, int argc, char **argv, double seconds, double rate, const Listener *l,
                       size_t execs, size_t own_seen, double load) {
        uint64_t events = events_of(l), in_samples = 0;
        Sample *by_ns = malloc((l->n_samples + 1) * sizeof(Sample));
        struct utsname u;

        for (size_t i = 0; i < l->n_samples; i++)
                in_samples += l->samples[i].events;
        memcpy(by_ns, l->samples, l->n_samples * sizeof(Sample));
        qsort(l->samples, l->n_samples, sizeof(Sample), compare_per_event);
        qsort(by_ns, l->n_samples, sizeof(Sample), compare_ns);
        (void) uname(&u);
        fprintf(f, "{\n  \"command\": \"");
        for (int i = 0; i < argc; i++)
                fprintf(f, "%s%s", i ? " " : "", argv[i]);
        fprintf(f, "\",\n  \"kernel\": \"%s\",\n  \"cpus\": %ld,\n  \"loadavg_1min_before\": %.2f,\n", u.release,
                sysconf(_SC_NPROCESSORS_ONLN), load);
        fprintf(f, "  \"seconds\": %.1f,\n  \"rate_target\": %.0f,\n  \"execs\": %zu,\n  \"rate_achieved\": %.1f,\n",
                seconds, rate, execs, (double) execs / seconds);
        fprintf(f, "  \"own_execs_seen\": %zu,\n  \"events_seen\": %" PRIu64 ",\n", own_seen, events);
        fprintf(f, "  \"exec_events\": %" PRIu64 ",\n  \"exit_events\": %" PRIu64 ",\n  \"comm_events\": %" PRIu64 ",\n",
                l->exec_events, l->exit_events, l->comm_events);
        fprintf(f, "  \"overruns\": %" PRIu64 ",\n  \"wakeups\": %zu,\n  \"events_per_wakeup\": %.2f,\n", l->overruns,
                l->n_samples, l->n_samples ? (double) in_samples / (double) l->n_samples : 0);
        fprintf(f, "  \"cpu_us_total\": %.0f,\n  \"cpu_us_per_event\": %.3f,\n  \"cpu_us_per_exec\": %.3f,\n",
                l->cpu_ns / 1000, events ? l->cpu_ns / 1000 / (double) events : 0,
                execs ? l->cpu_ns / 1000 / (double) execs : 0);
        fprintf(f, "  \"cpu_percent_of_one_cpu\": %.3f,\n", l->cpu_ns / (seconds * 1e9) * 100);
        fprintf(f, "  \"handling_us_median\": %.3f,\n  \"handling_us_p99\": %.3f,\n",
                quantile_per_event(l->samples, l->n_samples, in_samples, 0.5),
                quantile_per_event(l->samples, l->n_samples, in_samples, 0.99));
        fprintf(f, "  \"wakeup_us_median\": %.3f,\n  \"wakeup_us_p99\": %.3f,\n",
                l->n_samples ? by_ns[l->n_samples / 2].ns / 1000 : 0,
                l->n_samples ? by_ns[(size_t) ((double) l->n_samples * 0.99)].ns / 1000 : 0);
        fprintf(f, "  \"buffer_bytes\": %zu\n}\n", l->buffer ? l->buffer : PROC_EVENTS_BUFFER_DEFAULT);
        free(by_ns);
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "seconds", required_argument, NULL, 's' }, { "rate", required_argument, NULL, 'r' },
                { "buffer", required_argument, NULL, 'b' },  { "out", required_argument, NULL, 'o' },
                {},
        };
        double seconds = 10, rate = 1000, load;
        Listener l = {};
        const char *out = NULL;
        pthread_t thread;
        uint64_t ready;
        size_t execs, own_seen, cap;
        pid_t *pids;
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 's': seconds = atof(optarg); break;
                case 'r': rate = atof(optarg); break;
                case 'b': l.buffer = (size_t) atoll(optarg); break;
                case 'o': out = optarg; break;
                default:
                        fprintf(stderr, "Usage: %s [--seconds N] [--rate N] [--buffer BYTES] [--out FILE]\n", argv[0]);
                        return 2;
                }
        if (seconds <= 0 || rate <= 0)
                return fprintf(stderr, "--seconds and --rate must be positive\n"), 2;
        cap = (size_t) (seconds * rate * 4) + 100000;
        pids = calloc(cap, sizeof(pid_t));
        l.exec_tgids = calloc(cap, sizeof(pid_t));
        l.samples = calloc(cap, sizeof(Sample));
        l.cap = cap;
        l.stop_fd = eventfd(0, EFD_CLOEXEC);
        l.ready_fd = eventfd(0, EFD_CLOEXEC);
        if (!pids || !l.exec_tgids || !l.samples || l.stop_fd < 0 || l.ready_fd < 0)
                return fprintf(stderr, "Out of memory or descriptors.\n"), 1;
        if (pthread_create(&thread, NULL, listener_main, &l) != 0)
                return fprintf(stderr, "Failed to start the listener thread.\n"), 1;
        if (read(l.ready_fd, &ready, sizeof(ready)) != sizeof(ready) || ready != 1) {
                pthread_join(thread, NULL);
                fprintf(stderr, "Cannot listen to the proc connector: %s\n", strerror(-l.error));
                return l.error == -EPERM || l.error == -EOPNOTSUPP || l.error == -ETIMEDOUT ? 77 : 1;
        }
        load = loadavg();
        execs = spawn_storm(seconds, rate, pids, cap);
        usleep(200 * 1000);            /* the last events on their way */
        signal_fd(l.stop_fd, 1);
        pthread_join(thread, NULL);
        if (l.error < 0)
                return fprintf(stderr, "The listener failed: %s\n", strerror(-l.error)), 1;
        qsort(pids, execs, sizeof(pid_t), compare_pid);
        qsort(l.exec_tgids, l.n_exec_tgids, sizeof(pid_t), compare_pid);
        own_seen = count_common(pids, execs, l.exec_tgids, l.n_exec_tgids);
        print_json(stdout, argc, argv, seconds, rate, &l, execs, own_seen, load);
        if (out) {
                char *dir = strdup(out);
                FILE *f;

                if (dir)
                        (void) mkdir(dirname(dir), 0755);      /* build/bench/results */
                free(dir);
                f = fopen(out, "we");

                if (!f)
                        return fprintf(stderr, "Failed to open %s: %m\n", out), 1;
                print_json(f, argc, argv, seconds, rate, &l, execs, own_seen, load);
                fclose(f);
        }
        return 0;
}
