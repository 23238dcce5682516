/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A thread's CPU affinity as a knob (a pid pin changes it):
 *
 *   task:TID:START    START is the thread's start time (field 22 of
 *                     /proc/TID/stat), so a reused TID is never touched:
 *                     the thread that was pinned is gone
 *
 * The value is a CPU list.  Threads are real processes: they are read
 * through the host's /proc (KnobEnv.host_fd) whatever root the idle knobs
 * live under. */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cpuset.h"
#include "knob-type.h"

#define KNOB_TASK_PREFIX "task:"

extern const KnobType knob_type_task;

/* Formats the key of tid's affinity into buf (size bytes).  Returns buf. */
char *knob_task_key(pid_t tid, uint64_t start_time, char *buf, size_t size);

/* The affinity of thread tid as a CpuSet.  Returns 0 or -errno. */
int task_affinity_get(pid_t tid, CpuSet *ret);
/* Sets it.  Returns 0 or -errno (-ESRCH: gone, -EINVAL: no usable CPU). */
int task_affinity_set(pid_t tid, const CpuSet *cpus);
