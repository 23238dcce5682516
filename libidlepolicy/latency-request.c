/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirlist.h"
#include "fileio.h"
#include "latency-request.h"

/* The largest PID the kernel hands out (PID_MAX_LIMIT on 64-bit). */
#define PID_MAX (4u * 1024 * 1024)
/* The link text of a file descriptor of the device. */
#define DEVICE_LINK ("/" LATENCY_REQUEST_DEVICE)

int latency_request_read(int root_fd, int32_t *ret_usec) {
        _cleanup_(fileio_closep) int fd = -1;
        unsigned char buf[8];
        int32_t v;
        ssize_t n;

        fd = openat(root_fd, LATENCY_REQUEST_DEVICE, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        n = read(fd, buf, sizeof(buf));
        if (n < 0)
                return -errno;
        if (n != (ssize_t) sizeof(int32_t))
                return -EBADMSG;
        memcpy(&v, buf, sizeof(v));
        if (v < 0 || v > LATENCY_REQUEST_NONE)
                return -EBADMSG;
        *ret_usec = v;
        return 0;
}

bool latency_request_in_force(int32_t usec) {
        return usec >= 0 && usec < LATENCY_REQUEST_NONE;
}

void latency_holders_done(LatencyHolders *h) {
        free(h->holders);
        *h = LATENCY_HOLDERS_NULL;
}

static void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

/* Returns true if the fd link name in d points at the device. */
static bool fd_is_device(DIR *d, const char *name) {
        char target[sizeof(DEVICE_LINK) + 1];
        ssize_t n = readlinkat(dirfd(d), name, target, sizeof(target));

        return n == (ssize_t) strlen(DEVICE_LINK) && memcmp(target, DEVICE_LINK, (size_t) n) == 0;
}

/* Returns 1 if process pid has the device open, 0 if not (or it is gone),
 * or the errno of opening its fd directory (-EACCES, -EPERM, -ENOMEM). */
static int process_holds(int root_fd, unsigned pid) {
        _cleanup_(closedirp) DIR *d = NULL;
        char path[32];
        struct dirent *de;
        int fd;

        snprintf(path, sizeof(path), "proc/%u/fd", pid);
        fd = openat(root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT || errno == ESRCH || errno == ENOTDIR ? 0 : -errno;
        d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -errno;
        }
        while ((de = readdir(d)))
                if (de->d_name[0] != '.' && fd_is_device(d, de->d_name))
                        return 1;
        return 0;
}

/* Copies comm, every byte outside printable ASCII made '?'. */
static void comm_sanitize(const char *comm, char out[static LATENCY_COMM_MAX]) {
        size_t i;

        for (i = 0; i + 1 < LATENCY_COMM_MAX && comm[i]; i++)
                out[i] = comm[i] >= ' ' && comm[i] <= '~' ? comm[i] : '?';
        out[i] = '\0';
}

/* Appends pid with its comm ("?" when it cannot be read).  Returns 0 or -ENOMEM. */
static int holders_add(LatencyHolders *h, int root_fd, unsigned pid) {
        LatencyHolder *n = reallocarray(h->holders, h->n + 1, sizeof(LatencyHolder));
        char path[32], comm[64] = "?";

        if (!n)
                return -ENOMEM;
        h->holders = n;
        snprintf(path, sizeof(path), "proc/%u/comm", pid);
        if (fileio_read_string_at(root_fd, path, comm, sizeof(comm)) == -ENOMEM)
                return -ENOMEM;
        n[h->n].pid = pid;
        comm_sanitize(comm, n[h->n].comm);
        h->n++;
        return 0;
}

int latency_holders_scan(int root_fd, uint32_t skip_pid, LatencyHolders *ret) {
        _cleanup_(latency_holders_done) LatencyHolders h = LATENCY_HOLDERS_NULL;
        _cleanup_free_ unsigned *pids = NULL;
        size_t n_pids = 0;
        int r;

        r = dir_list_numeric_at(root_fd, "proc", PID_MAX, &pids, &n_pids);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n_pids; i++) {
                if (pids[i] == skip_pid || pids[i] == 0)
                        continue;
                r = process_holds(root_fd, pids[i]);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        h.hidden++;
                else if (r > 0 && holders_add(&h, root_fd, pids[i]) < 0)
                        return -ENOMEM;
        }
        *ret = h;
        h = LATENCY_HOLDERS_NULL;
        return 0;
}

bool latency_holders_equal(const LatencyHolders *a, const LatencyHolders *b) {
        if (a->n != b->n || a->hidden != b->hidden)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (a->holders[i].pid != b->holders[i].pid || strcmp(a->holders[i].comm, b->holders[i].comm) != 0)
                        return false;
        return true;
}
