/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The change layer's entries: who owns which knob, its original, and the
 * restore journal they are kept in. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "change-internal.h"
#include "cleanup.h"
#include "log.h"
#include "macro.h"

int change_layer_new(const KnobType *const *types, KnobEnv *env, const ChangeLayerEvents *events,
                     ChangeLayer **ret) {
        ChangeLayer *l = calloc(1, sizeof(ChangeLayer));

        if (!l)
                return -ENOMEM;
        l->types = types;
        l->env = env;
        if (events)
                l->events = *events;
        *ret = l;
        return 0;
}

void change_entries_reset(ChangeLayer *l) {
        for (size_t i = 0; i < l->n_entries; i++) {
                free(l->entries[i].key);
                free(l->entries[i].original);
                free(l->entries[i].lent);
        }
        for (size_t i = 0; i < l->n_forgets; i++)
                free(l->forgets[i]);
        free(l->forgets);
        free(l->entries);
        free(l->index);
        l->forgets = NULL;
        l->entries = NULL;
        l->index = NULL;
        l->n_entries = l->n_allocated = l->n_dropped = l->n_forgets = l->n_forgets_allocated = 0;
        l->index_mask = l->n_changed = l->live_bytes = 0;
        memset(l->n_kind, 0, sizeof(l->n_kind));
}

/* Returns NULL. */
ChangeLayer *change_layer_free(ChangeLayer *l) {
        if (!l)
                return NULL;
        change_layer_assert(l);
        change_entries_reset(l);
        restore_journal_free(l->journal);
        free(l);
        return NULL;
}

void change_layer_freep(ChangeLayer **l) {
        change_layer_free(*l);
}

/* Returns 0, -EBUSY or a negative errno (logged). */
int change_layer_open_journal(ChangeLayer *l, const char *runtime_dir, const char *root) {
        assert(!l->journal);
        return restore_journal_open(runtime_dir, root, &l->journal);
}

void change_layer_set_bus(ChangeLayer *l, sd_bus *bus) {
        sd_bus_unref(l->env->bus);
        l->env->bus = sd_bus_ref(bus);
}

const KnobEnv *change_layer_env(const ChangeLayer *l) {
        return l->env;
}

const KnobType *const *change_layer_types(const ChangeLayer *l) {
        return l->types;
}

const char *change_layer_journal_path(const ChangeLayer *l) {
        return l->journal ? restore_journal_path(l->journal) : NULL;
}

unsigned long long change_layer_journal_bytes(const ChangeLayer *l) {
        return l->journal ? restore_journal_bytes_written(l->journal) : 0;
}

uint64_t change_knob_writes(const ChangeLayer *l) {
        return l->knob_writes;
}

/* FNV-1a of s. */
static size_t key_hash(const char *s) {
        uint64_t h = 14695981039346656037ULL;

        for (; *s; s++)
                h = (h ^ (unsigned char) *s) * 1099511628211ULL;
        return (size_t) h;
}

/* Puts entry i into the index (which has room). */
static void index_insert(ChangeLayer *l, size_t i) {
        size_t slot = key_hash(l->entries[i].key) & l->index_mask;

        while (l->index[slot] != 0)
                slot = (slot + 1) & l->index_mask;
        l->index[slot] = i + 1;
}

/* A new index with room for for_n entries (at most half full), filled with
 * the live entries.  Returns 0 or -ENOMEM (the old index stays). */
static int index_rebuild(ChangeLayer *l, size_t for_n) {
        size_t slots = 16, *index;

        while (slots < 2 * for_n)
                slots *= 2;
        index = calloc(slots, sizeof(size_t));
        if (!index)
                return -ENOMEM;
        free(l->index);
        l->index = index;
        l->index_mask = slots - 1;
        for (size_t i = 0; i < l->n_entries; i++)
                if (l->entries[i].key)
                        index_insert(l, i);
        return 0;
}

ChangeEntry *change_lookup(const ChangeLayer *l, const char *key) {
        if (!l->index)
                return NULL;
        for (size_t slot = key_hash(key) & l->index_mask; l->index[slot] != 0; slot = (slot + 1) & l->index_mask) {
                ChangeEntry *e = &l->entries[l->index[slot] - 1];

                if (e->key && strcmp(e->key, key) == 0)
                        return e;
        }
        return NULL;
}

/* Counts e in or out (sign +1 or -1). */
static void entry_count(ChangeLayer *l, const ChangeEntry *e, int sign) {
        l->n_kind[e->owner.kind] += (size_t) sign;
        if (e->original) {
                l->n_changed += (size_t) sign;
                l->live_bytes += (size_t) sign * restore_record_bytes(e->key, e->original);
        }
}

/* Returns 0 or -ENOMEM. */
int change_entry_add(ChangeLayer *l, const char *key, const char *original, ChangeOwner owner, uint64_t tag) {
        _cleanup_free_ char *k = strdup(key), *o = original ? strdup(original) : NULL;
        ChangeEntry *e;

        assert(change_owner_valid(owner) && !change_lookup(l, key));
        if (!k || (original && !o) ||
            array_reserve_one((void **) &l->entries, l->n_entries, &l->n_allocated, sizeof(ChangeEntry)) < 0)
                return -ENOMEM;
        if (2 * (l->n_entries + 1) > l->index_mask + 1 && index_rebuild(l, l->n_entries + 1) < 0)
                return -ENOMEM;
        e = &l->entries[l->n_entries];
        *e = (ChangeEntry) { .key = TAKE_PTR(k), .original = TAKE_PTR(o), .owner = owner, .tag = tag };
        index_insert(l, l->n_entries++);
        entry_count(l, e, +1);
        return 0;
}

void change_entry_set_owner(ChangeLayer *l, ChangeEntry *e, ChangeOwner owner) {
        assert(e->key && change_owner_valid(owner));
        l->n_kind[e->owner.kind]--;
        e->owner = owner;
        l->n_kind[owner.kind]++;
}

/* Returns 0 or -ENOMEM. */
int change_entry_drop(ChangeLayer *l, ChangeEntry *e) {
        assert(e->key);
        if (e->original) {
                if (array_reserve_one((void **) &l->forgets, l->n_forgets, &l->n_forgets_allocated, sizeof(char *)) < 0)
                        return -ENOMEM;
                l->forgets[l->n_forgets++] = e->key;
                l->forgets_sync = l->forgets_sync || change_key_synced(l, e->key);
        } else
                free(e->key);
        entry_count(l, e, -1);
        free(e->original);
        free(e->lent);
        *e = (ChangeEntry) {};
        l->n_dropped++;
        return 0;
}

/* Drops the dropped entries from the array, keeping the order, and
 * refills the index. */
static void entries_compact(ChangeLayer *l) {
        size_t kept = 0;

        for (size_t i = 0; i < l->n_entries; i++)
                if (l->entries[i].key)
                        l->entries[kept++] = l->entries[i];
        l->n_entries = kept;
        l->n_dropped = 0;
        if (l->index) {
                memset(l->index, 0, (l->index_mask + 1) * sizeof(size_t));
                for (size_t i = 0; i < l->n_entries; i++)
                        index_insert(l, i);
        }
}

/* Rewrites the journal with the live records.  Returns 0 or a negative
 * errno (logged). */
int change_journal_rewrite(ChangeLayer *l) {
        _cleanup_free_ RestoreRecord *live = calloc(l->n_changed + 1, sizeof(RestoreRecord));
        size_t n = 0;
        bool sync = false;
        int r;

        if (!live)
                return log_oom();
        for (size_t i = 0; i < l->n_entries; i++)
                if (l->entries[i].key && l->entries[i].original) {
                        live[n++] = (RestoreRecord) { l->entries[i].key, l->entries[i].original };
                        sync = sync || change_key_synced(l, l->entries[i].key);
                }
        r = restore_journal_rewrite(l->journal, live, n, sync);
        if (r < 0)
                log_error_errno(r, "Failed to rewrite restore journal %s: %m", restore_journal_path(l->journal));
        return r;
}

void change_forgets_discard(ChangeLayer *l) {
        for (size_t i = 0; i < l->n_forgets; i++)
                free(l->forgets[i]);
        l->n_forgets = 0;
        l->forgets_sync = false;
}

bool change_key_synced(const ChangeLayer *l, const char *key) {
        KnobAddr a;

        return knob_type_synced(knob_parse_key(l->types, l->env, key, &a) < 0 ? NULL : a.type);
}

void change_commit(ChangeLayer *l) {
        int r = 0;

        if (l->journal && l->n_changed == 0 && l->n_forgets > 0)
                r = restore_journal_rewrite(l->journal, NULL, 0, l->forgets_sync);  /* nothing left: no file */
        else if (l->journal && l->n_forgets > 0)
                r = restore_journal_forget(l->journal, (const char *const *) l->forgets, l->n_forgets,
                                           l->forgets_sync);
        if (r < 0)
                log_warning_errno(r, "Failed to note %zu knob(s) back at their original in the restore journal: %m, "
                                  "ignoring", l->n_forgets);
        change_forgets_discard(l);
        if (l->n_dropped > 64 && 2 * l->n_dropped > l->n_entries)
                entries_compact(l);
        if (l->journal && restore_journal_wants_rewrite(l->journal, l->live_bytes))
                (void) change_journal_rewrite(l);
        assert(l->n_changed <= l->n_entries - l->n_dropped);
}

void change_layer_sync(ChangeLayer *l) {
        int r = l->journal ? restore_journal_sync(l->journal) : 0;

        if (r < 0)
                log_warning_errno(r, "Failed to sync restore journal %s: %m, ignoring", restore_journal_path(l->journal));
}

/* Returns what the type's write returns. */
int change_knob_write(ChangeLayer *l, const KnobAddr *a, const char *value) {
        int r = a->type->write(l->env, a, value);

        if (r >= 0 && a->type->counted) {
                l->knob_writes++;
                if (l->events.written)
                        l->events.written(a, value, l->events.userdata);
        }
        return r;
}

void change_forget(ChangeLayer *l, const char *key) {
        ChangeEntry *e = change_lookup(l, key);

        if (e && change_entry_drop(l, e) < 0)
                log_oom();
        change_commit(l);
}

void change_forget_tag(ChangeLayer *l, ChangeOwner owner, uint64_t tag) {
        for (size_t i = 0; i < l->n_entries; i++) {
                ChangeEntry *e = &l->entries[i];

                if (e->key && e->tag == tag && change_owner_equal(e->owner, owner) && change_entry_drop(l, e) < 0)
                        log_oom();
        }
        change_commit(l);
}

const ChangeEntry *change_find(const ChangeLayer *l, const char *key) {
        return change_lookup(l, key);
}

ChangeOwner change_owner_of(const ChangeLayer *l, const char *key) {
        const ChangeEntry *e = change_lookup(l, key);

        return e ? e->owner : CHANGE_OWNER(NONE);
}

bool change_owned_by(const ChangeLayer *l, const char *key, ChangeOwner owner) {
        return l->n_kind[owner.kind] > 0 && change_owner_equal(change_owner_of(l, key), owner);
}

const char *change_original(const ChangeLayer *l, const char *key) {
        const ChangeEntry *e = l->n_changed > 0 ? change_lookup(l, key) : NULL;

        return e ? e->original : NULL;
}

size_t change_count_kind(const ChangeLayer *l, ChangeOwnerKind kind) {
        return (unsigned) kind < _CHANGE_OWNER_KIND_MAX ? l->n_kind[kind] : 0;
}

void change_foreach_changed(const ChangeLayer *l, void (*fn)(const ChangeEntry *e, void *userdata), void *userdata) {
        for (size_t i = 0; i < l->n_entries; i++)
                if (l->entries[i].key && l->entries[i].original)
                        fn(&l->entries[i], userdata);
}

size_t change_n_changed(const ChangeLayer *l) {
        return l->n_changed;
}

void change_layer_assert(const ChangeLayer *l) {
#ifndef NDEBUG
        size_t kinds[_CHANGE_OWNER_KIND_MAX] = {}, changed = 0, live = 0, bytes = 0;

        for (size_t i = 0; i < l->n_entries; i++) {
                const ChangeEntry *e = &l->entries[i];

                if (!e->key)
                        continue;
                assert(change_owner_valid(e->owner));
                assert(change_lookup(l, e->key) == e);
                assert(!e->original || e->owner.kind != CHANGE_OWNER_NONE);
                /* a loan is from someone else, with the value it held then */
                assert(!change_owner_valid(e->lender) || (!change_owner_equal(e->owner, e->lender) && e->lent));
                kinds[e->owner.kind]++;
                live++;
                changed += e->original != NULL;
                bytes += e->original ? restore_record_bytes(e->key, e->original) : 0;
        }
        assert(live + l->n_dropped == l->n_entries);
        assert(changed == l->n_changed);
        /* the journal's accounting: what a rewrite would write, in entry order */
        assert(bytes == l->live_bytes);
        assert(memcmp(kinds, l->n_kind, sizeof(kinds)) == 0);
#endif
}
