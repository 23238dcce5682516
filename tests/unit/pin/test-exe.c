/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <sys/stat.h>

#include "pin-exe.h"
#include "unit.h"

/* A tree of a merged /usr: bin -> usr/bin, python3 -> python3.12 (relative),
 * cc -> /usr/bin/gcc-14 (absolute) -> ../lib/gcc/cc1 (relative with ..),
 * a script, a loop, a dangling link, a directory, a FIFO. */
static FakeTree *exe_tree(void) {
        FakeTree *t = unit_tree(NULL);
        int fd = t->fd;

        ck_assert_int_eq(faketree_write(fd, "usr/bin/python3.12", "\177ELF"), 0);
        ck_assert_int_eq(faketree_write(fd, "usr/bin/sleep", "\177ELF"), 0);
        ck_assert_int_eq(faketree_write(fd, "usr/lib/gcc/cc1", "\177ELF"), 0);
        ck_assert_int_eq(faketree_write(fd, "usr/bin/tool", "#! /bin/sh -e\necho hi\n"), 0);
        ck_assert_int_eq(symlinkat("usr/bin", fd, "bin"), 0);
        ck_assert_int_eq(symlinkat("python3.12", fd, "usr/bin/python3"), 0);
        ck_assert_int_eq(symlinkat("/usr/bin/gcc-14", fd, "usr/bin/cc"), 0);
        ck_assert_int_eq(symlinkat("../lib/gcc/cc1", fd, "usr/bin/gcc-14"), 0);
        ck_assert_int_eq(symlinkat("loop-b", fd, "usr/bin/loop-a"), 0);
        ck_assert_int_eq(symlinkat("loop-a", fd, "usr/bin/loop-b"), 0);
        ck_assert_int_eq(symlinkat("/opt/not-yet/prog", fd, "usr/bin/dangling"), 0);
        ck_assert_int_eq(mkfifoat(fd, "usr/bin/fifo", 0600), 0);
        return t;
}

static void resolves(FakeTree *t, const char *path, const char *want) {
        char buf[1024] = "unchanged";
        ErrorInfo e = {};
        int r = pin_exe_resolve(t->fd, path, buf, sizeof(buf), &e);

        ck_assert_msg(r >= 0, "%s: %s", path, e.message);
        ck_assert_str_eq(buf, want);
        ck_assert_int_eq(r, strcmp(path, want) != 0);
}

static void refused(FakeTree *t, const char *path, int error, const char *words) {
        char buf[1024] = "unchanged";
        ErrorInfo e = {};

        ck_assert_int_eq(pin_exe_resolve(t->fd, path, buf, sizeof(buf), &e), error);
        ck_assert_str_eq(buf, "unchanged");
        ck_assert_msg(strstr(e.message, words), "%s: %s", path, e.message);
}

START_TEST(test_links_resolved) {
        FakeTree *t = exe_tree();

        resolves(t, "/usr/bin/sleep", "/usr/bin/sleep");
        resolves(t, "/bin/sleep", "/usr/bin/sleep");                  /* a directory link */
        resolves(t, "/usr/bin/python3", "/usr/bin/python3.12");       /* relative */
        resolves(t, "/bin/python3", "/usr/bin/python3.12");           /* both */
        resolves(t, "/usr/bin/cc", "/usr/lib/gcc/cc1");               /* absolute, then .. */
        /* what does not exist yet is kept, after the links before it */
        resolves(t, "/bin/not-installed", "/usr/bin/not-installed");
        resolves(t, "/opt/x/y", "/opt/x/y");
        resolves(t, "/usr/bin/dangling", "/opt/not-yet/prog");
}
END_TEST

START_TEST(test_refused) {
        FakeTree *t = exe_tree();
        char small[8];
        ErrorInfo e = {};

        refused(t, "/usr/bin/loop-a", -ELOOP, "more than 40 symbolic links");
        refused(t, "/usr/bin/tool", -ENOEXEC, "is a script: its processes run its interpreter /bin/sh");
        refused(t, "/usr/bin", -EISDIR, "is a directory");
        refused(t, "/bin", -EISDIR, "/usr/bin is a directory");
        refused(t, "/usr/bin/fifo", -EBADFD, "not a regular file");
        refused(t, "/usr/bin/sleep/x", -ENOTDIR, "/usr/bin/sleep is not a directory");
        refused(t, "usr/bin/sleep", -EINVAL, "absolute");
        ck_assert_int_eq(pin_exe_resolve(t->fd, "/bin/python3", small, sizeof(small), &e), -ENAMETOOLONG);
}
END_TEST

int main(void) {
        Suite *s = suite_create("pin-exe");
        TCase *tc = unit_tcase(s, "exe");

        tcase_add_test(tc, test_links_resolved);
        tcase_add_test(tc, test_refused);
        return unit_run(s);
}
