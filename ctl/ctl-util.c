/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
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

void *ctl_array_append(void **array, size_t *n, size_t size) {
        char *a = realloc(*array, (*n + 1) * size);

        if (!a)
                return NULL;
        memset(a + *n * size, 0, size);
        *array = a;
        return a + (*n)++ * size;
}

int ctl_strdup_replace(char **dst, const char *src) {
        char *copy = strdup(src);

        if (!copy)
                return -ENOMEM;
        free(*dst);
        *dst = copy;
        return 0;
}
