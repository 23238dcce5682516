/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A human-readable explanation of why a library call failed.  The library
 * never logs: a parser that rejects input fills an ErrorInfo (when the caller
 * passed one) and returns a negative errno; the caller decides what to print. */

#include <stdarg.h>

typedef struct ErrorInfo {
        char message[512];
} ErrorInfo;

/* Formats into e->message if e is not NULL.  Returns -abs(error), so that
 * "return errinfo_set(e, -EINVAL, "...")" works.  error must be non-zero. */
int errinfo_set(ErrorInfo *e, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
