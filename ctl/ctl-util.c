/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>

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

bool strv_contains(char * const *l, const char *s) {
        for (size_t i = 0; l && l[i]; i++)
                if (strcmp(l[i], s) == 0)
                        return true;
        return false;
}
