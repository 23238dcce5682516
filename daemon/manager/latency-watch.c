/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "latency-watch.h"
#include "log.h"
#include "manager.h"

void latency_watch_done(LatencyWatch *w) {
        latency_holders_done(&w->holders);
        *w = (LatencyWatch) {};
}

int32_t latency_watch_usec(const LatencyWatch *w) {
        return w->known ? w->usec : -1;
}

const char *latency_watch_error(const LatencyWatch *w, char *buf, size_t size) {
        if (w->known)
                snprintf(buf, size, "%s", "");
        else if (w->error == 0)
                snprintf(buf, size, "not read yet");
        else
                snprintf(buf, size, "cannot read /%s: %s", LATENCY_REQUEST_DEVICE,
                         w->error == -EBADMSG ? "not a 4-byte latency" : strerror(-w->error));
        return buf;
}

/* "4242 (cyclictest), 77 (tuned)" or "no process found", into buf.  Returns buf. */
static const char *holders_text(const LatencyHolders *h, char *buf, size_t size) {
        size_t len = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < h->n && len < size; i++)
                len += (size_t) snprintf(buf + len, size - len, "%s%u (%s)", i ? ", " : "", h->holders[i].pid,
                                         h->holders[i].comm);
        if (h->n == 0)
                snprintf(buf, size, "no process found%s", h->hidden ? " among those readable" : "");
        return buf;
}

/* Whether a holder listed has exited. */
static bool holder_gone(int root_fd, const LatencyHolders *h) {
        for (size_t i = 0; i < h->n; i++) {
                char path[32];

                snprintf(path, sizeof(path), "proc/%u", h->holders[i].pid);
                if (faccessat(root_fd, path, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
                        return true;
        }
        return false;
}

/* Scans for the holders when due.  Returns 1 if they changed, 0, or
 * -ENOMEM. */
static int watch_scan(LatencyWatch *w, int root_fd, uint64_t now_usec, bool request_moved) {
        LatencyHolders h = LATENCY_HOLDERS_NULL;
        bool changed;
        int r;

        if (!w->known || !latency_request_in_force(w->usec)) {
                changed = w->holders.n > 0 || w->holders.hidden > 0;
                latency_holders_done(&w->holders);
                return changed;
        }
        if (!request_moved && now_usec - w->scanned_usec < LATENCY_WATCH_RESCAN_USEC &&
            !holder_gone(root_fd, &w->holders))
                return 0;
        w->scanned_usec = now_usec;
        r = latency_holders_scan(root_fd, (uint32_t) getpid(), &h);
        if (r == -ENOMEM)
                return log_oom();
        if (r < 0) {
                if (!w->scan_failed)
                        log_warning_errno(r, "Failed to look for the holders of /%s in /proc: %m, ignoring",
                                          LATENCY_REQUEST_DEVICE);
                w->scan_failed = true;
        } else
                w->scan_failed = false;
        changed = !latency_holders_equal(&h, &w->holders);
        latency_holders_done(&w->holders);
        w->holders = h;
        return changed;
}

/* Logs what the request became. */
static void log_request(const LatencyWatch *w, int32_t before, bool was_known) {
        char text[512], why[128];

        if (!w->known) {
                log_notice("The CPU latency request is unknown: %s (the sandbox must allow reading it, see "
                           "idlepolicyd(8)), ignoring.", latency_watch_error(w, why, sizeof(why)));
                return;
        }
        if (latency_request_in_force(w->usec)) {
                log_info("A process requests a CPU latency of at most %d us (/%s, held by %s): no CPU enters an "
                         "idle state with a longer exit latency.", (int) w->usec, LATENCY_REQUEST_DEVICE,
                         holders_text(&w->holders, text, sizeof(text)));
                return;
        }
        if (was_known && latency_request_in_force(before))
                log_info("No CPU latency request is in force any more (it was %d us).", (int) before);
}

int manager_latency_tick(Manager *m, uint64_t now_usec) {
        LatencyWatch *w = &m->latency;
        int32_t usec = 0, before = w->usec;
        bool was_known = w->known, moved;
        int error = w->error, r;

        r = latency_request_read(m->root_fd, &usec);
        if (r == -ENOMEM)
                return log_oom();
        w->known = r >= 0;
        w->usec = r >= 0 ? usec : 0;
        w->error = r < 0 ? r : 0;
        moved = was_known != w->known || (w->known ? before != w->usec : error != w->error);
        r = watch_scan(w, m->root_fd, now_usec, moved);
        if (r < 0)
                return r;
        if (moved)
                log_request(w, before, was_known);
        if (moved) {
                manager_emit(m, "LatencyRequestUSec");
                manager_emit(m, "LatencyRequestError");
        }
        if (r > 0) {
                manager_emit(m, "LatencyRequestHolders");
                manager_emit(m, "LatencyRequestHidden");
        }
        return 0;
}

int manager_latency_start(Manager *m) {
        uint64_t now = 0;

        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        return manager_latency_tick(m, now);
}

void latency_watch_metrics(const LatencyWatch *w, Exposition *x) {
        char pid[16];

        if (!w->known)
                return;
        exposition_family(x, "idlepolicy_latency_request_seconds", EXPOSITION_GAUGE,
                          "The CPU latency request in force on every CPU (/dev/cpu_dma_latency; 2000: none, "
                          "the kernel's default).");
        exposition_usec(x, "idlepolicy_latency_request_seconds", NULL, (uint64_t) w->usec);
        exposition_family(x, "idlepolicy_latency_request_holders", EXPOSITION_GAUGE,
                          "Processes holding /dev/cpu_dma_latency open while a request is in force.");
        exposition_u64(x, "idlepolicy_latency_request_holders", NULL, w->holders.n);
        exposition_family(x, "idlepolicy_latency_request_holder_info", EXPOSITION_GAUGE,
                          "A process holding /dev/cpu_dma_latency open while a request is in force (always 1).");
        for (size_t i = 0; i < w->holders.n; i++) {
                snprintf(pid, sizeof(pid), "%u", w->holders.holders[i].pid);
                exposition_u64(x, "idlepolicy_latency_request_holder_info",
                               (const char *[]) { "pid", pid, "comm", w->holders.holders[i].comm, NULL }, 1);
        }
}
