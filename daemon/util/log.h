/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Logging to stderr with "<N>" syslog level prefixes, which journald turns
 * into priorities.  "%m" prints the error passed to the *_errno variants. */

#include <errno.h>
#include <syslog.h>

/* Messages above level are dropped.  The default is LOG_INFO. */
void log_set_max_level(int level);
int log_get_max_level(void);

/* Prints one line at level.  Returns -abs(error) (0 when error is 0), so
 * that "return log_error_errno(r, ...)" propagates the error. */
int log_internal(int level, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define log_full_errno(level, error, ...) log_internal((level), (error), __VA_ARGS__)

#define log_debug(...)   log_internal(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...)    log_internal(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...)  log_internal(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_internal(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...)   log_internal(LOG_ERR, 0, __VA_ARGS__)

#define log_debug_errno(error, ...)   log_internal(LOG_DEBUG, (error), __VA_ARGS__)
#define log_info_errno(error, ...)    log_internal(LOG_INFO, (error), __VA_ARGS__)
#define log_notice_errno(error, ...)  log_internal(LOG_NOTICE, (error), __VA_ARGS__)
#define log_warning_errno(error, ...) log_internal(LOG_WARNING, (error), __VA_ARGS__)
#define log_error_errno(error, ...)   log_internal(LOG_ERR, (error), __VA_ARGS__)

/* Returns -ENOMEM after logging it (out of memory is fatal in the daemon). */
#define log_oom() log_internal(LOG_ERR, ENOMEM, "Out of memory.")
