/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "knob.h"
#include "overrides.h"

/* Per CPU: bit k = state k's disable knob, bit 15 = the resume latency. */
#define LATENCY_BIT (1u << 15)

struct Overrides {
        uint16_t *cpus;            /* n_cpus masks */
        unsigned n_cpus;
        bool governor;
        bool haltpoll;
};

int overrides_new(Overrides **ret) {
        Overrides *o = calloc(1, sizeof(Overrides));

        if (!o)
                return -ENOMEM;
        *ret = o;
        return 0;
}

Overrides *overrides_free(Overrides *o) {
        if (o)
                free(o->cpus);
        free(o);
        return NULL;
}

/* Makes room for cpu.  Returns 0 or -ENOMEM / -EINVAL. */
static int grow(Overrides *o, unsigned cpu) {
        uint16_t *n;
        unsigned want;

        if (cpu >= CPUSET_MAX)
                return -EINVAL;
        if (cpu < o->n_cpus)
                return 0;
        want = cpu + 1 > o->n_cpus * 2 ? cpu + 1 : o->n_cpus * 2;
        n = realloc(o->cpus, want * sizeof(uint16_t));
        if (!n)
                return -ENOMEM;
        memset(n + o->n_cpus, 0, (want - o->n_cpus) * sizeof(uint16_t));
        o->cpus = n;
        o->n_cpus = want;
        return 0;
}

/* Returns the bit of id in its CPU's mask (0 for the system-wide knobs). */
static uint16_t id_bit(const KnobId *id) {
        if (id->kind == KNOB_RESUME_LATENCY)
                return LATENCY_BIT;
        if (id->kind == KNOB_STATE_DISABLE && id->state < 15)
                return (uint16_t) (1u << id->state);
        return 0;
}

int overrides_add(Overrides *o, const char *path) {
        KnobId id;
        int r;

        if (knob_parse(path, &id) < 0)
                return -EINVAL;
        if (id.kind == KNOB_GOVERNOR || id.kind == KNOB_HALTPOLL) {
                *(id.kind == KNOB_GOVERNOR ? &o->governor : &o->haltpoll) = true;
                return 0;
        }
        r = grow(o, id.cpu);
        if (r < 0)
                return r;
        o->cpus[id.cpu] |= id_bit(&id);
        return 0;
}

void overrides_clear(Overrides *o) {
        if (o->cpus)
                memset(o->cpus, 0, o->n_cpus * sizeof(uint16_t));
        o->governor = o->haltpoll = false;
}

static bool cpu_has(const Overrides *o, unsigned cpu, uint16_t bit) {
        return cpu < o->n_cpus && (o->cpus[cpu] & bit);
}

bool overrides_contains(const Overrides *o, const char *path) {
        KnobId id;

        if (knob_parse(path, &id) < 0)
                return false;
        if (id.kind == KNOB_GOVERNOR)
                return o->governor;
        if (id.kind == KNOB_HALTPOLL)
                return o->haltpoll;
        return cpu_has(o, id.cpu, id_bit(&id));
}

bool overrides_state(const Overrides *o, unsigned cpu, unsigned state) {
        return state < 15 && cpu_has(o, cpu, (uint16_t) (1u << state));
}

bool overrides_resume_latency(const Overrides *o, unsigned cpu) {
        return cpu_has(o, cpu, LATENCY_BIT);
}

bool overrides_governor(const Overrides *o) {
        return o->governor;
}

unsigned overrides_count(const Overrides *o) {
        unsigned n = o->governor + o->haltpoll;

        for (unsigned c = 0; c < o->n_cpus; c++)
                n += (unsigned) __builtin_popcount(o->cpus[c]);
        return n;
}

bool overrides_filter_not_manual(const char *path, void *userdata) {
        return !overrides_contains(userdata, path);
}
