/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Fake topologies built in memory, for the consolidation tests. */

#include <stdlib.h>

#include "consolidate.h"
#include "unit.h"

/* packages × cores × threads CPUs numbered as x86 does: first thread 0 of
 * every core of every package, then thread 1, ... (so CPU 0 and CPU
 * packages*cores are siblings).  offline: a CPU list, or NULL. */
static inline Topology *fake_topology(unsigned packages, unsigned cores, unsigned threads, const char *offline) {
        unsigned per_thread = packages * cores, n = per_thread * threads;
        Topology *t = calloc(1, sizeof(Topology));
        CpuSet off;

        ck_assert_ptr_nonnull(t);
        t->cpus = calloc(n, sizeof(TopologyCpu));
        ck_assert_ptr_nonnull(t->cpus);
        t->n_cpus = n;
        t->online_fd = -1;
        ck_assert_int_eq(cpuset_parse(offline ? offline : "", &off, NULL), 0);
        for (unsigned cpu = 0; cpu < n; cpu++) {
                unsigned core = cpu % per_thread;
                TopologyCpu *c = &t->cpus[cpu];

                *c = (TopologyCpu) { .id = cpu, .present = true, .online = !cpuset_contains(&off, cpu),
                                     .package_id = (int) (core / cores), .die_id = 0, .core_id = (int) (core % cores) };
                cpuset_add(&t->present, cpu);
                if (!c->online) {
                        c->package_id = c->die_id = c->core_id = -1;
                        continue;
                }
                cpuset_add(&t->online, cpu);
                for (unsigned th = 0; th < threads; th++)
                        cpuset_add(&c->siblings, core + th * per_thread);
        }
        return t;
}

/* Asserts that s formats as want. */
#define ck_assert_cpuset(s, want)                                                       \
        do {                                                                            \
                char _buf[256];                                                         \
                ck_assert_int_eq(cpuset_format((s), _buf, sizeof(_buf)), 0);            \
                ck_assert_str_eq(_buf, (want));                                         \
        } while (0)

/* Q10 of a percentage, and of CPUs' worth. */
#define Q10_PCT(p) ((int) ((p) * 1024 / 100))
#define Q10_CPUS(x) ((int) ((x) * 1024))
