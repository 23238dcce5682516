/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's configuration file (JSON, see idlepolicyd.conf(5)):
 *
 *   { "tick_usec": 1000000, "runtime_directory": "/run/idlepolicyd",
 *     "state_directory": "/var/lib/idlepolicy", "log_level": "info" }
 *
 * Every key is optional; unknown keys and bad values are rejected with the
 * file and key named. */

#include <stdint.h>
#include <stdio.h>

#include "errinfo.h"

#define CONFIG_TICK_USEC_MIN 10000ULL            /* 10 ms */
#define CONFIG_TICK_USEC_MAX 3600000000ULL       /* 1 h */
#define CONFIG_TICK_USEC_DEFAULT 1000000ULL      /* 1 s */

typedef enum LogLevel {
        LOG_LEVEL_ERR = 3,
        LOG_LEVEL_WARNING = 4,
        LOG_LEVEL_NOTICE = 5,
        LOG_LEVEL_INFO = 6,
        LOG_LEVEL_DEBUG = 7,
} LogLevel;

typedef struct Config {
        uint64_t tick_usec;
        char runtime_directory[256];
        char state_directory[256];
        LogLevel log_level;
} Config;

/* Fills c with the built-in defaults. */
void config_init(Config *c);

/* Parses JSON text (from a file called filename, used in messages only) on
 * top of *c.  On failure returns -EINVAL (or -ENOMEM) with e like
 * "/etc/idlepolicy/idlepolicyd.conf: key \"tick_usec\": must be an integer
 * between 10000 and 3600000000" and leaves *c unchanged. */
int config_parse(const char *text, const char *filename, Config *c, ErrorInfo *e);

/* Reads the file through an open FILE* and parses it (see config_parse). */
int config_load(FILE *f, const char *filename, Config *c, ErrorInfo *e);

/* Returns "err", "warning", ... for a level; NULL for an invalid one. */
const char *log_level_to_string(LogLevel l);
/* Returns 0 and sets *ret, or -EINVAL. */
int log_level_from_string(const char *s, LogLevel *ret);
