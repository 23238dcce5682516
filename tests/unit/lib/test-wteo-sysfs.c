/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The wteo governor's files (wteo-sysfs.c) and its detection in the
 * system-wide cpuidle read (cpuidle-system.c), on fake trees. */
#include <errno.h>
#include <sys/stat.h>

#include "cpuidle.h"
#include "unit.h"
#include "wteo-sysfs.h"

typedef struct BadMatrix {
        const char *text;
        unsigned n;
        const char *needle;
} BadMatrix;

static const BadMatrix bad_matrices[] = {
        { "614 410\n410 614\n410 614\n", 2, "more than 2 lines" },
        { "614 410\n", 2, "1 lines, expected 2" },
        { "", 2, "0 lines, expected 2" },
        { "614 410\n1024\n", 2, "line 2: 1 numbers, expected 2" },
        { "614 205 205\n410 614\n", 2, "line 1: 3 numbers, expected 2" },
        { "614 410\n410 x\n", 2, "line 2: not a list of numbers" },
        { "614 410\n410 -614\n", 2, "line 2: not a list of numbers" },
        { "614  410\n410 614\n", 2, "line 1: not a list of numbers" },
        { "614 410 \n410 614\n", 2, "line 1: not a list of numbers" },
        { "0614 410\n410 614\n", 2, "line 1: not a list of numbers" },
        { "614 410\n\n410 614\n", 2, "line 2: not a list of numbers" },
        { "614 400\n410 614\n", 2, "line 1: sums to 1014, not 1024" },
        { "2048 0\n410 614\n", 2, "line 1: 2048 is above 1024" },
        { "99999 0\n410 614\n", 2, "line 1: not a list of numbers" },
        { "1024\n", 11, "11 states" },
        { "1024\n", 0, "0 states" },
};

START_TEST(test_matrix_bad) {
        const BadMatrix *c = &bad_matrices[_i];
        WteoMatrix m = { .n = 77 };
        ErrorInfo e = {};

        ck_assert_int_eq(wteo_matrix_parse(c->text, c->n, &m, &e), -EBADMSG);
        ck_assert_msg_has(e, c->needle);
        ck_assert_uint_eq(m.n, 77);
}
END_TEST

START_TEST(test_matrix_good) {
        WteoMatrix m;
        ErrorInfo e = {};

        ck_assert_int_eq(wteo_matrix_parse("614 410\n0 1024\n", 2, &m, &e), 0);
        ck_assert_uint_eq(m.n, 2);
        ck_assert_uint_eq(m.w[0][0], 614);
        ck_assert_uint_eq(m.w[0][1], 410);
        ck_assert_uint_eq(m.w[1][0], 0);
        ck_assert_uint_eq(m.w[1][1], 1024);
        ck_assert_int_eq(wteo_matrix_parse("614 410\n0 1024", 2, &m, &e), 0);     /* no final newline */
        ck_assert_int_eq(wteo_matrix_parse("1024\n", 1, &m, &e), 0);
        ck_assert_uint_eq(m.w[0][0], 1024);
}
END_TEST

START_TEST(test_tolerance_parse) {
        uint32_t t = 7;

        ck_assert_int_eq(wteo_tolerance_parse("102\n", &t), 0);
        ck_assert_uint_eq(t, 102);
        ck_assert_int_eq(wteo_tolerance_parse("0", &t), 0);
        ck_assert_uint_eq(t, 0);
        ck_assert_int_eq(wteo_tolerance_parse("1024", &t), 0);
        ck_assert_uint_eq(t, 1024);
        t = 7;
        ck_assert_int_eq(wteo_tolerance_parse("1025", &t), -EBADMSG);
        ck_assert_int_eq(wteo_tolerance_parse("-1", &t), -EBADMSG);
        ck_assert_int_eq(wteo_tolerance_parse("", &t), -EBADMSG);
        ck_assert_int_eq(wteo_tolerance_parse("10 2", &t), -EBADMSG);
        ck_assert_int_eq(wteo_tolerance_parse("102\n\n", &t), -EBADMSG);
        ck_assert_uint_eq(t, 7);
}
END_TEST

/* A tree with 3 states offering wteo, governed by it. */
static FakeTree *wteo_tree(const char *governor) {
        FakeTreeOptions o;

        faketree_options_init(&o);
        o.n_states = 3;
        o.driver = "intel_idle";
        o.governor = governor;
        o.wteo = true;
        return unit_tree(&o);
}

/* The files as the fake kernel makes them; a huge file, a FIFO, garbage,
 * missing: a named reason, never a block or a wrong number. */
START_TEST(test_read_files) {
        FakeTree *t = wteo_tree("wteo");
        char big[8192];
        WteoMatrix m;
        ErrorInfo e = {};
        uint32_t tol = 0;

        ck_assert_int_eq(wteo_tolerance_read(t->fd, 1, &tol, &e), 0);
        ck_assert_uint_eq(tol, 102);
        ck_assert_int_eq(wteo_matrix_read(t->fd, 1, 3, &m, &e), 0);
        ck_assert_uint_eq(m.w[2][2], 614);
        ck_assert_uint_eq(m.w[2][0], 205);
        ck_assert_int_eq(wteo_matrix_read(t->fd, 1, 4, &m, &e), -EBADMSG);
        ck_assert_msg_has(e, "cpu1/wteo/matrix: line 1: 3 numbers, expected 4");

        memset(big, '1', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        ck_assert_int_eq(faketree_wteo_write_matrix(t->fd, 0, big), 0);
        ck_assert_int_eq(wteo_matrix_read(t->fd, 0, 3, &m, &e), -EBADMSG);
        ck_assert_msg_has(e, "cpu0/wteo/matrix: larger than the limit");

        ck_assert_int_eq(faketree_rm_rf(t->fd, "sys/devices/system/cpu/cpu0/wteo/matrix"), 0);
        ck_assert_int_eq(mkfifoat(t->fd, "sys/devices/system/cpu/cpu0/wteo/matrix", 0600), 0);
        ck_assert_int_eq(wteo_matrix_read(t->fd, 0, 3, &m, &e), -EBADMSG);
        ck_assert_msg_has(e, "not a regular file");

        ck_assert_int_eq(faketree_write(t->fd, "sys/devices/system/cpu/cpu0/wteo/tolerance", "lots\n"), 0);
        ck_assert_int_eq(wteo_tolerance_read(t->fd, 0, &tol, &e), -EBADMSG);
        ck_assert_msg_has(e, "cpu0/wteo/tolerance: not a number of 0..1024");

        ck_assert_int_eq(faketree_switch_governor(t->fd, "menu"), 0);
        ck_assert_int_eq(wteo_tolerance_read(t->fd, 1, &tol, &e), -ENOENT);
        ck_assert_int_eq(wteo_matrix_read(t->fd, 1, 3, &m, &e), -ENOENT);
}
END_TEST

/* The fake kernel keeps a CPU's tolerance across a governor switch. */
START_TEST(test_fake_keeps_tolerance) {
        FakeTree *t = wteo_tree("menu");
        ErrorInfo e = {};
        uint32_t tol = 0;

        ck_assert_int_eq(wteo_tolerance_read(t->fd, 0, &tol, &e), -ENOENT);
        ck_assert_int_eq(faketree_switch_governor(t->fd, "wteo"), 0);
        ck_assert_int_eq(faketree_write(t->fd, "sys/devices/system/cpu/cpu0/wteo/tolerance", "51\n"), 0);
        ck_assert_int_eq(faketree_switch_governor(t->fd, "teo"), 0);
        ck_assert_int_eq(faketree_switch_governor(t->fd, "wteo"), 0);
        ck_assert_int_eq(wteo_tolerance_read(t->fd, 0, &tol, &e), 0);
        ck_assert_uint_eq(tol, 51);
        ck_assert_int_eq(wteo_tolerance_read(t->fd, 1, &tol, &e), 0);
        ck_assert_uint_eq(tol, 102);
}
END_TEST

/* has_wteo: listed and the parameters directory there; either alone is not. */
START_TEST(test_system_has_wteo) {
        FakeTreeOptions o;
        CpuidleSystem s;
        ErrorInfo e = {};
        FakeTree *t = wteo_tree("menu");

        ck_assert_int_eq(cpuidle_system_load(t->fd, &s, &e), 0);
        ck_assert(s.has_wteo);
        ck_assert(cpuidle_system_has_governor(&s, "wteo"));
        ck_assert_int_eq(faketree_rm_rf(t->fd, "sys/module/wteo"), 0);
        ck_assert_int_eq(cpuidle_system_load(t->fd, &s, &e), 0);
        ck_assert(!s.has_wteo);

        faketree_options_init(&o);
        t = unit_tree(&o);
        ck_assert_int_eq(faketree_wteo_create(t->fd), 0);
        ck_assert_int_eq(cpuidle_system_load(t->fd, &s, &e), 0);
        ck_assert(!s.has_wteo);
}
END_TEST

static Suite *wteo_sysfs_suite(void) {
        Suite *s = suite_create("wteo-sysfs");
        TCase *tc = tcase_create("core");

        tcase_add_loop_test(tc, test_matrix_bad, 0, (int) (sizeof(bad_matrices) / sizeof(bad_matrices[0])));
        tcase_add_test(tc, test_matrix_good);
        tcase_add_test(tc, test_tolerance_parse);
        tcase_add_test(tc, test_read_files);
        tcase_add_test(tc, test_fake_keeps_tolerance);
        tcase_add_test(tc, test_system_has_wteo);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return unit_run(wteo_sysfs_suite());
}
