/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The change layer (daemon/change/) with a fake knob type: knobs
 * "fake:NAME" held in memory, whose reads and writes a test can make fail.
 * Every owner's restore leaves every other owner's knobs alone; a failed
 * write rolls a set back exactly; the first original wins and restores go
 * newest first; claims, borrows and leftovers; the journal file replays
 * (version 1 and 2) and stays small. */
#include <sys/stat.h>

#include "change-internal.h"
#include "change-test.h"
#include "fileio.h"
#include "log.h"
#include "unit.h"

#define FAKE_PREFIX "fake:"
#define FAKE_MAX 64

/* The fake knobs: a name, its value, and what its next access does. */
typedef struct FakeKnob {
        char name[32];
        char value[32];
        bool missing;                 /* read and write say -ENOENT */
        bool fail_write;              /* write says -EIO */
} FakeKnob;

static FakeKnob fakes[FAKE_MAX];
static unsigned n_fakes;
static char write_log[4096];          /* "name=value " of every write, in order */

static FakeKnob *fake_find(const char *name) {
        for (unsigned i = 0; i < n_fakes; i++)
                if (strcmp(fakes[i].name, name) == 0)
                        return &fakes[i];
        return NULL;
}

/* Sets knob name to value (made if new) without the layer. */
static void fake_put(const char *name, const char *value) {
        FakeKnob *k = fake_find(name);

        if (!k) {
                ck_assert_uint_lt(n_fakes, FAKE_MAX);
                k = &fakes[n_fakes++];
                snprintf(k->name, sizeof(k->name), "%s", name);
        }
        snprintf(k->value, sizeof(k->value), "%s", value);
}

static const char *fake_get(const char *name) {
        FakeKnob *k = fake_find(name);

        ck_assert_ptr_nonnull(k);
        return k->value;
}

static int fake_parse(const KnobEnv *env, const char *key, KnobAddr *ret) {
        if (strncmp(key, FAKE_PREFIX, strlen(FAKE_PREFIX)) != 0 || !key[strlen(FAKE_PREFIX)] ||
            strlen(key) >= 32)
                return -EINVAL;
        *ret = (KnobAddr) { .cpu = KNOB_NO_CPU, .name = key + strlen(FAKE_PREFIX) };
        return 0;
}

static bool fake_value_valid(const KnobAddr *a, const char *value) {
        return value[0] && strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789") == strlen(value);
}

static int fake_read(const KnobEnv *env, const KnobAddr *a, char *buf, size_t size) {
        FakeKnob *k = fake_find(a->name);

        if (!k || k->missing)
                return -ENOENT;
        snprintf(buf, size, "%s", k->value);
        return 0;
}

static int fake_write(const KnobEnv *env, const KnobAddr *a, const char *value) {
        FakeKnob *k = fake_find(a->name);
        size_t len = strlen(write_log);

        if (!k || k->missing)
                return -ENOENT;
        if (k->fail_write)
                return -EIO;
        snprintf(k->value, sizeof(k->value), "%s", value);
        snprintf(write_log + len, sizeof(write_log) - len, "%s=%s ", a->name, value);
        return 0;
}

static const KnobType fake_type;

static int fake_parse_typed(const KnobEnv *env, const char *key, KnobAddr *ret) {
        int r = fake_parse(env, key, ret);

        if (r >= 0)
                ret->type = &fake_type;
        return r;
}

static const KnobType fake_type = {
        .name = "fake",
        .value_max = 32,
        .counted = true,
        .parse = fake_parse_typed,
        .value_valid = fake_value_valid,
        .read = fake_read,
        .write = fake_write,
};

static const KnobType *const fake_types[] = { &fake_type, NULL };

#define PLAN CHANGE_OWNER(PLAN)
#define MANUAL CHANGE_OWNER(MANUAL)
#define CONSOLIDATION CHANGE_OWNER(CONSOLIDATION)
#define COMPANION CHANGE_OWNER(COMPANION)
#define CALIBRATION CHANGE_OWNER(CALIBRATION)
#define PIN(n) CHANGE_OWNER_PIN_ID(n)

/* A fresh world: the fake knobs a..h at "0", a layer over t. */
static void world(ChangeTest *c, FakeTree **t) {
        n_fakes = 0;
        write_log[0] = '\0';
        for (char n = 'a'; n <= 'h'; n++)
                fake_put((char[]) { n, '\0' }, "0");
        *t = unit_tree(NULL);
        change_test_open_types(c, *t, fake_types, NULL);
}

static int set(ChangeLayer *l, ChangeOwner o, const char *key, const char *value) {
        return change_test_set(l, o, key, value);
}

/* Reads the journal file of t into a malloc'ed string ("" when none). */
static char *journal_text(const FakeTree *t) {
        char *text = NULL;
        size_t size;

        if (fileio_read_regular_at(t->fd, "run/" RESTORE_JOURNAL_FILE, 1 << 20, 0, &text, &size) < 0)
                return strdup("");
        return text;
}

START_TEST(test_restore_is_per_owner) {
        ChangeTest c;
        FakeTree *t;
        ErrorInfo e = {};

        world(&c, &t);
        ck_assert_int_eq(set(c.l, PLAN, "fake:a", "1"), 1);
        ck_assert_int_eq(set(c.l, MANUAL, "fake:b", "1"), 1);
        ck_assert_int_eq(set(c.l, PIN(1), "fake:c", "1"), 1);
        ck_assert_int_eq(set(c.l, PIN(2), "fake:d", "1"), 1);
        ck_assert_int_eq(set(c.l, CONSOLIDATION, "fake:e", "1"), 1);
        ck_assert_int_eq(set(c.l, COMPANION, "fake:f", "1"), 1);
        ck_assert_uint_eq(change_n_changed(c.l), 6);

        ck_assert_int_eq(change_restore(c.l, PLAN, &e), 1);
        ck_assert_str_eq(fake_get("a"), "0");
        ck_assert_int_eq(change_restore(c.l, PIN(2), &e), 1);
        ck_assert_str_eq(fake_get("d"), "0");
        ck_assert_str_eq(fake_get("c"), "1");
        ck_assert_int_eq(change_restore(c.l, CONSOLIDATION, &e), 1);
        ck_assert_int_eq(change_restore(c.l, CONSOLIDATION, &e), 0);
        ck_assert_str_eq(fake_get("e"), "0");
        for (const char *k = "bcf"; *k; k++)
                ck_assert_str_eq(fake_get((char[]) { *k, '\0' }), "1");
        ck_assert(change_owned_by(c.l, "fake:b", MANUAL));
        ck_assert(change_owned_by(c.l, "fake:c", PIN(1)));
        ck_assert(!change_owned_by(c.l, "fake:c", PIN(2)));
        ck_assert_int_eq(change_owner_of(c.l, "fake:f").kind, CHANGE_OWNER_COMPANION);
        ck_assert_int_eq(change_owner_of(c.l, "fake:a").kind, CHANGE_OWNER_NONE);
        /* all but the pins (Restore()), then all (an exit) */
        ck_assert_int_eq(change_restore_except(c.l, CHANGE_OWNER_PIN, &e), 2);
        ck_assert_str_eq(fake_get("c"), "1");
        ck_assert_int_eq(change_restore_all(c.l, &e), 1);
        ck_assert_str_eq(fake_get("c"), "0");
        ck_assert_uint_eq(change_n_changed(c.l), 0);
        change_layer_assert(c.l);
        change_test_close(&c);
}
END_TEST

/* The third write fails: the first two are put back, newest first, the
 * journal holds nothing of the set, the owners are as before. */
START_TEST(test_failed_write_rolls_back) {
        ChangeTest c;
        FakeTree *t;
        ErrorInfo e = {};
        ChangeSet s;

        world(&c, &t);
        ck_assert_int_eq(set(c.l, PLAN, "fake:b", "5"), 1);
        fake_find("c")->fail_write = true;
        write_log[0] = '\0';
        change_set_init(&s, c.l, MANUAL);
        ck_assert_int_eq(change_set_add(&s, "fake:a", "1", &e), 0);
        ck_assert_int_eq(change_set_add(&s, "fake:b", "1", &e), 0);
        ck_assert_int_eq(change_set_add(&s, "fake:c", "1", &e), 0);
        ck_assert_int_eq(change_set_apply(&s, &e), -EIO);
        ck_assert_int_eq(s.state, CHANGE_SET_FAILED);
        ck_assert_int_eq(s.write_error, -EIO);
        ck_assert_msg_has(e, "fake:c");
        change_set_done(&s);
        ck_assert_str_eq(write_log, "a=1 b=1 b=5 a=0 ");
        ck_assert_str_eq(fake_get("a"), "0");
        ck_assert_str_eq(fake_get("b"), "5");
        ck_assert_ptr_null(change_find(c.l, "fake:a"));
        ck_assert(change_owned_by(c.l, "fake:b", PLAN));
        ck_assert_str_eq(change_original(c.l, "fake:b"), "0");
        ck_assert_uint_eq(change_n_changed(c.l), 1);
        change_layer_assert(c.l);
        /* replayed as if killed now: only b's original comes back */
        change_test_close(&c);
        fake_put("a", "9");
        change_test_open_types(&c, t, fake_types, NULL);
        ck_assert_int_eq(change_layer_replay(c.l), 1);
        ck_assert_str_eq(fake_get("b"), "0");
        ck_assert_str_eq(fake_get("a"), "9");
        change_test_close(&c);
}
END_TEST

/* The first original wins; restores go newest first. */
START_TEST(test_first_original_and_order) {
        ChangeTest c;
        FakeTree *t;
        ErrorInfo e = {};

        world(&c, &t);
        ck_assert_int_eq(set(c.l, PLAN, "fake:a", "1"), 1);
        ck_assert_int_eq(set(c.l, PLAN, "fake:b", "1"), 1);
        ck_assert_int_eq(set(c.l, PLAN, "fake:a", "2"), 1);
        ck_assert_int_eq(set(c.l, PLAN, "fake:c", "1"), 1);
        ck_assert_str_eq(change_original(c.l, "fake:a"), "0");
        write_log[0] = '\0';
        ck_assert_int_eq(change_restore(c.l, PLAN, &e), 3);
        ck_assert_str_eq(write_log, "c=0 b=0 a=0 ");
        /* back at the original by a set: forgotten, a new change a new original */
        ck_assert_int_eq(set(c.l, PLAN, "fake:d", "1"), 1);
        ck_assert_int_eq(set(c.l, PLAN, "fake:d", "0"), 1);
        ck_assert_ptr_null(change_find(c.l, "fake:d"));
        fake_put("d", "7");
        ck_assert_int_eq(set(c.l, PLAN, "fake:d", "1"), 1);
        ck_assert_str_eq(change_original(c.l, "fake:d"), "7");
        change_test_close(&c);
}
END_TEST

/* The administrator's settings claim what they address, changed or not:
 * the plan may not take them; Restore() drops the claims. */
START_TEST(test_manual_claims) {
        ChangeTest c;
        FakeTree *t;
        ErrorInfo e = {};
        ChangeSet s;

        world(&c, &t);
        ck_assert_int_eq(set(c.l, PLAN, "fake:a", "1"), 1);
        ck_assert_int_eq(set(c.l, MANUAL, "fake:a", "2"), 1);      /* over the plan */
        ck_assert_int_eq(set(c.l, MANUAL, "fake:b", "0"), 0);      /* as asked: claimed only */
        ck_assert(change_owned_by(c.l, "fake:a", MANUAL));
        ck_assert(change_owned_by(c.l, "fake:b", MANUAL));
        ck_assert_ptr_null(change_original(c.l, "fake:b"));
        ck_assert_uint_eq(change_n_changed(c.l), 1);
        ck_assert_uint_eq(change_count_kind(c.l, CHANGE_OWNER_MANUAL), 2);
        change_set_init(&s, c.l, PLAN);
        ck_assert_int_eq(change_set_add(&s, "fake:b", "1", &e), -EBUSY);
        ck_assert_msg_has(e, "manual");
        change_set_done(&s);
        /* set back by hand: the journal forgets it, the claim stays */
        ck_assert_int_eq(set(c.l, MANUAL, "fake:a", "0"), 1);
        ck_assert(change_owned_by(c.l, "fake:a", MANUAL));
        ck_assert_ptr_null(change_original(c.l, "fake:a"));
        ck_assert_int_eq(set(c.l, MANUAL, "fake:a", "3"), 1);
        ck_assert_str_eq(change_original(c.l, "fake:a"), "0");
        ck_assert_int_eq(change_restore_all(c.l, &e), 1);
        ck_assert_uint_eq(change_count_kind(c.l, CHANGE_OWNER_MANUAL), 0);
        ck_assert_int_eq(set(c.l, PLAN, "fake:b", "1"), 1);
        change_layer_assert(c.l);
        change_test_close(&c);
}
END_TEST

/* A newer pin borrows a knob from an older one: its end gives it back at
 * the older pin's value; the older pin's end meanwhile leaves it to the
 * newer one, which then puts back the original. */
START_TEST(test_pins_borrow) {
        ChangeTest c;
        FakeTree *t;
        ErrorInfo e = {};

        world(&c, &t);
        ck_assert_int_eq(set(c.l, PIN(1), "fake:a", "1"), 1);
        ck_assert_int_eq(set(c.l, PIN(2), "fake:a", "2"), 1);
        ck_assert(change_owned_by(c.l, "fake:a", PIN(2)));
        ck_assert_int_eq(change_restore(c.l, PIN(2), &e), 1);
        ck_assert_str_eq(fake_get("a"), "1");
        ck_assert(change_owned_by(c.l, "fake:a", PIN(1)));
        ck_assert_int_eq(change_restore(c.l, PIN(1), &e), 1);
        ck_assert_str_eq(fake_get("a"), "0");

        ck_assert_int_eq(set(c.l, PIN(1), "fake:a", "1"), 1);
        ck_assert_int_eq(set(c.l, PIN(2), "fake:a", "2"), 1);
        ck_assert_int_eq(change_restore(c.l, PIN(1), &e), 0);
        ck_assert_str_eq(fake_get("a"), "2");
        ck_assert_int_eq(change_restore(c.l, PIN(2), &e), 1);
        ck_assert_str_eq(fake_get("a"), "0");
        ck_assert_uint_eq(change_n_changed(c.l), 0);
        /* consolidation may not take a pin's; a pin takes consolidation's */
        ck_assert_int_eq(set(c.l, PIN(3), "fake:b", "1"), 1);
        ck_assert_int_eq(set(c.l, CONSOLIDATION, "fake:b", "2"), -EBUSY);
        ck_assert_int_eq(set(c.l, CONSOLIDATION, "fake:c", "2"), 1);
        ck_assert_int_eq(set(c.l, PIN(3), "fake:c", "1"), 1);
        ck_assert(change_owned_by(c.l, "fake:c", PIN(3)));
        change_layer_assert(c.l);
        change_test_close(&c);
}
END_TEST

/* A calibration borrows the plan's and the administrator's knobs and gives
 * them back; what it journaled itself and could not put back becomes a
 * leftover. */
START_TEST(test_calibration_borrows) {
        ChangeTest c;
        FakeTree *t;
        ErrorInfo e = {};

        world(&c, &t);
        ck_assert_int_eq(set(c.l, PLAN, "fake:a", "1"), 1);
        ck_assert_int_eq(set(c.l, MANUAL, "fake:b", "1"), 1);
        ck_assert_int_eq(set(c.l, CALIBRATION, "fake:a", "2"), 1);
        ck_assert_int_eq(set(c.l, CALIBRATION, "fake:b", "2"), 1);
        ck_assert_int_eq(set(c.l, CALIBRATION, "fake:c", "2"), 1);
        ck_assert_int_eq(set(c.l, PIN(1), "fake:a", "3"), -EBUSY);
        ck_assert_int_eq(change_restore(c.l, CALIBRATION, &e), 3);
        ck_assert_str_eq(fake_get("a"), "1");
        ck_assert_str_eq(fake_get("b"), "1");
        ck_assert_str_eq(fake_get("c"), "0");
        ck_assert(change_owned_by(c.l, "fake:a", PLAN));
        ck_assert(change_owned_by(c.l, "fake:b", MANUAL));
        ck_assert_str_eq(change_original(c.l, "fake:a"), "0");

        ck_assert_int_eq(set(c.l, CALIBRATION, "fake:d", "2"), 1);
        fake_find("d")->fail_write = true;
        ck_assert_int_eq(change_restore(c.l, CALIBRATION, &e), -EIO);
        change_give_back(c.l, CALIBRATION);
        ck_assert_int_eq(change_owner_of(c.l, "fake:d").kind, CHANGE_OWNER_LEFTOVER);
        fake_find("d")->fail_write = false;
        ck_assert_int_eq(set(c.l, PLAN, "fake:d", "0"), 1);     /* the plan takes a leftover */
        ck_assert_ptr_null(change_find(c.l, "fake:d"));
        change_layer_assert(c.l);
        change_test_close(&c);
}
END_TEST

/* A pin's process exited: its knobs are forgotten, not put back. */
START_TEST(test_forget_tag) {
        ChangeTest c;
        FakeTree *t;
        ErrorInfo e = {};
        ChangeSet s;

        world(&c, &t);
        change_set_init(&s, c.l, PIN(1));
        s.tag = 42;
        ck_assert_int_eq(change_set_add(&s, "fake:a", "1", &e), 0);
        ck_assert_int_eq(change_set_add(&s, "fake:b", "1", &e), 0);
        ck_assert_int_eq(change_set_apply(&s, &e), 2);
        change_set_done(&s);
        ck_assert_int_eq(set(c.l, PIN(1), "fake:c", "1"), 1);
        change_forget_tag(c.l, PIN(1), 42);
        ck_assert_uint_eq(change_n_changed(c.l), 1);
        ck_assert_int_eq(change_restore_tag(c.l, PIN(1), 0, &e), 1);
        ck_assert_str_eq(fake_get("a"), "1");
        ck_assert_str_eq(fake_get("c"), "0");
        change_test_close(&c);
}
END_TEST

/* A gone knob: a set that allows it skips it (nothing to put back), one
 * that does not fails; a restore forgets it. */
START_TEST(test_gone) {
        ChangeTest c;
        FakeTree *t;
        ErrorInfo e = {};
        ChangeSet s;

        world(&c, &t);
        change_set_init(&s, c.l, PIN(1));
        s.gone_ok = true;
        ck_assert_int_eq(change_set_add(&s, "fake:a", "1", &e), 0);
        ck_assert_int_eq(change_set_add(&s, "fake:b", "1", &e), 0);
        fake_find("a")->missing = true;
        ck_assert_int_eq(change_set_apply(&s, &e), 2);
        change_set_done(&s);
        ck_assert_ptr_null(change_find(c.l, "fake:a"));
        ck_assert_str_eq(fake_get("b"), "1");
        ck_assert_int_eq(set(c.l, PLAN, "fake:nosuch", "1"), -ENOENT);
        fake_find("b")->missing = true;
        ck_assert_int_eq(change_restore_all(c.l, &e), 0);
        ck_assert_uint_eq(change_n_changed(c.l), 0);
        change_test_close(&c);
}
END_TEST

/* Journals of version 1 (records only) and 2 (forgets): what is live
 * replays, the first original wins, corrupt lines are skipped. */
START_TEST(test_replay_versions) {
        ChangeTest c;
        FakeTree *t;

        world(&c, &t);
        change_test_close(&c);
        fake_put("a", "5");
        fake_put("b", "5");
        fake_put("c", "5");
        ck_assert_int_eq(faketree_write(t->fd, "run/" RESTORE_JOURNAL_FILE,
                                        "# idlepolicyd restore journal v1 root=%s\n"
                                        "fake:a 1\nfake:a 2\nfake:b 1\nbogus 1\nfake:c BAD\n", t->path), 0);
        change_test_open_types(&c, t, fake_types, NULL);
        ck_assert_int_eq(change_layer_replay(c.l), 2);
        ck_assert_str_eq(fake_get("a"), "1");
        ck_assert_str_eq(fake_get("b"), "1");
        ck_assert_str_eq(fake_get("c"), "5");
        ck_assert_int_eq(faccessat(t->fd, "run/" RESTORE_JOURNAL_FILE, F_OK, 0), -1);
        change_test_close(&c);

        fake_put("a", "5");
        fake_put("b", "5");
        ck_assert_int_eq(faketree_write(t->fd, "run/" RESTORE_JOURNAL_FILE,
                                        "# idlepolicyd restore journal v2 root=%s\n"
                                        "fake:a 1\nfake:b 1\n-fake:a\nfake:a 3\n-fake:b\n", t->path), 0);
        change_test_open_types(&c, t, fake_types, NULL);
        ck_assert_int_eq(change_layer_replay(c.l), 1);
        ck_assert_str_eq(fake_get("a"), "3");
        ck_assert_str_eq(fake_get("b"), "5");
        change_test_close(&c);
}
END_TEST

/* Knobs kept by a replay are leftovers, in a file rewritten with them
 * only; the next start puts them back. */
START_TEST(test_replay_keeps_what_cannot_be_reached) {
        ChangeTest c;
        FakeTree *t;
        _cleanup_free_ char *text = NULL;

        world(&c, &t);
        ck_assert_int_eq(set(c.l, PLAN, "fake:a", "1"), 1);
        ck_assert_int_eq(set(c.l, PLAN, "fake:b", "1"), 1);
        change_test_close(&c);          /* as if killed */
        fake_find("a")->fail_write = true;
        change_test_open_types(&c, t, fake_types, NULL);
        ck_assert_int_eq(change_layer_replay(c.l), 2);
        ck_assert_str_eq(fake_get("b"), "0");
        ck_assert_int_eq(change_owner_of(c.l, "fake:a").kind, CHANGE_OWNER_LEFTOVER);
        text = journal_text(t);
        ck_assert_msg(strstr(text, "\nfake:a 0\n") && !strstr(text, "fake:b"), "%s", text);
        change_test_close(&c);
        fake_find("a")->fail_write = false;
        change_test_open_types(&c, t, fake_types, NULL);
        ck_assert_int_eq(change_layer_replay(c.l), 1);
        ck_assert_str_eq(fake_get("a"), "0");
        change_test_close(&c);
}
END_TEST

/* Thousands of changes back and forth: the file stays small (appended
 * forgets, rewritten when mostly dead), lookups stay right. */
START_TEST(test_journal_stays_small) {
        ChangeTest c;
        FakeTree *t;
        ErrorInfo e = {};
        struct stat st;

        world(&c, &t);
        for (unsigned i = 0; i < 5000; i++) {
                ck_assert_int_eq(set(c.l, PIN(1 + i % 7), "fake:a", i % 2 ? "1" : "2"), 1);
                ck_assert_int_eq(change_restore(c.l, PIN(1 + i % 7), &e), 1);
        }
        ck_assert_int_eq(set(c.l, PLAN, "fake:b", "1"), 1);
        ck_assert_int_eq(fstatat(t->fd, "run/" RESTORE_JOURNAL_FILE, &st, 0), 0);
        ck_assert_int_lt(st.st_size, 100 * 1024);
        ck_assert_uint_eq(change_n_changed(c.l), 1);
        ck_assert_uint_gt(change_layer_journal_bytes(c.l), 150 * 1024);
        change_layer_assert(c.l);
        change_test_close(&c);
        change_test_open_types(&c, t, fake_types, NULL);
        ck_assert_int_eq(change_layer_replay(c.l), 1);
        ck_assert_str_eq(fake_get("b"), "0");
        change_test_close(&c);
}
END_TEST

START_TEST(test_owner_names) {
        char buf[CHANGE_OWNER_TEXT_MAX];

        ck_assert_str_eq(change_owner_to_string(PIN(7), buf), "pin 7");
        ck_assert_str_eq(change_owner_to_string(PLAN, buf), "plan");
        ck_assert_str_eq(change_owner_to_string(CHANGE_OWNER(LEFTOVER), buf), "leftover");
        ck_assert_str_eq(change_owner_to_string(CHANGE_OWNER(NONE), buf), "invalid");
        ck_assert(change_owner_equal(PIN(3), PIN(3)));
        ck_assert(!change_owner_equal(PIN(3), PIN(4)));
        ck_assert_int_eq(change_owner_take(PLAN, MANUAL), CHANGE_TAKE_REFUSED);
        ck_assert_int_eq(change_owner_take(MANUAL, PLAN), CHANGE_TAKE_OVER);
        ck_assert_int_eq(change_owner_take(CONSOLIDATION, PIN(1)), CHANGE_TAKE_REFUSED);
        ck_assert_int_eq(change_owner_take(PIN(1), CONSOLIDATION), CHANGE_TAKE_OVER);
        ck_assert_int_eq(change_owner_take(PIN(2), PIN(1)), CHANGE_TAKE_BORROW);
        ck_assert_int_eq(change_owner_take(CALIBRATION, PIN(1)), CHANGE_TAKE_REFUSED);
        ck_assert_int_eq(change_owner_take(COMPANION, CHANGE_OWNER(LEFTOVER)), CHANGE_TAKE_OVER);
}
END_TEST

static Suite *change_suite(void) {
        Suite *s = suite_create("change");
        TCase *tc = unit_tcase(s, "owners");

        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_owner_names);
        tcase_add_test(tc, test_restore_is_per_owner);
        tcase_add_test(tc, test_failed_write_rolls_back);
        tcase_add_test(tc, test_first_original_and_order);
        tcase_add_test(tc, test_manual_claims);
        tcase_add_test(tc, test_pins_borrow);
        tcase_add_test(tc, test_calibration_borrows);
        tcase_add_test(tc, test_forget_tag);
        tcase_add_test(tc, test_gone);
        tc = unit_tcase(s, "journal");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_replay_versions);
        tcase_add_test(tc, test_replay_keeps_what_cannot_be_reached);
        tcase_add_test(tc, test_journal_stays_small);
        return s;
}

int main(void) {
        log_set_max_level(LOG_NOTICE);
        return unit_run(change_suite());
}
