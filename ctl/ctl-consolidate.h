/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The consolidation's lines in "status" and "consolidate" (ctl-consolidate.c). */

#include "ctl-model.h"

/* Prints the level, set, measurements, reason, background and IRQs;
 * nothing when the daemon does not have the property. */
void ctl_consolidation_print(const CtlConsolidation *c);
