/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cleanup.h"

#include "cpuset.h"
#include "faketree.h"
#include "fileio.h"
#include "latency-request.h"

#define CPU_DIR "sys/devices/system/cpu"
#define MODEL_FILE ".faketree"
#define STAT_COLUMNS 10             /* user nice system idle iowait irq softirq steal guest guest_nice */

enum { STAT_USER, STAT_NICE, STAT_SYSTEM, STAT_IDLE, STAT_IOWAIT, STAT_IRQ, STAT_SOFTIRQ };

/* The rows of the fake proc/interrupts, in the kernel's order. */
static const struct {
        const char *label, *desc;
} irq_rows[] = {
        { "0", "IO-APIC   2-edge      timer" }, { "24", "IO-APIC   5-edge      ACPI:Ged" },
        { "36", "PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0" },
        { "41", "PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx" },
        { "NMI", "Non-maskable interrupts" }, { "LOC", "Local timer interrupts" },
        { "SPU", "Spurious interrupts" }, { "RES", "Rescheduling interrupts" },
        { "CAL", "Function call interrupts" }, { "TLB", "TLB shootdowns" },
        { "HYP", "Hypervisor callback interrupts" },
};
enum { IRQ_DISK = 2, IRQ_NET = 3, IRQ_LOC = 5, IRQ_RES = 7, IRQ_CAL = 8, N_IRQ_ROWS = 11 };
_Static_assert(sizeof(irq_rows) / sizeof(irq_rows[0]) == N_IRQ_ROWS, "irq table");

/* What the tree was made with, and the per-CPU proc counters. */
typedef struct Model {
        unsigned n_cpus;
        unsigned n_states;          /* 0: the default table */
        unsigned threads_per_core;
        bool old_kernel;
        uint64_t elapsed_usec;      /* simulated time so far */
        uint64_t clock_usec;        /* the caller's clock at the last faketree_tick_at(), 0: never */
        uint64_t (*stat)[STAT_COLUMNS];
        uint64_t (*irq)[N_IRQ_ROWS];
} Model;

static void model_done(Model *m) {
        free(m->stat);
        free(m->irq);
}
#define _cleanup_model_ _cleanup_(model_done)

/* ---- file helpers --------------------------------------------------------- */

/* Refuses a root that is the real one or holds a real sysfs/procfs. */
static int check_fake_root(int root_fd) {
        struct stat a, b;
        struct statfs fs;

        if (fstat(root_fd, &a) < 0 || stat("/", &b) < 0)
                return -errno;
        if (a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                return -EPERM;
        for (int i = 0; i < 2; i++) {
                _cleanup_close_ int fd = openat(root_fd, i ? "proc" : "sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fd >= 0 && fstatfs(fd, &fs) == 0 && (fs.f_type == SYSFS_MAGIC || fs.f_type == PROC_SUPER_MAGIC))
                        return -EPERM;
        }
        return 0;
}

/* Creates the parent directories of path under root_fd. */
static int mkdir_parents(int root_fd, const char *path) {
        char buf[512];

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *p = strchr(buf, '/'); p; p = strchr(p + 1, '/')) {
                *p = '\0';
                if (mkdirat(root_fd, buf, 0755) < 0 && errno != EEXIST)
                        return -errno;
                *p = '/';
        }
        return 0;
}

/* Writes len bytes to root_fd/path in place: same inode, new content. */
static int write_in_place(int root_fd, const char *path, const char *buf, size_t len) {
        int r = mkdir_parents(root_fd, path);
        if (r < 0)
                return r;
        _cleanup_close_ int fd = openat(root_fd, path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        ssize_t n = pwrite(fd, buf, len, 0);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return ftruncate(fd, (off_t) len) < 0 ? -errno : 0;
}

static int vwrite(int root_fd, const char *path, const char *fmt, va_list ap) {
        _cleanup_free_ char *buf = NULL;
        int n = vasprintf(&buf, fmt, ap);

        if (n < 0)
                return -ENOMEM;
        return write_in_place(root_fd, path, buf, (size_t) n);
}

int faketree_write(int root_fd, const char *path, const char *fmt, ...) {
        va_list ap;
        int r = check_fake_root(root_fd);

        if (r < 0)
                return r;
        va_start(ap, fmt);
        r = vwrite(root_fd, path, fmt, ap);
        va_end(ap);
        return r;
}

/* Writes root_fd/dir/file (root_fd/file without dir) like faketree_write(),
 * without the root check (the public entry points did it). */
__attribute__((format(printf, 4, 5)))
static int write_file(int root_fd, const char *dir, const char *file, const char *fmt, ...) {
        char path[512];
        va_list ap;
        int r;

        snprintf(path, sizeof(path), "%s%s%s", dir ? dir : "", dir ? "/" : "", file);
        va_start(ap, fmt);
        r = vwrite(root_fd, path, fmt, ap);
        va_end(ap);
        return r;
}

/* Removes everything inside the open directory fd. */
static int rm_rf_children(int fd) {
        DIR *d = fdopendir(fd);
        struct dirent *de;
        int r = 0;

        if (!d) {
                close(fd);
                return -errno;
        }
        while (r >= 0 && (de = readdir(d))) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                r = faketree_rm_rf(dirfd(d), de->d_name);
        }
        closedir(d);
        return r;
}

int faketree_rm_rf(int root_fd, const char *path) {
        if (unlinkat(root_fd, path, 0) == 0 || errno == ENOENT)
                return 0;
        if (errno != EISDIR && errno != EPERM)
                return -errno;
        int fd = openat(root_fd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = rm_rf_children(fd);
        if (r < 0)
                return r;
        return unlinkat(root_fd, path, AT_REMOVEDIR) < 0 ? -errno : 0;
}

/* Copies the directory tree src to dst (both under root_fd). */
static int copy_tree(int root_fd, const char *src, const char *dst) {
        _cleanup_close_ int fd = openat(root_fd, src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        char s[512], t[512];
        struct dirent *de;
        int r = 0;

        if (fd < 0)
                return -errno;
        DIR *d = fdopendir(fd);
        if (!d)
                return -errno;
        fd = -1;
        if (mkdirat(root_fd, dst, 0755) < 0 && errno != EEXIST)
                r = -errno;
        while (r >= 0 && (de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                snprintf(s, sizeof(s), "%s/%s", src, de->d_name);
                snprintf(t, sizeof(t), "%s/%s", dst, de->d_name);
                _cleanup_free_ char *content = NULL;
                struct stat st;
                size_t len;
                if (fstatat(root_fd, s, &st, 0) < 0)
                        r = -errno;
                else if (S_ISDIR(st.st_mode))
                        r = copy_tree(root_fd, s, t);
                else {
                        r = fileio_read_alloc_at(root_fd, s, &content, &len);
                        if (r >= 0)
                                r = write_in_place(root_fd, t, content, len);
                }
        }
        closedir(d);
        return r;
}

static bool exists_at(int root_fd, const char *path) {
        return faccessat(root_fd, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Reads the online list of the tree. */
static int read_online(int root_fd, CpuSet *ret) {
        char buf[4096];
        int r = fileio_read_string_at(root_fd, CPU_DIR "/online", buf, sizeof(buf));

        return r < 0 ? r : cpuset_parse(buf, ret, NULL);
}

static int write_cpuset(int root_fd, const char *path, const CpuSet *s) {
        char buf[4096];
        int r = cpuset_format(s, buf, sizeof(buf));

        return r < 0 ? r : write_file(root_fd, NULL, path, "%s\n", buf);
}

/* ---- the model file ------------------------------------------------------- */

static int model_alloc(Model *m) {
        m->stat = calloc(m->n_cpus, sizeof(*m->stat));
        m->irq = calloc(m->n_cpus, sizeof(*m->irq));
        return m->stat && m->irq ? 0 : -ENOMEM;
}

static void render_values(FILE *f, const uint64_t *v, unsigned n) {
        for (unsigned i = 0; i < n; i++)
                fprintf(f, " %" PRIu64, v[i]);
}

/* The model file: what the tree was made with, then every CPU's counters. */
static void render_model(FILE *f, const Model *m, const CpuSet *online) {
        fprintf(f, "faketree 1 cpus %u states %u threads %u old_kernel %d elapsed %" PRIu64 " clock %" PRIu64 "\n",
                m->n_cpus, m->n_states, m->threads_per_core, m->old_kernel, m->elapsed_usec, m->clock_usec);
        for (unsigned c = 0; c < m->n_cpus; c++) {
                fprintf(f, "cpu%u", c);
                render_values(f, m->stat[c], STAT_COLUMNS);
                render_values(f, m->irq[c], N_IRQ_ROWS);
                fputc('\n', f);
        }
}

static int model_load(int root_fd, Model *m) {
        _cleanup_free_ char *text = NULL;
        int old, n, r;
        const char *p;

        r = check_fake_root(root_fd);
        if (r < 0)
                return r;
        r = fileio_read_alloc_at(root_fd, MODEL_FILE, &text, NULL);
        if (r < 0)
                return r;
        if (sscanf(text, "faketree 1 cpus %u states %u threads %u old_kernel %d elapsed %" SCNu64 " clock %" SCNu64 "%n",
                   &m->n_cpus, &m->n_states, &m->threads_per_core, &old, &m->elapsed_usec, &m->clock_usec, &n) != 6 ||
            m->n_cpus == 0 || m->n_cpus > FAKETREE_CPUS_MAX)
                return -EBADMSG;
        m->old_kernel = old;
        if (model_alloc(m) < 0)
                return -ENOMEM;
        p = text + n;
        for (unsigned c = 0; c < m->n_cpus; c++) {
                unsigned id;
                if (sscanf(p, " cpu%u%n", &id, &n) != 1 || id != c)
                        return -EBADMSG;
                p += n;
                for (unsigned i = 0; i < STAT_COLUMNS + N_IRQ_ROWS; i++) {
                        uint64_t *v = i < STAT_COLUMNS ? &m->stat[c][i] : &m->irq[c][i - STAT_COLUMNS];
                        if (sscanf(p, " %" SCNu64 "%n", v, &n) != 1)
                                return -EBADMSG;
                        p += n;
                }
        }
        return 0;
}

/* ---- proc files ------------------------------------------------------------ */

/* proc/stat as the kernel shows it: the sum, then one line per online CPU. */
static void render_stat(FILE *f, const Model *m, const CpuSet *online) {
        uint64_t sum[STAT_COLUMNS] = {}, irqs = 0;

        for (unsigned c = 0; c < m->n_cpus; c++) {
                for (unsigned i = 0; i < STAT_COLUMNS; i++)
                        sum[i] += m->stat[c][i];
                for (unsigned i = 0; i < N_IRQ_ROWS; i++)
                        irqs += m->irq[c][i];
        }
        fputs("cpu ", f);
        render_values(f, sum, STAT_COLUMNS);
        CPUSET_FOREACH(c, online) {
                fprintf(f, "\ncpu%d", c);
                render_values(f, m->stat[c], STAT_COLUMNS);
        }
        fprintf(f, "\nintr %" PRIu64 " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", irqs);
        fprintf(f, "ctxt 262637\nbtime 1795258411\nprocesses 3789\nprocs_running 3\nprocs_blocked 0\n");
        fprintf(f, "softirq %" PRIu64 " 0 %" PRIu64 " 0 0 0 0 0 0 0 0\n", sum[STAT_SOFTIRQ], sum[STAT_SOFTIRQ]);
}

/* proc/interrupts as the kernel shows it: one column per online CPU. */
static void render_interrupts(FILE *f, const Model *m, const CpuSet *online) {
        const int prec = 3;

        fprintf(f, "%*s", prec + 8, "");
        CPUSET_FOREACH(c, online)
                fprintf(f, "CPU%-8d", c);
        fputc('\n', f);
        for (unsigned i = 0; i < N_IRQ_ROWS; i++) {
                fprintf(f, "%*s: ", prec, irq_rows[i].label);
                CPUSET_FOREACH(c, online)
                        fprintf(f, "%10" PRIu64 " ", m->irq[c][i]);
                fprintf(f, " %s\n", irq_rows[i].desc);
        }
        fprintf(f, "%*s: %10u\n%*s: %10u\n", prec, "ERR", 0u, prec, "MIS", 0u);
}

/* Writes what render() prints to root_fd/path. */
static int write_rendered(int root_fd, const char *path, const Model *m, const CpuSet *online,
                      void (*render)(FILE *, const Model *, const CpuSet *)) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        if (!f)
                return -ENOMEM;
        render(f, m, online);
        if (fclose(f) != 0)
                return -ENOMEM;
        return write_in_place(root_fd, path, buf, len);
}

/* Saves the model and rewrites both proc files for the current online set. */
static int model_commit(int root_fd, const Model *m) {
        CpuSet online;
        int r = read_online(root_fd, &online);

        if (r >= 0)
                r = write_rendered(root_fd, MODEL_FILE, m, &online, render_model);
        if (r >= 0)
                r = write_rendered(root_fd, "proc/stat", m, &online, render_stat);
        if (r >= 0)
                r = write_rendered(root_fd, "proc/interrupts", m, &online, render_interrupts);
        return r;
}

/* ---- sysfs ------------------------------------------------------------------- */

/* The tree's state k: this VM's table, or POLL plus generated C states. */
static FakeState table_state(unsigned n_states, unsigned k, char name[static 16], char desc[static 32]) {
        static const FakeState vm[] = {
                { "POLL", "CPUIDLE CORE POLL IDLE", 0, 0 },
                { "haltpoll idle", "default architecture idle", 1, 1 },
        };
        if (n_states == 0 || k == 0)
                return vm[k];
        snprintf(name, 16, "C%u", k);
        snprintf(desc, 32, "MWAIT 0x%02x", (k - 1) * 0x10);
        return (FakeState) { name, desc, 1u << (2 * k), 3u << (2 * k) };
}

/* One file and its content (a newline is added). */
typedef struct FileValue {
        const char *file;
        const char *value;
} FileValue;

static int write_files(int root_fd, const char *dir, const FileValue *f, size_t n) {
        int r = 0;

        for (size_t i = 0; r >= 0 && i < n; i++)
                r = write_file(root_fd, dir, f[i].file, "%s\n", f[i].value);
        return r;
}

static int write_state(int root_fd, unsigned cpu, unsigned k, const FakeState *s, bool old_kernel) {
        char dir[128], latency[16], residency[16];

        snprintf(dir, sizeof(dir), CPU_DIR "/cpu%u/cpuidle/state%u", cpu, k);
        snprintf(latency, sizeof(latency), "%u", s->latency_us);
        snprintf(residency, sizeof(residency), "%u", s->residency_us);
        const FileValue files[] = {
                { "name", s->name }, { "desc", s->desc }, { "latency", latency }, { "residency", residency },
                { "power", "4294967295" }, { "usage", "0" }, { "time", "0" }, { "disable", "0" },
                /* newer kernels only */
                { "above", "0" }, { "below", "0" }, { "rejected", "0" }, { "default_status", "enabled" },
        };
        return write_files(root_fd, dir, files, old_kernel ? 8 : 12);
}

int faketree_write_states(int root_fd, unsigned cpu, const FakeState *states, unsigned n, bool old_kernel) {
        char dir[128];
        int r = check_fake_root(root_fd);

        snprintf(dir, sizeof(dir), CPU_DIR "/cpu%u/cpuidle", cpu);
        if (r >= 0)
                r = faketree_rm_rf(root_fd, dir);
        if (r >= 0 && mkdirat(root_fd, dir, 0755) < 0)
                r = -errno;
        for (unsigned k = 0; r >= 0 && k < n; k++)
                r = write_state(root_fd, cpu, k, &states[k], old_kernel);
        return r;
}

/* Writes cpu's cpuidle states from the tree's table (none without a driver). */
static int write_table(int root_fd, const Model *m, unsigned cpu) {
        FakeState table[FAKETREE_STATES_MAX];
        char names[FAKETREE_STATES_MAX][16], descs[FAKETREE_STATES_MAX][32], driver[64] = "";
        unsigned n = m->n_states ? m->n_states : 2;

        fileio_read_string_at(root_fd, CPU_DIR "/cpuidle/current_driver", driver, sizeof(driver));
        if (strcmp(driver, "none") == 0)
                return 0;
        for (unsigned k = 0; k < n; k++)
                table[k] = table_state(m->n_states, k, names[k], descs[k]);
        return faketree_write_states(root_fd, cpu, table, n, m->old_kernel);
}

static int write_topology(int root_fd, const Model *m, unsigned cpu) {
        unsigned t = m->threads_per_core, first = cpu / t * t;
        char dir[128], core[16], siblings[32];

        snprintf(dir, sizeof(dir), CPU_DIR "/cpu%u/topology", cpu);
        snprintf(core, sizeof(core), "%u", cpu / t);
        if (t == 1)
                snprintf(siblings, sizeof(siblings), "%u", cpu);
        else
                snprintf(siblings, sizeof(siblings), "%u-%u", first, first + t - 1);
        const FileValue files[] = {
                { "physical_package_id", "0" }, { "die_id", "0" }, { "core_id", core },
                { "thread_siblings_list", siblings },
        };
        return write_files(root_fd, dir, files, sizeof(files) / sizeof(files[0]));
}

/* Writes the per-CPU directories of cpu (online or not). */
static int write_cpu(int root_fd, const Model *m, unsigned cpu, bool online) {
        char dir[128];
        int r;

        snprintf(dir, sizeof(dir), CPU_DIR "/cpu%u", cpu);
        r = write_file(root_fd, dir, "power/pm_qos_resume_latency_us", "0\n");
        if (r >= 0 && cpu > 0)
                r = write_file(root_fd, dir, "online", "%d\n", online);
        if (r >= 0 && online)
                r = write_topology(root_fd, m, cpu);
        if (r >= 0 && online)
                r = write_table(root_fd, m, cpu);
        return r;
}

static int write_system(int root_fd, const FakeTreeOptions *o) {
        char governors[512];

        /* the kernel's trailing space */
        snprintf(governors, sizeof(governors), "%s %s", o->governors, o->wteo ? "wteo " : "");
        const FileValue files[] = {
                { "current_driver", o->driver }, { "current_governor", o->governor },
                { "current_governor_ro", o->governor }, { "available_governors", governors },
        };
        return write_files(root_fd, CPU_DIR "/cpuidle", files, sizeof(files) / sizeof(files[0]));
}

static int write_haltpoll(int root_fd) {
        static const FileValue params[] = {
                { "guest_halt_poll_allow_shrink", "Y" }, { "guest_halt_poll_grow", "2" },
                { "guest_halt_poll_grow_start", "50000" }, { "guest_halt_poll_ns", "200000" },
                { "guest_halt_poll_shrink", "2" },
        };
        return write_files(root_fd, "sys/module/haltpoll/parameters", params, sizeof(params) / sizeof(params[0]));
}

void faketree_options_init(FakeTreeOptions *o) {
        *o = (FakeTreeOptions) {
                .n_cpus = 2,
                .threads_per_core = 1,
                .driver = "haltpoll",
                .governor = "haltpoll",
                .governors = "ladder menu haltpoll",
                .haltpoll = true,
        };
}

/* Returns 0 if root_fd is empty or holds an earlier fake tree (removed),
 * -EEXIST if it holds anything else. */
static int clear_root(int root_fd) {
        if (!exists_at(root_fd, MODEL_FILE)) {
                DIR *d = fdopendir(openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
                struct dirent *de;
                unsigned n = 0;

                if (!d)
                        return -errno;
                while ((de = readdir(d)))
                        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
                closedir(d);
                if (n > 0)
                        return -EEXIST;
        }
        int r = faketree_rm_rf(root_fd, "sys");
        if (r >= 0)
                r = faketree_rm_rf(root_fd, "dev");
        return r < 0 ? r : faketree_rm_rf(root_fd, "proc");
}

/* Fills m from o and gives each CPU plausible starting proc counters. */
static int model_init(Model *m, const FakeTreeOptions *o) {
        *m = (Model) {
                .n_cpus = o->n_cpus,
                .n_states = o->n_states,
                .threads_per_core = o->threads_per_core ? o->threads_per_core : 1,
                .old_kernel = o->old_kernel,
        };
        if (m->n_cpus == 0 || m->n_cpus > FAKETREE_CPUS_MAX || m->n_states == 1 || m->n_states > FAKETREE_STATES_MAX)
                return -EINVAL;
        if (model_alloc(m) < 0)
                return -ENOMEM;
        for (unsigned c = 0; c < m->n_cpus; c++) {
                m->stat[c][STAT_USER] = 600 + 100 * c;
                m->stat[c][STAT_SYSTEM] = 650;
                m->stat[c][STAT_IDLE] = 18000;
                m->irq[c][IRQ_LOC] = 9900 + c;
                m->irq[c][IRQ_RES] = 5000;
        }
        return 0;
}

int faketree_create(int root_fd, const FakeTreeOptions *o) {
        _cleanup_model_ Model m = {};
        CpuSet present, offline, online;
        int r;

        r = check_fake_root(root_fd);
        if (r >= 0)
                r = clear_root(root_fd);
        if (r >= 0)
                r = model_init(&m, o);
        if (r >= 0)
                r = cpuset_parse(o->offline ? o->offline : "", &offline, NULL);
        if (r < 0)
                return r;
        cpuset_clear(&present);
        for (unsigned c = 0; c < m.n_cpus; c++)
                cpuset_add(&present, c);
        online = present;
        CPUSET_FOREACH(c, &offline)
                cpuset_remove(&online, (unsigned) c);
        r = write_cpuset(root_fd, CPU_DIR "/present", &present);
        if (r >= 0)
                r = write_cpuset(root_fd, CPU_DIR "/possible", &present);
        if (r >= 0)
                r = write_cpuset(root_fd, CPU_DIR "/online", &online);
        if (r >= 0)
                r = write_system(root_fd, o);
        for (unsigned c = 0; r >= 0 && c < m.n_cpus; c++)
                r = write_cpu(root_fd, &m, c, cpuset_contains(&online, c));
        if (r >= 0 && o->haltpoll)
                r = write_haltpoll(root_fd);
        if (r >= 0)
                r = faketree_rm_rf(root_fd, FAKETREE_WTEO_STORE);
        if (r >= 0 && o->wteo)
                r = faketree_wteo_create(root_fd);
        if (r >= 0)
                r = faketree_wteo_sync(root_fd);
        if (r >= 0)
                r = faketree_latency_set(root_fd, LATENCY_REQUEST_NONE);
        return r < 0 ? r : model_commit(root_fd, &m);
}

/* ---- changes ---------------------------------------------------------------- */

int faketree_bump_state(int root_fd, unsigned cpu, unsigned state, const FakeCounters *d) {
        const struct { const char *file; uint64_t delta; } c[] = {
                { "usage", d->usage }, { "time", d->time_us }, { "above", d->above },
                { "below", d->below }, { "rejected", d->rejected },
        };
        char path[192];
        uint64_t v;
        int r = check_fake_root(root_fd);

        if (r < 0)
                return r;
        for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
                if (c[i].delta == 0)
                        continue;
                snprintf(path, sizeof(path), CPU_DIR "/cpu%u/cpuidle/state%u/%s", cpu, state, c[i].file);
                r = fileio_read_u64_at(root_fd, path, &v);
                if (r == -ENOENT)
                        continue;
                if (r >= 0)
                        r = write_file(root_fd, NULL, path, "%" PRIu64 "\n", v + c[i].delta);
                if (r < 0)
                        return r;
        }
        return 0;
}

int faketree_bump_proc(int root_fd, unsigned cpu, uint64_t busy, uint64_t idle,
                       uint64_t timer_irqs, uint64_t other_irqs) {
        _cleanup_model_ Model m = {};
        int r = model_load(root_fd, &m);

        if (r < 0)
                return r;
        if (cpu >= m.n_cpus)
                return -EINVAL;
        m.stat[cpu][STAT_USER] += busy;
        m.stat[cpu][STAT_IDLE] += idle;
        m.irq[cpu][IRQ_LOC] += timer_irqs;
        m.irq[cpu][IRQ_RES] += other_irqs;
        return model_commit(root_fd, &m);
}

unsigned faketree_count_states(int root_fd, unsigned cpu) {
        char path[128];
        unsigned n = 0;

        for (;; n++) {
                snprintf(path, sizeof(path), CPU_DIR "/cpu%u/cpuidle/state%u", cpu, n);
                if (!exists_at(root_fd, path))
                        return n;
        }
}

/* How far a counter with a per-second rate moves while the simulated clock
 * goes from a to b (usec): exact in the long run, whatever the steps. */
static uint64_t advance(uint64_t per_second, uint64_t a, uint64_t b) {
        return per_second * b / 1000000 - per_second * a / 1000000;
}

/* Plausible idle activity on cpu from a to b: deeper states see fewer,
 * longer entries, and all states together fill 70% of the time. */
static int tick_states(int root_fd, unsigned cpu, uint64_t a, uint64_t b) {
        unsigned n = faketree_count_states(root_fd, cpu);
        int r = 0;

        for (unsigned k = 0; r >= 0 && k < n; k++) {
                uint64_t usage = advance(400 / (k + 1) + 13 * cpu + 7, a, b);
                FakeCounters d = {
                        .usage = usage,
                        .time_us = advance(1400000ull * (k + 1) / (n * (n + 1)), a, b),
                        .above = k > 0 ? usage / 10 : 0,
                        .below = k + 1 < n ? usage / 20 : 0,
                };
                r = faketree_bump_state(root_fd, cpu, k, &d);
        }
        return r;
}

/* CPU c's jiffies (100 a second, 14% + c%4 busy) and interrupts from a to b. */
static void tick_proc(Model *m, unsigned c, uint64_t a, uint64_t b) {
        uint64_t stat[STAT_COLUMNS] = {
                [STAT_USER] = 7 + c % 4, [STAT_SYSTEM] = 4, [STAT_IDLE] = 85 - c % 4,
                [STAT_IOWAIT] = 1, [STAT_IRQ] = 1, [STAT_SOFTIRQ] = 2,
        };
        uint64_t irq[N_IRQ_ROWS] = { [IRQ_LOC] = 250 + 10 * (c % 8), [IRQ_RES] = 40, [IRQ_CAL] = 20 };

        irq[c % 2 ? IRQ_DISK : IRQ_NET] = 12;
        for (unsigned i = 0; i < STAT_COLUMNS; i++)
                m->stat[c][i] += advance(stat[i], a, b);
        for (unsigned i = 0; i < N_IRQ_ROWS; i++)
                m->irq[c][i] += advance(irq[i], a, b);
}

/* Advances the loaded model and the tree by usec of simulated time. */
static int advance_model(int root_fd, Model *m, uint64_t usec) {
        uint64_t a = m->elapsed_usec, b = a + usec;
        CpuSet online;
        int r = read_online(root_fd, &online);

        if (r < 0)
                return r;
        CPUSET_FOREACH(c, &online) {
                if ((unsigned) c >= m->n_cpus)
                        break;
                r = tick_states(root_fd, (unsigned) c, a, b);
                if (r < 0)
                        return r;
                tick_proc(m, (unsigned) c, a, b);
        }
        m->elapsed_usec = b;
        return model_commit(root_fd, m);
}

int faketree_advance(int root_fd, uint64_t usec) {
        _cleanup_model_ Model m = {};
        int r = model_load(root_fd, &m);

        return r < 0 ? r : advance_model(root_fd, &m, usec);
}

int faketree_tick(int root_fd) {
        return faketree_advance(root_fd, 1000000);
}

int faketree_tick_at(int root_fd, uint64_t now_usec) {
        _cleanup_model_ Model m = {};
        uint64_t usec = 1000000;
        int r = model_load(root_fd, &m);

        if (r < 0)
                return r;
        if (m.clock_usec > 0)
                usec = now_usec > m.clock_usec ? now_usec - m.clock_usec : 0;
        m.clock_usec = now_usec;
        return advance_model(root_fd, &m, usec);
}

/* Updates cpu's online bit in the tree's online list. */
static int set_online_bit(int root_fd, unsigned cpu, bool online) {
        char path[128];
        CpuSet s;
        int r = read_online(root_fd, &s);

        if (r < 0)
                return r;
        if (online)
                cpuset_add(&s, cpu);
        else
                cpuset_remove(&s, cpu);
        snprintf(path, sizeof(path), CPU_DIR "/cpu%u/online", cpu);
        if (cpu > 0 && (r = write_file(root_fd, NULL, path, "%d\n", online)) < 0)
                return r;
        return write_cpuset(root_fd, CPU_DIR "/online", &s);
}

int faketree_set_offline(int root_fd, unsigned cpu) {
        _cleanup_model_ Model m = {};
        char path[128];
        int r = model_load(root_fd, &m);

        if (r >= 0 && cpu >= m.n_cpus)
                r = -EINVAL;
        for (unsigned i = 0; r >= 0 && i < 2; i++) {
                snprintf(path, sizeof(path), CPU_DIR "/cpu%u/%s", cpu, i ? "topology" : "cpuidle");
                r = faketree_rm_rf(root_fd, path);
        }
        if (r >= 0)
                r = set_online_bit(root_fd, cpu, false);
        return r < 0 ? r : model_commit(root_fd, &m);
}

int faketree_set_online(int root_fd, unsigned cpu) {
        _cleanup_model_ Model m = {};
        int r = model_load(root_fd, &m);

        if (r >= 0 && cpu >= m.n_cpus)
                r = -EINVAL;
        if (r >= 0)
                r = write_cpu(root_fd, &m, cpu, true);
        if (r >= 0)
                r = set_online_bit(root_fd, cpu, true);
        return r < 0 ? r : model_commit(root_fd, &m);
}

int faketree_switch_governor(int root_fd, const char *governor) {
        char dir[128], old[128], new[128];
        CpuSet online;
        int r = check_fake_root(root_fd);

        if (r >= 0)
                r = read_online(root_fd, &online);
        if (r < 0)
                return r;
        /* Recreate the directories first and announce the new governor last:
         * a reader that sees the new name must not find the old directories
         * (on a real kernel their stale fds fail with ENODEV at once). */
        CPUSET_FOREACH(c, &online) {
                snprintf(dir, sizeof(dir), CPU_DIR "/cpu%d/cpuidle", c);
                snprintf(old, sizeof(old), CPU_DIR "/cpu%d/cpuidle.old", c);
                snprintf(new, sizeof(new), CPU_DIR "/cpu%d/cpuidle.new", c);
                if (!exists_at(root_fd, dir))
                        continue;
                /* Gone for a moment, then back whole (as sysfs recreates
                 * it): a reader never sees a half-copied file. */
                if (renameat(root_fd, dir, root_fd, old) < 0)
                        return -errno;
                r = copy_tree(root_fd, old, new);
                if (r >= 0 && renameat(root_fd, new, root_fd, dir) < 0)
                        r = -errno;
                if (r >= 0)
                        r = faketree_rm_rf(root_fd, old);
                if (r < 0)
                        return r;
        }
        r = write_file(root_fd, NULL, CPU_DIR "/cpuidle/current_governor", "%s\n", governor);
        if (r >= 0)
                r = write_file(root_fd, NULL, CPU_DIR "/cpuidle/current_governor_ro", "%s\n", governor);
        if (r >= 0)
                r = faketree_wteo_sync(root_fd);
        return r < 0 ? r : 0;
}
