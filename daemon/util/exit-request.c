/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <signal.h>
#include <string.h>

#include "exit-request.h"
#include "log.h"

int exit_request_signal(void) {
        sigset_t pending;

        if (sigpending(&pending) < 0)
                return 0;
        if (sigismember(&pending, SIGTERM) == 1)
                return SIGTERM;
        if (sigismember(&pending, SIGINT) == 1)
                return SIGINT;
        return 0;
}

bool exit_requested(void) {
        return exit_request_signal() != 0;
}

bool exit_requested_during_start(void) {
        int sig = exit_request_signal();

        if (sig == 0)
                return false;
        log_info("Received SIG%s during start-up, stopping.", sigabbrev_np(sig) ?: "?");
        return true;
}
