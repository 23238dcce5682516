/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A process's end through its pidfd (process-watch.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "fs-util.h"
#include "pin-proc.h"
#include "process-watch.h"

struct ProcessWatch {
        pid_t pid;
        int pidfd;
        sd_event_source *source;
        ProcessWatchExit on_exit;
        void *userdata;
};

int process_get_start_time(pid_t pid, uint64_t *ret) {
        int root = host_root_fd(), r;
        ProcStat st;

        if (root < 0)
                return root;
        r = proc_read_stat(root, pid, &st);
        if (r < 0)
                return r;
        *ret = st.start_time;
        return 0;
}

int process_pidfd_open_verified(pid_t pid, uint64_t start_time, int *ret_fd) {
        _cleanup_close_ int fd = -1;
        uint64_t t;
        int r;

        if (pid <= 0)
                return -EINVAL;
        fd = pidfd_open(pid, 0);
        if (fd < 0)
                return -errno;
        if (start_time != PROCESS_START_TIME_ANY) {
                r = process_get_start_time(pid, &t);
                if (r < 0)
                        return r;
                if (t != start_time)
                        return -ESRCH;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static int on_pidfd(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        ProcessWatch *w = userdata;

        (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        w->on_exit(w->pid, w->userdata);        /* may free w: nothing after this */
        return 0;
}

int process_watch_new_pidfd(sd_event *e, int pidfd, pid_t pid, ProcessWatchExit on_exit, void *userdata,
                            ProcessWatch **ret) {
        ProcessWatch *w;
        int r;

        if (pidfd < 0)
                return -EBADF;
        w = calloc(1, sizeof(ProcessWatch));
        if (!w)
                return -ENOMEM;
        *w = (ProcessWatch) { .pid = pid, .pidfd = -1, .on_exit = on_exit, .userdata = userdata };
        r = sd_event_add_io(e, &w->source, pidfd, EPOLLIN, on_pidfd, w);
        if (r < 0) {
                free(w);
                return r;
        }
        (void) sd_event_source_set_description(w->source, "process-watch");
        w->pidfd = pidfd;
        *ret = w;
        return 0;
}

int process_watch_new(sd_event *e, pid_t pid, uint64_t start_time, ProcessWatchExit on_exit, void *userdata,
                      ProcessWatch **ret) {
        _cleanup_close_ int fd = -1;
        int r;

        r = process_pidfd_open_verified(pid, start_time, &fd);
        if (r < 0)
                return r;
        r = process_watch_new_pidfd(e, fd, pid, on_exit, userdata, ret);
        if (r < 0)
                return r;
        fd = -1;                /* the watch's now */
        return 0;
}

ProcessWatch *process_watch_free(ProcessWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->source);
        fileio_closep(&w->pidfd);
        free(w);
        return NULL;
}

void process_watch_freep(ProcessWatch **w) {
        process_watch_free(*w);
}
