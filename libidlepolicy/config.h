/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's configuration file (JSON, see idlepolicyd.conf(5)):
 *
 *   { "tick_usec": 1000000, "runtime_directory": "/run/idlepolicyd",
 *     "state_directory": "/var/lib/idlepolicy", "log_level": "info",
 *     "mode": "enforce", "calibrate_on_first_start": true,
 *     "governor_hold_usec": 30000000, "sample_files_per_tick": 2000,
 *     "metrics_textfile": "", "metrics_every_ticks": 10,
 *     "consolidation_background": ["system.slice", "cgroup:/background"],
 *     "consolidation_exit_util": 50, "consolidation_hysteresis": 10,
 *     "consolidation_headroom": 25, "consolidation_headroom_level2": 10,
 *     "consolidation_shrink_ticks": 5, "follow_power_profiles": false,
 *     "poll_search_tick_usec": 50000, "quiet_full_tick_usec": 4000000,
 *     "quiet_tick_usec": 2000000 }
 *
 * Every key is optional; unknown keys and bad values are rejected with the
 * file and key named. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "errinfo.h"

#define CONFIG_TICK_USEC_MIN 10000ULL            /* 10 ms */
#define CONFIG_TICK_USEC_MAX 3600000000ULL       /* 1 h */
#define CONFIG_TICK_USEC_DEFAULT 1000000ULL      /* 1 s */
/* 50 ms: the poll search's short ticks.  A measurement is 2 ticks, so a
 * climb through the five settings takes about half a second, where a
 * program that just started pays for every tick under a setting worse
 * than the one the climb ends at (pgbench-ro, one client: a third of the
 * progress without polling and at 25 us).  At 100 ms, bench/live's
 * pgbench-ro made 25273 tps against 30487 at 50 ms (medians of 5 rounds,
 * bench/results/live-search-tick-50ms.md); the daemon ticks as many times
 * a climb or probe either way, each measurement is noisier, and the
 * probes' statistics (POLL_SEARCH_PROBES_MIN, twice the standard error)
 * carry that. */
#define CONFIG_SEARCH_TICK_USEC_DEFAULT 50000ULL
/* While the machine is quiet the ticks are light (quiet-tick.h): a full one
 * comes at least this often; 0 = every tick is full. */
#define CONFIG_QUIET_FULL_TICK_USEC_DEFAULT 4000000ULL /* 4 s */
#define CONFIG_QUIET_TICK_USEC_DEFAULT 2000000ULL /* 2 s: the long tick while quiet */
#define CONFIG_GOVERNOR_HOLD_USEC_MAX 3600000000ULL      /* 1 h */
#define CONFIG_GOVERNOR_HOLD_USEC_DEFAULT 30000000ULL    /* 30 s */
/* Counter files the sampler reads per tick, CPUs in turns (0: no limit;
 * sampler-cadence.h).  The default keeps a tick of 1024 CPUs x 10 states
 * within about 20 ms of CPU (bench/results/daemon-scale.md). */
#define CONFIG_SAMPLE_FILES_PER_TICK_MAX 1000000000ULL
#define CONFIG_SAMPLE_FILES_PER_TICK_DEFAULT 2000ULL
/* The metrics textfile (node_exporter's textfile collector) is written
 * every this many ticks. */
#define CONFIG_METRICS_EVERY_TICKS_MAX 1000000ULL
#define CONFIG_METRICS_EVERY_TICKS_DEFAULT 10ULL

/* Consolidation (libidlepolicy/consolidate/): what is background, at most
 * this many entries of at most CONFIG_BACKGROUND_NAME_MAX - 1 bytes each:
 * "unit:NAME" or a bare unit name with a type suffix ("system.slice"), or
 * "cgroup:/PATH" below the cgroup mount. */
#define CONFIG_BACKGROUND_MAX 16
#define CONFIG_BACKGROUND_NAME_MAX 256

typedef enum LogLevel {
        LOG_LEVEL_ERR = 3,
        LOG_LEVEL_WARNING = 4,
        LOG_LEVEL_NOTICE = 5,
        LOG_LEVEL_INFO = 6,
        LOG_LEVEL_DEBUG = 7,
} LogLevel;

/* What the daemon does with its plan: observe (learn and show it, write
 * nothing) or enforce (write the knobs). */
typedef enum DaemonMode {
        DAEMON_MODE_OBSERVE,
        DAEMON_MODE_ENFORCE,
        _DAEMON_MODE_MAX,
} DaemonMode;

typedef struct Config {
        uint64_t tick_usec;
        char runtime_directory[256];
        char state_directory[256];
        LogLevel log_level;
        DaemonMode mode;                 /* the default mode, until one is set over the bus */
        int calibrate_on_first_start;    /* 1/0; -1 = not set: calibrate on the real root only */
        uint64_t governor_hold_usec;     /* the policy keeps a governor at least this long */
        uint64_t sample_files_per_tick;  /* the sampler's read budget, 0 = every CPU every tick */
        char metrics_textfile[256];      /* absolute path ending in .prom; "" = none */
        uint64_t metrics_every_ticks;    /* 1.. */
        /* consolidation: the background's cgroups and units, and the
         * thresholds of consolidate.h (in %, ticks) */
        char consolidation_background[CONFIG_BACKGROUND_MAX][CONFIG_BACKGROUND_NAME_MAX];
        unsigned n_consolidation_background;
        uint64_t consolidation_exit_util;        /* 1..100, default 50 */
        uint64_t consolidation_hysteresis;       /* 0..exit_util - 1, default 10 */
        uint64_t consolidation_headroom;         /* 0..400, default 25 */
        uint64_t consolidation_headroom_level2;  /* 0..400, default 10 */
        uint64_t consolidation_shrink_ticks;     /* 0..3600, default 5 */
        bool follow_power_profiles;      /* the machine profile follows power-profiles-daemon's */
        uint64_t poll_search_tick_usec;  /* the tick while the poll search climbs or probes
                                          * (never longer than tick_usec) */
        uint64_t quiet_full_tick_usec;   /* light ticks while quiet, a full one at least this
                                          * often; 0 = no light ticks */
        uint64_t quiet_tick_usec;        /* the long tick while quiet, where an exec wakes the
                                          * daemon (quiet-tick.h); 0 = none */
} Config;

/* Fills c with the built-in defaults. */
void config_init(Config *c);

/* Parses JSON text (from a file called filename, used in messages only) on
 * top of *c.  On failure returns -EINVAL (or -ENOMEM) with e like
 * "/etc/idlepolicy/idlepolicyd.conf: key \"tick_usec\": must be an integer
 * between 10000 and 3600000000" and leaves *c unchanged. */
int config_parse(const char *text, const char *filename, Config *c, ErrorInfo *e);

/* The largest configuration file read: 64 KiB (the file is a few hundred
 * bytes). */
#define CONFIG_FILE_MAX (64 * 1024)

/* Reads the file dir_fd/path and parses it (see config_parse); filename
 * names it in messages.  The file is opened without blocking and must be
 * a regular file (a symbolic link to one is fine) of text of at most
 * CONFIG_FILE_MAX bytes.  On failure returns a negative errno with e like
 * "FILE: not a regular file" and leaves *c unchanged: -ENOENT (missing),
 * -EBADFD (not a regular file: a FIFO, a device, a directory), -EFBIG,
 * -EBADMSG (a NUL byte), another errno of the read, -EINVAL (bad content,
 * see config_parse) or -ENOMEM. */
int config_load(int dir_fd, const char *path, const char *filename, Config *c, ErrorInfo *e);

/* Returns "observe" or "enforce"; NULL for an invalid mode. */
const char *daemon_mode_to_string(DaemonMode m);
/* Returns 0 and sets *ret, or -EINVAL. */
int daemon_mode_from_string(const char *s, DaemonMode *ret);

/* Returns "err", "warning", ... for a level; NULL for an invalid one. */
const char *log_level_to_string(LogLevel l);
/* Returns 0 and sets *ret, or -EINVAL. */
int log_level_from_string(const char *s, LogLevel *ret);
