/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Small helpers shared by the daemon's files. */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"


static inline int negative_errno(int r) {
        return r < 0 ? r : -r;
}


/* Makes room for one more element in *array (of *n used, *allocated,
 * element size bytes), doubling from 8.  Returns 0 or -ENOMEM (nothing
 * changed). */
static inline int array_reserve_one(void **array, size_t n, size_t *allocated, size_t size) {
        size_t a = *allocated ? *allocated * 2 : 8;
        void *p;

        if (n < *allocated)
                return 0;
        p = realloc(*array, a * size);
        if (!p)
                return -ENOMEM;
        *array = p;
        *allocated = a;
        return 0;
}

static inline bool streq_ptr(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

