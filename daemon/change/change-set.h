/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The way in (change.h): the knobs one owner changes together.
 *
 *   ChangeSet s;
 *   change_set_init(&s, layer, CHANGE_OWNER(PLAN));
 *   change_set_add(&s, key, value, &e);    each knob read, checked, owner rules
 *   change_set_apply(&s, &e);              journal, write, roll back on failure
 *   change_set_done(&s);
 *
 * The contract of change_set_apply(): on any failure nothing has changed
 * (the knobs it wrote are put back, newest first, their originals and
 * owners as before), and on success every knob written is its owner's. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "change.h"

typedef enum ChangeSetState {
        CHANGE_SET_OPEN,              /* taking knobs */
        CHANGE_SET_APPLIED,
        CHANGE_SET_FAILED,            /* apply failed: nothing changed */
} ChangeSetState;

/* One knob of a set. */
typedef struct ChangeWrite {
        KnobAddr addr;
        char *key;
        char *old;                    /* what it held when added */
        char *new;
        bool noop;                    /* already as asked: addressed, not written */
        bool recorded;                /* its original journaled by this set */
        bool written;
        bool gone;                    /* its knob went away before the write (gone_ok) */
        ChangeOwner prev;             /* its owner before the set (NONE: nobody's) */
        ChangeOwner prev_lender;
        char *prev_lent;
        uint64_t prev_tag;
        uint64_t tag;                 /* the set's tag when it was added */
} ChangeWrite;

typedef struct ChangeSet {
        ChangeLayer *layer;
        ChangeOwner owner;
        uint64_t tag;                 /* given to the knobs added from now on (a set may change
                                       * the knobs of several processes, each its tag) */
        bool gone_ok;                 /* a knob gone by its write (-ENOENT) is skipped, not a
                                       * failure (a pinned process's thread that exits) */
        ChangeSetState state;
        int write_error;              /* after a failed apply: the write's errno (-EINVAL: refused) */
        ChangeWrite *writes;
        size_t n, allocated;
        size_t n_writes;              /* writes that are not noop */
} ChangeSet;

void change_set_init(ChangeSet *s, ChangeLayer *l, ChangeOwner owner);

/* Frees what s holds.  The set must not be open with writes to apply. */
void change_set_done(ChangeSet *s);

/* Adds key set to value: the knob is read now.  Returns 0, -EINVAL (not a
 * knob of the layer's types, a value it cannot hold), -EBUSY (another owner
 * holds it and the set's owner may not take it: change_owner_take()), the
 * read's error (-ENOENT: the knob is not there, -ENOTCONN: not now), or
 * -ENOMEM; e set. */
int change_set_add(ChangeSet *s, const char *key, const char *value, ErrorInfo *e);

/* Journals the originals of the knobs that differ (one write, one fsync),
 * then writes them in the order added; on a failure puts back what it
 * wrote, newest first, and drops what it journaled.  Every knob written
 * becomes the owner's (borrowed for CHANGE_TAKE_BORROW); a claiming owner
 * (change_owner_claims()) also claims the knobs it found as asked; a knob
 * that now holds its original is forgotten (a claim stays).  Returns the
 * number written, or -EIO / -ENOMEM with e set (nothing changed). */
int change_set_apply(ChangeSet *s, ErrorInfo *e);

/* The write of key in s, or NULL. */
const ChangeWrite *change_set_find(const ChangeSet *s, const char *key);
