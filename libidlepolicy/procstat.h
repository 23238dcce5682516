/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* proc/stat (per-CPU busy and total jiffies) and proc/interrupts (per-CPU
 * interrupts, split into timer and non-timer).  Both files are kept open and
 * re-read with pread(). */

#include <stdbool.h>
#include <stdint.h>

#include "cleanup.h"
#include "cpuset.h"
#include "errinfo.h"

typedef struct ProcCpuSample {
        bool has_stat;              /* a cpuN line was present in proc/stat */
        uint64_t busy_jiffies;      /* user+nice+system+irq+softirq+steal */
        uint64_t total_jiffies;     /* busy + idle + iowait */
        bool has_irq;               /* a column was present in proc/interrupts */
        uint64_t timer_irqs;        /* rows that are timers: LOC, or a description containing "timer" */
        uint64_t other_irqs;        /* every other per-CPU row (IPIs, devices) */
} ProcCpuSample;

/* The machine's totals in proc/stat: the aggregate "cpu" line (every CPU's
 * time summed by the kernel) and the context switches. */
typedef struct ProcTotals {
        bool has_cpu;               /* the "cpu" line was read */
        uint64_t busy_jiffies;      /* as ProcCpuSample's, over every CPU */
        uint64_t total_jiffies;
        bool has_ctxt;              /* the "ctxt" line was read */
        uint64_t ctxt;
} ProcTotals;

typedef struct ProcReader ProcReader;

/* The most procreader_read() reads of either file: 64 MiB.  A larger one
 * fails the read with -EFBIG ("larger than the limit").  proc/interrupts
 * has a column of about 11 bytes per CPU on every row: 64 MiB are over
 * 700 rows on 8192 CPUs. */
#define PROCSTAT_FILE_MAX ((size_t) 64 * 1024 * 1024)

/* Opens proc/stat and proc/interrupts under root_fd.  A missing
 * proc/interrupts is tolerated (has_irq stays false).  Returns 0 or a
 * negative errno; *ret untouched on failure. */
int procreader_new(int root_fd, ProcReader **ret, ErrorInfo *e);
/* Frees r (NULL allowed) and closes its fds.  Returns NULL. */
ProcReader *procreader_free(ProcReader *r);
void procreader_freep(ProcReader **r);
#define _cleanup_procreader_ _cleanup_(procreader_freep)

/* Fills out[0 .. n_cpus-1] (zeroed first).  CPUs not listed stay has_* =
 * false.  Malformed or truncated content fails with -EBADMSG and e naming
 * the file and line ("proc/stat:3: ..."); out is then unspecified.  No
 * allocation once the buffer has grown to the files' size.  Returns 0 or a
 * negative errno. */
int procreader_read(ProcReader *r, unsigned n_cpus, ProcCpuSample *out, ErrorInfo *e);

/* proc/stat's context switch count ("ctxt N") at the last successful
 * procreader_read() or procreader_read_totals().  Returns false (and
 * leaves *ret) when the file had none or its value was not a number. */
bool procreader_ctxt(const ProcReader *r, uint64_t *ret);

/* Reads proc/stat alone (not proc/interrupts) into *ret: the cheap look
 * at the machine a light tick takes (quiet-tick.h); with online, also the
 * CPUs it lists (procstat_parse_online()).  Returns 0 or a negative errno
 * with e set (-EBADMSG: no "cpu" line, or a bad one; a missing or bad
 * ctxt only leaves has_ctxt false). */
int procreader_read_totals(ProcReader *r, ProcTotals *ret, CpuSet *online, ErrorInfo *e);

/* The totals at the last successful procreader_read() or
 * procreader_read_totals() (all has_* false before the first). */
ProcTotals procreader_totals(const ProcReader *r);

/* The pure parsers behind procreader_read(), for tests and the simulator.
 * Each resets and fills only its own fields of out[0 .. n_cpus-1]; a line
 * not ended by a newline counts as truncated.  Return 0 or -EBADMSG. */
int procstat_parse_stat(const char *text, unsigned n_cpus, ProcCpuSample *out, ErrorInfo *e);
int procstat_parse_interrupts(const char *text, unsigned n_cpus, ProcCpuSample *out, ErrorInfo *e);
/* The value of the first complete "ctxt N" line of proc/stat's text.
 * Returns 0, -ENODATA without one, -EBADMSG when N is not a number. */
int procstat_parse_ctxt(const char *text, uint64_t *ret);
/* The aggregate "cpu" line and ctxt of proc/stat's text.  Returns 0 or
 * -EBADMSG with e set when the "cpu" line is missing or bad (a missing or
 * bad ctxt leaves has_ctxt false). */
int procstat_parse_totals(const char *text, ProcTotals *ret, ErrorInfo *e);
/* The CPUs with a complete "cpuN" line in proc/stat's text into *ret: the
 * online ones (the kernel's show_stat() lists each online CPU), so that a
 * light tick tells a hotplug from the file it reads anyway, without
 * reading devices/system/cpu/online.  Returns how many lines it took (0:
 * a text without per-CPU lines tells nothing). */
unsigned procstat_parse_online(const char *text, CpuSet *ret);
