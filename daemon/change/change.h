/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The change layer: the one way in and the one way back for every knob the
 * daemon writes.
 *
 *   in    a ChangeSet (change-set.h) of one owner (change-owner.h): each
 *         knob read, the originals of those that differ made durable in
 *         the restore journal (restore-journal.h; the first original wins),
 *         then written, and on a failure the set rolled back as a whole;
 *   back  change_restore(owner): that owner's knobs put back, newest
 *         first, every other owner's left alone; change_restore_all() at a
 *         clean exit and Restore(); change_layer_replay() at a start that
 *         finds a journal (everything in it, whoever changed it).
 *
 * What a knob is, how it is read and written and what a restore does when
 * it is missing, is its type's (knob-type.h): the layer knows no kind.
 * Each changed knob has one owner, kept in memory; a knob an owner only
 * claims (the administrator's settings that changed nothing) is known
 * without a journal line.  A knob back at its original is forgotten (a
 * claim stays).
 *
 * Restores follow the types: a state knob of an offline CPU is skipped
 * (the kernel recreates it with its default), one whose directory is
 * missing while its CPU is online is waited for (up to 2 s, blocking: a
 * governor switch recreates the directories), a wteo tolerance and a unit
 * knob that cannot be reached now are kept for a later restore, a knob gone
 * for good is forgotten. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "change-owner.h"
#include "errinfo.h"
#include "knob-type.h"
#include "restore-journal.h"

typedef struct ChangeLayer ChangeLayer;

/* One knob the layer knows. */
typedef struct ChangeEntry {
        char *key;
        char *original;               /* its original, journaled; NULL: claimed only */
        ChangeOwner owner;
        ChangeOwner lender;           /* who gets it back when the borrower (owner) is done; NONE */
        char *lent;                   /* the value it held when lent (the lender's), or NULL */
        uint64_t tag;                 /* the owner's: a pin's process, consolidation's IRQs */
        bool vanished;                /* a restore's own: missing at its last try */
} ChangeEntry;

/* What the layer tells its user. */
typedef struct ChangeLayerEvents {
        /* A knob of a counted type (the idle knobs) was written, by a set
         * or a restore (the sampler reads its CPU again). */
        void (*written)(const KnobAddr *a, const char *value, void *userdata);
        void *userdata;
} ChangeLayerEvents;

/* A layer for the knobs of types (NULL-terminated; knob_types_default for
 * the daemon) living in env (borrowed, set up before; its bus may be set
 * later with change_layer_set_bus()).  Returns 0 or -ENOMEM. */
int change_layer_new(const KnobType *const *types, KnobEnv *env, const ChangeLayerEvents *events,
                     ChangeLayer **ret);

/* Frees l (NULL allowed) without touching a knob or the file: what was
 * changed stays in the journal for the next start.  Returns NULL. */
ChangeLayer *change_layer_free(ChangeLayer *l);
void change_layer_freep(ChangeLayer **l);

/* Takes the restore journal in runtime_dir (see restore_journal_open()).
 * Returns 0, -EBUSY or another negative errno (logged). */
int change_layer_open_journal(ChangeLayer *l, const char *runtime_dir, const char *root);

/* Puts back every knob a previous run left in the journal (at most
 * RESTORE_JOURNAL_MAX_ENTRIES; corrupt lines logged by number and reason);
 * a knob whose idle state directory is still missing after the wait is gone
 * for good here and forgotten; those kept for later (a unit without a bus,
 * a tolerance while wteo does not govern) stay, owned by
 * CHANGE_OWNER_LEFTOVER.  Returns the number of knobs found (0: none),
 * -EXDEV if the journal was written for another root (left alone), -EINTR
 * if SIGTERM or SIGINT arrived meanwhile (what was not put back stays in
 * the file, none in memory), or another negative errno.  Restore failures
 * are logged and keep their entries. */
int change_layer_replay(ChangeLayer *l);

/* Sets the system bus unit knobs go through (NULL: none now). */
void change_layer_set_bus(ChangeLayer *l, sd_bus *bus);

/* The environment the knobs live in. */
const KnobEnv *change_layer_env(const ChangeLayer *l);
const KnobType *const *change_layer_types(const ChangeLayer *l);

/* Puts back owner's knobs, newest first: its own to their originals, those
 * it borrowed to the value they held when lent, handed back to their
 * lenders.  A knob owner lent to a borrower stays with the borrower, who
 * puts it back to its original in the end (owner's value no longer
 * matters).  Returns the number put back, or -EIO with e naming the knobs
 * that failed (they stay, still owner's). */
int change_restore(ChangeLayer *l, ChangeOwner owner, ErrorInfo *e);

/* The same for owner's knobs of one tag. */
int change_restore_tag(ChangeLayer *l, ChangeOwner owner, uint64_t tag, ErrorInfo *e);

/* Puts back every knob and drops every claim.  Returns the number put
 * back, or -EIO with e set. */
int change_restore_all(ChangeLayer *l, ErrorInfo *e);

/* The same for every owner but those of kind except. */
int change_restore_except(ChangeLayer *l, ChangeOwnerKind except, ErrorInfo *e);

/* A borrower is done (it put back what it changed, as a set): its knobs go
 * back to their lenders; those it journaled itself and could not put back
 * become leftovers (put back at the next restore). */
void change_give_back(ChangeLayer *l, ChangeOwner borrower);

/* Forgets key without putting it back (someone else owns it now). */
void change_forget(ChangeLayer *l, const char *key);

/* Forgets owner's knobs of tag without putting them back (what they
 * belonged to is gone: a pin's process exited). */
void change_forget_tag(ChangeLayer *l, ChangeOwner owner, uint64_t tag);

/* The entry of key, or NULL. */
const ChangeEntry *change_find(const ChangeLayer *l, const char *key);

/* The owner of key (CHANGE_OWNER_NONE: nobody's). */
ChangeOwner change_owner_of(const ChangeLayer *l, const char *key);

/* Whether key is owner's. */
bool change_owned_by(const ChangeLayer *l, const char *key, ChangeOwner owner);

/* The original of key, or NULL (not changed). */
const char *change_original(const ChangeLayer *l, const char *key);

/* The entries owned by owners of kind (every pin for CHANGE_OWNER_PIN). */
size_t change_count_kind(const ChangeLayer *l, ChangeOwnerKind kind);

/* The knobs changed (those with an original), oldest first: calls fn for
 * each. */
void change_foreach_changed(const ChangeLayer *l, void (*fn)(const ChangeEntry *e, void *userdata), void *userdata);

/* The number of knobs changed. */
size_t change_n_changed(const ChangeLayer *l);

/* Successful writes of the counted types (idlepolicy_knob_writes_total). */
uint64_t change_knob_writes(const ChangeLayer *l);

/* Makes the forgets since the last fsync durable (once a tick). */
void change_layer_sync(ChangeLayer *l);

/* The journal's file, for messages; NULL before change_layer_open_journal(). */
const char *change_layer_journal_path(const ChangeLayer *l);

/* Bytes written to the journal since the start. */
unsigned long long change_layer_journal_bytes(const ChangeLayer *l);
