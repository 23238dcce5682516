/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

static int max_level = LOG_INFO;

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

/* Returns -abs(error), or 0 when error is 0. */
int log_internal(int level, int error, const char *fmt, ...) {
        int saved_errno = errno;
        int ret = error < 0 ? error : -error;

        if (level <= max_level) {
                char line[2048];
                va_list ap;

                /* glibc expands %m from errno: make it the error we were given. */
                errno = abs(error);
                va_start(ap, fmt);
                vsnprintf(line, sizeof(line), fmt, ap);
                va_end(ap);
                fprintf(stderr, "<%d>%s\n", level, line);
        }
        errno = saved_errno;
        return ret;
}
