/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A wake for the long tick while quiet (quiet-tick.h, QuietTickPace): the
 * proc connector's exec events (proc-events.h, only the exec kind asked
 * for), listened to only while the tick is long, so that a busy machine's
 * execs never reach the daemon.  The first exec after arming calls back
 * once and pauses the subscription (proc_events_pause(): no later exec
 * wakes the daemon); the caller arms it again (a resume: four system
 * calls) when the quiet stretch goes on, keeps it paused while it may
 * (the check tick after an exec), and closes it when the machine is busy.
 *
 * Only where the daemon's proc/ is the machine's procfs: the connector
 * reports the machine's processes, which say nothing about a tree given
 * with --root (a test's), so there the tick is never long.  Where the
 * connector cannot be used (no CAP_NET_ADMIN before Linux 6.6, a
 * container's namespaces, built without libnl) it is not tried again and
 * the tick is never long either. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "proc-events.h"

typedef struct ExecWake {
        ProcEvents *events;          /* open while armed */
        bool unusable;               /* the connector cannot serve here (said once at debug) */
        bool fired;                  /* an exec came since arming */
        bool broken;                 /* a pause failed: closed at the next arm */
        bool checked;                /* exec_wake_usable() looked at proc/ (once) */
        uint64_t n_wakes;            /* callbacks since the start */
        void (*callback)(void *userdata);
        void *userdata;
} ExecWake;

/* Arms w (a no-op when armed): resumes a paused connector, or opens one
 * on e unless root_fd's proc/ is not the procfs or the connector failed
 * before; the first exec then calls callback(userdata).  Returns true when
 * armed. */
bool exec_wake_arm(ExecWake *w, sd_event *e, int root_fd, void (*callback)(void *userdata), void *userdata);

/* Whether the wake can serve (false once it failed, or where root_fd's
 * proc/ is not the procfs: looked at once, before any arm).  What the
 * backoffs that assume long ticks ask, so that a tree given with --root,
 * where the tick is never long, keeps the full tick by the clock at its
 * base before the first arm is tried. */
bool exec_wake_usable(ExecWake *w, int root_fd);

/* Pauses the connector, keeping it open (a no-op when closed or
 * paused). */
void exec_wake_pause(ExecWake *w);

/* Closes the connector (a no-op when closed). */
void exec_wake_disarm(ExecWake *w);
