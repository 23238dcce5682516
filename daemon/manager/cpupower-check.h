/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A second opinion on the real /sys: with libcpupower (which only reads the
 * absolute /sys), compare its cpuidle driver and cpu0 state count with what
 * the library found and log a notice on a mismatch.  Does nothing for
 * another root or without libcpupower. */

/* driver: "" for none; n_states: cpu0's state count. */
void cpupower_check(const char *root, const char *driver, unsigned n_states);
