/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The set's shape: which CPUs, in which order, from the topology. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "consolidate.h"

/* An unknown id (-1) sorts after every known one. */
static long id_key(int id) {
        return id < 0 ? LONG_MAX : id;
}

typedef struct FillKey {
        long package, die, core;
        unsigned cpu;
} FillKey;

static int fill_key_compare(const void *a, const void *b) {
        const FillKey *x = a, *y = b;

        if (x->package != y->package)
                return x->package < y->package ? -1 : 1;
        if (x->die != y->die)
                return x->die < y->die ? -1 : 1;
        if (x->core != y->core)
                return x->core < y->core ? -1 : 1;
        return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* Returns whether cpu may be in a set: online and not pinned. */
static bool eligible(const Topology *t, const CpuSet *pinned, unsigned cpu) {
        return cpu < t->n_cpus && t->cpus[cpu].online && cpuset_contains(&t->online, cpu) &&
               !(pinned && cpuset_contains(pinned, cpu));
}

/* Sorting by (package, die, core, CPU) puts a core's SMT siblings next to
 * each other, a package's cores before the next package's. */
int consolidate_fill_order(const Topology *t, const CpuSet *pinned, unsigned *order, unsigned max) {
        FillKey *keys = calloc(t->n_cpus ? t->n_cpus : 1, sizeof(FillKey));
        unsigned n = 0;

        if (!keys)
                return -ENOMEM;
        for (unsigned cpu = 0; cpu < t->n_cpus; cpu++) {
                const TopologyCpu *c = &t->cpus[cpu];

                if (eligible(t, pinned, cpu))
                        keys[n++] = (FillKey) { id_key(c->package_id), id_key(c->die_id), id_key(c->core_id), cpu };
        }
        qsort(keys, n, sizeof(FillKey), fill_key_compare);
        for (unsigned i = 0; i < n && i < max; i++)
                order[i] = keys[i].cpu;
        free(keys);
        return (int) n;
}

/* Returns the number taken or -ENOMEM. */
int consolidate_pick(const Topology *t, const CpuSet *pinned, unsigned n, CpuSet *ret) {
        unsigned *order = calloc(t->n_cpus ? t->n_cpus : 1, sizeof(unsigned));
        int total;
        unsigned take;

        if (!order)
                return -ENOMEM;
        total = consolidate_fill_order(t, pinned, order, t->n_cpus);
        if (total < 0) {
                free(order);
                return total;
        }
        take = n < (unsigned) total ? n : (unsigned) total;
        cpuset_clear(ret);
        for (unsigned i = 0; i < take; i++)
                cpuset_add(ret, order[i]);
        free(order);
        return (int) take;
}
