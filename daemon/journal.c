/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuidle.h"
#include "cpuset.h"
#include "exit-request.h"
#include "fileio.h"
#include "fs-util.h"
#include "journal.h"
#include "knob.h"
#include "knob-workload.h"
#include "log.h"
#include "macro.h"

#define JOURNAL_TMP_FILE JOURNAL_FILE ".tmp"
#define JOURNAL_HEADER "# idlepolicyd restore journal v1 root="
#define JOURNAL_MAX_ENTRIES 100000
/* 100000 lines of at most KNOB_PATH_MAX + KNOB_VALUE_MAX + 2 bytes, and the header. */
#define JOURNAL_FILE_MAX (16 * 1024 * 1024)

/* A knob whose state directory is missing while its CPU is online is in the
 * middle of a governor switch (which removes and recreates every CPU's state
 * directories; the disable bits themselves survive): it is waited for, in
 * steps of JOURNAL_VANISHED_STEP_USEC, up to JOURNAL_VANISHED_WAIT_USEC. */
#define JOURNAL_VANISHED_WAIT_USEC (2 * 1000 * 1000ULL)
#define JOURNAL_VANISHED_STEP_USEC (10 * 1000ULL)

/* journal_restore_one(): the knob cannot be put back now and stays, not a
 * failure (a wteo tolerance while wteo does not govern its CPU). */
#define RESTORE_KEPT (-ENODATA)

struct Journal {
        int dir_fd;                 /* the runtime directory */
        int lock_fd;
        int fd;                     /* the journal file, -1 while it does not exist */
        char *root;
        char *path;                 /* of the journal file, for messages */
        JournalEntry *entries;
        size_t n_entries, n_allocated;
        size_t *index;              /* open addressing on the path: entry + 1, 0 = free */
        size_t index_mask;          /* slots - 1 (a power of two), 0 without an index */
};

/* Returns 0, -EBUSY or a negative errno. */
static int journal_lock(Journal *j) {
        j->lock_fd = openat(j->dir_fd, JOURNAL_LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (j->lock_fd < 0)
                return -errno;
        if (flock(j->lock_fd, LOCK_EX | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? -EBUSY : -errno;
        return 0;
}

/* Returns 0, -EBUSY or a negative errno (logged). */
int journal_open(const char *runtime_dir, const char *root, Journal **ret) {
        _cleanup_(journal_freep) Journal *j = NULL;
        int r;

        j = calloc(1, sizeof(*j));
        if (!j)
                return log_oom();
        j->dir_fd = j->lock_fd = j->fd = -1;
        j->root = strdup(root);
        if (!j->root)
                return log_oom();
        if (asprintf(&j->path, "%s/%s", runtime_dir, JOURNAL_FILE) < 0) {
                j->path = NULL;
                return log_oom();
        }
        r = mkdir_parents(runtime_dir);
        if (r < 0)
                return log_error_errno(r, "Failed to create runtime directory %s: %m", runtime_dir);
        j->dir_fd = open(runtime_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (j->dir_fd < 0)
                return log_error_errno(errno, "Failed to open runtime directory %s: %m", runtime_dir);
        r = journal_lock(j);
        if (r == -EBUSY)
                return log_error_errno(r, "Another idlepolicyd holds %s/%s, refusing to start.", runtime_dir, JOURNAL_LOCK_FILE);
        if (r < 0)
                return log_error_errno(r, "Failed to lock %s/%s: %m", runtime_dir, JOURNAL_LOCK_FILE);
        *ret = TAKE_PTR(j);
        return 0;
}

static void journal_clear_entries(Journal *j) {
        for (size_t i = 0; i < j->n_entries; i++) {
                free(j->entries[i].path);
                free(j->entries[i].value);
        }
        free(j->entries);
        free(j->index);
        j->entries = NULL;
        j->index = NULL;
        j->n_entries = j->n_allocated = 0;
        j->index_mask = 0;
}

/* Returns NULL. */
Journal *journal_free(Journal *j) {
        if (!j)
                return NULL;
        journal_clear_entries(j);
        fileio_closep(&j->fd);
        fileio_closep(&j->lock_fd);
        fileio_closep(&j->dir_fd);
        free(j->root);
        free(j->path);
        free(j);
        return NULL;
}

void journal_freep(Journal **j) {
        journal_free(*j);
}

const JournalEntry *journal_entries(const Journal *j, size_t *ret_n) {
        *ret_n = j->n_entries;
        return j->entries;
}

/* FNV-1a of s. */
static size_t path_hash(const char *s) {
        uint64_t h = 14695981039346656037ULL;

        for (; *s; s++)
                h = (h ^ (unsigned char) *s) * 1099511628211ULL;
        return (size_t) h;
}

/* Puts entry i into the index (which has room).  Never fails. */
static void index_insert(Journal *j, size_t i) {
        size_t slot = path_hash(j->entries[i].path) & j->index_mask;

        while (j->index[slot] != 0)
                slot = (slot + 1) & j->index_mask;
        j->index[slot] = i + 1;
}

/* Makes a new index with room for for_n entries (at most half full) and
 * fills it.  Returns 0 or -ENOMEM (the old index stays). */
static int index_rebuild(Journal *j, size_t for_n) {
        size_t slots = 16, *index;

        while (slots < 2 * for_n)
                slots *= 2;
        index = calloc(slots, sizeof(size_t));
        if (!index)
                return -ENOMEM;
        free(j->index);
        j->index = index;
        j->index_mask = slots - 1;
        for (size_t i = 0; i < j->n_entries; i++)
                index_insert(j, i);
        return 0;
}

/* Returns the index of path, or -1.  O(1) on average. */
static ssize_t journal_find(const Journal *j, const char *path) {
        if (!j->index)
                return -1;
        for (size_t slot = path_hash(path) & j->index_mask; j->index[slot] != 0; slot = (slot + 1) & j->index_mask) {
                size_t i = j->index[slot] - 1;

                if (j->entries[i].path && strcmp(j->entries[i].path, path) == 0)
                        return (ssize_t) i;
        }
        return -1;
}

/* Appends an entry in memory only.  Returns 0 or -ENOMEM. */
static int journal_add_entry(Journal *j, const char *path, const char *value) {
        char *p, *v;

        if (array_reserve_one((void **) &j->entries, j->n_entries, &j->n_allocated, sizeof(JournalEntry)) < 0)
                return -ENOMEM;
        if (2 * (j->n_entries + 1) > j->index_mask + 1 && index_rebuild(j, j->n_entries + 1) < 0)
                return -ENOMEM;
        p = strdup(path);
        v = strdup(value);
        if (!p || !v) {
                free(p);
                free(v);
                return -ENOMEM;
        }
        j->entries[j->n_entries] = (JournalEntry) { .path = p, .value = v };
        index_insert(j, j->n_entries++);
        return 0;
}

/* Re-fills the index from the entries, in place (it has room for them:
 * entries only ever shrink between two index_rebuild()). */
static void index_refill(Journal *j) {
        if (!j->index)
                return;
        memset(j->index, 0, (j->index_mask + 1) * sizeof(size_t));
        for (size_t i = 0; i < j->n_entries; i++)
                index_insert(j, i);
}

/* Drops the entries whose path was set to NULL (freed by the caller),
 * keeping the others oldest first.  Returns the number dropped. */
static size_t journal_compact(Journal *j) {
        size_t kept = 0, n_before = j->n_entries;

        for (size_t i = 0; i < j->n_entries; i++)
                if (j->entries[i].path)
                        j->entries[kept++] = j->entries[i];
        j->n_entries = kept;
        if (kept != n_before)
                index_refill(j);
        return n_before - kept;
}

/* Writes the line "a SEP b\n" (SEP: sep, which may be "") to fd with one
 * write.  Returns 0 or a negative errno. */
static int write_line(int fd, const char *a, const char *sep, const char *b) {
        _cleanup_free_ char *line = NULL;
        int n = asprintf(&line, "%s%s%s\n", a, sep, b);

        if (n < 0)
                return -ENOMEM;
        return write_all(fd, line, (size_t) n);
}

/* Makes a newly created or renamed file's directory entry durable.
 * Returns 0 or a negative errno. */
static int journal_sync_dir(Journal *j) {
        return fsync(j->dir_fd) < 0 ? -errno : 0;
}

/* Writes the whole journal (header plus entries) to fd.  Returns 0 or a
 * negative errno. */
static int journal_write_all(Journal *j, int fd) {
        int r = write_line(fd, JOURNAL_HEADER, "", j->root);

        for (size_t i = 0; r >= 0 && i < j->n_entries; i++)
                r = write_line(fd, j->entries[i].path, " ", j->entries[i].value);
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        return r;
}

/* Replaces the file with the in-memory entries (atomically, via a
 * temporary file), or deletes it when there are none.  Returns 0 or a
 * negative errno. */
static int journal_rewrite(Journal *j) {
        _cleanup_close_ int fd = -1;
        int r;

        fileio_closep(&j->fd);
        if (j->n_entries == 0) {
                if (unlinkat(j->dir_fd, JOURNAL_FILE, 0) < 0 && errno != ENOENT)
                        return -errno;
                return journal_sync_dir(j);
        }
        fd = openat(j->dir_fd, JOURNAL_TMP_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        r = journal_write_all(j, fd);
        if (r >= 0 && renameat(j->dir_fd, JOURNAL_TMP_FILE, j->dir_fd, JOURNAL_FILE) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlinkat(j->dir_fd, JOURNAL_TMP_FILE, 0);
                return r;
        }
        r = journal_sync_dir(j);
        if (r < 0)
                return r;
        /* fd still holds the renamed file, opened O_WRONLY without O_APPEND:
         * reopen for appending (closing it first, or one fd leaks per rewrite). */
        fileio_closep(&fd);
        fd = openat(j->dir_fd, JOURNAL_FILE, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        j->fd = TAKE_FD(fd);
        return 0;
}

/* Opens a new, empty journal file with its header.  Returns 0 or a
 * negative errno. */
static int journal_create_file(Journal *j) {
        _cleanup_close_ int fd = -1;
        int r;

        fd = openat(j->dir_fd, JOURNAL_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        r = write_line(fd, JOURNAL_HEADER, "", j->root);
        if (r < 0)
                return r;
        j->fd = TAKE_FD(fd);
        return 0;
}

/* Returns true if path is a knob the daemon writes (knob.h, or a
 * workload's: knob-workload.h) and value one it may hold; else *ret_why
 * (may be NULL) says which is wrong. */
static bool journal_entry_valid(const char *path, const char *value, const char **ret_why) {
        WorkloadKnob wk;
        KnobKind kind;
        unsigned cpu;
        const char *why = NULL;

        if (knob_parse_path(path, &kind, &cpu) >= 0)
                why = knob_value_valid(value) ? NULL : "not a valid knob value";
        else if (knob_workload_parse(path, &wk) >= 0)
                why = knob_workload_value_valid(&wk, value) ? NULL : "not a valid CPU list";
        else
                why = "not a knob the daemon writes";
        if (ret_why)
                *ret_why = why;
        return !why;
}

/* Returns 1 if recorded now, 0 if known, or a negative errno. */
int journal_record(Journal *j, const char *path, const char *original) {
        int r;

        if (journal_find(j, path) >= 0)
                return 0;
        if (!journal_entry_valid(path, original, NULL))
                return -EINVAL;
        if (j->fd < 0) {
                r = journal_create_file(j);
                if (r < 0)
                        return r;
        }
        r = write_line(j->fd, path, " ", original);
        if (r >= 0 && fsync(j->fd) < 0)
                r = -errno;
        if (r >= 0)
                r = journal_sync_dir(j);
        if (r < 0) {
                /* Do not leave a torn line for the next append to run into. */
                (void) journal_rewrite(j);
                return r;
        }
        r = journal_add_entry(j, path, original);
        return r < 0 ? r : 1;
}

/* Returns 0 or a negative errno. */
int journal_forget(Journal *j, char *const *paths, size_t n_paths) {
        for (size_t i = 0; i < n_paths; i++) {
                ssize_t k = journal_find(j, paths[i]);
                if (k < 0)
                        continue;
                free(j->entries[k].path);
                free(j->entries[k].value);
                j->entries[k] = (JournalEntry) {};
        }
        return journal_compact(j) > 0 ? journal_rewrite(j) : 0;
}

/* Splits "path value" in place.  Returns 0, or -EINVAL with *ret_why
 * saying what is wrong (never quoting the line). */
static int journal_parse_entry(char *line, const char **ret_path, const char **ret_value, const char **ret_why) {
        char *sep = strchr(line, ' ');

        if (!sep) {
                *ret_why = "not \"PATH VALUE\"";
                return -EINVAL;
        }
        *sep = '\0';
        if (!journal_entry_valid(line, sep + 1, ret_why))
                return -EINVAL;
        *ret_path = line;
        *ret_value = sep + 1;
        return 0;
}

/* What journal_load() found besides the entries, for one summary. */
typedef struct JournalLoadStats {
        size_t corrupt, duplicates, over_limit;
} JournalLoadStats;

/* Takes one line of an old journal into memory.  Returns 0 (corrupt lines
 * are logged by number and reason, never by content, and skipped), -EXDEV
 * for a header naming another root, or -ENOMEM. */
static int journal_load_line(Journal *j, char *line, unsigned lineno, bool complete, JournalLoadStats *st) {
        const char *path, *value, *why = "torn write (no newline at the end)";

        if (strncmp(line, JOURNAL_HEADER, strlen(JOURNAL_HEADER)) == 0) {
                if (strcmp(line + strlen(JOURNAL_HEADER), j->root) == 0)
                        return 0;
                log_error("%s:%u: the restore journal was written for another root than %s: "
                          "start with the --root its header names to restore it.", j->path, lineno, j->root);
                return -EXDEV;
        }
        if (!complete || journal_parse_entry(line, &path, &value, &why) < 0) {
                /* The first few by line, the rest only counted. */
                if (st->corrupt++ < 10)
                        log_warning("%s:%u: %s, skipping the line.", j->path, lineno, why);
                return 0;
        }
        if (journal_find(j, path) >= 0) {
                st->duplicates++;
                return 0;
        }
        if (j->n_entries >= JOURNAL_MAX_ENTRIES) {
                st->over_limit++;
                return 0;
        }
        return journal_add_entry(j, path, value);
}

/* Parses an old journal into j->entries, in time linear in its length.
 * Returns 0, -EXDEV, -EINTR (SIGTERM or SIGINT arrived) or -ENOMEM. */
static int journal_load(Journal *j, char *text) {
        JournalLoadStats st = {};
        unsigned lineno = 0;
        char *p = text;

        while (*p) {
                char *nl = strchr(p, '\n');
                int r;

                if (nl)
                        *nl = '\0';
                r = journal_load_line(j, p, ++lineno, nl != NULL, &st);
                if (r < 0)
                        return r;
                if (lineno % 4096 == 0 && exit_requested())
                        return -EINTR;
                if (!nl)
                        break;
                p = nl + 1;
        }
        if (st.corrupt > 0)
                log_warning("%s: skipped %zu corrupt line(s).", j->path, st.corrupt);
        if (st.duplicates > 0)
                log_notice("%s: %zu line(s) repeat a knob already listed, the first original wins.", j->path, st.duplicates);
        if (st.over_limit > 0)
                log_error("%s: more than %d knobs, ignoring the %zu beyond.", j->path, JOURNAL_MAX_ENTRIES, st.over_limit);
        return 0;
}

/* Reads the online CPUs.  Returns 0 or a negative errno. */
static int read_online(int root_fd, CpuSet *ret) {
        char buf[4096];
        int r = fileio_read_string_at(root_fd, SYSFS_CPU_ONLINE, buf, sizeof(buf));

        return r < 0 ? r : cpuset_parse(buf, ret, NULL);
}

/* How one journal_restore_*() call goes. */
typedef struct RestoreRun {
        JournalFilter want;
        void *userdata;
        bool at_start;              /* replaying a killed run's journal: a knob still
                                     * missing after the wait is gone for good, and
                                     * SIGTERM/SIGINT interrupt */
        CpuSet online;
        bool online_known;
        size_t n_offline, n_failed, n_vanished;
        size_t n_deferred;          /* unit knobs kept until a bus is set */
        size_t n_kept;              /* wteo tolerances kept until wteo governs again */
        int n_restored;
        char failed[sizeof(((ErrorInfo *) NULL)->message)];
} RestoreRun;

/* Returns true if the kernel lists governor in available_governors. */
static bool governor_offered(int root_fd, const char *governor) {
        CpuidleSystem sys;
        ErrorInfo e = {};

        return cpuidle_system_load(root_fd, &sys, &e) >= 0 && cpuidle_system_has_governor(&sys, governor);
}

/* Returns true if the governor in force is wteo. */
static bool wteo_governs(int root_fd) {
        char governor[64];

        if (fileio_read_string_at(root_fd, SYSFS_CPUIDLE_GOVERNOR, governor, sizeof(governor)) < 0 &&
            fileio_read_string_at(root_fd, SYSFS_CPUIDLE_GOVERNOR_RO, governor, sizeof(governor)) < 0)
                return false;
        return strcmp(governor, CPUIDLE_GOVERNOR_WTEO) == 0;
}

/* A knob's file is missing.  Returns -EAGAIN when it is an idle state of
 * an online CPU (its directory is being recreated: a governor switch), or
 * the wteo tolerance of an online CPU while wteo governs (its group is
 * being made: a governor switch back to wteo, put back just before);
 * RESTORE_KEPT for a wteo tolerance while wteo does not govern (the kernel
 * keeps the value across the switch: the daemon's value is still there
 * and comes back into force with wteo, so the original stays journaled
 * until its file is back); 0 when it is gone for good (logged). */
static int knob_missing(const RestoreRun *run, int root_fd, const JournalEntry *e, const KnobId *id) {
        bool online = run->online_known && cpuset_contains(&run->online, id->cpu);

        if (id->kind == KNOB_STATE_DISABLE && online)
                return -EAGAIN;
        if (id->kind == KNOB_WTEO_TOLERANCE)
                return online && wteo_governs(root_fd) ? -EAGAIN : RESTORE_KEPT;
        log_notice("%s no longer exists, forgetting its original value.", e->path);
        return 0;
}

/* Puts one workload knob back (knob-workload.h): one whose thread,
 * cgroup or unit is gone has nothing left to restore.  A knob gone at the
 * read is still written: a unit systemd has not loaded now may exist on
 * disk, and its write says whether it is gone.  Returns 1, 0 (gone),
 * -ENOTCONN for a unit while no bus is set (not now: kept, not a
 * failure), or a negative errno (logged). */
static int restore_workload(const WorkloadKnob *k, const JournalEntry *e) {
        _cleanup_free_ char *current = malloc(KNOB_CPULIST_MAX);
        int r;

        if (!current)
                return -ENOMEM;
        r = knob_workload_read(k, current, KNOB_CPULIST_MAX);
        if (r >= 0 && strcmp(current, e->value) == 0)
                return 1;
        if (r >= 0 || r == -ENOENT)
                r = knob_workload_write(k, e->value);
        if (r == -ENOTCONN)
                return r;
        if (r == -ENOENT) {
                log_debug("%s is gone, nothing to put back.", e->path);
                return 0;
        }
        if (r < 0)
                return log_error_errno(r, "Failed to restore %s to \"%s\": %m", e->path, e->value);
        log_debug("Restored %s to \"%s\".", e->path, e->value);
        return 1;
}

/* Puts one knob back.  Returns 1 if written or already right, 0 if skipped
 * for good (an offline CPU, a file that no longer exists, a governor the
 * kernel does not offer), -EAGAIN if its directory is missing for now,
 * -ENOTCONN for a unit knob without a bus, or another negative errno
 * (logged). */
static int journal_restore_one(int root_fd, RestoreRun *run, const JournalEntry *e) {
        char current[KNOB_VALUE_MAX + 1];
        WorkloadKnob wk;
        KnobId id;
        int r;

        if (knob_workload_parse(e->path, &wk) >= 0)
                return restore_workload(&wk, e);
        if (knob_parse(e->path, &id) < 0)
                return 0;
        if (id.kind == KNOB_STATE_DISABLE && run->online_known && !cpuset_contains(&run->online, id.cpu)) {
                log_debug("CPU %u is offline, not restoring %s.", id.cpu, e->path);
                run->n_offline++;
                return 0;
        }
        r = fileio_read_string_at(root_fd, e->path, current, sizeof(current));
        if (r >= 0 && strcmp(current, e->value) == 0)
                return 1;
        if (r == -ENOENT)
                return knob_missing(run, root_fd, e, &id);
        if (id.kind == KNOB_GOVERNOR && !governor_offered(root_fd, e->value)) {
                log_error("%s: the recorded governor is not one the kernel offers (available_governors), not restoring it.",
                          e->path);
                return 0;
        }
        r = knob_write(root_fd, e->path, e->value);
        if (r == -ENOENT)
                return knob_missing(run, root_fd, e, &id);
        if (r < 0)
                return log_error_errno(r, "Failed to restore %s to \"%s\": %m", e->path, e->value);
        /* A state directory recreated between the open and the write (on a
         * test tree, where a stale fd still writes) loses the write: check. */
        if (id.kind == KNOB_STATE_DISABLE &&
            (fileio_read_string_at(root_fd, e->path, current, sizeof(current)) < 0 || strcmp(current, e->value) != 0))
                return -EAGAIN;
        log_debug("Restored %s to \"%s\".", e->path, e->value);
        return 1;
}

/* Notes a knob that could not be put back in run->failed. */
static void run_add_failed(RestoreRun *run, const char *path, const char *why) {
        size_t len = strlen(run->failed);

        run->n_failed++;
        snprintf(run->failed + len, sizeof(run->failed) - len, "%s%s%s", run->n_failed > 1 ? ", " : "", path, why);
}

/* Tries every wanted entry (only_vanished: those whose directory was
 * missing) once, newest first; frees those done with.  Returns 0 or -EINTR. */
static int restore_pass(Journal *j, int root_fd, RestoreRun *run, bool only_vanished) {
        run->online_known = read_online(root_fd, &run->online) >= 0;
        run->n_vanished = 0;
        for (size_t i = j->n_entries, n = 0; i-- > 0; n++) {
                JournalEntry *x = &j->entries[i];
                int r;

                if (!x->path || (only_vanished && !x->vanished) || (run->want && !run->want(x->path, run->userdata)))
                        continue;
                if (run->at_start && n % 4096 == 4095 && exit_requested())
                        return -EINTR;
                r = journal_restore_one(root_fd, run, x);
                x->vanished = r == -EAGAIN;
                if (r == -EAGAIN) {
                        run->n_vanished++;
                        continue;
                }
                if (r == -ENOTCONN || r == RESTORE_KEPT) {
                        *(r == RESTORE_KEPT ? &run->n_kept : &run->n_deferred) += 1;
                        continue;
                }
                if (r < 0) {
                        run_add_failed(run, x->path, "");
                        continue;
                }
                run->n_restored += r;
                free(x->path);
                free(x->value);
                *x = (JournalEntry) {};
        }
        return 0;
}

/* Settles the knobs still missing after the wait: forgotten at start-up,
 * failures (kept) otherwise. */
static void restore_settle_vanished(Journal *j, RestoreRun *run) {
        for (size_t i = 0; run->n_vanished > 0 && i < j->n_entries; i++) {
                JournalEntry *x = &j->entries[i];

                if (!x->path || !x->vanished)
                        continue;
                x->vanished = false;
                if (!run->at_start) {
                        run_add_failed(run, x->path, " (its idle state directory is missing)");
                        continue;
                }
                log_notice("%s is still missing after %llu ms, forgetting its original value.",
                           x->path, JOURNAL_VANISHED_WAIT_USEC / 1000);
                free(x->path);
                free(x->value);
                *x = (JournalEntry) {};
        }
}

/* Returns the number put back, -EIO with e set, or -EINTR (at start-up,
 * SIGTERM or SIGINT arrived: the knobs not yet restored stay). */
static int journal_restore_run(Journal *j, int root_fd, RestoreRun *run, ErrorInfo *e) {
        int r;

        r = restore_pass(j, root_fd, run, false);
        for (uint64_t waited = 0; r >= 0 && run->n_vanished > 0 && waited < JOURNAL_VANISHED_WAIT_USEC;
             waited += JOURNAL_VANISHED_STEP_USEC) {
                if (run->at_start && exit_requested()) {
                        r = -EINTR;
                        break;
                }
                (void) usleep(JOURNAL_VANISHED_STEP_USEC);
                r = restore_pass(j, root_fd, run, true);
        }
        if (r >= 0)
                restore_settle_vanished(j, run);
        if (run->n_offline > 0)
                log_notice("Not restoring %zu idle state knob(s) of offline CPUs: the kernel recreates their states "
                           "with their defaults when they come back.", run->n_offline);
        if (run->n_deferred > 0)
                log_notice("Keeping %zu unit knob(s) in the restore journal until the system bus is there.",
                           run->n_deferred);
        if (run->n_kept > 0)
                log_notice("Keeping %zu wteo tolerance(s) in the restore journal: wteo does not govern their CPUs now, "
                           "and the kernel keeps the value set until it does; a later start puts them back.",
                           run->n_kept);
        if (journal_compact(j) > 0 || j->fd < 0) {
                int q = journal_rewrite(j);
                if (q < 0)
                        log_error_errno(q, "Failed to update restore journal %s: %m", j->path);
        }
        if (r < 0)
                return r;
        if (run->n_failed > 0)
                return errinfo_set(e, -EIO, "Failed to restore %zu knob(s): %s", run->n_failed, run->failed);
        return run->n_restored;
}

/* Returns the number of knobs put back, or -EIO with e set. */
int journal_restore_some(Journal *j, int root_fd, JournalFilter want, void *userdata, ErrorInfo *e) {
        RestoreRun run = { .want = want, .userdata = userdata };

        return journal_restore_run(j, root_fd, &run, e);
}

int journal_restore(Journal *j, int root_fd, ErrorInfo *e) {
        return journal_restore_some(j, root_fd, NULL, NULL, e);
}

const char *journal_original(const Journal *j, const char *path) {
        ssize_t k = journal_find(j, path);

        return k >= 0 ? j->entries[k].value : NULL;
}

/* A journal that cannot be trusted (a symbolic link, not a regular file,
 * not the daemon's own, too large, unreadable) is never read: it is moved
 * aside to JOURNAL_REJECTED_FILE for the administrator and the daemon
 * starts with an empty one.  Returns 0, or a negative errno when it cannot
 * even be moved (logged; the daemon then cannot journal safely). */
static int journal_reject(Journal *j, int error) {
        log_error("Refusing restore journal %s: %s; moving it aside to %s, the knobs it lists are not put back.",
                  j->path, fileio_error_reason(error), JOURNAL_REJECTED_FILE);
        if (renameat(j->dir_fd, JOURNAL_FILE, j->dir_fd, JOURNAL_REJECTED_FILE) < 0)
                return log_error_errno(errno, "Failed to move %s aside: %m", j->path);
        return journal_sync_dir(j) < 0 ? -EIO : 0;
}

/* Returns the number of knobs found, -EXDEV, or a negative errno. */
int journal_replay(Journal *j, int root_fd) {
        _cleanup_free_ char *text = NULL;
        RestoreRun run = { .at_start = true };
        ErrorInfo e = {};
        size_t size, n;
        int r;

        (void) unlinkat(j->dir_fd, JOURNAL_TMP_FILE, 0);
        r = fileio_read_regular_at(j->dir_fd, JOURNAL_FILE, JOURNAL_FILE_MAX, FILEIO_NOFOLLOW | FILEIO_OWNER_EUID,
                                   &text, &size);
        if (r == -ENOENT)
                return 0;
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return journal_reject(j, r);
        r = journal_load(j, text);
        if (r < 0) {
                journal_clear_entries(j);
                return r;
        }
        n = j->n_entries;
        log_notice("Found restore journal %s with %zu knob(s): the previous run did not exit cleanly, restoring them.",
                   j->path, n);
        r = journal_restore_run(j, root_fd, &run, &e);
        if (r == -EINTR) {
                log_notice("Interrupted: %zu knob(s) stay in %s for the next start.", j->n_entries, j->path);
                journal_clear_entries(j);
                return r;
        }
        if (r < 0)
                log_error("%s; keeping them in the journal, continuing.", e.message);
        else
                log_notice("Restored %d knob(s) from the restore journal.", r);
        return (int) n;
}
