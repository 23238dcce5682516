/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pidfd watch (daemon/process-watch.c) on real processes: a grandchild
 * (not ours to reap) is seen to end; an ended one is seen at once; a start
 * time that does not match is refused; the stat parser survives a comm
 * with spaces and parentheses.  No privileges needed. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "process-watch.h"
#include "watch-test.h"

typedef struct Ended {
        bool done;
        pid_t pid;
        ProcessWatch *watch;           /* freed by the callback when set */
} Ended;

static void on_exit_cb(pid_t pid, void *userdata) {
        Ended *x = userdata;

        x->done = true;
        x->pid = pid;
        x->watch = process_watch_free(x->watch);
}

/* Reads fd until EOF (or an error). */
static void wait_eof(int fd) {
        for (;;) {
                char c;
                ssize_t n = read(fd, &c, 1);

                if (n == 0 || (n < 0 && errno != EINTR))
                        return;
        }
}

/* Forks a child that closes other_fd, waits until fd (the read end of a
 * pipe) reaches EOF, then exits.  Returns its PID. */
static pid_t spawn_waiter(int fd, int other_fd) {
        pid_t pid = fork();

        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                close(other_fd);
                wait_eof(fd);
                _exit(0);
        }
        return pid;
}

/* A grandchild, whose parent has exited: it is init's (or a subreaper's),
 * not ours.  It exits when *ret_release is closed.  Returns its PID. */
static pid_t spawn_grandchild(int *ret_release) {
        int report[2], release[2], status;
        pid_t middle, pid = 0;

        ck_assert_int_eq(pipe2(report, O_CLOEXEC), 0);
        ck_assert_int_eq(pipe2(release, O_CLOEXEC), 0);
        middle = fork();
        ck_assert_int_ge(middle, 0);
        if (middle == 0) {
                pid = spawn_waiter(release[0], release[1]);
                _exit(write(report[1], &pid, sizeof(pid)) == sizeof(pid) ? 0 : 1);
        }
        close(report[1]);
        close(release[0]);
        ck_assert_int_eq(read(report[0], &pid, sizeof(pid)), sizeof(pid));
        close(report[0]);
        ck_assert_int_eq(waitpid(middle, &status, 0), middle);
        ck_assert_int_eq(status, 0);
        *ret_release = release[1];
        return pid;
}

START_TEST(test_grandchild_exit) {
        Ended x = {};
        uint64_t start;
        sd_event *e;
        int release;
        pid_t pid = spawn_grandchild(&release);

        ck_assert_int_eq(waitpid(pid, NULL, WNOHANG), -1);
        ck_assert_int_eq(errno, ECHILD);
        ck_assert_int_eq(process_get_start_time(pid, &start), 0);
        ck_assert_int_eq(sd_event_new(&e), 0);
        ck_assert_int_eq(process_watch_new(e, pid, start, on_exit_cb, &x, &x.watch), 0);
        watch_test_run_for(e, 100 * 1000);
        ck_assert(!x.done);             /* it waits for release */
        close(release);
        ck_assert(watch_test_run_until(e, &x.done, WATCH_TEST_DEADLINE_USEC));
        ck_assert_int_eq(x.pid, pid);
        ck_assert_ptr_null(x.watch);
        sd_event_unref(e);
}
END_TEST

START_TEST(test_already_ended) {
        Ended x = {};
        siginfo_t si;
        sd_event *e;
        pid_t pid = fork();

        ck_assert_int_ge(pid, 0);
        if (pid == 0)
                _exit(0);
        /* A zombie: ended, not reaped. */
        ck_assert_int_eq(waitid(P_PID, (id_t) pid, &si, WEXITED | WNOWAIT), 0);
        ck_assert_int_eq(sd_event_new(&e), 0);
        ck_assert_int_eq(process_watch_new(e, pid, PROCESS_START_TIME_ANY, on_exit_cb, &x, &x.watch), 0);
        ck_assert(!x.done);             /* not from the constructor */
        ck_assert(watch_test_run_until(e, &x.done, WATCH_TEST_DEADLINE_USEC));
        ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
        sd_event_unref(e);
}
END_TEST

START_TEST(test_verified) {
        int fds[2], fd = -1;
        uint64_t start;
        pid_t pid;

        ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
        pid = spawn_waiter(fds[0], fds[1]);
        close(fds[0]);
        ck_assert_int_eq(process_get_start_time(pid, &start), 0);
        ck_assert_int_eq(process_pidfd_open_verified(pid, start + 1, &fd), -ESRCH);
        ck_assert_int_eq(process_pidfd_open_verified(pid, start - 1, &fd), -ESRCH);
        ck_assert_int_eq(fd, -1);
        ck_assert_int_eq(process_pidfd_open_verified(pid, start, &fd), 0);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(pidfd_send_signal(fd, 0, NULL, 0), 0);
        close(fd);
        ck_assert_int_eq(process_pidfd_open_verified(pid, PROCESS_START_TIME_ANY, &fd), 0);
        close(fd);

        close(fds[1]);
        ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
        fd = -1;
        ck_assert_int_eq(process_pidfd_open_verified(pid, start, &fd), -ESRCH);
        ck_assert_int_eq(process_get_start_time(pid, &start), -ESRCH);
        ck_assert_int_eq(fd, -1);
}
END_TEST

START_TEST(test_invalid) {
        int fd = -1;
        uint64_t t;

        ck_assert_int_eq(process_pidfd_open_verified(0, PROCESS_START_TIME_ANY, &fd), -EINVAL);
        ck_assert_int_eq(process_pidfd_open_verified(-1, PROCESS_START_TIME_ANY, &fd), -EINVAL);
        ck_assert_int_eq(process_watch_new_pidfd(NULL, -1, 1, on_exit_cb, NULL, NULL), -EBADF);
        ck_assert_int_eq(process_get_start_time(getpid(), &t), 0);
        ck_assert_uint_gt(t, 0);
        ck_assert_ptr_null(process_watch_free(NULL));
}
END_TEST

/* comm may hold ") (" and spaces: the start time is after the last ')'.
 * The child reports its start time before it renames itself. */
START_TEST(test_odd_comm) {
        int fds[2], ready[2];
        uint64_t before = 0, after;
        pid_t pid;

        ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
        ck_assert_int_eq(pipe2(ready, O_CLOEXEC), 0);
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                close(fds[1]);
                close(ready[0]);
                if (process_get_start_time(getpid(), &before) < 0 || prctl(PR_SET_NAME, ") 1 2 (3 4) 5") < 0)
                        _exit(1);
                if (write(ready[1], &before, sizeof(before)) != sizeof(before))
                        _exit(1);
                wait_eof(fds[0]);
                _exit(0);
        }
        close(fds[0]);
        close(ready[1]);
        ck_assert_int_eq(read(ready[0], &before, sizeof(before)), sizeof(before));
        close(ready[0]);
        ck_assert_int_eq(process_get_start_time(pid, &after), 0);
        ck_assert_uint_eq(after, before);
        close(fds[1]);
        ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
}
END_TEST

int main(void) {
        const TTest *const tests[] = {
                test_grandchild_exit, test_already_ended, test_verified, test_invalid, test_odd_comm,
        };
        int fd = pidfd_open(getpid(), 0);

        if (fd < 0 && errno == ENOSYS)
                return watch_test_skip("no pidfd_open() in this kernel");
        if (fd >= 0)
                close(fd);
        return watch_test_main("process-watch", tests, ELEMENTSOF(tests), NULL, NULL);
}
