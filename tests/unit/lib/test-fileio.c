/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
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
        /* a NUL byte is data here; a FIFO is refused, without blocking */
        ck_assert_int_eq(faketree_write(t->fd, "nul", "a%cb", '\0'), 0);
        ck_assert_int_eq(fileio_read_alloc_at(t->fd, "nul", &content, &size), 0);
        ck_assert_uint_eq(size, 3);
        ck_assert_int_eq(memcmp(content, "a\0b", 4), 0);
        free(content);
        content = NULL;
        ck_assert_int_eq(mkfifoat(t->fd, "fifo", 0600), 0);
        ck_assert_int_eq(fileio_read_alloc_at(t->fd, "fifo", &content, &size), -EBADFD);
        ck_assert_ptr_null(content);
}
END_TEST

static uint64_t now_msec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* Asserts that fileio_read_regular_at(path, max, flags) fails with error
 * within 100 ms and leaves *ret alone. */
static void assert_read_fails(int dir_fd, const char *path, size_t max, unsigned flags, int error) {
        char *text = (char *) "untouched";
        size_t size = 77;
        uint64_t start = now_msec();

        ck_assert_int_eq(fileio_read_regular_at(dir_fd, path, max, flags, &text, &size), error);
        ck_assert_uint_lt(now_msec() - start, 100);
        ck_assert_str_eq(text, "untouched");
        ck_assert_uint_eq(size, 77);
}

/* Reads path and asserts the content.  */
static void assert_read(int dir_fd, const char *path, size_t max, unsigned flags, const char *expect) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;

        ck_assert_int_eq(fileio_read_regular_at(dir_fd, path, max, flags, &text, &size), 0);
        ck_assert_str_eq(text, expect);
        ck_assert_uint_eq(size, strlen(expect));
}

START_TEST(test_read_regular) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_free_ char *text = NULL;

        ck_assert_int_eq(faketree_write(t->fd, "conf", "{\"a\": 1}\n"), 0);
        assert_read(t->fd, "conf", 1024, 0, "{\"a\": 1}\n");
        ck_assert_int_eq(fileio_read_regular_at(t->fd, "conf", 1024, 0, &text, NULL), 0);   /* size optional */
        ck_assert_int_eq(faketree_write(t->fd, "empty", "%s", ""), 0);
        assert_read(t->fd, "empty", 0, 0, "");
        assert_read_fails(t->fd, "missing", 1024, 0, -ENOENT);
        assert_read_fails(t->fd, "/etc/hostname", 1024, 0, -EINVAL);
        assert_read_fails(t->fd, "", 1024, 0, -EINVAL);
        assert_read_fails(t->fd, "conf", SIZE_MAX, 0, -EINVAL);
}
END_TEST

START_TEST(test_read_regular_limit) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_close_ int fd = -1;

        /* exactly at the limit is fine, one byte more is not */
        ck_assert_int_eq(faketree_write(t->fd, "ten", "0123456789"), 0);
        assert_read(t->fd, "ten", 10, 0, "0123456789");
        assert_read_fails(t->fd, "ten", 9, 0, -EFBIG);
        /* a 1 TiB sparse file is refused by its size, before reading */
        fd = openat(t->fd, "huge", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, (off_t) 1 << 40), 0);
        assert_read_fails(t->fd, "huge", 64 * 1024, 0, -EFBIG);
}
END_TEST

START_TEST(test_read_regular_proc) {
        /* /proc files report a size of 0: the bound holds on what is read. */
        _cleanup_close_ int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_free_ char *text = NULL;
        size_t size = 0;

        ck_assert_int_ge(proc, 0);
        assert_read_fails(proc, "self/status", 16, 0, -EFBIG);
        ck_assert_int_eq(fileio_read_regular_at(proc, "self/status", 1024 * 1024, 0, &text, &size), 0);
        ck_assert_uint_gt(size, 16);
        ck_assert_ptr_nonnull(strstr(text, "Name:"));
}
END_TEST

START_TEST(test_read_regular_not_regular) {
        FakeTree *t = unit_tree(NULL);
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_close_ int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

        ck_assert_int_eq(mkfifoat(t->fd, "fifo", 0600), 0);
        assert_read_fails(t->fd, "fifo", 1024, 0, -EBADFD);
        ck_assert_int_eq(symlinkat("/dev/zero", t->fd, "zero"), 0);
        assert_read_fails(t->fd, "zero", 1024, 0, -EBADFD);
        ck_assert_int_eq(symlinkat("fifo", t->fd, "fifo-link"), 0);
        assert_read_fails(t->fd, "fifo-link", 1024, 0, -EBADFD);
        assert_read_fails(t->fd, "proc", 1024, 0, -EBADFD);       /* a directory */
        ck_assert_int_ge(sock, 0);
        ck_assert_uint_lt(strlen(t->path) + strlen("/socket"), sizeof(sa.sun_path));
        strcpy(sa.sun_path, t->path);
        strcat(sa.sun_path, "/socket");
        ck_assert_int_eq(bind(sock, (struct sockaddr *) &sa, sizeof(sa)), 0);
        assert_read_fails(t->fd, "socket", 1024, 0, -EBADFD);
}
END_TEST

START_TEST(test_read_regular_symlink) {
        FakeTree *t = unit_tree(NULL);

        ck_assert_int_eq(faketree_write(t->fd, "target", "x"), 0);
        ck_assert_int_eq(symlinkat("target", t->fd, "link"), 0);
        assert_read(t->fd, "link", 16, 0, "x");
        assert_read_fails(t->fd, "link", 16, FILEIO_NOFOLLOW, -ELOOP);
        ck_assert_int_eq(symlinkat("/dev/zero", t->fd, "zero"), 0);
        assert_read_fails(t->fd, "zero", 16, FILEIO_NOFOLLOW, -ELOOP);
        assert_read(t->fd, "target", 16, FILEIO_NOFOLLOW, "x");
}
END_TEST

START_TEST(test_read_regular_nul) {
        FakeTree *t = unit_tree(NULL);

        ck_assert_int_eq(faketree_write(t->fd, "nul", "{}%c\n", '\0'), 0);
        assert_read_fails(t->fd, "nul", 16, 0, -EBADMSG);
}
END_TEST

START_TEST(test_read_regular_owner) {
        FakeTree *t = unit_tree(NULL);

        ck_assert_int_eq(faketree_write(t->fd, "mine", "1"), 0);
        assert_read(t->fd, "mine", 16, FILEIO_OWNER_EUID, "1");
        if (geteuid() != 0)
                return;         /* chown needs root */
        ck_assert_int_eq(faketree_write(t->fd, "nobody", "1"), 0);
        ck_assert_int_eq(fchownat(t->fd, "nobody", 65534, 65534, 0), 0);
        assert_read(t->fd, "nobody", 16, 0, "1");
        assert_read_fails(t->fd, "nobody", 16, FILEIO_OWNER_EUID, -EPERM);
        assert_read_fails(t->fd, "nobody", 16, FILEIO_OWNER_EUID | FILEIO_NOFOLLOW, -EPERM);
}
END_TEST

START_TEST(test_error_reason) {
        ck_assert_str_eq(fileio_error_reason(-EBADFD), "not a regular file");
        ck_assert_str_eq(fileio_error_reason(EBADFD), "not a regular file");
        ck_assert_str_eq(fileio_error_reason(-ELOOP), "a symbolic link");
        ck_assert_str_eq(fileio_error_reason(-EFBIG), "larger than the limit");
        ck_assert_str_eq(fileio_error_reason(-EPERM), "not owned by the daemon's user");
        ck_assert_str_eq(fileio_error_reason(-EBADMSG), "contains a NUL byte");
        ck_assert_str_eq(fileio_error_reason(-ENOENT), strerror(ENOENT));
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
        ck_assert_int_eq(fileio_pread_alloc(fd, 1024, &grow, &size), 7);
        ck_assert_str_eq(grow, "123456\n");
        ck_assert_uint_ge(size, 8);
        /* bounded: exactly at the limit, then one byte over */
        ck_assert_int_eq(fileio_pread_alloc(fd, 7, &grow, &size), 7);
        ck_assert_str_eq(grow, "123456\n");
        ck_assert_int_eq(fileio_pread_alloc(fd, 6, &grow, &size), -EFBIG);
        ck_assert_int_eq(fileio_pread_alloc(fd, (size_t) INT_MAX, &grow, &size), -EINVAL);
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

START_TEST(test_write_symlink_refused) {
        FakeTree *t = unit_tree(NULL);
        char buf[32];

        /* a knob symlinked to another file inside the root: not followed */
        ck_assert_int_eq(faketree_write(t->fd, "target", "keep\n"), 0);
        ck_assert_int_eq(symlinkat("target", t->fd, "knob"), 0);
        ck_assert_int_eq(fileio_write_string_at(t->fd, "knob", "1"), -ELOOP);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "target", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "keep");
}
END_TEST

START_TEST(test_write_not_regular) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_close_ int reader = -1;
        uint64_t start = now_msec();
        char buf[8];

        /* a FIFO knob neither blocks nor takes the value, reader or not */
        ck_assert_int_eq(mkfifoat(t->fd, "fifo", 0600), 0);
        ck_assert_int_eq(fileio_write_string_at(t->fd, "fifo", "1"), -EBADFD);
        reader = openat(t->fd, "fifo", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        ck_assert_int_ge(reader, 0);
        ck_assert_int_eq(fileio_write_string_at(t->fd, "fifo", "1"), -EBADFD);
        ck_assert_int_eq(read(reader, buf, sizeof(buf)), 0);
        ck_assert_int_eq(fileio_write_string_at(t->fd, "proc", "1"), -EISDIR);
        ck_assert_uint_lt(now_msec() - start, 100);
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
        /* a FIFO in a fake tree does not hang whoever keeps files open */
        ck_assert_int_eq(mkfifoat(t->fd, "proc/fifo", 0600), 0);
        ck_assert_int_eq(fileio_open_at(t->fd, "proc/fifo"), -EBADFD);
        ck_assert_int_eq(fileio_open_at(t->fd, "proc"), -EBADFD);
        ck_assert_int_eq(symlinkat("stat", t->fd, "proc/stat-link"), 0);
        fd = fileio_open_at(t->fd, "proc/stat-link");
        ck_assert_int_ge(fd, 0);
        fileio_closep(&fd);
        ck_assert_int_eq(symlinkat("/dev/zero", t->fd, "proc/zero"), 0);
        ck_assert_int_eq(fileio_open_at(t->fd, "proc/zero"), -EBADFD);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "proc/fifo", (char[8]) {}, 8), -EBADFD);
}
END_TEST

int main(void) {
        Suite *s = suite_create("fileio");
        TCase *tc = unit_tcase(s, "core");

        tcase_add_test(tc, test_read_string);
        tcase_add_test(tc, test_read_alloc);
        tcase_add_test(tc, test_read_regular);
        tcase_add_test(tc, test_read_regular_limit);
        tcase_add_test(tc, test_read_regular_proc);
        tcase_add_test(tc, test_read_regular_not_regular);
        tcase_add_test(tc, test_read_regular_symlink);
        tcase_add_test(tc, test_read_regular_nul);
        tcase_add_test(tc, test_read_regular_owner);
        tcase_add_test(tc, test_error_reason);
        tcase_add_test(tc, test_pread_reread);
        tcase_add_test(tc, test_parse_u64);
        tcase_add_test(tc, test_read_u64_at);
        tcase_add_test(tc, test_write_string);
        tcase_add_test(tc, test_write_symlink_refused);
        tcase_add_test(tc, test_write_not_regular);
        tcase_add_test(tc, test_open_and_close);
        return unit_run(s);
}
