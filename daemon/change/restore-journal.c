/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "exit-request.h"
#include "fileio.h"
#include "fs-util.h"
#include "log.h"
#include "restore-journal.h"
#include "safe-dir.h"

/* Where versions before the random temporary names wrote a rewrite. */
#define TMP_FILE RESTORE_JOURNAL_FILE ".tmp"
#define HEADER_V1 "# idlepolicyd restore journal v1 root="
#define HEADER "# idlepolicyd restore journal v2 root="
#define FORGET_MARK '-'
/* 100000 records of at most a key and a value, and forgets: the largest
 * file read. */
#define FILE_MAX (16 * 1024 * 1024)
/* Rewritten when the file holds this many times what is live, and more
 * than REWRITE_SLACK bytes besides. */
#define REWRITE_FACTOR 4
#define REWRITE_SLACK (64 * 1024)

struct RestoreJournal {
        int dir_fd;                 /* the runtime directory */
        int lock_fd;
        int fd;                     /* the file (O_APPEND), -1 while it does not exist */
        char *root;
        char *path;                 /* of the file, for messages */
        size_t size;                /* bytes in the file now */
        bool unsynced;              /* forgets written since the last fsync */
        bool detached;              /* restore_journal_detach(): the file is left alone */
        unsigned long long written; /* bytes written since the start */
};

/* Returns 0, -EBUSY or a negative errno. */
static int journal_lock(RestoreJournal *j) {
        j->lock_fd = openat(j->dir_fd, RESTORE_JOURNAL_LOCK_FILE,
                            O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0600);
        if (j->lock_fd < 0)
                return -errno;
        if (flock(j->lock_fd, LOCK_EX | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? -EBUSY : -errno;
        return 0;
}

/* Opens the runtime directory, checked (safe-dir.h): a journal anyone
 * else could plant, replace or remove is no promise.  Returns 0 or a
 * negative errno (logged). */
static int journal_dir(RestoreJournal *j, const char *runtime_dir) {
        ErrorInfo e = {};
        int r;

        r = mkdir_parents(runtime_dir);
        if (r < 0)
                return log_error_errno(r, "Failed to create runtime directory %s: %m", runtime_dir);
        r = safe_dir_open(runtime_dir, &e);
        if (r == -EPERM)
                return log_error_errno(r, "Refusing runtime directory %s: %s: the restore journal cannot be kept "
                                       "safe there.", runtime_dir, e.message);
        if (r < 0)
                return log_error_errno(r, "Failed to open runtime directory %s: %s", runtime_dir, e.message);
        j->dir_fd = r;
        return 0;
}

/* Returns 0, -EBUSY or a negative errno (logged). */
int restore_journal_open(const char *runtime_dir, const char *root, RestoreJournal **ret) {
        _cleanup_(restore_journal_freep) RestoreJournal *j = calloc(1, sizeof(RestoreJournal));
        int r;

        if (!j)
                return log_oom();
        j->dir_fd = j->lock_fd = j->fd = -1;
        j->root = strdup(root);
        if (!j->root || asprintf(&j->path, "%s/%s", runtime_dir, RESTORE_JOURNAL_FILE) < 0) {
                j->path = NULL;
                return log_oom();
        }
        r = journal_dir(j, runtime_dir);
        if (r < 0)
                return r;
        r = journal_lock(j);
        if (r == -EBUSY)
                return log_error_errno(r, "Another idlepolicyd holds %s/%s, refusing to start.", runtime_dir,
                                       RESTORE_JOURNAL_LOCK_FILE);
        if (r < 0)
                return log_error_errno(r, "Failed to lock %s/%s: %m", runtime_dir, RESTORE_JOURNAL_LOCK_FILE);
        *ret = TAKE_PTR(j);
        return 0;
}

/* Returns NULL. */
RestoreJournal *restore_journal_free(RestoreJournal *j) {
        if (!j)
                return NULL;
        fileio_closep(&j->fd);
        fileio_closep(&j->lock_fd);
        fileio_closep(&j->dir_fd);
        free(j->root);
        free(j->path);
        free(j);
        return NULL;
}

void restore_journal_freep(RestoreJournal **j) {
        restore_journal_free(*j);
}

const char *restore_journal_path(const RestoreJournal *j) {
        return j->path;
}

unsigned long long restore_journal_bytes_written(const RestoreJournal *j) {
        return j->written;
}

size_t restore_record_bytes(const char *key, const char *value) {
        return strlen(key) + 1 + strlen(value) + 1;
}

/* Writes text to fd (one write where the kernel allows) and counts it.
 * Returns 0 or a negative errno. */
static int journal_write(RestoreJournal *j, int fd, const char *text, size_t len) {
        int r = write_all(fd, text, len);

        if (r >= 0)
                j->written += len;
        return r;
}

/* Makes a newly created or renamed file's directory entry durable (with
 * sync).  Returns 0 or a negative errno. */
static int sync_dir(RestoreJournal *j, bool sync) {
        return sync && fsync(j->dir_fd) < 0 ? -errno : 0;
}

/* The header line, malloc'ed.  Returns it or NULL. */
static char *header_line(const RestoreJournal *j) {
        char *s = NULL;

        return asprintf(&s, HEADER "%s\n", j->root) < 0 ? NULL : s;
}

/* Writes the header and the records to fd.  Returns 0 or a negative
 * errno. */
static int write_records(RestoreJournal *j, int fd, const RestoreRecord *live, size_t n, size_t *ret_size) {
        _cleanup_free_ char *text = header_line(j);
        size_t size = 0;
        int r;

        if (!text)
                return -ENOMEM;
        r = journal_write(j, fd, text, strlen(text));
        size += strlen(text);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                free(text);
                if (asprintf(&text, "%s %s\n", live[i].key, live[i].value) < 0) {
                        text = NULL;
                        return -ENOMEM;
                }
                r = journal_write(j, fd, text, strlen(text));
                size += strlen(text);
        }
        *ret_size = size;
        return r;
}

/* Writes the header and the records to a new file and publishes it as the
 * journal (new_file_open(): whatever someone left at the name is replaced,
 * never opened), with sync the records synced before the rename (a header
 * alone is made durable with the first record appended); *ret_fd gets it
 * for appending.  Returns 0 or a negative errno (the old file stays). */
static int publish_file(RestoreJournal *j, const RestoreRecord *live, size_t n, bool sync, int *ret_fd,
                        size_t *ret_size) {
        NewFile f = NEW_FILE_NULL;
        size_t size = 0;
        int r;

        r = new_file_open(j->dir_fd, RESTORE_JOURNAL_FILE, 0600, &f);
        if (r < 0)
                return r;
        r = write_records(j, f.fd, live, n, &size);
        if (r >= 0 && sync && n > 0 && fsync(f.fd) < 0)
                r = -errno;
        if (r >= 0 && fcntl(f.fd, F_SETFL, O_APPEND) < 0)
                r = -errno;
        if (r >= 0)
                r = new_file_publish(&f, j->dir_fd, RESTORE_JOURNAL_FILE);
        if (r >= 0)
                r = sync_dir(j, sync);
        if (r >= 0) {
                *ret_fd = TAKE_FD(f.fd);
                *ret_size = size;
        }
        new_file_done(&f, j->dir_fd);
        return r;
}

/* Creates the file with its header.  Returns 0 or a negative errno. */
static int create_file(RestoreJournal *j, bool sync) {
        return publish_file(j, NULL, 0, sync, &j->fd, &j->size);
}

/* Appends text to the file (creating it, its directory entry synced with
 * sync) without fsync.  Returns 0 or a negative errno; a torn append is
 * cut off again. */
static int append_text(RestoreJournal *j, const char *text, size_t len, bool sync) {
        int r;

        if (j->fd < 0) {
                r = create_file(j, sync);
                if (r < 0)
                        return r;
        }
        r = journal_write(j, j->fd, text, len);
        if (r < 0) {
                /* Do not leave a torn line for the next append to run into. */
                if (ftruncate(j->fd, (off_t) j->size) < 0)
                        log_error_errno(errno, "Failed to cut a torn line off %s: %m", j->path);
                return r;
        }
        j->size += len;
        return 0;
}

void restore_journal_detach(RestoreJournal *j) {
        fileio_closep(&j->fd);
        j->size = 0;
        j->unsynced = false;
        j->detached = true;
}

/* Returns 0 or a negative errno. */
int restore_journal_append(RestoreJournal *j, const RestoreRecord *records, size_t n, bool sync) {
        _cleanup_free_ char *text = NULL;
        size_t len = 0, size = 0;
        FILE *f;
        int r;

        if (n == 0)
                return 0;
        if (j->detached)
                return -ESTALE;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s %s\n", records[i].key, records[i].value);
        if (fclose(f) != 0)
                return -ENOMEM;
        len = size;
        r = append_text(j, text, len, sync);
        if (r >= 0 && sync && fsync(j->fd) < 0)
                r = -errno;
        if (r >= 0 && sync)
                j->unsynced = false;
        return r;
}

/* Returns 0 or a negative errno. */
int restore_journal_forget(RestoreJournal *j, const char *const *keys, size_t n, bool sync) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f;
        int r;

        if (n == 0 || j->fd < 0)
                return 0;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%c%s\n", FORGET_MARK, keys[i]);
        if (fclose(f) != 0)
                return -ENOMEM;
        r = append_text(j, text, size, sync);
        if (r >= 0 && sync)
                j->unsynced = true;
        return r;
}

/* Returns 0 or a negative errno. */
int restore_journal_sync(RestoreJournal *j) {
        if (!j->unsynced || j->fd < 0)
                return 0;
        if (fsync(j->fd) < 0)
                return -errno;
        j->unsynced = false;
        return 0;
}

bool restore_journal_wants_rewrite(const RestoreJournal *j, size_t live_bytes) {
        return j->fd >= 0 && j->size > REWRITE_SLACK && j->size > REWRITE_FACTOR * live_bytes;
}

/* Returns 0 or a negative errno. */
int restore_journal_rewrite(RestoreJournal *j, const RestoreRecord *live, size_t n, bool sync) {
        if (j->detached)
                return 0;
        fileio_closep(&j->fd);
        j->unsynced = false;
        j->size = 0;
        if (n == 0) {
                if (unlinkat(j->dir_fd, RESTORE_JOURNAL_FILE, 0) < 0 && errno != ENOENT)
                        return -errno;
                return sync_dir(j, sync);
        }
        return publish_file(j, live, n, sync, &j->fd, &j->size);
}

/* What a load found besides the records, for one summary. */
typedef struct LoadStats {
        size_t corrupt, over_limit;
} LoadStats;

/* Takes one line.  Returns 0 (a corrupt line is logged by number and
 * reason, never by content, and skipped), -EXDEV for a header naming
 * another root, or -ENOMEM. */
static int load_line(RestoreJournal *j, const RestoreJournalReader *rd, char *line, unsigned lineno, bool complete,
                     LoadStats *st) {
        const char *why = "torn write (no newline at the end)";
        char *sep;
        int r;

        static const char *const headers[] = { HEADER_V1, HEADER };

        for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++) {
                const char *h = headers[i];

                if (strncmp(line, h, strlen(h)) == 0) {
                        if (strcmp(line + strlen(h), j->root) == 0)
                                return 0;
                        log_error("%s:%u: the restore journal was written for another root than %s: "
                                  "start with the --root its header names to restore it.", j->path, lineno, j->root);
                        return -EXDEV;
                }
        }
        if (complete && line[0] == FORGET_MARK && line[1])
                return rd->take(line + 1, NULL, rd->userdata);
        sep = complete ? strchr(line, ' ') : NULL;
        if (complete && !sep)
                why = "not \"KEY VALUE\"";
        if (sep) {
                *sep = '\0';
                if (rd->valid(line, sep + 1, &why, rd->userdata)) {
                        r = rd->take(line, sep + 1, rd->userdata);
                        if (r != -EDQUOT)
                                return r;
                        st->over_limit++;
                        return 0;
                }
        }
        /* The first few by line, the rest only counted. */
        if (st->corrupt++ < 10)
                log_warning("%s:%u: %s, skipping the line.", j->path, lineno, why);
        return 0;
}

/* Parses a file's text.  Returns 0, -EXDEV, -EINTR or -ENOMEM. */
static int load_text(RestoreJournal *j, const RestoreJournalReader *rd, char *text) {
        LoadStats st = {};
        unsigned lineno = 0;

        for (char *p = text; *p;) {
                char *nl = strchr(p, '\n');
                int r;

                if (nl)
                        *nl = '\0';
                r = load_line(j, rd, p, ++lineno, nl != NULL, &st);
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
        if (st.over_limit > 0)
                log_error("%s: more than %d knobs, ignoring the %zu beyond.", j->path, RESTORE_JOURNAL_MAX_ENTRIES,
                          st.over_limit);
        return 0;
}

/* A journal that cannot be trusted is never read: it is moved aside for the
 * administrator.  Returns 0, or a negative errno when it cannot even be
 * moved (logged; the daemon then cannot journal safely). */
static int reject(RestoreJournal *j, int error) {
        log_error("Refusing restore journal %s: %s; moving it aside to %s, the knobs it lists are not put back.",
                  j->path, fileio_error_reason(error), RESTORE_JOURNAL_REJECTED_FILE);
        if (renameat(j->dir_fd, RESTORE_JOURNAL_FILE, j->dir_fd, RESTORE_JOURNAL_REJECTED_FILE) < 0)
                return log_error_errno(errno, "Failed to move %s aside: %m", j->path);
        return sync_dir(j, true) < 0 ? -EIO : 0;
}

/* Returns 1, 0, -EXDEV, -EINTR or another negative errno. */
int restore_journal_load(RestoreJournal *j, const RestoreJournalReader *reader) {
        _cleanup_free_ char *text = NULL;
        size_t size;
        int r;

        assert(j->fd < 0);
        (void) unlinkat(j->dir_fd, TMP_FILE, 0);
        r = fileio_read_regular_at(j->dir_fd, RESTORE_JOURNAL_FILE, FILE_MAX, FILEIO_NOFOLLOW | FILEIO_OWNER_EUID,
                                   &text, &size);
        if (r == -ENOENT)
                return 0;
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return reject(j, r);
        r = load_text(j, reader, text);
        return r < 0 ? r : 1;
}
