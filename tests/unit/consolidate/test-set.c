/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "test-consolidate-helpers.h"

/* Returns the fill order as a comma-separated list (static buffer). */
static const char *order_of(const Topology *t, const CpuSet *pinned) {
        static char buf[512];
        unsigned order[64];
        int n = consolidate_fill_order(t, pinned, order, 64);
        size_t len = 0;

        ck_assert_int_ge(n, 0);
        buf[0] = '\0';
        for (int i = 0; i < n && i < 64; i++)
                len += (size_t) snprintf(buf + len, sizeof(buf) - len, "%s%u", i ? "," : "", order[i]);
        return buf;
}

static void pick_is(const Topology *t, const CpuSet *pinned, unsigned n, int taken, const char *want) {
        CpuSet s;

        ck_assert_int_eq(consolidate_pick(t, pinned, n, &s), taken);
        ck_assert_cpuset(&s, want);
}

/* This machine: 1 package × 2 CPUs, loaded from a fake tree. */
START_TEST(test_this_machine) {
        FakeTree *ft = unit_tree(NULL);
        _cleanup_topology_ Topology *t = NULL;

        ck_assert_int_eq(topology_load(ft->fd, &t, NULL), 0);
        ck_assert_str_eq(order_of(t, NULL), "0,1");
        pick_is(t, NULL, 1, 1, "0");
        pick_is(t, NULL, 2, 2, "0-1");
        pick_is(t, NULL, 5, 2, "0-1");
}
END_TEST

/* Threads of a core first, then the package's next core, then the next
 * package. */
START_TEST(test_two_packages_smt) {
        Topology *t = fake_topology(2, 4, 2, NULL);

        ck_assert_str_eq(order_of(t, NULL), "0,8,1,9,2,10,3,11,4,12,5,13,6,14,7,15");
        pick_is(t, NULL, 1, 1, "0");
        pick_is(t, NULL, 2, 2, "0,8");
        pick_is(t, NULL, 3, 3, "0-1,8");
        pick_is(t, NULL, 8, 8, "0-3,8-11");     /* package 0 whole, package 1 idle */
        pick_is(t, NULL, 9, 9, "0-4,8-11");
        topology_free(t);
}
END_TEST

/* Offline CPUs are never in the set; their siblings still come first. */
START_TEST(test_offline) {
        Topology *t = fake_topology(2, 4, 2, "8,1");

        ck_assert_str_eq(order_of(t, NULL), "0,9,2,10,3,11,4,12,5,13,6,14,7,15");
        pick_is(t, NULL, 3, 3, "0,2,9");
        topology_free(t);

        /* and from a fake tree with CPU 1 of 4 offline */
        FakeTreeOptions o = unit_options(4, 0);
        o.offline = "1";
        FakeTree *ft = unit_tree(&o);
        _cleanup_topology_ Topology *loaded = NULL;

        ck_assert_int_eq(topology_load(ft->fd, &loaded, NULL), 0);
        ck_assert_str_eq(order_of(loaded, NULL), "0,2,3");
        pick_is(loaded, NULL, 2, 2, "0,2");
}
END_TEST

/* A pinned CPU inside the would-be set is skipped: the next in order takes
 * its place. */
START_TEST(test_pinned_inside) {
        Topology *t = fake_topology(2, 4, 2, NULL);
        CpuSet pinned;

        ck_assert_int_eq(cpuset_parse("0", &pinned, NULL), 0);
        ck_assert_str_eq(order_of(t, &pinned), "8,1,9,2,10,3,11,4,12,5,13,6,14,7,15");
        pick_is(t, &pinned, 2, 2, "1,8");
        ck_assert_int_eq(cpuset_parse("0-3,8-11", &pinned, NULL), 0);
        pick_is(t, &pinned, 1, 1, "4");
        topology_free(t);

        t = fake_topology(1, 2, 1, NULL);
        ck_assert_int_eq(cpuset_parse("0-1", &pinned, NULL), 0);
        pick_is(t, &pinned, 1, 0, "");
        topology_free(t);
}
END_TEST

int main(void) {
        Suite *s = suite_create("consolidate-set");
        TCase *tc = unit_tcase(s, "set");

        tcase_add_test(tc, test_this_machine);
        tcase_add_test(tc, test_two_packages_smt);
        tcase_add_test(tc, test_offline);
        tcase_add_test(tc, test_pinned_inside);
        return unit_run(s);
}
