/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "pin-persist.h"
#include "unit.h"

/* A valid state file of two pins. */
#define ENTRY_A "{\"id\":3,\"target\":\"pid:1234\",\"start_time\":123456,\"cpus\":\"2-3\",\"profile\":\"latency\"," \
        "\"created_usec\":1700000000000000,\"reason\":\"db\",\"owner_uid\":1000}"
#define ENTRY_B "{\"id\":5,\"target\":\"cgroup:system.slice/x.service\",\"cpus\":\"\",\"profile\":\"performance\"}"
#define FILE_OK "{\"version\":1,\"next_id\":8,\"pins\":[" ENTRY_A "," ENTRY_B "]}"

/* "{...,"pins":[ENTRY]}" with next_id 8. */
#define ONE(entry) "{\"version\":1,\"next_id\":8,\"pins\":[" entry "]}"

static Pin pin_spec(const char *target, const char *profile, const char *cpus) {
        Pin p = { .state = PIN_STATE_ACTIVE };
        ErrorInfo e = {};

        ck_assert_msg(pin_target_parse(target, &p.target, &e) == 0, "%s", e.message);
        ck_assert_int_eq(cpuset_parse(cpus, &p.cpus, NULL), 0);
        p.cpus_given = cpus[0] != '\0';
        snprintf(p.profile, sizeof(p.profile), "%s", profile);
        return p;
}

/* A registry holding one pin, id 1, comm:keep. */
static PinRegistry *registry_one(void) {
        PinRegistry *r = pin_registry_new();
        Pin spec = pin_spec("comm:keep", "balanced", "0");

        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);
        return r;
}

/* Asserts that loading text into a registry of one pin fails with error
 * and a message containing needle, the registry unchanged. */
static void load_fails_len(const char *text, size_t len, int error, const char *needle) {
        _cleanup_pin_registry_ PinRegistry *r = registry_one();
        _cleanup_free_ char *before = pin_persist_to_json(r), *after = NULL;
        ErrorInfo e = {};
        int k;

        ck_assert_ptr_nonnull(before);
        k = pin_persist_load(text, len, r, &e);
        ck_assert_msg(k == error, "%.*s: %d (%s)", (int) (len < 200 ? len : 200), text, k, e.message);
        if (needle)
                ck_assert_msg_has(e, needle);
        after = pin_persist_to_json(r);
        ck_assert_str_eq(before, after);
        ck_assert_uint_eq(pin_registry_n_pins(r), 1);
        ck_assert_uint_eq(pin_registry_get_next_id(r), 2);
}

static void load_fails(const char *text, const char *needle) {
        load_fails_len(text, strlen(text), -EBADMSG, needle);
}

START_TEST(test_round_trip) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new(), *back = pin_registry_new();
        _cleanup_free_ char *text = NULL, *again = NULL;
        Hold h = { .owner = ":1.5", .profile = "latency" };
        ErrorInfo e = {};
        Pin spec, *p;

        spec = pin_spec("pid:1234", "latency", "2-3");
        spec.target.start_time = 123456;
        spec.created_usec = 1700000000000000;
        spec.owner_uid = 1000;
        snprintf(spec.reason, sizeof(spec.reason), "db \"primary\"\n");
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);                   /* 1 */
        spec = pin_spec("exe:/usr/bin/ffmpeg", "performance", "4-7");
        spec.from_rules_dir = true;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);                   /* 2: from a rule file */
        spec = pin_spec("comm:gone", "latency", "1");
        spec.state = PIN_STATE_ENDED;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);                   /* 3: ended */
        spec = pin_spec("cgroup:/system.slice/x.service", "power-saver", "");
        cpuset_add(&spec.cpus, 6);                                                 /* resolved, not given */
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);                   /* 4 */
        spec = pin_spec("unit:getty@tty1.service",            /* the longest profile name: a derived one */
                        "a23456789012345678901234567890123456789012345678901234567890123:latency_limit_us=10000000",
                        "0,2,4-5");
        spec.state = PIN_STATE_WAITING;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);                   /* 5 */
        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), 0);
        ck_assert_int_eq(pin_registry_set_next_id(r, 40), 0);

        text = pin_persist_to_json(r);
        ck_assert_ptr_nonnull(text);
        ck_assert_msg(!strstr(text, "ffmpeg") && !strstr(text, "gone") && !strstr(text, ":1.5"), "%s", text);
        ck_assert_msg(pin_persist_load(text, strlen(text), back, &e) == 0, "%s: %s", text, e.message);
        ck_assert_uint_eq(pin_registry_get_next_id(back), 40);
        ck_assert_uint_eq(pin_registry_n_pins(back), 3);
        ck_assert_uint_eq(pin_registry_n_holds(back), 0);

        p = pin_registry_find(back, 1);
        ck_assert_str_eq(p->target.value, "");
        ck_assert_int_eq(p->target.pid, 1234);
        ck_assert_uint_eq(p->target.start_time, 123456);
        ck_assert(p->cpus_given);
        ck_assert_uint_eq(cpuset_count(&p->cpus), 2);
        ck_assert_str_eq(p->profile, "latency");
        ck_assert_uint_eq(p->created_usec, 1700000000000000);
        ck_assert_str_eq(p->reason, "db \"primary\"\n");
        ck_assert_uint_eq(p->owner_uid, 1000);
        ck_assert_int_eq(p->state, PIN_STATE_WAITING);
        ck_assert(!p->from_rules_dir);
        p = pin_registry_find(back, 4);
        ck_assert_str_eq(p->target.value, "system.slice/x.service");
        ck_assert(!p->cpus_given);
        ck_assert_uint_eq(cpuset_count(&p->cpus), 0);
        p = pin_registry_find(back, 5);
        ck_assert_int_eq(p->target.kind, PIN_TARGET_UNIT);
        ck_assert_str_eq(p->profile, "a23456789012345678901234567890123456789012345678901234567890123:latency_limit_us=10000000");
        ck_assert_uint_eq(cpuset_count(&p->cpus), 4);

        /* a fixed point: what was loaded writes the same text */
        again = pin_persist_to_json(back);
        ck_assert_str_eq(text, again);
}
END_TEST

START_TEST(test_format) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new();
        _cleanup_free_ char *text = NULL;
        Pin spec = pin_spec("pid:7", "latency", "");

        text = pin_persist_to_json(r);
        ck_assert_str_eq(text, "{\n  \"version\": 1,\n  \"next_id\": 1,\n  \"pins\": []\n}");
        free(TAKE_PTR(text));
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);
        text = pin_persist_to_json(r);
        ck_assert_str_eq(text, "{\n  \"version\": 1,\n  \"next_id\": 2,\n  \"pins\": [\n    {\n"
                               "      \"id\": 1,\n      \"target\": \"pid:7\",\n      \"start_time\": 0,\n"
                               "      \"cpus\": \"\",\n      \"profile\": \"latency\",\n      \"created_usec\": 0,\n"
                               "      \"reason\": \"\",\n      \"owner_uid\": 0\n    }\n  ]\n}");
}
END_TEST

START_TEST(test_load_into_registry) {
        _cleanup_pin_registry_ PinRegistry *r = registry_one();
        ErrorInfo e = {};

        /* the file's pins join those already there, next id raised */
        ck_assert_msg(pin_persist_load(FILE_OK, strlen(FILE_OK), r, &e) == 0, "%s", e.message);
        ck_assert_uint_eq(pin_registry_n_pins(r), 3);
        ck_assert_uint_eq(pin_registry_get_next_id(r), 8);
        ck_assert_uint_eq(pin_registry_pin_at(r, 1)->id, 3);
        ck_assert_str_eq(pin_registry_find(r, 5)->profile, "performance");
        /* an empty file of pins */
        ck_assert_int_eq(pin_persist_load("{\"version\":1,\"next_id\":100,\"pins\":[]}", 37, r, &e), 0);
        ck_assert_uint_eq(pin_registry_get_next_id(r), 100);
        ck_assert_uint_eq(pin_registry_n_pins(r), 3);
}
END_TEST

START_TEST(test_corrupt_and_truncated) {
        const size_t len = strlen(FILE_OK);

        load_fails("", "parse error");
        load_fails("{\"version\":1,,}", "line 1, column ");
        load_fails("\x01\x02garbage", "parse error");
        load_fails("[]", "the top level must be a JSON object");
        load_fails("{\"version\":1,\"version\":1,\"next_id\":8,\"pins\":[]}", "duplicate object key");
        /* every cut of a valid file */
        for (size_t cut = 0; cut < len; cut++)
                load_fails_len(FILE_OK, cut, -EBADMSG, "parse error");
        /* text after the object */
        load_fails(FILE_OK "x", "parse error");
}
END_TEST

START_TEST(test_header) {
        load_fails("{\"version\":2,\"next_id\":8,\"pins\":[]}", "key \"version\": must be 1");
        load_fails("{\"version\":0,\"next_id\":8,\"pins\":[]}", "key \"version\": must be 1");
        load_fails("{\"version\":\"1\",\"next_id\":8,\"pins\":[]}", "key \"version\": must be 1");
        load_fails("{\"version\":1.0,\"next_id\":8,\"pins\":[]}", "key \"version\": must be 1");
        load_fails("{\"next_id\":8,\"pins\":[]}", "key \"version\": missing");
        load_fails("{\"version\":1,\"pins\":[]}", "key \"next_id\": missing");
        load_fails("{\"version\":1,\"next_id\":8}", "key \"pins\": missing");
        load_fails("{\"version\":1,\"next_id\":\"8\",\"pins\":[]}", "key \"next_id\": must be an integer");
        load_fails("{\"version\":1,\"next_id\":0,\"pins\":[]}", "key \"next_id\": must be an integer");
        load_fails("{\"version\":1,\"next_id\":4294967296,\"pins\":[]}", "key \"next_id\": must be an integer");
        load_fails("{\"version\":1,\"next_id\":8,\"pins\":{}}", "key \"pins\": must be an array");
        load_fails("{\"version\":1,\"next_id\":8,\"pins\":null}", "key \"pins\": must be an array");
        load_fails("{\"version\":1,\"next_id\":8,\"pins\":[],\"holds\":[]}", "key \"holds\": unknown key");
}
END_TEST

START_TEST(test_bad_entries) {
        load_fails(ONE("3"), "pins[0]: must be a JSON object");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:0\",\"cpus\":\"\",\"profile\":\"x\"}"),
                   "pins[0] (id 3): key \"target\": invalid pin target \"pid:0\": the pid must be between 1 and 4194304");
        load_fails(ONE("{\"id\":3,\"target\":\"cgroup:../x\",\"cpus\":\"\",\"profile\":\"x\"}"), "\"..\" components");
        load_fails(ONE("{\"id\":3,\"target\":5,\"cpus\":\"\",\"profile\":\"x\"}"), "key \"target\": must be a string");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"cpus\":\"3-1\",\"profile\":\"x\"}"),
                   "pins[0] (id 3): key \"cpus\": invalid CPU list token \"3-1\"");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"cpus\":23,\"profile\":\"x\"}"), "key \"cpus\": must be a CPU list");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"cpus\":\"\",\"profile\":\"\"}"), "key \"profile\": must be a profile name");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"cpus\":\"\",\"profile\":1}"), "key \"profile\": must be a profile name");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"cpus\":\"\",\"profile\":"
                       "\"0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456\"}"),
                   "key \"profile\": must be a profile name (a string of 1 to 95 bytes)");
        load_fails(ONE("{\"id\":0,\"target\":\"pid:5\",\"cpus\":\"\",\"profile\":\"x\"}"), "pins[0] (id 0): key \"id\": must be an integer");
        load_fails(ONE("{\"id\":\"3\",\"target\":\"pid:5\",\"cpus\":\"\",\"profile\":\"x\"}"), "pins[0]: key \"id\": must be an integer");
        load_fails(ONE("{\"id\":8,\"target\":\"pid:5\",\"start_time\":9,\"cpus\":\"\",\"profile\":\"x\"}"),
                   "key \"id\": must be below next_id (8)");
        load_fails(ONE("{\"target\":\"pid:5\",\"cpus\":\"\",\"profile\":\"x\"}"), "pins[0]: key \"id\": missing");
        load_fails(ONE("{\"id\":3,\"cpus\":\"\",\"profile\":\"x\"}"), "key \"target\": missing");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"profile\":\"x\"}"), "key \"cpus\": missing");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"cpus\":\"\"}"), "key \"profile\": missing");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"cpus\":\"\",\"profile\":\"x\",\"state\":\"active\"}"),
                   "pins[0] (id 3): key \"state\": unknown key");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"cpus\":\"\",\"profile\":\"x\",\"created_usec\":-1}"),
                   "key \"created_usec\": must be a non-negative integer");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"cpus\":\"\",\"profile\":\"x\",\"start_time\":-1}"),
                   "key \"start_time\": must be a non-negative integer");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"cpus\":\"\",\"profile\":\"x\",\"owner_uid\":4294967296}"),
                   "key \"owner_uid\": must be an integer");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"cpus\":\"\",\"profile\":\"x\",\"reason\":3}"),
                   "key \"reason\": must be a string");
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"cpus\":\"\",\"profile\":\"x\",\"reason\":\"a\\u0000b\"}"),
                   "parse error");    /* jansson refuses NUL bytes */
        load_fails(ONE("{\"id\":3,\"target\":\"comm:x\",\"start_time\":5,\"cpus\":\"\",\"profile\":\"x\"}"),
                   "key \"start_time\": only pid targets have one");
        /* a pid without its start time would take whatever process has
         * the pid now */
        load_fails(ONE("{\"id\":3,\"target\":\"pid:5\",\"cpus\":\"\",\"profile\":\"x\"}"),
                   "pins[0] (id 3): key \"start_time\": missing: a pid pin is taken again only for the process");
        load_fails(ONE(ENTRY_B ",{\"id\":6,\"target\":\"pid:5\",\"start_time\":0,\"cpus\":\"\",\"profile\":\"x\"}"),
                   "pins[1] (id 6): key \"start_time\": must not be 0 (unknown)");
        /* two entries: the same id, the same target (pids: the same pid) */
        load_fails(ONE(ENTRY_A "," ENTRY_A), "pins[1] (id 3): key \"id\": used by an earlier entry");
        load_fails(ONE(ENTRY_B ",{\"id\":6,\"target\":\"cgroup:/system.slice/x.service/\",\"cpus\":\"1\",\"profile\":\"x\"}"),
                   "pins[1] (id 6): key \"target\": an earlier entry has the same target");
        load_fails(ONE(ENTRY_A ",{\"id\":4,\"target\":\"pid:1234\",\"start_time\":5,\"cpus\":\"1\",\"profile\":\"x\"}"),
                   "pins[1] (id 4): key \"target\": an earlier entry has the same target");
        /* one bad entry after good ones rejects them all */
        load_fails(ONE(ENTRY_A "," ENTRY_B ",{\"id\":6}"), "pins[2] (id 6): key \"target\": missing");
}
END_TEST

START_TEST(test_conflicts) {
        _cleanup_free_ char *many = NULL;
        size_t len = 0, before_last = 0;

        /* the registry has pin 1 on comm:keep */
        load_fails_len(ONE("{\"id\":1,\"target\":\"pid:5\",\"start_time\":9,\"cpus\":\"\",\"profile\":\"x\"}"),
                       strlen(ONE("{\"id\":1,\"target\":\"pid:5\",\"start_time\":9,\"cpus\":\"\",\"profile\":\"x\"}")),
                       -EEXIST, "an id or a target is taken");
        load_fails_len(ONE("{\"id\":2,\"target\":\"comm:keep\",\"cpus\":\"\",\"profile\":\"x\"}"),
                       strlen(ONE("{\"id\":2,\"target\":\"comm:keep\",\"cpus\":\"\",\"profile\":\"x\"}")), -EEXIST, "taken");

        /* 4097 entries are too many for a file; 4096 too many beside pin 1 */
        many = malloc(4097 * 112 + 64);
        ck_assert_ptr_nonnull(many);
        len += (size_t) sprintf(many, "{\"version\":1,\"next_id\":5000,\"pins\":[");
        for (unsigned i = 1; i <= 4097; i++) {
                before_last = len;
                len += (size_t) sprintf(many + len,
                                        "%s{\"id\":%u,\"target\":\"pid:%u\",\"start_time\":9,\"cpus\":\"\",\"profile\":\"x\"}",
                                        i > 1 ? "," : "", i + 1, i);
        }
        strcpy(many + len, "]}");
        load_fails(many, "key \"pins\": must be an array of at most 4096 pins");
        strcpy(many + before_last, "]}");
        load_fails_len(many, strlen(many), -EDQUOT, "too many pins");
}
END_TEST

static Pin *rules_ok(const char *text, size_t *n) {
        Pin *rules = (Pin *) 0x1;
        ErrorInfo e = {};

        ck_assert_msg(pin_rules_parse(text, strlen(text), "/etc/idlepolicy/pins.d/a.json", &rules, n, &e) == 0,
                      "%s: %s", text, e.message);
        return rules;
}

static void rules_fail(const char *text, const char *needle) {
        Pin *rules = (Pin *) 0x1;
        size_t n = 77;
        ErrorInfo e = {};

        ck_assert_msg(pin_rules_parse(text, strlen(text), "/etc/idlepolicy/pins.d/a.json", &rules, &n, &e) == -EBADMSG,
                      "accepted: %s", text);
        ck_assert_msg_has(e, needle);
        ck_assert_ptr_eq(rules, (Pin *) 0x1);
        ck_assert_uint_eq(n, 77);
}

START_TEST(test_rules) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new();
        Pin *rules;
        size_t n;

        rules = rules_ok("{\"target\":\"exe:/usr/bin/ffmpeg\",\"cpus\":\"4-7\",\"profile\":\"performance\",\"reason\":\"transcoding\"}", &n);
        ck_assert_uint_eq(n, 1);
        ck_assert_int_eq(rules[0].target.kind, PIN_TARGET_EXE);
        ck_assert_str_eq(rules[0].target.value, "/usr/bin/ffmpeg");
        ck_assert(rules[0].cpus_given);
        ck_assert_uint_eq(cpuset_count(&rules[0].cpus), 4);
        ck_assert_str_eq(rules[0].profile, "performance");
        ck_assert_str_eq(rules[0].reason, "transcoding");
        ck_assert(rules[0].from_rules_dir);
        ck_assert_int_eq(rules[0].state, PIN_STATE_WAITING);
        ck_assert_int_eq(pin_registry_add(r, &rules[0], NULL), 0);
        free(rules);

        rules = rules_ok("[{\"target\":\"comm:x264\",\"profile\":\"latency\"},"
                         "{\"target\":\"unit:postgresql.service\",\"cpus\":\"\",\"profile\":\"latency\"},"
                         "{\"target\":\"cgroup:/machine.slice\",\"cpus\":\"1\",\"profile\":\"balanced\"}]", &n);
        ck_assert_uint_eq(n, 3);
        ck_assert(!rules[0].cpus_given);
        ck_assert(!rules[1].cpus_given);
        ck_assert_str_eq(rules[2].target.value, "machine.slice");
        free(rules);
        rules = rules_ok("[]", &n);
        ck_assert_uint_eq(n, 0);
        ck_assert_ptr_null(rules);
        /* the profile's existence is the daemon's business */
        free(rules_ok("{\"target\":\"comm:a\",\"profile\":\"no-such-profile\"}", &n));
}
END_TEST

START_TEST(test_rules_bad) {
        _cleanup_free_ char *many = NULL;
        size_t len;

        rules_fail("", "parse error");
        rules_fail("{\"target\":\"comm:a\",\"profile\":\"x\"", "/etc/idlepolicy/pins.d/a.json:1:");
        rules_fail("5", "a.json:1:1: parse error");
        rules_fail("{\"target\":\"comm:a\",\"profile\":\"x\",\"color\":\"red\"}", "a.json: key \"color\": unknown key");
        rules_fail("{\"target\":\"comm:a\",\"profile\":\"x\",\"id\":4}", "a.json: key \"id\": unknown key");
        rules_fail("{\"target\":\"comm:a\",\"profile\":\"x\",\"owner_uid\":4}", "key \"owner_uid\": unknown key");
        rules_fail("{\"profile\":\"x\"}", "a.json: key \"target\": missing");
        rules_fail("{\"target\":\"comm:a\"}", "a.json: key \"profile\": missing");
        rules_fail("{\"target\":\"pid:5\",\"profile\":\"x\"}", "key \"target\": a rule cannot name a pid");
        rules_fail("{\"target\":\"comm:abcdefghijklmnop\",\"profile\":\"x\"}", "key \"target\": invalid pin target");
        rules_fail("{\"target\":\"comm:a\",\"profile\":\"x\",\"cpus\":\"a\"}", "key \"cpus\": invalid CPU list");
        rules_fail("{\"target\":\"comm:a\",\"profile\":\"\"}", "key \"profile\": must be a profile name");
        rules_fail("[{\"target\":\"comm:a\",\"profile\":\"x\"},{\"target\":\"comm:b\",\"profile\":\"x\",\"cpu\":\"1\"}]",
                   "a.json: rules[1]: key \"cpu\": unknown key");
        rules_fail("[{\"target\":\"comm:a\",\"profile\":\"x\"},[]]", "a.json: rules[1]: must be a JSON object");

        many = malloc(1025 * 40 + 8);
        ck_assert_ptr_nonnull(many);
        len = (size_t) sprintf(many, "[");
        for (unsigned i = 0; i < 1025; i++)
                len += (size_t) sprintf(many + len, "%s{\"target\":\"comm:a\",\"profile\":\"x\"}", i ? "," : "");
        strcpy(many + len, "]");
        rules_fail(many, "a.json: more than 1024 rules");
}
END_TEST

int main(void) {
        Suite *s = suite_create("pin-persist");
        TCase *state = unit_tcase(s, "state");
        TCase *rules = unit_tcase(s, "rules");

        tcase_set_timeout(state, 60);
        tcase_add_test(state, test_round_trip);
        tcase_add_test(state, test_format);
        tcase_add_test(state, test_load_into_registry);
        tcase_add_test(state, test_corrupt_and_truncated);
        tcase_add_test(state, test_header);
        tcase_add_test(state, test_bad_entries);
        tcase_add_test(state, test_conflicts);
        tcase_add_test(rules, test_rules);
        tcase_add_test(rules, test_rules_bad);
        return unit_run(s);
}
