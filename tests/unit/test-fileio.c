/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <unistd.h>

#include "fileio.h"
#include "unit.h"

START_TEST(test_read_string) {
        FakeTree *t = unit_tree(NULL);
        char buf[16];

        ck_assert_int_eq(faketree_write(t->fd, "a/b/value", "hello world\n"), 0);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "a/b/value", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "hello world");
        ck_assert_int_eq(faketree_write(t->fd, "a/b/value", "no newline"), 0);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "a/b/value", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "no newline");
        ck_assert_int_eq(faketree_write(t->fd, "a/b/value", "%s", ""), 0);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "a/b/value", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "");
        /* 15 bytes fit into 16, 16 do not */
        ck_assert_int_eq(faketree_write(t->fd, "a/b/value", "123456789012345"), 0);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "a/b/value", buf, sizeof(buf)), 0);
        ck_assert_int_eq(faketree_write(t->fd, "a/b/value", "1234567890123456"), 0);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "a/b/value", buf, sizeof(buf)), -EFBIG);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "a/b/missing", buf, sizeof(buf)), -ENOENT);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "/etc/hostname", buf, sizeof(buf)), -EINVAL);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "", buf, sizeof(buf)), -EINVAL);
}
END_TEST

START_TEST(test_read_alloc) {
        FakeTree *t = unit_tree(NULL);
        char *big = malloc(100001), *content = NULL;
        size_t size = 0;

        ck_assert_ptr_nonnull(big);
        memset(big, 'x', 100000);
        big[100000] = '\0';
        ck_assert_int_eq(faketree_write(t->fd, "big", "%s", big), 0);
        ck_assert_int_eq(fileio_read_alloc_at(t->fd, "big", &content, &size), 0);
        ck_assert_uint_eq(size, 100000);
        ck_assert_str_eq(content, big);
        free(content);
        content = NULL;
        ck_assert_int_eq(fileio_read_alloc_at(t->fd, "missing", &content, &size), -ENOENT);
        ck_assert_ptr_null(content);
        free(big);
}
END_TEST

START_TEST(test_pread_reread) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_close_ int fd = -1;
        char buf[32], *grow = NULL;
        size_t size = 0;

        ck_assert_int_eq(faketree_write(t->fd, "counter", "7\n"), 0);
        fd = fileio_open_at(t->fd, "counter");
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(fileio_pread_string(fd, buf, sizeof(buf)), 1);
        ck_assert_str_eq(buf, "7");
        /* rewritten in place, like sysfs: the open fd sees the new value */
        ck_assert_int_eq(faketree_write(t->fd, "counter", "123456\n"), 0);
        ck_assert_int_eq(fileio_pread_string(fd, buf, sizeof(buf)), 6);
        ck_assert_str_eq(buf, "123456");
        ck_assert_int_eq(fileio_pread_string(fd, buf, 4), -EFBIG);
        ck_assert_int_eq(fileio_pread_alloc(fd, &grow, &size), 7);
        ck_assert_str_eq(grow, "123456\n");
        ck_assert_uint_ge(size, 4096);
        free(grow);
}
END_TEST

START_TEST(test_parse_u64) {
        static const char *const bad[] = { "", "-1", "+1", " 1", "1 ", "1x", "0x10", "1\n\n", "1.5" };
        uint64_t v = 99;
        uint32_t w = 99;

        ck_assert_int_eq(parse_u64("0", &v), 0);
        ck_assert_uint_eq(v, 0);
        ck_assert_int_eq(parse_u64("12\n", &v), 0);
        ck_assert_uint_eq(v, 12);
        ck_assert_int_eq(parse_u64("18446744073709551615", &v), 0);
        ck_assert_uint_eq(v, UINT64_MAX);
        v = 5;
        ck_assert_int_eq(parse_u64("18446744073709551616", &v), -ERANGE);
        ck_assert_uint_eq(v, 5);
        for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                ck_assert_msg(parse_u64(bad[i], &v) == -EINVAL, "\"%s\" accepted", bad[i]);
                ck_assert_uint_eq(v, 5);
        }
        ck_assert_int_eq(parse_u64(NULL, &v), -EINVAL);
        ck_assert_int_eq(parse_u32("4294967295", &w), 0);
        ck_assert_uint_eq(w, UINT32_MAX);
        ck_assert_int_eq(parse_u32("4294967296", &w), -ERANGE);
        ck_assert_uint_eq(w, UINT32_MAX);
        ck_assert_int_eq(parse_u32("abc", &w), -EINVAL);
}
END_TEST

START_TEST(test_read_u64_at) {
        FakeTree *t = unit_tree(NULL);
        uint64_t v = 1;

        ck_assert_int_eq(faketree_write(t->fd, "n", "34095\n"), 0);
        ck_assert_int_eq(fileio_read_u64_at(t->fd, "n", &v), 0);
        ck_assert_uint_eq(v, 34095);
        ck_assert_int_eq(faketree_write(t->fd, "n", "n/a\n"), 0);
        ck_assert_int_eq(fileio_read_u64_at(t->fd, "n", &v), -EINVAL);
        ck_assert_uint_eq(v, 34095);
        ck_assert_int_eq(fileio_read_u64_at(t->fd, "missing", &v), -ENOENT);
}
END_TEST

START_TEST(test_write_string) {
        FakeTree *t = unit_tree(NULL);
        char buf[32];

        ck_assert_int_eq(faketree_write(t->fd, "knob", "0\n"), 0);
        ck_assert_int_eq(fileio_write_string_at(t->fd, "knob", "1"), 0);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "knob", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "1");
        /* never creates files */
        ck_assert_int_eq(fileio_write_string_at(t->fd, "missing", "1"), -ENOENT);
        ck_assert_int_eq(faccessat(t->fd, "missing", F_OK, 0), -1);
        ck_assert_int_eq(fileio_write_string_at(t->fd, "/tmp/x", "1"), -EINVAL);
}
END_TEST

START_TEST(test_open_and_close) {
        FakeTree *t = unit_tree(NULL);
        int fd;

        ck_assert_int_eq(fileio_open_at(t->fd, "/proc/stat"), -EINVAL);
        ck_assert_int_eq(fileio_open_at(t->fd, "nothing/here"), -ENOENT);
        fd = fileio_open_at(t->fd, "proc/stat");
        ck_assert_int_ge(fd, 0);
        fileio_closep(&fd);
        ck_assert_int_eq(fd, -1);
        fileio_closep(&fd);             /* closing twice is fine */
        ck_assert_int_eq(fd, -1);
}
END_TEST

int main(void) {
        Suite *s = suite_create("fileio");
        TCase *tc = unit_tcase(s, "core");

        tcase_add_test(tc, test_read_string);
        tcase_add_test(tc, test_read_alloc);
        tcase_add_test(tc, test_pread_reread);
        tcase_add_test(tc, test_parse_u64);
        tcase_add_test(tc, test_read_u64_at);
        tcase_add_test(tc, test_write_string);
        tcase_add_test(tc, test_open_and_close);
        return unit_run(s);
}
