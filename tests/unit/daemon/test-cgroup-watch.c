/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cgroup watch (daemon/cgroup-watch.c) on fake cgroup trees in a temp
 * directory: a v2 cgroup.events file going from "populated 1" to
 * "populated 0" (inotify sees regular files too), a v1 cgroup.procs (or
 * tasks) emptied under the poll, a cgroup that disappears, and the paths
 * it refuses: a symbolic link as the cgroup, as a directory on the way or
 * as its cgroup.events or tasks (to a cgroup outside the root that is
 * empty: followed, it would end the pin at once), and a FIFO where
 * cgroup.events or cgroup.procs should be.  No privileges needed. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup-watch.h"
#include "cleanup.h"
#include "watch-test.h"

#define POLL_USEC (20 * 1000)

static char root[256];
static int root_fd = -1;

/* Files and directories a test may make under root, removed in this order. */
static const char *const tree[] = {
        "v2/app/cgroup.events", "v2/app", "v2",
        "v1/app/cgroup.procs", "v1/app/tasks", "v1/app", "v1",
        "plain", "file",
        "links/dir", "links/ev/cgroup.events", "links/ev", "links/fifo-ev/cgroup.events", "links/fifo-ev",
        "links/v1/cgroup.procs", "links/v1", "links/v1-link/tasks", "links/v1-link", "links",
        "outside/cgroup.events", "outside/tasks", "outside",
};

static void tree_setup(void) {
        const char *tmp = getenv("TMPDIR");

        snprintf(root, sizeof(root), "%s/cgroup-watch-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
        ck_assert_ptr_nonnull(mkdtemp(root));
        root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(root_fd, 0);
}

static void tree_teardown(void) {
        for (size_t i = 0; i < ELEMENTSOF(tree); i++)
                if (unlinkat(root_fd, tree[i], 0) < 0)
                        (void) unlinkat(root_fd, tree[i], AT_REMOVEDIR);
        close(root_fd);
        (void) rmdir(root);
}

static void make_dir(const char *path) {
        ck_assert_int_eq(mkdirat(root_fd, path, 0755), 0);
}

/* Writes text over path (created, truncated), as a test's "kernel". */
static void write_file(const char *path, const char *text) {
        int fd = openat(root_fd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        close(fd);
}

typedef struct Emptied {
        bool done;
        unsigned calls;
        char path[64];
        CgroupWatch *watch;            /* freed by the callback when set */
} Emptied;

static void on_empty(const char *path, void *userdata) {
        Emptied *x = userdata;

        x->done = true;
        x->calls++;
        snprintf(x->path, sizeof(x->path), "%s", path);
        x->watch = cgroup_watch_free(x->watch);
}

START_TEST(test_v2_empties) {
        Emptied x = {};
        CgroupWatch *w = NULL;
        sd_event *e;

        make_dir("v2");
        make_dir("v2/app");
        write_file("v2/app/cgroup.events", "populated 1\nfrozen 0\n");
        ck_assert_int_eq(sd_event_new(&e), 0);
        ck_assert_int_eq(cgroup_watch_new(e, root_fd, "v2/app", on_empty, &x, &w), 0);
        ck_assert_int_eq(cgroup_watch_get_kind(w), CGROUP_WATCH_EVENTS);
        watch_test_run_for(e, 200 * 1000);
        ck_assert(!x.done);
        write_file("v2/app/cgroup.events", "populated 0\nfrozen 0\n");
        ck_assert(watch_test_run_until(e, &x.done, WATCH_TEST_DEADLINE_USEC));
        ck_assert_str_eq(x.path, "v2/app");

        /* Once: a later refill and emptying are not reported. */
        write_file("v2/app/cgroup.events", "populated 1\nfrozen 0\n");
        write_file("v2/app/cgroup.events", "populated 0\nfrozen 0\n");
        watch_test_run_for(e, 200 * 1000);
        ck_assert_uint_eq(x.calls, 1);
        cgroup_watch_free(w);
        sd_event_unref(e);
}
END_TEST

START_TEST(test_v2_already_empty) {
        Emptied x = {};
        sd_event *e;

        make_dir("v2");
        make_dir("v2/app");
        write_file("v2/app/cgroup.events", "frozen 0\npopulated 0\n");
        ck_assert_int_eq(sd_event_new(&e), 0);
        ck_assert_int_eq(cgroup_watch_new(e, root_fd, "v2/app", on_empty, &x, &x.watch), 0);
        ck_assert(!x.done);             /* not from the constructor */
        ck_assert(watch_test_run_until(e, &x.done, WATCH_TEST_DEADLINE_USEC));
        ck_assert_ptr_null(x.watch);    /* freed in the callback */
        sd_event_unref(e);
}
END_TEST

/* Makes the v1 cgroup v1/app with file holding two PIDs, watches it with a
 * short poll and sees that it is not reported while populated.  Returns
 * the event loop. */
static sd_event *watch_v1(const char *file, Emptied *x) {
        sd_event *e;

        make_dir("v1");
        make_dir("v1/app");
        write_file(file, "4242\n4243\n");
        ck_assert_int_eq(sd_event_new(&e), 0);
        ck_assert_int_eq(cgroup_watch_new(e, root_fd, "v1/app", on_empty, x, &x->watch), 0);
        ck_assert_int_eq(cgroup_watch_get_kind(x->watch), CGROUP_WATCH_POLL);
        ck_assert_int_eq(cgroup_watch_set_interval(x->watch, POLL_USEC), 0);
        watch_test_run_for(e, 200 * 1000);
        ck_assert(!x->done);
        return e;
}

/* cgroup.procs is the file read: tasks, written later, is not. */
START_TEST(test_v1_poll) {
        Emptied x = {};
        sd_event *e = watch_v1("v1/app/cgroup.procs", &x);

        ck_assert_int_eq(cgroup_watch_set_interval(x.watch, 0), -EINVAL);
        write_file("v1/app/tasks", "4242\n4243\n4244\n");
        write_file("v1/app/cgroup.procs", "");
        ck_assert(watch_test_run_until(e, &x.done, WATCH_TEST_DEADLINE_USEC));
        ck_assert_str_eq(x.path, "v1/app");
        sd_event_unref(e);
}
END_TEST

/* Only tasks (no cgroup.procs), and the cgroup removed, not emptied. */
START_TEST(test_v1_tasks_removed) {
        Emptied x = {};
        sd_event *e = watch_v1("v1/app/tasks", &x);

        ck_assert_int_eq(unlinkat(root_fd, "v1/app/tasks", 0), 0);
        ck_assert_int_eq(unlinkat(root_fd, "v1/app", AT_REMOVEDIR), 0);
        ck_assert(watch_test_run_until(e, &x.done, WATCH_TEST_DEADLINE_USEC));
        sd_event_unref(e);
}
END_TEST

START_TEST(test_refused) {
        CgroupWatch *w = NULL;
        sd_event *e;

        make_dir("plain");
        write_file("file", "");
        ck_assert_int_eq(sd_event_new(&e), 0);
        ck_assert_int_eq(cgroup_watch_new(e, root_fd, "", on_empty, NULL, &w), -EINVAL);
        ck_assert_int_eq(cgroup_watch_new(e, root_fd, "/sys/fs/cgroup", on_empty, NULL, &w), -EINVAL);
        ck_assert_int_eq(cgroup_watch_new(e, root_fd, "..", on_empty, NULL, &w), -EINVAL);
        ck_assert_int_eq(cgroup_watch_new(e, root_fd, "plain/../../x", on_empty, NULL, &w), -EINVAL);
        ck_assert_int_eq(cgroup_watch_new(e, root_fd, "missing", on_empty, NULL, &w), -ENOENT);
        ck_assert_int_eq(cgroup_watch_new(e, root_fd, "plain", on_empty, NULL, &w), -ENOENT);
        ck_assert_int_eq(cgroup_watch_new(e, root_fd, "file", on_empty, NULL, &w), -ENOTDIR);
        ck_assert_ptr_null(w);
        ck_assert_ptr_null(cgroup_watch_free(NULL));
        sd_event_unref(e);
}
END_TEST

START_TEST(test_links_refused) {
        static const struct {
                const char *path;
                int error;
        } cases[] = {
                { "links/dir", -ELOOP }, { "links/dir/", -ELOOP }, { "links/ev", -ELOOP },
                { "links/v1-link", -ELOOP }, { "links/fifo-ev", -EBADFD }, { "links/v1", -EBADFD },
        };
        CgroupWatch *w = NULL;
        sd_event *e;

        make_dir("outside");
        write_file("outside/cgroup.events", "populated 0\nfrozen 0\n");
        write_file("outside/tasks", "");
        make_dir("links");
        ck_assert_int_eq(symlinkat("../outside", root_fd, "links/dir"), 0);
        make_dir("links/ev");
        ck_assert_int_eq(symlinkat("../../outside/cgroup.events", root_fd, "links/ev/cgroup.events"), 0);
        make_dir("links/v1-link");
        ck_assert_int_eq(symlinkat("../../outside/tasks", root_fd, "links/v1-link/tasks"), 0);
        make_dir("links/fifo-ev");
        ck_assert_int_eq(mkfifoat(root_fd, "links/fifo-ev/cgroup.events", 0600), 0);
        make_dir("links/v1");
        ck_assert_int_eq(mkfifoat(root_fd, "links/v1/cgroup.procs", 0600), 0);
        ck_assert_int_eq(sd_event_new(&e), 0);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                ck_assert_msg(cgroup_watch_new(e, root_fd, cases[i].path, on_empty, NULL, &w) == cases[i].error, "%s",
                              cases[i].path);
        ck_assert_ptr_null(w);
        sd_event_unref(e);
}
END_TEST

int main(void) {
        const TTest *const tests[] = {
                test_v2_empties, test_v2_already_empty, test_v1_poll, test_v1_tasks_removed, test_refused,
                test_links_refused,
        };

        return watch_test_main("cgroup-watch", tests, ELEMENTSOF(tests), tree_setup, tree_teardown);
}
