/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuset.h"
#include "fileio.h"
#include "fs-util.h"
#include "journal.h"
#include "knob.h"
#include "log.h"
#include "macro.h"

#define JOURNAL_TMP_FILE JOURNAL_FILE ".tmp"
#define JOURNAL_HEADER "# idlepolicyd restore journal v1 root="
#define JOURNAL_MAX_ENTRIES 100000

struct Journal {
        int dir_fd;                 /* the runtime directory */
        int lock_fd;
        int fd;                     /* the journal file, -1 while it does not exist */
        char *root;
        char *path;                 /* of the journal file, for messages */
        JournalEntry *entries;
        size_t n_entries;
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
        j->entries = NULL;
        j->n_entries = 0;
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

/* Returns the index of path, or -1. */
static ssize_t journal_find(const Journal *j, const char *path) {
        for (size_t i = 0; i < j->n_entries; i++)
                if (strcmp(j->entries[i].path, path) == 0)
                        return (ssize_t) i;
        return -1;
}

/* Appends an entry in memory only.  Returns 0 or -ENOMEM. */
static int journal_add_entry(Journal *j, const char *path, const char *value) {
        JournalEntry *n = realloc(j->entries, (j->n_entries + 1) * sizeof(JournalEntry));
        char *p, *v;

        if (!n)
                return -ENOMEM;
        j->entries = n;
        p = strdup(path);
        v = strdup(value);
        if (!p || !v) {
                free(p);
                free(v);
                return -ENOMEM;
        }
        j->entries[j->n_entries++] = (JournalEntry) { .path = p, .value = v };
        return 0;
}

/* Writes a line to fd.  Returns 0 or a negative errno. */
static int write_line(int fd, const char *a, const char *b) {
        char line[512];
        int n = snprintf(line, sizeof(line), "%s%s\n", a, b);

        if (n < 0 || (size_t) n >= sizeof(line))
                return -ENAMETOOLONG;
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
        int r = write_line(fd, JOURNAL_HEADER, j->root);

        for (size_t i = 0; r >= 0 && i < j->n_entries; i++) {
                char line[KNOB_PATH_MAX + KNOB_VALUE_MAX + 2];
                snprintf(line, sizeof(line), "%s %s", j->entries[i].path, j->entries[i].value);
                r = write_line(fd, line, "");
        }
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
        r = write_line(fd, JOURNAL_HEADER, j->root);
        if (r < 0)
                return r;
        j->fd = TAKE_FD(fd);
        return 0;
}

/* Returns 1 if recorded now, 0 if known, or a negative errno. */
int journal_record(Journal *j, const char *path, const char *original) {
        char line[KNOB_PATH_MAX + KNOB_VALUE_MAX + 2];
        KnobKind kind;
        unsigned cpu;
        int r;

        if (journal_find(j, path) >= 0)
                return 0;
        if (knob_parse_path(path, &kind, &cpu) < 0 || !knob_value_valid(original))
                return -EINVAL;
        if (j->fd < 0) {
                r = journal_create_file(j);
                if (r < 0)
                        return r;
        }
        snprintf(line, sizeof(line), "%s %s", path, original);
        r = write_line(j->fd, line, "");
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
        bool changed = false;

        for (size_t i = 0; i < n_paths; i++) {
                ssize_t k = journal_find(j, paths[i]);
                if (k < 0)
                        continue;
                free(j->entries[k].path);
                free(j->entries[k].value);
                memmove(j->entries + k, j->entries + k + 1, (j->n_entries - (size_t) k - 1) * sizeof(JournalEntry));
                j->n_entries--;
                changed = true;
        }
        return changed ? journal_rewrite(j) : 0;
}

/* Copies a line for a log message, replacing what is not printable. */
static const char *sanitize(const char *s, char buf[static 81]) {
        size_t i = 0;

        for (; s[i] && i < 80; i++)
                buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
        buf[i] = '\0';
        return buf;
}

/* Splits "path value" in place.  Returns 0, or -EINVAL for anything that
 * is not a knob path followed by a valid value. */
static int journal_parse_entry(char *line, const char **ret_path, const char **ret_value) {
        char *sep = strchr(line, ' ');
        KnobKind kind;
        unsigned cpu;

        if (!sep)
                return -EINVAL;
        *sep = '\0';
        if (knob_parse_path(line, &kind, &cpu) < 0 || !knob_value_valid(sep + 1)) {
                *sep = ' ';
                return -EINVAL;
        }
        *ret_path = line;
        *ret_value = sep + 1;
        return 0;
}

/* Takes one line of an old journal into memory.  Returns 0 (corrupt lines
 * are logged and skipped), -EXDEV for a header naming another root, or
 * -ENOMEM. */
static int journal_load_line(Journal *j, char *line, unsigned lineno, bool complete) {
        const char *path, *value;
        char buf[81];

        if (strncmp(line, JOURNAL_HEADER, strlen(JOURNAL_HEADER)) == 0) {
                const char *root = line + strlen(JOURNAL_HEADER);
                if (strcmp(root, j->root) == 0)
                        return 0;
                log_error("Restore journal %s was written for root %s, not %s: start with --root %s to restore it.",
                          j->path, sanitize(root, buf), j->root, sanitize(root, buf));
                return -EXDEV;
        }
        if (!complete || journal_parse_entry(line, &path, &value) < 0) {
                log_warning("%s:%u: corrupt line \"%s\"%s, skipping.", j->path, lineno,
                            sanitize(line, buf), complete ? "" : " (torn write)");
                return 0;
        }
        if (journal_find(j, path) >= 0 || j->n_entries >= JOURNAL_MAX_ENTRIES)
                return 0;
        return journal_add_entry(j, path, value);
}

/* Parses an old journal into j->entries.  Returns 0, -EXDEV or -ENOMEM. */
static int journal_load(Journal *j, char *text) {
        unsigned lineno = 0;
        char *p = text;

        while (*p) {
                char *nl = strchr(p, '\n');
                int r;

                if (nl)
                        *nl = '\0';
                r = journal_load_line(j, p, ++lineno, nl != NULL);
                if (r < 0)
                        return r;
                if (!nl)
                        break;
                p = nl + 1;
        }
        return 0;
}

/* Reads the online CPUs.  Returns 0 or a negative errno. */
static int read_online(int root_fd, CpuSet *ret) {
        char buf[4096];
        int r = fileio_read_string_at(root_fd, "sys/devices/system/cpu/online", buf, sizeof(buf));

        return r < 0 ? r : cpuset_parse(buf, ret, NULL);
}

/* Puts one knob back.  Returns 1 if written or already right, 0 if skipped
 * for good (an offline CPU, a file that no longer exists), or a negative
 * errno (logged). */
static int journal_restore_one(int root_fd, const CpuSet *online, const JournalEntry *e) {
        char current[KNOB_VALUE_MAX + 1];
        KnobKind kind;
        unsigned cpu;
        int r;

        if (knob_parse_path(e->path, &kind, &cpu) < 0)
                return 0;
        if (kind == KNOB_STATE_DISABLE && online && !cpuset_contains(online, cpu)) {
                log_notice("CPU %u is offline, not restoring %s: the kernel recreates its idle states with their defaults when it comes back.",
                           cpu, e->path);
                return 0;
        }
        r = fileio_read_string_at(root_fd, e->path, current, sizeof(current));
        if (r >= 0 && strcmp(current, e->value) == 0)
                return 1;
        if (r != -ENOENT)
                r = knob_write(root_fd, e->path, e->value);
        if (r == -ENOENT) {
                log_notice("%s no longer exists, forgetting its original value \"%s\".", e->path, e->value);
                return 0;
        }
        if (r < 0)
                return log_error_errno(r, "Failed to restore %s to \"%s\": %m", e->path, e->value);
        log_debug("Restored %s to \"%s\".", e->path, e->value);
        return 1;
}

/* Returns the number of knobs put back, or -EIO with e set. */
int journal_restore_some(Journal *j, int root_fd, JournalFilter want, void *userdata, ErrorInfo *e) {
        char failed[sizeof(e->message)] = "";
        CpuSet online;
        bool online_known = read_online(root_fd, &online) >= 0;
        size_t n_failed = 0, kept = 0, n_before = j->n_entries;
        int n_restored = 0, r;

        for (size_t i = j->n_entries; i-- > 0; ) {
                JournalEntry *x = &j->entries[i];

                if (want && !want(x->path, userdata))
                        continue;
                r = journal_restore_one(root_fd, online_known ? &online : NULL, x);
                if (r < 0) {
                        n_failed++;
                        snprintf(failed + strlen(failed), sizeof(failed) - strlen(failed), "%s%s", n_failed > 1 ? ", " : "", x->path);
                        continue;
                }
                n_restored += r;
                free(x->path);
                free(x->value);
                x->path = x->value = NULL;
        }
        /* Compact: keep the failed (and unwanted) entries, oldest first. */
        for (size_t i = 0; i < j->n_entries; i++)
                if (j->entries[i].path)
                        j->entries[kept++] = j->entries[i];
        j->n_entries = kept;
        r = kept == n_before && j->fd >= 0 ? 0 : journal_rewrite(j);
        if (r < 0)
                log_error_errno(r, "Failed to update restore journal %s: %m", j->path);
        if (n_failed > 0)
                return errinfo_set(e, -EIO, "Failed to restore %zu knob(s): %s", n_failed, failed);
        return n_restored;
}

int journal_restore(Journal *j, int root_fd, ErrorInfo *e) {
        return journal_restore_some(j, root_fd, NULL, NULL, e);
}

const char *journal_original(const Journal *j, const char *path) {
        ssize_t k = journal_find(j, path);

        return k >= 0 ? j->entries[k].value : NULL;
}

/* Returns the number of knobs found, -EXDEV, or a negative errno. */
int journal_replay(Journal *j, int root_fd) {
        _cleanup_free_ char *text = NULL;
        ErrorInfo e = {};
        size_t size, n;
        int r;

        (void) unlinkat(j->dir_fd, JOURNAL_TMP_FILE, 0);
        r = fileio_read_alloc_at(j->dir_fd, JOURNAL_FILE, &text, &size);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return log_error_errno(r, "Failed to read restore journal %s: %m", j->path);
        r = journal_load(j, text);
        if (r < 0) {
                journal_clear_entries(j);
                return r;
        }
        n = j->n_entries;
        log_notice("Found restore journal %s with %zu knob(s): the previous run did not exit cleanly, restoring them.",
                   j->path, n);
        r = journal_restore(j, root_fd, &e);
        if (r < 0)
                log_error("%s; keeping them in the journal, continuing.", e.message);
        else
                log_notice("Restored %d knob(s) from the restore journal.", r);
        return (int) n;
}
