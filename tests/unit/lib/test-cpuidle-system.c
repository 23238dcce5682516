/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The system-wide cpuidle files: the one-shot cpuidle_system_load() and the
 * reader that keeps them open (cpuidle-system.c). */
#include <errno.h>

#include "cpuidle.h"
#include "unit.h"

#define CPUIDLE_DIR "sys/devices/system/cpu/cpuidle"
#define HALTPOLL_DIR "sys/module/haltpoll/parameters"
#define POLL_NS HALTPOLL_DIR "/guest_halt_poll_ns"
#define GROW HALTPOLL_DIR "/guest_halt_poll_grow"

/* Files a full read of the default tree reads: governor, guest_halt_poll_ns,
 * driver, available_governors and the other four parameters. */
#define FULL_FILES 8u
#define FAST_FILES 2u

static CpuidleSystem system_ok(int fd) {
        CpuidleSystem s;
        ErrorInfo e = {};

        ck_assert_msg(cpuidle_system_load(fd, &s, &e) == 0, "cpuidle_system_load: %s", e.message);
        return s;
}

static void system_fails(int fd, int error, const char *needle) {
        CpuidleSystem s = { .driver = "untouched" };
        ErrorInfo e = {};

        ck_assert_int_eq(cpuidle_system_load(fd, &s, &e), error);
        ck_assert_str_eq(s.driver, "untouched");
        ck_assert_msg_has(e, needle);
}

static CpuidleSystemReader *reader_ok(int fd, unsigned full_every) {
        CpuidleSystemReader *r = NULL;
        ErrorInfo e = {};

        ck_assert_msg(cpuidle_system_reader_new(fd, full_every, &r, &e) == 0, "cpuidle_system_reader_new: %s", e.message);
        return r;
}

/* Reads with r; checks the result (1 changed, 0 not) and the number of
 * files read. */
static CpuidleSystem reader_read(CpuidleSystemReader *r, int changed, unsigned files) {
        CpuidleSystem s;
        ErrorInfo e = {};
        int k = cpuidle_system_reader_read(r, &s, &e);

        ck_assert_msg(k >= 0, "cpuidle_system_reader_read: %s", e.message);
        ck_assert_int_eq(k, changed);
        ck_assert_uint_eq(cpuidle_system_reader_files_read(r), files);
        return s;
}

static void reader_fails(CpuidleSystemReader *r, int error, const char *needle) {
        CpuidleSystem s = { .driver = "untouched" };
        ErrorInfo e = {};

        ck_assert_int_eq(cpuidle_system_reader_read(r, &s, &e), error);
        ck_assert_str_eq(s.driver, "untouched");
        ck_assert_msg_has(e, needle);
}

/* Asserts that what the reader shows is what a fresh load shows. */
static void same_as_load(int fd, const CpuidleSystem *s) {
        CpuidleSystem l = system_ok(fd);

        ck_assert_str_eq(s->driver, l.driver);
        ck_assert_str_eq(s->governor, l.governor);
        ck_assert_int_eq(s->governor_writable, l.governor_writable);
        ck_assert_uint_eq(s->n_governors, l.n_governors);
        for (unsigned i = 0; i < l.n_governors; i++)
                ck_assert_str_eq(s->governors[i], l.governors[i]);
        ck_assert_int_eq(s->haltpoll.present, l.haltpoll.present);
        ck_assert_uint_eq(s->haltpoll.poll_ns, l.haltpoll.poll_ns);
        ck_assert_uint_eq(s->haltpoll.grow, l.haltpoll.grow);
        ck_assert_uint_eq(s->haltpoll.grow_start, l.haltpoll.grow_start);
        ck_assert_uint_eq(s->haltpoll.shrink, l.haltpoll.shrink);
        ck_assert_int_eq(s->haltpoll.allow_shrink, l.haltpoll.allow_shrink);
}

/* ---- one-shot load ----------------------------------------------------- */

START_TEST(test_system_default) {
        FakeTree *t = unit_tree(NULL);
        CpuidleSystem s = system_ok(t->fd);

        ck_assert_str_eq(s.driver, "haltpoll");
        ck_assert_str_eq(s.governor, "haltpoll");
        ck_assert(s.governor_writable);
        ck_assert_uint_eq(s.n_governors, 3);        /* "ladder menu haltpoll \n" */
        ck_assert_str_eq(s.governors[0], "ladder");
        ck_assert_str_eq(s.governors[1], "menu");
        ck_assert_str_eq(s.governors[2], "haltpoll");
        ck_assert(cpuidle_system_has_governor(&s, "menu"));
        ck_assert(!cpuidle_system_has_governor(&s, "teo"));
        ck_assert(!cpuidle_system_has_governor(&s, "men"));
        ck_assert(s.haltpoll.present);
        ck_assert_uint_eq(s.haltpoll.poll_ns, 200000);
        ck_assert_uint_eq(s.haltpoll.grow, 2);
        ck_assert_uint_eq(s.haltpoll.grow_start, 50000);
        ck_assert_uint_eq(s.haltpoll.shrink, 2);
        ck_assert(s.haltpoll.allow_shrink);
}
END_TEST

START_TEST(test_system_variants) {
        FakeTreeOptions o = unit_options(2, 0);
        o.driver = "none";
        o.haltpoll = false;
        o.governor = "menu";
        o.governors = "menu teo";
        FakeTree *t = unit_tree(&o);
        CpuidleSystem s = system_ok(t->fd);

        ck_assert_str_eq(s.driver, "");
        ck_assert_str_eq(s.governor, "menu");
        ck_assert_uint_eq(s.n_governors, 2);
        ck_assert(!s.haltpoll.present);
        ck_assert_uint_eq(s.haltpoll.poll_ns, 0);

        /* before 5.8: only current_governor_ro, no list */
        ck_assert_int_eq(faketree_rm_rf(t->fd, CPUIDLE_DIR "/current_governor"), 0);
        ck_assert_int_eq(faketree_rm_rf(t->fd, CPUIDLE_DIR "/available_governors"), 0);
        ck_assert_int_eq(faketree_write(t->fd, CPUIDLE_DIR "/current_governor_ro", "ladder\n"), 0);
        s = system_ok(t->fd);
        ck_assert_str_eq(s.governor, "ladder");
        ck_assert(!s.governor_writable);
        ck_assert_uint_eq(s.n_governors, 0);

        ck_assert_int_eq(faketree_rm_rf(t->fd, CPUIDLE_DIR), 0);
        system_fails(t->fd, -ENOENT, CPUIDLE_DIR);
}
END_TEST

START_TEST(test_system_bad) {
        FakeTree *t = unit_tree(NULL);
        const char *p = HALTPOLL_DIR "/guest_halt_poll_allow_shrink";
        CpuidleSystem s;

        ck_assert_int_eq(faketree_write(t->fd, p, "N\n"), 0);
        s = system_ok(t->fd);
        ck_assert(!s.haltpoll.allow_shrink);
        ck_assert_int_eq(faketree_write(t->fd, p, "maybe\n"), 0);
        system_fails(t->fd, -EBADMSG, "guest_halt_poll_allow_shrink: invalid value \"maybe\"");
        ck_assert_int_eq(faketree_write(t->fd, p, "Y\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, POLL_NS, "-5\n"), 0);
        system_fails(t->fd, -EBADMSG, "guest_halt_poll_ns: invalid value \"-5\"");
        ck_assert_int_eq(faketree_write(t->fd, POLL_NS, "0\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, CPUIDLE_DIR "/available_governors",
                                        "a b c d e f g h i j k l m n o p q \n"), 0);
        system_fails(t->fd, -EBADMSG, "available_governors: more than 16 governors");
        ck_assert_int_eq(faketree_write(t->fd, CPUIDLE_DIR "/available_governors",
                                        "menu averyveryveryverylonggovernorname \n"), 0);
        system_fails(t->fd, -EBADMSG, "too long");
        ck_assert_int_eq(faketree_write(t->fd, CPUIDLE_DIR "/available_governors", "menu\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, CPUIDLE_DIR "/current_governor", "%0100d\n", 0), 0);
        system_fails(t->fd, -EBADMSG, "current_governor: value too long");
        /* 63 bytes with the newline fit governor[64], 64 do not */
        ck_assert_int_eq(faketree_write(t->fd, CPUIDLE_DIR "/current_governor", "%062d\n", 0), 0);
        ck_assert_uint_eq(strlen(system_ok(t->fd).governor), 62);
        ck_assert_int_eq(faketree_write(t->fd, CPUIDLE_DIR "/current_governor", "%063d\n", 0), 0);
        system_fails(t->fd, -EBADMSG, "current_governor: value too long");
}
END_TEST

/* ---- the reader ---------------------------------------------------------- */

START_TEST(test_reader_args) {
        CpuidleSystemReader *r = NULL;
        ErrorInfo e = {};

        ck_assert_int_eq(cpuidle_system_reader_new(AT_FDCWD, 0, &r, &e), -EINVAL);
        ck_assert_ptr_null(r);
        ck_assert_ptr_null(cpuidle_system_reader_free(NULL));
        r = reader_ok(AT_FDCWD, 1);
        ck_assert_uint_eq(cpuidle_system_reader_files_read(r), 0);
        ck_assert_ptr_null(cpuidle_system_reader_free(r));
}
END_TEST

/* The first read is full and changed, the next ones read the two fast files
 * and see no change; every full_every-th is full again. */
START_TEST(test_reader_cadence) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_system_reader_ CpuidleSystemReader *r = reader_ok(t->fd, 3);
        CpuidleSystem s = reader_read(r, 1, FULL_FILES);

        same_as_load(t->fd, &s);
        reader_read(r, 0, FAST_FILES);
        reader_read(r, 0, FAST_FILES);
        reader_read(r, 0, FULL_FILES);
        reader_read(r, 0, FAST_FILES);
        cpuidle_system_reader_request_full(r);
        reader_read(r, 0, FULL_FILES);
        reader_read(r, 0, FAST_FILES);

        /* full_every 1: every read is full */
        cpuidle_system_reader_free(r);
        r = reader_ok(t->fd, 1);
        reader_read(r, 1, FULL_FILES);
        reader_read(r, 0, FULL_FILES);
}
END_TEST

/* The governor and guest_halt_poll_ns are seen at once, and a change of
 * either makes the read full. */
START_TEST(test_reader_fast_change) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_system_reader_ CpuidleSystemReader *r = reader_ok(t->fd, 1000);
        CpuidleSystem s;

        reader_read(r, 1, FULL_FILES);
        reader_read(r, 0, FAST_FILES);
        ck_assert_int_eq(faketree_write(t->fd, CPUIDLE_DIR "/current_governor", "menu\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, CPUIDLE_DIR "/available_governors", "menu teo \n"), 0);
        s = reader_read(r, 1, FULL_FILES);
        ck_assert_str_eq(s.governor, "menu");
        ck_assert_uint_eq(s.n_governors, 2);        /* read with it */
        same_as_load(t->fd, &s);
        reader_read(r, 0, FAST_FILES);

        ck_assert_int_eq(faketree_write(t->fd, POLL_NS, "150000\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, GROW, "4\n"), 0);
        s = reader_read(r, 1, FULL_FILES);
        ck_assert_uint_eq(s.haltpoll.poll_ns, 150000);
        ck_assert_uint_eq(s.haltpoll.grow, 4);
        same_as_load(t->fd, &s);
        reader_read(r, 0, FAST_FILES);
}
END_TEST

/* The driver, the list and the other parameters are carried over by
 * partial reads and seen at the next full one. */
START_TEST(test_reader_slow_change) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_system_reader_ CpuidleSystemReader *r = reader_ok(t->fd, 3);
        CpuidleSystem s;

        reader_read(r, 1, FULL_FILES);
        ck_assert_int_eq(faketree_write(t->fd, CPUIDLE_DIR "/current_driver", "none\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, HALTPOLL_DIR "/guest_halt_poll_allow_shrink", "N\n"), 0);
        s = reader_read(r, 0, FAST_FILES);
        ck_assert_str_eq(s.driver, "haltpoll");
        ck_assert(s.haltpoll.allow_shrink);
        ck_assert_uint_eq(s.n_governors, 3);
        reader_read(r, 0, FAST_FILES);
        s = reader_read(r, 1, FULL_FILES);
        ck_assert_str_eq(s.driver, "");
        ck_assert(!s.haltpoll.allow_shrink);
        same_as_load(t->fd, &s);

        /* request_full(): at the next read */
        ck_assert_int_eq(faketree_write(t->fd, HALTPOLL_DIR "/guest_halt_poll_shrink", "3\n"), 0);
        cpuidle_system_reader_request_full(r);
        s = reader_read(r, 1, FULL_FILES);
        ck_assert_uint_eq(s.haltpoll.shrink, 3);
}
END_TEST

/* Old kernels: current_governor_ro only, no available_governors; no
 * haltpoll module.  The reader shows what the load shows. */
START_TEST(test_reader_missing_files) {
        FakeTreeOptions o = unit_options(2, 0);
        o.haltpoll = false;
        FakeTree *t = unit_tree(&o);
        _cleanup_cpuidle_system_reader_ CpuidleSystemReader *r = NULL;
        CpuidleSystem s;

        ck_assert_int_eq(faketree_rm_rf(t->fd, CPUIDLE_DIR "/current_governor"), 0);
        ck_assert_int_eq(faketree_rm_rf(t->fd, CPUIDLE_DIR "/available_governors"), 0);
        r = reader_ok(t->fd, 2);
        s = reader_read(r, 1, 2);                   /* current_governor_ro, current_driver */
        ck_assert_str_eq(s.governor, "haltpoll");
        ck_assert(!s.governor_writable);
        ck_assert_uint_eq(s.n_governors, 0);
        ck_assert(!s.haltpoll.present);
        same_as_load(t->fd, &s);
        reader_read(r, 0, 1);

        /* the module is loaded: noticed at the next full read */
        ck_assert_int_eq(faketree_write(t->fd, GROW, "2\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, POLL_NS, "0\n"), 0);
        s = reader_read(r, 1, 4);
        ck_assert(s.haltpoll.present);
        ck_assert_uint_eq(s.haltpoll.grow, 2);
        same_as_load(t->fd, &s);
        reader_read(r, 0, 2);
}
END_TEST

/* A file removed between two reads (a test tree: the old fd stays
 * readable) is noticed at the next full read, as missing. */
START_TEST(test_reader_file_vanishes) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_system_reader_ CpuidleSystemReader *r = reader_ok(t->fd, 2);
        CpuidleSystem s;

        reader_read(r, 1, FULL_FILES);
        ck_assert_int_eq(faketree_rm_rf(t->fd, GROW), 0);
        reader_read(r, 0, FAST_FILES);
        s = reader_read(r, 1, FULL_FILES - 1);
        ck_assert_uint_eq(s.haltpoll.grow, 0);
        same_as_load(t->fd, &s);

        /* a fast one, then the whole module */
        ck_assert_int_eq(faketree_rm_rf(t->fd, POLL_NS), 0);
        reader_read(r, 0, FAST_FILES);
        s = reader_read(r, 1, FULL_FILES - 2);
        ck_assert(s.haltpoll.present);
        ck_assert_uint_eq(s.haltpoll.poll_ns, 0);
        ck_assert_int_eq(faketree_rm_rf(t->fd, "sys/module/haltpoll"), 0);
        reader_read(r, 0, 1);
        s = reader_read(r, 1, 3);
        ck_assert(!s.haltpoll.present);
        same_as_load(t->fd, &s);

        /* and back, rewritten: the new files are read */
        ck_assert_int_eq(faketree_write(t->fd, POLL_NS, "7\n"), 0);
        reader_read(r, 0, 1);
        s = reader_read(r, 1, 4);
        ck_assert_uint_eq(s.haltpoll.poll_ns, 7);
}
END_TEST

/* No cpuidle directory: -ENOENT without reading anything, looked for again
 * at full reads. */
START_TEST(test_reader_no_cpuidle) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_system_reader_ CpuidleSystemReader *r = reader_ok(t->fd, 2);
        CpuidleSystem s;

        ck_assert_int_eq(faketree_rm_rf(t->fd, CPUIDLE_DIR), 0);
        reader_fails(r, -ENOENT, CPUIDLE_DIR);
        ck_assert_uint_eq(cpuidle_system_reader_files_read(r), 0);
        ck_assert_int_eq(faketree_write(t->fd, CPUIDLE_DIR "/current_governor", "menu\n"), 0);
        reader_fails(r, -ENOENT, CPUIDLE_DIR);      /* partial: not looked for */
        ck_assert_uint_eq(cpuidle_system_reader_files_read(r), 0);
        s = reader_read(r, 1, 6);                   /* no driver, no list */
        ck_assert_str_eq(s.governor, "menu");
        ck_assert_str_eq(s.driver, "");
        same_as_load(t->fd, &s);

        /* removed under the reader: noticed at the next full read */
        ck_assert_int_eq(faketree_rm_rf(t->fd, CPUIDLE_DIR), 0);
        reader_read(r, 0, FAST_FILES);
        reader_fails(r, -ENOENT, CPUIDLE_DIR);
}
END_TEST

/* Garbage fails the read that reads the file; the read after a failure is
 * full. */
START_TEST(test_reader_garbage) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_system_reader_ CpuidleSystemReader *r = reader_ok(t->fd, 1000);
        CpuidleSystem s;

        reader_read(r, 1, FULL_FILES);
        ck_assert_int_eq(faketree_write(t->fd, GROW, "x\n"), 0);
        reader_read(r, 0, FAST_FILES);               /* not read */
        cpuidle_system_reader_request_full(r);
        reader_fails(r, -EBADMSG, "guest_halt_poll_grow: invalid value \"x\"");
        ck_assert_int_eq(faketree_write(t->fd, GROW, "2\n"), 0);
        reader_read(r, 0, FULL_FILES);
        reader_read(r, 0, FAST_FILES);

        ck_assert_int_eq(faketree_write(t->fd, POLL_NS, "-1\n"), 0);
        reader_fails(r, -EBADMSG, "guest_halt_poll_ns: invalid value \"-1\"");
        ck_assert_int_eq(faketree_write(t->fd, POLL_NS, "5\n"), 0);
        s = reader_read(r, 1, FULL_FILES);
        ck_assert_uint_eq(s.haltpoll.poll_ns, 5);
}
END_TEST

int main(void) {
        Suite *s = suite_create("cpuidle-system");
        TCase *load = unit_tcase(s, "load");
        TCase *reader = unit_tcase(s, "reader");

        tcase_add_test(load, test_system_default);
        tcase_add_test(load, test_system_variants);
        tcase_add_test(load, test_system_bad);
        tcase_add_test(reader, test_reader_args);
        tcase_add_test(reader, test_reader_cadence);
        tcase_add_test(reader, test_reader_fast_change);
        tcase_add_test(reader, test_reader_slow_change);
        tcase_add_test(reader, test_reader_missing_files);
        tcase_add_test(reader, test_reader_file_vanishes);
        tcase_add_test(reader, test_reader_no_cpuidle);
        tcase_add_test(reader, test_reader_garbage);
        return unit_run(s);
}
