/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Exec rules (exe:PATH, comm:NAME) through the proc connector
 * (pins-rules.c). */

#include "pins.h"

/* Starts following rule pin: the connector opened if it is not yet, /proc
 * scanned for the processes that match now.  Returns 0, or -EOPNOTSUPP
 * with e set when there is no proc connector. */
int pins_rules_start(Pins *p, Pin *pin, ErrorInfo *e);

/* Closes the connector when no rule is left. */
void pins_rules_stop_unused(Pins *p);

/* Closes the connector and drops the queued events. */
void pins_rules_done(Pins *p);

/* Matches every process in /proc against the rules and drops the pids
 * that are gone.  Returns 0 or a negative errno. */
int pins_rules_rescan(Pins *p);
