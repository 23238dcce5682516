/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What exists instead, after the daemon refused a name: the states of the
 * CPU for an unknown state (with the likeliest one), the present CPUs for
 * an unknown one, the online CPUs for an offline one.  Pure: the caller
 * read s from the daemon. */

#include <stddef.h>

#include <systemd/sd-bus.h>

#include "ctl-error.h"
#include "ctl-model.h"

/* Writes the hint for error e of a call asked with ctx into buf, "" when
 * there is none to give.  Returns buf. */
char *ctl_hint_format(const sd_bus_error *e, const CtlErrorContext *ctx, const CtlStatus *s, char *buf, size_t size);
