/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pod sandbox's process for the k8s tests' local image: sleeps until
 * SIGINT or SIGTERM, reaps children (it is PID 1 of the pod's PID
 * namespace when there is one).  Built static (tests/k8s/k8stest.py). */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_exit_signal(int sig) {
        _exit(0);
}

static void on_child(int sig) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
                ;
}

int main(void) {
        signal(SIGINT, on_exit_signal);
        signal(SIGTERM, on_exit_signal);
        signal(SIGCHLD, on_child);
        for (;;)
                pause();
}
