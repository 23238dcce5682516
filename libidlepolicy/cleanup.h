/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdio.h>

/* The project's one vocabulary for ownership (library, daemon, CLI, tools):
 * cleanup attributes, explicit hand-off out of a cleanup variable, array
 * length.  A type's own cleanup macro is spelled _cleanup_(type_freep). */

#define _cleanup_(f) __attribute__((cleanup(f)))

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

/* Returns the pointer p and sets p to NULL: an explicit hand-off of
 * ownership out of a _cleanup_ variable. */
#define TAKE_PTR(p)                             \
        ({                                      \
                __typeof__(p) _p_ = (p);        \
                (p) = NULL;                     \
                _p_;                            \
        })

/* The same for a file descriptor (-1 left behind). */
#define TAKE_FD(fd)                             \
        ({                                      \
                int _fd_ = (fd);                \
                (fd) = -1;                      \
                _fd_;                           \
        })

/* free(*p): for _cleanup_free_ (fileio.c). */
void freep(void *p);
#define _cleanup_free_ _cleanup_(freep)

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)
