/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

#include "ctl-model.h"

/* Reads the Manager and every CPU over a window of usec (status
 * --interval): *ret is the last read with its CPUs' rates over the window
 * (ctl-window.h), ret->window_usec the window as measured.  Prints the
 * failure.  Returns 0 or a negative errno. */
int ctl_fetch_window(Ctl *c, uint64_t usec, CtlStatus *ret);
