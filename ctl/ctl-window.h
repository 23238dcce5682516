/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* status --interval: the rates over a window instead of the daemon's last
 * tick.  The shares and the misses come from the kernel's counters (the
 * Counters property) at the window's two ends; the utilisation and the
 * wakeups per second, which the daemon only gives per tick, are the mean of
 * the ticks read in between.  Pure: the caller reads the bus and the clock. */

#include <stdint.h>

#include "ctl-model.h"

typedef struct CtlWindowCpu {
        uint32_t index;
        double util, timer, other;   /* sums of the known values */
        unsigned n_util, n_timer, n_other;
} CtlWindowCpu;

typedef struct CtlWindow {
        CtlWindowCpu *cpus;
        size_t n_cpus;
        unsigned ticks;              /* reads added */
} CtlWindow;

#define CTL_WINDOW_NULL ((CtlWindow) {})

void ctl_window_done(CtlWindow *w);

/* Adds one read's per-tick utilisation and wakeups of every online CPU.
 * Returns 0 or -ENOMEM. */
int ctl_window_add(CtlWindow *w, const CtlStatus *s);

/* Replaces the rates of every CPU of last with those over the window that
 * began with first and lasted usec: per state (matched by index and name)
 * the entries per second and shares from the counters' differences, per
 * CPU the mean utilisation and wakeups of w's reads (unknown without one).
 * A state or CPU missing from first keeps no rates (has_rates false).
 * Sets last->window_usec and window_ticks. */
void ctl_window_apply(const CtlWindow *w, const CtlStatus *first, CtlStatus *last, uint64_t usec);
