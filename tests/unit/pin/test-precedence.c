/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "pin-precedence.h"
#include "unit.h"

#define PIN3 "pin /org/idlepolicy/IdlePolicy1/pin/3 unit:postgresql.service"
#define HOLD7 "hold 7 by org.gnome.Foo"

static ProfileSet profiles;
static const Profile *balanced, *latency, *latency2, *strict, *performance;

/* Profiles as shipped (latency 10 us, the others no limit), with another
 * 10 us one and a 5 us one. */
static void setup(void) {
        static const struct {
                const char *name;
                uint32_t limit;
        } table[] = { { "balanced", 0 }, { "latency", 10 }, { "latency2", 10 }, { "strict", 5 }, { "performance", 0 } };
        Profile p;

        profiles.n = 0;
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                profile_init(&p, table[i].name);
                p.latency_limit_us = table[i].limit;
                ck_assert_int_eq(profile_set_put(&profiles, &p), 0);
        }
        balanced = profile_set_find(&profiles, "balanced");
        latency = profile_set_find(&profiles, "latency");
        latency2 = profile_set_find(&profiles, "latency2");
        strict = profile_set_find(&profiles, "strict");
        performance = profile_set_find(&profiles, "performance");
}

static PinClaim claim(const Profile *p, const char *cpus, const char *source) {
        PinClaim c = { .profile = p };

        ck_assert_int_eq(cpuset_parse(cpus, &c.cpus, NULL), 0);
        snprintf(c.source, sizeof(c.source), "%s", source);
        return c;
}

static void choice_is(const CpuProfileChoice *c, const Profile *p, const char *source) {
        ck_assert_str_eq(c->profile->name, p->name);
        ck_assert_ptr_eq(c->profile, p);
        ck_assert_str_eq(c->source, source);
}

START_TEST(test_no_claims) {
        CpuProfileChoice out[4];

        ck_assert_int_eq(pin_precedence_resolve(balanced, NULL, 0, 4, out), 0);
        for (unsigned cpu = 0; cpu < 4; cpu++)
                choice_is(&out[cpu], balanced, "machine");
        ck_assert_int_eq(pin_precedence_resolve(NULL, NULL, 0, 4, out), -EINVAL);
        ck_assert_int_eq(pin_precedence_resolve(balanced, NULL, 0, 0, out), -EINVAL);
        ck_assert_int_eq(pin_precedence_resolve(balanced, NULL, 0, CPUSET_MAX + 1, out), -EINVAL);
}
END_TEST

START_TEST(test_one_pin) {
        PinClaim claims[] = { claim(latency, "2-3", PIN3) };
        CpuProfileChoice out[4];

        ck_assert_int_eq(pin_precedence_resolve(balanced, claims, 1, 4, out), 0);
        choice_is(&out[0], balanced, "machine");
        choice_is(&out[1], balanced, "machine");
        choice_is(&out[2], latency, PIN3);
        choice_is(&out[3], latency, PIN3);
}
END_TEST

START_TEST(test_pin_and_hold) {
        PinClaim pin_first[] = { claim(latency, "1-2", PIN3), claim(balanced, "0-3", HOLD7) };
        PinClaim hold_first[] = { claim(balanced, "0-3", HOLD7), claim(latency, "1-2", PIN3) };
        const char *contest = PIN3 " (latency, 10 us) over " HOLD7 " (balanced)";
        CpuProfileChoice out[4];

        /* the stricter latency wins whatever the order */
        ck_assert_int_eq(pin_precedence_resolve(performance, pin_first, 2, 4, out), 0);
        choice_is(&out[0], balanced, HOLD7);
        choice_is(&out[1], latency, contest);
        choice_is(&out[2], latency, contest);
        choice_is(&out[3], balanced, HOLD7);
        ck_assert_int_eq(pin_precedence_resolve(performance, hold_first, 2, 4, out), 0);
        choice_is(&out[0], balanced, HOLD7);
        choice_is(&out[1], latency, contest);
        choice_is(&out[2], latency, contest);
        choice_is(&out[3], balanced, HOLD7);

        /* a stricter hold beats a pin */
        hold_first[0].profile = strict;
        ck_assert_int_eq(pin_precedence_resolve(performance, hold_first, 2, 4, out), 0);
        choice_is(&out[1], strict, HOLD7 " (strict, 5 us) over " PIN3 " (latency)");
        choice_is(&out[0], strict, HOLD7);
}
END_TEST

START_TEST(test_ties) {
        PinClaim claims[] = { claim(latency, "0", "pin A"), claim(latency2, "0", "pin B") };
        PinClaim loose[] = { claim(performance, "0", "hold 1 by a"), claim(balanced, "0", "hold 2 by b") };
        CpuProfileChoice out[1];

        /* equal limits: the earlier claim */
        ck_assert_int_eq(pin_precedence_resolve(balanced, claims, 2, 1, out), 0);
        choice_is(&out[0], latency, "pin A (latency, 10 us) over pin B (latency2)");
        claims[0] = claim(latency2, "0", "pin B");
        claims[1] = claim(latency, "0", "pin A");
        ck_assert_int_eq(pin_precedence_resolve(balanced, claims, 2, 1, out), 0);
        choice_is(&out[0], latency2, "pin B (latency2, 10 us) over pin A (latency)");
        /* no limit on either: the earlier claim, and it says so */
        ck_assert_int_eq(pin_precedence_resolve(latency, loose, 2, 1, out), 0);
        choice_is(&out[0], performance, "hold 1 by a (performance, no latency limit) over hold 2 by b (balanced)");
        /* a limit beats no limit, whatever the order */
        loose[1].profile = latency;
        ck_assert_int_eq(pin_precedence_resolve(balanced, loose, 2, 1, out), 0);
        choice_is(&out[0], latency, "hold 2 by b (latency, 10 us) over hold 1 by a (performance)");
}
END_TEST

START_TEST(test_not_applied) {
        PinClaim claims[] = {
                claim(strict, "", "pin empty"),
                claim(NULL, "0-3", "pin no-profile"),
                claim(latency, "1,9", "pin beyond"),
                claim(performance, "5-7", "pin all-beyond"),
        };
        CpuProfileChoice out[4];

        ck_assert_int_eq(pin_precedence_resolve(balanced, claims, ELEMENTSOF(claims), 4, out), 0);
        choice_is(&out[0], balanced, "machine");
        choice_is(&out[1], latency, "pin beyond");
        choice_is(&out[2], balanced, "machine");
        choice_is(&out[3], balanced, "machine");
}
END_TEST

START_TEST(test_many) {
        PinClaim claims[6];
        CpuProfileChoice out[2];
        char source[PIN_CLAIM_SOURCE_MAX];

        claims[0] = claim(balanced, "0-1", "hold 1 by a");
        claims[1] = claim(strict, "0", "pin 2 comm:x");
        claims[2] = claim(latency, "0-1", "pin 3 comm:y");
        ck_assert_int_eq(pin_precedence_resolve(performance, claims, 3, 2, out), 0);
        choice_is(&out[0], strict, "pin 2 comm:x (strict, 5 us) over hold 1 by a (balanced), pin 3 comm:y (latency)");
        choice_is(&out[1], latency, "pin 3 comm:y (latency, 10 us) over hold 1 by a (balanced)");

        /* sources too long for the text: cut at a whole claim, counted */
        for (size_t i = 0; i < ELEMENTSOF(claims); i++) {
                memset(source, 'a' + (int) i, sizeof(source) - 1);
                source[sizeof(source) - 1] = '\0';
                claims[i] = claim(i == 3 ? strict : balanced, "0", source);
        }
        ck_assert_int_eq(pin_precedence_resolve(performance, claims, ELEMENTSOF(claims), 1, out), 0);
        ck_assert_ptr_eq(out[0].profile, strict);
        ck_assert_msg(strncmp(out[0].source, claims[3].source, sizeof(source) - 1) == 0, "%s", out[0].source);
        ck_assert_msg(strstr(out[0].source, " (strict, 5 us) over 5 other claims"), "%s", out[0].source);

        /* one listed, the rest counted */
        claims[3].source[40] = '\0';
        claims[0].source[40] = '\0';
        ck_assert_int_eq(pin_precedence_resolve(performance, claims, ELEMENTSOF(claims), 1, out), 0);
        ck_assert_msg(strstr(out[0].source, " (strict, 5 us) over aaaa"), "%s", out[0].source);
        ck_assert_msg(strstr(out[0].source, "a (balanced), bbbb"), "%s", out[0].source);
        ck_assert_msg(strstr(out[0].source, " (balanced) and 3 more"), "%s", out[0].source);
        ck_assert_uint_lt(strlen(out[0].source), sizeof(out[0].source));
}
END_TEST

static const Profile *lookup(const char *name, void *userdata) {
        return profile_set_find(userdata, name);
}

static int object_path(const Pin *pin, char *buf, size_t size, void *userdata) {
        snprintf(buf, size, "/org/idlepolicy/IdlePolicy1/pin/%u", (unsigned) pin->id);
        return 0;
}

static Pin pin_spec(const char *target, const char *profile, const char *cpus, PinState state) {
        Pin p = { .state = state };

        ck_assert_int_eq(pin_target_parse(target, &p.target, NULL), 0);
        ck_assert_int_eq(cpuset_parse(cpus, &p.cpus, NULL), 0);
        p.cpus_given = cpus[0] != '\0';
        snprintf(p.profile, sizeof(p.profile), "%s", profile);
        return p;
}

START_TEST(test_from_registry) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new();
        _cleanup_free_ PinClaim *claims = NULL;
        Hold h = { .owner = ":1.42", .profile = "balanced" };
        CpuProfileChoice out[4];
        Pin spec;
        size_t n;

        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), 0);             /* hold 1: all CPUs */
        spec = pin_spec("unit:postgresql.service", "latency", "1-2", PIN_STATE_ACTIVE);
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);                /* pin 1 */
        spec = pin_spec("exe:/usr/bin/ffmpeg", "strict", "0-3", PIN_STATE_WAITING);
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);                /* pin 2: waiting */
        spec = pin_spec("comm:old", "strict", "0-3", PIN_STATE_ENDED);
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);                /* pin 3: ended */
        spec = pin_spec("pid:77", "nonexistent", "0", PIN_STATE_ACTIVE);
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);                /* pin 4: unknown profile */
        spec = pin_spec("cgroup:a", "strict", "", PIN_STATE_ACTIVE);
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);                /* pin 5: CPUs not known */
        h = (Hold) { .owner = ":1.43", .app_id = "org.gnome.Foo", .profile = "performance", .cpus_given = true };
        cpuset_add(&h.cpus, 3);
        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), 0);             /* hold 2: CPU 3 */
        spec = pin_spec("pid:78", "strict", "", PIN_STATE_ACTIVE);
        spec.cpus_given = false;
        cpuset_add(&spec.cpus, 2);                                              /* the workload's CPUs */
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);                /* pin 6 */

        ck_assert_int_eq(pin_claims_from_registry(r, 4, lookup, object_path, &profiles, &claims, &n), 0);
        ck_assert_uint_eq(n, 4);
        ck_assert_str_eq(claims[0].source, "hold 1 by :1.42");
        ck_assert_uint_eq(cpuset_count(&claims[0].cpus), 4);
        ck_assert_str_eq(claims[1].source, "pin /org/idlepolicy/IdlePolicy1/pin/1 unit:postgresql.service");
        ck_assert_ptr_eq(claims[1].profile, latency);
        ck_assert_str_eq(claims[2].source, "hold 2 by org.gnome.Foo");
        ck_assert_uint_eq(cpuset_count(&claims[2].cpus), 1);
        ck_assert_str_eq(claims[3].source, "pin /org/idlepolicy/IdlePolicy1/pin/6 pid:78");

        ck_assert_int_eq(pin_precedence_resolve(performance, claims, n, 4, out), 0);
        choice_is(&out[0], balanced, "hold 1 by :1.42");
        choice_is(&out[1], latency, "pin /org/idlepolicy/IdlePolicy1/pin/1 unit:postgresql.service (latency, 10 us) "
                                    "over hold 1 by :1.42 (balanced)");
        choice_is(&out[2], strict, "pin /org/idlepolicy/IdlePolicy1/pin/6 pid:78 (strict, 5 us) over hold 1 by :1.42 "
                                   "(balanced), pin /org/idlepolicy/IdlePolicy1/pin/1 unit:postgresql.service (latency)");
        choice_is(&out[3], balanced, "hold 1 by :1.42 (balanced, no latency limit) over hold 2 by org.gnome.Foo (performance)");
        free(TAKE_PTR(claims));

        /* without an object path formatter; an empty registry */
        ck_assert_int_eq(pin_claims_from_registry(r, 2, lookup, NULL, &profiles, &claims, &n), 0);
        ck_assert_str_eq(claims[1].source, "pin 1 unit:postgresql.service");
        ck_assert_uint_eq(cpuset_count(&claims[0].cpus), 2);
        free(TAKE_PTR(claims));
        pin_registry_free(TAKE_PTR(r));
        r = pin_registry_new();
        ck_assert_int_eq(pin_claims_from_registry(r, 2, lookup, NULL, &profiles, &claims, &n), 0);
        ck_assert_uint_eq(n, 0);
        ck_assert_ptr_null(claims);
        ck_assert_int_eq(pin_claims_from_registry(r, 0, lookup, NULL, &profiles, &claims, &n), -EINVAL);
}
END_TEST

int main(void) {
        Suite *s = suite_create("pin-precedence");
        TCase *tc = unit_tcase(s, "precedence");

        tcase_add_unchecked_fixture(tc, setup, NULL);
        tcase_add_test(tc, test_no_claims);
        tcase_add_test(tc, test_one_pin);
        tcase_add_test(tc, test_pin_and_hold);
        tcase_add_test(tc, test_ties);
        tcase_add_test(tc, test_not_applied);
        tcase_add_test(tc, test_many);
        tcase_add_test(tc, test_from_registry);
        return unit_run(s);
}
