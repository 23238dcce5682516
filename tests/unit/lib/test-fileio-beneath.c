/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fileio_open_beneath() and its fallback walk, and the read/write helpers
 * built on it, on a fake tree: a "mount" directory with symbolic links
 * planted in it (relative and absolute, to a directory and to a file, as a
 * directory on the way and as the last component, to inside and to
 * outside), ".." components, a FIFO, a directory and a socket where a
 * regular file should be, and a victim outside that must never be written.
 * The fallback is run twice: called directly, and chosen by
 * fileio_open_beneath() itself in a child whose seccomp filter answers
 * openat2 with ENOSYS (an old kernel) or EPERM (an old container runtime). */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"
#include "unit.h"

#define VICTIM "0-3"

typedef int (*OpenFn)(int dirfd, const char *path, int flags);

/* The mount (returned, O_PATH) and outside/ in t:
 *   mnt/a/b/file "x", mnt/a/dir/, mnt/a/fifo, mnt/a/file-link -> b/file,
 *   mnt/dir-link -> a, mnt/out-link -> ../outside, mnt/abs-in -> T/mnt/a,
 *   mnt/abs-out -> T/outside, mnt/self -> ., mnt/a/up-link -> ..,
 *   outside/cpuset.cpus VICTIM */
static int make_mount(FakeTree *t) {
        char abs[512];
        int fd;

        ck_assert_int_eq(faketree_write(t->fd, "mnt/a/b/file", "x\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, "outside/cpuset.cpus", VICTIM "\n"), 0);
        ck_assert_int_eq(mkdirat(t->fd, "mnt/a/dir", 0755), 0);
        ck_assert_int_eq(mkfifoat(t->fd, "mnt/a/fifo", 0600), 0);
        ck_assert_int_eq(symlinkat("b/file", t->fd, "mnt/a/file-link"), 0);
        ck_assert_int_eq(symlinkat("..", t->fd, "mnt/a/up-link"), 0);
        ck_assert_int_eq(symlinkat("a", t->fd, "mnt/dir-link"), 0);
        ck_assert_int_eq(symlinkat("../outside", t->fd, "mnt/out-link"), 0);
        ck_assert_int_eq(symlinkat(".", t->fd, "mnt/self"), 0);
        snprintf(abs, sizeof(abs), "%s/mnt/a", t->path);
        ck_assert_int_eq(symlinkat(abs, t->fd, "mnt/abs-in"), 0);
        snprintf(abs, sizeof(abs), "%s/outside", t->path);
        ck_assert_int_eq(symlinkat(abs, t->fd, "mnt/abs-out"), 0);
        fd = openat(t->fd, "mnt", O_PATH | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        return fd;
}

/* Asserts that open(mnt, path, flags) fails with error (and opened nothing). */
static void assert_refused(OpenFn open_fn, int mnt, const char *path, int flags, int error) {
        int r = open_fn(mnt, path, flags);

        if (r >= 0)
                close(r);
        ck_assert_msg(r == error, "%s (flags %#x): %d (%s), expected %d (%s)", path, (unsigned) flags, r,
                      r < 0 ? strerror(-r) : "opened", error, strerror(-error));
}

/* Every kind of path, through open_fn. */
static void check_paths(OpenFn open_fn, FakeTree *t) {
        _cleanup_close_ int mnt = make_mount(t);
        _cleanup_close_ int fd = -1;
        char buf[8] = "";

        fd = open_fn(mnt, "a/b/file", O_RDONLY);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(fileio_pread_string(fd, buf, sizeof(buf)), 1);
        ck_assert_str_eq(buf, "x");
        ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
        ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
        fileio_closep(&fd);
        fd = open_fn(mnt, "a//b/./file", O_RDONLY);     /* harmless spellings */
        ck_assert_int_ge(fd, 0);
        fileio_closep(&fd);
        fd = open_fn(mnt, "a/dir", O_PATH | O_DIRECTORY);
        ck_assert_int_ge(fd, 0);
        fileio_closep(&fd);
        /* symbolic links: as a directory on the way, as the last component,
         * relative or absolute, to inside or to outside, all refused */
        for (const char *const *p = (const char *const[]) {
                     "dir-link/b/file", "dir-link", "out-link/cpuset.cpus", "out-link", "abs-in/b/file",
                     "abs-out/cpuset.cpus", "abs-out", "self/a/b/file", "a/file-link", "a/up-link/a/b/file", NULL };
             *p; p++) {
                assert_refused(open_fn, mnt, *p, O_RDONLY, -ELOOP);
                assert_refused(open_fn, mnt, *p, O_PATH, -ELOOP);
                assert_refused(open_fn, mnt, *p, O_PATH | O_DIRECTORY, -ELOOP);
                assert_refused(open_fn, mnt, *p, O_WRONLY | O_TRUNC, -ELOOP);
                assert_refused(open_fn, mnt, *p, O_RDONLY | O_NOFOLLOW, -ELOOP);
        }
        /* "..", anywhere, before anything is opened */
        for (const char *const *p = (const char *const[]) { "..", "../outside/cpuset.cpus", "a/..", "a/../a/b/file",
                                                            "a/b/../../../outside/cpuset.cpus", NULL }; *p; p++)
                assert_refused(open_fn, mnt, *p, O_RDONLY, -EXDEV);
        assert_refused(open_fn, mnt, "/etc/passwd", O_RDONLY, -EINVAL);
        assert_refused(open_fn, mnt, "", O_RDONLY, -EINVAL);
        assert_refused(open_fn, mnt, "a/b/file", O_RDONLY | O_CREAT, -EINVAL);
        assert_refused(open_fn, mnt, "missing", O_RDONLY, -ENOENT);
        assert_refused(open_fn, mnt, "a/missing/file", O_PATH, -ENOENT);
        assert_refused(open_fn, mnt, "a/b/file/x", O_RDONLY, -ENOTDIR);
        assert_refused(open_fn, mnt, "a/b/file", O_PATH | O_DIRECTORY, -ENOTDIR);
        assert_refused(open_fn, mnt, "a/b/file/", O_PATH, -ENOTDIR);
        assert_refused(open_fn, mnt, "a/dir", O_WRONLY, -EISDIR);
        assert_refused(open_fn, mnt, "a/fifo", O_WRONLY, -ENXIO);      /* no reader: never blocks */
        ck_assert_int_eq(fileio_read_string_at(t->fd, "outside/cpuset.cpus", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, VICTIM);
}

START_TEST(test_openat2) {
        check_paths(fileio_open_beneath, unit_tree(NULL));
}
END_TEST

START_TEST(test_walk) {
        check_paths(fileio_open_beneath_walk, unit_tree(NULL));
}
END_TEST

/* The read and write helpers: links, FIFOs (with and without a reader),
 * a directory and a socket where a regular file should be. */
START_TEST(test_read_write) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_close_ int mnt = make_mount(t);
        _cleanup_close_ int reader = -1, sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char buf[8] = "";

        ck_assert_int_eq(fileio_read_string_beneath(mnt, "a/b/file", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "x");
        ck_assert_int_eq(fileio_write_string_beneath(mnt, "a/b/file", "y"), 0);
        ck_assert_int_eq(fileio_read_string_beneath(mnt, "a/b/file", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "y");
        for (const char *const *p = (const char *const[]) { "out-link/cpuset.cpus", "abs-out/cpuset.cpus",
                                                            "dir-link/b/file", "a/file-link", NULL }; *p; p++) {
                ck_assert_int_eq(fileio_write_string_beneath(mnt, *p, "1"), -ELOOP);
                ck_assert_int_eq(fileio_read_string_beneath(mnt, *p, buf, sizeof(buf)), -ELOOP);
                ck_assert_int_eq(fileio_open_regular_beneath(mnt, *p), -ELOOP);
        }
        ck_assert_int_eq(fileio_write_string_beneath(mnt, "../outside/cpuset.cpus", "1"), -EXDEV);
        /* not regular: named, never blocking, nothing written */
        ck_assert_int_eq(fileio_write_string_beneath(mnt, "a/fifo", "1"), -EBADFD);
        ck_assert_int_eq(fileio_read_string_beneath(mnt, "a/fifo", buf, sizeof(buf)), -EBADFD);
        reader = openat(t->fd, "mnt/a/fifo", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        ck_assert_int_ge(reader, 0);
        ck_assert_int_eq(fileio_write_string_beneath(mnt, "a/fifo", "1"), -EBADFD);
        ck_assert_int_le(read(reader, buf, sizeof(buf)), 0);
        ck_assert_int_eq(fileio_write_string_beneath(mnt, "a/dir", "1"), -EBADFD);
        ck_assert_int_eq(fileio_read_string_beneath(mnt, "a/dir", buf, sizeof(buf)), -EBADFD);
        ck_assert_int_eq(fileio_open_regular_beneath(mnt, "a/dir"), -EBADFD);
        ck_assert_int_ge(sock, 0);
        ck_assert_uint_lt(strlen(t->path) + strlen("/mnt/a/sock"), sizeof(sa.sun_path));
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/mnt/a/sock", t->path);
        ck_assert_int_eq(bind(sock, (struct sockaddr *) &sa, sizeof(sa)), 0);
        ck_assert_int_eq(fileio_write_string_beneath(mnt, "a/sock", "1"), -EBADFD);
        ck_assert_int_eq(fileio_read_string_beneath(mnt, "a/sock", buf, sizeof(buf)), -EBADFD);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "outside/cpuset.cpus", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, VICTIM);
}
END_TEST

/* Installs a seccomp filter that answers openat2 with error and lets
 * everything else through.  Returns 0 or -errno. */
static int deny_openat2(int error) {
        struct sock_filter f[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned) error & SECCOMP_RET_DATA)),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = { .len = (unsigned short) ELEMENTSOF(f), .filter = f };

        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
                return -errno;
        return 0;
}

/* In a child without openat2 (it answers error): the call is missing,
 * fileio_open_beneath() walks, and refuses all the same.  Exits with the
 * number of the first check that failed. */
static void child_without_openat2(int mnt, int error) {
        int fd;

        if (deny_openat2(error) < 0)
                _exit(10);
        if (syscall(SYS_openat2, mnt, "a", NULL, 0) >= 0 || errno != error)
                _exit(11);                      /* the filter is in force */
        fd = fileio_open_beneath(mnt, "a/b/file", O_RDONLY);
        if (fd < 0)
                _exit(12);
        close(fd);
        if (fileio_open_beneath(mnt, "dir-link/b/file", O_RDONLY) != -ELOOP ||
            fileio_open_beneath(mnt, "a/file-link", O_PATH) != -ELOOP ||
            fileio_write_string_beneath(mnt, "out-link/cpuset.cpus", "1") != -ELOOP ||
            fileio_write_string_beneath(mnt, "abs-out/cpuset.cpus", "1") != -ELOOP)
                _exit(13);
        if (fileio_open_beneath(mnt, "missing", O_RDONLY) != -ENOENT)
                _exit(14);
        _exit(0);
}

START_TEST(test_fallback_chosen_without_openat2) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_close_ int mnt = make_mount(t);
        char buf[8] = "";

        for (const int *e = (const int[]) { ENOSYS, EPERM, 0 }; *e; e++) {
                int status = 0;
                pid_t pid = fork();

                ck_assert_int_ge(pid, 0);
                if (pid == 0)
                        child_without_openat2(mnt, *e);
                ck_assert_int_eq(waitpid(pid, &status, 0), pid);
                ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "openat2 answering %s: child status %#x",
                              strerror(*e), (unsigned) status);
        }
        ck_assert_int_eq(fileio_read_string_at(t->fd, "outside/cpuset.cpus", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, VICTIM);
}
END_TEST

START_TEST(test_error_reason) {
        ck_assert_str_eq(fileio_error_reason(-ELOOP), "a symbolic link");
        ck_assert_ptr_nonnull(strstr(fileio_error_reason(-EXDEV), "outside"));
        ck_assert_str_eq(fileio_error_reason(-EBADFD), "not a regular file");
}
END_TEST

int main(void) {
        Suite *s = suite_create("fileio-beneath");
        TCase *tc = unit_tcase(s, "core");

        tcase_add_test(tc, test_openat2);
        tcase_add_test(tc, test_walk);
        tcase_add_test(tc, test_read_write);
        tcase_add_test(tc, test_fallback_chosen_without_openat2);
        tcase_add_test(tc, test_error_reason);
        return unit_run(s);
}
