/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* exe: rules' paths resolved as the kernel shows them (pin-exe.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "pin-exe.h"

/* A script's first line is read up to this (the kernel's BINPRM_BUF_SIZE
 * is 256). */
#define SHEBANG_MAX 256

/* The walk: what is resolved (absolute, "" for the root) and what is left
 * (components separated by '/'). */
typedef struct Walk {
        char done[PATH_MAX];
        size_t done_len;
        char todo[2 * PATH_MAX];
        unsigned links;
        bool missing;                 /* a component did not exist: the rest is taken as it is */
} Walk;

/* Takes the first component of the todo into c.  Returns its length, 0
 * when none is left. */
static size_t next_component(Walk *w, char c[static NAME_MAX + 2]) {
        char *s = w->todo, *end;
        size_t n;

        while (*s == '/')
                s++;
        end = strchrnul(s, '/');
        n = (size_t) (end - s);
        if (n > NAME_MAX + 1)
                n = NAME_MAX + 1;       /* too long: the lookup fails with ENAMETOOLONG */
        memcpy(c, s, n);
        c[n] = '\0';
        memmove(w->todo, end, strlen(end) + 1);
        return n;
}

static bool todo_empty(const Walk *w) {
        return w->todo[strspn(w->todo, "/")] == '\0';
}

/* Drops the last component of done (never above the root). */
static void pop_component(Walk *w) {
        char *slash = memrchr(w->done, '/', w->done_len);

        w->done_len = slash ? (size_t) (slash - w->done) : 0;
        w->done[w->done_len] = '\0';
}

/* Appends /c to done.  Returns 0 or -ENAMETOOLONG. */
static int push_component(Walk *w, const char *c) {
        size_t n = strlen(c);

        if (w->done_len + 1 + n >= sizeof(w->done))
                return -ENAMETOOLONG;
        w->done[w->done_len++] = '/';
        memcpy(w->done + w->done_len, c, n + 1);
        w->done_len += n;
        return 0;
}

/* done (the link) is replaced by its target in front of the todo.
 * Returns 0, -ELOOP or -ENAMETOOLONG. */
static int follow_link(int root_fd, Walk *w) {
        char target[PATH_MAX];
        size_t rest;
        ssize_t n;

        if (++w->links > PIN_EXE_LINKS_MAX)
                return -ELOOP;
        n = readlinkat(root_fd, w->done + 1, target, sizeof(target));
        if (n < 0)
                return -errno;
        if ((size_t) n >= sizeof(target))
                return -ENAMETOOLONG;
        target[n] = '\0';
        rest = strlen(w->todo);
        if ((size_t) n + 1 + rest >= sizeof(w->todo))
                return -ENAMETOOLONG;
        memmove(w->todo + n + 1, w->todo, rest + 1);
        memcpy(w->todo, target, (size_t) n);
        w->todo[n] = '/';
        pop_component(w);
        if (target[0] == '/')
                w->done[w->done_len = 0] = '\0';
        return 0;
}

/* Resolves the next component of the walk.  Returns 0 or a negative errno. */
static int walk_step(int root_fd, Walk *w, const char *c) {
        struct stat st;
        int r;

        if (strcmp(c, ".") == 0)
                return 0;
        if (strcmp(c, "..") == 0) {
                pop_component(w);
                return 0;
        }
        r = push_component(w, c);
        if (r < 0 || w->missing)
                return r;
        if (fstatat(root_fd, w->done + 1, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                if (errno != ENOENT)
                        return -errno;
                w->missing = true;
                return 0;
        }
        if (S_ISLNK(st.st_mode))
                return follow_link(root_fd, w);
        if (!S_ISDIR(st.st_mode) && !todo_empty(w))
                return -ENOTDIR;
        return 0;
}

/* Reads the interpreter of a script (its "#!" line) into buf.  Returns 1
 * for a script, 0 for another file, or a negative errno. */
static int read_interpreter(int root_fd, const char *rel, char *buf, size_t size) {
        _cleanup_close_ int fd = openat(root_fd, rel, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        char head[SHEBANG_MAX + 1];
        struct stat st;
        ssize_t n;
        size_t skip;

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        n = pread(fd, head, SHEBANG_MAX, 0);
        if (n < 0)
                return -errno;
        head[n] = '\0';
        if (n < 2 || head[0] != '#' || head[1] != '!')
                return 0;
        skip = 2 + strspn(head + 2, " \t");
        snprintf(buf, size, "%.*s", (int) strcspn(head + skip, " \t\n"), head + skip);
        return 1;
}

/* Checks what the resolved path names: a regular file, not a script (or
 * nothing yet).  Returns 0 or a negative errno with e set. */
static int check_file(int root_fd, const Walk *w, ErrorInfo *e) {
        char interpreter[SHEBANG_MAX];
        struct stat st;
        int r;

        if (w->missing)
                return 0;
        if (w->done_len == 0 || (fstatat(root_fd, w->done + 1, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISDIR(st.st_mode)))
                return errinfo_set(e, -EISDIR, "%s is a directory, not an executable", w->done_len ? w->done : "/");
        r = read_interpreter(root_fd, w->done + 1, interpreter, sizeof(interpreter));
        if (r == -EBADFD)
                return errinfo_set(e, r, "%s is not a regular file", w->done);
        if (r < 0)
                return errinfo_set(e, r, "cannot read %s: %s", w->done, strerror(-r));
        if (r > 0)
                return errinfo_set(e, -ENOEXEC, "%s is a script: its processes run its interpreter %s, which is what "
                                   "the kernel shows as their executable (pin comm:NAME instead)", w->done,
                                   interpreter[0] ? interpreter : "(none named)");
        return 0;
}

/* Walks the whole path.  Returns 0 or a negative errno with e set. */
static int walk(int root_fd, Walk *w, const char *path, ErrorInfo *e) {
        char c[NAME_MAX + 2];
        int r;

        while (next_component(w, c) > 0) {
                r = walk_step(root_fd, w, c);
                if (r == -ELOOP)
                        return errinfo_set(e, r, "%s: more than %d symbolic links", path, PIN_EXE_LINKS_MAX);
                if (r == -ENOTDIR)
                        return errinfo_set(e, r, "%s: %s is not a directory", path, w->done);
                if (r < 0)
                        return errinfo_set(e, r, "cannot resolve %s at %s: %s", path, w->done, strerror(-r));
        }
        return check_file(root_fd, w, e);
}

int pin_exe_resolve(int root_fd, const char *path, char *ret, size_t size, ErrorInfo *e) {
        Walk w = {};
        const char *result;
        int r;

        if (!path || path[0] != '/')
                return errinfo_set(e, -EINVAL, "the executable must be an absolute path");
        if (strlen(path) >= sizeof(w.todo))
                return errinfo_set(e, -ENAMETOOLONG, "the executable path is too long");
        memcpy(w.todo, path, strlen(path) + 1);
        r = walk(root_fd, &w, path, e);
        if (r < 0)
                return r;
        result = w.done_len ? w.done : "/";
        if (strlen(result) >= size)
                return errinfo_set(e, -ENAMETOOLONG, "%s resolves to a path longer than %zu bytes", path, size - 1);
        memcpy(ret, result, strlen(result) + 1);
        return strcmp(result, path) != 0;
}
