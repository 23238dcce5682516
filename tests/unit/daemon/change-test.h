/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by the daemon tests that go through the change layer (journal,
 * change, knob-workload, systemd-unit, pins). */

#include "change-set.h"
#include "knob-cgroup.h"
#include "fs-util.h"
#include "unit.h"

/* A change layer over t with its restore journal in t's own runtime
 * directory (t->path/run). */
typedef struct ChangeTest {
        KnobEnv env;
        ChangeLayer *l;
} ChangeTest;

/* Opens c for t with types (NULL: the daemon's), the cgroup mount at
 * cgroup_root (NULL: none); fails the test if it cannot. */
static inline void change_test_open_types(ChangeTest *c, const FakeTree *t, const KnobType *const *types,
                                          const char *cgroup_root) {
        char rt[512];

        c->env = KNOB_ENV_NULL;
        c->env.root_fd = t->fd;
        c->env.host_fd = host_root_fd();
        if (cgroup_root)
                ck_assert_int_eq(knob_env_set_cgroup_root(&c->env, cgroup_root), 0);
        ck_assert_int_eq(change_layer_new(types ?: knob_types_default, &c->env, NULL, &c->l), 0);
        snprintf(rt, sizeof(rt), "%s/run", t->path);
        ck_assert_int_eq(change_layer_open_journal(c->l, rt, t->path), 0);
}

static inline void change_test_open(ChangeTest *c, const FakeTree *t) {
        change_test_open_types(c, t, NULL, NULL);
}

/* Frees the layer (the journal file stays) and the environment. */
static inline void change_test_close(ChangeTest *c) {
        c->l = change_layer_free(c->l);
        knob_env_done(&c->env);
}

/* One change of owner: key set to value.  Returns what change_set_add()
 * or change_set_apply() returns. */
static inline int change_test_set(ChangeLayer *l, ChangeOwner owner, const char *key, const char *value) {
        ChangeSet s;
        ErrorInfo e = {};
        int r;

        change_set_init(&s, l, owner);
        r = change_set_add(&s, key, value, &e);
        if (r >= 0)
                r = change_set_apply(&s, &e);
        change_set_done(&s);
        return r;
}
