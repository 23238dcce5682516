/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared bits of the Check unit tests: running a suite (TAP on stdout when
 * CK_TAP_LOG_FILE_NAME=- as meson sets it) and fake trees that are removed
 * when the test process exits, whether the test passed or not. */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "faketree.h"

/* A fake tree in its own temporary directory. */
typedef struct FakeTree {
        char path[256];
        int fd;
} FakeTree;

/* Closes and removes t (NULL allowed).  Returns NULL. */
static inline FakeTree *faketree_free(FakeTree *t) {
        if (t && t->fd >= 0)
                close(t->fd);
        if (t && t->path[0] == '/')
                faketree_rm_rf(AT_FDCWD, t->path);
        free(t);
        return NULL;
}

/* Makes a tree with o in a new directory under $TMPDIR.  Returns 0 or a
 * negative errno. */
static inline int faketree_new(const FakeTreeOptions *o, FakeTree **ret) {
        const char *tmp = getenv("TMPDIR");
        FakeTree *t = calloc(1, sizeof(FakeTree));
        int r;

        if (!t)
                return -ENOMEM;
        t->fd = -1;
        snprintf(t->path, sizeof(t->path), "%s/faketree-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
        if (!mkdtemp(t->path)) {
                r = -errno;
                t->path[0] = '\0';
        } else {
                t->fd = open(t->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                r = t->fd < 0 ? -errno : faketree_create(t->fd, o);
        }
        if (r < 0) {
                faketree_free(t);
                return r;
        }
        *ret = t;
        return 0;
}

#define UNIT_TREES_MAX 8

static FakeTree *unit_trees[UNIT_TREES_MAX];

static inline void unit_trees_free(void) {
        for (unsigned i = 0; i < UNIT_TREES_MAX; i++)
                unit_trees[i] = faketree_free(unit_trees[i]);
}

/* Returns a fresh fake tree made with o (NULL: defaults); fails the test if
 * it cannot be made.  Removed at exit. */
static inline FakeTree *unit_tree(const FakeTreeOptions *o) {
        static bool registered;
        FakeTreeOptions defaults;
        FakeTree *t = NULL;
        unsigned i;

        if (!o) {
                faketree_options_init(&defaults);
                o = &defaults;
        }
        if (!registered)
                registered = atexit(unit_trees_free) == 0;
        for (i = 0; i < UNIT_TREES_MAX && unit_trees[i]; i++)
                ;
        ck_assert_uint_lt(i, UNIT_TREES_MAX);
        ck_assert_int_eq(faketree_new(o, &t), 0);
        unit_trees[i] = t;
        return t;
}

/* Options with the defaults, then n_cpus/n_states set. */
static inline FakeTreeOptions unit_options(unsigned n_cpus, unsigned n_states) {
        FakeTreeOptions o;

        faketree_options_init(&o);
        o.n_cpus = n_cpus;
        o.n_states = n_states;
        return o;
}

/* Asserts that the ErrorInfo message contains needle. */
#define ck_assert_msg_has(e, needle) \
        ck_assert_msg(strstr((e).message, (needle)), "message \"%s\" lacks \"%s\"", (e).message, (needle))

/* Returns a new test case in s whose trees are removed after each test
 * (needed with CK_FORK=no; forked tests also clean up at exit). */
static inline TCase *unit_tcase(Suite *s, const char *name) {
        TCase *tc = tcase_create(name);

        tcase_add_checked_fixture(tc, NULL, unit_trees_free);
        suite_add_tcase(s, tc);
        return tc;
}

/* Runs the suite (verbosity and TAP from the environment) with every fake
 * tree in one temporary directory, removed at the end even when a failing
 * test left its trees behind.  Returns the process exit status. */
static inline int unit_run(Suite *s) {
        const char *tmp = getenv("TMPDIR");
        char base[256];
        SRunner *sr;
        int failed;

        snprintf(base, sizeof(base), "%s/idlepolicy-unit-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
        if (!mkdtemp(base) || setenv("TMPDIR", base, 1) < 0) {
                perror("idlepolicy unit tests: temporary directory");
                return EXIT_FAILURE;
        }
        sr = srunner_create(s);
        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        faketree_rm_rf(AT_FDCWD, base);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
