/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "fs-util.h"
#include "log.h"
#include "metrics.h"
#include "metrics-textfile.h"
#include "safe-dir.h"

/* Splits path into its directory, opened and checked (safe_dir_open():
 * nobody but root and the daemon's user can redirect it, nobody else may
 * write to it), and its last component (pointing into path).  Returns the
 * fd or a negative errno with e set. */
static int textfile_dir(const char *path, const char **ret_name, ErrorInfo *e) {
        _cleanup_free_ char *dir = strdup(path);
        char *slash = dir ? strrchr(dir, '/') : NULL;
        int fd;

        if (!dir)
                return -ENOMEM;
        if (!slash)
                return errinfo_set(e, -EINVAL, "not an absolute path");
        *slash = '\0';
        fd = safe_dir_open(dir[0] ? dir : "/", e);
        if (fd >= 0)
                *ret_name = path + (slash - dir) + 1;
        return fd;
}

/* Replaces path with text (write_file_atomic_mode(): a new file that
 * nobody else can have opened or linked, renamed over it; the collector
 * reads only *.prom and never sees it half written), readable by
 * node_exporter's user whatever the daemon's umask (the unit's is 0077).
 * Not fsync'ed: the file is rewritten every few ticks and means nothing
 * after a reboot, and two fsyncs a write on a busy disk would hold up the
 * tick and the bus.  Returns 0 or a negative errno with e set. */
static int textfile_replace(const char *path, const char *text, ErrorInfo *e) {
        _cleanup_close_ int dir_fd = -1;
        const char *name = NULL;
        int r;

        dir_fd = textfile_dir(path, &name, e);
        if (dir_fd < 0)
                return dir_fd;
        r = write_file_atomic_mode(dir_fd, name, text, 0644, false);
        return r < 0 ? errinfo_set(e, r, "%s", strerror(-r)) : 0;
}

/* Notes the outcome of a write: a failure is logged when it starts or its
 * reason changes, its end once; MetricsTextfileError follows. */
static void textfile_note(Manager *m, const char *path, int r, const ErrorInfo *e) {
        ManagerMetrics *mm = &m->metrics;
        const char *why = r < 0 ? e->message : "";

        if (r < 0)
                log_full_errno(mm->textfile_failing && strcmp(mm->textfile_error, why) == 0 ? LOG_DEBUG : LOG_WARNING, r,
                               "Failed to write the metrics textfile %s: %s, ignoring", path, why);
        else if (mm->textfile_failing)
                log_info("Writing the metrics textfile %s works again.", path);
        mm->textfile_failing = r < 0;
        if (strcmp(mm->textfile_error, why) == 0)
                return;
        snprintf(mm->textfile_error, sizeof(mm->textfile_error), "%s", why);
        manager_emit(m, "MetricsTextfileError");
}

/* Writes text (NULL: formatting failed with r). */
static void textfile_store(Manager *m, const char *text, int r) {
        const char *path = m->config.metrics_textfile;
        ErrorInfo e = {};

        if (r >= 0)
                r = textfile_replace(path, text, &e);
        else
                errinfo_set(&e, r, "%s", strerror(-r));
        if (r == -ENOMEM) {
                (void) sd_event_exit(m->event, log_oom());
                return;
        }
        textfile_note(m, path, r, &e);
}

void manager_metrics_write(Manager *m) {
        _cleanup_free_ char *text = NULL;
        int r;

        m->metrics.ticks = 0;
        if (!m->config.metrics_textfile[0])
                return;
        r = metrics_format(m, metrics_now_usec(CLOCK_REALTIME), &text, NULL);
        textfile_store(m, text, r);
}

void manager_metrics_tick(Manager *m, uint64_t duration_usec) {
        histogram_observe(&m->metrics.tick, duration_usec);
        if (++m->metrics.ticks >= m->config.metrics_every_ticks)
                manager_metrics_write(m);
}

void manager_metrics_stopped(Manager *m) {
        _cleanup_free_ char *text = NULL;
        size_t n = 0;
        int r;

        if (!m->config.metrics_textfile[0])
                return;
        n = m->changes ? change_n_changed(m->changes) : 0;
        r = metrics_format_stopped(n, &text, NULL);
        textfile_store(m, text, r);
}

/* Removes the file at path (in a directory checked as for a write: never
 * through a link someone swapped in).  Returns 0 or a negative errno with e
 * set. */
static int textfile_remove(const char *path, ErrorInfo *e) {
        _cleanup_close_ int dir_fd = -1;
        const char *name = NULL;

        dir_fd = textfile_dir(path, &name, e);
        if (dir_fd < 0)
                return dir_fd;
        if (unlinkat(dir_fd, name, 0) < 0)
                return errinfo_set(e, -errno, "%s", strerror(errno));
        return 0;
}

void manager_metrics_reconfigured(Manager *m, const char *old_path) {
        ErrorInfo e = {};
        int r;

        if (!old_path[0] || strcmp(old_path, m->config.metrics_textfile) == 0)
                return;
        /* The daemon no longer writes there: a file left saying "up 1"
         * would keep a stale host in the fleet's view. */
        r = textfile_remove(old_path, &e);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Failed to remove the old metrics textfile %s: %s, ignoring", old_path, e.message);
        else
                log_info("Removed the old metrics textfile %s.", old_path);
        m->metrics.textfile_failing = false;
        if (!m->config.metrics_textfile[0])
                textfile_note(m, "", 0, &e);
        manager_metrics_write(m);
}
