/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "topology.h"
#include "unit.h"

#define CPU_DIR "sys/devices/system/cpu"

static Topology *load_ok(int fd) {
        ErrorInfo e = {};
        Topology *t = NULL;

        ck_assert_msg(topology_load(fd, &t, &e) == 0, "topology_load: %s", e.message);
        ck_assert_ptr_nonnull(t);
        return t;
}

/* Asserts that loading fails with error and a message containing needle,
 * leaving the output alone. */
static void load_fails(int fd, int error, const char *needle) {
        Topology *sentinel = (Topology *) 0x1, *t = sentinel;
        ErrorInfo e = {};

        ck_assert_int_eq(topology_load(fd, &t, &e), error);
        ck_assert_ptr_eq(t, sentinel);
        ck_assert_msg_has(e, needle);
}

static bool siblings_are(const TopologyCpu *c, const char *list) {
        CpuSet s;

        ck_assert_int_eq(cpuset_parse(list, &s, NULL), 0);
        return cpuset_equal(&s, &c->siblings);
}

START_TEST(test_default_vm) {
        FakeTree *ft = unit_tree(NULL);
        _cleanup_topology_ Topology *t = load_ok(ft->fd);

        ck_assert_uint_eq(t->n_cpus, 2);
        ck_assert_uint_eq(cpuset_count(&t->present), 2);
        ck_assert_uint_eq(cpuset_count(&t->online), 2);
        for (unsigned i = 0; i < 2; i++) {
                const TopologyCpu *c = &t->cpus[i];
                ck_assert_uint_eq(c->id, i);
                ck_assert(c->present && c->online);
                ck_assert_int_eq(c->package_id, 0);
                ck_assert_int_eq(c->die_id, 0);
                ck_assert_int_eq(c->core_id, (int) i);
                ck_assert(siblings_are(c, i == 0 ? "0" : "1"));
        }
        ck_assert_int_eq(topology_online_changed(ft->fd, t), 0);
}
END_TEST

START_TEST(test_smt_siblings) {
        FakeTreeOptions o = unit_options(4, 0);
        o.threads_per_core = 2;
        FakeTree *ft = unit_tree(&o);
        _cleanup_topology_ Topology *t = load_ok(ft->fd);

        ck_assert_uint_eq(t->n_cpus, 4);
        ck_assert_int_eq(t->cpus[0].core_id, 0);
        ck_assert_int_eq(t->cpus[1].core_id, 0);
        ck_assert_int_eq(t->cpus[2].core_id, 1);
        ck_assert_int_eq(t->cpus[3].core_id, 1);
        ck_assert(siblings_are(&t->cpus[1], "0-1"));
        ck_assert(siblings_are(&t->cpus[2], "2-3"));
}
END_TEST

START_TEST(test_offline_cpu) {
        FakeTreeOptions o = unit_options(4, 0);
        o.offline = "1,3";
        FakeTree *ft = unit_tree(&o);
        _cleanup_topology_ Topology *t = load_ok(ft->fd);

        ck_assert_uint_eq(t->n_cpus, 4);
        ck_assert_uint_eq(cpuset_count(&t->online), 2);
        ck_assert(t->cpus[1].present);
        ck_assert(!t->cpus[1].online);
        ck_assert_int_eq(t->cpus[1].package_id, -1);
        ck_assert_int_eq(t->cpus[1].die_id, -1);
        ck_assert_int_eq(t->cpus[1].core_id, -1);
        ck_assert_uint_eq(cpuset_count(&t->cpus[1].siblings), 0);
        ck_assert(t->cpus[2].online);
        ck_assert_int_eq(t->cpus[2].core_id, 2);
}
END_TEST

START_TEST(test_online_changed) {
        FakeTree *ft = unit_tree(NULL);
        _cleanup_topology_ Topology *t = load_ok(ft->fd);

        ck_assert_int_eq(topology_online_changed(ft->fd, t), 0);
        ck_assert_int_eq(faketree_set_offline(ft->fd, 1), 0);
        ck_assert_int_eq(topology_online_changed(ft->fd, t), 1);
        ck_assert_int_eq(faketree_set_online(ft->fd, 1), 0);
        ck_assert_int_eq(topology_online_changed(ft->fd, t), 0);
        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/online", "0-x\n"), 0);
        ck_assert_int_eq(topology_online_changed(ft->fd, t), -EBADMSG);
}
END_TEST

/* The online file is opened at the first check and kept: rewritten in place
 * (as sysfs does) it is re-read through the same fd.  Missing, it is looked
 * for again at every check. */
START_TEST(test_online_kept_open) {
        FakeTree *ft = unit_tree(NULL);
        _cleanup_topology_ Topology *t = load_ok(ft->fd);
        int fd;

        ck_assert_int_eq(t->online_fd, -1);
        ck_assert_int_eq(topology_online_changed(ft->fd, t), 0);
        fd = t->online_fd;
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(faketree_set_offline(ft->fd, 1), 0);
        ck_assert_int_eq(topology_online_changed(ft->fd, t), 1);
        ck_assert_int_eq(t->online_fd, fd);
        ck_assert_int_eq(faketree_set_online(ft->fd, 1), 0);
        ck_assert_int_eq(topology_online_changed(ft->fd, t), 0);
        ck_assert_int_eq(t->online_fd, fd);
        topology_free(t);

        ck_assert_int_eq(faketree_rm_rf(ft->fd, CPU_DIR "/online"), 0);
        t = load_ok(ft->fd);
        ck_assert_int_eq(topology_online_changed(ft->fd, t), 0);    /* missing: all present */
        ck_assert_int_eq(t->online_fd, -1);
        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/online", "0\n"), 0);
        ck_assert_int_eq(topology_online_changed(ft->fd, t), 1);
        ck_assert_int_ge(t->online_fd, 0);
        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/online", "%04096d\n", 0), 0);
        ck_assert_int_eq(topology_online_changed(ft->fd, t), -EFBIG);
}
END_TEST

START_TEST(test_online_missing_or_wider) {
        FakeTree *ft = unit_tree(NULL);
        Topology *t;

        /* no hotplug support: every present CPU is online */
        ck_assert_int_eq(faketree_rm_rf(ft->fd, CPU_DIR "/online"), 0);
        t = load_ok(ft->fd);
        ck_assert_uint_eq(cpuset_count(&t->online), 2);
        topology_free(t);
        /* CPUs that are not present are ignored */
        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/online", "0-5\n"), 0);
        t = load_ok(ft->fd);
        ck_assert_uint_eq(cpuset_count(&t->online), 2);
        ck_assert_uint_eq(t->n_cpus, 2);
        ck_assert_int_eq(topology_online_changed(ft->fd, t), 0);
        ck_assert_ptr_null(topology_free(t));
        ck_assert_ptr_null(topology_free(NULL));
}
END_TEST

START_TEST(test_present_hole) {
        FakeTreeOptions o = unit_options(3, 0);
        FakeTree *ft = unit_tree(&o);

        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/present", "0,2\n"), 0);
        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/online", "0,2\n"), 0);
        _cleanup_topology_ Topology *t = load_ok(ft->fd);
        ck_assert_uint_eq(t->n_cpus, 3);
        ck_assert(!t->cpus[1].present);
        ck_assert(!t->cpus[1].online);
        ck_assert_int_eq(t->cpus[1].core_id, -1);
        ck_assert(t->cpus[2].present && t->cpus[2].online);
}
END_TEST

START_TEST(test_unknown_ids) {
        FakeTree *ft = unit_tree(NULL);

        /* some architectures show -1; older kernels have no die_id */
        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/cpu1/topology/physical_package_id", "-1\n"), 0);
        ck_assert_int_eq(faketree_rm_rf(ft->fd, CPU_DIR "/cpu1/topology/die_id"), 0);
        _cleanup_topology_ Topology *t = load_ok(ft->fd);
        ck_assert_int_eq(t->cpus[1].package_id, -1);
        ck_assert_int_eq(t->cpus[1].die_id, -1);
        ck_assert_int_eq(t->cpus[1].core_id, 1);
}
END_TEST

START_TEST(test_bad_files) {
        FakeTree *ft = unit_tree(NULL);

        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/cpu1/topology/core_id", "one\n"), 0);
        load_fails(ft->fd, -EBADMSG, CPU_DIR "/cpu1/topology/core_id: invalid id \"one\"");
        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/cpu1/topology/core_id", "-2\n"), 0);
        load_fails(ft->fd, -EBADMSG, "core_id");
        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/cpu1/topology/core_id", "1\n"), 0);
        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/cpu0/topology/thread_siblings_list", "0-\n"), 0);
        load_fails(ft->fd, -EBADMSG, CPU_DIR "/cpu0/topology/thread_siblings_list: invalid CPU list token");
        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/cpu0/topology/thread_siblings_list", "0\n"), 0);
        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/online", "0,1,\n"), 0);
        load_fails(ft->fd, -EBADMSG, CPU_DIR "/online: invalid CPU list: trailing comma");
        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/present", "garbage\n"), 0);
        load_fails(ft->fd, -EBADMSG, CPU_DIR "/present");
        ck_assert_int_eq(faketree_write(ft->fd, CPU_DIR "/present", "\n"), 0);
        load_fails(ft->fd, -EBADMSG, "no CPU listed");
        ck_assert_int_eq(faketree_rm_rf(ft->fd, CPU_DIR "/present"), 0);
        load_fails(ft->fd, -ENOENT, CPU_DIR "/present");
}
END_TEST

int main(void) {
        Suite *s = suite_create("topology");
        TCase *tc = unit_tcase(s, "core");

        tcase_add_test(tc, test_default_vm);
        tcase_add_test(tc, test_smt_siblings);
        tcase_add_test(tc, test_offline_cpu);
        tcase_add_test(tc, test_online_changed);
        tcase_add_test(tc, test_online_kept_open);
        tcase_add_test(tc, test_online_missing_or_wider);
        tcase_add_test(tc, test_present_hole);
        tcase_add_test(tc, test_unknown_ids);
        tcase_add_test(tc, test_bad_files);
        return unit_run(s);
}
