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
#include "import.h"
#include "kernel-count.h"
#include "line-feed.h"
#include "progress.h"
#include "record-output.h"
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
        const char *save_raw;
        ImportOptions import;
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
        return progress_now_ns();
}

/* ---- reading the stream ---------------------------------------------------- */

/* Reads everything available from the non-blocking pipe into lf.  Returns
 * 0 or -errno. */
static int drain(int fd, LineFeed *lf) {
        static char buf[1 << 16];

        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return errno == EAGAIN ? 0 : -errno;
                if (n == 0)
                        return 0;
                int r = line_feed_push(lf, buf, (size_t) n);
                if (r < 0)
                        return r;
        }
}

static void show_progress(Progress *pr, const LineFeed *lf, uint64_t start, double seconds) {
        FtraceIdleTotals tot;

        if (!progress_due(pr, now_ns()))
                return;
        ftrace_idle_totals(lf->idle, &tot);
        progress_show(pr, "Recording: %.1f of %.1f s, %llu events, %llu lost", (double) (now_ns() - start) / 1e9, seconds,
                      (unsigned long long) tot.events, (unsigned long long) tot.lost);
}

/* Streams trace_pipe into lf until seconds passed or a signal came, reading
 * kc (NULL: none) right after tracing went on and right before it goes off.
 * Returns 0 or -errno; *ret_elapsed: the seconds recorded. */
static int stream(Tracefs *tf, LineFeed *lf, double seconds, KernelCount *kc, double *ret_elapsed) {
        _cleanup_close_ int fd = openat(tf->dir_fd, "trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        Progress pr;
        int r;

        if (fd < 0)
                return -errno;
        r = tracefs_set(tf, "tracing_on", "1");
        if (r >= 0 && kc)
                (void) kernel_count_read(kc);   /* best effort: the summary then says "-" */
        uint64_t start = now_ns(), end = start + (uint64_t) (seconds * 1e9);
        progress_init(&pr, stderr, start);
        _cleanup_close_ int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_free_ char *timers = NULL;
        if (r >= 0 && root >= 0 && fileio_read_alloc_at(root, PROCFS_TIMER_LIST, &timers, NULL) >= 0 &&
            line_feed_seed_timers(lf, timers) == -EIO)  /* best effort: sharper sleep lengths */
                r = -EIO;
        for (uint64_t now = start; r >= 0 && !stop_signal && now < end; now = now_ns()) {
                r = drain(fd, lf);
                show_progress(&pr, lf, start, seconds);
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
                r = drain(fd, lf);
        progress_end(&pr);
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

static void print_summary(const FtraceIdle *p, const Trace *t, const Tracefs *tf, const RecordSetupInfo *info,
                          const KernelCount *kc) {
        FtraceIdleTotals tot;

        ftrace_idle_totals(p, &tot);
        fprintf(stderr, "Recorded %.1f s from %s%s%s: %llu lines, %llu events used, %llu unparsed; %u events enabled",
                t->header.seconds, tf->mount_path, tf->instance[0] ? "/instances/" : "", tf->instance,
                (unsigned long long) tot.lines, (unsigned long long) tot.events,
                (unsigned long long) tot.malformed, info->n_enabled);
        if (info->n_missing > 0)
                fprintf(stderr, " (not on this kernel: %s)", info->missing);
        fputs(".\n", stderr);
        record_output_cpu_table(p, t, kc);
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
static int record_session(const Options *o, RecordState *st, LineFeed *lf, KernelCount *kc, double *elapsed,
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
                r = stream(tf, lf, o->seconds, kc, elapsed);
                if (r == -EIO && lf->tee)
                        fprintf(stderr, "Failed to write %s: %s\n", o->save_raw, strerror(EIO));
                else if (r < 0)
                        fprintf(stderr, "Failed to read the trace: %s\n", strerror(-r));
        }
        int k = tracefs_restore(tf);
        if (k < 0)
                fprintf(stderr, "Failed to restore tracefs, run idlepolicy-record --restore: %s\n", strerror(-k));
        else
                (void) record_state_remove(st);
        return r < 0 ? r : k;
}

/* Opens --save-raw's file (NULL without it) and writes its first line.
 * Returns 0 or -errno (message printed). */
static int open_raw(const Options *o, LineFeed *lf, unsigned n_cpus) {
        if (!o->save_raw)
                return 0;
        lf->tee = fopen(o->save_raw, "we");
        int r = lf->tee ? line_feed_tee_header(lf, n_cpus) : -errno;
        if (r < 0)
                fprintf(stderr, "Failed to write %s: %s\n", o->save_raw, strerror(-r));
        return r;
}

/* Closes --save-raw's file.  Returns 0 or -errno (message printed). */
static int close_raw(const Options *o, LineFeed *lf) {
        if (!lf->tee)
                return 0;
        int r = fclose(lf->tee) == 0 ? 0 : -errno;
        lf->tee = NULL;
        if (r < 0)
                fprintf(stderr, "Failed to write %s: %s\n", o->save_raw, strerror(-r));
        return r;
}

static int do_record(const Options *o) {
        RecordState st = RECORD_STATE_NULL;
        Tracefs tf = TRACEFS_NULL;
        RecordSetupInfo info = { 0 };
        _cleanup_ftrace_idle_ FtraceIdle *p = NULL;
        _cleanup_trace_ Trace *t = NULL;
        _cleanup_kernel_count_ KernelCount *kc = NULL;
        _cleanup_free_ LineFeed *lf = calloc(1, sizeof(LineFeed));
        ErrorInfo e = { "" };
        unsigned n_cpus = 0;
        double elapsed = 0;
        int r;

        if (!lf || lock_state(&st, o->state_dir) < 0)
                return EXIT_FAILURE;
        r = restore_leftover(&st);
        if (r >= 0)
                r = trace_new(0, &t);
        if (r >= 0 && (r = load_header(&t->header, &n_cpus, &kc, &e)) < 0)
                fprintf(stderr, "Failed to read the CPU and cpuidle tables: %s\n", e.message[0] ? e.message : strerror(-r));
        if (r >= 0)
                r = ftrace_idle_new(n_cpus, &p);
        if (r >= 0) {
                *lf = (LineFeed) LINE_FEED_INIT(p, NULL);
                r = open_raw(o, lf, n_cpus);
        }
        if (r >= 0) {
                tf.journal = record_state_save;
                tf.userdata = &st;
                r = record_session(o, &st, lf, kc, &elapsed, &info, &tf);
        }
        int k = close_raw(o, lf);
        if (r >= 0)
                r = k;
        line_feed_done(lf);
        tracefs_done(&tf);
        record_state_unlock(&st);
        if (r >= 0) {
                t->header.seconds = elapsed;
                r = ftrace_idle_finish(p, t);
        }
        if (r >= 0 && (r = record_output_write(o->output, t)) < 0)
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
                       trace_source_to_string(t->header.sources[c]), n, record_output_pct(timer, n));
        }
        return EXIT_SUCCESS;
}

/* ---- command line ------------------------------------------------------------------ */

static void usage(FILE *f) {
        fputs("Usage: idlepolicy-record --seconds N --output FILE [--tracefs DIR] [--buffer-kb N] [--no-instance]\n"
              "                         [--save-raw FILE]\n"
              "       idlepolicy-record --from FILE --output FILE [--max-mb N]\n"
              "       idlepolicy-record --restore\n"
              "       idlepolicy-record --check FILE\n\n"
              "Records per-CPU idle intervals from tracefs, or converts saved ftrace text\n"
              "(tracefs trace/trace_pipe, trace-cmd report; gzip too), into an idle trace\n"
              "(idlepolicy-trace(5)).\n\n"
              "  -s, --seconds N      record for N seconds (SIGINT/SIGTERM end it early)\n"
              "  -o, --output FILE    the trace file to write (\"-\" for stdout)\n"
              "  -t, --tracefs DIR    tracefs mount point (default: /sys/kernel/tracing, then\n"
              "                       /sys/kernel/debug/tracing; mounted for the recording if absent)\n"
              "  -b, --buffer-kb N    ring buffer size per CPU in KiB (default 2048)\n"
              "      --no-instance    use the top-level buffer instead of a private instance\n"
              "      --save-raw FILE  also save the raw ftrace text read (for --from)\n"
              "  -f, --from FILE      convert saved ftrace text instead of recording (\"-\": stdin)\n"
              "      --max-mb N       refuse --from input of more than N MiB of text (default 4096)\n"
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
        enum { ARG_NO_INSTANCE = 0x100, ARG_RESTORE, ARG_CHECK, ARG_STATE_DIR, ARG_VERSION, ARG_SAVE_RAW, ARG_MAX_MB };
        static const struct option longopts[] = {
                { "seconds", required_argument, NULL, 's' },  { "output", required_argument, NULL, 'o' },
                { "tracefs", required_argument, NULL, 't' },  { "buffer-kb", required_argument, NULL, 'b' },
                { "no-instance", no_argument, NULL, ARG_NO_INSTANCE }, { "restore", no_argument, NULL, ARG_RESTORE },
                { "check", required_argument, NULL, ARG_CHECK }, { "state-dir", required_argument, NULL, ARG_STATE_DIR },
                { "help", no_argument, NULL, 'h' },           { "version", no_argument, NULL, ARG_VERSION },
                { "from", required_argument, NULL, 'f' },     { "save-raw", required_argument, NULL, ARG_SAVE_RAW },
                { "max-mb", required_argument, NULL, ARG_MAX_MB },
                {}
        };
        double v;
        int c;

        while ((c = getopt_long(argc, argv, "s:o:t:b:f:h", longopts, NULL)) >= 0)
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
                case 'f': o->import.from = optarg; break;
                case ARG_SAVE_RAW: o->save_raw = optarg; break;
                case ARG_MAX_MB:
                        if (parse_number(optarg, 1, 1 << 30, &v) < 0)
                                return -EINVAL;
                        o->import.max_bytes = (uint64_t) v << 20;
                        break;
                case 'h': usage(stdout); return 1;
                case ARG_VERSION: puts("idlepolicy-record " PACKAGE_VERSION); return 1;
                default: return -EINVAL;
                }
        if (optind < argc)
                return -EINVAL;
        if (o->import.from)     /* converting: no recording options */
                return o->output && o->seconds <= 0 && !o->save_raw && !o->restore && !o->check ? 0 : -EINVAL;
        if (!o->restore && !o->check && (o->seconds <= 0 || !o->output))
                return -EINVAL;
        o->import.output = o->output;
        return 0;
}

int main(int argc, char **argv) {
        Options o = { .buffer_kb = 2048, .use_instance = true, .state_dir = RECORD_STATE_DIR,
                      .import.max_bytes = (uint64_t) 4096 << 20 };
        int r = parse_args(argc, argv, &o);

        if (r != 0) {
                if (r < 0)
                        usage(stderr);
                return r < 0 ? 2 : EXIT_SUCCESS;
        }
        if (o.check)
                return do_check(o.check);
        install_signals();
        if (o.import.from) {
                o.import.output = o.output;
                return import_run(&o.import, &stop_signal);
        }
        if (geteuid() != 0) {
                fprintf(stderr, "idlepolicy-record must run as root (it changes tracefs).\n");
                return EXIT_FAILURE;
        }
        return o.restore ? do_restore(&o) : do_record(&o);
}
