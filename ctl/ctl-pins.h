/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Taking and giving back pins and holds, shared by pin, hold and launch.
 * Each prints its failure and returns 0 or a negative errno. */

#include <stdint.h>

#include "ctl.h"

/* Pins target to c->cpus ("" without) with c->profile and reason (NULL or
 * "": none); the pin's object path in *ret_path (malloc'ed). */
int ctl_pin_take(Ctl *c, const char *target, const char *reason, char **ret_path);

/* Holds profile on c->cpus (all without) with reason and app_id (NULL:
 * ""); the cookie in *ret_cookie. */
int ctl_hold_take(Ctl *c, const char *profile, const char *reason, const char *app_id, uint32_t *ret_cookie);

/* Releases the hold cookie. */
int ctl_hold_release(Ctl *c, uint32_t cookie);
