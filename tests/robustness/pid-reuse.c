/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pid-reuse: a parent of sleeping processes that can hand a dying
 * process's PID to a new, unrelated process at once (clone3() with
 * set_tid, Linux 5.5, CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE): how the
 * robustness suite races a pin against the reuse of its PID.
 *
 * Commands on stdin, one answer line each on stdout:
 *   spawn        a new sleeping child          -> "PID"
 *   reuse PID    SIGKILL PID, reap it, and a new sleeping child with the
 *                same PID                      -> "PID", or "error ERRNO"
 *   kill PID     SIGKILL and reap              -> "ok"
 * EOF kills every child.  Exits 77 (skip) when set_tid is not allowed. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* struct clone_args of <linux/sched.h> up to set_tid_size (CLONE_ARGS_SIZE_VER1). */
struct clone_args_v1 {
        uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size;
};

#define MAX_CHILDREN 4096
static pid_t children[MAX_CHILDREN];
static unsigned n_children;

static void child_sleep(void) {
        for (;;)
                pause();
}

/* A sleeping child with PID want (0: any).  Returns its PID or -errno. */
static pid_t spawn(pid_t want) {
        pid_t tid[1] = { want };
        struct clone_args_v1 a = { .exit_signal = SIGCHLD };
        long r;

        if (n_children >= MAX_CHILDREN)
                return -ENOSPC;
        if (want > 0) {
                a.set_tid = (uint64_t) (uintptr_t) tid;
                a.set_tid_size = 1;
        }
        r = syscall(SYS_clone3, &a, sizeof(a));
        if (r < 0)
                return -errno;
        if (r == 0)
                child_sleep();
        children[n_children++] = (pid_t) r;
        return (pid_t) r;
}

static void reap(pid_t pid) {
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
        for (unsigned i = 0; i < n_children; i++)
                if (children[i] == pid) {
                        children[i] = children[--n_children];
                        break;
                }
}

int main(void) {
        char line[128];
        pid_t probe;

        setvbuf(stdout, NULL, _IOLBF, 0);
        /* set_tid allowed here?  A child with the PID a reaped one had. */
        probe = spawn(0);
        if (probe > 0) {
                reap(probe);
                probe = spawn(probe);
        }
        if (probe < 0) {
                fprintf(stderr, "pid-reuse: clone3 with set_tid: %s\n", strerror((int) -probe));
                return 77;
        }
        reap(probe);
        printf("ready\n");
        while (fgets(line, sizeof(line), stdin)) {
                long pid = 0;

                if (strncmp(line, "spawn", 5) == 0) {
                        pid_t p = spawn(0);
                        printf(p > 0 ? "%d\n" : "error %d\n", p > 0 ? (int) p : (int) -p);
                } else if (sscanf(line, "reuse %ld", &pid) == 1) {
                        pid_t p;

                        reap((pid_t) pid);
                        p = spawn((pid_t) pid);
                        printf(p > 0 ? "%d\n" : "error %d\n", p > 0 ? (int) p : (int) -p);
                } else if (sscanf(line, "kill %ld", &pid) == 1) {
                        reap((pid_t) pid);
                        printf("ok\n");
                } else
                        printf("error %d\n", EINVAL);
        }
        while (n_children > 0)
                reap(children[0]);
        return 0;
}
