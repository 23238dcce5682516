/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A unit's AllowedCPUs through systemd's D-Bus API (daemon/systemd-unit.h)
 * against a mocked systemd: a private dbus-daemon in a temporary directory
 * with python3-dbusmock serving systemd_mock.py as org.freedesktop.systemd1,
 * and a second one with nobody on it (no systemd).  Read, set, reset,
 * unknown units, units without a cgroup, NoSystemd, the watch seeing a
 * unit stop, and unit:NAME knobs through the restore journal.  Skipped
 * (TAP) without dbus-daemon or Debian's python3 with dbusmock. */
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cleanup.h"
#include "cpuset.h"
#include "change-test.h"
#include "knob-unit.h"
#include "knob-unit.h"
#include "log.h"
#include "systemd-unit.h"
#include "unit.h"
#include "watch-test.h"

#define MOCK_INTERFACE "org.freedesktop.DBus.Mock"
#define START_DEADLINE_USEC ((uint64_t) 30 * 1000000)
/* A system bus open to everyone (as the integration suite's), with few
 * match rules a connection (the stock system bus allows 512): enough for
 * the mock and MATCHES_MAX / 2 watches on one connection. */
#define MATCHES_MAX 16
#define BUS_CONFIG                                                                                      \
        "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"            \
        " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"                              \
        "<busconfig><type>system</type><listen>unix:path=%s</listen><auth>EXTERNAL</auth>\n"            \
        "<policy context=\"default\"><allow user=\"*\"/><allow own=\"*\"/><allow send_destination=\"*\"/>" \
        "<allow receive_sender=\"*\"/></policy>\n"                                                       \
        "<limit name=\"max_match_rules_per_connection\">%d</limit></busconfig>\n"

/* The buses and the mock, started once by main(); each forked test
 * connects on its own. */
static struct {
        char dir[96];
        char address[192];          /* with the mock */
        char bare_address[192];     /* without systemd */
        pid_t bus, bare_bus, mock, main;
} world;

static sd_bus *connect_to(const char *address) {
        sd_bus *bus = NULL;

        ck_assert_int_ge(sd_bus_new(&bus), 0);
        ck_assert_int_ge(sd_bus_set_address(bus, address), 0);
        ck_assert_int_ge(sd_bus_set_bus_client(bus, 1), 0);
        ck_assert_int_ge(sd_bus_start(bus), 0);
        return bus;
}

/* Calls method of the mock's Mock interface.  Returns its reply. */
static sd_bus_message *mock_call(sd_bus *bus, const char *method, const char *types, ...) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        va_list ap;
        int r;

        va_start(ap, types);
        r = sd_bus_call_methodv(bus, SYSTEMD_BUS_NAME, SYSTEMD_OBJECT_PATH, MOCK_INTERFACE, method, &error, &reply,
                                types, ap);
        va_end(ap);
        ck_assert_msg(r >= 0, "mock %s: %s", method, error.message ? error.message : strerror(-r));
        sd_bus_error_free(&error);
        return reply;
}

/* Adds a unit to the mock with AllowedCPUs cpus (a CPU list). */
static void mock_add_unit(sd_bus *bus, const char *name, const char *load_state, const char *active_state,
                          const char *cpus) {
        sd_bus_message *m = NULL;
        uint8_t mask[CPUSET_MASK_MAX];
        size_t len;
        CpuSet s;

        ck_assert_int_eq(cpuset_parse(cpus, &s, NULL), 0);
        ck_assert_int_eq(cpuset_to_mask(&s, mask, sizeof(mask), &len), 0);
        ck_assert_int_ge(sd_bus_message_new_method_call(bus, &m, SYSTEMD_BUS_NAME, SYSTEMD_OBJECT_PATH, MOCK_INTERFACE,
                                                        "AddMockUnit"), 0);
        ck_assert_int_ge(sd_bus_message_append(m, "sss", name, load_state, active_state), 0);
        ck_assert_int_ge(sd_bus_message_append_array(m, 'y', mask, len), 0);
        ck_assert_int_ge(sd_bus_call(bus, m, 0, NULL, NULL), 0);
        sd_bus_message_unref(m);
}

/* The SetUnitProperties calls the mock saw for unit: their number, and
 * the last one's AllowedCPUs as a CPU list in last. */
static unsigned mock_set_calls(sd_bus *bus, const char *unit, char *last, size_t size) {
        sd_bus_message *reply = mock_call(bus, "GetSetUnitPropertiesCalls", "");
        const char *name;
        const void *mask;
        unsigned n = 0;
        size_t len;
        CpuSet s;

        last[0] = '\0';
        ck_assert_int_ge(sd_bus_message_enter_container(reply, 'a', "(say)"), 0);
        while (sd_bus_message_enter_container(reply, 'r', "say") > 0) {
                ck_assert_int_ge(sd_bus_message_read(reply, "s", &name), 0);
                ck_assert_int_ge(sd_bus_message_read_array(reply, 'y', &mask, &len), 0);
                ck_assert_int_ge(sd_bus_message_exit_container(reply), 0);
                if (strcmp(name, unit) != 0)
                        continue;
                n++;
                ck_assert_int_eq(cpuset_from_mask(mask, len, &s), 0);
                ck_assert_int_eq(cpuset_format(&s, last, size), 0);
        }
        sd_bus_message_unref(reply);
        return n;
}

/* The unit's AllowedCPUs through the module, "" when not set. */
static void allowed_str(sd_bus *bus, const char *unit, char *buf, size_t size) {
        ErrorInfo e = {};
        bool set = true;
        CpuSet s;

        ck_assert_msg(systemd_unit_get_allowed_cpus(bus, unit, &s, &set, &e) == 0, "%s", e.message);
        ck_assert_int_eq(cpuset_format(&s, buf, size), 0);
        ck_assert(set == (buf[0] != '\0'));
}

static void set_allowed(sd_bus *bus, const char *unit, const char *cpus) {
        ErrorInfo e = {};
        CpuSet s;

        ck_assert_int_eq(cpuset_parse(cpus, &s, NULL), 0);
        ck_assert_msg(systemd_unit_set_allowed_cpus(bus, unit, &s, &e) == 0, "%s", e.message);
}

START_TEST(test_get) {
        sd_bus *bus = connect_to(world.address);
        char buf[64];

        mock_add_unit(bus, "get-a.service", "loaded", "active", "0-1");
        mock_add_unit(bus, "get-b.service", "loaded", "active", "");
        mock_add_unit(bus, "get-c.scope", "loaded", "active", "2,9");
        mock_add_unit(bus, "get-d.slice", "loaded", "active", "");
        allowed_str(bus, "get-a.service", buf, sizeof(buf));
        ck_assert_str_eq(buf, "0-1");
        allowed_str(bus, "get-b.service", buf, sizeof(buf));
        ck_assert_str_eq(buf, "");
        allowed_str(bus, "get-c.scope", buf, sizeof(buf));
        ck_assert_str_eq(buf, "2,9");
        allowed_str(bus, "get-d.slice", buf, sizeof(buf));
        ck_assert_str_eq(buf, "");
        sd_bus_flush_close_unref(bus);
}
END_TEST

/* Set at runtime, read back, reset with an empty array. */
START_TEST(test_set_and_reset) {
        sd_bus *bus = connect_to(world.address);
        char buf[64];

        mock_add_unit(bus, "set-a.service", "loaded", "active", "");
        set_allowed(bus, "set-a.service", "1,3");
        ck_assert_uint_eq(mock_set_calls(bus, "set-a.service", buf, sizeof(buf)), 1);
        ck_assert_str_eq(buf, "1,3");
        allowed_str(bus, "set-a.service", buf, sizeof(buf));
        ck_assert_str_eq(buf, "1,3");
        set_allowed(bus, "set-a.service", "");
        ck_assert_uint_eq(mock_set_calls(bus, "set-a.service", buf, sizeof(buf)), 2);
        ck_assert_str_eq(buf, "");
        allowed_str(bus, "set-a.service", buf, sizeof(buf));
        ck_assert_str_eq(buf, "");
        sd_bus_flush_close_unref(bus);
}
END_TEST

static void on_stop_unexpected(const char *unit, const char *why, void *userdata) {
        ck_abort_msg("unexpected stop of %s (%s)", unit, why);
}

START_TEST(test_unknown_unit) {
        sd_bus *bus = connect_to(world.address);
        SystemdUnitWatch *w = NULL;
        ErrorInfo e = {};
        bool set = false;
        char buf[64];
        CpuSet s;

        cpuset_clear(&s);
        ck_assert_int_eq(systemd_unit_get_allowed_cpus(bus, "nosuch.service", &s, &set, &e), -ENOENT);
        ck_assert_msg_has(e, "no such unit");
        ck_assert_int_eq(systemd_unit_set_allowed_cpus(bus, "nosuch.service", &s, &e), -ENOENT);
        ck_assert_msg_has(e, "nosuch.service");
        ck_assert_int_eq(systemd_unit_is_active(bus, "nosuch.service", &e), 0);
        ck_assert_int_eq(systemd_unit_watch_new(bus, "nosuch.service", on_stop_unexpected, NULL, &w, &e), -ENOENT);
        ck_assert_ptr_null(w);

        /* referenced by another unit, no file: GetUnit has it, not loaded */
        mock_add_unit(bus, "notfound.service", "not-found", "inactive", "");
        ck_assert_int_eq(systemd_unit_get_allowed_cpus(bus, "notfound.service", &s, &set, &e), -ENOENT);
        ck_assert_msg_has(e, "not-found");
        ck_assert_int_eq(systemd_unit_set_allowed_cpus(bus, "notfound.service", &s, &e), -ENOENT);
        ck_assert_uint_eq(mock_set_calls(bus, "notfound.service", buf, sizeof(buf)), 0);
        sd_bus_flush_close_unref(bus);
}
END_TEST

/* Names refused before systemd is asked: invalid, or without a cgroup. */
START_TEST(test_no_cgroup_or_invalid) {
        static const char *const invalid[] = { "foo", "foo@.service", "a b.service", "", "x.nosuchtype" };
        sd_bus *bus = connect_to(world.address);
        ErrorInfo e = {};
        bool set = false;
        char buf[64];
        CpuSet s;

        cpuset_clear(&s);
        mock_add_unit(bus, "multi-user.target", "loaded", "active", "");
        ck_assert_int_eq(systemd_unit_get_allowed_cpus(bus, "multi-user.target", &s, &set, &e), -EOPNOTSUPP);
        ck_assert_msg_has(e, "has no cgroup");
        ck_assert_int_eq(systemd_unit_set_allowed_cpus(bus, "multi-user.target", &s, &e), -EOPNOTSUPP);
        ck_assert_uint_eq(mock_set_calls(bus, "multi-user.target", buf, sizeof(buf)), 0);
        ck_assert_int_eq(systemd_unit_set_allowed_cpus(bus, "fstrim.timer", &s, &e), -EOPNOTSUPP);
        ck_assert_int_eq(systemd_unit_is_active(bus, "multi-user.target", &e), 1);     /* any type has a state */
        for (size_t i = 0; i < ELEMENTSOF(invalid); i++) {
                ck_assert_int_eq(systemd_unit_get_allowed_cpus(bus, invalid[i], &s, &set, &e), -EINVAL);
                ck_assert_int_eq(systemd_unit_set_allowed_cpus(bus, invalid[i], &s, &e), -EINVAL);
                ck_assert_int_eq(systemd_unit_is_active(bus, invalid[i], &e), -EINVAL);
        }
        ck_assert_str_eq(systemd_unit_interface("a.service"), "org.freedesktop.systemd1.Service");
        ck_assert_str_eq(systemd_unit_interface("a.swap"), "org.freedesktop.systemd1.Swap");
        ck_assert_ptr_null(systemd_unit_interface("a.path"));
        sd_bus_flush_close_unref(bus);
}
END_TEST

/* Nobody owns org.freedesktop.systemd1, there is no bus, or it closed. */
START_TEST(test_no_systemd) {
        sd_bus *bus = connect_to(world.bare_address);
        SystemdUnitWatch *w = NULL;
        ErrorInfo e = {};
        bool set = false;
        CpuSet s;

        cpuset_clear(&s);
        ck_assert_int_eq(systemd_unit_get_allowed_cpus(bus, "a.service", &s, &set, &e), -EHOSTUNREACH);
        ck_assert_msg_has(e, "systemd is not on the bus");
        ck_assert_int_eq(systemd_unit_set_allowed_cpus(bus, "a.service", &s, &e), -EHOSTUNREACH);
        ck_assert_int_eq(systemd_unit_is_active(bus, "a.service", &e), -EHOSTUNREACH);
        ck_assert_int_eq(systemd_unit_watch_new(bus, "a.service", on_stop_unexpected, NULL, &w, &e), -EHOSTUNREACH);
        ck_assert_int_eq(systemd_unit_set_allowed_cpus(NULL, "a.service", &s, &e), -EHOSTUNREACH);
        ck_assert_msg_has(e, "no system bus");
        ck_assert_int_eq(systemd_unit_get_allowed_cpus(NULL, "a.service", &s, &set, &e), -EHOSTUNREACH);
        sd_bus_close(bus);
        ck_assert_msg(systemd_unit_set_allowed_cpus(bus, "a.service", &s, &e) == -EHOSTUNREACH, "%s", e.message);
        ck_assert_msg_has(e, "connection is gone");
        sd_bus_unref(bus);
}
END_TEST

START_TEST(test_is_active) {
        static const struct {
                const char *unit, *state;
                int active;
        } cases[] = {
                { "state-a.service", "active", 1 },       { "state-b.service", "activating", 1 },
                { "state-c.service", "deactivating", 1 }, { "state-d.service", "reloading", 1 },
                { "state-e.service", "inactive", 0 },     { "state-f.service", "failed", 0 },
        };
        sd_bus *bus = connect_to(world.address);
        ErrorInfo e = {};

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                mock_add_unit(bus, cases[i].unit, "loaded", cases[i].state, "");
                ck_assert_int_eq(systemd_unit_is_active(bus, cases[i].unit, &e), cases[i].active);
        }
        sd_bus_flush_close_unref(bus);
}
END_TEST

/* A watch's world: the bus on a loop, and what the callback saw (it
 * frees the watch, as the header allows). */
typedef struct Watching {
        sd_event *event;
        sd_bus *bus;
        SystemdUnitWatch *watch;
        bool stopped;
        char unit[64], why[32];
} Watching;

static void on_stop(const char *unit, const char *why, void *userdata) {
        Watching *x = userdata;

        ck_assert(!x->stopped);
        x->stopped = true;
        snprintf(x->unit, sizeof(x->unit), "%s", unit);
        snprintf(x->why, sizeof(x->why), "%s", why);
        x->watch = systemd_unit_watch_free(x->watch);
}

/* Adds unit to the mock in active_state and watches it. */
static void watch_start(Watching *x, const char *unit, const char *active_state) {
        ErrorInfo e = {};

        *x = (Watching) {};
        ck_assert_int_ge(sd_event_new(&x->event), 0);
        x->bus = connect_to(world.address);
        ck_assert_int_ge(sd_bus_attach_event(x->bus, x->event, 0), 0);
        mock_add_unit(x->bus, unit, "loaded", active_state, "");
        ck_assert_msg(systemd_unit_watch_new(x->bus, unit, on_stop, x, &x->watch, &e) == 0, "%s", e.message);
        ck_assert_str_eq(systemd_unit_watch_get_unit(x->watch), unit);
}

static void watch_end(Watching *x) {
        systemd_unit_watch_free(x->watch);
        sd_bus_flush_close_unref(x->bus);
        sd_event_unref(x->event);
}

/* Runs the loop until the watch fired, which it must, for why. */
static void watch_expect(Watching *x, const char *why) {
        ck_assert_msg(watch_test_run_until(x->event, &x->stopped, WATCH_TEST_DEADLINE_USEC), "no stop seen");
        ck_assert_str_eq(x->why, why);
}

static void mock_set_state(sd_bus *bus, const char *unit, const char *state) {
        sd_bus_message_unref(mock_call(bus, "SetMockUnitState", "ss", unit, state));
}

static uint32_t mock_subscribed(sd_bus *bus) {
        sd_bus_message *reply = mock_call(bus, "GetSubscribeCount", "");
        uint32_t n = 0;

        ck_assert_int_ge(sd_bus_message_read(reply, "u", &n), 0);
        sd_bus_message_unref(reply);
        return n;
}

/* A running unit: nothing until it stops; a state on the way (deactivating)
 * is not a stop. */
START_TEST(test_watch_inactive) {
        Watching x;

        watch_start(&x, "watch-a.service", "active");
        watch_test_run_for(x.event, 200 * 1000);
        ck_assert(!x.stopped);
        ck_assert_uint_ge(mock_subscribed(x.bus), 1);
        mock_set_state(x.bus, "watch-a.service", "deactivating");
        watch_test_run_for(x.event, 200 * 1000);
        ck_assert(!x.stopped);
        mock_set_state(x.bus, "watch-a.service", "inactive");
        watch_expect(&x, "inactive");
        ck_assert_str_eq(x.unit, "watch-a.service");
        ck_assert_ptr_null(x.watch);
        watch_end(&x);
}
END_TEST

/* The other ways a unit stops: failed, unloaded (a transient scope's end:
 * UnitRemoved), and stopped before the watch (seen at the first
 * processing of the bus). */
START_TEST(test_watch_stops) {
        static const struct {
                const char *unit, *initial, *then, *why;
        } cases[] = {
                { "watch-b.service", "active", "failed", "failed" },
                { "watch-c.scope", "active", NULL, "removed" },
                { "watch-d.service", "inactive", "", "inactive" },
                { "watch-f.service", "failed", "", "failed" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Watching x;

                watch_start(&x, cases[i].unit, cases[i].initial);
                if (!cases[i].then)
                        sd_bus_message_unref(mock_call(x.bus, "RemoveMockUnit", "s", cases[i].unit));
                else if (cases[i].then[0])
                        mock_set_state(x.bus, cases[i].unit, cases[i].then);
                watch_expect(&x, cases[i].why);
                watch_end(&x);
        }
}
END_TEST

/* More watches on one connection than the bus allows matches: the one
 * refused reports "unwatched" (its stop could not be seen), the others
 * keep watching. */
START_TEST(test_watch_refused) {
        Watching x[MATCHES_MAX / 2 + 1] = {};
        sd_event *event = NULL;
        sd_bus *bus = connect_to(world.address);
        char unit[ELEMENTSOF(x)][32];
        size_t n_unwatched = 0;
        ErrorInfo e = {};

        ck_assert_int_ge(sd_event_new(&event), 0);
        ck_assert_int_ge(sd_bus_attach_event(bus, event, 0), 0);
        for (size_t i = 0; i < ELEMENTSOF(x); i++) {
                snprintf(unit[i], sizeof(unit[i]), "watch-many-%zu.service", i);
                mock_add_unit(bus, unit[i], "loaded", "active", "");
                ck_assert_msg(systemd_unit_watch_new(bus, unit[i], on_stop, &x[i], &x[i].watch, &e) == 0, "%s",
                              e.message);
        }
        watch_test_run_for(event, 300 * 1000);
        for (size_t i = 0; i < ELEMENTSOF(x); i++)
                if (x[i].stopped) {
                        ck_assert_str_eq(x[i].why, "unwatched");
                        n_unwatched++;
                }
        ck_assert_uint_ge(n_unwatched, 1);
        ck_assert(!x[0].stopped);
        mock_set_state(bus, unit[0], "inactive");
        ck_assert(watch_test_run_until(event, &x[0].stopped, WATCH_TEST_DEADLINE_USEC));
        ck_assert_str_eq(x[0].why, "inactive");
        for (size_t i = 0; i < ELEMENTSOF(x); i++)
                systemd_unit_watch_free(x[i].watch);
        sd_bus_flush_close_unref(bus);
        sd_event_unref(event);
}
END_TEST

/* Freed before anything happened: no callback later. */
START_TEST(test_watch_freed) {
        Watching x;

        watch_start(&x, "watch-e.service", "active");
        x.watch = systemd_unit_watch_free(x.watch);
        mock_set_state(x.bus, "watch-e.service", "inactive");
        watch_test_run_for(x.event, 200 * 1000);
        ck_assert(!x.stopped);
        ck_assert_ptr_null(systemd_unit_watch_free(NULL));
        watch_end(&x);
}
END_TEST

/* Sets unit's AllowedCPUs to cpus as a pin's change.  Returns the
 * original into orig. */
static void change_unit(ChangeLayer *l, const char *unit, const char *cpus, char *orig, size_t size) {
        char key[300];

        ck_assert_int_eq(knob_unit_key(unit, key, sizeof(key)), 0);
        ck_assert_int_eq(change_test_set(l, CHANGE_OWNER_PIN_ID(1), key, cpus), 1);
        snprintf(orig, size, "%s", change_original(l, key));
}

/* Writes the restore journal file of t (a previous run's). */
static void write_journal_file(const FakeTree *t, const char *body) {
        ck_assert_int_eq(faketree_write(t->fd, "run/" RESTORE_JOURNAL_FILE, "# idlepolicyd restore journal v1 root=%s\n%s",
                                        t->path, body), 0);
}

/* unit:NAME through the journal: recorded, changed, put back by a
 * restore (SetUnitProperties with the original); with no bus set kept,
 * also across a "crash", and put back once a bus is set. */
START_TEST(test_journal_round_trip) {
        sd_bus *bus = connect_to(world.address);
        FakeTree *t = unit_tree(NULL);
        char orig[64], last[64];
        ErrorInfo e = {};
        ChangeTest c;

        change_test_open(&c, t);
        change_layer_set_bus(c.l, bus);
        mock_add_unit(bus, "journal-a.service", "loaded", "active", "0-1");
        change_unit(c.l, "journal-a.service", "1", orig, sizeof(orig));
        ck_assert_str_eq(orig, "0-1");
        ck_assert_int_eq(change_restore_all(c.l, &e), 1);
        ck_assert_uint_eq(mock_set_calls(bus, "journal-a.service", last, sizeof(last)), 2);
        ck_assert_str_eq(last, "0-1");
        ck_assert_uint_eq(change_n_changed(c.l), 0);

        /* not set at first: put back as an empty array */
        mock_add_unit(bus, "journal-b.service", "loaded", "active", "");
        change_unit(c.l, "journal-b.service", "0", orig, sizeof(orig));
        ck_assert_str_eq(orig, "");
        change_layer_set_bus(c.l, NULL);
        ck_assert_int_eq(change_restore_all(c.l, &e), 0);
        ck_assert_uint_eq(change_n_changed(c.l), 1);
        change_test_close(&c);                  /* as if killed */
        change_test_open(&c, t);
        ck_assert_int_eq(change_layer_replay(c.l), 1);
        ck_assert_str_eq(change_original(c.l, "unit:journal-b.service"), "");
        change_layer_set_bus(c.l, bus);
        ck_assert_int_eq(change_restore(c.l, CHANGE_OWNER(LEFTOVER), &e), 1);
        ck_assert_uint_eq(mock_set_calls(bus, "journal-b.service", last, sizeof(last)), 2);
        ck_assert_str_eq(last, "");
        ck_assert_uint_eq(change_n_changed(c.l), 0);
        change_test_close(&c);
        sd_bus_flush_close_unref(bus);
}
END_TEST

/* A unit that no longer exists is forgotten; one systemd cannot be asked
 * about (a bus without systemd) fails and stays. */
START_TEST(test_journal_gone_or_unreachable) {
        sd_bus *bus = connect_to(world.address), *bare = connect_to(world.bare_address);
        FakeTree *t = unit_tree(NULL);
        ErrorInfo e = {};
        ChangeTest c;

        write_journal_file(t, "unit:journal-gone.service 0\n");
        change_test_open(&c, t);
        change_layer_set_bus(c.l, bus);
        ck_assert_int_eq(change_layer_replay(c.l), 1);
        ck_assert_uint_eq(change_n_changed(c.l), 0);
        change_test_close(&c);

        write_journal_file(t, "unit:journal-c.service 0\n");
        change_test_open(&c, t);
        change_layer_set_bus(c.l, bare);
        ck_assert_int_eq(change_layer_replay(c.l), 1);
        ck_assert_uint_eq(change_n_changed(c.l), 1);
        ck_assert_int_eq(change_restore_all(c.l, &e), -EIO);
        ck_assert_msg_has(e, "unit:journal-c.service");
        ck_assert_uint_eq(change_n_changed(c.l), 1);
        change_test_close(&c);
        sd_bus_flush_close_unref(bare);
        sd_bus_flush_close_unref(bus);
}
END_TEST

/* Forks argv with stdout and stderr into log (the child dies with us).
 * Returns its PID. */
static pid_t spawn(char *const argv[], const char *log) {
        pid_t pid = fork();

        if (pid == 0) {
                int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

                (void) prctl(PR_SET_PDEATHSIG, SIGTERM);
                if (fd >= 0) {
                        (void) dup2(fd, STDOUT_FILENO);
                        (void) dup2(fd, STDERR_FILENO);
                }
                execvp(argv[0], argv);
                _exit(127);
        }
        return pid;
}

/* Returns true if pid has exited (reaped). */
static bool exited(pid_t pid) {
        return waitpid(pid, NULL, WNOHANG) == pid;
}

static void stop(pid_t *pid) {
        if (*pid > 0) {
                (void) kill(*pid, SIGTERM);
                (void) waitpid(*pid, NULL, 0);
        }
        *pid = 0;
}

static void world_free(void) {
        if (getpid() != world.main)             /* a forked test's exit */
                return;
        stop(&world.mock);
        stop(&world.bus);
        stop(&world.bare_bus);
        if (world.dir[0] == '/')
                faketree_rm_rf(AT_FDCWD, world.dir);
}

/* Starts a dbus-daemon on world.dir/name (a system bus open to all).
 * Returns 0 with its address, or -1 with why set. */
static int bus_start(const char *name, char *address, size_t size, pid_t *ret_pid, char *why, size_t why_size) {
        char socket[128], conf[160], log[160], arg[192];
        char *argv[] = { (char *) "dbus-daemon", (char *) "--nofork", (char *) "--nopidfile", arg, NULL };
        struct stat st;
        FILE *f;

        snprintf(socket, sizeof(socket), "%s/%s", world.dir, name);
        snprintf(conf, sizeof(conf), "%s.conf", socket);
        snprintf(log, sizeof(log), "%s.log", socket);
        snprintf(arg, sizeof(arg), "--config-file=%s", conf);
        snprintf(address, size, "unix:path=%s", socket);
        f = fopen(conf, "we");
        if (!f || fprintf(f, BUS_CONFIG, socket, MATCHES_MAX) < 0 || fclose(f) != 0) {
                snprintf(why, why_size, "cannot write %s", conf);
                return -1;
        }
        *ret_pid = spawn(argv, log);
        for (uint64_t end = watch_test_now() + START_DEADLINE_USEC; watch_test_now() < end; usleep(10 * 1000)) {
                if (stat(socket, &st) == 0)
                        return 0;
                if (exited(*ret_pid))
                        break;
        }
        *ret_pid = 0;
        snprintf(why, why_size, "dbus-daemon did not start (see %s)", log);
        return -1;
}

/* Returns true once name has an owner on bus. */
static bool name_has_owner(sd_bus *bus, const char *name) {
        sd_bus_message *reply = NULL;
        int owned = 0;

        if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", NULL, &reply, "s", name) >= 0)
                (void) sd_bus_message_read(reply, "b", &owned);
        sd_bus_message_unref(reply);
        return owned;
}

/* Starts the mock on world.address and waits for its name.  Returns 0 or
 * -1 with why set. */
static int mock_start(char *why, size_t why_size) {
        char *argv[] = { (char *) TEST_PYTHON, (char *) "-m", (char *) "dbusmock", (char *) "--system",
                         (char *) "-t", (char *) TEST_SYSTEMD_MOCK, NULL };
        char log[192];
        sd_bus *bus = NULL;
        bool up = false;

        snprintf(log, sizeof(log), "%s/mock.log", world.dir);
        if (setenv("DBUS_SYSTEM_BUS_ADDRESS", world.address, 1) < 0)
                return -1;
        world.mock = spawn(argv, log);
        if (sd_bus_new(&bus) < 0 || sd_bus_set_address(bus, world.address) < 0 || sd_bus_set_bus_client(bus, 1) < 0 ||
            sd_bus_start(bus) < 0) {
                sd_bus_unref(bus);
                snprintf(why, why_size, "cannot connect to %s", world.address);
                return -1;
        }
        for (uint64_t end = watch_test_now() + START_DEADLINE_USEC; !up && watch_test_now() < end; usleep(20 * 1000))
                up = name_has_owner(bus, SYSTEMD_BUS_NAME) || exited(world.mock);
        up = up && name_has_owner(bus, SYSTEMD_BUS_NAME);
        sd_bus_flush_close_unref(bus);
        if (!up)
                snprintf(why, why_size, "the systemd mock did not start (see %s)", log);
        return up ? 0 : -1;
}

/* Returns a reason to skip, or NULL when dbus-daemon and dbusmock are there. */
static const char *missing_tools(void) {
        if (system("dbus-daemon --version >/dev/null 2>&1") != 0)
                return "dbus-daemon is not installed";
        if (access(TEST_PYTHON, X_OK) < 0 || system(TEST_PYTHON " -c 'import dbusmock' >/dev/null 2>&1") != 0)
                return TEST_PYTHON " has no dbusmock (python3-dbusmock)";
        return NULL;
}

/* Starts both buses and the mock.  Returns 0 or -1 with why set. */
static int world_start(char *why, size_t size) {
        const char *tmp = getenv("TMPDIR");

        /* unix socket paths are short: a long TMPDIR is not used */
        snprintf(world.dir, sizeof(world.dir), "%s/idlepolicy-systemd-XXXXXX",
                 tmp && tmp[0] == '/' && strlen(tmp) < 60 ? tmp : "/tmp");
        world.main = getpid();
        if (!mkdtemp(world.dir) || atexit(world_free) != 0) {
                snprintf(why, size, "cannot make a temporary directory");
                world.dir[0] = '\0';
                return -1;
        }
        if (bus_start("bus", world.address, sizeof(world.address), &world.bus, why, size) < 0 ||
            bus_start("bare", world.bare_address, sizeof(world.bare_address), &world.bare_bus, why, size) < 0)
                return -1;
        return mock_start(why, size);
}

int main(void) {
        const TTest *const tests[] = {
                test_get, test_set_and_reset, test_unknown_unit, test_no_cgroup_or_invalid, test_no_systemd,
                test_is_active, test_watch_inactive, test_watch_stops, test_watch_refused, test_watch_freed, test_journal_round_trip,
                test_journal_gone_or_unreachable,
        };
        const char *skip = missing_tools();
        Suite *s = suite_create("systemd-unit");
        TCase *tc = unit_tcase(s, "systemd-unit");
        char why[512];

        if (skip)
                return watch_test_skip(skip);
        if (world_start(why, sizeof(why)) < 0) {
                printf("Bail out! %s\n", why);
                return EXIT_FAILURE;
        }
        log_set_max_level(LOG_WARNING);
        tcase_set_timeout(tc, 60);
        for (size_t i = 0; i < ELEMENTSOF(tests); i++)
                tcase_add_test(tc, tests[i]);
        return unit_run(s);
}
