/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <signal.h>

#include "exit-request.h"

bool exit_requested(void) {
        sigset_t pending;

        if (sigpending(&pending) < 0)
                return false;
        return sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1;
}
