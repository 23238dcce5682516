/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Every kernel file idlepolicyd reads or writes, in one place: paths
 * relative to the root directory handle (the real "/" or a test tree), so
 * nothing here is absolute.  The per-CPU ones are printf formats taking the
 * CPU (and the state index, or a file name); being string literals they
 * keep -Wformat's checks at every use.
 *
 * The test trees (tests/faketree.c) spell these paths out on their own on
 * purpose: a typo here then fails the tests instead of moving both sides. */

/* CPUs: present/online lists and one directory per CPU. */
#define SYSFS_CPU_DIR                   "sys/devices/system/cpu"
#define SYSFS_CPU_ONLINE                SYSFS_CPU_DIR "/online"
#define SYSFS_CPU_PRESENT               SYSFS_CPU_DIR "/present"

/* The system-wide cpuidle files (current_governor_ro before Linux 5.8). */
#define SYSFS_CPUIDLE_DIR               SYSFS_CPU_DIR "/cpuidle"
#define SYSFS_CPUIDLE_DRIVER            SYSFS_CPUIDLE_DIR "/current_driver"
#define SYSFS_CPUIDLE_GOVERNOR          SYSFS_CPUIDLE_DIR "/current_governor"
#define SYSFS_CPUIDLE_GOVERNOR_RO       SYSFS_CPUIDLE_DIR "/current_governor_ro"
#define SYSFS_CPUIDLE_GOVERNORS         SYSFS_CPUIDLE_DIR "/available_governors"

/* The KVM guest halt-poll parameters (module haltpoll, system-wide). */
#define SYSFS_HALTPOLL_DIR              "sys/module/haltpoll/parameters"
#define SYSFS_HALTPOLL_PARAM(name)      SYSFS_HALTPOLL_DIR "/" name
#define SYSFS_HALTPOLL_NS               SYSFS_HALTPOLL_PARAM("guest_halt_poll_ns")
#define SYSFS_HALTPOLL_GROW             SYSFS_HALTPOLL_PARAM("guest_halt_poll_grow")
#define SYSFS_HALTPOLL_GROW_START       SYSFS_HALTPOLL_PARAM("guest_halt_poll_grow_start")
#define SYSFS_HALTPOLL_SHRINK           SYSFS_HALTPOLL_PARAM("guest_halt_poll_shrink")
#define SYSFS_HALTPOLL_ALLOW_SHRINK     SYSFS_HALTPOLL_PARAM("guest_halt_poll_allow_shrink")

/* The wteo governor's parameters (kernel/README.md), system-wide; the
 * directory exists when the kernel has the governor. */
#define SYSFS_WTEO_DIR                  "sys/module/wteo/parameters"
#define SYSFS_WTEO_PARAM(name)          SYSFS_WTEO_DIR "/" name
#define SYSFS_WTEO_LEARN_SHIFT          SYSFS_WTEO_PARAM("learn_shift")
#define SYSFS_WTEO_AGE_SHIFT            SYSFS_WTEO_PARAM("age_shift")
#define SYSFS_WTEO_EXPLORE_SHIFT        SYSFS_WTEO_PARAM("explore_shift")

/* Per CPU (formats: the CPU, then what the name says). */
#define SYSFS_CPU_PREFIX                SYSFS_CPU_DIR "/cpu"            /* + "N/..." */
#define SYSFS_CPU_FMT                   SYSFS_CPU_PREFIX "%u"
#define SYSFS_CPU_TOPOLOGY_FMT          SYSFS_CPU_FMT "/topology/%s"    /* cpu, file */
#define SYSFS_CPU_CPUIDLE_FMT           SYSFS_CPU_FMT "/cpuidle"
#define SYSFS_CPU_STATE_FMT             SYSFS_CPU_FMT "/cpuidle/state%u"        /* cpu, state */
#define SYSFS_CPU_STATE_FILE_FMT        SYSFS_CPU_STATE_FMT "/%s"               /* cpu, state, file */
#define SYSFS_CPU_STATE_DISABLE_FMT     SYSFS_CPU_STATE_FMT "/disable"          /* cpu, state */
#define SYSFS_CPU_RESUME_LATENCY_FMT    SYSFS_CPU_FMT "/power/pm_qos_resume_latency_us"
/* Present only while wteo governs the CPU (its enable() makes the group). */
#define SYSFS_CPU_WTEO_FMT              SYSFS_CPU_FMT "/wteo"
#define SYSFS_CPU_WTEO_TOLERANCE_FMT    SYSFS_CPU_WTEO_FMT "/tolerance"
#define SYSFS_CPU_WTEO_MATRIX_FMT       SYSFS_CPU_WTEO_FMT "/matrix"

/* The same per-CPU files relative to one CPU's directory (cpuN/...). */
#define SYSFS_CPU_REL_CPUIDLE           "cpuidle"
#define SYSFS_CPU_REL_STATE             "cpuidle/state"                 /* + "K/file" */
#define SYSFS_CPU_REL_RESUME_LATENCY    "power/pm_qos_resume_latency_us"
#define SYSFS_CPU_REL_WTEO_TOLERANCE    "wteo/tolerance"

/* procfs. */
#define PROCFS_STAT                     "proc/stat"
#define PROCFS_INTERRUPTS               "proc/interrupts"
#define PROCFS_TIMER_LIST               "proc/timer_list"
#define PROCFS_DIR                      "proc"
#define PROCFS_PID_FMT                  "proc/%d"                       /* pid */
#define PROCFS_PID_STAT_FMT             PROCFS_PID_FMT "/stat"
#define PROCFS_PID_EXE_FMT              PROCFS_PID_FMT "/exe"
#define PROCFS_PID_TASK_FMT             PROCFS_PID_FMT "/task"
