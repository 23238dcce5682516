/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The kernel's own count of idle entries per CPU (the sum of its cpuidle
 * states' usage counters) over exactly the time tracing was on, so that a
 * recording can be checked against it: setting tracing up and tearing it
 * down patches static keys and interrupts every CPU, which adds idle entries
 * no trace can hold. */

#include <stdbool.h>
#include <stdint.h>

#include "cleanup.h"

typedef struct KernelCount KernelCount;

typedef struct CpuidleSampler CpuidleSampler;

/* Counts with sampler (n_cpus CPU slots), which it takes over on success
 * and frees with the count.  Returns 0 or -ENOMEM (sampler then left to
 * the caller). */
int kernel_count_new(CpuidleSampler *sampler, unsigned n_cpus, KernelCount **ret);
KernelCount *kernel_count_free(KernelCount *k);
void kernel_count_freep(KernelCount **k);
#define _cleanup_kernel_count_ _cleanup_(kernel_count_freep)

/* Reads the counters: the first call marks the start, each later one the
 * end.  Returns 0 or -errno. */
int kernel_count_read(KernelCount *k);

/* Idle entries of cpu between the first and the last read into *ret.
 * Returns false when unknown: no cpuidle on that CPU, fewer than two reads,
 * or its counters were reopened in between (hotplug, governor switch). */
bool kernel_count_get(const KernelCount *k, unsigned cpu, uint64_t *ret);
