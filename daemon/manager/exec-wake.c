/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Exec wakes for the long tick: see exec-wake.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "exec-wake.h"
#include "log.h"

static void on_exec(pid_t pid, pid_t tgid, void *userdata) {
        ExecWake *w = userdata;

        if (w->fired)
                return;
        w->fired = true;
        w->n_wakes++;
        /* No later exec wakes the daemon until the caller arms it again. */
        exec_wake_pause(w);
        if (w->callback)
                w->callback(w->userdata);
}

/* Whether root_fd's proc/ is the procfs (0 or a negative errno). */
static int proc_is_procfs(int root_fd) {
        struct statfs sfs;
        int fd = openat(root_fd, "proc", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int r;

        if (fd < 0)
                return -errno;
        r = fstatfs(fd, &sfs) < 0 ? -errno : sfs.f_type == PROC_SUPER_MAGIC ? 0 : -ENOTSUP;
        close(fd);
        return r;
}

/* The wake cannot serve here (r: why): said once at debug, not tried
 * again. */
static void set_unusable(ExecWake *w, int r) {
        w->unusable = true;
        log_debug_errno(r, "No long ticks while quiet: %s (%m).",
                        r == -ENOTSUP ? "proc/ under the root is not the machine's procfs"
                                      : "the proc connector cannot wake the daemon at an exec");
}

bool exec_wake_usable(ExecWake *w, int root_fd) {
        int r;

        if (!w->checked) {
                w->checked = true;
                r = proc_is_procfs(root_fd);
                if (r < 0)
                        set_unusable(w, r);
        }
        return !w->unusable;
}

bool exec_wake_arm(ExecWake *w, sd_event *e, int root_fd, void (*callback)(void *userdata), void *userdata) {
        static const ProcEventsCallbacks callbacks = { .on_exec = on_exec };
        int r;

        if (w->events && !w->broken && proc_events_resume(w->events) >= 0) {
                w->fired = false;
                return true;
        }
        exec_wake_disarm(w);
        if (!exec_wake_usable(w, root_fd))
                return false;
        r = proc_events_new(e, &callbacks, w, &w->events);
        if (r < 0) {
                set_unusable(w, r);
                return false;
        }
        w->fired = false;
        w->callback = callback;
        w->userdata = userdata;
        return true;
}

void exec_wake_pause(ExecWake *w) {
        if (w->events && proc_events_pause(w->events) < 0)
                w->broken = true;
}

void exec_wake_disarm(ExecWake *w) {
        w->events = proc_events_free(w->events);
        w->fired = false;
        w->broken = false;
}
