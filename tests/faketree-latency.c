/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU latency request of a fake tree (faketree.h): dev/cpu_dma_latency
 * holding the aggregate as the kernel reads it (4 bytes, host order), and
 * holders as processes under proc/ whose fd links point at the device. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "faketree.h"
#include "fileio.h"
#include "latency-request.h"

int faketree_latency_set(int root_fd, int32_t usec) {
        _cleanup_(fileio_closep) int fd = -1;
        int r = faketree_write(root_fd, LATENCY_REQUEST_DEVICE, "%s", "");   /* the root check, the parents */

        if (r < 0)
                return r;
        fd = openat(root_fd, LATENCY_REQUEST_DEVICE, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        if (pwrite(fd, &usec, sizeof(usec), 0) != (ssize_t) sizeof(usec))
                return -EIO;
        return 0;
}

/* Makes proc/PID/fd/FD a link to target. */
static int fd_link(int root_fd, unsigned pid, unsigned fd, const char *target) {
        char path[64];

        snprintf(path, sizeof(path), "proc/%u/fd/%u", pid, fd);
        if (symlinkat(target, root_fd, path) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

int faketree_latency_hold(int root_fd, unsigned pid, const char *comm) {
        char path[64];
        int r;

        snprintf(path, sizeof(path), "proc/%u/fd/.keep", pid);
        r = faketree_write(root_fd, path, "%s", "");
        if (r >= 0)
                r = -unlinkat(root_fd, path, 0);
        snprintf(path, sizeof(path), "proc/%u/comm", pid);
        if (r >= 0)
                r = faketree_write(root_fd, path, "%s\n", comm);
        if (r >= 0)
                r = fd_link(root_fd, pid, 0, "/dev/null");
        return r < 0 ? r : fd_link(root_fd, pid, 3, "/" LATENCY_REQUEST_DEVICE);
}

int faketree_latency_release(int root_fd, unsigned pid) {
        char path[32];

        snprintf(path, sizeof(path), "proc/%u", pid);
        return faketree_rm_rf(root_fd, path);
}
