/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdlib.h>

/* Makes room for element n of the growing array *v (capacity *cap elements
 * of size bytes; first capacity: first).  Returns 0 or -ENOMEM; *v and *cap
 * are unchanged on failure. */
static inline int grow_array(void **v, size_t *cap, size_t n, size_t size, size_t first) {
        if (n < *cap)
                return 0;
        size_t ncap = *cap ? *cap * 2 : first;
        void *p = reallocarray(*v, ncap, size);
        if (!p)
                return -ENOMEM;
        *v = p;
        *cap = ncap;
        return 0;
}
