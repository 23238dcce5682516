/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Real child processes for the tests of workload knobs and pins.  Fork
 * them before opening a journal: a child would hold its lock. */

#include <check.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* A child that sleeps until killed.  Returns its pid. */
static inline pid_t child_sleeper(void) {
        pid_t pid = fork();

        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                for (;;)
                        pause();
        }
        return pid;
}

/* Kills and reaps pid. */
static inline void child_reap(pid_t pid) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
}
