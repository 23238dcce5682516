/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/* File system helpers of the daemon's own directories (the runtime and
 * state directories, the metrics textfile's; opened with safe_dir_open(),
 * safe-dir.h): creating them, making and replacing a file there without
 * ever opening an entry someone else made; and handing a path given on the
 * command line to the fileio helpers, which take relative paths only. */

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* Creates path (absolute) and its parents, mode 0755.  Returns 0 or a
 * negative errno. */
int mkdir_parents(const char *path);

/* Writes all of buf (retrying on EINTR).  Returns 0 or a negative errno. */
int write_all(int fd, const char *buf, size_t len);

/* A file being written in a directory before it gets its name: nobody
 * else can have opened, linked or replaced it.  It is made with O_TMPFILE
 * where the file system offers it (no name at all), else under a random
 * name "HINT.tmp-XXXXXXXXXXXX" created O_CREAT|O_EXCL|O_NOFOLLOW (never an
 * existing entry: not a planted symbolic link, hard link, FIFO or
 * device). */
typedef struct NewFile {
        int fd;                         /* O_WRONLY */
        char name[NAME_MAX + 1];        /* its random name, "" while it has none */
} NewFile;
#define NEW_FILE_NULL ((NewFile) { .fd = -1 })

/* Makes a new file in dir_fd for a file to be called hint (mode 0: 0644
 * less the umask; else mode whatever the umask).  Returns 0 or a negative
 * errno (*ret untouched). */
int new_file_open(int dir_fd, const char *hint, mode_t mode, NewFile *ret);

/* Gives f the name dir_fd/name atomically: whatever was there (a file, a
 * planted link, FIFO or device) is replaced as a directory entry, never
 * opened or written through; a directory there stays (-EISDIR).  f->fd
 * stays open on the file.  Returns 0 or a negative errno (f unnamed). */
int new_file_publish(NewFile *f, int dir_fd, const char *name);

/* Closes f and removes its random name if it still has one (a file never
 * published). */
void new_file_done(NewFile *f, int dir_fd);

/* For tests: the fallbacks taken where the file system has no O_TMPFILE
 * (a random name) or the kernel refuses linkat(AT_EMPTY_PATH) without
 * CAP_DAC_READ_SEARCH (before Linux 6.10: /proc/self/fd), taken always. */
enum {
        NEW_FILE_TEST_NO_TMPFILE = 1u << 0,
        NEW_FILE_TEST_NO_EMPTY_PATH = 1u << 1,
};
void new_file_test_disable(unsigned what);

/* Replaces dir_fd/name with text: written to a new file (new_file_open()),
 * fsync'ed, published as name, and the directory fsync'ed.  Returns 0 or a
 * negative errno (the old file stays). */
int write_file_atomic(int dir_fd, const char *name, const char *text);

/* The same, the file given mode (0: 0644 less the umask) whatever the
 * umask, before the rename; without sync neither fsync: a reader never
 * sees the file half written, but a crash of the machine may leave the old
 * text or none (a file rewritten every few seconds that nobody needs after
 * a reboot: the metrics textfile). */
int write_file_atomic_mode(int dir_fd, const char *name, const char *text, mode_t mode, bool sync);

/* Splits path for the fileio helpers: an absolute path becomes "/" (opened
 * into *ret_dir_fd, to be closed) and the rest (*ret_rel points into path,
 * past the leading slashes); a relative one AT_FDCWD and path itself.
 * Returns 0 or a negative errno. */
int path_open_base(const char *path, int *ret_dir_fd, const char **ret_rel);

/* The host's "/", opened once (O_PATH) and kept: processes are real
 * whatever root the idle knobs live under (--root), so their /proc is read
 * through this (the library's proc_read_stat() and friends take paths
 * like "proc/PID/stat").  Returns the fd (not the caller's to close) or a
 * negative errno. */
int host_root_fd(void);
