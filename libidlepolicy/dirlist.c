/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "cleanup.h"
#include "dirlist.h"

static void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

/* Returns true and the number if name is a canonical decimal of at most
 * max. */
static bool name_number(const char *name, unsigned max, unsigned *ret) {
        unsigned long long v = 0;

        if (name[0] == '\0' || (name[0] == '0' && name[1] != '\0'))
                return false;
        for (const char *c = name; *c; c++) {
                if (*c < '0' || *c > '9')
                        return false;
                v = v * 10 + (unsigned) (*c - '0');
                if (v > max)
                        return false;
        }
        *ret = (unsigned) v;
        return true;
}

/* Appends v to *array (*n used of *allocated).  Returns 0 or -ENOMEM. */
static int append(unsigned **array, size_t *n, size_t *allocated, unsigned v) {
        if (*n == *allocated) {
                size_t want = *allocated ? *allocated * 2 : 64;
                unsigned *p = reallocarray(*array, want, sizeof(unsigned));

                if (!p)
                        return -ENOMEM;
                *array = p;
                *allocated = want;
        }
        (*array)[(*n)++] = v;
        return 0;
}

static int compare_unsigned(const void *a, const void *b) {
        unsigned x = *(const unsigned *) a, y = *(const unsigned *) b;

        return (x > y) - (x < y);
}

int dir_list_numeric_at(int dirfd, const char *path, unsigned max, unsigned **ret, size_t *ret_n) {
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_free_ unsigned *values = NULL;
        size_t n = 0, allocated = 0;
        int fd;

        if (!path || path[0] == '\0' || path[0] == '/')
                return -EINVAL;
        fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -errno;
        }
        for (;;) {
                struct dirent *de;
                unsigned v;

                errno = 0;
                de = readdir(d);
                if (!de && errno != 0)
                        return -errno;
                if (!de)
                        break;
                if (name_number(de->d_name, max, &v) && append(&values, &n, &allocated, v) < 0)
                        return -ENOMEM;
        }
        if (n > 0)
                qsort(values, n, sizeof(unsigned), compare_unsigned);
        *ret = TAKE_PTR(values);
        *ret_n = n;
        return 0;
}
