/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "fs-util.h"
#include "process-owner.h"
#include "sysfs-paths.h"

/* A status file is about 1.5 KiB. */
#define STATUS_MAX 16384

/* Reads the "Uid:" line of a status text: real, effective, saved.
 * Returns 0 or -EBADMSG. */
static int parse_uids(const char *status, uid_t ret[static 3]) {
        const char *line = strstr(status, "\nUid:");
        unsigned long long v[3];

        if (!line || sscanf(line + 5, " %llu %llu %llu", &v[0], &v[1], &v[2]) != 3)
                return -EBADMSG;
        for (unsigned i = 0; i < 3; i++)
                ret[i] = (uid_t) v[i];
        return 0;
}

bool process_pidfd_alive(int pidfd) {
        return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) >= 0 || errno == EPERM;
}

/* Returns 1, 0 or a negative errno. */
int process_owner_check(pid_t pid, uid_t uid, int *ret_pidfd) {
        _cleanup_free_ char *status = NULL;
        _cleanup_(fileio_closep) int pidfd = -1;
        char path[32];
        uid_t uids[3];
        int root = host_root_fd(), r;

        if (pid <= 0)
                return -ESRCH;
        if (root < 0)
                return root;
        pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (pidfd < 0)
                return errno == EINVAL ? -ESRCH : -errno;
        snprintf(path, sizeof(path), PROCFS_PID_FMT "/status", (int) pid);
        r = fileio_read_regular_at(root, path, STATUS_MAX, 0, &status, NULL);
        if (r == -ENOENT || !process_pidfd_alive(pidfd))
                return -ESRCH;
        if (r < 0)
                return r;
        r = parse_uids(status, uids);
        if (r < 0)
                return r;
        *ret_pidfd = TAKE_FD(pidfd);
        return uids[0] == uid && uids[1] == uid && uids[2] == uid;
}
