/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The policy's state in the manager (manager-policy.c): the profiles and
 * the one in force, the mode, what persists, the policy step and its
 * input, the enforcer of its plan and companion mode. */

#include <stdbool.h>

#include "companion.h"
#include "config.h"
#include "persist.h"
#include "plan-enforce.h"
#include "policy-input.h"
#include "policy-step.h"
#include "profile.h"

typedef struct DaemonPolicy {
        char *profile_dir, *profile_override_dir;
        ProfileSet *profiles;         /* the last good set */
        char active_profile[PROFILE_NAME_MAX];
        DaemonMode mode;
        int mode_override;            /* --mode, or -1 */
        char *state_dir;
        bool state_dir_override;
        Persist persist;              /* state.json, calibration.json, pins.json live there */
        PolicyStep *loop;             /* the policy step's state across ticks */
        PolicyInputBuffer input;      /* the step's per-CPU input, reused */
        PlanEnforcer enforcer;
        Companion companion;          /* companion mode: wteo governs (companion.h) */
} DaemonPolicy;
