/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The system-wide cpuidle files (driver, governor, available governors) and
 * the haltpoll parameters: read once by cpuidle_system_load(), or kept open
 * and re-read every tick by a CpuidleSystemReader with a slow tier for the
 * files that hardly ever change (see cpuidle.h).  The one-shot load is a
 * reader that lives for one read, so both give the same values and errors. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuidle.h"
#include "fileio.h"
#include "sysfs-paths.h"

typedef enum SystemFile {
        FILE_GOVERNOR,              /* read every time: current_governor (current_governor_ro before 5.8) */
        FILE_POLL_NS,               /* read every time */
        FILE_DRIVER,                /* this one and the rest: full reads only */
        FILE_GOVERNORS,
        FILE_GROW,
        FILE_GROW_START,
        FILE_SHRINK,
        FILE_ALLOW_SHRINK,
        _FILE_MAX,
} SystemFile;

static const char *const file_path[_FILE_MAX] = {
        [FILE_GOVERNOR] = SYSFS_CPUIDLE_GOVERNOR,
        [FILE_POLL_NS] = SYSFS_HALTPOLL_NS,
        [FILE_DRIVER] = SYSFS_CPUIDLE_DRIVER,
        [FILE_GOVERNORS] = SYSFS_CPUIDLE_GOVERNORS,
        [FILE_GROW] = SYSFS_HALTPOLL_GROW,
        [FILE_GROW_START] = SYSFS_HALTPOLL_GROW_START,
        [FILE_SHRINK] = SYSFS_HALTPOLL_SHRINK,
        [FILE_ALLOW_SHRINK] = SYSFS_HALTPOLL_ALLOW_SHRINK,
};

struct CpuidleSystemReader {
        int root_fd;                /* AT_FDCWD, our own dup, or borrowed (own_root false) */
        bool own_root;
        int fds[_FILE_MAX];         /* -1: missing (or its directory is) */
        bool opened;                /* false: open everything at the next full read */
        bool has_cpuidle;           /* SYSFS_CPUIDLE_DIR existed when last looked for */
        bool has_haltpoll;          /* SYSFS_HALTPOLL_DIR existed when last looked for */
        bool governor_ro;           /* fds[FILE_GOVERNOR] is current_governor_ro */
        unsigned full_every;
        unsigned partial_left;      /* partial reads before the next full one */
        bool full_next;
        bool has_last;
        unsigned files_read;        /* by the last read */
        CpuidleSystem last;         /* the last successful read, carried over by partial reads */
};

static bool file_is_haltpoll(SystemFile i) {
        return i == FILE_POLL_NS || i >= FILE_GROW;
}

/* Returns the path of file i (current_governor_ro when that is the one open). */
static const char *reader_path(const CpuidleSystemReader *r, SystemFile i) {
        return i == FILE_GOVERNOR && r->governor_ro ? SYSFS_CPUIDLE_GOVERNOR_RO : file_path[i];
}

static CpuidleSystemReader reader_make(int root_fd, bool own_root) {
        CpuidleSystemReader r = { .root_fd = root_fd, .own_root = own_root, .full_every = 1, .full_next = true };

        for (unsigned i = 0; i < _FILE_MAX; i++)
                r.fds[i] = -1;
        return r;
}

/* Closes every file; the next full read opens them again. */
static void reader_close(CpuidleSystemReader *r) {
        for (unsigned i = 0; i < _FILE_MAX; i++)
                fileio_closep(&r->fds[i]);
        r->opened = r->has_cpuidle = r->has_haltpoll = r->governor_ro = false;
}

static void reader_done(CpuidleSystemReader *r) {
        reader_close(r);
        if (r->own_root && r->root_fd >= 0)
                close(r->root_fd);
}

/* ---- opening ------------------------------------------------------------- */

/* Returns 1 if dirfd/path exists, 0 if not, or a negative errno. */
static int path_exists(int dirfd, const char *path) {
        struct stat st;

        if (fstatat(dirfd, path, &st, 0) >= 0)
                return 1;
        return errno == ENOENT ? 0 : -errno;
}

/* Looks for dir; *has is set to whether it is there.  Returns 0 or a
 * negative errno with e set. */
static int find_dir(const CpuidleSystemReader *r, const char *dir, bool *has, ErrorInfo *e) {
        int k = path_exists(r->root_fd, dir);

        if (k < 0)
                return errinfo_set(e, k, "%s: %s", dir, strerror(-k));
        *has = k > 0;
        return 0;
}

/* Opens file i if its directory is there (current_governor_ro when there is
 * no current_governor); a missing file stays -1.  Returns 0 or a negative
 * errno with e set. */
static int open_file(CpuidleSystemReader *r, SystemFile i, ErrorInfo *e) {
        int fd;

        if (!(file_is_haltpoll(i) ? r->has_haltpoll : r->has_cpuidle))
                return 0;
        fd = fileio_open_at(r->root_fd, file_path[i]);
        if (fd == -ENOENT && i == FILE_GOVERNOR) {
                fd = fileio_open_at(r->root_fd, SYSFS_CPUIDLE_GOVERNOR_RO);
                r->governor_ro = fd >= 0;
        }
        if (fd < 0 && fd != -ENOENT)
                return errinfo_set(e, fd, "%s: %s", reader_path(r, i), strerror(-fd));
        r->fds[i] = fd < 0 ? -1 : fd;
        return 0;
}

/* Looks again for what was missing: the directories, then every file not
 * open.  Returns 0 or a negative errno with e set. */
static int open_missing(CpuidleSystemReader *r, ErrorInfo *e) {
        int k = 0;

        if (!r->has_cpuidle)
                k = find_dir(r, SYSFS_CPUIDLE_DIR, &r->has_cpuidle, e);
        if (k >= 0 && r->has_cpuidle && !r->has_haltpoll)
                k = find_dir(r, SYSFS_HALTPOLL_DIR, &r->has_haltpoll, e);
        for (unsigned i = 0; k >= 0 && i < _FILE_MAX; i++)
                if (r->fds[i] < 0)
                        k = open_file(r, (SystemFile) i, e);
        if (k < 0) {
                reader_close(r);
                return k;
        }
        r->opened = true;
        return 0;
}

/* Returns true if an open file was unlinked.  sysfs fails the read of a
 * removed attribute with ENODEV; other file systems (test trees) keep
 * showing the old content, so a full read looks. */
static bool any_unlinked(const CpuidleSystemReader *r) {
        struct stat st;

        for (unsigned i = 0; i < _FILE_MAX; i++)
                if (r->fds[i] >= 0 && fstat(r->fds[i], &st) >= 0 && st.st_nlink == 0)
                        return true;
        return false;
}

/* ---- reading ------------------------------------------------------------- */

/* Re-reads file i with one pread() (a sysfs attribute is produced whole by
 * the first read) into buf, trailing newline stripped.  Returns 0; -ESTALE
 * if the fd went stale (ENODEV/ENOENT); -EBADMSG if the value does not fit;
 * another negative errno.  e is set in every failure. */
static int read_file(CpuidleSystemReader *r, SystemFile i, char *buf, size_t size, ErrorInfo *e) {
        int n = fileio_pread_once(r->fds[i], buf, size);

        if (n == -ENODEV || n == -ENOENT)
                return errinfo_set(e, -ESTALE, "%s: vanished while reading", reader_path(r, i));
        if (n == -EFBIG)
                return errinfo_set(e, -EBADMSG, "%s: value too long", reader_path(r, i));
        if (n < 0)
                return errinfo_set(e, n, "%s: %s", reader_path(r, i), strerror(-n));
        r->files_read++;
        return 0;
}

/* Reads a haltpoll parameter: an unsigned number, or "Y"/"N" when flag is
 * not NULL.  A missing file gives 0.  Returns 0 or a negative errno with e
 * set. */
static int read_param(CpuidleSystemReader *r, SystemFile i, uint64_t *num, bool *flag, ErrorInfo *e) {
        char buf[64];
        int k;

        if (flag)
                *flag = false;
        else
                *num = 0;
        if (r->fds[i] < 0)
                return 0;
        k = read_file(r, i, buf, sizeof(buf), e);
        if (k < 0)
                return k;
        if (flag && (strcmp(buf, "Y") == 0 || strcmp(buf, "N") == 0))
                *flag = strcmp(buf, "Y") == 0;
        else if (flag || parse_u64(buf, num) < 0)
                return errinfo_set(e, -EBADMSG, "%s: invalid value \"%s\"", file_path[i], buf);
        return 0;
}

/* Splits available_governors ("ladder menu haltpoll \n") into s.
 * Returns 0 or -EBADMSG with e set. */
static int parse_governors(const char *text, CpuidleSystem *s, ErrorInfo *e) {
        const char *path = file_path[FILE_GOVERNORS];
        const char *p = text;

        s->n_governors = 0;
        for (;;) {
                p += strspn(p, " \t\n");
                if (*p == '\0')
                        return 0;
                size_t len = strcspn(p, " \t\n");
                if (len >= sizeof(s->governors[0]))
                        return errinfo_set(e, -EBADMSG, "%s: governor name \"%.*s\" too long", path, (int) len, p);
                if (s->n_governors >= CPUIDLE_GOVERNORS_MAX)
                        return errinfo_set(e, -EBADMSG, "%s: more than %u governors", path, CPUIDLE_GOVERNORS_MAX);
                memcpy(s->governors[s->n_governors], p, len);
                s->governors[s->n_governors++][len] = '\0';
                p += len;
        }
}

/* Reads the files every read reads: the governor and guest_halt_poll_ns.
 * Returns 0 or a negative errno with e set. */
static int read_fast(CpuidleSystemReader *r, CpuidleSystem *s, ErrorInfo *e) {
        int k = 0;

        s->governor[0] = '\0';
        s->governor_writable = r->fds[FILE_GOVERNOR] >= 0 && !r->governor_ro;
        s->haltpoll.present = r->has_haltpoll;
        if (r->fds[FILE_GOVERNOR] >= 0)
                k = read_file(r, FILE_GOVERNOR, s->governor, sizeof(s->governor), e);
        if (k >= 0)
                k = read_param(r, FILE_POLL_NS, &s->haltpoll.poll_ns, NULL, e);
        return k;
}

/* Sets s->has_wteo: the governor is listed (s->governors read already)
 * and its parameters directory exists.  Returns 0 or a negative errno
 * with e set. */
static int read_has_wteo(const CpuidleSystemReader *r, CpuidleSystem *s, ErrorInfo *e) {
        int k;

        s->has_wteo = false;
        if (!cpuidle_system_has_governor(s, CPUIDLE_GOVERNOR_WTEO))
                return 0;
        k = path_exists(r->root_fd, SYSFS_WTEO_DIR);
        if (k < 0)
                return errinfo_set(e, k, "%s: %s", SYSFS_WTEO_DIR, strerror(-k));
        s->has_wteo = k > 0;
        return 0;
}

/* Reads the files only full reads read.  Returns 0 or a negative errno
 * with e set. */
static int read_slow(CpuidleSystemReader *r, CpuidleSystem *s, ErrorInfo *e) {
        char buf[CPUIDLE_GOVERNORS_MAX * 32 + 64];
        HaltpollParams *h = &s->haltpoll;
        int k = 0;

        s->driver[0] = '\0';
        s->n_governors = 0;
        if (r->fds[FILE_DRIVER] >= 0)
                k = read_file(r, FILE_DRIVER, s->driver, sizeof(s->driver), e);
        if (k >= 0 && strcmp(s->driver, "none") == 0)
                s->driver[0] = '\0';
        if (k >= 0 && r->fds[FILE_GOVERNORS] >= 0) {
                k = read_file(r, FILE_GOVERNORS, buf, sizeof(buf), e);
                if (k >= 0)
                        k = parse_governors(buf, s, e);
        }
        if (k >= 0)
                k = read_has_wteo(r, s, e);
        if (k >= 0)
                k = read_param(r, FILE_GROW, &h->grow, NULL, e);
        if (k >= 0)
                k = read_param(r, FILE_GROW_START, &h->grow_start, NULL, e);
        if (k >= 0)
                k = read_param(r, FILE_SHRINK, &h->shrink, NULL, e);
        if (k >= 0)
                k = read_param(r, FILE_ALLOW_SHRINK, NULL, &h->allow_shrink, e);
        return k;
}

/* Returns true if the files every read reads show what they showed. */
static bool fast_equal(const CpuidleSystem *a, const CpuidleSystem *b) {
        return strcmp(a->governor, b->governor) == 0 && a->governor_writable == b->governor_writable &&
               a->haltpoll.present == b->haltpoll.present && a->haltpoll.poll_ns == b->haltpoll.poll_ns;
}

static bool system_equal(const CpuidleSystem *a, const CpuidleSystem *b) {
        const HaltpollParams *x = &a->haltpoll, *y = &b->haltpoll;

        if (!fast_equal(a, b) || strcmp(a->driver, b->driver) != 0 || a->n_governors != b->n_governors ||
            a->has_wteo != b->has_wteo)
                return false;
        for (unsigned i = 0; i < a->n_governors; i++)
                if (strcmp(a->governors[i], b->governors[i]) != 0)
                        return false;
        return x->grow == y->grow && x->grow_start == y->grow_start && x->shrink == y->shrink &&
               x->allow_shrink == y->allow_shrink;
}

/* One read into s (a full one if full, or if the fast files changed).
 * Returns 0, -ENOENT without cpuidle, -ESTALE for a stale fd, or another
 * negative errno; e is set in every failure. */
static int read_once(CpuidleSystemReader *r, bool full, CpuidleSystem *s, ErrorInfo *e) {
        int k;

        if (full && r->opened && any_unlinked(r))
                reader_close(r);
        if (full) {
                k = open_missing(r, e);
                if (k < 0)
                        return k;
        }
        if (!r->has_cpuidle)
                return errinfo_set(e, -ENOENT, SYSFS_CPUIDLE_DIR ": %s", strerror(ENOENT));
        *s = r->has_last ? r->last : (CpuidleSystem) {};
        k = read_fast(r, s, e);
        if (k < 0)
                return k;
        if (full || !r->has_last || !fast_equal(s, &r->last))
                return read_slow(r, s, e);
        return 0;
}

/* Returns true if this read is a full one, and advances the cadence. */
static bool cadence_next(CpuidleSystemReader *r) {
        if (r->full_next || r->partial_left == 0) {
                r->full_next = false;
                r->partial_left = r->full_every - 1;
                return true;
        }
        r->partial_left--;
        return false;
}

int cpuidle_system_reader_read(CpuidleSystemReader *r, CpuidleSystem *ret, ErrorInfo *e) {
        CpuidleSystem s;
        int k;

        r->files_read = 0;
        k = read_once(r, cadence_next(r), &s, e);
        if (k == -ESTALE) {
                reader_close(r);
                k = read_once(r, true, &s, e);
                if (k == -ESTALE)
                        k = -ENODEV;            /* e says which file */
        }
        if (k == -ENOENT && !r->has_cpuidle) {
                r->has_last = false;            /* looked for again by the next full read */
                return k;
        }
        if (k < 0) {
                r->full_next = true;
                return k;
        }
        k = !r->has_last || !system_equal(&s, &r->last);
        r->last = s;
        r->has_last = true;
        *ret = s;
        return k;
}

int cpuidle_system_load(int root_fd, CpuidleSystem *ret, ErrorInfo *e) {
        _cleanup_(reader_done) CpuidleSystemReader r = reader_make(root_fd, false);
        int k = cpuidle_system_reader_read(&r, ret, e);

        return k < 0 ? k : 0;
}

int cpuidle_system_reader_new(int root_fd, unsigned full_every, CpuidleSystemReader **ret, ErrorInfo *e) {
        _cleanup_cpuidle_system_reader_ CpuidleSystemReader *r = NULL;

        if (full_every < 1)
                return -EINVAL;
        r = malloc(sizeof(CpuidleSystemReader));
        if (!r)
                return -ENOMEM;
        *r = reader_make(AT_FDCWD, true);
        r->full_every = full_every;
        if (root_fd >= 0) {
                r->root_fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
                if (r->root_fd < 0)
                        return errinfo_set(e, -errno, "duplicating the root fd: %s", strerror(errno));
        }
        *ret = r;
        r = NULL;
        return 0;
}

CpuidleSystemReader *cpuidle_system_reader_free(CpuidleSystemReader *r) {
        if (r) {
                reader_done(r);
                free(r);
        }
        return NULL;
}

void cpuidle_system_reader_freep(CpuidleSystemReader **r) {
        cpuidle_system_reader_free(*r);
}

void cpuidle_system_reader_request_full(CpuidleSystemReader *r) {
        r->full_next = true;
}

unsigned cpuidle_system_reader_files_read(const CpuidleSystemReader *r) {
        return r->files_read;
}

bool cpuidle_system_has_governor(const CpuidleSystem *s, const char *name) {
        for (unsigned i = 0; i < s->n_governors; i++)
                if (strcmp(s->governors[i], name) == 0)
                        return true;
        return false;
}
