/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The registry of pins and holds: two arrays of owned pointers, each kept
 * sorted by its key (pin id, hold cookie) for lookups by bisection. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pin-registry.h"

/* Owned pointers to structs with a uint32_t key at key_offset, sorted by it. */
typedef struct Slots {
        void **items;
        size_t n, allocated;
        size_t key_offset;
} Slots;

struct PinRegistry {
        Slots pins, holds;
        uint64_t next_id;               /* UINT32_MAX + 1: the ids are used up */
        uint32_t next_cookie;
        uint64_t next_sequence;
};

static const char *const state_names[_PIN_STATE_MAX] = {
        [PIN_STATE_WAITING] = "waiting",
        [PIN_STATE_ACTIVE] = "active",
        [PIN_STATE_ENDED] = "ended",
};

const char *pin_state_to_string(PinState s) {
        if ((unsigned) s >= _PIN_STATE_MAX)
                return NULL;
        return state_names[s];
}

static uint32_t slot_key(const Slots *s, size_t i) {
        return *(const uint32_t *) ((const char *) s->items[i] + s->key_offset);
}

/* Returns the index of the first item whose key is >= key. */
static size_t slots_lower_bound(const Slots *s, uint32_t key) {
        size_t lo = 0, hi = s->n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (slot_key(s, mid) < key)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* Returns true and the index of the item with this key, or false. */
static bool slots_locate(const Slots *s, uint32_t key, size_t *ret) {
        size_t i = slots_lower_bound(s, key);

        *ret = i;
        return i < s->n && slot_key(s, i) == key;
}

/* Returns the item with this key, or NULL. */
static void *slots_find(const Slots *s, uint32_t key) {
        size_t i;

        return slots_locate(s, key, &i) ? s->items[i] : NULL;
}

/* Makes room for extra more items.  Returns 0 or -ENOMEM. */
static int slots_reserve(Slots *s, size_t extra) {
        size_t want;
        void **items;

        if (s->n + extra <= s->allocated)
                return 0;
        want = s->allocated ? s->allocated * 2 : 16;
        if (want < s->n + extra)
                want = s->n + extra;
        items = reallocarray(s->items, want, sizeof(void *));
        if (!items)
                return -ENOMEM;
        s->items = items;
        s->allocated = want;
        return 0;
}

/* Inserts item (its key not present) in order; room was reserved. */
static void slots_insert(Slots *s, void *item) {
        size_t i = slots_lower_bound(s, *(const uint32_t *) ((const char *) item + s->key_offset));

        memmove(s->items + i + 1, s->items + i, (s->n - i) * sizeof(void *));
        s->items[i] = item;
        s->n++;
}

/* Returns the item at i, or NULL past the end. */
static void *slots_at(const Slots *s, size_t i) {
        return i < s->n ? s->items[i] : NULL;
}

/* Removes the item at i from s and returns it. */
static void *slots_take(Slots *s, size_t i) {
        void *item = s->items[i];

        memmove(s->items + i, s->items + i + 1, (s->n - i - 1) * sizeof(void *));
        s->n--;
        return item;
}

static void pin_free(Pin *p) {
        if (p)
                free(p->pids);
        free(p);
}

PinRegistry *pin_registry_new(void) {
        PinRegistry *r = calloc(1, sizeof(PinRegistry));

        if (!r)
                return NULL;
        r->pins.key_offset = offsetof(Pin, id);
        r->holds.key_offset = offsetof(Hold, cookie);
        r->next_id = 1;
        r->next_cookie = 1;
        return r;
}

PinRegistry *pin_registry_free(PinRegistry *r) {
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->pins.n; i++)
                pin_free(r->pins.items[i]);
        for (size_t i = 0; i < r->holds.n; i++)
                free(r->holds.items[i]);
        free(r->pins.items);
        free(r->holds.items);
        free(r);
        return NULL;
}

void pin_registry_freep(PinRegistry **r) {
        pin_registry_free(*r);
}

/* Returns true if s, a char array of size bytes, holds a NUL (and, with
 * nonempty, something before it). */
static bool string_valid(const char *s, size_t size, bool nonempty) {
        const char *nul = memchr(s, '\0', size);

        return nul && (!nonempty || nul != s);
}

static bool pin_spec_valid(const Pin *p) {
        return (unsigned) p->target.kind < _PIN_TARGET_KIND_MAX &&
               (unsigned) p->state < _PIN_STATE_MAX &&
               (p->target.kind != PIN_TARGET_PID || p->target.pid > 0) &&
               string_valid(p->target.value, sizeof(p->target.value), p->target.kind != PIN_TARGET_PID) &&
               string_valid(p->profile, sizeof(p->profile), true) &&
               string_valid(p->reason, sizeof(p->reason), false) &&
               p->n_pids <= PIN_PIDS_MAX && (p->n_pids == 0 || p->pids);
}

/* Returns true if two pins on a and b cannot both be in force: equal
 * targets, and for pids the same pid whatever the start times. */
static bool targets_clash(const PinTarget *a, const PinTarget *b) {
        if (a->kind == PIN_TARGET_PID)
                return b->kind == PIN_TARGET_PID && a->pid == b->pid;
        return pin_target_equal(a, b);
}

/* Returns the pin other than except that has not ended and clashes with
 * target, or NULL. */
static Pin *find_clash(const PinRegistry *r, const PinTarget *target, const Pin *except) {
        for (size_t i = 0; i < r->pins.n; i++) {
                Pin *p = r->pins.items[i];

                if (p != except && p->state != PIN_STATE_ENDED && targets_clash(&p->target, target))
                        return p;
        }
        return NULL;
}

/* Returns a malloc'ed copy of the n pids (NULL for none) in *ret.
 * Returns 0 or -ENOMEM. */
static int pids_copy(const pid_t *pids, size_t n, pid_t **ret) {
        pid_t *copy = NULL;

        if (n > 0) {
                copy = malloc(n * sizeof(pid_t));
                if (!copy)
                        return -ENOMEM;
                memcpy(copy, pids, n * sizeof(pid_t));
        }
        *ret = copy;
        return 0;
}

/* The quota of a table holding n items, users of them not root's and
 * of_uid uid's: the table's, the users' and the uid's limits in turn. */
static PinQuota quota_of(size_t n, size_t users, size_t of_uid, uint32_t uid, size_t table_max, size_t uid_max) {
        if (n >= table_max)
                return PIN_QUOTA_TABLE;
        if (uid == 0)
                return PIN_QUOTA_OK;
        if (of_uid >= uid_max)
                return PIN_QUOTA_UID;
        if (users >= table_max - PIN_REGISTRY_ROOT_RESERVE)
                return PIN_QUOTA_USERS;
        return PIN_QUOTA_OK;
}

PinQuota pin_registry_pin_quota(const PinRegistry *r, uint32_t uid) {
        size_t users = 0, of_uid = 0;

        for (size_t i = 0; i < r->pins.n; i++) {
                const Pin *p = r->pins.items[i];

                users += p->owner_uid != 0;
                of_uid += p->owner_uid == uid;
        }
        return quota_of(r->pins.n, users, of_uid, uid, PIN_REGISTRY_PINS_MAX, PINS_PER_UID_MAX);
}

/* Stores a copy of spec under id (checked by the caller: unused), within
 * the table's limit and, with user_limits, those of its owner. */
static int insert_pin(PinRegistry *r, const Pin *spec, uint32_t id, bool user_limits, Pin **ret) {
        _cleanup_free_ Pin *p = NULL;
        int k;

        if (!pin_spec_valid(spec))
                return -EINVAL;
        if (spec->state != PIN_STATE_ENDED && find_clash(r, &spec->target, NULL))
                return -EEXIST;
        if (user_limits ? pin_registry_pin_quota(r, spec->owner_uid) != PIN_QUOTA_OK :
                          r->pins.n >= PIN_REGISTRY_PINS_MAX)
                return -EDQUOT;
        p = malloc(sizeof(Pin));
        if (!p || slots_reserve(&r->pins, 1) < 0)
                return -ENOMEM;
        *p = *spec;
        k = pids_copy(spec->pids, spec->n_pids, &p->pids);
        if (k < 0)
                return k;
        p->id = id;
        p->sequence = r->next_sequence++;
        if (id >= r->next_id)
                r->next_id = (uint64_t) id + 1;
        slots_insert(&r->pins, p);
        if (ret)
                *ret = p;
        TAKE_PTR(p);
        return 0;
}

int pin_registry_add(PinRegistry *r, const Pin *spec, Pin **ret) {
        if (r->next_id > UINT32_MAX)
                return -ERANGE;
        return insert_pin(r, spec, (uint32_t) r->next_id, true, ret);
}

int pin_registry_add_with_id(PinRegistry *r, const Pin *spec, Pin **ret) {
        if (spec->id == 0)
                return -EINVAL;
        if (slots_find(&r->pins, spec->id))
                return -EEXIST;
        return insert_pin(r, spec, spec->id, false, ret);
}

int pin_registry_set_next_id(PinRegistry *r, uint32_t id) {
        if (id == 0 || id < r->next_id)
                return -EINVAL;
        r->next_id = id;
        return 0;
}

uint32_t pin_registry_get_next_id(const PinRegistry *r) {
        return r->next_id > UINT32_MAX ? 0 : (uint32_t) r->next_id;
}

Pin *pin_registry_find(const PinRegistry *r, uint32_t id) {
        return slots_find(&r->pins, id);
}

Pin *pin_registry_find_target(const PinRegistry *r, const PinTarget *target) {
        return find_clash(r, target, NULL);
}

int pin_registry_remove(PinRegistry *r, uint32_t id) {
        size_t i;

        if (!slots_locate(&r->pins, id, &i))
                return -ENOENT;
        pin_free(slots_take(&r->pins, i));
        return 0;
}

int pin_registry_set_pids(PinRegistry *r, uint32_t id, const pid_t *pids, size_t n) {
        Pin *p = slots_find(&r->pins, id);
        pid_t *copy;
        int k;

        if (!p)
                return -ENOENT;
        if (n > PIN_PIDS_MAX)
                return -E2BIG;
        k = pids_copy(pids, n, &copy);
        if (k < 0)
                return k;
        free(p->pids);
        p->pids = copy;
        p->n_pids = n;
        return 0;
}

int pin_registry_set_state(PinRegistry *r, uint32_t id, PinState state) {
        Pin *p = slots_find(&r->pins, id);

        if (!p)
                return -ENOENT;
        if ((unsigned) state >= _PIN_STATE_MAX)
                return -EINVAL;
        if (p->state == PIN_STATE_ENDED && state != PIN_STATE_ENDED && find_clash(r, &p->target, p))
                return -EEXIST;
        p->state = state;
        return 0;
}

/* Returns 0 if every pin of from can join r: the room, no id r has, no
 * target a pin of r that has not ended has.  Else -EDQUOT or -EEXIST. */
static int check_absorb(const PinRegistry *r, const PinRegistry *from) {
        if (r->pins.n + from->pins.n > PIN_REGISTRY_PINS_MAX)
                return -EDQUOT;
        for (size_t i = 0; i < from->pins.n; i++) {
                const Pin *p = from->pins.items[i];

                if (slots_find(&r->pins, p->id) ||
                    (p->state != PIN_STATE_ENDED && find_clash(r, &p->target, NULL)))
                        return -EEXIST;
        }
        return 0;
}

int pin_registry_absorb(PinRegistry *r, PinRegistry *from) {
        int k = check_absorb(r, from);

        if (k < 0)
                return k;
        if (slots_reserve(&r->pins, from->pins.n) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < from->pins.n; i++) {
                Pin *p = from->pins.items[i];

                p->sequence = r->next_sequence++;
                slots_insert(&r->pins, p);
        }
        from->pins.n = 0;
        if (from->next_id > r->next_id)
                r->next_id = from->next_id;
        return 0;
}

size_t pin_registry_n_pins(const PinRegistry *r) {
        return r->pins.n;
}

Pin *pin_registry_pin_at(const PinRegistry *r, size_t i) {
        return slots_at(&r->pins, i);
}

static bool hold_spec_valid(const Hold *h) {
        return string_valid(h->profile, sizeof(h->profile), true) &&
               string_valid(h->owner, sizeof(h->owner), true) &&
               string_valid(h->reason, sizeof(h->reason), false) &&
               string_valid(h->app_id, sizeof(h->app_id), false);
}

PinQuota pin_registry_hold_quota(const PinRegistry *r, uint32_t uid, const char *owner) {
        size_t users = 0, of_uid = 0, of_owner = 0;

        for (size_t i = 0; i < r->holds.n; i++) {
                const Hold *h = r->holds.items[i];

                users += h->owner_uid != 0;
                of_uid += h->owner_uid == uid;
                of_owner += strcmp(h->owner, owner) == 0;
        }
        if (r->holds.n < PIN_REGISTRY_HOLDS_MAX && of_owner >= HOLDS_PER_OWNER_MAX)
                return PIN_QUOTA_OWNER;
        return quota_of(r->holds.n, users, of_uid, uid, PIN_REGISTRY_HOLDS_MAX, HOLDS_PER_UID_MAX);
}

/* Returns the next cookie not 0 and not in use (there is one: fewer than
 * PIN_REGISTRY_HOLDS_MAX are). */
static uint32_t next_free_cookie(PinRegistry *r) {
        while (r->next_cookie == 0 || slots_find(&r->holds, r->next_cookie))
                r->next_cookie++;
        return r->next_cookie++;
}

int pin_registry_hold_add(PinRegistry *r, const Hold *spec, Hold **ret) {
        Hold *h;

        if (!hold_spec_valid(spec))
                return -EINVAL;
        if (pin_registry_hold_quota(r, spec->owner_uid, spec->owner) != PIN_QUOTA_OK)
                return -EDQUOT;
        h = malloc(sizeof(Hold));
        if (!h || slots_reserve(&r->holds, 1) < 0) {
                free(h);
                return -ENOMEM;
        }
        *h = *spec;
        h->cookie = next_free_cookie(r);
        h->sequence = r->next_sequence++;
        slots_insert(&r->holds, h);
        if (ret)
                *ret = h;
        return 0;
}

Hold *pin_registry_hold_find(const PinRegistry *r, uint32_t cookie) {
        return slots_find(&r->holds, cookie);
}

int pin_registry_hold_remove(PinRegistry *r, uint32_t cookie) {
        size_t i;

        if (!slots_locate(&r->holds, cookie, &i))
                return -ENOENT;
        free(slots_take(&r->holds, i));
        return 0;
}

int pin_registry_release_owner(PinRegistry *r, const char *owner,
                               void (*callback)(const Hold *h, void *userdata), void *userdata) {
        int n = 0;

        for (size_t i = 0; i < r->holds.n;) {
                Hold *h = r->holds.items[i];

                if (strcmp(h->owner, owner) != 0) {
                        i++;
                        continue;
                }
                slots_take(&r->holds, i);
                if (callback)
                        callback(h, userdata);
                free(h);
                n++;
        }
        return n;
}

size_t pin_registry_n_holds(const PinRegistry *r) {
        return r->holds.n;
}

Hold *pin_registry_hold_at(const PinRegistry *r, size_t i) {
        return slots_at(&r->holds, i);
}
