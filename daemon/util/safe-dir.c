/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "safe-dir.h"

/* As the kernel's own bound on a path's symbolic links. */
#define SYMLINKS_MAX 40

/* A walk from "/" down a path. */
typedef struct Walk {
        const char *path;       /* the whole path, for messages */
        int fd;                 /* O_PATH of the directory reached */
        struct stat st;         /* its stat */
        char where[PATH_MAX];   /* its path as walked ("" for "/"), for messages */
        char *todo;             /* what is left to walk, from next on (malloc'ed) */
        const char *next;
        unsigned links;         /* symbolic links followed */
} Walk;

static void walk_done(Walk *w) {
        fileio_closep(&w->fd);
        free(w->todo);
}

static bool trusted_uid(uid_t uid) {
        return uid == 0 || uid == geteuid();
}

static const char *shown(const Walk *w) {
        return w->where[0] ? w->where : "/";
}

static unsigned mode_bits(const struct stat *st) {
        return (unsigned) (st->st_mode & 07777);
}

/* Moves to the directory fd (taken) of stat st.  Returns 0 or -errno. */
static int walk_enter(Walk *w, int fd, ErrorInfo *e) {
        if (fd < 0)
                return errinfo_set(e, -errno, "%s: %s", shown(w), strerror(errno));
        fileio_closep(&w->fd);
        w->fd = fd;
        if (fstat(fd, &w->st) < 0)
                return errinfo_set(e, -errno, "%s: %s", shown(w), strerror(errno));
        return 0;
}

/* Starts at "/" with path left to walk.  Returns 0 or a negative errno. */
static int walk_root(Walk *w, ErrorInfo *e) {
        w->where[0] = '\0';
        return walk_enter(w, open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), e);
}

/* The next component into name (NAME_MAX + 1 bytes).  Returns 1, 0 at
 * the end, or -ENAMETOOLONG. */
static int walk_next(Walk *w, char *name, ErrorInfo *e) {
        size_t n;

        w->next += strspn(w->next, "/");
        n = strcspn(w->next, "/");
        if (n == 0)
                return 0;
        if (n > NAME_MAX)
                return errinfo_set(e, -ENAMETOOLONG, "%s: a component is longer than %d bytes", shown(w), NAME_MAX);
        memcpy(name, w->next, n);
        name[n] = '\0';
        w->next += n;
        return 1;
}

/* Returns 0 or -EPERM with e set. */
int safe_stat_check(const struct stat *st, ErrorInfo *e) {
        if (!trusted_uid(st->st_uid))
                return errinfo_set(e, -EPERM, "owned by uid %u, not root", (unsigned) st->st_uid);
        if ((st->st_mode & S_IWGRP) && st->st_gid != 0)
                return errinfo_set(e, -EPERM, "writable by group %u (mode %04o)", (unsigned) st->st_gid, mode_bits(st));
        if (st->st_mode & S_IWOTH)
                return errinfo_set(e, -EPERM, "writable by others (mode %04o)", mode_bits(st));
        return 0;
}

/* Whether w's directory lets nobody but root and the daemon's user change
 * its entry name (of stat st): safe_stat_check(), but a sticky directory
 * (like /tmp) may be writable by others if the entry is root's or the
 * daemon's user's.  Returns 0 or -EPERM with e saying why. */
static int check_holder(const Walk *w, const char *name, const struct stat *st, ErrorInfo *e) {
        bool sticky = (w->st.st_mode & S_IWOTH) && (w->st.st_mode & S_ISVTX);
        struct stat holder = w->st;
        ErrorInfo why = {};

        if (sticky)
                holder.st_mode &= ~S_IWOTH;
        if (safe_stat_check(&holder, &why) < 0)
                return errinfo_set(e, -EPERM, "%s is %s", shown(w), why.message);
        if (sticky && !trusted_uid(st->st_uid))
                return errinfo_set(e, -EPERM, "%s/%s is owned by uid %u in %s, which others may write to (sticky)",
                                   w->where, name, (unsigned) st->st_uid, shown(w));
        return 0;
}

/* Appends "/name" to where (name NULL: drops the last component).
 * Returns 0 or -ENAMETOOLONG. */
static int walk_where(Walk *w, const char *name, ErrorInfo *e) {
        size_t n = strlen(w->where);

        if (!name) {
                char *slash = strrchr(w->where, '/');

                if (slash)
                        *slash = '\0';
                return 0;
        }
        if (n + 1 + strlen(name) >= sizeof(w->where))
                return errinfo_set(e, -ENAMETOOLONG, "%s/%s: the path is too long", shown(w), name);
        snprintf(w->where + n, sizeof(w->where) - n, "/%s", name);
        return 0;
}

/* Follows the symbolic link name: its target goes in front of what is
 * left.  Returns 0 or a negative errno. */
static int walk_link(Walk *w, const char *name, ErrorInfo *e) {
        char target[PATH_MAX];
        ssize_t n;
        char *todo;

        if (++w->links > SYMLINKS_MAX)
                return errinfo_set(e, -ELOOP, "%s: more than %d symbolic links", w->path, SYMLINKS_MAX);
        n = readlinkat(w->fd, name, target, sizeof(target) - 1);
        if (n < 0)
                return errinfo_set(e, -errno, "%s/%s: %s", w->where, name, strerror(errno));
        target[n] = '\0';
        if (asprintf(&todo, "%s/%s", target, w->next) < 0)
                return -ENOMEM;
        free(w->todo);
        w->todo = todo;
        w->next = todo;
        return target[0] == '/' ? walk_root(w, e) : 0;
}

/* Enters the directory name (of stat st, checked).  Returns 0 or a
 * negative errno. */
static int walk_down(Walk *w, const char *name, const struct stat *st, ErrorInfo *e) {
        int r = walk_where(w, name, e);

        if (r < 0)
                return r;
        r = walk_enter(w, openat(w->fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), e);
        if (r < 0)
                return r;
        if (w->st.st_dev != st->st_dev || w->st.st_ino != st->st_ino)
                return errinfo_set(e, -EAGAIN, "%s changed while it was checked", shown(w));
        return 0;
}

/* Takes one component.  Returns 0 or a negative errno. */
static int walk_step(Walk *w, const char *name, ErrorInfo *e) {
        struct stat st;
        int r;

        if (strcmp(name, ".") == 0)
                return 0;
        if (strcmp(name, "..") == 0) {
                /* back to a directory walked already: its entries are
                 * checked when the next one is taken */
                (void) walk_where(w, NULL, e);
                return walk_enter(w, openat(w->fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC), e);
        }
        if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errinfo_set(e, -errno, "%s/%s: %s", w->where, name, strerror(errno));
        r = check_holder(w, name, &st, e);
        if (r < 0)
                return r;
        if (S_ISLNK(st.st_mode))
                return walk_link(w, name, e);
        if (!S_ISDIR(st.st_mode))
                return errinfo_set(e, -ENOTDIR, "%s/%s is not a directory", w->where, name);
        return walk_down(w, name, &st, e);
}

/* Returns the fd or a negative errno. */
int safe_dir_open(const char *path, ErrorInfo *e) {
        _cleanup_(walk_done) Walk w = { .path = path, .fd = -1 };
        char name[NAME_MAX + 1];
        int r, fd;

        if (path[0] != '/')
                return errinfo_set(e, -EINVAL, "%s is not an absolute path", path);
        w.todo = strdup(path);
        if (!w.todo)
                return -ENOMEM;
        w.next = w.todo;
        r = walk_root(&w, e);
        while (r >= 0 && (r = walk_next(&w, name, e)) > 0)
                r = walk_step(&w, name, e);
        if (r < 0)
                return r;
        /* the directory itself may be another user's, but not everyone's */
        if (w.st.st_mode & S_IWOTH)
                return errinfo_set(e, -EPERM, "%s is writable by others (mode %04o)", shown(&w), mode_bits(&w.st));
        fd = openat(w.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? errinfo_set(e, -errno, "%s: %s", shown(&w), strerror(errno)) : fd;
}
