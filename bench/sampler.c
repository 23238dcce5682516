/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench/sampler: what one sampling tick costs.
 *
 * Builds fake trees of 64, 128, 256 and 1024 CPUs x 10 states (faketree.h)
 * in a temp dir and measures, with the library's real sampler:
 *   - ns_per_tick: the median of snapshot_take() (every counter of every
 *     CPU plus proc/stat and proc/interrupts), over many ticks;
 *   - ns_per_cpu_state: the median of cpuidle_sampler_read() alone, divided
 *     by CPUs x states;
 *   - rss_kb (VmRSS with the sampler alive) and fds (open descriptors);
 *   - cadence: cpuidle_sampler_read() with each sampler cadence
 *     (sampler-cadence.h), amortised over full and partial samples, with the
 *     counters moving between ticks (a fake tree advanced by one second, or
 *     the real machine left alone for --pace-ms) or not;
 * then the same on this machine's real /sys and /proc (read-only) when
 * readable, a least-squares line ns_per_tick = a + b * cpu_states over the
 * fake trees, and what one syscall, one pread() of a counter file and one
 * io_uring read of it cost on the real root ("io").  Prints one JSON
 * object.  The numbers are reported, never asserted.
 *
 * Usage: sampler [--ticks N] [--pace-ms N] [--real-root DIR] [--no-real] */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sysfs-paths.h"
#include "cpuidle.h"
#include "faketree.h"
#include "fileio.h"
#include "procstat.h"
#include "sampler-cadence.h"
#include "snapshot.h"
#include "topology.h"

#define N_TREES 4
#define STATES_PER_CPU 10
#define TICKS_DEFAULT 201
#define WARMUP_TICKS 3
#define PACE_MS_DEFAULT 20
#define IO_FILES_MAX 4096          /* files the io probe reads per tick, and its ring size */

static const unsigned tree_cpus[N_TREES] = { 64, 128, 256, 1024 };

/* The cadences measured: flags, and whether the counters move between
 * ticks (a fake tree advanced by 1 s, the real one left alone for pace). */
typedef struct CadenceMode {
        const char *name;
        unsigned flags;
        bool moving;
} CadenceMode;

static const CadenceMode cadence_modes[] = {
        { "full", 0, true },
        { "slow_tier", CPUIDLE_SAMPLER_SLOW_TIER, true },
        { "usage_gate", CPUIDLE_SAMPLER_USAGE_GATE, true },
        { "both", CPUIDLE_SAMPLER_SLOW_TIER | CPUIDLE_SAMPLER_USAGE_GATE, true },
        { "both_quiet", CPUIDLE_SAMPLER_SLOW_TIER | CPUIDLE_SAMPLER_USAGE_GATE, false },
};
#define N_CADENCE_MODES (sizeof(cadence_modes) / sizeof(cadence_modes[0]))

typedef struct CadenceResult {
        bool ok;
        double ns_per_tick;         /* amortised over full and partial samples */
        double files_per_tick;      /* mean */
} CadenceResult;

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
        CadenceResult cadence[N_CADENCE_MODES];
} Result;

/* The io probe on the real root. */
typedef struct IoResult {
        bool ok;
        char error[256];
        unsigned files;
        double getppid_ns;          /* one syscall that does nothing */
        double pread_ns;            /* per file, one pread() each */
        double uring_ns;            /* per file, one io_uring_enter() per tick */
        double uring_fixed_ns;      /* the same with registered files */
        char uring_error[128];      /* why io_uring could not be used */
} IoResult;

static unsigned pace_ms = PACE_MS_DEFAULT;

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

/* Lets the counters move before the next tick: a fake tree by one second
 * of activity, the real machine by sleeping pace_ms.  Returns 0 or a
 * negative errno. */
static int let_counters_move(int root_fd, bool fake) {
        struct timespec ts = { pace_ms / 1000, (long) (pace_ms % 1000) * 1000000L };

        if (fake)
                return faketree_advance(root_fd, 1000000);
        return nanosleep(&ts, NULL) < 0 ? -errno : 0;
}

/* Returns the median of the times of the ticks whose full flag is which,
 * or 0 if there are none (sorts a copy in scratch). */
static double median_where(const uint64_t *t, const bool *full, unsigned n, bool which, uint64_t *scratch) {
        unsigned k = 0;

        for (unsigned i = 0; i < n; i++)
                if (full[i] == which)
                        scratch[k++] = t[i];
        return k > 0 ? quantile(scratch, k, 0.5) : 0;
}

/* Times cpuidle_sampler_read() with mode's cadence; a tick that read as many
 * files as the most any tick read counts as full.  The cost per tick is the
 * median of the full ticks and that of the partial ones, weighted by how
 * many there were.  Returns 0 or a negative errno with e set. */
static int time_cadence(CpuidleSampler *sampler, int root_fd, bool fake, const CadenceMode *mode,
                        CpuidleCpuSample *raw, unsigned ticks, CadenceResult *res, ErrorInfo *e) {
        _cleanup_free_ uint64_t *t = calloc(ticks, sizeof(uint64_t));
        _cleanup_free_ uint64_t *scratch = calloc(ticks, sizeof(uint64_t));
        _cleanup_free_ unsigned *files = calloc(ticks, sizeof(unsigned));
        _cleanup_free_ bool *full = calloc(ticks, sizeof(bool));
        unsigned max_files = 0, n_full = 0;
        double sum_files = 0;
        int r;

        if (!t || !scratch || !files || !full)
                return -ENOMEM;
        r = cpuidle_sampler_set_cadence(sampler, mode->flags, CPUIDLE_SAMPLER_FULL_EVERY_DEFAULT);
        for (unsigned i = 0; r >= 0 && i < WARMUP_TICKS + ticks; i++) {
                uint64_t t0;

                if (mode->moving)
                        r = let_counters_move(root_fd, fake);
                if (r < 0)
                        return errinfo_set(e, r, "letting the counters move: %s", strerror(-r));
                t0 = now_ns();
                r = cpuidle_sampler_read(sampler, raw, e);
                if (r >= 0 && i >= WARMUP_TICKS) {
                        t[i - WARMUP_TICKS] = now_ns() - t0;
                        files[i - WARMUP_TICKS] = cpuidle_sampler_files_read(sampler);
                }
        }
        (void) cpuidle_sampler_set_cadence(sampler, 0, 1);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < ticks; i++)
                max_files = files[i] > max_files ? files[i] : max_files;
        for (unsigned i = 0; i < ticks; i++) {
                full[i] = files[i] == max_files;
                n_full += full[i];
                sum_files += files[i];
        }
        res->ns_per_tick = (median_where(t, full, ticks, true, scratch) * n_full +
                            median_where(t, full, ticks, false, scratch) * (ticks - n_full)) / ticks;
        res->files_per_tick = sum_files / ticks;
        res->ok = true;
        return 0;
}

/* Samples the tree at root (a directory) and fills res; fake: a fake tree
 * that may be advanced.  Returns 0 or a negative errno with res->error set. */
static int bench_root(const char *root, unsigned ticks, bool fake, Result *res) {
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
        for (unsigned i = 0; r >= 0 && i < N_CADENCE_MODES; i++)
                r = time_cadence(sampler, root_fd, fake, &cadence_modes[i], raw, ticks, &res->cadence[i], &e);
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

/* ---- io probe: the cost of one read, by pread() and by io_uring ---------- */

typedef struct Ring {
        int fd;
        unsigned entries;
        unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
        struct io_uring_sqe *sqes;
        struct io_uring_cqe *cqes;
        void *rings;
        size_t rings_size, sqes_size;
} Ring;

static void ring_done(Ring *r) {
        if (r->sqes)
                munmap(r->sqes, r->sqes_size);
        if (r->rings)
                munmap(r->rings, r->rings_size);
        fileio_closep(&r->fd);
}

/* Sets up a ring of entries SQEs with the raw syscalls (liburing is no
 * dependency of ours).  Returns 0 or a negative errno. */
static int ring_init(Ring *r, unsigned entries) {
        struct io_uring_params p = {};
        size_t sq_size, cq_size;
        char *base;

        *r = (Ring) { .fd = (int) syscall(__NR_io_uring_setup, entries, &p) };
        if (r->fd < 0)
                return -errno;
        if (!(p.features & IORING_FEAT_SINGLE_MMAP))
                return ring_done(r), -EOPNOTSUPP;       /* before 5.4: not worth it */
        sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
        cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
        r->rings_size = sq_size > cq_size ? sq_size : cq_size;
        r->sqes_size = p.sq_entries * sizeof(struct io_uring_sqe);
        r->rings = mmap(NULL, r->rings_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
                        IORING_OFF_SQ_RING);
        r->sqes = mmap(NULL, r->sqes_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
                       IORING_OFF_SQES);
        if (r->rings == MAP_FAILED || r->sqes == MAP_FAILED) {
                int error = -errno;

                r->rings = r->rings == MAP_FAILED ? NULL : r->rings;
                r->sqes = r->sqes == MAP_FAILED ? NULL : r->sqes;
                ring_done(r);
                return error;
        }
        base = r->rings;
        r->entries = p.sq_entries;
        r->sq_tail = (unsigned *) (base + p.sq_off.tail);
        r->sq_mask = (unsigned *) (base + p.sq_off.ring_mask);
        r->sq_array = (unsigned *) (base + p.sq_off.array);
        r->cq_head = (unsigned *) (base + p.cq_off.head);
        r->cq_tail = (unsigned *) (base + p.cq_off.tail);
        r->cq_mask = (unsigned *) (base + p.cq_off.ring_mask);
        r->cqes = (struct io_uring_cqe *) (base + p.cq_off.cqes);
        return 0;
}

/* Queues one IORING_OP_READ at offset 0 per file of fds[0 .. n-1] (n <=
 * r->entries), fixed: the index into the registered files. */
static void ring_queue_reads(Ring *r, const int *fds, unsigned first, unsigned n, bool fixed, char (*bufs)[32]) {
        unsigned tail = *r->sq_tail;

        for (unsigned j = 0; j < n; j++) {
                unsigned idx = (tail + j) & *r->sq_mask, i = first + j;

                r->sqes[idx] = (struct io_uring_sqe) {
                        .opcode = IORING_OP_READ, .flags = fixed ? IOSQE_FIXED_FILE : 0,
                        .fd = fixed ? (int) i : fds[i], .addr = (uintptr_t) bufs[i], .len = 31, .user_data = i,
                };
                r->sq_array[idx] = idx;
        }
        __atomic_store_n(r->sq_tail, tail + n, __ATOMIC_RELEASE);
}

/* Reads every file once, r->entries at a time: queue, one io_uring_enter()
 * to submit and wait for all, reap.  Returns 0 or a negative errno (a read
 * that failed included). */
static int ring_read_all(Ring *r, const int *fds, unsigned n, bool fixed, char (*bufs)[32]) {
        for (unsigned first = 0; first < n; first += r->entries) {
                unsigned chunk = n - first < r->entries ? n - first : r->entries, head, tail;
                long k;
                int error = 0;

                ring_queue_reads(r, fds, first, chunk, fixed, bufs);
                do
                        k = syscall(__NR_io_uring_enter, r->fd, chunk, chunk, IORING_ENTER_GETEVENTS, NULL, 0);
                while (k < 0 && errno == EINTR);
                if (k < 0)
                        return -errno;
                head = *r->cq_head;
                tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
                for (; head != tail; head++)
                        if (r->cqes[head & *r->cq_mask].res < 0)
                                error = r->cqes[head & *r->cq_mask].res;
                __atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
                if (error < 0)
                        return error;
        }
        return 0;
}

/* Opens the files the sampler reads (six counters per state, the resume
 * latency per CPU) under root_fd, up to IO_FILES_MAX.  Returns how many. */
static unsigned io_open_files(int root_fd, int *fds) {
        static const char *const names[] = { "usage", "time", "above", "below", "rejected", "disable" };
        char path[160];
        unsigned n = 0;

        for (unsigned cpu = 0; n + CPUIDLE_STATES_MAX * 6 + 1 <= IO_FILES_MAX; cpu++) {
                snprintf(path, sizeof(path), SYSFS_CPU_FMT, cpu);
                if (faccessat(root_fd, path, F_OK, 0) < 0)
                        break;
                for (unsigned k = 0; k < CPUIDLE_STATES_MAX; k++)
                        for (unsigned i = 0; i < 6; i++) {
                                snprintf(path, sizeof(path), SYSFS_CPU_STATE_FILE_FMT,
                                         cpu, k, names[i]);
                                int fd = fileio_open_at(root_fd, path);
                                if (fd >= 0)
                                        fds[n++] = fd;
                        }
                snprintf(path, sizeof(path), SYSFS_CPU_RESUME_LATENCY_FMT, cpu);
                int fd = fileio_open_at(root_fd, path);
                if (fd >= 0)
                        fds[n++] = fd;
        }
        return n;
}

/* Times ticks of: 100 getppid() (per call), one pread() per file, one ring
 * pass with plain and with registered fds (per file), interleaved so that
 * a busy machine slows them alike.  Returns 0 or a negative errno. */
static int io_time(Ring *ring, const int *fds, unsigned n, unsigned ticks, char (*bufs)[32], IoResult *io) {
        _cleanup_free_ uint64_t *v = calloc(4 * (size_t) ticks, sizeof(uint64_t));
        bool fixed_ok = ring->fd >= 0 && syscall(__NR_io_uring_register, ring->fd, IORING_REGISTER_FILES, fds, n) == 0;
        int r = 0;

        if (!v)
                return -ENOMEM;
        for (unsigned i = 0; i < ticks && r >= 0; i++) {
                uint64_t t0 = now_ns();

                for (unsigned j = 0; j < 100; j++)
                        (void) syscall(SYS_getppid);
                v[i] = (now_ns() - t0) / 100;
                t0 = now_ns();
                for (unsigned j = 0; j < n; j++)
                        if (pread(fds[j], bufs[j], 31, 0) < 0)
                                r = -errno;
                v[ticks + i] = now_ns() - t0;
                t0 = now_ns();
                if (r >= 0 && ring->fd >= 0)
                        r = ring_read_all(ring, fds, n, false, bufs);
                v[2 * ticks + i] = now_ns() - t0;
                t0 = now_ns();
                if (r >= 0 && fixed_ok)
                        r = ring_read_all(ring, fds, n, true, bufs);
                v[3 * ticks + i] = now_ns() - t0;
        }
        if (r < 0)
                return r;
        io->getppid_ns = quantile(v, ticks, 0.5);
        io->pread_ns = quantile(v + ticks, ticks, 0.5) / n;
        io->uring_ns = ring->fd >= 0 ? quantile(v + 2 * ticks, ticks, 0.5) / n : 0;
        io->uring_fixed_ns = fixed_ok ? quantile(v + 3 * ticks, ticks, 0.5) / n : 0;
        return 0;
}

/* Measures the io probe on root.  Fills io (io->error on failure). */
static void bench_io(const char *root, unsigned ticks, IoResult *io) {
        _cleanup_close_ int root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_free_ int *fds = calloc(IO_FILES_MAX, sizeof(int));
        _cleanup_free_ char (*bufs)[32] = calloc(IO_FILES_MAX, 32);
        Ring ring = { .fd = -1 };
        int r;

        if (root_fd < 0 || !fds || !bufs) {
                snprintf(io->error, sizeof(io->error), "%.200s: %s", root, strerror(root_fd < 0 ? errno : ENOMEM));
                return;
        }
        io->files = io_open_files(root_fd, fds);
        if (io->files == 0) {
                snprintf(io->error, sizeof(io->error), "%.200s: no cpuidle counter files", root);
                return;
        }
        r = ring_init(&ring, io->files < IO_FILES_MAX ? io->files : IO_FILES_MAX);
        if (r < 0)
                snprintf(io->uring_error, sizeof(io->uring_error), "io_uring_setup: %s", strerror(-r));
        r = io_time(&ring, fds, io->files, ticks, bufs, io);
        if (r < 0)
                snprintf(io->error, sizeof(io->error), "reading the counter files: %s", strerror(-r));
        io->ok = r >= 0;
        ring_done(&ring);
        for (unsigned i = 0; i < io->files; i++)
                close(fds[i]);
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
                r = bench_root(dir, ticks, true, res);
        nftw(dir, rm_entry, 64, FTW_DEPTH | FTW_PHYS);
        return r;
}

/* Prints "error": "message" with message escaped for JSON. */
static void print_error(const char *message) {
        printf("\"error\": \"");
        for (const char *p = message; *p; p++) {
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
        print_error(r->error);
        if (r->fd_limit > 0)
                printf(", \"fd_limit\": %ld", r->fd_limit);
        if (fds_per_cpu_state > 0)
                printf(", \"fds_needed_estimate\": %.0f", fds_per_cpu_state * x);
        if (linear_fit(all, n, &slope, &intercept, &r2) >= 2)
                printf(", \"ns_per_tick_extrapolated\": %.0f", intercept + slope * x);
        printf("}");
}

/* Prints the cadence results of r: per mode, the amortised cost and the
 * files read per CPU-state. */
static void print_cadence(const Result *r, bool fake, const char *indent) {
        printf("%s  \"cadence\": {\"full_every\": %u, \"moving\": \"", indent, CPUIDLE_SAMPLER_FULL_EVERY_DEFAULT);
        if (fake)
                printf("tree advanced by 1 s between ticks\"");
        else
                printf("%u ms sleep between ticks\"", pace_ms);
        for (unsigned i = 0; i < N_CADENCE_MODES; i++) {
                const CadenceResult *c = &r->cadence[i];

                if (!c->ok)
                        continue;
                printf(",\n%s    \"%s\": {\"ns_per_cpu_state\": %.1f, \"files_per_cpu_state\": %.2f, "
                       "\"ns_per_tick\": %.0f}", indent, cadence_modes[i].name, c->ns_per_tick / r->cpu_states,
                       c->files_per_tick / r->cpu_states, c->ns_per_tick);
        }
        printf("}\n");
}

static void print_result(const Result *r, bool fake, const char *indent) {
        printf("{\n%s  \"cpus\": %u, \"online\": %u, \"states\": %u, \"cpu_states\": %u, \"ticks\": %u,\n"
               "%s  \"ns_per_cpu_state\": %.1f, \"ns_per_tick\": %.0f, \"ns_per_tick_p90\": %.0f,\n"
               "%s  \"ns_sampler_read\": %.0f, \"rss_kb\": %ld, \"rss_delta_kb\": %ld, \"fds\": %d,\n",
               indent, r->cpus, r->online, r->online ? r->cpu_states / r->online : 0, r->cpu_states, r->ticks,
               indent, r->ns_per_cpu_state, r->ns_per_tick, r->ns_per_tick_p90,
               indent, r->ns_sampler_read, r->rss_kb, r->rss_delta_kb, r->fds);
        if (r->cpu_states > 0)
                print_cadence(r, fake, indent);
        printf("%s}", indent);
}

static void print_io(const IoResult *io) {
        if (!io->ok) {
                printf("{");
                print_error(io->error);
                printf("}");
                return;
        }
        printf("{\"files\": %u, \"getppid_ns\": %.0f, \"pread_ns_per_file\": %.0f", io->files, io->getppid_ns,
               io->pread_ns);
        if (io->uring_error[0]) {
                printf(", \"io_uring_error\": \"%s\"}", io->uring_error);
                return;
        }
        printf(", \"io_uring_ns_per_file\": %.0f, \"io_uring_fixed_ns_per_file\": ", io->uring_ns);
        if (io->uring_fixed_ns > 0)
                printf("%.0f}", io->uring_fixed_ns);
        else
                printf("null}");        /* IORING_REGISTER_FILES refused */
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
        fprintf(f, "Usage: sampler [--ticks N] [--pace-ms N] [--real-root DIR] [--no-real]\n"
                   "Prints the cost of one sampling tick on fake trees of 64, 128, 256 and 1024 CPUs x 10\n"
                   "states and on the real /sys and /proc, as one JSON object.\n");
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "ticks", required_argument, NULL, 't' },
                { "pace-ms", required_argument, NULL, 'p' },
                { "real-root", required_argument, NULL, 'r' },
                { "no-real", no_argument, NULL, 'n' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        unsigned ticks = TICKS_DEFAULT;
        const char *real_root = "/";
        Result fake[N_TREES] = {}, real = {};
        IoResult io = {};
        bool do_real = true;
        int c;

        while ((c = getopt_long(argc, argv, "t:p:r:nh", options, NULL)) >= 0)
                switch (c) {
                case 't': ticks = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'p': pace_ms = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'r': real_root = optarg; break;
                case 'n': do_real = false; break;
                case 'h': usage(stdout); return 0;
                default: usage(stderr); return 2;
                }
        if (ticks < 1 || ticks > 100000) {
                fprintf(stderr, "sampler: --ticks must be 1..100000\n");
                return 2;
        }
        if (pace_ms > 10000) {
                fprintf(stderr, "sampler: --pace-ms must be 0..10000\n");
                return 2;
        }
        raise_fd_limit();
        for (unsigned i = 0; i < N_TREES; i++)
                bench_fake_tree(tree_cpus[i], ticks, &fake[i]);
        if (do_real) {
                bench_root(real_root, ticks, false, &real);
                bench_io(real_root, ticks, &io);
        }

        printf("{\n  \"trees\": [\n");
        for (unsigned i = 0; i < N_TREES; i++) {
                printf("    ");
                if (fake[i].ok)
                        print_result(&fake[i], true, "    ");
                else
                        print_failed_tree(&fake[i], tree_cpus[i], fake, N_TREES);
                printf(i + 1 < N_TREES ? ",\n" : "\n");
        }
        printf("  ],\n  \"real\": ");
        if (!do_real)
                printf("null");
        else if (real.ok)
                print_result(&real, false, "  ");
        else {
                printf("{");
                print_error(real.error);
                printf("}");
        }
        printf(",\n  \"io\": ");
        if (do_real)
                print_io(&io);
        else
                printf("null");
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
