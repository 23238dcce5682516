/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idlepolicy-record: records real idle behaviour from tracefs into an idle
 * trace (idlepolicy-trace(5)) and leaves tracefs as it found it. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "build-config.h"
#include "cpuidle.h"
#include "fileio.h"
#include "ftrace-idle.h"
#include "kernel-count.h"
#include "record-setup.h"
#include "record-state.h"
#include "sysfs-paths.h"
#include "timer-track.h"
#include "topology.h"
#include "trace-format.h"
#include "tracefs.h"

#define POLL_NS 250000000L     /* drain the buffer four times a second */

typedef struct Options {
        double seconds;
        const char *output;
        const char *tracefs;
        unsigned buffer_kb;
        bool use_instance;
        bool restore;
        const char *check;
        const char *state_dir;
} Options;

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) {
        stop_signal = sig;
}

static void install_signals(void) {
        struct sigaction sa = { .sa_handler = on_signal };     /* no SA_RESTART: sleeps end */

        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
}

static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* ---- reading the stream ---------------------------------------------------- */

typedef struct LineBuf {
        char buf[1 << 16];
        size_t len;
} LineBuf;

/* Feeds the complete lines in lb, keeps the rest.  Returns 0 or -ENOMEM. */
static int feed_lines(LineBuf *lb, FtraceIdle *p) {
        char *start = lb->buf, *nl;
        int r = 0;

        while (r >= 0 && (nl = memchr(start, '\n', lb->len - (size_t) (start - lb->buf)))) {
                *nl = '\0';
                r = ftrace_idle_feed_line(p, start);
                start = nl + 1;
        }
        lb->len -= (size_t) (start - lb->buf);
        memmove(lb->buf, start, lb->len);
        if (lb->len == sizeof(lb->buf)) {       /* an absurdly long line: drop it */
                lb->len = 0;
        }
        return r;
}

/* Reads everything available from the non-blocking pipe.  Returns 0 or -errno. */
static int drain(int fd, LineBuf *lb, FtraceIdle *p) {
        for (;;) {
                ssize_t n = read(fd, lb->buf + lb->len, sizeof(lb->buf) - lb->len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return errno == EAGAIN ? 0 : -errno;
                if (n == 0)
                        return 0;
                lb->len += (size_t) n;
                int r = feed_lines(lb, p);
                if (r < 0)
                        return r;
        }
}

/* Streams trace_pipe into p until seconds passed or a signal came, reading
 * kc (NULL: none) right after tracing went on and right before it goes off.
 * Returns 0 or -errno; *ret_elapsed: the seconds recorded. */
static int stream(Tracefs *tf, FtraceIdle *p, double seconds, KernelCount *kc, double *ret_elapsed) {
        static LineBuf lb;
        _cleanup_close_ int fd = openat(tf->dir_fd, "trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        int r;

        if (fd < 0)
                return -errno;
        r = tracefs_set(tf, "tracing_on", "1");
        if (r >= 0 && kc)
                (void) kernel_count_read(kc);   /* best effort: the summary then says "-" */
        uint64_t start = now_ns(), end = start + (uint64_t) (seconds * 1e9);
        _cleanup_close_ int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_free_ char *timers = NULL;
        if (r >= 0 && root >= 0 && fileio_read_alloc_at(root, PROCFS_TIMER_LIST, &timers, NULL) >= 0)
                (void) ftrace_idle_seed_timers(p, timers);      /* best effort: sharper sleep lengths */
        for (uint64_t now = start; r >= 0 && !stop_signal && now < end; now = now_ns()) {
                r = drain(fd, &lb, p);
                uint64_t left = end - now < (uint64_t) POLL_NS ? end - now : (uint64_t) POLL_NS;
                struct timespec ts = { .tv_sec = 0, .tv_nsec = (long) left };
                if (r >= 0)
                        (void) nanosleep(&ts, NULL);
        }
        if (kc)
                (void) kernel_count_read(kc);
        *ret_elapsed = (double) (now_ns() - start) / 1e9;
        int k = tracefs_set(tf, "tracing_on", "0");
        if (r >= 0)
                r = drain(fd, &lb, p);
        return r < 0 ? r : k;
}

/* ---- the header ------------------------------------------------------------ */

/* Fills driver and states (from the first CPU that has a state table),
 * returns the number of CPUs in *ret_n_cpus and, with cpuidle, the
 * kernel's idle-entry count on the same counters in *ret_kc (left NULL
 * without cpuidle or memory: the summary then says "-").  Returns 0 or
 * -errno. */
static int load_header(TraceHeader *h, unsigned *ret_n_cpus, KernelCount **ret_kc, ErrorInfo *e) {
        _cleanup_close_ int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_topology_ Topology *topo = NULL;
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = NULL;
        CpuidleSystem sys;
        int r = root < 0 ? -errno : topology_load(root, &topo, e);

        if (r < 0)
                return r;
        *ret_n_cpus = topo->n_cpus;
        r = cpuidle_system_load(root, &sys, e);
        if (r == -ENOENT)
                return 0;       /* no cpuidle: driver "none", no states */
        if (r < 0)
                return r;
        snprintf(h->driver, sizeof(h->driver), "%s", sys.driver);
        r = cpuidle_sampler_new(root, topo, &s, e);
        if (r < 0)
                return r;
        for (unsigned c = 0; c < topo->n_cpus && h->n_states == 0; c++) {
                unsigned n;
                const CpuidleStateInfo *st = cpuidle_sampler_states(s, c, &n);
                for (unsigned i = 0; i < n && i < TRACE_STATES_MAX; i++) {
                        snprintf(h->states[i].name, sizeof(h->states[i].name), "%s", st[i].name);
                        h->states[i].exit_latency_us = (uint32_t) st[i].latency_us;
                        h->states[i].target_residency_us = (uint32_t) st[i].residency_us;
                        h->n_states++;
                }
        }
        if (kernel_count_new(s, topo->n_cpus, ret_kc) >= 0)
                s = NULL;       /* the count owns it now */
        return 0;
}

/* ---- output ------------------------------------------------------------------ */

static double pct(size_t part, size_t whole) {
        return whole ? 100.0 * (double) part / (double) whole : 0.0;
}

static void print_summary(const FtraceIdle *p, const Trace *t, const Tracefs *tf, const RecordSetupInfo *info,
                          const KernelCount *kc) {
        FtraceIdleTotals tot;
        uint64_t lost = 0;

        ftrace_idle_totals(p, &tot);
        fprintf(stderr, "Recorded %.1f s from %s%s%s: %llu lines, %llu events used, %llu unparsed; %u events enabled",
                t->header.seconds, tf->mount_path, tf->instance[0] ? "/instances/" : "", tf->instance,
                (unsigned long long) tot.lines, (unsigned long long) tot.events,
                (unsigned long long) tot.malformed, info->n_enabled);
        if (info->n_missing > 0)
                fprintf(stderr, " (not on this kernel: %s)", info->missing);
        fprintf(stderr, ".\n%-4s %-12s %9s %9s %8s %10s %8s %7s %7s\n", "CPU", "SOURCE", "INTERVALS", "KERNEL", "TIMER%",
                "PREDICTED%", "SLEEP%", "DROPPED", "LOST");
        for (unsigned c = 0; c < t->header.n_cpus; c++) {
                FtraceIdleCpuStats s;
                uint64_t n_kernel;
                char kernel[24] = "-";
                if (ftrace_idle_cpu_stats(p, c, &s) < 0)
                        continue;
                if (kernel_count_get(kc, c, &n_kernel))
                        snprintf(kernel, sizeof(kernel), "%llu", (unsigned long long) n_kernel);
                fprintf(stderr, "%-4u %-12s %9zu %9s %7.1f%% %9.1f%% %7.1f%% %7zu %7llu", c,
                        trace_source_to_string(s.source), s.n_intervals, kernel, pct(s.n_wake_timer, s.n_intervals),
                        pct(s.n_at_predicted, s.n_intervals), pct(s.n_sleep_known, s.n_intervals),
                        s.n_dropped, (unsigned long long) s.lost_events);
                lost += s.lost_events;
                if (s.source == TRACE_SOURCE_CPU_IDLE && s.n_irq_bounded > 0)
                        fprintf(stderr, "  (irq-bounded check: %.1f%% found, median error %+.1f us)",
                                pct(s.n_cross_found, s.n_cpu_idle), (double) s.cross_median_error_ns / 1000.0);
                fputc('\n', stderr);
        }
        fprintf(stderr, "KERNEL: idle entries the kernel counted while tracing was on; TIMER%%: woken by a timer interrupt; PREDICTED%%: ...within %llu us after the predicted "
                "timer; SLEEP%%: sleep length known.\n", TIMER_LAG_MAX_NS / 1000);
        if (lost > 0)
                fprintf(stderr, "The kernel lost %llu events (periods around them are left out): "
                        "use a larger --buffer-kb.\n", (unsigned long long) lost);
}

static int write_trace(const char *output, const Trace *t) {
        FILE *f = strcmp(output, "-") == 0 ? stdout : fopen(output, "we");
        int r;

        if (!f)
                return -errno;
        r = trace_write(f, t);
        if (f != stdout && fclose(f) != 0 && r == 0)
                r = -errno;
        return r;
}

/* ---- the modes ------------------------------------------------------------------ */

/* Undoes what a killed recorder left (state file present).  Returns 1 if
 * something was restored, 0 if there was nothing, or -errno. */
static int restore_leftover(const RecordState *st) {
        Tracefs tf = TRACEFS_NULL;
        long pid = 0;
        int r = record_state_load(st, &tf, &pid);

        if (r > 0) {
                fprintf(stderr, "Restoring tracefs as idlepolicy-record (pid %ld) left it: %zu settings%s%s.\n", pid,
                        tf.n_settings, tf.instance_created ? ", removing instance " : "", tf.instance_created ? tf.instance : "");
                r = tracefs_restore(&tf);
                if (r >= 0)
                        r = record_state_remove(st) < 0 ? -EIO : 1;
        }
        tracefs_done(&tf);
        return r;
}

static int lock_state(RecordState *st, const char *dir) {
        int r = record_state_lock(st, dir);

        if (r == -EBUSY)
                fprintf(stderr, "Another idlepolicy-record is running (lock %s/lock).\n", dir);
        else if (r < 0)
                fprintf(stderr, "Failed to lock %s: %s\n", dir, strerror(-r));
        return r;
}

static int do_restore(const Options *o) {
        RecordState st = RECORD_STATE_NULL;
        int r = lock_state(&st, o->state_dir);

        if (r < 0)
                return EXIT_FAILURE;
        r = restore_leftover(&st);
        record_state_unlock(&st);
        if (r < 0) {
                fprintf(stderr, "Failed to restore tracefs: %s\n", strerror(-r));
                return EXIT_FAILURE;
        }
        if (r == 0)
                fprintf(stderr, "Nothing to restore.\n");
        return EXIT_SUCCESS;
}

/* Sets tracefs up, records, restores.  Returns 0 or -errno (message printed). */
static int record_session(const Options *o, RecordState *st, FtraceIdle *p, KernelCount *kc, double *elapsed,
                          RecordSetupInfo *info, Tracefs *tf) {
        int r = tracefs_locate(tf, o->tracefs);
        if (r < 0) {
                fprintf(stderr, "Failed to find tracefs%s%s: %s\n", o->tracefs ? " at " : "", o->tracefs ? o->tracefs : "",
                        strerror(-r));
                return r;
        }
        r = tracefs_open(tf, o->use_instance);
        if (r == -EEXIST)
                fprintf(stderr, "%s/instances/%s exists and is not ours: remove it with rmdir.\n", tf->mount_path,
                        TRACEFS_INSTANCE_NAME);
        else if (r < 0)
                fprintf(stderr, "Failed to open the tracefs session directory: %s\n", strerror(-r));
        if (r >= 0) {
                r = record_setup(tf, o->buffer_kb, info);
                if (r < 0)
                        fprintf(stderr, "Failed to set up tracing%s%s: %s\n", info->missing[0] ? ", missing " : "",
                                info->missing[0] ? info->missing : "", strerror(-r));
        }
        if (r >= 0 && !stop_signal) {
                r = stream(tf, p, o->seconds, kc, elapsed);
                if (r < 0)
                        fprintf(stderr, "Failed to read the trace: %s\n", strerror(-r));
        }
        int k = tracefs_restore(tf);
        if (k < 0)
                fprintf(stderr, "Failed to restore tracefs, run idlepolicy-record --restore: %s\n", strerror(-k));
        else
                (void) record_state_remove(st);
        return r < 0 ? r : k;
}

static int do_record(const Options *o) {
        RecordState st = RECORD_STATE_NULL;
        Tracefs tf = TRACEFS_NULL;
        RecordSetupInfo info = { 0 };
        _cleanup_ftrace_idle_ FtraceIdle *p = NULL;
        _cleanup_trace_ Trace *t = NULL;
        _cleanup_kernel_count_ KernelCount *kc = NULL;
        ErrorInfo e = { "" };
        unsigned n_cpus = 0;
        double elapsed = 0;
        int r;

        if (lock_state(&st, o->state_dir) < 0)
                return EXIT_FAILURE;
        r = restore_leftover(&st);
        if (r >= 0)
                r = trace_new(0, &t);
        if (r >= 0 && (r = load_header(&t->header, &n_cpus, &kc, &e)) < 0)
                fprintf(stderr, "Failed to read the CPU and cpuidle tables: %s\n", e.message[0] ? e.message : strerror(-r));
        if (r >= 0)
                r = ftrace_idle_new(n_cpus, &p);
        if (r >= 0) {
                tf.journal = record_state_save;
                tf.userdata = &st;
                r = record_session(o, &st, p, kc, &elapsed, &info, &tf);
        }
        tracefs_done(&tf);
        record_state_unlock(&st);
        if (r >= 0) {
                t->header.seconds = elapsed;
                r = ftrace_idle_finish(p, t);
        }
        if (r >= 0 && (r = write_trace(o->output, t)) < 0)
                fprintf(stderr, "Failed to write %s: %s\n", o->output, strerror(-r));
        if (r < 0)
                return EXIT_FAILURE;
        if (stop_signal)
                fprintf(stderr, "Interrupted by SIG%s after %.1f s; the trace covers that time.\n", sigabbrev_np(stop_signal),
                        elapsed);
        print_summary(p, t, &tf, &info, kc);
        return EXIT_SUCCESS;
}

static int do_check(const char *path) {
        _cleanup_trace_ Trace *t = NULL;
        ErrorInfo e = { "" };
        FILE *f = fopen(path, "re");
        int r;

        if (!f) {
                fprintf(stderr, "Failed to open %s: %m\n", path);
                return EXIT_FAILURE;
        }
        r = trace_read(f, &t, &e);
        fclose(f);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", path, e.message[0] ? e.message : strerror(-r));
                return EXIT_FAILURE;
        }
        printf("%s: version %u, %.3f s, %u cpus, driver %s, %u states, %zu intervals\n", path, t->header.version,
               t->header.seconds, t->header.n_cpus, t->header.driver, t->header.n_states, t->n_intervals);
        for (unsigned c = 0; c < t->header.n_cpus; c++) {
                size_t n = 0, timer = 0;
                for (size_t i = 0; i < t->n_intervals; i++)
                        if (t->intervals[i].cpu == c) {
                                n++;
                                timer += t->intervals[i].wake == TRACE_WAKE_TIMER;
                        }
                printf("cpu %u: source %s, %zu intervals, %.1f%% timer wakes\n", c,
                       trace_source_to_string(t->header.sources[c]), n, pct(timer, n));
        }
        return EXIT_SUCCESS;
}

/* ---- command line ------------------------------------------------------------------ */

static void usage(FILE *f) {
        fputs("Usage: idlepolicy-record --seconds N --output FILE [--tracefs DIR] [--buffer-kb N] [--no-instance]\n"
              "       idlepolicy-record --restore\n"
              "       idlepolicy-record --check FILE\n\n"
              "Records per-CPU idle intervals from tracefs into an idle trace (idlepolicy-trace(5)).\n\n"
              "  -s, --seconds N      record for N seconds (SIGINT/SIGTERM end it early)\n"
              "  -o, --output FILE    the trace file to write (\"-\" for stdout)\n"
              "  -t, --tracefs DIR    tracefs mount point (default: /sys/kernel/tracing, then\n"
              "                       /sys/kernel/debug/tracing; mounted for the recording if absent)\n"
              "  -b, --buffer-kb N    ring buffer size per CPU in KiB (default 2048)\n"
              "      --no-instance    use the top-level buffer instead of a private instance\n"
              "      --restore        undo what a killed recorder left in tracefs\n"
              "      --check FILE     validate a trace file and summarise it\n"
              "      --state-dir DIR  journal directory (default " RECORD_STATE_DIR ")\n"
              "  -h, --help           show this help\n"
              "      --version        show the version\n", f);
}

static int parse_number(const char *s, double min, double max, double *ret) {
        char *end;

        errno = 0;
        double v = strtod(s, &end);
        if (errno != 0 || end == s || *end != '\0' || !(v >= min && v <= max))
                return -EINVAL;
        *ret = v;
        return 0;
}

/* Returns 0, 1 to exit successfully (help, version), -EINVAL on misuse. */
static int parse_args(int argc, char **argv, Options *o) {
        enum { ARG_NO_INSTANCE = 0x100, ARG_RESTORE, ARG_CHECK, ARG_STATE_DIR, ARG_VERSION };
        static const struct option longopts[] = {
                { "seconds", required_argument, NULL, 's' },  { "output", required_argument, NULL, 'o' },
                { "tracefs", required_argument, NULL, 't' },  { "buffer-kb", required_argument, NULL, 'b' },
                { "no-instance", no_argument, NULL, ARG_NO_INSTANCE }, { "restore", no_argument, NULL, ARG_RESTORE },
                { "check", required_argument, NULL, ARG_CHECK }, { "state-dir", required_argument, NULL, ARG_STATE_DIR },
                { "help", no_argument, NULL, 'h' },           { "version", no_argument, NULL, ARG_VERSION },
                {}
        };
        double v;
        int c;

        while ((c = getopt_long(argc, argv, "s:o:t:b:h", longopts, NULL)) >= 0)
                switch (c) {
                case 's':
                        if (parse_number(optarg, 0.001, 86400, &o->seconds) < 0)
                                return -EINVAL;
                        break;
                case 'o': o->output = optarg; break;
                case 't': o->tracefs = optarg; break;
                case 'b':
                        if (parse_number(optarg, 4, 1 << 20, &v) < 0)
                                return -EINVAL;
                        o->buffer_kb = (unsigned) v;
                        break;
                case ARG_NO_INSTANCE: o->use_instance = false; break;
                case ARG_RESTORE: o->restore = true; break;
                case ARG_CHECK: o->check = optarg; break;
                case ARG_STATE_DIR: o->state_dir = optarg; break;
                case 'h': usage(stdout); return 1;
                case ARG_VERSION: puts("idlepolicy-record " PACKAGE_VERSION); return 1;
                default: return -EINVAL;
                }
        if (optind < argc || (!o->restore && !o->check && (o->seconds <= 0 || !o->output)))
                return -EINVAL;
        return 0;
}

int main(int argc, char **argv) {
        Options o = { .buffer_kb = 2048, .use_instance = true, .state_dir = RECORD_STATE_DIR };
        int r = parse_args(argc, argv, &o);

        if (r != 0) {
                if (r < 0)
                        usage(stderr);
                return r < 0 ? 2 : EXIT_SUCCESS;
        }
        if (o.check)
                return do_check(o.check);
        if (geteuid() != 0) {
                fprintf(stderr, "idlepolicy-record must run as root (it changes tracefs).\n");
                return EXIT_FAILURE;
        }
        install_signals();
        return o.restore ? do_restore(&o) : do_record(&o);
}
