/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Companion mode: the cpuidle governor in force is wteo (kernel/README.md),
 * whoever selected it (the profile's "auto" does when the kernel offers
 * it).  The daemon then leaves the choice per idle entry to the governor:
 * plan-enforce.c writes no stateN/disable bit for cap or floor (the plan is
 * still computed and shown; a bit the daemon set before is put back) and
 * pushes the profiles' "wteo" objects instead:
 *   sys/module/wteo/parameters/{learn_shift,age_shift,explore_shift}
 *                                  from the machine's profile
 *   cpuN/wteo/tolerance            from the profile in force on CPU N
 *                                  (a pin gives its CPUs their own)
 * journaled and put back like every knob (journal.h says what happens to a
 * tolerance whose file is gone).  The resume latency and the halt-poll
 * window are enforced as outside companion mode.
 *
 * This file reads what the kernel shows per CPU: every tick the tolerance
 * in force (the enforcer and the metrics need it), and the matrix when a
 * client asks for it (parsed strictly; a bad one is ignored with a named
 * reason, logged once per reason). */

#include <stdbool.h>
#include <stdint.h>

#include "cpuidle.h"
#include "sampling.h"
#include "wteo-sysfs.h"

typedef struct CompanionCpu {
        bool has_tolerance;           /* cpuN/wteo/tolerance read at the last tick */
        uint32_t tolerance;
        char matrix_error[sizeof(((ErrorInfo *) NULL)->message)];   /* why the matrix was ignored at the last
                                                                     * companion_matrix(), "" if not */
} CompanionCpu;

typedef struct Companion {
        bool active;                  /* the governor in force is wteo */
        CompanionCpu *cpus;           /* n_cpus slots (the topology's) */
        unsigned n_cpus;
} Companion;

/* Returns true if s says wteo is the governor in force. */
bool companion_governs(const CpuidleSystem *s);

/* Reads every online CPU's wteo tolerance when s says wteo governs (forgets
 * them otherwise).  Returns 1 if active changed, 0 if not, or -ENOMEM. */
int companion_read(Companion *c, int root_fd, const CpuidleSystem *s, const Sampling *smp);

/* Reads CPU cpu's matrix into *ret while wteo governs and the CPU is
 * online (its state count from smp), keeping in the CPU's matrix_error why
 * a bad one is ignored.  Returns 0, -ENOENT (not in companion mode, the CPU
 * offline, no file), or the read's error (-EBADMSG, -EFBIG, ...). */
int companion_matrix(Companion *c, int root_fd, const Sampling *smp, unsigned cpu, WteoMatrix *ret);

/* CPU cpu's slot, or NULL (beyond the topology, or nothing read). */
const CompanionCpu *companion_cpu(const Companion *c, unsigned cpu);

/* Frees what c holds; c can be used again. */
void companion_done(Companion *c);
