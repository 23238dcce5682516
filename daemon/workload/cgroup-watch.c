/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A cgroup's emptiness: cgroup.events through inotify (v2), cgroup.procs
 * on a timer (v1); see cgroup-watch.h.  Every open is below the cgroup
 * mount's fd, never through a symbolic link (fileio_open_beneath()). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "cgroup-watch.h"
#include "cleanup.h"
#include "fileio.h"

#define EVENTS_MAX 256                 /* "populated 0\nfrozen 0\n" */
#define CHECK_ACCURACY_USEC 1000

struct CgroupWatch {
        char *path;
        CgroupWatchKind kind;
        int fd;                        /* cgroup.events (v2), the cgroup's directory (v1) */
        const char *procs;             /* v1: "cgroup.procs" or "tasks" */
        uint64_t interval_usec;
        sd_event_source *inotify_source;   /* v2 */
        sd_event_source *timer_source;     /* the first check; v1: every check */
        CgroupWatchEmpty on_empty;
        void *userdata;
};

/* Returns true for the errors of a file whose cgroup has been removed. */
static bool is_gone(int r) {
        return r == -ENOENT || r == -ENODEV;
}

/* Returns 1 if cgroup.events says "populated 0" (or the cgroup is gone),
 * 0 if it says 1 or says nothing, or a negative errno. */
static int events_empty(CgroupWatch *w) {
        char buf[EVENTS_MAX];
        int r = fileio_pread_string(w->fd, buf, sizeof(buf));

        if (is_gone(r))
                return 1;
        if (r < 0)
                return r;
        for (const char *line = buf;;) {
                if (strncmp(line, "populated ", 10) == 0)
                        return line[10] == '0' && (line[11] == '\n' || line[11] == '\0');
                line = strchr(line, '\n');
                if (!line)
                        return 0;
                line++;
        }
}

/* Returns 1 if the v1 process list is empty (or gone), 0 if not, or a
 * negative errno (-ELOOP, -EBADFD: the file became a link or something
 * else than a file since the watch began). */
static int procs_empty(CgroupWatch *w) {
        _cleanup_close_ int fd = fileio_open_regular_beneath(w->fd, w->procs);
        char c;
        ssize_t n;

        if (fd < 0)
                return is_gone(fd) ? 1 : fd;
        n = read(fd, &c, 1);
        if (n < 0)
                return is_gone(-errno) ? 1 : -errno;
        return n == 0;
}

/* Calls on_empty if the cgroup is empty now.  Returns true if it did (w
 * may be freed then). */
static bool check(CgroupWatch *w) {
        int r = w->kind == CGROUP_WATCH_EVENTS ? events_empty(w) : procs_empty(w);

        /* A failed read says nothing: the next event or poll reads again. */
        if (r <= 0)
                return false;
        /* Dropped, not disabled: an event for a disabled inotify source
         * stays in sd-event's buffer and sd_event_run() spins on it (seen
         * here with libsystemd 252; systemd issue #38265, fixed 2025). */
        w->inotify_source = sd_event_source_disable_unref(w->inotify_source);
        (void) sd_event_source_set_enabled(w->timer_source, SD_EVENT_OFF);
        w->on_empty(w->path, w->userdata);      /* may free w: nothing after this */
        return true;
}

static int on_inotify(sd_event_source *s, const struct inotify_event *event, void *userdata) {
        (void) check(userdata);
        return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        CgroupWatch *w = userdata;
        int r;

        if (check(w) || w->kind == CGROUP_WATCH_EVENTS)
                return 0;
        r = sd_event_source_set_time_relative(s, w->interval_usec);
        if (r >= 0)
                r = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return r;
}

/* Finds out how dir_fd is watched: w->fd and w->kind.  Every file is
 * opened below dir_fd with fileio_open_regular_beneath(): a symbolic link
 * or a file that is not regular is refused, not taken for "absent".  Takes
 * dir_fd.  Returns 0 or a negative errno. */
static int open_kind(CgroupWatch *w, int dir_fd) {
        static const char *const procs[] = { "cgroup.procs", "tasks" };
        _cleanup_close_ int dir = dir_fd;
        int fd;

        fd = fileio_open_regular_beneath(dir, "cgroup.events");
        if (fd >= 0) {
                w->fd = fd;
                w->kind = CGROUP_WATCH_EVENTS;
                return 0;
        }
        if (fd != -ENOENT)
                return fd;
        for (size_t i = 0; i < ELEMENTSOF(procs) && !w->procs; i++) {
                fd = fileio_open_regular_beneath(dir, procs[i]);
                if (fd >= 0)
                        w->procs = procs[i];
                else if (fd != -ENOENT)
                        return fd;
                fileio_closep(&fd);
        }
        if (!w->procs)
                return -ENOENT;
        w->kind = CGROUP_WATCH_POLL;
        w->fd = TAKE_FD(dir);
        return 0;
}

/* Adds the sources: for v2 the inotify watch first, so that no change
 * falls between it and the first check.  Returns 0 or a negative errno. */
static int add_sources(CgroupWatch *w, sd_event *e) {
        char proc_path[64];
        int r;

        if (w->kind == CGROUP_WATCH_EVENTS) {
                snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", w->fd);
                r = sd_event_add_inotify(e, &w->inotify_source, proc_path, IN_MODIFY | IN_DELETE_SELF,
                                         on_inotify, w);
                if (r < 0)
                        return r;
                (void) sd_event_source_set_description(w->inotify_source, "cgroup-watch-events");
        }
        r = sd_event_add_time_relative(e, &w->timer_source, CLOCK_MONOTONIC, 0, CHECK_ACCURACY_USEC, on_timer, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(w->timer_source, "cgroup-watch-check");
        return 0;
}

int cgroup_watch_new(sd_event *e, int root_fd, const char *path, CgroupWatchEmpty on_empty, void *userdata,
                     CgroupWatch **ret) {
        _cleanup_(cgroup_watch_freep) CgroupWatch *w = NULL;
        _cleanup_close_ int dir_fd = fileio_open_beneath(root_fd, path, O_PATH | O_DIRECTORY);
        int r;

        if (dir_fd == -EXDEV)
                return -EINVAL;         /* a ".." component */
        if (dir_fd < 0)
                return dir_fd;
        w = calloc(1, sizeof(CgroupWatch));
        if (!w)
                return -ENOMEM;
        w->fd = -1;
        w->interval_usec = CGROUP_WATCH_INTERVAL_USEC_DEFAULT;
        w->on_empty = on_empty;
        w->userdata = userdata;
        w->path = strdup(path);
        if (!w->path)
                return -ENOMEM;
        r = open_kind(w, TAKE_FD(dir_fd));
        if (r < 0)
                return r;
        r = add_sources(w, e);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

CgroupWatchKind cgroup_watch_get_kind(const CgroupWatch *w) {
        return w->kind;
}

int cgroup_watch_set_interval(CgroupWatch *w, uint64_t usec) {
        int enabled = SD_EVENT_OFF, r;

        if (usec == 0)
                return -EINVAL;
        w->interval_usec = usec;
        if (w->kind != CGROUP_WATCH_POLL)
                return 0;
        r = sd_event_source_get_enabled(w->timer_source, &enabled);
        if (r < 0 || enabled == SD_EVENT_OFF)
                return r < 0 ? r : 0;
        return sd_event_source_set_time_relative(w->timer_source, usec);
}

CgroupWatch *cgroup_watch_free(CgroupWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->inotify_source);
        sd_event_source_disable_unref(w->timer_source);
        fileio_closep(&w->fd);
        free(w->path);
        free(w);
        return NULL;
}

void cgroup_watch_freep(CgroupWatch **w) {
        cgroup_watch_free(*w);
}
