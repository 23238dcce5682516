/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Claims on CPUs resolved to one profile per CPU, PM QoS style. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pin-precedence.h"

/* Room kept at the end of a source for " over N other claims". */
#define MORE_RESERVE 32

/* A profile's latency limit as a strictness key: smaller is stricter, no
 * limit (0) the loosest. */
static uint64_t strictness(const Profile *p) {
        return p->latency_limit_us == 0 ? UINT64_MAX : p->latency_limit_us;
}

static bool claim_applied(const PinClaim *c) {
        return c->profile && cpuset_next(&c->cpus, 0) >= 0;
}

/* Appends printf text to buf (used up to *len) if it fits into size bytes
 * with reserve bytes left.  Returns true if it was appended. */
__attribute__((format(printf, 5, 6)))
static bool append(char *buf, size_t size, size_t *len, size_t reserve, const char *fmt, ...) {
        va_list ap;
        int n;

        if (*len + reserve >= size)
                return false;
        va_start(ap, fmt);
        n = vsnprintf(buf + *len, size - *len - reserve, fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t) n >= size - *len - reserve) {
                buf[*len] = '\0';
                return false;
        }
        *len += (size_t) n;
        return true;
}

/* Writes the source of a CPU that count claims (two or more) meet on:
 * the winner with its profile and limit, then the others in order. */
static void describe_contest(const PinClaim *claims, size_t n_claims, unsigned cpu, size_t winner,
                             unsigned count, char *buf, size_t size) {
        const PinClaim *w = &claims[winner];
        size_t len = 0;
        unsigned listed = 0;

        buf[0] = '\0';
        if (w->profile->latency_limit_us > 0)
                append(buf, size, &len, MORE_RESERVE, "%s (%s, %u us)", w->source, w->profile->name,
                       (unsigned) w->profile->latency_limit_us);
        else
                append(buf, size, &len, MORE_RESERVE, "%s (%s, no latency limit)", w->source, w->profile->name);
        for (size_t i = 0; i < n_claims; i++) {
                const PinClaim *c = &claims[i];

                if (i == winner || !claim_applied(c) || !cpuset_contains(&c->cpus, cpu))
                        continue;
                if (!append(buf, size, &len, MORE_RESERVE, "%s%s (%s)", listed ? ", " : " over ",
                            c->source, c->profile->name))
                        break;
                listed++;
        }
        if (listed == 0 && count > 1)
                append(buf, size, &len, 0, " over %u other claims", count - 1);
        else if (listed + 1 < count)
                append(buf, size, &len, 0, " and %u more", count - 1 - listed);
}

/* Sets winner[cpu] to the winning claim and count[cpu] to the number of
 * claims on each CPU below n_cpus. */
static void count_claims(const PinClaim *claims, size_t n_claims, unsigned n_cpus, size_t *winner, unsigned *count) {
        for (size_t i = 0; i < n_claims; i++) {
                if (!claim_applied(&claims[i]))
                        continue;
                CPUSET_FOREACH(cpu, &claims[i].cpus) {
                        if ((unsigned) cpu >= n_cpus)
                                break;
                        if (count[cpu] == 0 || strictness(claims[i].profile) < strictness(claims[winner[cpu]].profile))
                                winner[cpu] = i;
                        count[cpu]++;
                }
        }
}

int pin_precedence_resolve(const Profile *machine, const PinClaim *claims, size_t n_claims,
                           unsigned n_cpus, CpuProfileChoice *ret) {
        _cleanup_free_ size_t *winner = NULL;
        _cleanup_free_ unsigned *count = NULL;

        if (!machine || n_cpus == 0 || n_cpus > CPUSET_MAX)
                return -EINVAL;
        winner = calloc(n_cpus, sizeof(size_t));
        count = calloc(n_cpus, sizeof(unsigned));
        if (!winner || !count)
                return -ENOMEM;
        count_claims(claims, n_claims, n_cpus, winner, count);
        for (unsigned cpu = 0; cpu < n_cpus; cpu++) {
                CpuProfileChoice *c = &ret[cpu];

                c->profile = count[cpu] == 0 ? machine : claims[winner[cpu]].profile;
                if (count[cpu] == 0)
                        snprintf(c->source, sizeof(c->source), "machine");
                else if (count[cpu] == 1)
                        snprintf(c->source, sizeof(c->source), "%s", claims[winner[cpu]].source);
                else
                        describe_contest(claims, n_claims, cpu, winner[cpu], count[cpu], c->source, sizeof(c->source));
        }
        return 0;
}

/* A pin or a hold, in the registry's creation order. */
typedef struct Entry {
        uint64_t sequence;
        const Pin *pin;
        const Hold *hold;
} Entry;

static int compare_entries(const void *a, const void *b) {
        uint64_t x = ((const Entry *) a)->sequence, y = ((const Entry *) b)->sequence;

        return (x > y) - (x < y);
}

/* Collects the active pins and all holds of r, sorted by creation, into a
 * malloc'ed array.  Returns 0 or -ENOMEM. */
static int collect_entries(const PinRegistry *r, Entry **ret, size_t *ret_n) {
        size_t n = 0, max = pin_registry_n_pins(r) + pin_registry_n_holds(r);
        Entry *entries = calloc(max ? max : 1, sizeof(Entry));

        if (!entries)
                return -ENOMEM;
        PIN_REGISTRY_FOREACH_PIN(p, r)
                if (p->state == PIN_STATE_ACTIVE)
                        entries[n++] = (Entry) { .sequence = p->sequence, .pin = p };
        PIN_REGISTRY_FOREACH_HOLD(h, r)
                entries[n++] = (Entry) { .sequence = h->sequence, .hold = h };
        qsort(entries, n, sizeof(Entry), compare_entries);
        *ret = entries;
        *ret_n = n;
        return 0;
}

static void pin_claim(const Pin *p, PinObjectPath object_path, void *userdata, PinClaim *c) {
        char path[128], target[PIN_TARGET_TEXT_MAX];

        if (!object_path || object_path(p, path, sizeof(path), userdata) < 0)
                snprintf(path, sizeof(path), "%u", (unsigned) p->id);
        if (pin_target_format(&p->target, target, sizeof(target)) < 0)
                snprintf(target, sizeof(target), "?");
        /* PinClaim.source holds the whole target: long container paths are shown whole */
        snprintf(c->source, sizeof(c->source), "pin %.60s %s", path, target);
        c->cpus = p->cpus;
}

static void hold_claim(const Hold *h, unsigned n_cpus, PinClaim *c) {
        snprintf(c->source, sizeof(c->source), "hold %u by %.140s", (unsigned) h->cookie,
                 h->app_id[0] ? h->app_id : h->owner);
        if (h->cpus_given)
                c->cpus = h->cpus;
        else {
                cpuset_clear(&c->cpus);
                for (unsigned cpu = 0; cpu < n_cpus; cpu++)
                        cpuset_add(&c->cpus, cpu);
        }
}

int pin_claims_from_registry(const PinRegistry *r, unsigned n_cpus,
                             PinProfileLookup lookup, PinObjectPath object_path, void *userdata,
                             PinClaim **ret, size_t *ret_n) {
        _cleanup_free_ Entry *entries = NULL;
        _cleanup_free_ PinClaim *claims = NULL;
        size_t n_entries, n = 0;
        int k;

        if (n_cpus == 0 || n_cpus > CPUSET_MAX)
                return -EINVAL;
        k = collect_entries(r, &entries, &n_entries);
        if (k < 0)
                return k;
        claims = calloc(n_entries ? n_entries : 1, sizeof(PinClaim));
        if (!claims)
                return -ENOMEM;
        for (size_t i = 0; i < n_entries; i++) {
                const Entry *x = &entries[i];
                PinClaim *c = &claims[n];

                c->profile = lookup(x->pin ? x->pin->profile : x->hold->profile, userdata);
                if (x->pin)
                        pin_claim(x->pin, object_path, userdata, c);
                else
                        hold_claim(x->hold, n_cpus, c);
                if (claim_applied(c))
                        n++;
        }
        *ret = n > 0 ? TAKE_PTR(claims) : NULL;
        *ret_n = n;
        return 0;
}
