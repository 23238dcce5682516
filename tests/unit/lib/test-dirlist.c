/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "dirlist.h"
#include "unit.h"

START_TEST(test_numeric_entries_sorted) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_free_ unsigned *v = NULL;
        size_t n = 77;

        ck_assert_int_eq(mkdirat(t->fd, "irq", 0755), 0);
        for (const char *const *name = (const char *const[]) { "24", "0", "9", "1000", NULL }; *name; name++) {
                char path[32];

                snprintf(path, sizeof(path), "irq/%s", *name);
                ck_assert_int_eq(mkdirat(t->fd, path, 0755), 0);
        }
        /* skipped: a leading zero, beyond max, not a number, a sign */
        for (const char *const *name = (const char *const[]) { "007", "1001", "12x", "-1", "+3", "default_smp_affinity",
                                                               NULL }; *name; name++) {
                char path[48];

                snprintf(path, sizeof(path), "irq/%s", *name);
                ck_assert_int_eq(faketree_write(t->fd, path, "x"), 0);
        }
        ck_assert_int_eq(dir_list_numeric_at(t->fd, "irq", 1000, &v, &n), 0);
        ck_assert_uint_eq(n, 4);
        ck_assert_uint_eq(v[0], 0);
        ck_assert_uint_eq(v[1], 9);
        ck_assert_uint_eq(v[2], 24);
        ck_assert_uint_eq(v[3], 1000);
}
END_TEST

START_TEST(test_empty_and_missing) {
        FakeTree *t = unit_tree(NULL);
        unsigned *v = (unsigned *) 0x1;
        size_t n = 77;

        ck_assert_int_eq(mkdirat(t->fd, "empty", 0755), 0);
        ck_assert_int_eq(dir_list_numeric_at(t->fd, "empty", 10, &v, &n), 0);
        ck_assert_uint_eq(n, 0);
        ck_assert_ptr_null(v);
        /* failures leave the outputs alone */
        n = 77;
        ck_assert_int_eq(dir_list_numeric_at(t->fd, "nothing", 10, &v, &n), -ENOENT);
        ck_assert_int_eq(faketree_write(t->fd, "file", "1"), 0);
        ck_assert_int_eq(dir_list_numeric_at(t->fd, "file", 10, &v, &n), -ENOTDIR);
        ck_assert_int_eq(dir_list_numeric_at(t->fd, "/proc", 10, &v, &n), -EINVAL);
        ck_assert_int_eq(dir_list_numeric_at(t->fd, "", 10, &v, &n), -EINVAL);
        ck_assert_uint_eq(n, 77);
        ck_assert_ptr_null(v);
}
END_TEST

START_TEST(test_many) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_free_ unsigned *v = NULL;
        size_t n = 0;

        ck_assert_int_eq(mkdirat(t->fd, "task", 0755), 0);
        for (unsigned i = 1000; i > 0; i--) {
                char path[32];

                snprintf(path, sizeof(path), "task/%u", i * 7);
                ck_assert_int_eq(mkdirat(t->fd, path, 0755), 0);
        }
        ck_assert_int_eq(dir_list_numeric_at(t->fd, "task", 4194304, &v, &n), 0);
        ck_assert_uint_eq(n, 1000);
        for (size_t i = 0; i < n; i++)
                ck_assert_uint_eq(v[i], (i + 1) * 7);
}
END_TEST

int main(void) {
        Suite *s = suite_create("dirlist");
        TCase *tc = unit_tcase(s, "core");

        tcase_add_test(tc, test_numeric_entries_sorted);
        tcase_add_test(tc, test_empty_and_missing);
        tcase_add_test(tc, test_many);
        return unit_run(s);
}
