/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* cpuidle discovery (driver, governor, per-CPU state tables, the haltpoll
 * parameters on KVM guests), the reader that re-reads the system-wide files
 * every tick and the sampler that re-reads the per-state counters.
 *
 * Paths, relative to the root handle:
 *   sys/devices/system/cpu/cpuidle/{current_driver,current_governor,
 *                                   current_governor_ro,available_governors}
 *   sys/devices/system/cpu/cpuN/cpuidle/stateK/{name,desc,latency,residency,
 *       power,usage,time,above,below,rejected,disable,default_status}
 *   sys/devices/system/cpu/cpuN/power/pm_qos_resume_latency_us
 *   sys/module/haltpoll/parameters/guest_halt_poll_{ns,grow,grow_start,shrink,allow_shrink}
 *   sys/module/wteo/parameters (whether it exists: the wteo governor)
 */

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "cleanup.h"
#include "errinfo.h"
#include "topology.h"

#define CPUIDLE_STATES_MAX 10      /* the kernel's CPUIDLE_STATE_MAX */
#define CPUIDLE_NAME_MAX 32        /* CPUIDLE_NAME_LEN is 16; room to spare */
#define CPUIDLE_DESC_MAX 64        /* CPUIDLE_DESC_LEN is 32 */
#define CPUIDLE_GOVERNORS_MAX 16

/* The value shown for / written as "n/a" in pm_qos_resume_latency_us: the
 * CPU may only use states with zero exit latency (polling). 0 means "no
 * constraint".  Valid numeric constraints are 1 .. CPUIDLE_RESUME_LATENCY_MAX. */
#define CPUIDLE_RESUME_LATENCY_NA UINT32_MAX
#define CPUIDLE_RESUME_LATENCY_MAX 2147483646u   /* S32_MAX - 1 */

/* Which optional per-state files this state has (older kernels lack some). */
enum {
        CPUIDLE_HAS_ABOVE          = 1u << 0,
        CPUIDLE_HAS_BELOW          = 1u << 1,
        CPUIDLE_HAS_REJECTED       = 1u << 2,
        CPUIDLE_HAS_DISABLE        = 1u << 3,
        CPUIDLE_HAS_DEFAULT_STATUS = 1u << 4,
        CPUIDLE_HAS_POWER          = 1u << 5,
        CPUIDLE_HAS_DESC           = 1u << 6,
};

/* Static description of one state (read once when the state is opened). */
typedef struct CpuidleStateInfo {
        char name[CPUIDLE_NAME_MAX];
        char desc[CPUIDLE_DESC_MAX];
        uint64_t latency_us;        /* exit latency */
        uint64_t residency_us;      /* target residency */
        uint64_t power_mw;          /* often UINT32_MAX = unknown */
        bool default_enabled;       /* default_status == "enabled" (true if file missing) */
        unsigned files;             /* CPUIDLE_HAS_* */
} CpuidleStateInfo;

/* Counters of one state at one instant. Missing files read as 0. */
typedef struct CpuidleStateCounters {
        uint64_t usage;
        uint64_t time_us;
        uint64_t above;
        uint64_t below;
        uint64_t rejected;
        bool disabled;
} CpuidleStateCounters;

typedef struct HaltpollParams {
        bool present;               /* sys/module/haltpoll/parameters exists */
        uint64_t poll_ns;           /* guest_halt_poll_ns */
        uint64_t grow;
        uint64_t grow_start;
        uint64_t shrink;
        bool allow_shrink;          /* "Y"/"N" */
} HaltpollParams;

typedef struct CpuidleSystem {
        char driver[64];            /* "" when cpuidle has no driver ("none") */
        char governor[64];
        bool governor_writable;     /* current_governor exists (5.8+) */
        unsigned n_governors;
        char governors[CPUIDLE_GOVERNORS_MAX][32];
        bool has_wteo;              /* the kernel offers the wteo governor: "wteo" is in
                                     * governors and sys/module/wteo/parameters exists */
        HaltpollParams haltpoll;
} CpuidleSystem;

/* Reads the system-wide cpuidle files and the haltpoll parameters once.
 * Returns 0; -ENOENT if there is no sys/devices/system/cpu/cpuidle at all;
 * other negative errno with e set (also set for -ENOENT); *ret untouched on
 * failure.  Missing optional files are tolerated. */
int cpuidle_system_load(int root_fd, CpuidleSystem *ret, ErrorInfo *e);

/* ---- system reader ------------------------------------------------------
 * cpuidle_system_load() for every tick: keeps the files open and re-reads
 * them with one pread() each (cpuidle-system.c).  Every read re-reads the
 * files that change at run time, the governor and guest_halt_poll_ns (an
 * administrator, tuned, the daemon itself).  A full read also re-reads the
 * driver, available_governors and the other haltpoll parameters and looks
 * for files and directories that were missing (a haltpoll module loaded
 * later).  A read is full
 *   - every full_every-th read (1: every read), starting with the first;
 *   - when the governor or guest_halt_poll_ns differ from the last read;
 *   - after a failed read and after cpuidle_system_reader_request_full().
 * An fd that fails with ENODEV/ENOENT (sysfs: the file was removed, e.g. the
 * module unloaded) makes the reader reopen every file at once and read them
 * all; a file unlinked under an open fd on another file system (a test
 * tree, where old fds stay readable) is noticed at the next full read.
 * With no cpuidle directory, reads fail with -ENOENT without touching the
 * tree until the next full read looks again.  No allocation per read. */

typedef struct CpuidleSystemReader CpuidleSystemReader;

/* Makes a reader that opens its files at the first read.  root_fd is
 * duplicated (AT_FDCWD is kept as is).  Returns 0, -EINVAL for full_every
 * 0, or another negative errno with e set; *ret untouched on failure. */
int cpuidle_system_reader_new(int root_fd, unsigned full_every, CpuidleSystemReader **ret, ErrorInfo *e);
/* Frees r (NULL allowed) and closes its fds.  Returns NULL. */
CpuidleSystemReader *cpuidle_system_reader_free(CpuidleSystemReader *r);
void cpuidle_system_reader_freep(CpuidleSystemReader **r);
#define _cleanup_cpuidle_system_reader_ _cleanup_(cpuidle_system_reader_freep)

/* Fills *ret as cpuidle_system_load() would, the values a partial read
 * skips carried over from the last read.  Returns 1 if *ret differs from
 * the last successful read (always for the first), 0 if not; -ENOENT when
 * there is no cpuidle directory, another negative errno with e set (the
 * same messages as cpuidle_system_load()); *ret untouched on failure. */
int cpuidle_system_reader_read(CpuidleSystemReader *r, CpuidleSystem *ret, ErrorInfo *e);

/* Makes the next read a full one (call after writing a system knob). */
void cpuidle_system_reader_request_full(CpuidleSystemReader *r);

/* Returns the number of files the last read pread() (0 before the first). */
unsigned cpuidle_system_reader_files_read(const CpuidleSystemReader *r);

/* The name of the companion governor (kernel/README.md). */
#define CPUIDLE_GOVERNOR_WTEO "wteo"

/* Returns true if name is listed in s->governors. */
bool cpuidle_system_has_governor(const CpuidleSystem *s, const char *name);

/* Resolves a state given by name ("POLL", "haltpoll idle") or by canonical
 * decimal index ("1"; not "01", "+1", " 1" or "1\n") against one CPU's state
 * table.  Returns the index, or -ENOENT. */
int cpuidle_state_lookup(const CpuidleStateInfo *states, unsigned n_states, const char *name_or_index);

/* Parses a pm_qos_resume_latency_us value ("0", "20", "n/a").
 * Returns 0 or -EINVAL; "n/a" gives CPUIDLE_RESUME_LATENCY_NA. */
int cpuidle_parse_resume_latency(const char *text, uint32_t *ret);
/* Formats a resume latency for writing: "n/a" or the decimal number. */
const char *cpuidle_format_resume_latency(uint32_t usec, char buf[static 16]);

/* ---- sampler ------------------------------------------------------------
 * Keeps an fd per counter file open and re-reads them with pread().  The fds
 * of a CPU are reopened when a read fails with ENODEV/ENOENT (the directory
 * was recreated, e.g. by a governor switch on a real kernel), and all CPUs are
 * reopened when the governor read at the start of each sample differs from
 * the one seen last time (this also catches recreated directories in a test
 * tree, where old fds stay readable).
 *
 * Without a budget there are up to six fds per state plus one per CPU:
 * about 62,000 for 1024 CPUs x 10 states.  With a budget
 * (cpuidle_sampler_new_budget()) the sampler holds at most that many fds,
 * given first to the usage files of every state (read at every sample), then
 * to time/above/below (read when usage moved), then to rejected, disable and
 * pm_qos_resume_latency_us (only in full samples under a cadence); a file
 * without an fd is opened, read and closed at each read (a file that is
 * gone then counts as a stale fd).  The values are the same either way.
 * The fds are taken at the reads, not at creation, so a sampler built to
 * replace another (hotplug) holds none until the old one is freed. */

typedef struct CpuidleCpuSample {
        bool online;                /* online and has a cpuidle directory */
        unsigned n_states;
        uint64_t generation;        /* bumped every time this CPU's fds were (re)opened */
        uint64_t stale_reopens;     /* how often its fds turned out stale at a read and were
                                     * opened again: its cpuidle files were removed and made
                                     * again (the CPU went offline and back) since they were
                                     * opened; a reopen asked for (a governor change,
                                     * cpuidle_sampler_invalidate()) does not count,
                                     * unless the usage counters it then reads restarted
                                     * below the last ones (the CPU flapped meanwhile) */
        uint32_t resume_latency_us; /* CPUIDLE_RESUME_LATENCY_NA for "n/a" */
        bool has_resume_latency;
        CpuidleStateCounters states[CPUIDLE_STATES_MAX];
        /* Read at this cpuidle_sampler_read().  Always true without a read
         * budget; with one (sampler-cadence.h) a CPU whose turn has not come
         * is false and carries the values of its last read (its generation
         * included: a CPU waiting for a reopen keeps its old generation until
         * its turn, so a stale value is never fresh). */
        bool fresh;
} CpuidleCpuSample;

typedef struct CpuidleSampler CpuidleSampler;

/* Opens the counter files of every online CPU in t.  A CPU without a cpuidle
 * directory is kept with n_states = 0 (online = false).  Keeps every counter
 * file open, without a budget (about 62,000 fds for 1024 CPUs x 10 states:
 * the caller raises RLIMIT_NOFILE; -EMFILE otherwise).  root_fd is
 * duplicated (AT_FDCWD is kept as is).  Generations are unique within the
 * process, so snapshots from two samplers never look comparable.  Returns 0
 * or a negative errno; *ret untouched on failure. */
int cpuidle_sampler_new(int root_fd, const Topology *t, CpuidleSampler **ret, ErrorInfo *e);

#define CPUIDLE_SAMPLER_FDS_UNLIMITED UINT_MAX
/* As cpuidle_sampler_new(), holding at most max_fds fds at any time, the
 * root fd's duplicate, the governor file and an O_PATH fd of the CPU
 * directory included (so never fewer than those three; plus one more for a
 * moment while a file without an fd is read); CPUIDLE_SAMPLER_FDS_UNLIMITED
 * is cpuidle_sampler_new().  Every file is opened once here to see that it
 * is there (and closed again).  Returns as cpuidle_sampler_new(). */
int cpuidle_sampler_new_budget(int root_fd, const Topology *t, unsigned max_fds, CpuidleSampler **ret, ErrorInfo *e);
/* Returns the number of fds s holds now. */
unsigned cpuidle_sampler_fds(const CpuidleSampler *s);
/* Frees s (NULL allowed) and closes its fds.  Returns NULL. */
CpuidleSampler *cpuidle_sampler_free(CpuidleSampler *s);
void cpuidle_sampler_freep(CpuidleSampler **s);
#define _cleanup_cpuidle_sampler_ _cleanup_(cpuidle_sampler_freep)

/* Number of CPU slots (= t->n_cpus given at creation). */
unsigned cpuidle_sampler_n_cpus(const CpuidleSampler *s);
/* The static state table of cpu (NULL and *ret_n = 0 for offline/no cpuidle).
 * Points into s: valid until the next cpuidle_sampler_read(), which may
 * reopen the CPU with another table (its generation then changes). */
const CpuidleStateInfo *cpuidle_sampler_states(const CpuidleSampler *s, unsigned cpu, unsigned *ret_n);
/* The governor seen at the last sample (or at creation). */
const char *cpuidle_sampler_governor(const CpuidleSampler *s);

/* Reads all counters of all CPUs into out[0 .. n_cpus-1] (with a read
 * budget, see sampler-cadence.h: the CPUs whose turn it is; the others keep
 * their last values with fresh = false).  Reopens stale
 * fds as described above.  A CPU whose cpuidle directory vanished (it went
 * offline) reads as online = false, n_states = 0, without an error, until
 * the next reopen.  Garbage in a counter file fails the whole sample with
 * -EBADMSG and e naming the file (never a silently wrong number); out is
 * then unspecified.  One pread() per file, no allocation.  Returns 0, or a
 * negative errno. */
int cpuidle_sampler_read(CpuidleSampler *s, CpuidleCpuSample *out, ErrorInfo *e);

/* Forces every CPU's fds to be reopened at the next read (call after the
 * daemon itself switched the governor). */
void cpuidle_sampler_invalidate(CpuidleSampler *s);
