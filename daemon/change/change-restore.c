/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The way back: an owner's knobs, or all of them, put back newest first;
 * and at a start, everything a previous run's journal lists. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "change-internal.h"
#include "cleanup.h"
#include "exit-request.h"
#include "fileio.h"
#include "log.h"
#include "sysfs-paths.h"

/* A knob whose directory is missing for now is tried again every
 * VANISHED_STEP_USEC, for VANISHED_WAIT_USEC at most. */
#define VANISHED_WAIT_USEC (2 * 1000 * 1000ULL)
#define VANISHED_STEP_USEC (10 * 1000ULL)

/* restore_one(): the knob stays for a later restore, not a failure. */
#define RESTORE_KEPT (-ENODATA)

/* How one restore goes. */
typedef struct RestoreRun {
        ChangeOwner owner;            /* NONE: every knob (but except's) */
        ChangeOwnerKind except;       /* with owner NONE: not this kind's (NONE: none left out) */
        bool by_tag;
        uint64_t tag;
        bool at_start;                /* a previous run's journal: a knob still missing after the
                                       * wait is gone for good, SIGTERM/SIGINT interrupt */
        CpuSet online;
        bool online_known;
        size_t n_offline, n_failed, n_vanished;
        size_t n_deferred;            /* unit knobs kept until a bus is there */
        size_t n_kept;                /* knobs kept until they can be reached (wteo tolerances) */
        const KnobType *kept_type;    /* of the last one kept */
        int n_restored;
        char failed[sizeof(((ErrorInfo *) NULL)->message)];
} RestoreRun;

/* Whether the run puts e back. */
static bool run_wants(const RestoreRun *run, const ChangeEntry *e) {
        if (!e->key || !e->original)
                return false;
        if (run->owner.kind == CHANGE_OWNER_NONE)
                return run->except == CHANGE_OWNER_NONE || e->owner.kind != run->except;
        return change_owner_equal(e->owner, run->owner) && (!run->by_tag || e->tag == run->tag);
}

/* What to do with a knob that is not there.  Returns 0 (gone: logged),
 * -EAGAIN (wait) or RESTORE_KEPT. */
static int knob_absent(ChangeLayer *l, RestoreRun *run, const ChangeEntry *e, const KnobAddr *a) {
        KnobAbsent what = a->type->absent ? a->type->absent(l->env, a, run->online_known ? &run->online : NULL)
                                          : KNOB_ABSENT_GONE;

        if (what == KNOB_ABSENT_WAIT)
                return -EAGAIN;
        if (what == KNOB_ABSENT_KEEP) {
                run->kept_type = a->type;
                return RESTORE_KEPT;
        }
        if (a->type->write_when_absent)
                log_debug("%s is gone, nothing to put back.", e->key);
        else
                log_notice("%s no longer exists, forgetting its original value.", e->key);
        return 0;
}

/* Reads the knob back after a write.  Returns 1 if it holds value,
 * -EAGAIN if not (a state directory recreated between the open and the
 * write, on a test tree where a stale fd still writes, loses the write). */
static int verify(ChangeLayer *l, const KnobAddr *a, const char *value, char *buf) {
        int r = a->type->read(l->env, a, buf, a->type->value_max);

        return r >= 0 && strcmp(buf, value) == 0 ? 1 : -EAGAIN;
}

/* Puts one knob back: to its original, or a borrowed one to the value it
 * held when lent.  Returns 1 (written or already right), 0 (skipped for
 * good: an offline CPU's, gone, not restorable), -EAGAIN (missing for
 * now), -ENOTCONN (a unit without a bus), RESTORE_KEPT, or another
 * negative errno (logged). */
static int restore_one(ChangeLayer *l, RestoreRun *run, const ChangeEntry *e) {
        const char *value = e->lent ?: e->original;
        _cleanup_free_ char *buf = NULL;
        KnobAddr a;
        int r;

        if (knob_parse_key(l->types, l->env, e->key, &a) < 0)
                return 0;
        if (a.type->offline && run->online_known && a.type->offline(&a, &run->online)) {
                log_debug("CPU %u is offline, not restoring %s.", a.cpu, e->key);
                run->n_offline++;
                return 0;
        }
        buf = malloc(a.type->value_max);
        if (!buf)
                return -ENOMEM;
        r = a.type->read(l->env, &a, buf, a.type->value_max);
        if (r >= 0 && strcmp(buf, value) == 0)
                return 1;
        if (r == -ENOTCONN)
                return r;
        if (r == -ENOENT && !a.type->write_when_absent)
                return knob_absent(l, run, e, &a);
        if (a.type->restorable && !a.type->restorable(l->env, &a, value))
                return 0;
        r = change_knob_write(l, &a, value);
        if (r == -ENOENT)
                return knob_absent(l, run, e, &a);
        if (r == -ENOTCONN)
                return r;
        if (r < 0)
                return log_error_errno(r, "Failed to restore %s to \"%s\": %s", e->key, value, knob_error_reason(r));
        if (a.type->verify && verify(l, &a, value, buf) < 0)
                return -EAGAIN;
        log_debug("Restored %s to \"%s\".", e->key, value);
        return 1;
}

/* Notes a knob that could not be put back in run->failed. */
static void run_add_failed(RestoreRun *run, const char *key, const char *why) {
        size_t len = strlen(run->failed);

        run->n_failed++;
        snprintf(run->failed + len, sizeof(run->failed) - len, "%s%s%s", run->n_failed > 1 ? ", " : "", key, why);
}

/* A borrowed knob back at the value it held when lent: its lender's again. */
static void hand_back(ChangeLayer *l, ChangeEntry *e) {
        change_entry_set_owner(l, e, e->lender);
        e->lender = CHANGE_OWNER(NONE);
        e->lent = mfree(e->lent);
}

/* owner ends: what it lent to a borrower is the borrower's to put back to
 * the original (owner's value no longer matters). */
static void forget_lender(ChangeLayer *l, ChangeOwner owner) {
        for (size_t i = 0; i < l->n_entries; i++) {
                ChangeEntry *e = &l->entries[i];

                if (e->key && change_owner_equal(e->lender, owner)) {
                        e->lender = CHANGE_OWNER(NONE);
                        e->lent = mfree(e->lent);
                }
        }
}

/* Reads the online CPUs into the run. */
static void run_read_online(ChangeLayer *l, RestoreRun *run) {
        char buf[4096];

        run->online_known = fileio_read_string_at(l->env->root_fd, SYSFS_CPU_ONLINE, buf, sizeof(buf)) >= 0 &&
                            cpuset_parse(buf, &run->online, NULL) >= 0;
}

/* Tries every wanted entry (only_vanished: those missing at the last try)
 * once, newest first; drops those done with.  Returns 0, -EINTR or
 * -ENOMEM. */
static int restore_pass(ChangeLayer *l, RestoreRun *run, bool only_vanished) {
        run_read_online(l, run);
        run->n_vanished = 0;
        for (size_t i = l->n_entries, n = 0; i-- > 0; n++) {
                ChangeEntry *e = &l->entries[i];
                int r;

                if (!run_wants(run, e) || (only_vanished && !e->vanished))
                        continue;
                if (run->at_start && n % 4096 == 4095 && exit_requested())
                        return -EINTR;
                r = restore_one(l, run, e);
                if (r == -ENOMEM)
                        return r;
                e->vanished = r == -EAGAIN;
                run->n_vanished += r == -EAGAIN;
                run->n_deferred += r == -ENOTCONN;
                run->n_kept += r == RESTORE_KEPT;
                if (r == -EAGAIN || r == -ENOTCONN || r == RESTORE_KEPT)
                        continue;
                if (r < 0) {
                        run_add_failed(run, e->key, "");
                        continue;
                }
                run->n_restored += r;
                if (r > 0 && change_owner_valid(e->lender)) {
                        hand_back(l, e);
                        continue;
                }
                if (change_entry_drop(l, e) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* Settles the knobs still missing after the wait: forgotten at a start,
 * failures (kept) otherwise. */
static void settle_vanished(ChangeLayer *l, RestoreRun *run) {
        for (size_t i = 0; run->n_vanished > 0 && i < l->n_entries; i++) {
                ChangeEntry *e = &l->entries[i];

                if (!e->key || !e->vanished)
                        continue;
                e->vanished = false;
                if (!run->at_start) {
                        run_add_failed(run, e->key, " (its idle state directory is missing)");
                        continue;
                }
                log_notice("%s is still missing after %llu ms, forgetting its original value.", e->key,
                           VANISHED_WAIT_USEC / 1000);
                if (change_entry_drop(l, e) < 0)
                        log_oom();
        }
}

static void run_log_summary(const RestoreRun *run) {
        if (run->n_offline > 0)
                log_notice("Not restoring %zu idle state knob(s) of offline CPUs: the kernel recreates their states "
                           "with their defaults when they come back.", run->n_offline);
        if (run->n_deferred > 0)
                log_notice("Keeping %zu unit knob(s) in the restore journal until the system bus is there.",
                           run->n_deferred);
        if (run->n_kept > 0)
                log_notice("Keeping %zu %s in the restore journal: %s.", run->n_kept,
                           run->kept_type && run->kept_type->kept_noun ? run->kept_type->kept_noun : "knob(s)",
                           run->kept_type && run->kept_type->kept_why ? run->kept_type->kept_why
                                                                     : "they cannot be reached now");
}

/* Returns the number put back, -EIO with e set, -EINTR (at a start) or
 * -ENOMEM. */
static int restore_run(ChangeLayer *l, RestoreRun *run, ErrorInfo *e) {
        int r = restore_pass(l, run, false);

        for (uint64_t waited = 0; r >= 0 && run->n_vanished > 0 && waited < VANISHED_WAIT_USEC;
             waited += VANISHED_STEP_USEC) {
                if (run->at_start && exit_requested()) {
                        r = -EINTR;
                        break;
                }
                (void) usleep(VANISHED_STEP_USEC);
                r = restore_pass(l, run, true);
        }
        if (r >= 0)
                settle_vanished(l, run);
        run_log_summary(run);
        change_commit(l);
        if (!run->by_tag)               /* O(entries): not at every pinned process's exit */
                change_layer_assert(l);
        if (r < 0)
                return r;
        if (run->n_failed > 0)
                return errinfo_set(e, -EIO, "Failed to restore %zu knob(s): %s", run->n_failed, run->failed);
        return run->n_restored;
}

int change_restore(ChangeLayer *l, ChangeOwner owner, ErrorInfo *e) {
        RestoreRun run = { .owner = owner };

        assert(change_owner_valid(owner));
        forget_lender(l, owner);
        if (change_count_kind(l, owner.kind) == 0)
                return 0;
        return restore_run(l, &run, e);
}

int change_restore_tag(ChangeLayer *l, ChangeOwner owner, uint64_t tag, ErrorInfo *e) {
        RestoreRun run = { .owner = owner, .by_tag = true, .tag = tag };

        assert(change_owner_valid(owner));
        if (change_count_kind(l, owner.kind) == 0)
                return 0;
        return restore_run(l, &run, e);
}

/* Drops every claim (an entry without an original) not of kind except. */
static void drop_claims(ChangeLayer *l, ChangeOwnerKind except) {
        for (size_t i = 0; i < l->n_entries; i++) {
                ChangeEntry *x = &l->entries[i];

                if (x->key && !x->original && (except == CHANGE_OWNER_NONE || x->owner.kind != except) &&
                    change_entry_drop(l, x) < 0)
                        log_oom();
        }
}

int change_restore_all(ChangeLayer *l, ErrorInfo *e) {
        return change_restore_except(l, CHANGE_OWNER_NONE, e);
}

int change_restore_except(ChangeLayer *l, ChangeOwnerKind except, ErrorInfo *e) {
        RestoreRun run = { .owner = CHANGE_OWNER(NONE), .except = except };

        drop_claims(l, except);
        return restore_run(l, &run, e);
}

void change_give_back(ChangeLayer *l, ChangeOwner borrower) {
        for (size_t i = 0; i < l->n_entries; i++) {
                ChangeEntry *x = &l->entries[i];

                if (!x->key || !change_owner_equal(x->owner, borrower))
                        continue;
                if (change_owner_valid(x->lender))
                        hand_back(l, x);
                else if (x->original)
                        change_entry_set_owner(l, x, CHANGE_OWNER(LEFTOVER));   /* could not be put back */
                else if (change_entry_drop(l, x) < 0)
                        log_oom();
        }
        change_commit(l);
}

/* The journal's lines, taken into the layer (a RestoreJournalReader). */
static bool replay_valid(const char *key, const char *value, const char **ret_why, void *userdata) {
        ChangeLayer *l = userdata;

        return knob_entry_valid(l->types, l->env, key, value, ret_why);
}

static int replay_take(const char *key, const char *value, void *userdata) {
        ChangeLayer *l = userdata;
        ChangeEntry *e = change_lookup(l, key);

        if (!value)
                return e ? change_entry_drop(l, e) : 0;
        if (e)
                return 0;               /* the first original wins */
        if (l->n_changed >= RESTORE_JOURNAL_MAX_ENTRIES)
                return -EDQUOT;
        return change_entry_add(l, key, value, CHANGE_OWNER(LEFTOVER), 0);
}

int change_layer_replay(ChangeLayer *l) {
        RestoreJournalReader reader = { .valid = replay_valid, .take = replay_take, .userdata = l };
        RestoreRun run = { .owner = CHANGE_OWNER(NONE), .at_start = true };
        ErrorInfo e = {};
        size_t n;
        int r;

        assert(l->journal && l->n_entries == 0);
        r = restore_journal_load(l->journal, &reader);
        if (r <= 0) {
                change_entries_reset(l);
                if (r == -EINTR || r == -EXDEV)
                        restore_journal_detach(l->journal);   /* the file waits for the next start */
                return r;
        }
        /* The load's own forgets are in the file already. */
        change_forgets_discard(l);
        n = l->n_changed;
        log_notice("Found restore journal %s with %zu knob(s): the previous run did not exit cleanly, restoring them.",
                   restore_journal_path(l->journal), n);
        r = restore_run(l, &run, &e);
        /* The file still holds the previous run's lines: what stays is
         * written anew (or the file goes). */
        if (r != -ENOMEM)
                (void) change_journal_rewrite(l);
        if (r == -EINTR) {
                log_notice("Interrupted: %zu knob(s) stay in %s for the next start.", l->n_changed,
                           restore_journal_path(l->journal));
                change_entries_reset(l);
                restore_journal_detach(l->journal);
                return r;
        }
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                log_error("%s; keeping them in the journal, continuing.", e.message);
        else
                log_notice("Restored %d knob(s) from the restore journal.", r);
        return (int) n;
}
