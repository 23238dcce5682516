/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Start-up and other long stretches of work run before the event loop
 * handles signals (they are blocked in main() for its signalfd): these
 * look for a pending SIGTERM or SIGINT without consuming it. */

#include <stdbool.h>

/* Returns true if SIGTERM or SIGINT is pending for the process. */
bool exit_requested(void);
