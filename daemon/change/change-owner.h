/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Who changed a knob (change.h): each changed knob has exactly one owner,
 * the one whose restore puts it back.  Owners live in memory only: a start
 * after a crash puts back everything the journal lists, whoever changed it. */

#include <stdbool.h>
#include <stdint.h>

typedef enum ChangeOwnerKind {
        CHANGE_OWNER_NONE,
        CHANGE_OWNER_LEFTOVER,        /* nobody's in this run: left by a run that did not exit
                                       * cleanly, or by a borrower that could not put it back;
                                       * anyone's to take, put back at the next restore */
        CHANGE_OWNER_PLAN,            /* the policy's plan in force (enforce mode) */
        CHANGE_OWNER_COMPANION,       /* the wteo parameters and tolerances the plan pushes */
        CHANGE_OWNER_MANUAL,          /* the administrator: SetGovernor, SetStateDisabled, ... */
        CHANGE_OWNER_CALIBRATION,     /* a running calibration (borrows, gives back) */
        CHANGE_OWNER_CONSOLIDATION,   /* the background's cpusets, level 2's interrupts */
        CHANGE_OWNER_PIN,             /* pin number id */
        _CHANGE_OWNER_KIND_MAX,
} ChangeOwnerKind;

typedef struct ChangeOwner {
        ChangeOwnerKind kind;
        uint32_t id;                  /* CHANGE_OWNER_PIN only */
} ChangeOwner;

#define CHANGE_OWNER(k) ((ChangeOwner) { .kind = CHANGE_OWNER_##k })
#define CHANGE_OWNER_PIN_ID(n) ((ChangeOwner) { .kind = CHANGE_OWNER_PIN, .id = (n) })
#define CHANGE_OWNER_TEXT_MAX 24

/* Whether a and b are the same owner. */
bool change_owner_equal(ChangeOwner a, ChangeOwner b);

/* Whether o is a valid owner (not NONE). */
bool change_owner_valid(ChangeOwner o);

/* "plan", "manual", "pin 3", ... into buf.  Returns buf. */
const char *change_owner_to_string(ChangeOwner o, char buf[static CHANGE_OWNER_TEXT_MAX]);

/* How taker may change a knob that holder owns. */
typedef enum ChangeTake {
        CHANGE_TAKE_REFUSED,          /* not at all: the key is holder's */
        CHANGE_TAKE_OVER,             /* it becomes taker's (the administrator over the plan,
                                       * a pin over consolidation, anyone over a previous run) */
        CHANGE_TAKE_BORROW,           /* taker's until taker gives it back (a calibration) */
} ChangeTake;

/* The rule between two owners (the same owner: CHANGE_TAKE_OVER). */
ChangeTake change_owner_take(ChangeOwner taker, ChangeOwner holder);

/* Whether o keeps a knob it addressed without changing it (the
 * administrator's: the plan leaves such a knob alone until Restore()). */
bool change_owner_claims(ChangeOwner o);
