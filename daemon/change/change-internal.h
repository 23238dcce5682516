/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What change.c (the entries and the journal), change-restore.c (the way
 * back) and change-set.c (the way in) share. */

#include <stdlib.h>

#include "change.h"

/* Frees p.  Returns NULL. */
static inline void *mfree(void *p) {
        free(p);
        return NULL;
}

struct ChangeLayer {
        const KnobType *const *types;
        KnobEnv *env;                 /* borrowed */
        ChangeLayerEvents events;
        RestoreJournal *journal;      /* NULL until change_layer_open_journal() */
        ChangeEntry *entries;         /* in journal order, oldest first; key NULL: dropped */
        size_t n_entries, n_allocated, n_dropped;
        size_t *index;                /* open addressing on the key: entry + 1, 0 = free */
        size_t index_mask;            /* slots - 1 (a power of two), 0 without an index */
        size_t n_kind[_CHANGE_OWNER_KIND_MAX];  /* live entries per owner kind */
        size_t n_changed;             /* live entries with an original */
        size_t live_bytes;            /* their records' bytes in the journal */
        char **forgets;               /* dropped since the last commit: "-KEY" lines to append */
        size_t n_forgets, n_forgets_allocated;
        bool forgets_sync;            /* one of them is of a knob that is not ephemeral */
        uint64_t knob_writes;
};

/* The live entry of key, or NULL.  O(1) on average. */
ChangeEntry *change_lookup(const ChangeLayer *l, const char *key);

/* Appends a live entry (original NULL: a claim).  Returns 0 or -ENOMEM
 * (nothing changed).  Pointers to entries are invalid after it. */
int change_entry_add(ChangeLayer *l, const char *key, const char *original, ChangeOwner owner, uint64_t tag);

/* Moves e to owner (the counters follow). */
void change_entry_set_owner(ChangeLayer *l, ChangeEntry *e, ChangeOwner owner);

/* Drops e; its record is forgotten in the journal at the next commit.
 * Returns 0 or -ENOMEM (e stays). */
int change_entry_drop(ChangeLayer *l, ChangeEntry *e);

/* Appends the forgets of the entries dropped since the last commit, and
 * compacts the entries (and the journal file) when enough were dropped.
 * Failures are logged: the knobs are back, only the file lags. */
void change_commit(ChangeLayer *l);

/* Frees every entry and pending forget (the file is left alone). */
void change_entries_reset(ChangeLayer *l);

/* Whether key's journal lines need an fsync: knob_type_synced() of the
 * type that takes it (a key no type takes is synced). */
bool change_key_synced(const ChangeLayer *l, const char *key);

/* Drops the pending forgets without writing them. */
void change_forgets_discard(ChangeLayer *l);

/* Rewrites the journal with the live records (or deletes it when there is
 * none).  Returns 0 or a negative errno (logged). */
int change_journal_rewrite(ChangeLayer *l);

/* Writes value to the knob a through its type, counting it.  Returns what
 * the type's write returns. */
int change_knob_write(ChangeLayer *l, const KnobAddr *a, const char *value);

/* Checks the layer's invariants (debug builds): the index finds every live
 * entry, the counters match the entries. */
void change_layer_assert(const ChangeLayer *l);
