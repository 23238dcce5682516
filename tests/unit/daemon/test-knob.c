/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Knob paths (daemon/knob.c): the journal accepts only what knob_parse()
 * recognises, companion mode's wteo knobs included. */
#include "knob-idle.h"
#include "unit.h"

START_TEST(test_wteo_paths) {
        char buf[KNOB_PATH_MAX];
        KnobId id;

        ck_assert_int_eq(knob_parse("sys/module/wteo/parameters/learn_shift", &id), 0);
        ck_assert_int_eq(id.kind, KNOB_WTEO_PARAM);
        ck_assert(knob_kind_system(id.kind));
        ck_assert_int_eq(knob_parse("sys/module/wteo/parameters/age_shift", &id), 0);
        ck_assert_int_eq(id.kind, KNOB_WTEO_PARAM);
        ck_assert_int_eq(knob_parse("sys/module/wteo/parameters/explore_shift", &id), 0);
        ck_assert_int_eq(id.kind, KNOB_WTEO_PARAM);
        ck_assert_int_eq(knob_parse(knob_wteo_tolerance_path(12, buf), &id), 0);
        ck_assert_str_eq(buf, "sys/devices/system/cpu/cpu12/wteo/tolerance");
        ck_assert_int_eq(id.kind, KNOB_WTEO_TOLERANCE);
        ck_assert_uint_eq(id.cpu, 12);
        ck_assert(!knob_kind_system(id.kind));
        /* the old kinds are still themselves */
        ck_assert_int_eq(knob_parse("sys/devices/system/cpu/cpu3/power/pm_qos_resume_latency_us", &id), 0);
        ck_assert_int_eq(id.kind, KNOB_RESUME_LATENCY);
        ck_assert_uint_eq(id.cpu, 3);
        ck_assert_int_eq(knob_parse("sys/devices/system/cpu/cpuidle/current_governor", &id), 0);
        ck_assert_int_eq(id.kind, KNOB_GOVERNOR);
}
END_TEST

static const char *const bad_paths[] = {
        "sys/module/wteo/parameters/tolerance",
        "sys/module/wteo/parameters/learn_shift/",
        "sys/module/wteo/parameters",
        "sys/module/wteo2/parameters/learn_shift",
        "sys/devices/system/cpu/cpu1/wteo/matrix",
        "sys/devices/system/cpu/cpu1/wteo/tolerance/",
        "sys/devices/system/cpu/cpu01/wteo/tolerance",
        "sys/devices/system/cpu/cpu/wteo/tolerance",
        "sys/devices/system/cpu/cpu1/wteo",
        "/sys/devices/system/cpu/cpu1/wteo/tolerance",
        "sys/devices/system/cpu/cpu1/../cpu2/wteo/tolerance",
};

START_TEST(test_bad_paths) {
        KnobId id = { .kind = KNOB_HALTPOLL, .cpu = 77 };

        ck_assert_msg(knob_parse(bad_paths[_i], &id) == -EINVAL, "%s accepted", bad_paths[_i]);
        ck_assert_uint_eq(id.cpu, 77);
}
END_TEST

int main(void) {
        Suite *s = suite_create("knob");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_wteo_paths);
        tcase_add_loop_test(tc, test_bad_paths, 0, (int) (sizeof(bad_paths) / sizeof(bad_paths[0])));
        suite_add_tcase(s, tc);
        return unit_run(s);
}
