/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pins.json and the rule files: JSON in, checked pins out, and back.  The
 * keys of an entry are described once in entry_keys[], with where they
 * are allowed and required (state file, rule file). */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "pin-persist.h"

/* A CPU list's text: at most 8192 CPUs of "NNNN," each. */
#define CPUS_TEXT_MAX (CPUSET_MAX * 5 + 1)
/* The longest string value read (longer targets and CPU lists are refused
 * by their parsers, with their reasons). */
#define VALUE_TEXT_MAX 65536

enum {
        IN_STATE = 1u << 0,     /* allowed in a state file entry */
        IN_RULE = 1u << 1,      /* allowed in a rule */
        NEEDED_STATE = 1u << 2, /* required in a state file entry */
        NEEDED_RULE = 1u << 3,  /* required in a rule */
};

/* An entry being parsed: start_time is kept apart because the keys come
 * in any order and the target's parse resets it. */
typedef struct Entry {
        Pin pin;
        uint64_t start_time;
        bool has_start_time;
} Entry;

typedef struct EntryKey {
        const char *name;
        int (*parse)(json_t *v, Entry *x, ErrorInfo *why);  /* 0 or -EBADMSG, why set or not */
        unsigned flags;
        const char *requirement;
} EntryKey;

/* Stores an integer within [min, max] in *ret.  Returns 0 or -EBADMSG. */
static int json_to_u64(json_t *v, uint64_t min, uint64_t max, uint64_t *ret) {
        json_int_t t;

        if (!json_is_integer(v))
                return -EBADMSG;
        t = json_integer_value(v);
        if (t < 0 || (uint64_t) t < min || (uint64_t) t > max)
                return -EBADMSG;
        *ret = (uint64_t) t;
        return 0;
}

/* Returns the string value of v if it is a string without NUL bytes,
 * shorter than size bytes; else NULL. */
static const char *json_to_string(json_t *v, size_t size) {
        if (!json_is_string(v) || json_string_length(v) >= size ||
            strlen(json_string_value(v)) != json_string_length(v))
                return NULL;
        return json_string_value(v);
}

/* json_to_u64() into a uint32_t, at least min.  Returns 0 or -EBADMSG. */
static int json_to_u32(json_t *v, uint32_t min, uint32_t *ret) {
        uint64_t u;
        int r = json_to_u64(v, min, UINT32_MAX, &u);

        if (r >= 0)
                *ret = (uint32_t) u;
        return r;
}

static int parse_id(json_t *v, Entry *x, ErrorInfo *why) {
        return json_to_u32(v, 1, &x->pin.id);
}

static int parse_target(json_t *v, Entry *x, ErrorInfo *why) {
        const char *s = json_to_string(v, VALUE_TEXT_MAX);

        return s ? pin_target_parse(s, &x->pin.target, why) : -EBADMSG;
}

static int parse_start_time(json_t *v, Entry *x, ErrorInfo *why) {
        x->has_start_time = true;
        return json_to_u64(v, 0, INT64_MAX, &x->start_time);
}

static int parse_cpus(json_t *v, Entry *x, ErrorInfo *why) {
        const char *s = json_to_string(v, VALUE_TEXT_MAX);
        int r;

        if (!s)
                return -EBADMSG;
        r = cpuset_parse(s, &x->pin.cpus, why);
        if (r < 0)
                return -EBADMSG;
        x->pin.cpus_given = cpuset_next(&x->pin.cpus, 0) >= 0;
        return 0;
}

static int parse_profile(json_t *v, Entry *x, ErrorInfo *why) {
        const char *s = json_to_string(v, sizeof(x->pin.profile));

        if (!s || s[0] == '\0')
                return -EBADMSG;
        strcpy(x->pin.profile, s);
        return 0;
}

static int parse_created(json_t *v, Entry *x, ErrorInfo *why) {
        return json_to_u64(v, 0, INT64_MAX, &x->pin.created_usec);
}

static int parse_reason(json_t *v, Entry *x, ErrorInfo *why) {
        const char *s = json_to_string(v, sizeof(x->pin.reason));

        if (!s)
                return -EBADMSG;
        strcpy(x->pin.reason, s);
        return 0;
}

static int parse_owner_uid(json_t *v, Entry *x, ErrorInfo *why) {
        return json_to_u32(v, 0, &x->pin.owner_uid);
}

static const EntryKey entry_keys[] = {
        { "id", parse_id, IN_STATE | NEEDED_STATE, "must be an integer between 1 and 4294967295" },
        { "target", parse_target, IN_STATE | IN_RULE | NEEDED_STATE | NEEDED_RULE,
          "must be a string \"KIND:VALUE\" (pid, cgroup, unit, exe, comm)" },
        { "start_time", parse_start_time, IN_STATE, "must be a non-negative integer" },
        { "cpus", parse_cpus, IN_STATE | IN_RULE | NEEDED_STATE,
          "must be a CPU list such as \"2-3,6\" (a string; \"\" keeps the workload's CPUs)" },
        { "profile", parse_profile, IN_STATE | IN_RULE | NEEDED_STATE | NEEDED_RULE,
          "must be a profile name (a string of 1 to 95 bytes)" },
        { "created_usec", parse_created, IN_STATE, "must be a non-negative integer" },
        { "reason", parse_reason, IN_STATE | IN_RULE, "must be a string shorter than 128 bytes" },
        { "owner_uid", parse_owner_uid, IN_STATE, "must be an integer between 0 and 4294967295" },
};

static const EntryKey *entry_key_find(const char *name, unsigned in) {
        for (size_t i = 0; i < ELEMENTSOF(entry_keys); i++)
                if (strcmp(entry_keys[i].name, name) == 0 && (entry_keys[i].flags & in))
                        return &entry_keys[i];
        return NULL;
}

/* Applies the keys of obj to x (in: IN_STATE or IN_RULE).  Returns 0 or
 * -EBADMSG with e = "WHERE: key "K": reason". */
static int apply_keys(json_t *obj, unsigned in, const char *where, Entry *x, ErrorInfo *e) {
        const char *key;
        json_t *v;

        json_object_foreach(obj, key, v) {
                const EntryKey *k = entry_key_find(key, in);
                ErrorInfo why = {};

                if (!k)
                        return errinfo_set(e, -EBADMSG, "%s: key \"%s\": unknown key", where, key);
                if (k->parse(v, x, &why) < 0)
                        return errinfo_set(e, -EBADMSG, "%s: key \"%s\": %s", where, key,
                                           why.message[0] ? why.message : k->requirement);
        }
        return 0;
}

/* Parses one entry object (in: IN_STATE or IN_RULE) into *ret.  Returns 0
 * or -EBADMSG with e naming where and the key. */
static int parse_entry(json_t *obj, unsigned in, const char *where, Pin *ret, ErrorInfo *e) {
        unsigned needed = in == IN_STATE ? NEEDED_STATE : NEEDED_RULE;
        Entry x = { .pin.state = PIN_STATE_WAITING, .pin.from_rules_dir = in == IN_RULE };
        int r;

        if (!json_is_object(obj))
                return errinfo_set(e, -EBADMSG, "%s: must be a JSON object", where);
        r = apply_keys(obj, in, where, &x, e);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(entry_keys); i++)
                if ((entry_keys[i].flags & needed) && !json_object_get(obj, entry_keys[i].name))
                        return errinfo_set(e, -EBADMSG, "%s: key \"%s\": missing", where, entry_keys[i].name);
        if (x.has_start_time && x.pin.target.kind != PIN_TARGET_PID)
                return errinfo_set(e, -EBADMSG, "%s: key \"start_time\": only pid targets have one", where);
        if (in == IN_RULE && x.pin.target.kind == PIN_TARGET_PID)
                return errinfo_set(e, -EBADMSG, "%s: key \"target\": a rule cannot name a pid (a pid is one process, pin it over the bus)", where);
        /* 0 is "not known yet", which matches any process of the pid */
        if (in == IN_STATE && x.pin.target.kind == PIN_TARGET_PID && x.start_time == 0)
                return errinfo_set(e, -EBADMSG, "%s: key \"start_time\": %s: a pid pin is taken again only for the "
                                   "process it was made for, never for whatever has its PID now", where,
                                   x.has_start_time ? "must not be 0 (unknown)" : "missing");
        x.pin.target.start_time = x.start_time;
        *ret = x.pin;
        return 0;
}

/* Returns a JSON object for a kept pin p (cpus: a scratch buffer of
 * CPUS_TEXT_MAX bytes), or NULL on -ENOMEM. */
static json_t *pin_to_json(const Pin *p, char *cpus) {
        char target[PIN_TARGET_TEXT_MAX];
        json_auto_t *o = json_object();

        if (!o || pin_target_format(&p->target, target, sizeof(target)) < 0)
                return NULL;
        if (!p->cpus_given)
                cpus[0] = '\0';
        else if (cpuset_format(&p->cpus, cpus, CPUS_TEXT_MAX) < 0)
                return NULL;
        if (json_object_set_new(o, "id", json_integer(p->id)) < 0 ||
            json_object_set_new(o, "target", json_string(target)) < 0 ||
            (p->target.kind == PIN_TARGET_PID &&
             json_object_set_new(o, "start_time", json_integer((json_int_t) p->target.start_time)) < 0) ||
            json_object_set_new(o, "cpus", json_string(cpus)) < 0 ||
            json_object_set_new(o, "profile", json_string(p->profile)) < 0 ||
            json_object_set_new(o, "created_usec", json_integer((json_int_t) p->created_usec)) < 0 ||
            json_object_set_new(o, "reason", json_string(p->reason)) < 0 ||
            json_object_set_new(o, "owner_uid", json_integer(p->owner_uid)) < 0)
                return NULL;
        return json_incref(o);
}

char *pin_persist_to_json(const PinRegistry *r) {
        _cleanup_free_ char *cpus = malloc(CPUS_TEXT_MAX);
        json_auto_t *root = json_object();
        json_t *pins;

        if (!cpus || !root)
                return NULL;
        pins = json_array();
        if (json_object_set_new(root, "version", json_integer(PIN_PERSIST_VERSION)) < 0 ||
            json_object_set_new(root, "next_id", json_integer(pin_registry_get_next_id(r))) < 0 ||
            json_object_set_new(root, "pins", pins) < 0)
                return NULL;
        PIN_REGISTRY_FOREACH_PIN(p, r) {
                if (p->state == PIN_STATE_ENDED || p->from_rules_dir)
                        continue;
                if (json_array_append_new(pins, pin_to_json(p, cpus)) < 0)
                        return NULL;
        }
        return json_dumps(root, JSON_INDENT(2));
}

/* Loads len bytes of JSON at text (fn: the file's name in messages, or
 * NULL).  Returns the root, or NULL with e set (-EBADMSG). */
static json_t *load_json(const char *text, size_t len, const char *fn, ErrorInfo *e) {
        json_error_t err;
        json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);

        if (!root && fn)
                errinfo_set(e, -EBADMSG, "%s:%d:%d: parse error: %s", fn, err.line, err.column, err.text);
        else if (!root)
                errinfo_set(e, -EBADMSG, "line %d, column %d: parse error: %s", err.line, err.column, err.text);
        return root;
}

/* Checks the top-level keys of a state file and returns next_id and the
 * pins array.  Returns 0 or -EBADMSG. */
static int check_header(json_t *root, uint64_t *ret_next_id, json_t **ret_pins, ErrorInfo *e) {
        static const char *const keys[] = { "version", "next_id", "pins" };
        json_t *version = json_object_get(root, "version"), *pins = json_object_get(root, "pins");
        const char *key;
        json_t *v;

        json_object_foreach(root, key, v)
                if (strcmp(key, keys[0]) != 0 && strcmp(key, keys[1]) != 0 && strcmp(key, keys[2]) != 0)
                        return errinfo_set(e, -EBADMSG, "key \"%s\": unknown key", key);
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (!json_object_get(root, keys[i]))
                        return errinfo_set(e, -EBADMSG, "key \"%s\": missing", keys[i]);
        if (!json_is_integer(version) || json_integer_value(version) != PIN_PERSIST_VERSION)
                return errinfo_set(e, -EBADMSG, "key \"version\": must be 1 (the only version this daemon reads)");
        if (json_to_u64(json_object_get(root, "next_id"), 1, UINT32_MAX, ret_next_id) < 0)
                return errinfo_set(e, -EBADMSG, "key \"next_id\": must be an integer between 1 and 4294967295");
        if (!json_is_array(pins) || json_array_size(pins) > PIN_REGISTRY_PINS_MAX)
                return errinfo_set(e, -EBADMSG, "key \"pins\": must be an array of at most 4096 pins");
        *ret_pins = pins;
        return 0;
}

/* Parses pins[i] and adds it to scratch.  Returns 0, -EBADMSG or -ENOMEM. */
static int load_entry(json_t *obj, size_t i, uint64_t next_id, PinRegistry *scratch, ErrorInfo *e) {
        json_t *id = json_object_get(obj, "id");
        char where[64];
        Pin pin;
        int r;

        if (json_is_integer(id))
                snprintf(where, sizeof(where), "pins[%zu] (id %lld)", i, (long long) json_integer_value(id));
        else
                snprintf(where, sizeof(where), "pins[%zu]", i);
        r = parse_entry(obj, IN_STATE, where, &pin, e);
        if (r < 0)
                return r;
        if (pin.id >= next_id)
                return errinfo_set(e, -EBADMSG, "%s: key \"id\": must be below next_id (%llu)", where,
                                   (unsigned long long) next_id);
        if (pin_registry_find(scratch, pin.id))
                return errinfo_set(e, -EBADMSG, "%s: key \"id\": used by an earlier entry", where);
        r = pin_registry_add_with_id(scratch, &pin, NULL);
        if (r == -EEXIST)
                return errinfo_set(e, -EBADMSG, "%s: key \"target\": an earlier entry has the same target", where);
        return r;
}

int pin_persist_load(const char *text, size_t len, PinRegistry *r, ErrorInfo *e) {
        _cleanup_pin_registry_ PinRegistry *scratch = pin_registry_new();
        json_auto_t *root = NULL;
        uint64_t next_id = 0;
        json_t *pins = NULL, *obj;
        size_t i;
        int k;

        if (!scratch)
                return -ENOMEM;
        root = load_json(text, len, NULL, e);
        if (!root)
                return -EBADMSG;
        if (!json_is_object(root))
                return errinfo_set(e, -EBADMSG, "the top level must be a JSON object");
        k = check_header(root, &next_id, &pins, e);
        if (k < 0)
                return k;
        json_array_foreach(pins, i, obj) {
                k = load_entry(obj, i, next_id, scratch, e);
                if (k < 0)
                        return k;
        }
        k = pin_registry_set_next_id(scratch, (uint32_t) next_id);
        if (k >= 0)
                k = pin_registry_absorb(r, scratch);
        if (k == -EEXIST || k == -EDQUOT)
                return errinfo_set(e, k, "the pins do not fit the registry: %s",
                                   k == -EEXIST ? "an id or a target is taken" : "too many pins");
        return k;
}

int pin_rules_parse(const char *text, size_t len, const char *filename, Pin **ret, size_t *ret_n, ErrorInfo *e) {
        const char *fn = filename ? filename : "(rules)";
        json_auto_t *root = load_json(text, len, fn, e);
        _cleanup_free_ Pin *rules = NULL;
        size_t n;
        int r;

        if (!root)
                return -EBADMSG;
        if (json_is_object(root))
                n = 1;
        else if (json_is_array(root))
                n = json_array_size(root);
        else
                return errinfo_set(e, -EBADMSG, "%s: the top level must be a rule (an object) or an array of rules", fn);
        if (n > PIN_RULES_PER_FILE_MAX)
                return errinfo_set(e, -EBADMSG, "%s: more than %d rules", fn, PIN_RULES_PER_FILE_MAX);
        rules = calloc(n ? n : 1, sizeof(Pin));
        if (!rules)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                char where[512];

                if (json_is_object(root))
                        snprintf(where, sizeof(where), "%s", fn);
                else
                        snprintf(where, sizeof(where), "%.400s: rules[%zu]", fn, i);
                r = parse_entry(json_is_object(root) ? root : json_array_get(root, i), IN_RULE, where, &rules[i], e);
                if (r < 0)
                        return r;
        }
        *ret = n > 0 ? TAKE_PTR(rules) : NULL;
        *ret_n = n;
        return 0;
}
