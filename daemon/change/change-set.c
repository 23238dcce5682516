/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The way in: one owner's knobs journaled, written, rolled back together. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "change-internal.h"
#include "change-set.h"
#include "cleanup.h"
#include "log.h"
#include "macro.h"

void change_set_init(ChangeSet *s, ChangeLayer *l, ChangeOwner owner) {
        assert(change_owner_valid(owner));
        *s = (ChangeSet) { .layer = l, .owner = owner };
}

void change_set_done(ChangeSet *s) {
        for (size_t i = 0; i < s->n; i++) {
                free(s->writes[i].key);
                free(s->writes[i].old);
                free(s->writes[i].new);
                free(s->writes[i].prev_lent);
        }
        free(s->writes);
        *s = (ChangeSet) {};
}

const ChangeWrite *change_set_find(const ChangeSet *s, const char *key) {
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->writes[i].key, key) == 0)
                        return &s->writes[i];
        return NULL;
}

/* Checks that s's owner may change key.  Returns 0 or -EBUSY with e set. */
static int check_owner(const ChangeSet *s, const char *key, ErrorInfo *e) {
        const ChangeEntry *x = change_lookup(s->layer, key);
        char holder[CHANGE_OWNER_TEXT_MAX];

        if (!x || change_owner_take(s->owner, x->owner) != CHANGE_TAKE_REFUSED)
                return 0;
        return errinfo_set(e, -EBUSY, "%s is held by the %s", key, change_owner_to_string(x->owner, holder));
}

/* Returns 0 or a negative errno with e set. */
int change_set_add(ChangeSet *s, const char *key, const char *value, ErrorInfo *e) {
        ChangeLayer *l = s->layer;
        _cleanup_free_ char *old = NULL;
        ChangeWrite *w;
        KnobAddr a;
        int r;

        assert(s->state == CHANGE_SET_OPEN);
        if (knob_parse_key(l->types, l->env, key, &a) < 0)
                return errinfo_set(e, -EINVAL, "%s is not a knob the daemon writes", key);
        if (strlen(value) >= a.type->value_max || !a.type->value_valid(&a, value))
                return errinfo_set(e, -EINVAL, "\"%s\" is not a valid value for %s", value, key);
        r = check_owner(s, key, e);
        if (r < 0)
                return r;
        old = malloc(a.type->value_max);
        if (!old)
                return -ENOMEM;
        r = a.type->read(l->env, &a, old, a.type->value_max);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return errinfo_set(e, r, "Failed to read %s: %s", key, knob_error_reason(r));
        if (array_reserve_one((void **) &s->writes, s->n, &s->allocated, sizeof(ChangeWrite)) < 0)
                return -ENOMEM;
        w = &s->writes[s->n];
        *w = (ChangeWrite) { .key = strdup(key), .old = TAKE_PTR(old), .new = strdup(value), .tag = s->tag };
        if (!w->key || !w->new) {
                free(w->key);
                free(w->old);
                free(w->new);
                return -ENOMEM;
        }
        /* the addr points into the key it was parsed from: parse the copy */
        (void) knob_parse_key(l->types, l->env, w->key, &w->addr);
        w->noop = strcmp(w->old, w->new) == 0;
        s->n_writes += !w->noop;
        s->n++;
        return 0;
}

/* Journals the originals of the knobs about to change that have none yet,
 * in one batch.  Returns 0 or a negative errno with e set. */
static int record_originals(ChangeSet *s, ErrorInfo *e) {
        _cleanup_free_ RestoreRecord *recs = calloc(s->n + 1, sizeof(RestoreRecord));
        size_t n = 0;
        bool sync = false;
        int r;

        if (!recs)
                return -ENOMEM;
        for (size_t i = 0; i < s->n; i++) {
                ChangeWrite *w = &s->writes[i];

                if (w->noop || change_original(s->layer, w->key))
                        continue;
                recs[n++] = (RestoreRecord) { w->key, w->old };
                w->recorded = true;
                sync = sync || knob_type_synced(w->addr.type);
        }
        if (n == 0)
                return 0;
        r = s->layer->journal ? restore_journal_append(s->layer->journal, recs, n, sync) : 0;
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                for (size_t i = 0; i < s->n; i++)
                        s->writes[i].recorded = false;
                return errinfo_set(e, -EIO, "Failed to record the original value of %s in the restore journal: %s",
                                   recs[0].key, strerror(-r));
        }
        return 0;
}

/* Makes w's knob the set's in memory (its original journaled by the set
 * when w->recorded).  Borrowed from its owner: the lender and the value it
 * held are kept (a borrower's borrower replaces it, the first lender
 * stays).  Returns 0 or -ENOMEM. */
static int take_knob(ChangeSet *s, ChangeWrite *w) {
        ChangeLayer *l = s->layer;
        ChangeEntry *x = change_lookup(l, w->key);
        bool borrow;

        if (x && !w->recorded) {
                borrow = change_owner_take(s->owner, x->owner) == CHANGE_TAKE_BORROW &&
                         !change_owner_valid(x->lender) && !change_owner_equal(s->owner, x->owner);
                w->prev = x->owner;
                w->prev_lender = x->lender;
                w->prev_lent = x->lent ? strdup(x->lent) : NULL;
                w->prev_tag = x->tag;
                if ((x->lent && !w->prev_lent) || (borrow && !(x->lent = strdup(w->old))))
                        return -ENOMEM;
                if (borrow)
                        x->lender = x->owner;
                change_entry_set_owner(l, x, s->owner);
                x->tag = w->tag;
                return 0;
        }
        /* new, or a claim that gets its original now: at the end (journal order) */
        if (x) {
                w->prev = x->owner;
                w->prev_tag = x->tag;
                if (change_entry_drop(l, x) < 0)
                        return -ENOMEM;
        }
        return change_entry_add(l, w->key, w->old, s->owner, w->tag);
}

/* Gives w's knob back to its owner from before the set (or drops it when
 * it had none and the set journaled it). */
static void untake_knob(ChangeSet *s, ChangeWrite *w) {
        ChangeLayer *l = s->layer;
        ChangeEntry *x = change_lookup(l, w->key);

        if (!x)
                return;
        if (w->recorded) {
                if (change_entry_drop(l, x) < 0 ||
                    (change_owner_valid(w->prev) && change_entry_add(l, w->key, NULL, w->prev, w->prev_tag) < 0))
                        log_oom();
                return;
        }
        if (change_owner_valid(w->prev)) {
                change_entry_set_owner(l, x, w->prev);
                x->lender = w->prev_lender;
                free(x->lent);
                x->lent = TAKE_PTR(w->prev_lent);
                x->tag = w->prev_tag;
        }
}

/* Puts back the knobs written so far, newest first, and the owners as
 * they were.  A knob that cannot be put back keeps its journaled original
 * (and stays the set's owner's), so a later restore puts it back. */
static void roll_back(ChangeSet *s) {
        for (size_t i = s->n; i-- > 0;) {
                ChangeWrite *w = &s->writes[i];
                int r = w->written ? change_knob_write(s->layer, &w->addr, w->old) : 0;

                if (r < 0) {
                        log_error_errno(r, "Failed to roll back %s to \"%s\": %m", w->key, w->old);
                        continue;
                }
                untake_knob(s, w);
        }
        change_commit(s->layer);
}

/* Reads a written knob back, for the types that ask (the idle knobs: a
 * governor switch recreates their directories, and a write that lands in
 * the old one is lost).  Returns 0, or -EIO when it does not hold value. */
static int verify_written(ChangeSet *s, const ChangeWrite *w) {
        _cleanup_free_ char *buf = NULL;

        if (!w->addr.type->verify)
                return 0;
        buf = malloc(w->addr.type->value_max);
        if (!buf)
                return -ENOMEM;
        if (w->addr.type->read(s->layer->env, &w->addr, buf, w->addr.type->value_max) < 0 || strcmp(buf, w->new) != 0)
                return -EIO;
        return 0;
}

/* Writes every knob.  Returns 0 or -EIO with e set (rolled back). */
static int write_all_knobs(ChangeSet *s, ErrorInfo *e) {
        for (size_t i = 0; i < s->n; i++) {
                ChangeWrite *w = &s->writes[i];
                int r;

                if (w->noop)
                        continue;
                r = change_knob_write(s->layer, &w->addr, w->new);
                if (r == -ENOENT && s->gone_ok) {
                        w->gone = true;
                        continue;
                }
                w->written = r >= 0;
                if (r >= 0)
                        r = verify_written(s, w);
                if (r < 0) {
                        s->write_error = r;
                        errinfo_set(e, -EIO, "Failed to write \"%s\" to %s: %s", w->new, w->key,
                                    w->written ? "it does not read back (its directory was recreated meanwhile?)"
                                               : knob_error_reason(r));
                        log_warning("%s; rolling back %zu earlier write(s).", e->message, i);
                        roll_back(s);
                        return -EIO;
                }
                w->written = true;
                log_debug("Wrote \"%s\" to %s (was \"%s\").", w->new, w->key, w->old);
        }
        return 0;
}

/* After the writes: claims for a claiming owner, and knobs that hold their
 * original (or went away) forgotten.  Returns 0 or -ENOMEM. */
static int settle(ChangeSet *s) {
        ChangeLayer *l = s->layer;
        bool claims = change_owner_claims(s->owner);

        for (size_t i = 0; i < s->n; i++) {
                ChangeWrite *w = &s->writes[i];
                ChangeEntry *x = change_lookup(l, w->key);

                if (w->noop && claims && !x) {
                        if (change_entry_add(l, w->key, NULL, s->owner, w->tag) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (w->noop && claims && change_owner_take(s->owner, x->owner) == CHANGE_TAKE_OVER)
                        change_entry_set_owner(l, x, s->owner);
                if (!x || !x->original || change_owner_valid(x->lender) ||
                    (!w->gone && (w->noop || strcmp(x->original, w->new) != 0)))
                        continue;
                if (change_entry_drop(l, x) < 0)
                        return -ENOMEM;
                if (claims && !w->gone && change_entry_add(l, w->key, NULL, s->owner, w->tag) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* Checks an applied set (debug builds): every knob it wrote and kept
 * changed is its owner's. */
static void set_assert_applied(const ChangeSet *s) {
#ifndef NDEBUG
        for (size_t i = 0; i < s->n; i++) {
                const ChangeWrite *w = &s->writes[i];
                const ChangeEntry *x = change_lookup(s->layer, w->key);

                assert(w->noop || w->gone || w->written);
                if (x && !w->noop && !w->gone)
                        assert(change_owner_equal(x->owner, s->owner));
        }
#endif
}

/* Returns the number written, or a negative errno with e set. */
int change_set_apply(ChangeSet *s, ErrorInfo *e) {
        int r;

        assert(s->state == CHANGE_SET_OPEN);
        s->state = CHANGE_SET_FAILED;
        r = record_originals(s, e);
        for (size_t i = 0; r >= 0 && i < s->n; i++)
                if (!s->writes[i].noop)
                        r = take_knob(s, &s->writes[i]);
        if (r == -ENOMEM) {
                roll_back(s);
                return errinfo_set(e, -ENOMEM, "Out of memory");
        }
        if (r < 0)
                return r;
        r = write_all_knobs(s, e);
        if (r < 0)
                return r;
        r = settle(s);
        change_commit(s->layer);
        if (r < 0)
                return errinfo_set(e, r, "Out of memory");
        s->state = CHANGE_SET_APPLIED;
        set_assert_applied(s);
        return (int) (s->n_writes);
}
