/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Derived profiles "BASE:latency_limit_us=N" (profile_set_resolve()): a
 * copy of BASE with exactly that limit, every malformed name refused with
 * its errno and the original untouched, and the policy excluding exactly
 * the states above N. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "profile.h"
#include "test-model-helpers.h"

/* balanced (the defaults), latency (10 us, other tolerances) and a
 * 63-byte name, the longest a file may give. */
static void make_set(ProfileSet *s) {
        Profile p;

        *s = (ProfileSet) {};
        profile_init(&p, "balanced");
        ck_assert_int_eq(profile_set_put(s, &p), 0);
        profile_init(&p, "latency");
        p.latency_limit_us = 10;
        p.too_deep_tolerance = 51;
        p.burn_price = 1024;
        snprintf(p.description, sizeof(p.description), "low latency");
        ck_assert_int_eq(profile_set_put(s, &p), 0);
        profile_init(&p, "a23456789012345678901234567890123456789012345678901234567890123");
        ck_assert_int_eq(profile_set_put(s, &p), 0);
}

/* a and b equal in everything but name and latency_limit_us */
static void assert_same_but_limit(const Profile *a, const Profile *b) {
        Profile x = *a, y = *b;

        memset(x.name, 0, sizeof(x.name));
        memset(y.name, 0, sizeof(y.name));
        x.latency_limit_us = y.latency_limit_us = 0;
        ck_assert_msg(memcmp(&x, &y, sizeof(x)) == 0, "%s differs from %s in more than the limit", a->name, b->name);
}

static const struct {
        const char *name, *base;
        uint32_t limit;
} good[] = {
        { "balanced", "balanced", 0 },
        { "latency", "latency", 10 },
        { "latency:latency_limit_us=20", "latency", 20 },
        { "latency:latency_limit_us=5", "latency", 5 },
        { "latency:latency_limit_us=0", "latency", 0 },                 /* 0: no limit, as in a file */
        { "balanced:latency_limit_us=1", "balanced", 1 },
        { "balanced:latency_limit_us=10000000", "balanced", 10000000 },
        { "a23456789012345678901234567890123456789012345678901234567890123:latency_limit_us=9999999",
          "a23456789012345678901234567890123456789012345678901234567890123", 9999999 },
};

START_TEST(test_resolve) {
        ProfileSet s;
        Profile p;
        ErrorInfo e = {};

        make_set(&s);
        ck_assert_msg(profile_set_resolve(&s, good[_i].name, &p, &e) == 0, "%s: %s", good[_i].name, e.message);
        ck_assert_str_eq(p.name, good[_i].name);
        ck_assert_uint_eq(p.latency_limit_us, good[_i].limit);
        assert_same_but_limit(&p, profile_set_find(&s, good[_i].base));
        ck_assert(profile_name_is_derived(p.name) == (strcmp(good[_i].name, good[_i].base) != 0));
}
END_TEST

static const struct {
        const char *name;
        int error;
        const char *needle;       /* the message names this */
} bad[] = {
        { "nosuch", -ENOPKG, "Unknown profile \"nosuch\"" },
        { "nosuch:latency_limit_us=5", -ENOPKG, "Unknown profile \"nosuch\" in \"nosuch:latency_limit_us=5\"" },
        { ":latency_limit_us=5", -ENOPKG, "Unknown profile \"\"" },
        { "latency:latency_limit_us=5:latency_limit_us=3", -ERANGE, "Invalid latency limit" },
        { "balanced:foo=5", -ENOPKG, "only latency_limit_us=N may follow" },
        { "balanced:latency_limit=5", -ENOPKG, "only latency_limit_us=N" },
        { "balanced:latency_limit_usX=5", -ENOPKG, "only latency_limit_us=N" },
        { "balanced:", -ENOPKG, "only latency_limit_us=N" },
        { "balanced:latency_limit_us", -ERANGE, "Invalid latency limit in \"balanced:latency_limit_us\"" },
        { "balanced:latency_limit_us=", -ERANGE, "0 (no limit) to 10000000 microseconds" },
        { "balanced:latency_limit_us=010", -ERANGE, "leading zeros" },
        { "balanced:latency_limit_us=00", -ERANGE, "leading zeros" },
        { "balanced:latency_limit_us=-1", -ERANGE, "without sign" },
        { "balanced:latency_limit_us=+1", -ERANGE, "without sign" },
        { "balanced:latency_limit_us= 1", -ERANGE, "Invalid latency limit" },
        { "balanced:latency_limit_us=1 ", -ERANGE, "Invalid latency limit" },
        { "balanced:latency_limit_us=1e3", -ERANGE, "Invalid latency limit" },
        { "balanced:latency_limit_us=10000001", -ERANGE, "10000000" },
        { "balanced:latency_limit_us=4294967296", -ERANGE, "Invalid latency limit" },
        { "balanced:latency_limit_us=99999999999999999999999", -ERANGE, "Invalid latency limit" },
        /* a base one byte longer than any loaded name may be */
        { "a234567890123456789012345678901234567890123456789012345678901234:latency_limit_us=5", -ENOPKG,
          "Unknown profile" },
};

START_TEST(test_refused) {
        ProfileSet s;
        Profile p, before;
        ErrorInfo e = {};

        make_set(&s);
        profile_init(&p, "untouched");
        before = p;
        ck_assert_int_eq(profile_set_resolve(&s, bad[_i].name, &p, &e), bad[_i].error);
        ck_assert_msg(strstr(e.message, bad[_i].needle), "%s: message \"%s\" lacks \"%s\"", bad[_i].name, e.message,
                      bad[_i].needle);
        ck_assert(memcmp(&p, &before, sizeof(p)) == 0);
        ck_assert_int_eq(profile_set_resolve(&s, bad[_i].name, &p, NULL), bad[_i].error);
}
END_TEST

/* The policy excludes exactly the states whose exit latency is above N:
 * C2 (16 us) is allowed at 16 and 20, excluded at 15 and under latency's 10. */
START_TEST(test_policy_limit_is_exact) {
        const struct { const char *name; PlanReason c2; } rows[] = {
                { "latency", PLAN_REASON_PROFILE_LIMIT },
                { "latency:latency_limit_us=20", PLAN_REASON_NONE },
                { "latency:latency_limit_us=16", PLAN_REASON_NONE },
                { "latency:latency_limit_us=15", PLAN_REASON_PROFILE_LIMIT },
                { "latency:latency_limit_us=0", PLAN_REASON_NONE },
        };
        PolicyState c2 = { .latency_us = 16, .residency_us = 48 }, c3 = { .latency_us = 64, .residency_us = 192 };
        ProfileSet s;

        make_set(&s);
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                Profile p;

                ck_assert_int_eq(profile_set_resolve(&s, rows[i].name, &p, NULL), 0);
                ck_assert_msg(policy_state_excluded(&p, &c2) == rows[i].c2, "%s: C2", rows[i].name);
                ck_assert(policy_state_excluded(&p, &c3) ==
                          (p.latency_limit_us ? PLAN_REASON_PROFILE_LIMIT : PLAN_REASON_NONE));
        }
}
END_TEST

int main(void) {
        Suite *s = suite_create("profile-limit");
        TCase *tc = tcase_create("core");

        tcase_add_loop_test(tc, test_resolve, 0, (int) (sizeof(good) / sizeof(good[0])));
        tcase_add_loop_test(tc, test_refused, 0, (int) (sizeof(bad) / sizeof(bad[0])));
        tcase_add_test(tc, test_policy_limit_is_exact);
        suite_add_tcase(s, tc);
        return model_test_run(s);
}
