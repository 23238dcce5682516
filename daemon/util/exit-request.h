/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Whether the daemon has been asked to exit while it cannot act on it yet.
 * main() blocks SIGTERM, SIGINT and SIGHUP and the event loop handles them
 * (manager.c), so until the loop runs an exit signal only waits, pending.
 * Work that runs before the loop (the start-up phases, the restore journal
 * replay) asks here between its steps and stops early.  Nothing is
 * consumed: the signal stays pending.  Cheap: one sigpending() call. */

#include <stdbool.h>

/* Returns SIGTERM or SIGINT if one is pending (SIGTERM first), else 0. */
int exit_request_signal(void);

/* Returns true if SIGTERM or SIGINT is pending. */
bool exit_requested(void);

/* exit_requested(), logging "Received SIGTERM during start-up, stopping."
 * when it is.  Returns true if start-up should stop. */
bool exit_requested_during_start(void);
