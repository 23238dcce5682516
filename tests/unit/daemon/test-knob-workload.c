/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The workload knob types (knob-task.h, knob-cgroup.h, knob-unit.h,
 * knob-irq.h) through the change layer: a real child process's affinity
 * and a cgroup's cpuset.cpus in a temporary cgroup root, changed by a pin's
 * change set and put back by its restore and by the next start's replay; a
 * thread that is gone or whose TID was reused is never touched; a cgroup
 * reached through a symbolic link is never written; unit keys,
 * and unit knobs kept while there is no bus (the bus itself:
 * test-systemd-unit.c); interrupts under the root, never the host's; a
 * thread's affinity journaled without fsync (counted through
 * -Wl,--wrap=fsync), a cgroup's with. */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "change-test.h"
#include "cpuset.h"
#include "fileio.h"
#include "fsync-count.h"
#include "knob-cgroup.h"
#include "knob-irq.h"
#include "knob-task.h"
#include "knob-unit.h"
#include "log.h"
#include "pin-proc.h"
#include "unit.h"

#include "child-test.h"

#define PIN1 CHANGE_OWNER_PIN_ID(1)

/* The key of pid's main thread (start time read from /proc). */
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

/* Writes the restore journal file of t (a previous run's). */
static void write_journal_file(const FakeTree *t, const char *body) {
        ck_assert_int_eq(faketree_write(t->fd, "run/" RESTORE_JOURNAL_FILE, "# idlepolicyd restore journal v1 root=%s\n%s",
                                        t->path, body), 0);
}

static int parse(const KnobEnv *env, const char *key, KnobAddr *ret) {
        return knob_parse_key(knob_types_default, env, key, ret);
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
                "irq:", "irq:01", "irq:-1", "irq:1000001", "irq:1 ",
        };
        KnobEnv env = KNOB_ENV_NULL;
        KnobAddr a;
        char buf[256];

        ck_assert_int_eq(knob_env_set_cgroup_root(&env, "/sys/fs/cgroup"), 0);
        ck_assert_int_eq(parse(&env, "task:12:345", &a), 0);
        ck_assert_ptr_eq(a.type, &knob_type_task);
        ck_assert_int_eq(a.tid, 12);
        ck_assert_uint_eq(a.start_time, 345);
        ck_assert(a.type->value_valid(&a, "0-3,8"));
        ck_assert(!a.type->value_valid(&a, ""));
        ck_assert(!a.type->value_valid(&a, "0-3 "));
        ck_assert(!a.type->value_valid(&a, "3-1"));
        ck_assert_int_eq(parse(&env, "cgroup:/sys/fs/cgroup/cpuset/test/cpuset.cpus", &a), 0);
        ck_assert_ptr_eq(a.type, &knob_type_cgroup);
        ck_assert_str_eq(a.rel, "cpuset/test/cpuset.cpus");
        ck_assert(a.type->value_valid(&a, ""));
        ck_assert_int_eq(parse(&env, "irq:24", &a), 0);
        ck_assert_ptr_eq(a.type, &knob_type_irq);
        ck_assert_str_eq(a.rel, "proc/irq/24/smp_affinity_list");
        ck_assert(!a.type->value_valid(&a, ""));
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(parse(&env, bad[i], &a) == -EINVAL, "%s accepted", bad[i]);
        ck_assert_int_eq(knob_cgroup_key(&env, "/sys/fs/cgroup/cpuset/x", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "cgroup:/sys/fs/cgroup/cpuset/x/cpuset.cpus");
        ck_assert_int_eq(knob_cgroup_key(&env, "/tmp/x", buf, sizeof(buf)), -EINVAL);
        ck_assert_int_eq(knob_cgroup_key(&env, "/sys/fs/cgroup/../x", buf, sizeof(buf)), -EINVAL);
        ck_assert_int_eq(knob_env_set_cgroup_root(&env, "relative"), -EINVAL);
        ck_assert_int_eq(knob_env_set_cgroup_root(&env, "/"), -EINVAL);
        knob_env_done(&env);
}
END_TEST

/* The child's affinity changed by a pin and put back by its restore; the
 * journal holds a CPU list with a comma, written and read back whole. */
START_TEST(test_task_affinity_restored) {
        pid_t pid = child_sleeper();         /* before the journal: a child keeps no lock */
        FakeTree *t = unit_tree(NULL);
        char key[64], orig[256], now[256];
        ErrorInfo e = {};
        ChangeTest c;

        change_test_open(&c, t);
        task_key(pid, key, sizeof(key));
        affinity_str(pid, orig, sizeof(orig));
        ck_assert_int_eq(change_test_set(c.l, PIN1, key, "0"), 1);
        ck_assert_str_eq(change_original(c.l, key), orig);
        affinity_str(pid, now, sizeof(now));
        ck_assert_str_eq(now, "0");
        ck_assert_int_eq(change_test_set(c.l, PIN1, key, "1"), 1);
        ck_assert_str_eq(change_original(c.l, key), orig);       /* the first original wins */
        ck_assert_int_eq(change_restore(c.l, PIN1, &e), 1);
        affinity_str(pid, now, sizeof(now));
        ck_assert_str_eq(now, orig);
        ck_assert_uint_eq(change_n_changed(c.l), 0);
        change_test_close(&c);
        child_reap(pid);
}
END_TEST

static bool journal_has(const FakeTree *t, const char *line) {
        _cleanup_free_ char *text = NULL;
        size_t size;

        ck_assert_int_eq(fileio_read_regular_at(t->fd, "run/" RESTORE_JOURNAL_FILE, 1 << 20, 0, &text, &size), 0);
        return strstr(text, line) != NULL;
}

/* A thread's affinity dies with the machine whatever the root: its original
 * and its forget reach the journal file (the page cache, which outlives the
 * daemon) without an fsync, so that a stalled disk delays no pin.  A
 * cgroup's cpuset.cpus, which a fake tree keeps across a crash of the
 * machine, is synced before it is written, and so are the thread's records
 * that came before it. */
START_TEST(test_task_journal_unsynced) {
        pid_t pid = child_sleeper();
        FakeTree *t = unit_tree(NULL);
        char root[512], dir[600], key[64], ckey[700], orig[256], line[1024];
        ErrorInfo e = {};
        ChangeTest c;

        snprintf(root, sizeof(root), "%s/cgroup", t->path);
        snprintf(dir, sizeof(dir), "%s/cpuset/test", root);
        ck_assert_int_eq(faketree_write(t->fd, "cgroup/cpuset/test/cpuset.cpus", "0-1\n"), 0);
        change_test_open_types(&c, t, NULL, root);
        task_key(pid, key, sizeof(key));
        affinity_str(pid, orig, sizeof(orig));

        n_fsync = 0;
        ck_assert_int_eq(change_test_set(c.l, PIN1, key, "0"), 1);
        snprintf(line, sizeof(line), "\n%s %s\n", key, orig);
        ck_assert(journal_has(t, line));
        ck_assert_int_eq(change_restore(c.l, PIN1, &e), 1);
        change_layer_sync(c.l);
        ck_assert_uint_eq(n_fsync, 0);

        ck_assert_int_eq(change_test_set(c.l, PIN1, key, "0"), 1);
        ck_assert_uint_eq(n_fsync, 0);
        ck_assert_int_eq(knob_cgroup_key(&c.env, dir, ckey, sizeof(ckey)), 0);
        ck_assert_int_eq(change_test_set(c.l, PIN1, ckey, "1"), 1);
        ck_assert_uint_ge(n_fsync, 1);
        snprintf(line, sizeof(line), "\n%s 0-1\n", ckey);
        ck_assert(journal_has(t, line));
        n_fsync = 0;
        ck_assert_int_eq(change_restore(c.l, PIN1, &e), 2);
        change_layer_sync(c.l);
        ck_assert_uint_ge(n_fsync, 1);                  /* the cgroup's forget (or the file's removal) */
        ck_assert_uint_eq(change_n_changed(c.l), 0);
        change_test_close(&c);
        child_reap(pid);
}
END_TEST

/* A killed daemon's journal: the next start replays the affinity. */
START_TEST(test_task_affinity_replayed) {
        pid_t pid = child_sleeper();         /* before the journal: a child keeps no lock */
        FakeTree *t = unit_tree(NULL);
        char key[64], orig[256], now[256];
        ChangeTest c;

        change_test_open(&c, t);
        task_key(pid, key, sizeof(key));
        affinity_str(pid, orig, sizeof(orig));
        ck_assert_int_eq(change_test_set(c.l, PIN1, key, "0"), 1);
        change_test_close(&c);          /* as if killed: the file stays */
        change_test_open(&c, t);
        ck_assert_int_eq(change_layer_replay(c.l), 1);
        affinity_str(pid, now, sizeof(now));
        ck_assert_str_eq(now, orig);
        change_test_close(&c);
        child_reap(pid);
}
END_TEST

/* A TID whose start time is not the recorded one is another thread: it
 * is never touched, and the entry is forgotten; so is an exited one. */
START_TEST(test_task_gone_or_reused) {
        pid_t pid = child_sleeper(), dead = child_sleeper();
        FakeTree *t = unit_tree(NULL);
        char key[64], now[256], body[256];
        ChangeTest c;

        set_affinity(pid, "0");
        task_key(dead, key, sizeof(key));
        child_reap(dead);
        /* the same TID with another start, and a thread that exited */
        snprintf(body, sizeof(body), "task:%d:1 1\n%s 1\n", (int) pid, key);
        write_journal_file(t, body);
        change_test_open(&c, t);
        ck_assert_int_eq(change_layer_replay(c.l), 2);
        ck_assert_uint_eq(change_n_changed(c.l), 0);
        affinity_str(pid, now, sizeof(now));
        ck_assert_str_eq(now, "0");
        change_test_close(&c);
        child_reap(pid);
}
END_TEST

/* A cgroup's cpuset.cpus under a temporary cgroup root: put back (also
 * the empty value of a v2 cgroup that inherits); a removed cgroup is
 * forgotten. */
START_TEST(test_cgroup_cpus_restored) {
        FakeTree *t = unit_tree(NULL);
        char root[512], dir[600], key[700], key2[700], buf[64];
        ErrorInfo e = {};
        ChangeTest c;

        snprintf(root, sizeof(root), "%s/cgroup", t->path);
        snprintf(dir, sizeof(dir), "%s/cpuset/test", root);
        ck_assert_int_eq(faketree_write(t->fd, "cgroup/cpuset/test/cpuset.cpus", "0-1\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, "cgroup/v2/cpuset.cpus", "\n"), 0);
        change_test_open_types(&c, t, NULL, root);

        ck_assert_int_eq(knob_cgroup_key(&c.env, dir, key, sizeof(key)), 0);
        ck_assert_int_eq(change_test_set(c.l, PIN1, key, "1"), 1);
        snprintf(dir, sizeof(dir), "%s/v2", root);
        ck_assert_int_eq(knob_cgroup_key(&c.env, dir, key2, sizeof(key2)), 0);
        ck_assert_int_eq(change_test_set(c.l, PIN1, key2, "1"), 1);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "cgroup/v2/cpuset.cpus", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "1");
        ck_assert_int_eq(change_restore(c.l, PIN1, &e), 2);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "cgroup/cpuset/test/cpuset.cpus", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "0-1");
        ck_assert_int_eq(fileio_read_string_at(t->fd, "cgroup/v2/cpuset.cpus", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "");

        ck_assert_int_eq(change_test_set(c.l, PIN1, key2, "1"), 1);
        ck_assert_int_eq(unlinkat(t->fd, "cgroup/v2/cpuset.cpus", 0), 0);
        ck_assert_int_eq(change_restore(c.l, PIN1, &e), 0);
        ck_assert_uint_eq(change_n_changed(c.l), 0);
        change_test_close(&c);
}
END_TEST

/* The key of the cpuset.cpus of root/rel. */
static void cgroup_key_of(const ChangeTest *c, const char *root, const char *rel, char *key, size_t size) {
        char dir[600];

        snprintf(dir, sizeof(dir), "%s/%s", root, rel);
        ck_assert_int_eq(knob_cgroup_key(&c->env, dir, key, size), 0);
}

static void assert_victim_untouched(const FakeTree *t) {
        char buf[64];
        struct stat st;

        ck_assert_int_eq(fileio_read_string_at(t->fd, "outside/cpuset.cpus", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "0-3");
        ck_assert_int_eq(fileio_read_string_at(t->fd, "outside/child/cpuset.cpus", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "0-3");
        ck_assert_int_eq(fstatat(t->fd, "outside/cpuset.cpus", &st, 0), 0);
        ck_assert_int_eq(st.st_mtim.tv_sec, 1);           /* never opened for writing */
}

/* Symbolic links in the cgroup mount to a victim outside it, as the cgroup
 * (relative, absolute), as a directory on the way, as its cpuset.cpus; a
 * FIFO and a directory as cpuset.cpus; and a cgroup swapped for a link
 * after its change: a change set is refused (-ELOOP, -EBADFD, nothing
 * written), a restore and a replay forget the knob without writing. */
START_TEST(test_cgroup_links_refused) {
        FakeTree *t = unit_tree(NULL);
        const char *rels[] = { "evil", "abs", "par/child", "leaf", "fifo", "dir" };
        const int errors[] = { -ELOOP, -ELOOP, -ELOOP, -ELOOP, -EBADFD, -EBADFD };
        char root[512], abs[600], key[700], body[4096] = "", buf[64];
        const struct timespec old[2] = { { 1, 0 }, { 1, 0 } };
        ErrorInfo e = {};
        ChangeTest c;

        snprintf(root, sizeof(root), "%s/cgroup", t->path);
        ck_assert_int_eq(faketree_write(t->fd, "outside/cpuset.cpus", "0-3\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, "outside/child/cpuset.cpus", "0-3\n"), 0);
        ck_assert_int_eq(utimensat(t->fd, "outside/cpuset.cpus", old, 0), 0);
        ck_assert_int_eq(faketree_write(t->fd, "cgroup/swap/cpuset.cpus", "\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, "cgroup/dir/cpuset.cpus/x", "\n"), 0);
        ck_assert_int_eq(symlinkat("../outside", t->fd, "cgroup/evil"), 0);
        snprintf(abs, sizeof(abs), "%s/outside", t->path);
        ck_assert_int_eq(symlinkat(abs, t->fd, "cgroup/abs"), 0);
        ck_assert_int_eq(symlinkat("../outside", t->fd, "cgroup/par"), 0);
        ck_assert_int_eq(mkdirat(t->fd, "cgroup/leaf", 0755), 0);
        ck_assert_int_eq(symlinkat("../../outside/cpuset.cpus", t->fd, "cgroup/leaf/cpuset.cpus"), 0);
        ck_assert_int_eq(mkdirat(t->fd, "cgroup/fifo", 0755), 0);
        ck_assert_int_eq(mkfifoat(t->fd, "cgroup/fifo/cpuset.cpus", 0600), 0);
        change_test_open_types(&c, t, NULL, root);
        for (size_t i = 0; i < ELEMENTSOF(rels); i++) {
                cgroup_key_of(&c, root, rels[i], key, sizeof(key));
                ck_assert_int_eq(change_test_set(c.l, PIN1, key, "1"), errors[i]);
                snprintf(body + strlen(body), sizeof(body) - strlen(body), "%s 1\n", key);
        }
        ck_assert_uint_eq(change_n_changed(c.l), 0);
        /* changed, then swapped for a link: the restore writes nothing */
        cgroup_key_of(&c, root, "swap", key, sizeof(key));
        ck_assert_int_eq(change_test_set(c.l, PIN1, key, "1"), 1);
        ck_assert_int_eq(renameat(t->fd, "cgroup/swap", t->fd, "cgroup/swap.real"), 0);
        ck_assert_int_eq(symlinkat("../outside", t->fd, "cgroup/swap"), 0);
        ck_assert_int_eq(change_restore(c.l, PIN1, &e), 0);
        ck_assert_uint_eq(change_n_changed(c.l), 0);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "cgroup/swap.real/cpuset.cpus", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "1");
        change_test_close(&c);
        assert_victim_untouched(t);
        /* a previous run's journal naming them all: replayed, none written */
        write_journal_file(t, body);
        change_test_open_types(&c, t, NULL, root);
        ck_assert_int_eq(change_layer_replay(c.l), (int) ELEMENTSOF(rels));
        ck_assert_uint_eq(change_n_changed(c.l), 0);
        change_test_close(&c);
        assert_victim_untouched(t);
}
END_TEST

/* unit:NAME keys: pin-target.h's names of a type with a cgroup; "" is a
 * value ("not set"). */
START_TEST(test_unit_keys) {
        static const char *const bad[] = {
                "unit:", "unit:foo", "unit:foo.target", "unit:foo.timer", "unit:foo@.service", "unit:a b.service",
                "unit:foo.service\n", "unit:/foo.service", "unit:.service",
        };
        KnobEnv env = KNOB_ENV_NULL;
        KnobAddr a;
        char buf[300];

        ck_assert_int_eq(parse(&env, "unit:postgresql.service", &a), 0);
        ck_assert_ptr_eq(a.type, &knob_type_unit);
        ck_assert_str_eq(a.name, "postgresql.service");
        ck_assert(a.type->value_valid(&a, ""));
        ck_assert(a.type->value_valid(&a, "0-1,4"));
        ck_assert(!a.type->value_valid(&a, "0-1 "));
        ck_assert_int_eq(parse(&env, "unit:getty@tty1.service", &a), 0);
        ck_assert_int_eq(parse(&env, "unit:user-1000.slice", &a), 0);
        ck_assert_int_eq(parse(&env, "unit:run-u12.scope", &a), 0);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(parse(&env, bad[i], &a) == -EINVAL, "%s accepted", bad[i]);
        ck_assert_int_eq(knob_unit_key("foo.service", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "unit:foo.service");
        ck_assert_int_eq(knob_unit_key("foo.target", buf, sizeof(buf)), -EINVAL);
        ck_assert_int_eq(knob_unit_key("foo.service", buf, 8), -ENAMETOOLONG);
}
END_TEST

/* Without a bus a unit knob is "not now": a set cannot read it, a replay
 * keeps it without failing (a leftover), and so does a restore. */
START_TEST(test_unit_kept_without_bus) {
        FakeTree *t = unit_tree(NULL);
        ErrorInfo e = {};
        ChangeTest c;
        KnobAddr a;
        char buf[64];

        write_journal_file(t, "unit:foo.service \nunit:bar.service 0-1\n");
        change_test_open(&c, t);
        ck_assert_int_eq(parse(&c.env, "unit:foo.service", &a), 0);
        ck_assert_int_eq(a.type->read(&c.env, &a, buf, sizeof(buf)), -ENOTCONN);
        ck_assert_int_eq(a.type->write(&c.env, &a, "0"), -ENOTCONN);
        ck_assert_int_eq(change_test_set(c.l, PIN1, "unit:baz.service", "0"), -ENOTCONN);
        ck_assert_int_eq(change_layer_replay(c.l), 2);
        ck_assert_uint_eq(change_n_changed(c.l), 2);
        ck_assert_int_eq(change_owner_of(c.l, "unit:foo.service").kind, CHANGE_OWNER_LEFTOVER);
        ck_assert_int_eq(change_restore(c.l, CHANGE_OWNER(LEFTOVER), &e), 0);
        ck_assert_uint_eq(change_n_changed(c.l), 2);
        change_test_close(&c);          /* as if killed */
        change_test_open(&c, t);
        ck_assert_int_eq(change_layer_replay(c.l), 2);
        ck_assert_str_eq(change_original(c.l, "unit:foo.service"), "");
        ck_assert_str_eq(change_original(c.l, "unit:bar.service"), "0-1");
        change_test_close(&c);
}
END_TEST

/* Interrupts live under the root: a change and its restore touch the
 * tree's proc/irq, and a replay too. */
START_TEST(test_irq_under_the_root) {
        FakeTree *t = unit_tree(NULL);
        ErrorInfo e = {};
        ChangeTest c;
        char buf[64];

        ck_assert_int_eq(faketree_write(t->fd, "proc/irq/1000/smp_affinity_list", "0-1\n"), 0);
        change_test_open(&c, t);
        ck_assert_int_eq(change_test_set(c.l, CHANGE_OWNER(CONSOLIDATION), "irq:1000", "0"), 1);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "proc/irq/1000/smp_affinity_list", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "0");
        change_test_close(&c);          /* as if killed */
        change_test_open(&c, t);
        ck_assert_int_eq(change_layer_replay(c.l), 1);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "proc/irq/1000/smp_affinity_list", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "0-1");
        ck_assert_int_eq(change_test_set(c.l, CHANGE_OWNER(CONSOLIDATION), "irq:1000", "1"), 1);
        ck_assert_int_eq(change_restore_all(c.l, &e), 1);
        ck_assert_int_eq(fileio_read_string_at(t->fd, "proc/irq/1000/smp_affinity_list", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "0-1");
        change_test_close(&c);
}
END_TEST

/* Journal lines of the workload kinds that are not valid are corrupt:
 * skipped, never acted on. */
START_TEST(test_bad_lines_skipped) {
        FakeTree *t = unit_tree(NULL);
        ChangeTest c;

        write_journal_file(t, "task:1:1 0-1;reboot\n"
                              "cgroup:/etc/shadow 0\n"
                              "cgroup:/sys/fs/cgroup/../../etc/cpuset.cpus 0\n"
                              "task:1 0\n"
                              "unit:foo.target 0\n"
                              "unit:foo.service x\n"
                              "irq:1 \n");
        change_test_open(&c, t);
        ck_assert_int_eq(change_layer_replay(c.l), 0);
        ck_assert_uint_eq(change_n_changed(c.l), 0);
        change_test_close(&c);
}
END_TEST

static Suite *workload_suite(void) {
        Suite *s = suite_create("knob-workload");
        TCase *tc = unit_tcase(s, "workload");

        tcase_add_test(tc, test_keys);
        tcase_add_test(tc, test_task_affinity_restored);
        tcase_add_test(tc, test_task_affinity_replayed);
        tcase_add_test(tc, test_task_journal_unsynced);
        tcase_add_test(tc, test_task_gone_or_reused);
        tcase_add_test(tc, test_cgroup_cpus_restored);
        tcase_add_test(tc, test_cgroup_links_refused);
        tcase_add_test(tc, test_bad_lines_skipped);
        tcase_add_test(tc, test_unit_keys);
        tcase_add_test(tc, test_unit_kept_without_bus);
        tcase_add_test(tc, test_irq_under_the_root);
        return s;
}

int main(void) {
        log_set_max_level(LOG_NOTICE);
        return unit_run(workload_suite());
}
