/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The kernel's process events (the proc connector: netlink
 * NETLINK_CONNECTOR, group CN_IDX_PROC) as an sd-event source, for the
 * exe:PATH and comm:NAME pin rules.  Set up through libnl's socket layer;
 * without libnl (HAVE_LIBNL 0) proc_events_new() returns -EOPNOTSUPP.
 *
 * What arrives:
 *   on_exec     a thread group called execve(): pid is the thread that did
 *               (after the exec it is the group's only thread), tgid the
 *               process;
 *   on_exit     a thread ended; the process has ended with the event where
 *               pid == tgid, unless its leader ended before its other
 *               threads (then the last thread's exit is the end: a PID pin
 *               uses process-watch.h, which is exact);
 *   on_comm     a thread renamed itself (prctl(PR_SET_NAME), a write to
 *               /proc/PID/comm); an execve() changes comm without this
 *               event: on_exec implies it;
 *   on_overrun  the socket's receive buffer overflowed (ENOBUFS): events
 *               were lost, the caller rescans /proc.  Called once per
 *               wakeup, after every event still queued was delivered.
 * A NULL callback is allowed; the kernel is asked (Linux 6.6 and later) to
 * send only the kinds that have one, so forks and thread creations, the
 * most frequent events, never reach the daemon; older kernels send all
 * kinds and the unwanted ones are dropped here.
 *
 * The socket sees every process of the machine: an event costs a share of
 * one recvmmsg() (up to 32 per call), a few comparisons and the callback;
 * nothing is allocated per event.  Each wakeup reads until the socket is
 * empty (an exec costs the spawner far more than its event costs here, so
 * this never starves the loop).  Only messages from the kernel (netlink
 * port 0) with the proc connector's id are believed.
 *
 * Events from before proc_events_new() returned are not delivered: the
 * caller scans /proc after it, which it must do anyway.  Callbacks must not
 * free the ProcEvents (defer that to another event source). */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

typedef struct ProcEvents ProcEvents;

typedef struct ProcEventsCallbacks {
        void (*on_exec)(pid_t pid, pid_t tgid, void *userdata);
        /* exit_code as wait() reports it (WIFEXITED()...). */
        void (*on_exit)(pid_t pid, pid_t tgid, int exit_code, void *userdata);
        /* comm: the new name, NUL-terminated, at most 15 bytes. */
        void (*on_comm)(pid_t pid, pid_t tgid, const char *comm, void *userdata);
        void (*on_overrun)(void *userdata);
} ProcEventsCallbacks;

/* The receive buffer asked for: 4 MiB (about 4000 queued events; beyond
 * net.core.rmem_max with CAP_NET_ADMIN, capped by it without). */
#define PROC_EVENTS_BUFFER_DEFAULT ((size_t) 4 * 1024 * 1024)

/* Opens the connector socket (non-blocking, close-on-exec, the default
 * buffer), joins CN_IDX_PROC, sends PROC_CN_MCAST_LISTEN and waits (at most
 * a second, in practice not at all: the kernel answers within the send) for
 * the kernel's answer, then adds an IO source to e.  callbacks is copied.
 * Nothing is logged: the caller names the error.  Returns 0, or
 *   -EOPNOTSUPP  built without libnl
 *   -EPERM       no CAP_NET_ADMIN, which kernels before 6.6 want for joining
 *                the group and listening (6.6 and later let anyone listen)
 *   -ETIMEDOUT   no answer: the kernel ignores requests from outside the
 *                initial user and PID namespaces (a container)
 *   -EPROTONOSUPPORT  a kernel without the connector
 *   -ENOMEM, or another negative errno of the socket calls.
 * *ret is untouched on failure. */
int proc_events_new(sd_event *e, const ProcEventsCallbacks *callbacks, void *userdata, ProcEvents **ret);

/* Sends PROC_CN_MCAST_IGNORE (so that the kernel stops building events
 * nobody reads), removes the source and closes the socket.  NULL is fine.
 * Returns NULL. */
ProcEvents *proc_events_free(ProcEvents *p);
void proc_events_freep(ProcEvents **p);

/* Pausing without closing: proc_events_pause() sends
 * PROC_CN_MCAST_IGNORE (Linux 6.6 and later then send this socket
 * nothing, and build no event at all when no one else listens; older
 * ones stop building events when no one else listens) and turns the
 * source off; proc_events_resume() drops whatever was queued meanwhile,
 * sends PROC_CN_MCAST_LISTEN and the filter again (not waiting for the
 * answer: the kernel accepted the first one) and turns the source on.
 * Events from while it was paused are never delivered.  Both are no-ops
 * when already so; pausing is allowed from a callback.  Four system calls
 * where closing and opening again take about twenty (a socket, its
 * options, its membership, the subscription and its answer).  Return 0
 * or a negative errno: a failed resume leaves it paused, a failed pause
 * leaves it paused as far as the caller can tell (nothing is delivered). */
int proc_events_pause(ProcEvents *p);
int proc_events_resume(ProcEvents *p);
bool proc_events_paused(const ProcEvents *p);

/* Sets the receive buffer to bytes (the kernel doubles it for its
 * bookkeeping and keeps a minimum of about 2 KiB): for tests that want an
 * overrun, and for a daemon option.  Returns 0 or a negative errno. */
int proc_events_set_buffer_size(ProcEvents *p, size_t bytes);
