/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "ctl-util.h"

char **strv_free(char **l) {
        if (l)
                for (char **i = l; *i; i++)
                        free(*i);
        free(l);
        return NULL;
}

size_t strv_length(char * const *l) {
        size_t n = 0;

        while (l && l[n])
                n++;
        return n;
}
