/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A faithful fake of the sysfs and procfs files idlepolicyd reads, built
 * under a directory (never the real root):
 *
 *   sys/devices/system/cpu/{present,online,possible}
 *   sys/devices/system/cpu/cpuN/topology/{physical_package_id,die_id,core_id,thread_siblings_list}
 *   sys/devices/system/cpu/cpuN/cpuidle/stateK/{name,desc,latency,residency,power,
 *       usage,time,above,below,rejected,disable,default_status}
 *   sys/devices/system/cpu/cpuN/power/pm_qos_resume_latency_us
 *   sys/devices/system/cpu/cpuidle/{current_driver,current_governor,current_governor_ro,available_governors}
 *   sys/module/haltpoll/parameters/guest_halt_poll_*
 *   sys/module/wteo/parameters/{learn_shift,age_shift,explore_shift} (option wteo)
 *   sys/devices/system/cpu/cpuN/wteo/{tolerance,matrix} (while the governor is wteo)
 *   proc/stat, proc/interrupts
 *   dev/cpu_dma_latency (no request), proc/PID/{comm,fd/N} of its holders
 *
 * The per-CPU /proc counters live in a small model file ".faketree" next to
 * sys/ and proc/, so that counters survive a CPU going offline and back, and
 * so that make-faketree can advance a tree it did not create in this process.
 * Counter files are rewritten in place (never replaced), like sysfs: readers
 * that keep fds open see the new values.
 *
 * Every function returns 0 or a negative errno. */

#include <stdbool.h>
#include <stdint.h>

#define FAKETREE_CPUS_MAX 4096
#define FAKETREE_STATES_MAX 10

typedef struct FakeState {
        const char *name;
        const char *desc;
        unsigned latency_us;
        unsigned residency_us;
} FakeState;

typedef struct FakeTreeOptions {
        unsigned n_cpus;            /* default 2 */
        unsigned n_states;          /* 0: this VM's table (POLL 0/0, "haltpoll idle" 1/1);
                                     * else POLL plus generated C1..C{n-1} */
        unsigned threads_per_core;  /* default 1 */
        const char *driver;         /* default "haltpoll"; "none" = no driver */
        const char *governor;       /* default "haltpoll" */
        const char *governors;      /* available_governors, default "ladder menu haltpoll" */
        const char *offline;        /* CPU list offline from the start, default none */
        bool haltpoll;              /* sys/module/haltpoll/parameters (default true) */
        bool old_kernel;            /* no above/below/rejected/default_status files */
        bool wteo;                  /* offer the wteo governor: listed in available_governors
                                     * (appended) and sys/module/wteo/parameters */
} FakeTreeOptions;

/* Counter increments for faketree_bump_state(). */
typedef struct FakeCounters {
        uint64_t usage, time_us, above, below, rejected;
} FakeCounters;

void faketree_options_init(FakeTreeOptions *o);

/* Builds a tree under root_fd.  Refuses a directory that holds something
 * other than an earlier fake tree (which is replaced). */
int faketree_create(int root_fd, const FakeTreeOptions *o);

/* Writes printf-formatted content to root_fd/path in place (creating the
 * file and its parent directories if needed). */
int faketree_write(int root_fd, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Removes root_fd/path recursively (missing is fine). */
int faketree_rm_rf(int root_fd, const char *path);

/* Adds d to the counter files of cpu/state (absent files are skipped). */
int faketree_bump_state(int root_fd, unsigned cpu, unsigned state, const FakeCounters *d);
/* Adds jiffies and interrupts to cpu's proc/stat and proc/interrupts
 * counters (busy goes to "user", timer_irqs to LOC, other_irqs to RES). */
int faketree_bump_proc(int root_fd, unsigned cpu, uint64_t busy, uint64_t idle,
                       uint64_t timer_irqs, uint64_t other_irqs);
/* usec of plausible activity on every online CPU: usage, time (70% of the
 * interval), above and below of every state, proc/stat jiffies (100 a
 * second) and proc/interrupts (timer and other).  Rates are exact in the
 * long run whatever the steps: the first second from creation adds, on CPU
 * c, 400/(k+1) + 13c + 7 entries to state k. */
int faketree_advance(int root_fd, uint64_t usec);
/* faketree_advance() by one second. */
int faketree_tick(int root_fd);
/* Advances by the time since the previous faketree_tick_at() (one second the
 * first time) on the caller's clock (usec), so that a tree ticked at any
 * pace shows realistic rates (time shares stay below 100%). */
int faketree_tick_at(int root_fd, uint64_t now_usec);

/* Takes cpu offline like this machine's kernel does: its cpuidle and
 * topology directories disappear, it leaves "online", proc/stat and the
 * proc/interrupts columns. */
int faketree_set_offline(int root_fd, unsigned cpu);
/* Brings cpu back with fresh cpuidle (the tree's table) and topology dirs. */
int faketree_set_online(int root_fd, unsigned cpu);
/* Replaces cpu's cpuidle directory by a new one holding the given states
 * (counters 0), as a kernel with a different driver would show. */
int faketree_write_states(int root_fd, unsigned cpu, const FakeState *states, unsigned n, bool old_kernel);
/* Simulates a governor switch: writes current_governor(_ro) and recreates
 * every online CPU's cpuidle directory with the same content (new inodes:
 * fds opened before keep showing the old files).  Each directory is gone
 * for a moment and comes back whole (built aside, then renamed in place),
 * as sysfs recreates it: a reader finds it missing or complete. */
int faketree_switch_governor(int root_fd, const char *governor);

/* Returns the number of stateK directories of cpu. */
unsigned faketree_count_states(int root_fd, unsigned cpu);

/* ---- the wteo governor (faketree-wteo.c) ---------------------------------
 * A plain directory cannot react to a write of current_governor the way
 * the kernel does (its enable() makes cpuN/wteo, disable() removes it), so
 * faketree_wteo_sync() does it on call: faketree_create() and
 * faketree_switch_governor() call it, and "make-faketree DIR
 * --follow-governor" calls it every 2 ms for writes made by others. */

/* Where a CPU's tolerance waits while wteo does not govern (the kernel
 * keeps it across a switch). */
#define FAKETREE_WTEO_STORE ".faketree-wteo"

/* Writes sys/module/wteo/parameters with wteo-core.h's defaults. */
int faketree_wteo_create(int root_fd);
/* Makes every online CPU's cpuN/wteo (tolerance kept from before, default
 * 102; matrix the prior for its states) when current_governor is wteo and
 * the parameters exist; removes them otherwise.  Returns the number of
 * CPUs changed or a negative errno. */
int faketree_wteo_sync(int root_fd);
/* Replaces cpu's wteo/matrix by text (as it is, for bad content too). */
int faketree_wteo_write_matrix(int root_fd, unsigned cpu, const char *text);

/* ---- the CPU latency request (faketree-latency.c) ------------------------
 * dev/cpu_dma_latency as the kernel reads it (latency-request.h): 4 bytes,
 * host order; faketree_create() writes LATENCY_REQUEST_NONE.  A holder is
 * a process directory proc/PID with its comm and fd/3 linking to
 * "/dev/cpu_dma_latency" (fd/0 to "/dev/null"). */

/* Sets the aggregate request the device reads (any value, bad ones too). */
int faketree_latency_set(int root_fd, int32_t usec);
/* Adds process pid named comm holding the device open. */
int faketree_latency_hold(int root_fd, unsigned pid, const char *comm);
/* Removes process pid (its proc/PID directory). */
int faketree_latency_release(int root_fd, unsigned pid);
