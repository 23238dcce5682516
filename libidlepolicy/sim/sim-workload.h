/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Synthetic workloads: deterministic generators of idle periods (one CPU)
 * described by a name, parameters and a seed.  A spec reads
 * "NAME[:KEY=VALUE,...]", for example "pgbench:rtt_us=60,sigma=1".
 *
 * Every workload mixes three sources of wakeups: timers it arms itself,
 * background timers (mean period bg_ms, 0 = none) and non-timer events
 * (IPIs, devices).  The idle period ends at the first of them; a timer
 * interrupt lands late_min_us..late_max_us after the timer's expiry
 * (16..58 µs measured on this project's test machine). */

#include <stddef.h>
#include <stdint.h>

#include "cleanup.h"

#include "errinfo.h"
#include "sim-run.h"

typedef struct Workload Workload;

/* Creates a generator for spec with seed.  Returns 0, -ENOMEM, or -EINVAL
 * with e explaining (unknown name, unknown key, bad value). */
int workload_new(const char *spec, uint64_t seed, Workload **ret, ErrorInfo *e);

/* Produces the next idle period. */
void workload_next(Workload *w, SimInterval *ret);

/* Frees w (NULL allowed).  Returns NULL. */
Workload *workload_free(Workload *w);
void workload_freep(Workload **w);
#define _cleanup_workload_ _cleanup_(workload_freep)

/* Generates n periods of spec with seed into a new array (free() it).
 * Returns 0 or a negative errno as workload_new(). */
int workload_generate(const char *spec, uint64_t seed, size_t n, SimInterval **ret, ErrorInfo *e);

/* The built-in workloads, for listings: returns the name of the i-th (NULL
 * past the end) and sets *ret_summary and *ret_params (a "key=default ..."
 * line). */
const char *workload_describe(size_t i, const char **ret_summary, const char **ret_params);
