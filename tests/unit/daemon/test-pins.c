/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's pins (pins.h) without the bus: real child processes pinned
 * by PID (their affinity really changes and comes back), a cgroup in a
 * temporary cgroup root, holds, the profile in force per CPU, the end of a
 * pin with its workload, pins.json across a restart, and every bad request
 * refused with its named errno and nothing changed. */
#include <signal.h>
#include <sys/wait.h>

#include "cpuset.h"
#include "bus-error.h"
#include "faketree.h"
#include "fileio.h"
#include "change-test.h"
#include "knob-task.h"
#include "log.h"
#include "pins.h"
#include "unit.h"
#include "child-test.h"

typedef struct World {
        FakeTree *tree;
        sd_event *event;
        ChangeTest changes;
        Topology *topology;
        ProfileSet profiles;
        Persist persist;
        Pins *pins;
        unsigned changed, released, hold_released;
        uint32_t released_id;
} World;

static const ProfileSet *world_profiles(void *userdata) {
        return &((World *) userdata)->profiles;
}

static const Topology *world_topology(void *userdata) {
        return ((World *) userdata)->topology;
}

static void on_changed(void *userdata) {
        ((World *) userdata)->changed++;
}

static void on_released(uint32_t id, const char *why, void *userdata) {
        World *w = userdata;

        w->released++;
        w->released_id = id;
}

static void on_hold_released(uint32_t cookie, void *userdata) {
        ((World *) userdata)->hold_released++;
}

static void world_pins(World *w) {
        PinsContext c = {
                .event = w->event, .changes = w->changes.l,
                .profiles = world_profiles, .topology = world_topology, .persist = &w->persist,
                .changed = on_changed, .released = on_released, .hold_released = on_hold_released,
                .userdata = w,
        };

        ck_assert_int_eq(pins_new(&c, &w->pins), 0);
}

/* A two-CPU fake tree, profiles balanced (the machine's) and latency, a
 * journal and a state directory in it, a cgroup root at tree/cgroup. */
static void world_init(World *w) {
        Profile p;
        char path[512];

        *w = (World) { .tree = unit_tree(NULL), .persist = PERSIST_NULL };
        ck_assert_int_eq(sd_event_new(&w->event), 0);
        ck_assert_int_eq(topology_load(w->tree->fd, &w->topology, NULL), 0);
        profile_init(&p, "balanced");
        ck_assert_int_eq(profile_set_put(&w->profiles, &p), 0);
        profile_init(&p, "latency");
        p.latency_limit_us = 10;
        ck_assert_int_eq(profile_set_put(&w->profiles, &p), 0);
        snprintf(path, sizeof(path), "%s/state", w->tree->path);
        ck_assert_int_eq(persist_open(&w->persist, path), 0);
        ck_assert_int_eq(faketree_write(w->tree->fd, "cgroup/test/cpuset.cpus", "0-1\n"), 0);
        ck_assert_int_eq(faketree_write(w->tree->fd, "cgroup/test/cgroup.events", "populated 1\nfrozen 0\n"), 0);
        snprintf(path, sizeof(path), "%s/cgroup", w->tree->path);
        change_test_open_types(&w->changes, w->tree, NULL, path);
        world_pins(w);
}

static void world_done(World *w) {
        pins_free(w->pins);
        change_test_close(&w->changes);
        topology_free(w->topology);
        persist_done(&w->persist);
        sd_event_unref(w->event);
}

/* Runs the loop until *counter reaches want or 10 s passed. */
static void run_until(World *w, const unsigned *counter, unsigned want) {
        for (unsigned i = 0; i < 1000 && *counter < want; i++)
                ck_assert_int_ge(sd_event_run(w->event, 10000), 0);
        ck_assert_uint_ge(*counter, want);
}

static void assert_affinity(pid_t pid, const char *want) {
        char buf[64];
        CpuSet s;

        ck_assert_int_eq(task_affinity_get(pid, &s), 0);
        ck_assert_int_eq(cpuset_format(&s, buf, sizeof(buf)), 0);
        ck_assert_msg(strcmp(buf, want) == 0, "affinity of %d is %s, want %s", (int) pid, buf, want);
}

static void assert_choice(World *w, unsigned cpu, const char *profile, const char *source_has) {
        CpuProfileChoice c[2];

        ck_assert_int_eq(pins_choices(w->pins, profile_set_find(&w->profiles, "balanced"), 2, c), 0);
        ck_assert_str_eq(c[cpu].profile->name, profile);
        ck_assert_msg(strstr(c[cpu].source, source_has), "\"%s\" not in \"%s\"", source_has, c[cpu].source);
}

/* Pins process pid to cpus with profile, which must work.  Returns the id. */
static uint32_t pin_pid(World *w, pid_t pid, const char *cpus, const char *profile) {
        char target[32];
        ErrorInfo e = {};
        uint32_t id = 0;

        snprintf(target, sizeof(target), "pid:%d", (int) pid);
        ck_assert_msg(pins_pin(w->pins, target, cpus, profile, 0, "test", 1, &id, &e) == 0, "%s", e.message);
        return id;
}

static size_t journal_size(World *w) {
        return change_n_changed(w->changes.l);
}

/* Forks before the world: a child must not inherit the journal's lock. */
START_TEST(test_pid_pin_and_unpin) {
        pid_t pid = child_sleeper();
        ErrorInfo e = {};
        uint32_t id;
        World w;

        world_init(&w);
        assert_affinity(pid, "0-1");
        id = pin_pid(&w, pid, "1", "latency");
        ck_assert_uint_eq(id, 1);
        assert_affinity(pid, "1");
        ck_assert_uint_eq(journal_size(&w), 1);
        ck_assert_uint_eq(w.changed, 1);
        assert_choice(&w, 1, "latency", "pin /org/idlepolicy/IdlePolicy1/pin/1 pid:");
        assert_choice(&w, 0, "balanced", "machine");
        ck_assert_int_eq(pins_unpin(w.pins, id, &e), 0);
        assert_affinity(pid, "0-1");
        ck_assert_uint_eq(journal_size(&w), 0);
        ck_assert_uint_eq(w.released, 1);
        assert_choice(&w, 1, "balanced", "machine");
        ck_assert_int_eq(pins_unpin(w.pins, id, &e), -ERRNO_NO_SUCH_PIN);
        world_done(&w);
        child_reap(pid);
}
END_TEST

/* The process exits: the pin ends from the loop, its CPUs go back to the
 * machine's profile, nothing is left in the journal. */
START_TEST(test_pin_ends_with_process) {
        pid_t pid = child_sleeper();
        uint32_t id;
        World w;

        world_init(&w);
        id = pin_pid(&w, pid, "0", "latency");
        child_reap(pid);
        run_until(&w, &w.released, 1);
        ck_assert_uint_eq(w.released_id, id);
        ck_assert_ptr_null(pin_registry_find((PinRegistry *) pins_registry(w.pins), id));
        ck_assert_uint_eq(journal_size(&w), 0);
        assert_choice(&w, 0, "balanced", "machine");
        world_done(&w);
}
END_TEST

/* Every bad request: its named errno, nothing pinned or journaled. */
START_TEST(test_bad_requests) {
        pid_t pid = child_sleeper(), dead = child_sleeper();
        char target[32], gone[32];
        ErrorInfo e = {};
        uint32_t id;
        World w;

        child_reap(dead);
        world_init(&w);
        snprintf(target, sizeof(target), "pid:%d", (int) pid);
        snprintf(gone, sizeof(gone), "pid:%d", (int) dead);
        ck_assert_int_eq(pins_pin(w.pins, target, "1", "nope", 0, "", 1, &id, &e), -ENOPKG);
        ck_assert_int_eq(pins_pin(w.pins, "pid:0", "1", "latency", 0, "", 1, &id, &e), -ERRNO_INVALID_TARGET);
        ck_assert_int_eq(pins_pin(w.pins, "cgroup:../x", "1", "latency", 0, "", 1, &id, &e), -ERRNO_INVALID_TARGET);
        ck_assert_int_eq(pins_pin(w.pins, target, "1-", "latency", 0, "", 1, &id, &e), -ERRNO_INVALID_CPUS);
        ck_assert_int_eq(pins_pin(w.pins, target, "5", "latency", 0, "", 1, &id, &e), -ERRNO_UNKNOWN_CPU);
        ck_assert_int_eq(faketree_set_offline(w.tree->fd, 1), 0);
        topology_free(w.topology);
        ck_assert_int_eq(topology_load(w.tree->fd, &w.topology, NULL), 0);
        ck_assert_int_eq(pins_pin(w.pins, target, "1", "latency", 0, "", 1, &id, &e), -ERRNO_CPU_OFFLINE);
        ck_assert_int_eq(faketree_set_online(w.tree->fd, 1), 0);
        topology_free(w.topology);
        ck_assert_int_eq(topology_load(w.tree->fd, &w.topology, NULL), 0);
        ck_assert_int_eq(pins_pin(w.pins, gone, "1", "latency", 0, "", 1, &id, &e), -ERRNO_NO_SUCH_PROCESS);
        ck_assert_int_eq(pins_pin(w.pins, "pid:2", "1", "latency", 0, "", 1, &id, &e), -ERRNO_NOT_PINNABLE);
        ck_assert_int_eq(pins_pin(w.pins, "cgroup:missing", "1", "latency", 0, "", 1, &id, &e), -ERRNO_NO_SUCH_PROCESS);
        ck_assert_int_eq(pins_pin(w.pins, "unit:foo.service", "1", "latency", 0, "", 1, &id, &e), -ERRNO_NO_SYSTEMD);
        ck_assert_uint_eq(pin_registry_n_pins(pins_registry(w.pins)), 0);
        ck_assert_uint_eq(journal_size(&w), 0);
        assert_affinity(pid, "0-1");
        ck_assert_int_eq(pins_pin(w.pins, target, "1", "latency", 0, "", 1, &id, &e), 0);
        ck_assert_int_eq(pins_pin(w.pins, target, "0", "balanced", 0, "", 1, &id, &e), -ERRNO_DUPLICATE_TARGET);
        assert_affinity(pid, "1");
        ck_assert_int_eq(pins_release(w.pins, 77), -ERRNO_NO_SUCH_HOLD);
        world_done(&w);
        child_reap(pid);
}
END_TEST

/* A cgroup's cpuset.cpus set and put back when the cgroup empties. */
START_TEST(test_cgroup_pin) {
        ErrorInfo e = {};
        char buf[64];
        uint32_t id;
        World w;

        world_init(&w);
        ck_assert_int_eq(pins_pin(w.pins, "cgroup:test", "1", "latency", 0, "", 1, &id, &e), 0);
        ck_assert_int_eq(fileio_read_string_at(w.tree->fd, "cgroup/test/cpuset.cpus", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "1");
        assert_choice(&w, 1, "latency", "cgroup:test");
        ck_assert_int_eq(faketree_write(w.tree->fd, "cgroup/test/cgroup.events", "populated 0\nfrozen 0\n"), 0);
        run_until(&w, &w.released, 1);
        ck_assert_int_eq(fileio_read_string_at(w.tree->fd, "cgroup/test/cpuset.cpus", buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "0-1");
        ck_assert_uint_eq(journal_size(&w), 0);
        world_done(&w);
}
END_TEST

/* pins.json: a second Pins on the same state re-establishes the pin of
 * the process that still runs. */
START_TEST(test_pins_persist) {
        pid_t pid = child_sleeper();
        ErrorInfo e = {};
        uint32_t id;
        World w;

        world_init(&w);
        id = pin_pid(&w, pid, "0", "latency");
        ck_assert_int_eq(change_restore_all(w.changes.l, &e), 1);     /* as a clean exit does */
        assert_affinity(pid, "0-1");
        w.pins = pins_free(w.pins);
        world_pins(&w);
        ck_assert_int_eq(pins_load(w.pins), 1);
        assert_affinity(pid, "0");
        ck_assert_ptr_nonnull(pin_registry_find((PinRegistry *) pins_registry(w.pins), id));
        ck_assert_int_eq(pins_pin(w.pins, "cgroup:test", "1", "latency", 0, "", 1, &id, &e), 0);
        ck_assert_uint_eq(id, 2);                       /* ids go on after a restart */
        world_done(&w);
        child_reap(pid);
}
END_TEST

/* A hold without CPUs holds every CPU; released with its owner. */
START_TEST(test_holds) {
        ErrorInfo e = {};
        uint32_t cookie;
        World w;

        world_init(&w);
        ck_assert_int_eq(pins_hold(w.pins, "latency", "", "game", "org.example.Game", ":1.7", 1000, &cookie, &e), 0);
        assert_choice(&w, 0, "latency", "hold");
        assert_choice(&w, 1, "latency", "org.example.Game");
        ck_assert_int_eq(pins_hold(w.pins, "nope", "", "", "", ":1.7", 1000, &cookie, &e), -ENOPKG);
        ck_assert_uint_eq(pins_release_owner(w.pins, ":1.7"), 1);
        ck_assert_uint_eq(w.hold_released, 1);
        assert_choice(&w, 0, "balanced", "machine");
        world_done(&w);
}
END_TEST

/* A copy of sleep(1) under a name no other process runs: the rules of
 * these tests touch no process but the test's own. */
static void unique_sleep(World *w, char *path, size_t size) {
        char cmd[1024];

        snprintf(path, size, "%s/ipd-rule-sleep", w->tree->path);
        snprintf(cmd, sizeof(cmd), "cp /bin/sleep %s", path);
        ck_assert_int_eq(system(cmd), 0);
}

static pid_t spawn(const char *path) {
        pid_t pid = fork();

        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                execl(path, path, "60", (char *) NULL);
                _exit(127);
        }
        return pid;
}

/* Runs the loop until pin id follows want pids (10 s at most). */
static const Pin *wait_pids(World *w, uint32_t id, size_t want) {
        const Pin *pin = NULL;

        for (unsigned i = 0; i < 1000; i++) {
                pin = pin_registry_find((PinRegistry *) pins_registry(w->pins), id);
                ck_assert_ptr_nonnull(pin);
                if (pin->n_pids == want)
                        return pin;
                ck_assert_int_ge(sd_event_run(w->event, 10000), 0);
        }
        ck_abort_msg("pin %u follows %zu processes, want %zu", id, pin->n_pids, want);
        return NULL;
}

/* An exe rule: waiting; a process that execs the file is pinned (the proc
 * connector); its exit drops it and what was journaled for it.  A comm
 * rule finds a process that ran before the rule (the /proc scan). */
START_TEST(test_exec_rules) {
        char exe[512], target[600], comm[64];
        const Pin *pin;
        ErrorInfo e = {};
        uint32_t id, id2;
        pid_t pid, early;
        int r;
        World w;

        world_init(&w);
        unique_sleep(&w, exe, sizeof(exe));
        early = spawn(exe);
        snprintf(target, sizeof(target), "exe:%s", exe);
        r = pins_pin(w.pins, target, "1", "latency", 0, "", 1, &id, &e);
        if (r == -ERRNO_NOT_PINNABLE) {
                child_reap(early);
                world_done(&w);
                return;                 /* no proc connector here: nothing to test */
        }
        ck_assert_msg(r == 0, "%s", e.message);
        pin = wait_pids(&w, id, 1);     /* the scan found the early one */
        ck_assert_int_eq(pin->pids[0], early);
        assert_affinity(early, "1");
        child_reap(early);
        pin = wait_pids(&w, id, 0);
        ck_assert_int_eq(pin->state, PIN_STATE_WAITING);
        ck_assert_uint_eq(journal_size(&w), 0);

        pid = spawn(exe);
        pin = wait_pids(&w, id, 1);
        ck_assert_int_eq(pin->pids[0], pid);
        ck_assert_int_eq(pin->state, PIN_STATE_ACTIVE);
        assert_affinity(pid, "1");
        assert_choice(&w, 1, "latency", "exe:");

        snprintf(comm, sizeof(comm), "comm:ipd-rule-sleep");
        ck_assert_int_eq(pins_pin(w.pins, comm, "0", "balanced", 0, "", 1, &id2, &e), 0);
        wait_pids(&w, id2, 1);
        ck_assert_int_eq(pins_unpin(w.pins, id, &e), 0);
        ck_assert_int_eq(pins_unpin(w.pins, id2, &e), 0);
        assert_affinity(pid, "0-1");
        ck_assert_uint_eq(journal_size(&w), 0);
        child_reap(pid);
        world_done(&w);
}
END_TEST

/* pins.d: a good file's rules apply (a rule with an unknown profile is
 * left out), a corrupt file is counted and changes nothing; rules are not
 * written to pins.json. */
START_TEST(test_rules_dir) {
        char dir[512];
        size_t n = 0;
        World w;

        world_init(&w);
        ck_assert_int_eq(faketree_write(w.tree->fd, "pins.d/10-good.json",
                                        "[{\"target\": \"comm:ipd-no-such\", \"cpus\": \"1\", \"profile\": \"latency\"},"
                                        " {\"target\": \"comm:ipd-other\", \"cpus\": \"1\", \"profile\": \"nope\"}]\n"), 0);
        ck_assert_int_eq(faketree_write(w.tree->fd, "pins.d/20-bad.json", "{\"target\": \"pid:1\", \"profile\": \"latency\"}\n"), 0);
        ck_assert_int_eq(faketree_write(w.tree->fd, "pins.d/30-torn.json", "[{\"target\": \"comm:x\""), 0);
        snprintf(dir, sizeof(dir), "%s/pins.d", w.tree->path);
        ck_assert_int_eq(pins_load_rules(w.pins, dir), 2);
        PIN_REGISTRY_FOREACH_PIN(pin, pins_registry(w.pins)) {
                ck_assert_str_eq(pin->target.value, "ipd-no-such");
                ck_assert(pin->from_rules_dir);
                ck_assert_int_eq(pin->state, PIN_STATE_WAITING);
                n++;
        }
        ck_assert_uint_eq(n, 1);
        ck_assert_int_ne(faccessat(w.tree->fd, "state/" PINS_FILE, F_OK, 0), 0);
        world_done(&w);
}
END_TEST

static Suite *pins_suite(void) {
        Suite *s = suite_create("pins");
        TCase *tc = unit_tcase(s, "pins");

        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_pid_pin_and_unpin);
        tcase_add_test(tc, test_pin_ends_with_process);
        tcase_add_test(tc, test_bad_requests);
        tcase_add_test(tc, test_cgroup_pin);
        tcase_add_test(tc, test_pins_persist);
        tcase_add_test(tc, test_holds);
        tcase_add_test(tc, test_exec_rules);
        tcase_add_test(tc, test_rules_dir);
        return s;
}

int main(void) {
        log_set_max_level(LOG_NOTICE);
        return unit_run(pins_suite());
}
