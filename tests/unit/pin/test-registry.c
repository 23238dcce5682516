/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "pin-registry.h"
#include "unit.h"

static Pin pin_spec(const char *target, const char *profile) {
        Pin p = { .state = PIN_STATE_ACTIVE, .created_usec = 1000 };
        ErrorInfo e = {};

        ck_assert_msg(pin_target_parse(target, &p.target, &e) == 0, "%s", e.message);
        snprintf(p.profile, sizeof(p.profile), "%s", profile);
        return p;
}

static Hold hold_spec(const char *owner, const char *profile) {
        Hold h = {};

        snprintf(h.owner, sizeof(h.owner), "%s", owner);
        snprintf(h.profile, sizeof(h.profile), "%s", profile);
        return h;
}

/* Adds a pin on target and returns its id. */
static uint32_t add_ok(PinRegistry *r, const char *target) {
        Pin spec = pin_spec(target, "latency"), *p = NULL;

        ck_assert_int_eq(pin_registry_add(r, &spec, &p), 0);
        ck_assert_ptr_nonnull(p);
        return p->id;
}

/* Asserts that the pins of r have exactly these ids, in order. */
static void ids_are(const PinRegistry *r, const uint32_t *ids, size_t n) {
        size_t i = 0;

        ck_assert_uint_eq(pin_registry_n_pins(r), n);
        PIN_REGISTRY_FOREACH_PIN(p, r)
                ck_assert_uint_eq(p->id, ids[i++]);
        ck_assert_ptr_null(pin_registry_pin_at(r, n));
}

START_TEST(test_ids) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new();

        ck_assert_ptr_nonnull(r);
        ck_assert_uint_eq(pin_registry_get_next_id(r), 1);
        ck_assert_uint_eq(add_ok(r, "pid:10"), 1);
        ck_assert_uint_eq(add_ok(r, "pid:11"), 2);
        ck_assert_uint_eq(add_ok(r, "pid:12"), 3);
        ck_assert_int_eq(pin_registry_remove(r, 2), 0);
        ck_assert_int_eq(pin_registry_remove(r, 2), -ENOENT);
        ck_assert_ptr_null(pin_registry_find(r, 2));
        ck_assert_uint_eq(add_ok(r, "pid:11"), 4);      /* ids are never reused */
        ck_assert_int_eq(pin_registry_remove(r, 4), 0);  /* not even the last one */
        ck_assert_uint_eq(add_ok(r, "pid:13"), 5);
        ids_are(r, (const uint32_t[]) { 1, 3, 5 }, 3);
        ck_assert_uint_eq(pin_registry_find(r, 3)->target.pid, 12);

        /* carried over a restart */
        ck_assert_int_eq(pin_registry_set_next_id(r, 100), 0);
        ck_assert_int_eq(pin_registry_set_next_id(r, 100), 0);
        ck_assert_int_eq(pin_registry_set_next_id(r, 99), -EINVAL);
        ck_assert_int_eq(pin_registry_set_next_id(r, 0), -EINVAL);
        ck_assert_uint_eq(add_ok(r, "pid:14"), 100);
        ck_assert_int_eq(pin_registry_set_next_id(r, 100), -EINVAL);
        ck_assert_uint_eq(pin_registry_get_next_id(r), 101);

        /* used up */
        ck_assert_int_eq(pin_registry_set_next_id(r, UINT32_MAX), 0);
        ck_assert_uint_eq(add_ok(r, "pid:15"), UINT32_MAX);
        ck_assert_uint_eq(pin_registry_get_next_id(r), 0);
        Pin spec = pin_spec("pid:16", "x");
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -ERANGE);
        ck_assert_uint_eq(pin_registry_n_pins(r), 5);
        ck_assert_ptr_null(pin_registry_free(NULL));
}
END_TEST

START_TEST(test_add_with_id) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new();
        Pin spec = pin_spec("comm:a", "latency"), *p;

        spec.id = 10;
        ck_assert_int_eq(pin_registry_add_with_id(r, &spec, &p), 0);
        ck_assert_uint_eq(p->id, 10);
        ck_assert_uint_eq(pin_registry_get_next_id(r), 11);
        spec = pin_spec("comm:b", "latency");
        spec.id = 5;
        ck_assert_int_eq(pin_registry_add_with_id(r, &spec, NULL), 0);
        ck_assert_uint_eq(pin_registry_get_next_id(r), 11);
        spec = pin_spec("comm:c", "latency");
        spec.id = 10;
        ck_assert_int_eq(pin_registry_add_with_id(r, &spec, NULL), -EEXIST);
        spec.id = 0;
        ck_assert_int_eq(pin_registry_add_with_id(r, &spec, NULL), -EINVAL);
        spec.id = 7;
        ck_assert_int_eq(pin_registry_add_with_id(r, &spec, NULL), 0);
        ck_assert_uint_eq(add_ok(r, "comm:d"), 11);
        ids_are(r, (const uint32_t[]) { 5, 7, 10, 11 }, 4);
}
END_TEST

START_TEST(test_copies) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new();
        pid_t pids[] = { 100, 101, 102 }, more[] = { 7 };
        Pin spec = pin_spec("exe:/usr/bin/ffmpeg", "performance"), *p, *q;

        spec.id = 77;
        spec.pids = pids;
        spec.n_pids = 3;
        cpuset_add(&spec.cpus, 3);
        spec.cpus_given = true;
        snprintf(spec.reason, sizeof(spec.reason), "transcoding");
        ck_assert_int_eq(pin_registry_add(r, &spec, &p), 0);
        ck_assert_uint_eq(p->id, 1);
        ck_assert_ptr_ne(p->pids, pids);
        pids[0] = 999;
        ck_assert_int_eq(p->pids[0], 100);
        ck_assert_uint_eq(p->n_pids, 3);
        ck_assert(cpuset_contains(&p->cpus, 3));
        ck_assert_str_eq(p->reason, "transcoding");
        ck_assert_str_eq(p->profile, "performance");
        ck_assert_uint_eq(p->created_usec, 1000);

        ck_assert_int_eq(pin_registry_set_pids(r, p->id, more, 1), 0);
        ck_assert_uint_eq(p->n_pids, 1);
        ck_assert_int_eq(p->pids[0], 7);
        ck_assert_int_eq(pin_registry_set_pids(r, p->id, NULL, 0), 0);
        ck_assert_uint_eq(p->n_pids, 0);
        ck_assert_ptr_null(p->pids);
        ck_assert_int_eq(pin_registry_set_pids(r, 42, more, 1), -ENOENT);
        ck_assert_int_eq(pin_registry_set_pids(r, p->id, more, (size_t) PIN_PIDS_MAX + 1), -E2BIG);

        ck_assert_int_eq(pin_registry_set_state(r, p->id, PIN_STATE_WAITING), 0);
        ck_assert_int_eq(p->state, PIN_STATE_WAITING);
        ck_assert_int_eq(pin_registry_set_state(r, p->id, _PIN_STATE_MAX), -EINVAL);
        ck_assert_int_eq(pin_registry_set_state(r, 42, PIN_STATE_ACTIVE), -ENOENT);

        /* creation order across pins and holds */
        Hold h = hold_spec(":1.5", "latency"), *hp;
        ck_assert_int_eq(pin_registry_hold_add(r, &h, &hp), 0);
        spec.pids = NULL;
        spec.n_pids = 0;
        spec.target.value[1] = 'x';
        ck_assert_int_eq(pin_registry_add(r, &spec, &q), 0);
        ck_assert_uint_lt(p->sequence, hp->sequence);
        ck_assert_uint_lt(hp->sequence, q->sequence);

        ck_assert_str_eq(pin_state_to_string(PIN_STATE_WAITING), "waiting");
        ck_assert_str_eq(pin_state_to_string(PIN_STATE_ACTIVE), "active");
        ck_assert_str_eq(pin_state_to_string(PIN_STATE_ENDED), "ended");
        ck_assert_ptr_null(pin_state_to_string(_PIN_STATE_MAX));
}
END_TEST

START_TEST(test_duplicates) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new();
        Pin spec = pin_spec("cgroup:/a/b", "latency"), *p;
        uint32_t id;

        ck_assert_int_eq(pin_registry_add(r, &spec, &p), 0);
        id = p->id;
        spec = pin_spec("cgroup:a//b/", "performance");
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EEXIST);
        ck_assert_ptr_eq(pin_registry_find_target(r, &spec.target), p);
        spec = pin_spec("exe:/a/b", "latency");         /* the same text, another kind */
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);

        /* pids: the same pid whatever the start times */
        spec = pin_spec("pid:50", "latency");
        spec.target.start_time = 1;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);
        spec.target.start_time = 2;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EEXIST);
        ck_assert_ptr_nonnull(pin_registry_find_target(r, &spec.target));

        /* an ended pin does not hold its target */
        ck_assert_int_eq(pin_registry_set_state(r, id, PIN_STATE_ENDED), 0);
        spec = pin_spec("cgroup:a/b", "performance");
        ck_assert_ptr_null(pin_registry_find_target(r, &spec.target));
        ck_assert_int_eq(pin_registry_add(r, &spec, &p), 0);
        ck_assert_ptr_eq(pin_registry_find_target(r, &spec.target), p);
        /* ... and cannot come back while another pin has it */
        ck_assert_int_eq(pin_registry_set_state(r, id, PIN_STATE_ACTIVE), -EEXIST);
        ck_assert_int_eq(pin_registry_find(r, id)->state, PIN_STATE_ENDED);
        ck_assert_int_eq(pin_registry_set_state(r, id, PIN_STATE_ENDED), 0);
        /* an ended spec clashes with nothing */
        spec.state = PIN_STATE_ENDED;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);
        ck_assert_uint_eq(pin_registry_n_pins(r), 5);
        ck_assert_int_eq(pin_registry_remove(r, p->id), 0);
        ck_assert_int_eq(pin_registry_set_state(r, id, PIN_STATE_ACTIVE), 0);
}
END_TEST

START_TEST(test_invalid) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new();
        Pin spec;
        Hold h;

        spec = pin_spec("comm:a", "");
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EINVAL);
        spec = pin_spec("comm:a", "x");
        memset(spec.profile, 'x', sizeof(spec.profile));
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EINVAL);
        spec = pin_spec("comm:a", "x");
        memset(spec.reason, 'x', sizeof(spec.reason));
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EINVAL);
        spec = pin_spec("comm:a", "x");
        spec.target.kind = _PIN_TARGET_KIND_MAX;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EINVAL);
        spec = pin_spec("comm:a", "x");
        spec.target.value[0] = '\0';
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EINVAL);
        spec = pin_spec("pid:1", "x");
        spec.target.pid = 0;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EINVAL);
        spec = pin_spec("comm:a", "x");
        spec.state = _PIN_STATE_MAX;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EINVAL);
        spec = pin_spec("comm:a", "x");
        spec.n_pids = 2;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EINVAL);
        ck_assert_uint_eq(pin_registry_n_pins(r), 0);
        ck_assert_uint_eq(pin_registry_get_next_id(r), 1);

        h = hold_spec("", "x");
        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), -EINVAL);
        h = hold_spec(":1.1", "");
        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), -EINVAL);
        h = hold_spec(":1.1", "x");
        memset(h.app_id, 'a', sizeof(h.app_id));
        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), -EINVAL);
        ck_assert_uint_eq(pin_registry_n_holds(r), 0);
}
END_TEST

START_TEST(test_pin_limit) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new();
        char target[32];
        Pin spec;

        for (unsigned i = 1; i <= PIN_REGISTRY_PINS_MAX; i++) {
                snprintf(target, sizeof(target), "pid:%u", i);
                spec = pin_spec(target, "latency");
                ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);
        }
        ck_assert_uint_eq(pin_registry_n_pins(r), 4096);
        spec = pin_spec("pid:5000", "latency");
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EDQUOT);
        spec.id = 5000;
        ck_assert_int_eq(pin_registry_add_with_id(r, &spec, NULL), -EDQUOT);
        /* ended pins count too */
        ck_assert_int_eq(pin_registry_set_state(r, 1, PIN_STATE_ENDED), 0);
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EDQUOT);
        ck_assert_uint_eq(pin_registry_get_next_id(r), 4097);
        ck_assert_int_eq(pin_registry_remove(r, 1), 0);
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);
        ck_assert_uint_eq(pin_registry_pin_at(r, 4095)->id, 4097);
        ck_assert_uint_eq(pin_registry_find(r, 2048)->target.pid, 2048);
}
END_TEST

/* Adds pins of uid on pid:first.. until n are added.  Returns the next pid. */
static unsigned add_pins_of(PinRegistry *r, uint32_t uid, unsigned first, unsigned n) {
        char target[32];

        for (unsigned i = 0; i < n; i++) {
                Pin spec;

                snprintf(target, sizeof(target), "pid:%u", first + i);
                spec = pin_spec(target, "latency");
                spec.owner_uid = uid;
                ck_assert_int_eq(pin_registry_add(r, &spec, NULL), 0);
        }
        return first + n;
}

START_TEST(test_pin_user_limits) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new();
        unsigned next = 1, users = PIN_REGISTRY_PINS_MAX - PIN_REGISTRY_ROOT_RESERVE;
        Pin spec = pin_spec("pid:100000", "latency");

        /* 64 for a user other than root, whatever the others hold */
        next = add_pins_of(r, 65534, next, PINS_PER_UID_MAX);
        ck_assert_int_eq(pin_registry_pin_quota(r, 65534), PIN_QUOTA_UID);
        spec.owner_uid = 65534;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EDQUOT);
        /* a duplicate is still a duplicate */
        spec = pin_spec("pid:1", "latency");
        spec.owner_uid = 65534;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EEXIST);
        ck_assert_int_eq(pin_registry_pin_quota(r, 1000), PIN_QUOTA_OK);
        ck_assert_int_eq(pin_registry_pin_quota(r, 0), PIN_QUOTA_OK);
        /* ended pins count, removed ones do not */
        ck_assert_int_eq(pin_registry_set_state(r, 1, PIN_STATE_ENDED), 0);
        ck_assert_int_eq(pin_registry_pin_quota(r, 65534), PIN_QUOTA_UID);
        ck_assert_int_eq(pin_registry_remove(r, 1), 0);
        ck_assert_int_eq(pin_registry_pin_quota(r, 65534), PIN_QUOTA_OK);
        next = add_pins_of(r, 65534, next, 1);

        /* users other than root together: 3072; then only root */
        for (uint32_t uid = 1000; users - pin_registry_n_pins(r) >= PINS_PER_UID_MAX; uid++)
                next = add_pins_of(r, uid, next, PINS_PER_UID_MAX);
        ck_assert_uint_eq(pin_registry_n_pins(r), users);
        ck_assert_int_eq(pin_registry_pin_quota(r, 4242), PIN_QUOTA_USERS);
        ck_assert_int_eq(pin_registry_pin_quota(r, 65534), PIN_QUOTA_UID);
        spec = pin_spec("pid:100000", "latency");
        spec.owner_uid = 4242;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EDQUOT);
        next = add_pins_of(r, 0, next, PIN_REGISTRY_ROOT_RESERVE);
        ck_assert_int_eq(pin_registry_pin_quota(r, 0), PIN_QUOTA_TABLE);
        spec.owner_uid = 0;
        ck_assert_int_eq(pin_registry_add(r, &spec, NULL), -EDQUOT);
        ck_assert_uint_eq(next, PIN_REGISTRY_PINS_MAX + 2);
        /* pins taken back from a file only meet the table's limit */
        ck_assert_int_eq(pin_registry_remove(r, 2), 0);
        spec = pin_spec("pid:100001", "latency");
        spec.id = 9999;
        spec.owner_uid = 65534;
        ck_assert_int_eq(pin_registry_add_with_id(r, &spec, NULL), 0);
}
END_TEST

START_TEST(test_hold_user_limits) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new();
        char owner[32];
        Hold h;

        /* 64 per user over all of its connections */
        for (unsigned i = 0; i < HOLDS_PER_UID_MAX; i++) {
                snprintf(owner, sizeof(owner), ":1.%u", i);
                h = hold_spec(owner, "latency");
                h.owner_uid = 65534;
                ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), 0);
        }
        h = hold_spec(":1.999", "latency");
        h.owner_uid = 65534;
        ck_assert_int_eq(pin_registry_hold_quota(r, 65534, ":1.999"), PIN_QUOTA_UID);
        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), -EDQUOT);
        h.owner_uid = 1000;
        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), 0);
        /* root: 64 per connection, any number of connections */
        h = hold_spec(":0.1", "latency");
        ck_assert_int_eq(pin_registry_hold_quota(r, 0, ":0.1"), PIN_QUOTA_OK);
        for (unsigned i = 0; i < HOLDS_PER_OWNER_MAX; i++)
                ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), 0);
        ck_assert_int_eq(pin_registry_hold_quota(r, 0, ":0.1"), PIN_QUOTA_OWNER);
        ck_assert_int_eq(pin_registry_hold_quota(r, 0, ":0.2"), PIN_QUOTA_OK);
        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), -EDQUOT);

        /* users other than root together: 3072; then only root */
        for (uint32_t uid = 2000, users = HOLDS_PER_UID_MAX + 1; users < PIN_REGISTRY_HOLDS_MAX - PIN_REGISTRY_ROOT_RESERVE; uid++) {
                snprintf(owner, sizeof(owner), ":2.%u", uid);
                h = hold_spec(owner, "latency");
                h.owner_uid = uid;
                for (unsigned i = 0; i < HOLDS_PER_UID_MAX && users < PIN_REGISTRY_HOLDS_MAX - PIN_REGISTRY_ROOT_RESERVE; i++, users++)
                        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), 0);
        }
        ck_assert_uint_eq(pin_registry_n_holds(r), PIN_REGISTRY_HOLDS_MAX - PIN_REGISTRY_ROOT_RESERVE + HOLDS_PER_OWNER_MAX);
        ck_assert_int_eq(pin_registry_hold_quota(r, 4242, ":3.1"), PIN_QUOTA_USERS);
        h = hold_spec(":3.1", "latency");
        h.owner_uid = 4242;
        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), -EDQUOT);
        for (unsigned o = 0; pin_registry_n_holds(r) < PIN_REGISTRY_HOLDS_MAX; o++) {
                snprintf(owner, sizeof(owner), ":4.%u", o);
                h = hold_spec(owner, "latency");
                for (unsigned i = 0; i < HOLDS_PER_OWNER_MAX && pin_registry_n_holds(r) < PIN_REGISTRY_HOLDS_MAX; i++)
                        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), 0);
        }
        ck_assert_int_eq(pin_registry_hold_quota(r, 0, ":5.1"), PIN_QUOTA_TABLE);
        ck_assert_int_eq(pin_registry_hold_quota(r, 4242, ":5.1"), PIN_QUOTA_TABLE);
}
END_TEST

START_TEST(test_holds) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new();
        Hold h = hold_spec(":1.5", "latency"), *a, *b;

        h.cookie = 99;
        snprintf(h.app_id, sizeof(h.app_id), "org.gnome.Foo");
        ck_assert_int_eq(pin_registry_hold_add(r, &h, &a), 0);
        ck_assert_uint_eq(a->cookie, 1);
        ck_assert_str_eq(a->app_id, "org.gnome.Foo");
        ck_assert_int_eq(pin_registry_hold_add(r, &h, &b), 0);
        ck_assert_uint_eq(b->cookie, 2);
        ck_assert_ptr_eq(pin_registry_hold_find(r, 2), b);
        ck_assert_ptr_null(pin_registry_hold_find(r, 0));
        ck_assert_int_eq(pin_registry_hold_remove(r, 1), 0);
        ck_assert_int_eq(pin_registry_hold_remove(r, 1), -ENOENT);
        ck_assert_int_eq(pin_registry_hold_remove(r, 0), -ENOENT);
        ck_assert_int_eq(pin_registry_hold_add(r, &h, &a), 0);
        ck_assert_uint_eq(a->cookie, 3);
        ck_assert_uint_eq(pin_registry_n_holds(r), 2);
        ck_assert_uint_eq(pin_registry_hold_at(r, 0)->cookie, 2);
        ck_assert_uint_eq(pin_registry_hold_at(r, 1)->cookie, 3);
        ck_assert_ptr_null(pin_registry_hold_at(r, 2));
}
END_TEST

typedef struct Released {
        uint32_t cookies[128];
        size_t n;
        PinRegistry *r;
} Released;

static void on_release(const Hold *h, void *userdata) {
        Released *x = userdata;

        /* the hold is out of the registry already */
        ck_assert_ptr_null(pin_registry_hold_find(x->r, h->cookie));
        x->cookies[x->n++] = h->cookie;
}

START_TEST(test_hold_limits_and_release) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new();
        Released released = { .r = r };
        char owner[32];
        Hold h;

        /* 64 per owner */
        h = hold_spec(":1.7", "performance");
        for (unsigned i = 0; i < HOLDS_PER_OWNER_MAX; i++)
                ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), 0);
        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), -EDQUOT);
        h = hold_spec(":1.8", "performance");
        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), 0);
        ck_assert_uint_eq(pin_registry_n_holds(r), 65);

        /* releasing an owner removes all of its holds, in cookie order */
        ck_assert_int_eq(pin_registry_release_owner(r, ":1.7", on_release, &released), 64);
        ck_assert_uint_eq(released.n, 64);
        for (size_t i = 0; i < released.n; i++)
                ck_assert_uint_eq(released.cookies[i], i + 1);
        ck_assert_uint_eq(pin_registry_n_holds(r), 1);
        ck_assert_str_eq(pin_registry_hold_at(r, 0)->owner, ":1.8");
        ck_assert_int_eq(pin_registry_release_owner(r, ":1.7", on_release, &released), 0);
        ck_assert_int_eq(pin_registry_release_owner(r, ":1.8", NULL, NULL), 1);
        ck_assert_uint_eq(pin_registry_n_holds(r), 0);

        /* 4096 in all: 64 owners of 64 holds */
        for (unsigned o = 0; o < 64; o++) {
                snprintf(owner, sizeof(owner), ":1.%u", 100 + o);
                h = hold_spec(owner, "latency");
                for (unsigned i = 0; i < HOLDS_PER_OWNER_MAX; i++)
                        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), 0);
        }
        ck_assert_uint_eq(pin_registry_n_holds(r), PIN_REGISTRY_HOLDS_MAX);
        h = hold_spec(":1.999", "latency");
        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), -EDQUOT);
        /* cookies stay unique and never 0 */
        for (size_t i = 1; i < pin_registry_n_holds(r); i++)
                ck_assert_uint_lt(pin_registry_hold_at(r, i - 1)->cookie, pin_registry_hold_at(r, i)->cookie);
        ck_assert_uint_ne(pin_registry_hold_at(r, 0)->cookie, 0);
        ck_assert_int_eq(pin_registry_release_owner(r, ":1.150", NULL, NULL), 64);
        ck_assert_int_eq(pin_registry_hold_add(r, &h, NULL), 0);
}
END_TEST

START_TEST(test_absorb) {
        _cleanup_pin_registry_ PinRegistry *r = pin_registry_new(), *from = pin_registry_new();
        Pin spec;

        ck_assert_uint_eq(add_ok(r, "comm:a"), 1);
        spec = pin_spec("comm:b", "latency");
        spec.id = 5;
        ck_assert_int_eq(pin_registry_add_with_id(from, &spec, NULL), 0);
        spec = pin_spec("comm:a", "latency");
        spec.id = 3;
        ck_assert_int_eq(pin_registry_add_with_id(from, &spec, NULL), 0);
        ck_assert_int_eq(pin_registry_set_next_id(from, 9), 0);

        /* comm:a is taken in r: nothing moves */
        ck_assert_int_eq(pin_registry_absorb(r, from), -EEXIST);
        ck_assert_uint_eq(pin_registry_n_pins(r), 1);
        ck_assert_uint_eq(pin_registry_n_pins(from), 2);
        ck_assert_uint_eq(pin_registry_get_next_id(r), 2);
        /* the same id */
        ck_assert_int_eq(pin_registry_remove(from, 3), 0);
        spec = pin_spec("comm:c", "latency");
        spec.id = 1;
        ck_assert_int_eq(pin_registry_add_with_id(from, &spec, NULL), 0);
        ck_assert_int_eq(pin_registry_absorb(r, from), -EEXIST);
        ck_assert_int_eq(pin_registry_remove(from, 1), 0);

        ck_assert_int_eq(pin_registry_absorb(r, from), 0);
        ck_assert_uint_eq(pin_registry_n_pins(from), 0);
        ids_are(r, (const uint32_t[]) { 1, 5 }, 2);
        ck_assert_str_eq(pin_registry_find(r, 5)->target.value, "b");
        ck_assert_uint_eq(pin_registry_get_next_id(r), 9);
}
END_TEST

int main(void) {
        Suite *s = suite_create("pin-registry");
        TCase *pins = unit_tcase(s, "pins");
        TCase *holds = unit_tcase(s, "holds");

        tcase_set_timeout(pins, 60);
        tcase_add_test(pins, test_ids);
        tcase_add_test(pins, test_add_with_id);
        tcase_add_test(pins, test_copies);
        tcase_add_test(pins, test_duplicates);
        tcase_add_test(pins, test_invalid);
        tcase_add_test(pins, test_pin_limit);
        tcase_add_test(pins, test_pin_user_limits);
        tcase_add_test(pins, test_absorb);
        tcase_add_test(holds, test_holds);
        tcase_add_test(holds, test_hold_limits_and_release);
        tcase_add_test(holds, test_hold_user_limits);
        return unit_run(s);
}
