/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A device interrupt's affinity as a knob (consolidation's level 2):
 *
 *   irq:N    ROOT/proc/irq/N/smp_affinity_list, under the root the daemon
 *            runs on (a test tree holds its own proc/irq)
 *
 * The value is a CPU list.  The kernel may still refuse a write: -EIO for
 * a per-CPU or managed interrupt, -EINVAL for a set it cannot route to. */

#include <stddef.h>

#include "knob-type.h"

#define KNOB_IRQ_PREFIX "irq:"
/* The largest IRQ number taken (the kernel's NR_IRQS is far below). */
#define KNOB_IRQ_MAX 1000000u

extern const KnobType knob_type_irq;

/* Formats the key of irq's affinity into buf.  Returns buf. */
char *knob_irq_key(unsigned irq, char *buf, size_t size);

/* The interrupts under env's root (the numeric entries of proc/irq),
 * sorted, in a malloc'ed *ret (dir_list_numeric_at()).  Returns 0, -ENOENT
 * without proc/irq, or another negative errno. */
int knob_irq_list(const KnobEnv *env, unsigned **ret, size_t *ret_n);
