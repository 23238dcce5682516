/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "pin-cgroup.h"
#include "unit.h"

/* value → its path (the systemd form as runc's systemd driver expands it). */
static const struct {
        const char *value;
        const char *path;
} expanded[] = {
        { "kubepods-burstable-pod1234.slice:cri-containerd:0a1b",
          "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice/cri-containerd-0a1b.scope" },
        { "kubepods.slice:cri-containerd:0a1b", "kubepods.slice/cri-containerd-0a1b.scope" },
        { ":cri-containerd:0a1b", "system.slice/cri-containerd-0a1b.scope" },
        { "-.slice:docker:0a1b", "docker-0a1b.scope" },
        { "machine.slice::0a1b", "machine.slice/-0a1b.scope" },
        { "user-1000.slice:x:app.slice", "user.slice/user-1000.slice/app.slice" },
        { "kubepods/burstable/pod1234/0a1b", "kubepods/burstable/pod1234/0a1b" },
        { "a:b", "a:b" },                       /* one ':' is a cgroupfs name */
        { "a:b:c:d", "a:b:c:d" },
};

static const struct {
        const char *value;
        const char *why;
} refused[] = {
        { "kubepods:cri-containerd:0a1b", "must end in \".slice\"" },
        { ".slice:p:x", "must end in \".slice\"" },
        { "a--b.slice:p:x", "empty dash-separated part" },
        { "-a.slice:p:x", "empty dash-separated part" },
        { "a-.slice:p:x", "empty dash-separated part" },
        { "a.slice:p:", "is empty" },
};

START_TEST(test_expand) {
        for (size_t i = 0; i < ELEMENTSOF(expanded); i++) {
                char out[PIN_CGROUP_PATH_MAX];
                ErrorInfo e = {};

                ck_assert_msg(pin_cgroup_expand(expanded[i].value, out, &e) == 0, "%s: %s", expanded[i].value,
                              e.message);
                ck_assert_str_eq(out, expanded[i].path);
        }
        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                char out[PIN_CGROUP_PATH_MAX] = "untouched";
                ErrorInfo e = {};

                ck_assert_msg(pin_cgroup_expand(refused[i].value, out, &e) == -EBADMSG, "accepted %s",
                              refused[i].value);
                ck_assert_msg_has(e, refused[i].why);
                ck_assert_str_eq(out, "untouched");
                ck_assert_ptr_nonnull(pin_cgroup_systemd_error(refused[i].value));
        }
}
END_TEST

START_TEST(test_expand_too_long) {
        char value[PIN_CGROUP_PATH_MAX], out[PIN_CGROUP_PATH_MAX];
        ErrorInfo e = {};

        /* 300 one-letter parts: every prefix slice is a directory */
        value[0] = '\0';
        for (int i = 0; i < 300; i++)
                strcat(value, i ? "-a" : "a");
        strcat(value, ".slice:p:x");
        ck_assert_int_eq(pin_cgroup_expand(value, out, &e), -EBADMSG);
        ck_assert_msg_has(e, "longer than 1023 bytes");
}
END_TEST

/* This machine's kind: v1 controllers and a v2 mount under a tmpfs. */
static const char hybrid[] =
        "23 1 0:21 / /sys rw,nosuid - sysfs sysfs rw\n"
        "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
        "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
        "34 31 0:31 / /sys/fs/cgroup/cpu\\040set rw,relatime shared:5 - cgroup cgroup rw,memory_migrate,cpuset\n"
        "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

START_TEST(test_find_cpuset) {
        PinCgroupMount m = {};

        ck_assert_int_eq(pin_cgroup_find_cpuset(hybrid, "/sys/fs/cgroup", &m), 1);
        ck_assert_str_eq(m.dir, "cpu set");
        ck_assert_str_eq(m.root, "");
        /* not below the cgroup mount, or the mount point itself */
        ck_assert_int_eq(pin_cgroup_find_cpuset(hybrid, "/sys/fs/cgroup/cpu set", &m), 0);
        ck_assert_int_eq(pin_cgroup_find_cpuset(hybrid, "/other", &m), 0);
        /* v2 only, cpuset as a word in another option, a missing separator */
        ck_assert_int_eq(pin_cgroup_find_cpuset("30 1 0:27 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n",
                                                "/sys/fs/cgroup", &m), 0);
        ck_assert_int_eq(pin_cgroup_find_cpuset("34 31 0:31 / /sys/fs/cgroup/x rw - cgroup cgroup rw,cpusetx\n",
                                                "/sys/fs/cgroup", &m), 0);
        ck_assert_int_eq(pin_cgroup_find_cpuset("34 31 0:31 / /sys/fs/cgroup/x rw cgroup cgroup rw,cpuset\n",
                                                "/sys/fs/cgroup", &m), 0);
        ck_assert_int_eq(pin_cgroup_find_cpuset("", "/sys/fs/cgroup", &m), 0);
        /* a container's view: part of the hierarchy mounted */
        ck_assert_int_eq(pin_cgroup_find_cpuset("9 8 0:31 /kubepods/pod1 /sys/fs/cgroup/cpuset ro - cgroup cgroup "
                                                "ro,cpuset", "/sys/fs/cgroup", &m), 1);
        ck_assert_str_eq(m.dir, "cpuset");
        ck_assert_str_eq(m.root, "kubepods/pod1");
}
END_TEST

START_TEST(test_place) {
        PinCgroupMount all = { .dir = "cpuset" }, part = { .dir = "cpuset", .root = "kubepods" };
        char out[PIN_CGROUP_PATH_MAX];
        ErrorInfo e = {};

        ck_assert_int_eq(pin_cgroup_place("kubepods/pod1/c", NULL, out, &e), 0);
        ck_assert_str_eq(out, "kubepods/pod1/c");
        ck_assert_int_eq(pin_cgroup_place("kubepods/pod1/c", &all, out, &e), 0);
        ck_assert_str_eq(out, "cpuset/kubepods/pod1/c");
        ck_assert_int_eq(pin_cgroup_place("cpuset/x", &all, out, &e), 0);   /* the form of before */
        ck_assert_str_eq(out, "cpuset/x");
        ck_assert_int_eq(pin_cgroup_place("cpusetx/y", &all, out, &e), 0);
        ck_assert_str_eq(out, "cpuset/cpusetx/y");
        ck_assert_int_eq(pin_cgroup_place("kubepods/pod1/c", &part, out, &e), 0);
        ck_assert_str_eq(out, "cpuset/pod1/c");
        strcpy(out, "untouched");
        ck_assert_int_eq(pin_cgroup_place("system.slice/x", &part, out, &e), -EBADMSG);
        ck_assert_msg_has(e, "outside the cpuset hierarchy");
        ck_assert_str_eq(out, "untouched");
}
END_TEST

/* Writes text to root/rel, making the directories on the way. */
static void put(FakeTree *t, const char *rel, const char *text) {
        ck_assert_int_eq(faketree_write(t->fd, rel, "%s", text), 0);
}

START_TEST(test_resolve) {
        FakeTree *host = unit_tree(NULL), *cg = unit_tree(NULL);
        char root[300], mountinfo[1024], out[PIN_CGROUP_PATH_MAX];
        ErrorInfo e = {};

        /* cg->path plays /sys/fs/cgroup: a tmpfs with a v1 cpuset mount */
        snprintf(root, sizeof(root), "%s", cg->path);
        snprintf(mountinfo, sizeof(mountinfo), "34 31 0:31 / %s/cpuset rw - cgroup cgroup rw,cpuset\n", root);
        put(host, "proc/self/mountinfo", mountinfo);
        ck_assert_int_eq(pin_cgroup_resolve(host->fd, cg->fd, root, "kubepods.slice:cri-containerd:1", out, &e), 0);
        ck_assert_str_eq(out, "cpuset/kubepods.slice/cri-containerd-1.scope");
        ck_assert_int_eq(pin_cgroup_resolve(host->fd, cg->fd, root, "cpuset/mine", out, &e), 0);
        ck_assert_str_eq(out, "cpuset/mine");
        /* the mount is a hierarchy itself (v2, or --cgroup-root at v1's cpuset) */
        put(cg, "cgroup.procs", "");
        ck_assert_int_eq(pin_cgroup_resolve(host->fd, cg->fd, root, "kubepods/pod1/c", out, &e), 0);
        ck_assert_str_eq(out, "kubepods/pod1/c");
        ck_assert_int_eq(pin_cgroup_resolve(host->fd, cg->fd, root, "bad.slice:p:", out, &e), -EBADMSG);
}
END_TEST

/* A symbolic link named cgroup.procs in the mount's tmpfs (to a real
 * cgroup.procs elsewhere) does not make it a hierarchy: the path still
 * goes below the cpuset mount (faccessat() followed the link). */
START_TEST(test_resolve_link_is_no_hierarchy) {
        FakeTree *host = unit_tree(NULL), *cg = unit_tree(NULL);
        char root[300], mountinfo[1024], target[512], out[PIN_CGROUP_PATH_MAX];
        ErrorInfo e = {};

        snprintf(root, sizeof(root), "%s", cg->path);
        snprintf(mountinfo, sizeof(mountinfo), "34 31 0:31 / %s/cpuset rw - cgroup cgroup rw,cpuset\n", root);
        put(host, "proc/self/mountinfo", mountinfo);
        put(host, "elsewhere/cgroup.procs", "");
        snprintf(target, sizeof(target), "%s/elsewhere/cgroup.procs", host->path);
        ck_assert_int_eq(symlinkat(target, cg->fd, "cgroup.procs"), 0);
        ck_assert_int_eq(pin_cgroup_resolve(host->fd, cg->fd, root, "kubepods/pod1/c", out, &e), 0);
        ck_assert_str_eq(out, "cpuset/kubepods/pod1/c");
        /* the same with the link's target relative to the mount */
        ck_assert_int_eq(unlinkat(cg->fd, "cgroup.procs", 0), 0);
        put(cg, "real/cgroup.procs", "");
        ck_assert_int_eq(symlinkat("real/cgroup.procs", cg->fd, "cgroup.procs"), 0);
        ck_assert_int_eq(pin_cgroup_resolve(host->fd, cg->fd, root, "kubepods/pod1/c", out, &e), 0);
        ck_assert_str_eq(out, "cpuset/kubepods/pod1/c");
}
END_TEST

START_TEST(test_resolve_without_mountinfo) {
        FakeTree *host = unit_tree(NULL), *cg = unit_tree(NULL);
        char out[PIN_CGROUP_PATH_MAX];
        ErrorInfo e = {};

        ck_assert_int_eq(mkdirat(host->fd, "nothing", 0755), 0);
        ck_assert_int_eq(pin_cgroup_resolve(host->fd, cg->fd, cg->path, "kubepods/c", out, &e), 0);
        ck_assert_str_eq(out, "kubepods/c");
}
END_TEST

int main(void) {
        Suite *s = suite_create("pin-cgroup");
        TCase *tc = unit_tcase(s, "cgroup");

        tcase_add_test(tc, test_expand);
        tcase_add_test(tc, test_expand_too_long);
        tcase_add_test(tc, test_find_cpuset);
        tcase_add_test(tc, test_place);
        tcase_add_test(tc, test_resolve);
        tcase_add_test(tc, test_resolve_link_is_no_hierarchy);
        tcase_add_test(tc, test_resolve_without_mountinfo);
        return unit_run(s);
}
