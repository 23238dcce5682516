/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "timer-track.h"
#include "trace-format.h"

/* An expiry further away than this is on a clock whose offset we do not know
 * (CLOCK_REALTIME is ~1.7e18 ns) or means "never". */
#define TIMER_FAR_NS 100000000000000000ull

/* hrtimer clock base indexes as /proc/timer_list numbers them */
#define BASE_REALTIME 1
#define BASES_MAX 8

typedef struct PendingTimer {
        uint64_t id;
        uint64_t expires_ns;
} PendingTimer;

typedef struct CpuTimers {
        PendingTimer *v;
        size_t n, cap;
} CpuTimers;

struct TimerTrack {
        unsigned n_cpus;
        uint64_t realtime_offset_ns;    /* 0: unknown */
        CpuTimers *cpus;
};

int timer_track_new(unsigned n_cpus, TimerTrack **ret) {
        TimerTrack *t = calloc(1, sizeof(*t));

        if (!t)
                return -ENOMEM;
        t->cpus = calloc(n_cpus ? n_cpus : 1, sizeof(CpuTimers));
        if (!t->cpus) {
                free(t);
                return -ENOMEM;
        }
        t->n_cpus = n_cpus;
        *ret = t;
        return 0;
}

TimerTrack *timer_track_free(TimerTrack *t) {
        if (!t)
                return NULL;
        for (unsigned c = 0; c < t->n_cpus; c++)
                free(t->cpus[c].v);
        free(t->cpus);
        free(t);
        return NULL;
}

void timer_track_freep(TimerTrack **t) {
        timer_track_free(*t);
}

int timer_track_grow(TimerTrack *t, unsigned n_cpus) {
        if (n_cpus <= t->n_cpus)
                return 0;
        CpuTimers *v = reallocarray(t->cpus, n_cpus, sizeof(CpuTimers));
        if (!v)
                return -ENOMEM;
        memset(v + t->n_cpus, 0, (n_cpus - t->n_cpus) * sizeof(CpuTimers));
        t->cpus = v;
        t->n_cpus = n_cpus;
        return 0;
}

/* Returns true if id was pending on cpu (and is no more). */
static bool cpu_remove(CpuTimers *ct, uint64_t id) {
        for (size_t i = 0; i < ct->n; i++)
                if (ct->v[i].id == id) {
                        ct->v[i] = ct->v[--ct->n];
                        return true;
                }
        return false;
}

void timer_track_remove(TimerTrack *t, uint64_t id, unsigned hint_cpu) {
        if (hint_cpu < t->n_cpus && cpu_remove(&t->cpus[hint_cpu], id))
                return;
        for (unsigned c = 0; c < t->n_cpus; c++)
                if (c != hint_cpu && cpu_remove(&t->cpus[c], id))
                        return;
}

static int cpu_add(CpuTimers *ct, uint64_t id, uint64_t expires_ns) {
        if (grow_array((void **) &ct->v, &ct->cap, ct->n, sizeof(PendingTimer), 16) < 0)
                return -ENOMEM;
        ct->v[ct->n++] = (PendingTimer) { .id = id, .expires_ns = expires_ns };
        return 0;
}

int timer_track_start(TimerTrack *t, unsigned cpu, uint64_t id, uint64_t expires_ns, uint64_t now_ns) {
        if (cpu >= t->n_cpus)
                return -ERANGE;
        timer_track_remove(t, id, cpu);
        if (t->realtime_offset_ns > 0 && expires_ns >= t->realtime_offset_ns / 2)
                expires_ns -= t->realtime_offset_ns;
        if (expires_ns > now_ns && expires_ns - now_ns > TIMER_FAR_NS)
                return 0;       /* unknown clock, or never */
        return cpu_add(&t->cpus[cpu], id, expires_ns);
}

uint64_t timer_track_sleep_length(const TimerTrack *t, unsigned cpu, uint64_t start_ns, uint64_t end_ns) {
        uint64_t best = UINT64_MAX;

        if (cpu >= t->n_cpus)
                return TRACE_SLEEP_UNKNOWN;
        for (size_t i = 0; i < t->cpus[cpu].n; i++) {
                uint64_t x = t->cpus[cpu].v[i].expires_ns;
                if (x + TIMER_LAG_MAX_NS < end_ns)
                        continue;       /* it did not fire: not really pending here */
                if (x < best)
                        best = x;
        }
        if (best == UINT64_MAX)
                return TRACE_SLEEP_UNKNOWN;
        return best > start_ns ? best - start_ns : 0;
}

/* ---- /proc/timer_list ---------------------------------------------------- */

typedef struct SeedState {
        long cpu;
        long base;
        uint64_t offset[BASES_MAX];
        uint64_t id;
        bool have_id;
} SeedState;

/* Handles one line of timer_list (leading spaces skipped).  Returns 1 if a
 * timer was added, 0 if not, -ENOMEM. */
static int seed_line(TimerTrack *t, SeedState *s, const char *l) {
        unsigned long long a, b;
        long v;

        if (sscanf(l, "cpu: %ld", &v) == 1)
                s->cpu = v;
        else if (sscanf(l, "clock %ld:", &v) == 1)
                s->base = v;
        else if (sscanf(l, ".offset: %llu nsecs", &a) == 1 && s->base >= 0 && s->base < BASES_MAX) {
                s->offset[s->base] = a;
                if (s->base == BASE_REALTIME)
                        t->realtime_offset_ns = a;
        } else if (sscanf(l, "#%ld: <%llx>,", &v, &a) == 2) {
                s->id = a;
                s->have_id = true;
        } else if (sscanf(l, "# expires at %llu-%llu nsecs", &a, &b) == 2 && s->have_id) {
                s->have_id = false;
                if (s->cpu < 0 || (unsigned long) s->cpu >= t->n_cpus || s->base < 0 || s->base >= BASES_MAX ||
                    b < s->offset[s->base])
                        return 0;
                timer_track_remove(t, s->id, (unsigned) s->cpu);
                int r = cpu_add(&t->cpus[s->cpu], s->id, b - s->offset[s->base]);
                return r < 0 ? r : 1;
        }
        return 0;
}

int timer_track_seed(TimerTrack *t, const char *timer_list) {
        SeedState s = { .cpu = -1, .base = -1 };
        int added = 0;

        for (const char *l = timer_list; l && *l; ) {
                const char *nl = strchr(l, '\n');
                const char *p = l + strspn(l, " \t");
                if (strncmp(p, "Tick Device:", 12) == 0)
                        break;
                int r = seed_line(t, &s, p);
                if (r < 0)
                        return r;
                added += r;
                l = nl ? nl + 1 : NULL;
        }
        return added;
}
