/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The way back through the change layer (daemon/change/change-restore.c,
 * restore-journal.c) with the daemon's knob types on fake trees: what it
 * keeps when a knob's directory vanishes for a moment, what it never
 * writes, what it never logs, and that it neither leaks nor slows down
 * with its size. */
#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>

#include "fileio.h"
#include "change-test.h"
#include "knob-idle.h"
#include "log.h"
#include "unit.h"

#define DISABLE(cpu, state) "sys/devices/system/cpu/cpu" #cpu "/cpuidle/state" #state "/disable"

static void write_journal_file(const FakeTree *t, const char *body) {
        ck_assert_int_eq(faketree_write(t->fd, "run/" RESTORE_JOURNAL_FILE, "# idlepolicyd restore journal v1 root=%s\n%s",
                                        t->path, body), 0);
}

static unsigned count_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        unsigned n = 0;

        ck_assert_ptr_nonnull(d);
        while (readdir(d))
                n++;
        closedir(d);
        return n;
}

static void assert_knob(const FakeTree *t, const char *path, const char *want) {
        char buf[64];

        ck_assert_int_eq(fileio_read_string_at(t->fd, path, buf, sizeof(buf)), 0);
        ck_assert_msg(strcmp(buf, want) == 0, "%s is \"%s\", want \"%s\"", path, buf, want);
}

/* Changes path to value as the plan would. */
static void change_knob(ChangeLayer *l, const char *path, const char *value) {
        ck_assert_int_ge(change_test_set(l, CHANGE_OWNER(PLAN), path, value), 0);
}

/* Runs fn with stderr (the daemon's log) going to a file; returns what was
 * logged (free it). */
static char *capture_log(void (*fn)(void *), void *arg) {
        char path[] = "/tmp/journal-log-XXXXXX", *text = calloc(1, 1 << 20);
        int fd = mkstemp(path), saved = dup(STDERR_FILENO);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_ge(saved, 0);
        fflush(stderr);
        ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
        fn(arg);
        fflush(stderr);
        ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
        close(saved);
        ck_assert_ptr_nonnull(text);
        ck_assert_int_ge(pread(fd, text, (1 << 20) - 1, 0), 0);
        close(fd);
        unlink(path);
        return text;
}

/* ---- a governor switch while knobs are put back (issue 10, item 1) ---- */

/* Takes CPU 1's cpuidle directory away (as a governor switch does for a
 * moment) or brings it back. */
static void cpu1_cpuidle_away(int root_fd, bool away) {
        const char *here = "sys/devices/system/cpu/cpu1/cpuidle", *there = "sys/devices/system/cpu/cpu1/cpuidle.away";

        ck_assert_int_eq(renameat(root_fd, away ? here : there, root_fd, away ? there : here), 0);
}

typedef struct Switcher {
        int root_fd;
        useconds_t after_usec;
} Switcher;

/* Takes CPU 1's cpuidle directory away and brings it back after_usec later,
 * as a governor switch does (the disable bits survive). */
static void *switch_slowly(void *arg) {
        const Switcher *s = arg;

        usleep(s->after_usec);
        cpu1_cpuidle_away(s->root_fd, false);
        return NULL;
}

START_TEST(test_vanished_directory_is_waited_for) {
        FakeTree *t = unit_tree(NULL);
        ChangeTest c;
        ChangeLayer *j;

        change_test_open(&c, t);
        j = c.l;
        Switcher sw = { .root_fd = t->fd, .after_usec = 100 * 1000 };
        ErrorInfo e = {};
        pthread_t thread;

        change_knob(j, DISABLE(1, 1), "1");
        change_knob(j, DISABLE(0, 1), "1");
        /* CPU 1 is online, its states are being recreated. */
        cpu1_cpuidle_away(t->fd, true);
        ck_assert_int_eq(pthread_create(&thread, NULL, switch_slowly, &sw), 0);
        ck_assert_int_eq(change_restore_all(j, &e), 2);
        ck_assert_int_eq(pthread_join(thread, NULL), 0);
        assert_knob(t, DISABLE(0, 1), "0");
        assert_knob(t, DISABLE(1, 1), "0");
        change_test_close(&c);
}
END_TEST

START_TEST(test_vanished_directory_kept_until_back) {
        FakeTree *t = unit_tree(NULL);
        ChangeTest c;
        ChangeLayer *j;

        change_test_open(&c, t);
        j = c.l;
        ErrorInfo e = {};

        change_knob(j, DISABLE(1, 1), "1");
        cpu1_cpuidle_away(t->fd, true);
        /* Not back within the wait: a failure, and the original is kept ... */
        ck_assert_int_eq(change_restore_all(j, &e), -EIO);
        ck_assert_msg_has(e, DISABLE(1, 1));
        ck_assert_msg_has(e, "directory is missing");
        ck_assert_uint_eq(change_n_changed(j), 1);
        ck_assert_str_eq(change_original(j, DISABLE(1, 1)), "0");
        /* ... also when the knob comes back holding the daemon's value: the
         * first original wins, a new record of "1" changes nothing ... */
        cpu1_cpuidle_away(t->fd, false);
        ck_assert_int_eq(change_test_set(j, CHANGE_OWNER(PLAN), DISABLE(1, 1), "1"), 0);
        ck_assert_str_eq(change_original(j, DISABLE(1, 1)), "0");
        /* ... and put back once it is. */
        ck_assert_int_eq(change_restore_all(j, &e), 1);
        assert_knob(t, DISABLE(1, 1), "0");
        change_test_close(&c);
}
END_TEST

/* ---- companion mode: a wteo tolerance whose file left with the governor ---- */

#define TOLERANCE(cpu) "sys/devices/system/cpu/cpu" #cpu "/wteo/tolerance"

static FakeTree *wteo_tree(void) {
        FakeTreeOptions o;

        faketree_options_init(&o);
        o.driver = "intel_idle";
        o.governor = "wteo";
        o.wteo = true;
        return unit_tree(&o);
}

/* Switched away: kept (not a failure), the parameter still put back;
 * wteo back: the kept value (the kernel's) is put back then. */
START_TEST(test_wteo_tolerance_kept_until_back) {
        FakeTree *t = wteo_tree();
        ChangeTest c;
        ChangeLayer *j;

        change_test_open(&c, t);
        j = c.l;
        ErrorInfo e = {};

        change_knob(j, "sys/module/wteo/parameters/learn_shift", "9");
        change_knob(j, TOLERANCE(1), "51");
        ck_assert_int_eq(faketree_switch_governor(t->fd, "menu"), 0);
        ck_assert_int_eq(change_restore_all(j, &e), 1);
        assert_knob(t, "sys/module/wteo/parameters/learn_shift", "4");
        ck_assert_uint_eq(change_n_changed(j), 1);
        ck_assert_str_eq(change_original(j, TOLERANCE(1)), "102");
        ck_assert_int_eq(faketree_switch_governor(t->fd, "wteo"), 0);
        assert_knob(t, TOLERANCE(1), "51");
        ck_assert_int_eq(change_restore_all(j, &e), 1);
        assert_knob(t, TOLERANCE(1), "102");
        ck_assert_uint_eq(change_n_changed(j), 0);
        change_test_close(&c);
}
END_TEST

/* The governor switched back to wteo by the same restore (journaled after
 * the tolerance): the tolerance's group is being made, waited for. */
static void *wteo_sync_later(void *arg) {
        usleep(100 * 1000);
        ck_assert_int_ge(faketree_wteo_sync(*(int *) arg), 0);
        return NULL;
}

START_TEST(test_wteo_tolerance_waited_for_under_wteo) {
        FakeTree *t = wteo_tree();
        ChangeTest c;
        ChangeLayer *j;

        change_test_open(&c, t);
        j = c.l;
        ErrorInfo e = {};
        pthread_t thread;

        change_knob(j, TOLERANCE(0), "51");
        ck_assert_int_eq(faketree_switch_governor(t->fd, "menu"), 0);
        /* the governor says wteo, its groups are not there yet */
        ck_assert_int_eq(faketree_write(t->fd, "sys/devices/system/cpu/cpuidle/current_governor", "wteo\n"), 0);
        ck_assert_int_eq(pthread_create(&thread, NULL, wteo_sync_later, &t->fd), 0);
        ck_assert_int_eq(change_restore_all(j, &e), 1);
        ck_assert_int_eq(pthread_join(thread, NULL), 0);
        assert_knob(t, TOLERANCE(0), "102");
        change_test_close(&c);
}
END_TEST

START_TEST(test_offline_cpu_forgotten) {
        FakeTree *t = unit_tree(NULL);
        ChangeTest c;
        ChangeLayer *j;

        change_test_open(&c, t);
        j = c.l;
        ErrorInfo e = {};

        change_knob(j, DISABLE(1, 1), "1");
        ck_assert_int_eq(faketree_set_offline(t->fd, 1), 0);
        /* Really gone: no wait, forgotten (the kernel resets it). */
        ck_assert_int_eq(change_restore_all(j, &e), 0);
        ck_assert_uint_eq(change_n_changed(j), 0);
        change_test_close(&c);
}
END_TEST

/* A whole faketree_switch_governor() (rename, copy, remove) racing restores:
 * every original ends up back. */
typedef struct Storm {
        int root_fd;
        volatile bool stop;
        unsigned switches;
} Storm;

static void *switch_storm(void *arg) {
        Storm *s = arg;

        while (!s->stop) {
                ck_assert_int_eq(faketree_switch_governor(s->root_fd, s->switches % 2 ? "menu" : "haltpoll"), 0);
                s->switches++;
        }
        return NULL;
}

START_TEST(test_restore_during_switch_storm) {
        FakeTreeOptions o = unit_options(4, 4);
        FakeTree *t = unit_tree(&o);
        Storm storm = { .root_fd = t->fd };
        pthread_t thread;

        ck_assert_int_eq(pthread_create(&thread, NULL, switch_storm, &storm), 0);
        for (unsigned round = 0; round < 40; round++) {
                ChangeTest c;
                ErrorInfo e = {};
                char path[KNOB_PATH_MAX];
                int r;

                change_test_open(&c, t);
                for (unsigned cpu = 0; cpu < 4; cpu++)
                        for (unsigned k = 1; k < 4; k++) {
                                /* Only while present: a set reads before it journals. */
                                (void) change_test_set(c.l, CHANGE_OWNER(PLAN), knob_state_disable_path(cpu, k, path), "1");
                        }
                r = change_restore_all(c.l, &e);
                ck_assert_msg(r >= 0, "round %u: %s", round, e.message);
                change_test_close(&c);
        }
        storm.stop = true;
        ck_assert_int_eq(pthread_join(thread, NULL), 0);
        for (unsigned cpu = 0; cpu < 4; cpu++)
                for (unsigned k = 0; k < 4; k++) {
                        char path[KNOB_PATH_MAX];
                        assert_knob(t, knob_state_disable_path(cpu, k, path), "0");
                }
        ck_assert_uint_gt(storm.switches, 0);
}
END_TEST

/* ---- what is never written, never logged, never leaked ---- */

START_TEST(test_governor_not_offered_never_written) {
        FakeTree *t = unit_tree(NULL);
        ChangeTest c;
        ChangeLayer *j;

        change_test_open(&c, t);
        j = c.l;
        ErrorInfo e = {};

        write_journal_file(t, SYSFS_CPUIDLE_GOVERNOR " ../../../etc/passwd\n" SYSFS_CPUIDLE_GOVERNOR " menu\n");
        ck_assert_int_eq(faketree_write(t->fd, SYSFS_CPUIDLE_GOVERNOR, "ladder\n"), 0);
        ck_assert_int_eq(change_layer_replay(j), 1);
        assert_knob(t, SYSFS_CPUIDLE_GOVERNOR, "ladder");
        change_test_close(&c);

        change_test_open(&c, t);
        j = c.l;
        write_journal_file(t, SYSFS_CPUIDLE_GOVERNOR " menu\n");
        ck_assert_int_eq(change_layer_replay(j), 1);
        assert_knob(t, SYSFS_CPUIDLE_GOVERNOR, "menu");
        ck_assert_int_eq(change_restore_all(j, &e), 0);
        change_test_close(&c);
}
END_TEST

static void replay_secret(void *arg) {
        const FakeTree *t = arg;
        ChangeTest c;
        ChangeLayer *j;

        change_test_open(&c, t);
        j = c.l;

        ck_assert_int_eq(change_layer_replay(j), 1);
        change_test_close(&c);
}

START_TEST(test_corrupt_lines_logged_without_content) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_free_ char *log = NULL;

        write_journal_file(t, "password=SECRET-TOKEN-1234\n"
                              DISABLE(0, 1) " 0\n"
                              "sys/devices/system/cpu/cpu0/cpuidle/state1/name SECRET-TOKEN-1234\n"
                              DISABLE(0, 0) " SECRET\x01TOKEN\n"
                              DISABLE(1, 1) " SECRET-TOKEN-1234");
        log = capture_log(replay_secret, t);
        ck_assert_msg(!strstr(log, "SECRET"), "the log quotes the journal: %s", log);
        ck_assert_msg(strstr(log, RESTORE_JOURNAL_FILE ":2: not \"KEY VALUE\""), "%s", log);
        ck_assert_msg(strstr(log, RESTORE_JOURNAL_FILE ":4: not a knob the daemon writes"), "%s", log);
        ck_assert_msg(strstr(log, RESTORE_JOURNAL_FILE ":5: not a valid value for its knob"), "%s", log);
        ck_assert_msg(strstr(log, RESTORE_JOURNAL_FILE ":6: torn write"), "%s", log);
}
END_TEST

typedef struct Refusal {
        const FakeTree *t;
        int want;                     /* change_layer_replay()'s result */
} Refusal;

static void replay_refused(void *arg) {
        const Refusal *x = arg;
        ChangeTest c;
        ChangeLayer *j;

        change_test_open(&c, x->t);
        j = c.l;

        ck_assert_int_eq(change_layer_replay(j), x->want);
        ck_assert_uint_eq(change_n_changed(j), 0);
        change_test_close(&c);
}

/* A journal that is a symbolic link, a FIFO or not the daemon's own is never
 * read (no hang, nothing of it logged) and is moved aside. */
START_TEST(test_untrusted_journal_refused) {
        static const char *const why[] = { "a symbolic link", "not a regular file", "not owned by" };
        FakeTree *t = unit_tree(NULL);
        Refusal x = { .t = t, .want = 0 };

        ck_assert_int_eq(faketree_write(t->fd, "secret", "# idlepolicyd restore journal v1 root=%s\n"
                                        "SECRET-TOKEN-1234 " DISABLE(0, 1) " 1\n", t->path), 0);
        ck_assert_int_eq(faketree_write(t->fd, DISABLE(0, 1), "1\n"), 0);
        for (unsigned i = 0; i < 3; i++) {
                _cleanup_free_ char *log = NULL;
                char target[600];

                ck_assert_int_eq(mkdirat(t->fd, "run", 0755) < 0 && errno != EEXIST, 0);
                (void) unlinkat(t->fd, "run/" RESTORE_JOURNAL_FILE, 0);
                if (i == 0) {
                        snprintf(target, sizeof(target), "%s/secret", t->path);
                        ck_assert_int_eq(symlinkat(target, t->fd, "run/" RESTORE_JOURNAL_FILE), 0);
                } else if (i == 1)
                        ck_assert_int_eq(mkfifoat(t->fd, "run/" RESTORE_JOURNAL_FILE, 0600), 0);
                else {
                        write_journal_file(t, DISABLE(0, 1) " 0\n");
                        ck_assert_int_eq(fchownat(t->fd, "run/" RESTORE_JOURNAL_FILE, 65534, 65534, 0), 0);
                }
                log = capture_log(replay_refused, &x);
                ck_assert_msg(!strstr(log, "SECRET"), "%s", log);
                ck_assert_msg(strstr(log, why[i]), "%s lacks \"%s\"", log, why[i]);
                ck_assert_int_eq(faccessat(t->fd, "run/" RESTORE_JOURNAL_FILE, F_OK, AT_SYMLINK_NOFOLLOW), -1);
                ck_assert_int_eq(faccessat(t->fd, "run/" RESTORE_JOURNAL_REJECTED_FILE, F_OK, AT_SYMLINK_NOFOLLOW), 0);
                /* Nothing of it was acted on. */
                assert_knob(t, DISABLE(0, 1), "1");
        }
}
END_TEST

START_TEST(test_rewrite_does_not_leak_fds) {
        FakeTree *t = unit_tree(NULL);
        ChangeTest c;
        ChangeLayer *j;

        change_test_open(&c, t);
        j = c.l;
        unsigned before;

        /* One knob that cannot be written back (a directory where the file
         * was), so every restore keeps an entry and rewrites the file. */
        change_knob(j, DISABLE(0, 1), "1");
        ck_assert_int_eq(unlinkat(t->fd, DISABLE(0, 1), 0), 0);
        ck_assert_int_eq(mkdirat(t->fd, DISABLE(0, 1), 0755), 0);
        before = count_fds();
        for (unsigned i = 0; i < 200; i++) {
                ErrorInfo e = {};

                change_knob(j, DISABLE(1, 1), "1");
                ck_assert_int_eq(change_restore_all(j, &e), -EIO);
        }
        ck_assert_uint_le(count_fds(), before + 1);
        change_test_close(&c);
}
END_TEST

/* ---- size: linear, bounded ---- */

START_TEST(test_big_journal) {
        FakeTree *t = unit_tree(NULL);
        size_t cap = 64 * 200000, len = 0;
        char *body = malloc(cap);
        ChangeTest c;
        ChangeLayer *j;

        ck_assert_ptr_nonnull(body);
        /* 200 000 knobs of CPUs this tree does not have, one repeated. */
        for (unsigned i = 0; i < 200000; i++)
                len += (size_t) snprintf(body + len, cap - len, "sys/devices/system/cpu/cpu%u/cpuidle/state%u/disable 0\n",
                                         100 + i / 10, i % 10);
        len += (size_t) snprintf(body + len, cap - len, "sys/devices/system/cpu/cpu100/cpuidle/state0/disable 1\n");
        write_journal_file(t, body);
        free(body);
        change_test_open(&c, t);
        j = c.l;
        /* The first 100 000 are taken, and the first original of a knob wins. */
        ck_assert_int_eq(change_layer_replay(j), 100000);
        ck_assert_uint_eq(change_n_changed(j), 0);      /* CPUs not present: nothing to keep */
        ck_assert_ptr_null(change_original(j, "sys/devices/system/cpu/cpu100/cpuidle/state0/disable"));
        change_test_close(&c);
}
END_TEST

static Suite *journal_suite(void) {
        Suite *s = suite_create("journal");
        TCase *tc = unit_tcase(s, "vanish");

        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_vanished_directory_is_waited_for);
        tcase_add_test(tc, test_vanished_directory_kept_until_back);
        tcase_add_test(tc, test_offline_cpu_forgotten);
        tcase_add_test(tc, test_wteo_tolerance_kept_until_back);
        tcase_add_test(tc, test_wteo_tolerance_waited_for_under_wteo);
        tcase_add_test(tc, test_restore_during_switch_storm);
        tc = unit_tcase(s, "attacks");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_governor_not_offered_never_written);
        tcase_add_test(tc, test_corrupt_lines_logged_without_content);
        tcase_add_test(tc, test_untrusted_journal_refused);
        tcase_add_test(tc, test_rewrite_does_not_leak_fds);
        tcase_add_test(tc, test_big_journal);
        return s;
}

int main(void) {
        log_set_max_level(LOG_NOTICE);
        return unit_run(journal_suite());
}
