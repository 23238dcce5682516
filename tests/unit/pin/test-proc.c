/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "pin-proc.h"
#include "unit.h"

/* A proc/PID/stat line as this machine's kernel writes it (52 fields). */
#define STAT_FORMAT "%d (%s) %c %d %d %d 0 -1 %u 171 0 0 0 3 1 0 0 20 0 1 0 %llu 8192000 512 " \
        "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0\n"

#define KTHREAD_FLAGS (0x00008040u | PROC_PF_KTHREAD | PROC_PF_NO_SETAFFINITY)

/* Writes proc/PID/stat for pid with this comm, flags and start time. */
static void write_stat(FakeTree *t, int pid, const char *comm, unsigned flags, unsigned long long start) {
        char path[64];

        snprintf(path, sizeof(path), "proc/%d/stat", pid);
        ck_assert_int_eq(faketree_write(t->fd, path, STAT_FORMAT, pid, comm, 'S', 1, pid, pid, flags, start), 0);
}

static ProcStat read_ok(FakeTree *t, pid_t pid) {
        ProcStat st;

        ck_assert_int_eq(proc_read_stat(t->fd, pid, &st), 0);
        ck_assert_int_eq(st.pid, pid);
        return st;
}

static void read_fails(FakeTree *t, pid_t pid, const char *content, int error) {
        char path[64];
        ProcStat st = { .pid = 4242 };

        snprintf(path, sizeof(path), "proc/%d/stat", (int) pid);
        ck_assert_int_eq(faketree_write(t->fd, path, "%s", content), 0);
        ck_assert_msg(proc_read_stat(t->fd, pid, &st) == error, "accepted: %s", content);
        ck_assert_int_eq(st.pid, 4242);
}

START_TEST(test_stat) {
        FakeTree *t = unit_tree(NULL);
        ProcStat st;

        write_stat(t, 1234, "postgres", 0x00400140, 98765);
        st = read_ok(t, 1234);
        ck_assert_str_eq(st.comm, "postgres");
        ck_assert_int_eq(st.state, 'S');
        ck_assert_int_eq(st.ppid, 1);
        ck_assert_uint_eq(st.flags, 0x00400140);
        ck_assert(!st.kthread);
        ck_assert(!st.no_setaffinity);
        ck_assert_uint_eq(st.start_time, 98765);

        /* a kernel thread: PF_KTHREAD and PF_NO_SETAFFINITY */
        write_stat(t, 2, "kthreadd", KTHREAD_FLAGS, 0);
        st = read_ok(t, 2);
        ck_assert(st.kthread);
        ck_assert(st.no_setaffinity);
        ck_assert_uint_eq(st.start_time, 0);
        write_stat(t, 3, "rcu_gp", PROC_PF_KTHREAD, 1);
        st = read_ok(t, 3);
        ck_assert(st.kthread && !st.no_setaffinity);

        /* the largest start time */
        write_stat(t, 4, "x", 0, 18446744073709551615ULL);
        ck_assert_uint_eq(read_ok(t, 4).start_time, UINT64_MAX);
}
END_TEST

START_TEST(test_stat_comm) {
        FakeTree *t = unit_tree(NULL);
        char long_comm[100];

        /* the comm ends at the last ')', whatever it holds */
        write_stat(t, 10, "a) (b", 0, 5);
        ck_assert_str_eq(read_ok(t, 10).comm, "a) (b");
        write_stat(t, 11, "evil) R 99 99 99 0 -1 0 (", 0, 6);
        ck_assert_str_eq(read_ok(t, 11).comm, "evil) R 99 99 99 0 -1 0 (");
        ck_assert_int_eq(read_ok(t, 11).ppid, 1);
        ck_assert_uint_eq(read_ok(t, 11).start_time, 6);
        write_stat(t, 12, "with space", 0, 7);
        ck_assert_str_eq(read_ok(t, 12).comm, "with space");
        write_stat(t, 13, "))", 0, 8);
        ck_assert_str_eq(read_ok(t, 13).comm, "))");
        write_stat(t, 14, "", 0, 9);
        ck_assert_str_eq(read_ok(t, 14).comm, "");
        /* a long kernel-thread name is cut to PROC_COMM_MAX - 1 bytes */
        memset(long_comm, 'k', 80);
        long_comm[80] = '\0';
        write_stat(t, 15, long_comm, KTHREAD_FLAGS, 10);
        ck_assert_uint_eq(strlen(read_ok(t, 15).comm), PROC_COMM_MAX - 1);
        ck_assert_uint_eq(read_ok(t, 15).start_time, 10);
}
END_TEST

START_TEST(test_stat_bad) {
        FakeTree *t = unit_tree(NULL);
        char big[PROC_STAT_MAX + 100];
        ProcStat st = { .pid = 4242 };

        /* no such process */
        ck_assert_int_eq(proc_read_stat(t->fd, 999, &st), -ESRCH);
        ck_assert_int_eq(st.pid, 4242);
        ck_assert_int_eq(proc_read_stat(t->fd, 0, &st), -EINVAL);
        ck_assert_int_eq(proc_read_stat(t->fd, -1, &st), -EINVAL);

        /* truncated: 15 fields, 21 fields, an empty file, a cut comm */
        read_fails(t, 20, "20 (x) S 1 20 20 0 -1 4194560 171 0 0 0 3 1\n", -EBADMSG);
        read_fails(t, 20, "20 (x) S 1 20 20 0 -1 4194560 171 0 0 0 3 1 0 0 20 0 1 0\n", -EBADMSG);
        read_fails(t, 20, "20 (x) S 1 20 20 0 -1 4194560 171 0 0 0 3 1 0 0 20 0 1 0 ", -EBADMSG);
        read_fails(t, 20, "", -EBADMSG);
        read_fails(t, 20, "20 (postg", -EBADMSG);
        read_fails(t, 20, "20 (x)", -EBADMSG);
        /* malformed */
        read_fails(t, 20, "20 (x) S 1 20 20 0 -1 4194560 171 0 0 0 3 1 0 0 20 0 1 0 12x 0\n", -EBADMSG);
        read_fails(t, 20, "20 (x) S 1 20 20 0 -1 -5 171 0 0 0 3 1 0 0 20 0 1 0 12 0\n", -EBADMSG);
        read_fails(t, 20, "20 (x) S 1 20 20 0 -1 4294967296 171 0 0 0 3 1 0 0 20 0 1 0 12 0\n", -EBADMSG);
        read_fails(t, 20, "20 (x) S  1 20 20 0 -1 4194560 171 0 0 0 3 1 0 0 20 0 1 0 12 0\n", -EBADMSG);
        read_fails(t, 20, "20 (x) SS 1 20 20 0 -1 4194560 171 0 0 0 3 1 0 0 20 0 1 0 12 0\n", -EBADMSG);
        read_fails(t, 20, "20 (x) S 1 20 20 0 -1 4194560 171 0 0 0 3 1 0 0 20 0 1 0 99999999999999999999 0\n", -EBADMSG);
        read_fails(t, 20, "x20 (x) S 1 20 20 0 -1 4194560 171 0 0 0 3 1 0 0 20 0 1 0 12 0\n", -EBADMSG);
        read_fails(t, 20, "20 x) S 1 20 20 0 -1 4194560 171 0 0 0 3 1 0 0 20 0 1 0 12 0\n", -EBADMSG);
        /* another process's file */
        read_fails(t, 20, "21 (x) S 1 20 20 0 -1 4194560 171 0 0 0 3 1 0 0 20 0 1 0 12 0\n", -EBADMSG);
        /* a NUL byte inside */
        ck_assert_int_eq(faketree_write(t->fd, "proc/20/stat", "20 (x%c) S 1 20 20 0 -1 0 1 0 0 0 3 1 0 0 20 0 1 0 12 0\n", 0), 0);
        ck_assert_int_eq(proc_read_stat(t->fd, 20, &st), -EBADMSG);
        /* larger than PROC_STAT_MAX */
        memset(big, 'x', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        ck_assert_int_eq(faketree_write(t->fd, "proc/20/stat", "20 (%s) S 1 20 20 0 -1 0 1 0 0 0 3 1 0 0 20 0 1 0 12 0\n", big), 0);
        ck_assert_int_eq(proc_read_stat(t->fd, 20, &st), -EBADMSG);
        /* the minimum: exactly 22 fields, no newline */
        ck_assert_int_eq(faketree_write(t->fd, "proc/20/stat", "20 (x) R 0 20 20 0 -1 64 171 0 0 0 3 1 0 0 20 0 1 0 12"), 0);
        ck_assert_int_eq(proc_read_stat(t->fd, 20, &st), 0);
        ck_assert_uint_eq(st.start_time, 12);
        ck_assert_int_eq(st.ppid, 0);
        ck_assert_int_eq(st.state, 'R');
        ck_assert_int_eq(proc_parse_stat("1 (init) S 0 1 1 0 -1 4194560 1 0 0 0 3 1 0 0 20 0 1 0 7 0\n", &st), 0);
        ck_assert_int_eq(proc_parse_stat("0 (init) S 0 1 1 0 -1 4194560 1 0 0 0 3 1 0 0 20 0 1 0 7 0\n", &st), -EBADMSG);
}
END_TEST

/* Makes process pid with an exe link to link and asserts that
 * proc_read_exe() gives expected. */
static void exe_is(FakeTree *t, int pid, const char *link, const char *expected) {
        char path[64], buf[64];

        write_stat(t, pid, "x", 0, 1);
        snprintf(path, sizeof(path), "proc/%d/exe", pid);
        ck_assert_int_eq(symlinkat(link, t->fd, path), 0);
        ck_assert_int_eq(proc_read_exe(t->fd, pid, buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, expected);
}

START_TEST(test_exe) {
        FakeTree *t = unit_tree(NULL);
        char buf[64];

        exe_is(t, 100, "/usr/bin/ffmpeg", "/usr/bin/ffmpeg");
        /* replaced while running (an upgrade) */
        exe_is(t, 101, "/usr/bin/ffmpeg (deleted)", "/usr/bin/ffmpeg");
        /* only one suffix is the kernel's */
        exe_is(t, 102, "/tmp/a (deleted) (deleted)", "/tmp/a (deleted)");
        /* nothing but the suffix is a name, not a suffix */
        exe_is(t, 103, " (deleted)", " (deleted)");

        /* too long for the buffer: 15 bytes do not fit into 15 */
        ck_assert_int_eq(proc_read_exe(t->fd, 100, buf, 15), -ENAMETOOLONG);
        ck_assert_int_eq(proc_read_exe(t->fd, 100, buf, 16), 0);

        /* a kernel thread has no exe; a missing process is -ESRCH */
        write_stat(t, 2, "kthreadd", KTHREAD_FLAGS, 0);
        ck_assert_int_eq(proc_read_exe(t->fd, 2, buf, sizeof(buf)), -ENOENT);
        ck_assert_int_eq(proc_read_exe(t->fd, 999, buf, sizeof(buf)), -ESRCH);
        ck_assert_int_eq(proc_read_exe(t->fd, 0, buf, sizeof(buf)), -EINVAL);
        ck_assert_int_eq(proc_read_exe(t->fd, 100, buf, 0), -EINVAL);
}
END_TEST

START_TEST(test_tgid) {
        FakeTree *t = unit_tree(NULL);
        pid_t tgid = 4242;

        /* a process, and a thread of it (proc/TID exists for threads too) */
        ck_assert_int_eq(faketree_write(t->fd, "proc/100/status", "Name:\tsleep\nUmask:\t0022\nState:\tS\n"
                                        "Tgid:\t100\nNgid:\t0\nPid:\t100\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, "proc/101/status", "Name:\tworker\nTgid:\t100\nPid:\t101\n"), 0);
        ck_assert_int_eq(proc_read_tgid(t->fd, 100, &tgid), 0);
        ck_assert_int_eq(tgid, 100);
        ck_assert_int_eq(proc_read_tgid(t->fd, 101, &tgid), 0);
        ck_assert_int_eq(tgid, 100);
        ck_assert_int_eq(faketree_write(t->fd, "proc/102/status", "Tgid: 102\n"), 0);
        ck_assert_int_eq(proc_read_tgid(t->fd, 102, &tgid), 0);
        ck_assert_int_eq(tgid, 102);

        tgid = 4242;
        ck_assert_int_eq(proc_read_tgid(t->fd, 103, &tgid), -ESRCH);
        ck_assert_int_eq(proc_read_tgid(t->fd, 0, &tgid), -EINVAL);
        ck_assert_int_eq(faketree_write(t->fd, "proc/104/status", "Name:\tx\nPid:\t104\n"), 0);
        ck_assert_int_eq(proc_read_tgid(t->fd, 104, &tgid), -EBADMSG);
        ck_assert_int_eq(faketree_write(t->fd, "proc/105/status", "Name:\tx\nTgid:\t-1\n"), 0);
        ck_assert_int_eq(proc_read_tgid(t->fd, 105, &tgid), -EBADMSG);
        ck_assert_int_eq(faketree_write(t->fd, "proc/106/status", "Name:\tx\nTgid:\t0\n"), 0);
        ck_assert_int_eq(proc_read_tgid(t->fd, 106, &tgid), -EBADMSG);
        ck_assert_int_eq(faketree_write(t->fd, "proc/107/status", "Name:\tx\nMyTgid:\t1\n"), 0);
        ck_assert_int_eq(proc_read_tgid(t->fd, 107, &tgid), -EBADMSG);
        ck_assert_int_eq(tgid, 4242);
}
END_TEST

START_TEST(test_list) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 77;

        write_stat(t, 123, "a", 0, 1);
        write_stat(t, 42, "b", 0, 1);
        write_stat(t, 1, "init", 0, 1);
        ck_assert_int_eq(mkdirat(t->fd, "proc/0123", 0755), 0);        /* not a pid */
        ck_assert_int_eq(mkdirat(t->fd, "proc/4194305", 0755), 0);     /* beyond PID_MAX_LIMIT */
        ck_assert_int_eq(mkdirat(t->fd, "proc/12x", 0755), 0);
        ck_assert_int_eq(symlinkat("123", t->fd, "proc/self"), 0);
        ck_assert_int_eq(proc_list_pids(t->fd, &pids, &n), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_int_eq(pids[0], 1);
        ck_assert_int_eq(pids[1], 42);
        ck_assert_int_eq(pids[2], 123);
        free(TAKE_PTR(pids));

        ck_assert_int_eq(faketree_write(t->fd, "proc/123/task/130/stat", "x"), 0);
        ck_assert_int_eq(faketree_write(t->fd, "proc/123/task/123/stat", "x"), 0);
        ck_assert_int_eq(faketree_write(t->fd, "proc/123/task/124/stat", "x"), 0);
        ck_assert_int_eq(proc_list_tasks(t->fd, 123, &pids, &n), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_int_eq(pids[0], 123);
        ck_assert_int_eq(pids[1], 124);
        ck_assert_int_eq(pids[2], 130);
        free(TAKE_PTR(pids));

        ck_assert_int_eq(mkdirat(t->fd, "proc/42/task", 0755), 0);
        n = 77;
        ck_assert_int_eq(proc_list_tasks(t->fd, 42, &pids, &n), 0);
        ck_assert_uint_eq(n, 0);
        ck_assert_ptr_null(pids);
        ck_assert_int_eq(proc_list_tasks(t->fd, 999, &pids, &n), -ESRCH);
        ck_assert_int_eq(proc_list_tasks(t->fd, 0, &pids, &n), -EINVAL);
        ck_assert_int_eq(faketree_rm_rf(t->fd, "proc"), 0);
        ck_assert_int_eq(proc_list_pids(t->fd, &pids, &n), -ENOENT);
        ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(test_list_many) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_free_ pid_t *pids = NULL;
        size_t n;
        char path[32];

        /* enough to grow the array a few times */
        for (int pid = 1000; pid > 0; pid -= 3) {
                snprintf(path, sizeof(path), "proc/%d", pid);
                ck_assert_int_eq(mkdirat(t->fd, path, 0755), 0);
        }
        ck_assert_int_eq(proc_list_pids(t->fd, &pids, &n), 0);
        ck_assert_uint_eq(n, 334);
        for (size_t i = 0; i < n; i++)
                ck_assert_int_eq(pids[i], 1 + 3 * (int) i);
}
END_TEST

START_TEST(test_rule_matches) {
        ProcStat st = { .pid = 100, .comm = "ffmpeg", .start_time = 50 };
        PinTarget exe, comm, pid;

        ck_assert_int_eq(pin_target_parse("exe:/usr/bin/ffmpeg", &exe, NULL), 0);
        ck_assert_int_eq(pin_target_parse("comm:ffmpeg", &comm, NULL), 0);
        ck_assert_int_eq(pin_target_parse("pid:100", &pid, NULL), 0);
        ck_assert(pin_rule_matches(&exe, &st, "/usr/bin/ffmpeg"));
        ck_assert(!pin_rule_matches(&exe, &st, "/usr/bin/ffmpeg2"));
        ck_assert(!pin_rule_matches(&exe, &st, "/usr/bin"));
        ck_assert(!pin_rule_matches(&exe, &st, NULL));
        ck_assert(pin_rule_matches(&comm, &st, NULL));
        ck_assert(pin_rule_matches(&comm, &st, "/other"));
        ck_assert(!pin_rule_matches(&pid, &st, "/usr/bin/ffmpeg"));
        strcpy(st.comm, "ffmpe");
        ck_assert(!pin_rule_matches(&comm, &st, NULL));
        strcpy(st.comm, "ffmpeg");
        st.kthread = true;
        ck_assert(!pin_rule_matches(&comm, &st, NULL));
        ck_assert(!pin_rule_matches(&exe, &st, "/usr/bin/ffmpeg"));

        ck_assert(pin_pid_matches(&pid, &st));
        pid.start_time = 50;
        ck_assert(pin_pid_matches(&pid, &st));
        pid.start_time = 51;
        ck_assert(!pin_pid_matches(&pid, &st));  /* the pid was reused */
        pid.start_time = 50;
        st.pid = 101;
        ck_assert(!pin_pid_matches(&pid, &st));
        ck_assert(!pin_pid_matches(&comm, &st));
}
END_TEST

int main(void) {
        Suite *s = suite_create("pin-proc");
        TCase *stat = unit_tcase(s, "stat");
        TCase *exe = unit_tcase(s, "exe");
        TCase *list = unit_tcase(s, "list");
        TCase *match = unit_tcase(s, "match");

        tcase_add_test(stat, test_stat);
        tcase_add_test(stat, test_stat_comm);
        tcase_add_test(stat, test_stat_bad);
        tcase_add_test(exe, test_exe);
        tcase_add_test(exe, test_tgid);
        tcase_add_test(list, test_list);
        tcase_add_test(list, test_list_many);
        tcase_add_test(match, test_rule_matches);
        return unit_run(s);
}
