/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by the daemon tests that go through the restore journal
 * (journal, knob-workload, systemd-unit). */

#include "journal.h"
#include "unit.h"

/* A journal in t's own runtime directory (t->path/run), for root t->path;
 * fails the test if it cannot be opened. */
static inline Journal *journal_test_open(const FakeTree *t) {
        char rt[512];
        Journal *j = NULL;

        snprintf(rt, sizeof(rt), "%s/run", t->path);
        ck_assert_int_eq(journal_open(rt, t->path, &j), 0);
        return j;
}
