/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A state table with the daemon's calibration for real costs: what a
 * recorded trace replays against when its advertised table (the kernel's
 * figures: KVM's "haltpoll idle" says 1 µs) would make every governor
 * look right. */

#include "calibration.h"
#include "sim-table.h"

/* Sets the real costs of every state of t that c measured under the same
 * index and name, as the daemon's policy takes them (policy_state_calibrate():
 * the measured wakeup cost over polling for the exit latency; the measured
 * break-even residency, or one derived from the latency for a mis-described
 * state, for the target residency), the median over the CPUs that measured
 * it; the advertised costs stay (the governors see those, as in the kernel).
 * t->costs then says so, naming source.  Returns how many states got
 * calibrated costs (0: t unchanged), or -ENOMEM. */
int sim_table_calibrate(SimTable *t, const Calibration *c, const char *source);
