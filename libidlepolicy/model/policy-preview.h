/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a plan in force costs when it polls: whether a CPU polls only, and
 * the CPU time its polling may take.  What a profile switch would do is
 * shown with these (PreviewProfile, idlepolicyctl profile NAME --dry-run). */

#include <stdbool.h>

#include "policy-step.h"

/* Whether any CPU of l has a plan in force to preview from (active and
 * settled): none before the first tick that learned a CPU. */
bool policy_step_has_plan(const PolicyStep *l);

/* Whether c's plan in force polls only: its cap is a polling state (every
 * idle period spins until the wakeup, whatever its length). */
bool policy_cpu_polls_only(const PolicyCpu *c);

/* The CPU time polling may take on c under its plan in force and the
 * machine's halt-poll decision in sys, in CPUs (0..1), from c's last tick:
 * polling only, all its idle time (1 - util; a whole CPU when util is
 * unknown); with a halt-poll window, at most the window before each
 * wakeup, within its idle time; otherwise 0.  -1 when c has no plan. */
double policy_poll_burn(const PolicyCpu *c, const PolicySystem *sys);
