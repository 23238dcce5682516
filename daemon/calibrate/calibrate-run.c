/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One run of the measuring helper, without blocking the event loop: spawned
 * with posix_spawn, its exit watched through a pidfd (no SIGCHLD handling
 * needed), its stdout collected from a non-blocking pipe, killed with its
 * process group when it outlives the timeout. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calibrate-internal.h"
#include "fileio.h"
#include "log.h"
#include "macro.h"

#define OUTPUT_MAX (1024u * 1024u)

extern char **environ;

struct HelperRun {
        pid_t pid;
        int pidfd;
        int out_fd;
        sd_event_source *exit_source, *out_source, *timer_source;
        char *output;
        size_t size, allocated;
        bool overflow, timed_out, reaped;
        HelperDone done;
        void *userdata;
};

HelperRun *helper_run_free(HelperRun *h) {
        if (!h)
                return NULL;
        if (!h->reaped && h->pidfd >= 0) {
                siginfo_t si;

                (void) kill(-h->pid, SIGKILL);
                (void) pidfd_send_signal(h->pidfd, SIGKILL, NULL, 0);
                while (waitid((idtype_t) P_PIDFD, (id_t) h->pidfd, &si, WEXITED) < 0 && errno == EINTR)
                        ;
                log_debug("Killed the calibration helper (PID %d).", (int) h->pid);
        }
        sd_event_source_disable_unref(h->exit_source);
        sd_event_source_disable_unref(h->out_source);
        sd_event_source_disable_unref(h->timer_source);
        fileio_closep(&h->pidfd);
        fileio_closep(&h->out_fd);
        free(h->output);
        free(h);
        return NULL;
}

/* Reads what the pipe holds now.  Returns 1 at EOF, 0 when it would block,
 * or a negative errno. */
static int read_output(HelperRun *h) {
        for (;;) {
                char buf[4096];
                ssize_t n = read(h->out_fd, buf, sizeof(buf));

                if (n < 0)
                        return errno == EAGAIN ? 0 : errno == EINTR ? 0 : -errno;
                if (n == 0)
                        return 1;
                if (h->size + (size_t) n >= OUTPUT_MAX) {
                        h->overflow = true;
                        continue;
                }
                if (h->size + (size_t) n + 1 > h->allocated) {
                        size_t a = (h->size + (size_t) n + 1) * 2;
                        char *p = realloc(h->output, a);
                        if (!p)
                                return -ENOMEM;
                        h->output = p;
                        h->allocated = a;
                }
                memcpy(h->output + h->size, buf, (size_t) n);
                h->size += (size_t) n;
                h->output[h->size] = '\0';
        }
}

static int on_output(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        HelperRun *h = userdata;
        int r = read_output(h);

        if (r < 0)
                log_warning_errno(r, "Failed to read the calibration helper's output: %m");
        if (r != 0)
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        HelperRun *h = userdata;

        log_warning("The calibration helper (PID %d) did not finish in time, killing it.", (int) h->pid);
        h->timed_out = true;
        if (kill(-h->pid, SIGKILL) < 0)
                (void) pidfd_send_signal(h->pidfd, SIGKILL, NULL, 0);
        return 0;
}

/* Returns the run's verdict from how the helper ended (logged). */
static int exit_verdict(const HelperRun *h, const siginfo_t *si) {
        if (h->timed_out)
                return -ETIME;
        if (si->si_code == CLD_EXITED && si->si_status == 0)
                return h->overflow ? log_error_errno(-EMSGSIZE, "The calibration helper wrote more than %u bytes.", OUTPUT_MAX) : 0;
        if (si->si_code == CLD_EXITED)
                return log_error_errno(-EIO, "The calibration helper failed with exit status %d.", si->si_status);
        return log_error_errno(-EIO, "The calibration helper was killed by signal %s.", strsignal(si->si_status));
}

static int on_helper_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        HelperRun *h = userdata;
        siginfo_t si = {};
        int r;

        if (waitid((idtype_t) P_PIDFD, (id_t) h->pidfd, &si, WEXITED | WNOHANG) < 0) {
                if (errno == EINTR)
                        return 0;
                r = log_error_errno(errno, "Failed to reap the calibration helper: %m");
                h->reaped = true;       /* nothing left to wait for */
        } else if (si.si_pid == 0)
                return 0;               /* not yet */
        else {
                h->reaped = true;
                r = exit_verdict(h, &si);
        }
        if (read_output(h) < 0 && r == 0)
                r = -EIO;
        (void) sd_event_source_set_enabled(h->exit_source, SD_EVENT_OFF);
        (void) sd_event_source_set_enabled(h->out_source, SD_EVENT_OFF);
        (void) sd_event_source_set_enabled(h->timer_source, SD_EVENT_OFF);
        h->done(r, h->output ? h->output : "", h->userdata);   /* may free h: nothing after this */
        return 0;
}

/* Spawns argv with stdout on out_fd.  Returns 0 or a negative errno. */
static int spawn(char *const argv[], int out_fd, pid_t *ret) {
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t attr;
        sigset_t none, all;
        int r;

        sigemptyset(&none);
        sigfillset(&all);
        if (posix_spawn_file_actions_init(&fa) != 0)
                return -ENOMEM;
        if (posix_spawnattr_init(&attr) != 0) {
                posix_spawn_file_actions_destroy(&fa);
                return -ENOMEM;
        }
        r = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        if (r == 0)
                r = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
        if (r == 0)
                r = posix_spawnattr_setsigmask(&attr, &none) ?: posix_spawnattr_setsigdefault(&attr, &all) ?:
                    posix_spawnattr_setpgroup(&attr, 0) ?:
                    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
        if (r == 0)
                r = posix_spawn(ret, argv[0], &fa, &attr, argv, environ);
        posix_spawnattr_destroy(&attr);
        posix_spawn_file_actions_destroy(&fa);
        return -r;
}

/* Spawns the helper and takes its pidfd.  Returns 0 or a negative errno. */
static int start_process(HelperRun *h, char *const argv[]) {
        int fds[2], r;

        if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
                return -errno;
        h->out_fd = fds[0];
        r = spawn(argv, fds[1], &h->pid);
        (void) close(fds[1]);
        if (r < 0)
                return r;
        h->pidfd = pidfd_open(h->pid, 0);
        if (h->pidfd < 0) {
                r = -errno;
                (void) kill(-h->pid, SIGKILL);
                (void) waitpid(h->pid, NULL, 0);
                h->reaped = true;
                return r;
        }
        return 0;
}

/* Returns 0 or a negative errno. */
int helper_run_start(sd_event *e, char *const argv[], uint64_t timeout_usec, HelperDone done, void *userdata,
                     HelperRun **ret) {
        HelperRun *h = calloc(1, sizeof(HelperRun));
        int r;

        if (!h)
                return -ENOMEM;
        *h = (HelperRun) { .pidfd = -1, .out_fd = -1, .done = done, .userdata = userdata };
        r = start_process(h, argv);
        if (r >= 0)
                r = sd_event_add_io(e, &h->exit_source, h->pidfd, EPOLLIN, on_helper_exit, h);
        if (r >= 0)
                r = sd_event_add_io(e, &h->out_source, h->out_fd, EPOLLIN, on_output, h);
        if (r >= 0)
                r = sd_event_add_time_relative(e, &h->timer_source, CLOCK_MONOTONIC, timeout_usec, 0, on_timeout, h);
        if (r < 0) {
                helper_run_free(h);
                return r;
        }
        log_debug("Started the calibration helper (PID %d): %s", (int) h->pid, argv[0]);
        *ret = h;
        return 0;
}
