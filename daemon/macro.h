/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Small helpers shared by the daemon's files. */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

static inline int negative_errno(int r) {
        return r < 0 ? r : -r;
}

/* Returns the pointer *p and sets *p to NULL: an explicit hand-off of
 * ownership out of a _cleanup_ variable. */
#define TAKE_PTR(p)                             \
        ({                                      \
                __typeof__(p) _p_ = (p);        \
                (p) = NULL;                     \
                _p_;                            \
        })

#define TAKE_FD(fd)                             \
        ({                                      \
                int _fd_ = (fd);                \
                (fd) = -1;                      \
                _fd_;                           \
        })

static inline bool streq_ptr(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

static inline void fclosep_(FILE **f) {
        if (*f)
                fclose(*f);
}
