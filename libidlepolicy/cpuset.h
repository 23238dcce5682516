/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A set of CPU ids, parsed from and formatted to the kernel's list syntax
 * ("0-3,8,10-11").  Fixed capacity: CPUSET_MAX CPUs (the kernel's NR_CPUS
 * on distribution kernels is 8192). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errinfo.h"

#define CPUSET_MAX 8192u
/* The bytes of a mask of CPUSET_MAX CPUs (cpuset_to_mask). */
#define CPUSET_MASK_MAX (CPUSET_MAX / 8u)

typedef struct CpuSet {
        uint64_t bits[CPUSET_MAX / 64];
} CpuSet;

void cpuset_clear(CpuSet *s);
void cpuset_add(CpuSet *s, unsigned cpu);          /* cpu >= CPUSET_MAX: ignored */
void cpuset_remove(CpuSet *s, unsigned cpu);
bool cpuset_contains(const CpuSet *s, unsigned cpu);
unsigned cpuset_count(const CpuSet *s);
bool cpuset_equal(const CpuSet *a, const CpuSet *b);
/* Returns the highest CPU in the set + 1, 0 for an empty set. */
unsigned cpuset_span(const CpuSet *s);
/* Returns the first cpu >= from in the set, or -1. */
int cpuset_next(const CpuSet *s, unsigned from);
#define CPUSET_FOREACH(cpu, set) \
        for (int cpu = cpuset_next((set), 0); cpu >= 0; cpu = cpuset_next((set), (unsigned) cpu + 1))

/* Parses "0-3,5" (empty string or "\n" = empty set; whitespace around the
 * list tolerated).  Returns 0, or -EINVAL/-ERANGE with e naming the bad
 * token; *ret untouched on failure. */
int cpuset_parse(const char *text, CpuSet *ret, ErrorInfo *e);

/* Formats as "0-3,5" into buf.  Returns 0 or -ENOBUFS. */
int cpuset_format(const CpuSet *s, char *buf, size_t size);

/* The mask systemd's AllowedCPUs= travels as on D-Bus (type "ay", and
 * sched_setaffinity's cpu_set_t on little-endian machines): byte i holds
 * CPUs 8i..8i+7, bit N of the whole = CPU N.  cpuset_to_mask writes the
 * shortest mask (no trailing zero bytes; none at all for an empty set)
 * into buf (size bytes; CPUSET_MASK_MAX always suffice) and its length
 * into *ret_len.  Returns 0 or -ENOBUFS (*ret_len untouched). */
int cpuset_to_mask(const CpuSet *s, uint8_t *buf, size_t size, size_t *ret_len);

/* Reads such a mask of len bytes (systemd may send trailing zero bytes
 * beyond CPUSET_MAX).  Returns 0, or -ERANGE for a CPU >= CPUSET_MAX (*ret
 * untouched). */
int cpuset_from_mask(const uint8_t *mask, size_t len, CpuSet *ret);
