/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Profiles: every kind of bad file, the round trip, the profile set, and
 * every shipped profile (the directory is argv[1]). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "test-model-helpers.h"

static const char *profiles_dir;

#define ck_assert_msg_has(e, needle) \
        ck_assert_msg(strstr((e).message, (needle)), "message \"%s\" lacks \"%s\"", (e).message, (needle))

typedef struct BadCase {
        const char *text;
        const char *filename;
        const char *needle;       /* the message names this */
} BadCase;

static const BadCase bad_cases[] = {
        { "{\"name\": \"x\", \"colour\": 1}", "x.json", "x.json: key \"colour\": unknown key" },
        { "{\"name\": 5}", "x.json", "key \"name\": must be a string" },
        { "{\"name\": \"\"}", "x.json", "key \"name\"" },
        { "{\"name\": \".hidden\"}", "x.json", "key \"name\"" },
        { "{\"name\": \"a/b\"}", "x.json", "key \"name\"" },
        { "{\"name\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", "x.json", "key \"name\"" },
        { "{\"description\": 3}", "x.json", "key \"description\"" },
        { "{\"latency_limit_us\": \"10\"}", "x.json", "key \"latency_limit_us\": must be an integer" },
        { "{\"latency_limit_us\": 1.5}", "x.json", "key \"latency_limit_us\"" },
        { "{\"latency_limit_us\": -1}", "x.json", "key \"latency_limit_us\"" },
        { "{\"latency_limit_us\": 10000001}", "x.json", "key \"latency_limit_us\"" },
        { "{\"too_deep_tolerance\": 101}", "x.json", "key \"too_deep_tolerance\": must be a number between 0 and 100" },
        { "{\"too_deep_tolerance\": true}", "x.json", "key \"too_deep_tolerance\"" },
        { "{\"too_shallow_tolerance\": -0.5}", "x.json", "key \"too_shallow_tolerance\"" },
        { "{\"burn_price\": 1001}", "x.json", "key \"burn_price\"" },
        { "{\"burn_price\": null}", "x.json", "key \"burn_price\"" },
        { "{\"poll_search\": 1.5}", "x.json",
          "x.json: key \"poll_search\": must be a number between 0 (off) and 1 (the CPU weight of the poll frontier search)" },
        { "{\"poll_search\": -1}", "x.json", "key \"poll_search\": must be a number between 0 (off) and 1" },
        { "{\"poll_search\": null}", "x.json", "key \"poll_search\": must be a number between 0 (off) and 1" },
        { "{\"poll_search\": \"1\"}", "x.json", "key \"poll_search\": must be a number between 0 (off) and 1" },
        { "{\"poll_search\": true}", "x.json", "key \"poll_search\"" },
        { "{\"poll_search\": 1.0009765625}", "x.json", "key \"poll_search\"" },
        { "{\"util_threshold\": 150}", "x.json", "key \"util_threshold\"" },
        { "{\"util_threshold\": 50, \"util_hysteresis\": 60}", "x.json", "key \"util_hysteresis\"" },
        { "{\"learn_shift\": 0}", "x.json", "key \"learn_shift\": must be an integer between 1 and 15" },
        { "{\"learn_shift\": 16}", "x.json", "key \"learn_shift\"" },
        { "{\"age_shift\": 0}", "x.json", "key \"age_shift\"" },
        { "{\"explore_shift\": 16}", "x.json", "key \"explore_shift\"" },
        { "{\"hold_ticks\": 3601}", "x.json", "key \"hold_ticks\"" },
        { "{\"hold_ticks\": [1]}", "x.json", "key \"hold_ticks\"" },
        { "{\"governor\": \"tea\"}", "x.json", "key \"governor\": must be \"keep\", \"auto\"" },
        { "{\"governor\": 1}", "x.json", "key \"governor\"" },
        { "{\"governor\": \"\"}", "x.json", "key \"governor\"" },
        { "{}", "profile.txt", "profile.txt: key \"name\": missing" },
        { "{}", ".json", "key \"name\": missing" },
        { "{}", NULL, "key \"name\": missing" },
        { "[]", "x.json", "x.json: the top level must be a JSON object" },
        { "{\"name\": \"x\",}", "x.json", "x.json:1:" },
        { "", "x.json", "x.json:" },
        { "{\"name\": \"x\", \"name\": \"y\"}", "x.json", "x.json:1:" },
        { "{\"wteo\": 3}", "x.json", "x.json: key \"wteo\": must be an object" },
        { "{\"wteo\": {\"learn\": 4}}", "x.json", "key \"wteo.learn\": unknown key" },
        { "{\"wteo\": {\"learn_shift\": 0}}", "x.json", "key \"wteo.learn_shift\": must be an integer between 1 and 15" },
        { "{\"wteo\": {\"learn_shift\": 16}}", "x.json", "key \"wteo.learn_shift\"" },
        { "{\"wteo\": {\"age_shift\": 0}}", "x.json", "key \"wteo.age_shift\": must be an integer between 1 and 15" },
        { "{\"wteo\": {\"explore_shift\": -1}}", "x.json", "key \"wteo.explore_shift\": must be an integer between 0 and 15" },
        { "{\"wteo\": {\"explore_shift\": 16}}", "x.json", "key \"wteo.explore_shift\"" },
        { "{\"wteo\": {\"tolerance\": 1025}}", "x.json", "key \"wteo.tolerance\": must be an integer between 0 and 1024" },
        { "{\"wteo\": {\"tolerance\": 10.5}}", "x.json", "key \"wteo.tolerance\"" },
        { "{\"wteo\": {\"tolerance\": \"51\"}}", "x.json", "key \"wteo.tolerance\"" },
        { "{\"wteo\": {\"tolerance\": 51, \"tolerance\": 52}}", "x.json", "x.json:1:" },
        { "{\"governor\": \"wteo2\"}", "x.json", "key \"governor\": must be \"keep\", \"auto\"" },
};

START_TEST(test_bad_files) {
        const BadCase *c = &bad_cases[_i];
        Profile p, untouched;
        ErrorInfo e = {};

        memset(&p, 0x5a, sizeof(p));
        untouched = p;
        ck_assert_int_eq(profile_parse(c->text, c->filename, &p, &e), -EINVAL);
        ck_assert_msg_has(e, c->needle);
        ck_assert_mem_eq(&p, &untouched, sizeof(p));
}
END_TEST

START_TEST(test_units_and_defaults) {
        ErrorInfo e = {};
        Profile p, d;

        ck_assert_int_eq(profile_parse("{\"too_deep_tolerance\": 10, \"burn_price\": 0.5, \"util_threshold\": 60,"
                                       " \"latency_limit_us\": 10, \"governor\": \"menu\"}",
                                       "/etc/idlepolicy/profiles.d/mine.json", &p, &e), 0);
        ck_assert_str_eq(p.name, "mine");
        ck_assert_uint_eq(p.too_deep_tolerance, 102);     /* 10% of 1024, rounded */
        ck_assert_uint_eq(p.burn_price, 512);
        ck_assert_uint_eq(p.util_threshold, 614);
        ck_assert_uint_eq(p.latency_limit_us, 10);
        ck_assert_int_eq(p.governor, PROFILE_GOVERNOR_NAMED);
        ck_assert_str_eq(p.governor_name, "menu");
        profile_init(&d, "mine");
        ck_assert_uint_eq(p.learn_shift, d.learn_shift);
        ck_assert_uint_eq(p.hold_ticks, d.hold_ticks);

        ck_assert_int_eq(profile_parse("{\"name\": \"other\", \"governor\": \"auto\"}", "mine.json", &p, &e), 0);
        ck_assert_str_eq(p.name, "other");
        ck_assert_int_eq(p.governor, PROFILE_GOVERNOR_AUTO);
        ck_assert_int_eq(profile_parse("{}", "a.b-c_d.json", &p, &e), 0);
        ck_assert_str_eq(p.name, "a.b-c_d");
}
END_TEST

/* poll_search: the CPU weight of the poll frontier search, 0 (off) to 1,
 * stored in Q10; left out, balanced's 1. */
START_TEST(test_poll_search) {
        static const struct {
                const char *text;
                unsigned q10;
        } cases[] = {
                { "{\"poll_search\": 0}", 0 },
                { "{\"poll_search\": 0.0}", 0 },
                { "{\"poll_search\": 0.5}", 512 },
                { "{\"poll_search\": 1}", 1024 },
                { "{\"poll_search\": 1.0}", 1024 },
                { "{\"poll_search\": 0.25}", 256 },
                { "{\"poll_search\": 0.1}", 102 },            /* 102.4, rounded */
                { "{}", 1024 },
        };
        ErrorInfo e = {};
        Profile p, d;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                memset(&p, 0x5a, sizeof(p));
                ck_assert_msg(profile_parse(cases[i].text, "s.json", &p, &e) == 0, "%s: %s", cases[i].text, e.message);
                ck_assert_msg(p.poll_search == cases[i].q10, "%s: %u, want %u", cases[i].text, p.poll_search,
                              cases[i].q10);
        }
        profile_init(&d, "balanced");
        ck_assert_uint_eq(d.poll_search, 1024);
        /* the key does not touch the burn price it replaces on KVM guests */
        ck_assert_int_eq(profile_parse("{\"poll_search\": 0, \"burn_price\": 0.5}", "s.json", &p, &e), 0);
        ck_assert_uint_eq(p.poll_search, 0);
        ck_assert_uint_eq(p.burn_price, 512);
}
END_TEST

/* The "wteo" object: each key optional, the others at wteo-core.h's
 * defaults; "governor": "wteo" names the governor. */
START_TEST(test_wteo_object) {
        ErrorInfo e = {};
        Profile p;

        ck_assert_int_eq(profile_parse("{}", "d.json", &p, &e), 0);
        ck_assert_uint_eq(p.wteo.learn_shift, 4);
        ck_assert_uint_eq(p.wteo.age_shift, 6);
        ck_assert_uint_eq(p.wteo.explore_shift, 0);
        ck_assert_uint_eq(p.wteo.tolerance, 102);
        ck_assert_int_eq(profile_parse("{\"wteo\": {\"tolerance\": 0, \"explore_shift\": 15}, \"governor\": \"wteo\"}",
                                       "w.json", &p, &e), 0);
        ck_assert_uint_eq(p.wteo.tolerance, 0);
        ck_assert_uint_eq(p.wteo.explore_shift, 15);
        ck_assert_uint_eq(p.wteo.learn_shift, 4);
        ck_assert_uint_eq(p.wteo.age_shift, 6);
        ck_assert_int_eq(p.governor, PROFILE_GOVERNOR_NAMED);
        ck_assert_str_eq(p.governor_name, "wteo");
        ck_assert_int_eq(profile_parse("{\"wteo\": {}}", "w.json", &p, &e), 0);
        ck_assert_uint_eq(p.wteo.tolerance, 102);
}
END_TEST

static void assert_profile_eq(const Profile *a, const Profile *b) {
        ck_assert_str_eq(a->name, b->name);
        ck_assert_str_eq(a->description, b->description);
        ck_assert_uint_eq(a->latency_limit_us, b->latency_limit_us);
        ck_assert_uint_eq(a->too_deep_tolerance, b->too_deep_tolerance);
        ck_assert_uint_eq(a->too_shallow_tolerance, b->too_shallow_tolerance);
        ck_assert_uint_eq(a->burn_price, b->burn_price);
        ck_assert_uint_eq(a->poll_search, b->poll_search);
        ck_assert_uint_eq(a->util_threshold, b->util_threshold);
        ck_assert_uint_eq(a->util_hysteresis, b->util_hysteresis);
        ck_assert_uint_eq(a->learn_shift, b->learn_shift);
        ck_assert_uint_eq(a->age_shift, b->age_shift);
        ck_assert_uint_eq(a->explore_shift, b->explore_shift);
        ck_assert_uint_eq(a->hold_ticks, b->hold_ticks);
        ck_assert_int_eq(a->governor, b->governor);
        ck_assert_str_eq(a->governor_name, b->governor_name);
        ck_assert_uint_eq(a->wteo.learn_shift, b->wteo.learn_shift);
        ck_assert_uint_eq(a->wteo.age_shift, b->wteo.age_shift);
        ck_assert_uint_eq(a->wteo.explore_shift, b->wteo.explore_shift);
        ck_assert_uint_eq(a->wteo.tolerance, b->wteo.tolerance);
}

static void assert_round_trip(const Profile *p) {
        ErrorInfo e = {};
        char *json = profile_to_json(p);
        Profile back;

        ck_assert_ptr_nonnull(json);
        ck_assert_msg(profile_parse(json, "rt.json", &back, &e) == 0, "%s\n%s", e.message, json);
        assert_profile_eq(&back, p);
        free(json);
}

START_TEST(test_round_trip) {
        Profile p;

        profile_init(&p, "balanced");
        assert_round_trip(&p);
        p.too_deep_tolerance = 1;             /* 0.09765625 % */
        p.too_shallow_tolerance = 1023;
        p.burn_price = 333;
        p.poll_search = 0;
        p.util_threshold = 777;
        p.util_hysteresis = 5;
        p.latency_limit_us = 10000000;
        p.learn_shift = 15;
        p.age_shift = 1;
        p.explore_shift = 0;
        p.hold_ticks = 3600;
        p.governor = PROFILE_GOVERNOR_NAMED;
        snprintf(p.governor_name, sizeof(p.governor_name), "haltpoll");
        snprintf(p.description, sizeof(p.description), "odd \"quoted\" values");
        assert_round_trip(&p);
        p.governor = PROFILE_GOVERNOR_AUTO;
        p.governor_name[0] = '\0';
        assert_round_trip(&p);
        p.wteo = (ProfileWteo) { .learn_shift = 15, .age_shift = 1, .explore_shift = 15, .tolerance = 1024 };
        assert_round_trip(&p);
        p.wteo = (ProfileWteo) { .learn_shift = 1, .age_shift = 15, .explore_shift = 0, .tolerance = 0 };
        assert_round_trip(&p);
        /* every CPU weight of the poll search, 1/1024 to 1, comes back */
        for (unsigned w = 1; w <= 1024; w++) {
                p.poll_search = w;
                assert_round_trip(&p);
        }
}
END_TEST

START_TEST(test_set) {
        ProfileSet s = {};
        Profile p;

        profile_init(&p, "a");
        ck_assert_int_eq(profile_set_put(&s, &p), 0);
        p.hold_ticks = 9;
        ck_assert_int_eq(profile_set_put(&s, &p), 0);
        ck_assert_uint_eq(s.n, 1);
        ck_assert_uint_eq(profile_set_find(&s, "a")->hold_ticks, 9);
        ck_assert_ptr_null(profile_set_find(&s, "b"));
        for (unsigned i = 1; i < PROFILES_MAX; i++) {
                snprintf(p.name, sizeof(p.name), "p%u", i);
                ck_assert_int_eq(profile_set_put(&s, &p), 0);
        }
        snprintf(p.name, sizeof(p.name), "one-too-many");
        ck_assert_int_eq(profile_set_put(&s, &p), -E2BIG);
        snprintf(p.name, sizeof(p.name), "p3");
        ck_assert_int_eq(profile_set_put(&s, &p), 0);
}
END_TEST

/* Reads dir/NAME.json into a malloc'ed string. */
static char *read_shipped(const char *name, char *path, size_t size) {
        FILE *f;
        char *buf = calloc(1, 65536);
        size_t n;

        snprintf(path, size, "%s/%s.json", profiles_dir, name);
        f = fopen(path, "re");
        ck_assert_msg(f != NULL, "cannot open %s", path);
        n = fread(buf, 1, 65535, f);
        fclose(f);
        buf[n] = '\0';
        return buf;
}

/* The four built-ins parse, are named after their files, round-trip, and
 * balanced.json is exactly profile_init()'s defaults (which the simulator
 * uses). */
START_TEST(test_shipped) {
        static const char *const names[] = { "performance", "balanced", "power-saver", "latency" };
        Profile p[4], defaults;

        ck_assert_msg(profiles_dir != NULL, "usage: test-profile PROFILES_DIR");
        for (unsigned i = 0; i < 4; i++) {
                char path[4096];
                char *text = read_shipped(names[i], path, sizeof(path));
                ErrorInfo e = {};

                ck_assert_msg(profile_parse(text, path, &p[i], &e) == 0, "%s", e.message);
                ck_assert_str_eq(p[i].name, names[i]);
                ck_assert_msg(p[i].description[0] != '\0', "%s has no description", path);
                assert_round_trip(&p[i]);
                free(text);
        }
        profile_init(&defaults, "balanced");
        snprintf(defaults.description, sizeof(defaults.description), "%s", p[1].description);
        assert_profile_eq(&p[1], &defaults);
        /* the shapes the issue asks for */
        ck_assert_uint_eq(p[0].latency_limit_us, 0);
        ck_assert_uint_lt(p[0].too_deep_tolerance, p[1].too_deep_tolerance);
        ck_assert_uint_lt(p[0].util_threshold, 1024);
        ck_assert_uint_lt(p[0].burn_price, p[1].burn_price);
        ck_assert_uint_gt(p[2].burn_price, p[1].burn_price * 16);
        ck_assert_uint_eq(p[2].util_threshold, 1024);
        ck_assert_uint_gt(p[3].latency_limit_us, 0);
        ck_assert_uint_le(p[3].latency_limit_us, 20);
        ck_assert_uint_lt(p[3].burn_price, p[0].burn_price + 1);
        /* companion mode's tolerances (1/1024): latency 51, performance 77,
         * balanced 102 (the default), power-saver 256 */
        ck_assert_uint_eq(p[3].wteo.tolerance, 51);
        ck_assert_uint_eq(p[0].wteo.tolerance, 77);
        ck_assert_uint_eq(p[1].wteo.tolerance, 102);
        ck_assert_uint_eq(p[2].wteo.tolerance, 256);
        /* the poll frontier search: balanced's alone, at weight 1 (1024);
         * the others price polling with their burn price */
        ck_assert_uint_eq(p[1].poll_search, 1024);
        ck_assert_uint_eq(p[0].poll_search, 0);
        ck_assert_uint_eq(p[2].poll_search, 0);
        ck_assert_uint_eq(p[3].poll_search, 0);
        ck_assert_int_eq(p[1].governor, PROFILE_GOVERNOR_AUTO);
}
END_TEST

static Suite *profile_suite(void) {
        Suite *s = suite_create("profile");
        TCase *tc = tcase_create("core");

        tcase_add_loop_test(tc, test_bad_files, 0, (int) (sizeof(bad_cases) / sizeof(bad_cases[0])));
        tcase_add_test(tc, test_units_and_defaults);
        tcase_add_test(tc, test_poll_search);
        tcase_add_test(tc, test_wteo_object);
        tcase_add_test(tc, test_round_trip);
        tcase_add_test(tc, test_set);
        tcase_add_test(tc, test_shipped);
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        profiles_dir = argc > 1 ? argv[1] : NULL;
        return model_test_run(profile_suite());
}
