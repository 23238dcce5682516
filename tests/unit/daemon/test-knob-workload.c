/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The workload knobs (knob-workload.h): a real child process's affinity
 * and a cgroup's cpuset.cpus in a temporary cgroup root, recorded in the
 * restore journal and put back by a restore and by the next start's
 * replay; a thread that is gone or whose TID was reused is never touched;
 * unit keys, and unit knobs kept while there is no bus (the bus itself:
 * test-systemd-unit.c). */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cpuset.h"
#include "fileio.h"
#include "journal.h"
#include "journal-test.h"
#include "knob-workload.h"
#include "log.h"
#include "pin-proc.h"
#include "unit.h"
#include "child-test.h"

/* The journal key of pid's main thread (start time read from /proc). */
static void task_key(pid_t pid, char *buf, size_t size) {
        int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        ProcStat st;

        ck_assert_int_ge(root, 0);
        ck_assert_int_eq(proc_read_stat(root, pid, &st), 0);
        close(root);
        knob_task_key(pid, st.start_time, buf, size);
}

static void affinity_str(pid_t pid, char *buf, size_t size) {
        CpuSet s;

        ck_assert_int_eq(task_affinity_get(pid, &s), 0);
        ck_assert_int_eq(cpuset_format(&s, buf, size), 0);
}

static void set_affinity(pid_t pid, const char *list) {
        CpuSet s;

        ck_assert_int_eq(cpuset_parse(list, &s, NULL), 0);
        ck_assert_int_eq(task_affinity_set(pid, &s), 0);
}

START_TEST(test_keys) {
        static const char *const bad[] = {
                "task:", "task:0:1", "task:-1:1", "task:12", "task:12:", "task:12:x", "task:99999999:1",
                "cgroup:/sys/fs/cgroup/cpuset.cpus",            /* the mount's own file */
                "cgroup:/sys/fs/cgroup/a/../b/cpuset.cpus",
                "cgroup:/sys/fs/cgroup//a/cpuset.cpus",
                "cgroup:/sys/fs/cgroup/./a/cpuset.cpus",
                "cgroup:/sys/fs/cgroupx/a/cpuset.cpus",
                "cgroup:/etc/a/cpuset.cpus",
                "cgroup:sys/fs/cgroup/a/cpuset.cpus",
                "cgroup:/sys/fs/cgroup/a/cpuset.mems",
                "cgroup:/sys/fs/cgroup/a b/cpuset.cpus",
                "sys/fs/cgroup/a/cpuset.cpus",
        };
        WorkloadKnob k;
        char buf[256];

        ck_assert_int_eq(knob_workload_set_cgroup_root("/sys/fs/cgroup"), 0);
        ck_assert_int_eq(knob_workload_parse("task:12:345", &k), 0);
        ck_assert_int_eq(k.kind, WORKLOAD_KNOB_TASK);
        ck_assert_int_eq(k.tid, 12);
        ck_assert_uint_eq(k.start_time, 345);
        ck_assert(knob_workload_value_valid(&k, "0-3,8"));
        ck_assert(!knob_workload_value_valid(&k, ""));
        ck_assert(!knob_workload_value_valid(&k, "0-3 "));
        ck_assert(!knob_workload_value_valid(&k, "3-1"));
        ck_assert_int_eq(knob_workload_parse("cgroup:/sys/fs/cgroup/cpuset/test/cpuset.cpus", &k), 0);
        ck_assert_int_eq(k.kind, WORKLOAD_KNOB_CGROUP);
        ck_assert_str_eq(k.path, "/sys/fs/cgroup/cpuset/test/cpuset.cpus");
        ck_assert(knob_workload_value_valid(&k, ""));
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(knob_workload_parse(bad[i], &k) == -EINVAL, "%s accepted", bad[i]);
        ck_assert_int_eq(knob_cgroup_key("/sys/fs/cgroup/cpuset/x", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "cgroup:/sys/fs/cgroup/cpuset/x/cpuset.cpus");
        ck_assert_int_eq(knob_cgroup_key("/tmp/x", buf, sizeof(buf)), -EINVAL);
        ck_assert_int_eq(knob_cgroup_key("/sys/fs/cgroup/../x", buf, sizeof(buf)), -EINVAL);
        ck_assert_int_eq(knob_workload_set_cgroup_root("relative"), -EINVAL);
        ck_assert_int_eq(knob_workload_set_cgroup_root("/"), -EINVAL);
}
END_TEST

/* The child's affinity recorded, changed, and put back by a restore; the
 * journal holds a CPU list with a comma, written and read back whole. */
START_TEST(test_task_affinity_restored) {
        pid_t pid = child_sleeper();         /* before the journal: a child keeps no lock */
        FakeTree *t = unit_tree(NULL);
        Journal *j = journal_test_open(t);
        char key[64], orig[256], now[256];
        ErrorInfo e = {};
        size_t n;

        task_key(pid, key, sizeof(key));
        affinity_str(pid, orig, sizeof(orig));
        ck_assert_int_eq(journal_record(j, key, orig), 1);
        ck_assert_int_eq(journal_record(j, key, "0"), 0);       /* the first original wins */
        set_affinity(pid, "0");
        affinity_str(pid, now, sizeof(now));
        ck_assert_str_eq(now, "0");
        ck_assert_int_eq(journal_restore(j, t->fd, &e), 1);
        affinity_str(pid, now, sizeof(now));
        ck_assert_str_eq(now, orig);
        journal_entries(j, &n);
        ck_assert_uint_eq(n, 0);
        journal_free(j);
        child_reap(pid);
}
END_TEST

/* A killed daemon's journal: the next start replays the affinity. */
START_TEST(test_task_affinity_replayed) {
        pid_t pid = child_sleeper();         /* before the journal: a child keeps no lock */
        FakeTree *t = unit_tree(NULL);
        Journal *j = journal_test_open(t);
        char key[64], orig[256], now[256];

        task_key(pid, key, sizeof(key));
        affinity_str(pid, orig, sizeof(orig));
        ck_assert_int_eq(journal_record(j, key, orig), 1);
        set_affinity(pid, "0");
        journal_free(j);                /* as if killed: the file stays */
        j = journal_test_open(t);
        ck_assert_int_eq(journal_replay(j, t->fd), 1);
        affinity_str(pid, now, sizeof(now));
        ck_assert_str_eq(now, orig);
        journal_free(j);
        child_reap(pid);
}
END_TEST

/* A TID whose start time is not the recorded one is another thread: it
 * is never touched, and the entry is forgotten; so is an exited one. */
START_TEST(test_task_gone_or_reused) {
        pid_t pid = child_sleeper(), dead = child_sleeper();
        FakeTree *t = unit_tree(NULL);
        Journal *j = journal_test_open(t);
        char key[64], other[64], now[256];
        ErrorInfo e = {};
        size_t n;

        task_key(pid, key, sizeof(key));
        snprintf(other, sizeof(other), "task:%d:%s", (int) pid, "1");   /* the same TID, another start */
        set_affinity(pid, "0");
        ck_assert_int_eq(journal_record(j, other, "1"), 1);
        task_key(dead, key, sizeof(key));
        ck_assert_int_eq(journal_record(j, key, "1"), 1);
        child_reap(dead);
        ck_assert_int_eq(journal_restore(j, t->fd, &e), 0);
        journal_entries(j, &n);
        ck_assert_uint_eq(n, 0);
        affinity_str(pid, now, sizeof(now));
        ck_assert_str_eq(now, "0");
        journal_free(j);
        child_reap(pid);
}
END_TEST

/* A cgroup's cpuset.cpus under a temporary cgroup root: put back (also
 * the empty value of a v2 cgroup that inherits); a removed cgroup is
 * forgotten. */
START_TEST(test_cgroup_cpus_restored) {
        FakeTree *t = unit_tree(NULL);
        Journal *j = journal_test_open(t);
        char root[512], dir[600], key[700], buf[64];
        ErrorInfo e = {};
        size_t n;

        snprintf(root, sizeof(root), "%s/cgroup", t->path);
        snprintf(dir, sizeof(dir), "%s/cpuset/test", root);
        ck_assert_int_eq(faketree_write(t->fd, "cgroup/cpuset/test/cpuset.cpus", "0-1\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, "cgroup/v2/cpuset.cpus", "\n"), 0);
        ck_assert_int_eq(knob_workload_set_cgroup_root(root), 0);

        ck_assert_int_eq(knob_cgroup_key(dir, key, sizeof(key)), 0);
        ck_assert_int_eq(journal_record(j, key, "0-1"), 1);
        ck_assert_int_eq(faketree_write(t->fd, "cgroup/cpuset/test/cpuset.cpus", "1\n"), 0);
        snprintf(dir, sizeof(dir), "%s/v2", root);
        ck_assert_int_eq(knob_cgroup_key(dir, key, sizeof(key)), 0);
        ck_assert_int_eq(journal_record(j, key, ""), 1);
        ck_assert_int_eq(faketree_write(t->fd, "cgroup/v2/cpuset.cpus", "1\n"), 0);
        ck_assert_int_eq(journal_restore(j, t->fd, &e), 2);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "cgroup/cpuset/test/cpuset.cpus", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "0-1");
        ck_assert_int_eq(fileio_read_string_at(t->fd, "cgroup/v2/cpuset.cpus", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "");

        ck_assert_int_eq(journal_record(j, key, ""), 1);
        ck_assert_int_eq(unlinkat(t->fd, "cgroup/v2/cpuset.cpus", 0), 0);
        ck_assert_int_eq(journal_restore(j, t->fd, &e), 0);
        journal_entries(j, &n);
        ck_assert_uint_eq(n, 0);
        journal_free(j);
        ck_assert_int_eq(knob_workload_set_cgroup_root("/sys/fs/cgroup"), 0);
}
END_TEST

/* unit:NAME keys: pin-target.h's names of a type with a cgroup; "" is a
 * value ("not set"). */
START_TEST(test_unit_keys) {
        static const char *const bad[] = {
                "unit:", "unit:foo", "unit:foo.target", "unit:foo.timer", "unit:foo@.service", "unit:a b.service",
                "unit:foo.service\n", "unit:/foo.service", "unit:.service",
        };
        WorkloadKnob k;
        char buf[300];

        ck_assert_int_eq(knob_workload_parse("unit:postgresql.service", &k), 0);
        ck_assert_int_eq(k.kind, WORKLOAD_KNOB_UNIT);
        ck_assert_str_eq(k.unit, "postgresql.service");
        ck_assert(knob_workload_value_valid(&k, ""));
        ck_assert(knob_workload_value_valid(&k, "0-1,4"));
        ck_assert(!knob_workload_value_valid(&k, "0-1 "));
        ck_assert_int_eq(knob_workload_parse("unit:getty@tty1.service", &k), 0);
        ck_assert_int_eq(knob_workload_parse("unit:user-1000.slice", &k), 0);
        ck_assert_int_eq(knob_workload_parse("unit:run-u12.scope", &k), 0);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(knob_workload_parse(bad[i], &k) == -EINVAL, "%s accepted", bad[i]);
        ck_assert_int_eq(knob_unit_key("foo.service", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "unit:foo.service");
        ck_assert_int_eq(knob_unit_key("foo.target", buf, sizeof(buf)), -EINVAL);
        ck_assert_int_eq(knob_unit_key("foo.service", buf, 8), -ENAMETOOLONG);
}
END_TEST

/* Without a bus a unit knob is "not now": a restore keeps it, without
 * failing, and so does the next start's replay; it is never forgotten. */
START_TEST(test_unit_kept_without_bus) {
        FakeTree *t = unit_tree(NULL);
        Journal *j = journal_test_open(t);
        ErrorInfo e = {};
        WorkloadKnob k;
        char buf[64];
        size_t n;

        knob_workload_set_system_bus(NULL);
        ck_assert_int_eq(knob_workload_parse("unit:foo.service", &k), 0);
        ck_assert_int_eq(knob_workload_read(&k, buf, sizeof(buf)), -ENOTCONN);
        ck_assert_int_eq(knob_workload_write(&k, "0"), -ENOTCONN);
        ck_assert_int_eq(journal_record(j, "unit:foo.service", ""), 1);
        ck_assert_int_eq(journal_record(j, "unit:bar.service", "0-1"), 1);
        ck_assert_int_eq(journal_restore(j, t->fd, &e), 0);
        journal_entries(j, &n);
        ck_assert_uint_eq(n, 2);
        journal_free(j);                /* as if killed */
        j = journal_test_open(t);
        ck_assert_int_eq(journal_replay(j, t->fd), 2);
        ck_assert_str_eq(journal_original(j, "unit:foo.service"), "");
        ck_assert_str_eq(journal_original(j, "unit:bar.service"), "0-1");
        journal_free(j);
}
END_TEST

/* Journal lines of the workload kinds that are not valid are corrupt:
 * skipped, never acted on. */
START_TEST(test_bad_lines_skipped) {
        FakeTree *t = unit_tree(NULL);
        Journal *j;
        size_t n;

        ck_assert_int_eq(faketree_write(t->fd, "run/" JOURNAL_FILE,
                                        "# idlepolicyd restore journal v1 root=%s\n"
                                        "task:1:1 0-1;reboot\n"
                                        "cgroup:/etc/shadow 0\n"
                                        "cgroup:/sys/fs/cgroup/../../etc/cpuset.cpus 0\n"
                                        "task:1 0\n"
                                        "unit:foo.target 0\n"
                                        "unit:foo.service x\n", t->path), 0);
        j = journal_test_open(t);
        ck_assert_int_eq(journal_replay(j, t->fd), 0);
        journal_entries(j, &n);
        ck_assert_uint_eq(n, 0);
        journal_free(j);
}
END_TEST

static Suite *workload_suite(void) {
        Suite *s = suite_create("knob-workload");
        TCase *tc = unit_tcase(s, "workload");

        tcase_add_test(tc, test_keys);
        tcase_add_test(tc, test_task_affinity_restored);
        tcase_add_test(tc, test_task_affinity_replayed);
        tcase_add_test(tc, test_task_gone_or_reused);
        tcase_add_test(tc, test_cgroup_cpus_restored);
        tcase_add_test(tc, test_bad_lines_skipped);
        tcase_add_test(tc, test_unit_keys);
        tcase_add_test(tc, test_unit_kept_without_bus);
        return s;
}

int main(void) {
        log_set_max_level(LOG_NOTICE);
        return unit_run(workload_suite());
}
