/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What SetProfile(name) would do, computed without doing it
 * (PreviewProfile): a copy of the policy loop is planned again with name
 * as the machine's profile (CPUs under a pin or a hold keep theirs), from
 * what each CPU learned and its last tick, and enforce mode's knob writes
 * for that plan are listed with the values the knobs hold now.  Nothing
 * is written and the daemon's own plan does not move. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errinfo.h"
#include "knob-idle.h"
#include "manager.h"
#include "profile.h"

typedef struct PreviewCpu {
        uint32_t cpu;
        char profile[PROFILE_NAME_MAX];   /* in force there after the switch */
        uint32_t cap, floor;
        const char *cap_reason, *floor_reason;
        bool polls_only;                  /* policy_cpu_polls_only() */
        double burn;                      /* policy_poll_burn(): CPUs polling may take, 0..1 */
        char reason[256];
} PreviewCpu;

typedef struct PreviewKnob {
        char path[KNOB_PATH_MAX];         /* relative to the root */
        char now[KNOB_VALUE_MAX];         /* what it holds ("" unreadable) */
        char then[KNOB_VALUE_MAX];        /* what enforce mode would write */
} PreviewKnob;

typedef struct ProfilePreview {
        PreviewCpu *cpus;                 /* the online CPUs with a plan, by index */
        size_t n_cpus;
        PreviewKnob *knobs;
        size_t n_knobs;
        char governor[32];                /* the governor the plan wants, "" = no opinion */
        const char *poll_mode;            /* KVM: "none" or "window"; "" elsewhere */
        uint64_t poll_window_ns;
        unsigned consolidation;           /* the level after the switch: the profile's */
} ProfilePreview;

#define PROFILE_PREVIEW_NULL ((ProfilePreview) {})

void profile_preview_done(ProfilePreview *p);

/* Fills *ret with what switching to profile name would do.  Returns 0,
 * -ENOPKG (no such profile) or -EBUSY (no plan yet, none since the last
 * calibration, or a calibration holds the knobs) with e set, or -ENOMEM. */
int profile_preview(Manager *m, const char *name, ProfilePreview *ret, ErrorInfo *e);
