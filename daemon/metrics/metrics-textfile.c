/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "fs-util.h"
#include "log.h"
#include "metrics.h"
#include "metrics-textfile.h"

/* Replaces path with text (write_file_atomic(): "path.tmp", which the
 * collector ignores, renamed over it), readable by node_exporter's user
 * whatever the daemon's umask (the unit's is 0077).  Returns 0 or a
 * negative errno. */
static int textfile_replace(const char *path, const char *text) {
        _cleanup_free_ char *dir = strdup(path), *base = strdup(path);
        _cleanup_close_ int dir_fd = -1;

        if (!dir || !base)
                return -ENOMEM;
        dir_fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir_fd < 0)
                return -errno;
        return write_file_atomic_mode(dir_fd, basename(base), text, 0644);
}

/* Writes text (NULL: formatting failed with r) and says so once per run
 * of failures. */
static void textfile_store(Manager *m, const char *text, int r) {
        const char *path = m->config.metrics_textfile;

        if (r >= 0)
                r = textfile_replace(path, text);
        if (r == -ENOMEM) {
                (void) sd_event_exit(m->event, log_oom());
                return;
        }
        if (r < 0) {
                log_full_errno(m->metrics.textfile_failing ? LOG_DEBUG : LOG_WARNING, r,
                               "Failed to write the metrics textfile %s: %m, ignoring", path);
                m->metrics.textfile_failing = true;
                return;
        }
        if (m->metrics.textfile_failing)
                log_info("Writing the metrics textfile %s works again.", path);
        m->metrics.textfile_failing = false;
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

void manager_metrics_reconfigured(Manager *m, const char *old_path) {
        if (!old_path[0] || strcmp(old_path, m->config.metrics_textfile) == 0)
                return;
        /* The daemon no longer writes there: a file left saying "up 1"
         * would keep a stale host in the fleet's view. */
        if (unlink(old_path) < 0 && errno != ENOENT)
                log_warning_errno(errno, "Failed to remove the old metrics textfile %s: %m, ignoring", old_path);
        else
                log_info("Removed the old metrics textfile %s.", old_path);
        m->metrics.textfile_failing = false;
        manager_metrics_write(m);
}
