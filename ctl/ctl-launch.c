/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "launch --profile NAME [--cpus LIST] -- COMMAND...": like
 * powerprofilesctl launch.  A hold on the profile, then COMMAND forked,
 * pinned by PID before it execs (it waits on a pipe until the pin is in
 * place), waited for; the pin ends with the command on its own, the hold
 * is released when we exit.  SIGTERM and SIGHUP are passed on to the
 * command, Ctrl-C reaches it from the terminal; we exit with its status. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl-format.h"
#include "ctl-pins.h"

/* The limits of the daemon's reason and application id, NUL included. */
#define TEXT_MAX 128

/* The child: waits for the go (one byte) from the parent, then execs
 * args with the signal mask it had.  Never returns. */
static void child_run(int go_fd, char **args, const sigset_t *old_mask) {
        char go;

        if (read(go_fd, &go, 1) != 1)
                _exit(127);             /* the parent could not pin us */
        close(go_fd);
        (void) sigprocmask(SIG_SETMASK, old_mask, NULL);
        execvp(args[0], args);
        fprintf(stderr, "idlepolicyctl: cannot run %s: %s\n", args[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
}

/* Waits for the child pid, passing on SIGTERM and SIGHUP (mask: those,
 * SIGINT and SIGCHLD, blocked).  Returns its exit status as a shell
 * reports it (128 + N when killed by signal N). */
static int child_wait(pid_t pid, const sigset_t *mask) {
        int status, sig;

        for (;;) {
                pid_t r = waitpid(pid, &status, WNOHANG);

                if (r == pid)
                        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                if (r < 0 && errno != EINTR)
                        return CTL_EXIT_FAILURE;
                sig = sigwaitinfo(mask, NULL);
                if (sig == SIGTERM || sig == SIGHUP)
                        (void) kill(pid, sig);
        }
}

/* The default reason: the command line; the default application id: the
 * command's name. */
static void default_texts(char **args, char reason[static TEXT_MAX], char app_id[static TEXT_MAX]) {
        char line[TEXT_MAX] = "launch";
        size_t len = strlen(line);
        char name[TEXT_MAX];

        for (char **a = args; *a && len < sizeof(line) - 1; a++)
                len += (size_t) snprintf(line + len, sizeof(line) - len, " %s", *a);
        ctl_text_sanitize(line, reason, TEXT_MAX);
        snprintf(name, sizeof(name), "%s", args[0]);
        ctl_text_sanitize(basename(name), app_id, TEXT_MAX);
}

/* Forks the command, pins it, lets it run and waits.  Returns its exit
 * status, or CTL_EXIT_FAILURE when it could not be started and pinned. */
static int run_pinned(Ctl *c, char **args, const char *reason, const sigset_t *mask, const sigset_t *old_mask) {
        _cleanup_free_ char *path = NULL;
        char target[32];
        int go[2], r;
        pid_t pid;

        if (pipe2(go, O_CLOEXEC) < 0) {
                fprintf(stderr, "idlepolicyctl: cannot create a pipe: %s\n", strerror(errno));
                return CTL_EXIT_FAILURE;
        }
        pid = fork();
        if (pid < 0) {
                fprintf(stderr, "idlepolicyctl: cannot fork: %s\n", strerror(errno));
                close(go[0]);
                close(go[1]);
                return CTL_EXIT_FAILURE;
        }
        if (pid == 0) {
                close(go[1]);
                child_run(go[0], args, old_mask);
        }
        close(go[0]);
        snprintf(target, sizeof(target), "pid:%d", (int) pid);
        r = ctl_pin_take(c, target, reason, &path);
        if (r >= 0 && write(go[1], "x", 1) != 1)
                r = -errno;
        close(go[1]);                   /* without the go the child exits 127 */
        if (r < 0) {
                (void) child_wait(pid, mask);
                return CTL_EXIT_FAILURE;
        }
        return child_wait(pid, mask);
}

int ctl_cmd_launch(Ctl *c, char **args) {
        char reason[TEXT_MAX], app_id[TEXT_MAX];
        sigset_t mask, old_mask;
        uint32_t cookie;
        int status;

        if (!c->profile)
                return ctl_usage_error("'launch' needs --profile NAME");
        default_texts(args, reason, app_id);
        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGHUP);
        sigaddset(&mask, SIGCHLD);
        (void) sigprocmask(SIG_BLOCK, &mask, &old_mask);
        if (ctl_hold_take(c, c->profile, c->reason ? c->reason : reason, c->app_id ? c->app_id : app_id, &cookie) < 0)
                return CTL_EXIT_FAILURE;
        status = run_pinned(c, args, c->reason ? c->reason : reason, &mask, &old_mask);
        (void) ctl_hold_release(c, cookie);
        return status;
}
