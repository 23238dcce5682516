/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Profiles: JSON text in, a checked Profile out, and back.  Every key is
 * described once in profile_keys[]: its type, range and how the file's
 * units (percentages, ratios) map to the stored fixed point. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "profile.h"
#include "profile-wteo.h"

#define PCT_TO_Q10(p) ((unsigned) (((p) * 1024u + 50u) / 100u))   /* rounded, as the parser does */

typedef enum KeyKind {
        KEY_NAME,
        KEY_TEXT,
        KEY_INTEGER,      /* stored as is */
        KEY_PERCENT,      /* 0..100 in the file, Q10 stored */
        KEY_RATIO,        /* a real number in the file, Q10 stored */
        KEY_GOVERNOR,
        KEY_WTEO,         /* the object of profile-wteo.c */
} KeyKind;

typedef struct ProfileKey {
        const char *name;
        KeyKind kind;
        size_t offset;
        double min, max;          /* in the file's units */
        bool is_u32;              /* stored in a uint32_t (else unsigned) */
        const char *requirement;
} ProfileKey;

#define KEY(n, k, f, lo, hi, req) { n, k, offsetof(Profile, f), lo, hi, false, req }

static const ProfileKey profile_keys[] = {
        KEY("name", KEY_NAME, name, 0, 0,
            "must be a string of 1-63 letters, digits, '.', '_' or '-', not starting with '.'"),
        KEY("description", KEY_TEXT, description, 0, 0, "must be a string shorter than 128 bytes"),
        { "latency_limit_us", KEY_INTEGER, offsetof(Profile, latency_limit_us), 0, 10000000, true,
          "must be an integer between 0 (no limit) and 10000000" },
        KEY("too_deep_tolerance", KEY_PERCENT, too_deep_tolerance, 0, 100, "must be a number between 0 and 100 (%)"),
        KEY("too_shallow_tolerance", KEY_PERCENT, too_shallow_tolerance, 0, 100, "must be a number between 0 and 100 (%)"),
        KEY("burn_price", KEY_RATIO, burn_price, 0, 1000,
            "must be a number between 0 and 1000 (µs of latency a burned CPU-µs is worth)"),
        KEY("poll_search", KEY_RATIO, poll_search, 0, 1,
            "must be a number between 0 (off) and 1 (the CPU weight of the poll frontier search)"),
        KEY("util_threshold", KEY_PERCENT, util_threshold, 0, 100, "must be a number between 0 and 100 (%, 100 = off)"),
        KEY("util_hysteresis", KEY_PERCENT, util_hysteresis, 0, 100, "must be a number between 0 and 100 (%)"),
        KEY("learn_shift", KEY_INTEGER, learn_shift, 1, 15, "must be an integer between 1 and 15"),
        KEY("age_shift", KEY_INTEGER, age_shift, 1, 15, "must be an integer between 1 and 15"),
        KEY("explore_shift", KEY_INTEGER, explore_shift, 0, 15, "must be an integer between 0 (never) and 15"),
        KEY("hold_ticks", KEY_INTEGER, hold_ticks, 0, 3600, "must be an integer between 0 and 3600"),
        KEY("governor", KEY_GOVERNOR, governor, 0, 0,
            "must be \"keep\", \"auto\", \"menu\", \"teo\", \"ladder\", \"haltpoll\" or \"wteo\""),
        KEY("wteo", KEY_WTEO, wteo, 0, 0, NULL),
        KEY("consolidation", KEY_INTEGER, consolidation, 0, 2,
            "must be 0 (off), 1 or 2 (the consolidation level while the profile is active)"),
};

static const char *const governor_names[] = { "menu", "teo", "ladder", "haltpoll", "wteo" };

void profile_init(Profile *p, const char *name) {
        *p = (Profile) {
                .latency_limit_us = 0,
                .too_deep_tolerance = PCT_TO_Q10(30),
                .too_shallow_tolerance = PCT_TO_Q10(25),
                .burn_price = 128,
                .poll_search = 1024,
                .util_threshold = 1024,
                .util_hysteresis = PCT_TO_Q10(10),
                .learn_shift = 6,
                .age_shift = 3,
                .explore_shift = 3,
                .hold_ticks = 2,
                .governor = PROFILE_GOVERNOR_AUTO,
        };
        profile_wteo_init(&p->wteo);
        snprintf(p->name, sizeof(p->name), "%s", name ? name : "");
        snprintf(p->description, sizeof(p->description), "%s", "");
}

static bool name_valid(const char *s, size_t len) {
        if (len == 0 || len >= PROFILE_BASE_NAME_MAX || s[0] == '.' || strlen(s) != len)
                return false;
        for (size_t i = 0; i < len; i++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", s[i]))
                        return false;
        return true;
}

static int parse_governor(const char *s, Profile *p) {
        if (strcmp(s, "keep") == 0 || strcmp(s, "auto") == 0) {
                p->governor = s[0] == 'k' ? PROFILE_GOVERNOR_KEEP : PROFILE_GOVERNOR_AUTO;
                p->governor_name[0] = '\0';
                return 0;
        }
        for (size_t i = 0; i < sizeof(governor_names) / sizeof(governor_names[0]); i++)
                if (strcmp(s, governor_names[i]) == 0) {
                        p->governor = PROFILE_GOVERNOR_NAMED;
                        snprintf(p->governor_name, sizeof(p->governor_name), "%s", s);
                        return 0;
                }
        return -EINVAL;
}

static int parse_string_key(const ProfileKey *k, json_t *v, Profile *p) {
        const char *s = json_string_value(v);
        size_t len = json_string_length(v);
        char *field = (char *) p + k->offset;

        if (k->kind == KEY_GOVERNOR)
                return strlen(s) == len ? parse_governor(s, p) : -EINVAL;
        if (k->kind == KEY_NAME && !name_valid(s, len))
                return -EINVAL;
        if (len >= (k->kind == KEY_NAME ? sizeof(p->name) : sizeof(p->description)) || strlen(s) != len)
                return -EINVAL;
        memcpy(field, s, len + 1);
        return 0;
}

static int parse_number_key(const ProfileKey *k, json_t *v, Profile *p) {
        double x;
        uint64_t stored;

        if (k->kind == KEY_INTEGER && !json_is_integer(v))
                return -EINVAL;
        x = json_number_value(v);
        if (!isfinite(x) || x < k->min || x > k->max)
                return -EINVAL;
        if (k->kind == KEY_INTEGER)
                stored = (uint64_t) json_integer_value(v);
        else
                stored = (uint64_t) ((k->kind == KEY_PERCENT ? x * 1024.0 / 100.0 : x * 1024.0) + 0.5);
        if (k->is_u32)
                *(uint32_t *) ((char *) p + k->offset) = (uint32_t) stored;
        else
                *(unsigned *) ((char *) p + k->offset) = (unsigned) stored;
        return 0;
}

static int parse_key(const ProfileKey *k, json_t *v, Profile *p) {
        switch (k->kind) {
        case KEY_NAME:
        case KEY_TEXT:
        case KEY_GOVERNOR:
                return json_is_string(v) ? parse_string_key(k, v, p) : -EINVAL;
        default:
                return json_is_number(v) ? parse_number_key(k, v, p) : -EINVAL;
        }
}

static const ProfileKey *key_find(const char *name) {
        for (size_t i = 0; i < sizeof(profile_keys) / sizeof(profile_keys[0]); i++)
                if (strcmp(profile_keys[i].name, name) == 0)
                        return &profile_keys[i];
        return NULL;
}

/* Sets p->name from the file name: its last component without ".json".
 * Returns 0 or -EINVAL. */
static int name_from_filename(const char *filename, Profile *p) {
        const char *base = filename ? strrchr(filename, '/') : NULL;
        size_t len;

        base = base ? base + 1 : filename;
        if (!base)
                return -EINVAL;
        len = strlen(base);
        if (len <= 5 || strcmp(base + len - 5, ".json") != 0)
                return -EINVAL;
        len -= 5;
        if (len >= PROFILE_BASE_NAME_MAX)
                return -EINVAL;
        memcpy(p->name, base, len);
        p->name[len] = '\0';
        return name_valid(p->name, len) ? 0 : -EINVAL;
}

/* Applies every key of root to p; fn names the file in messages, filename
 * (may be NULL) gives the default name. */
static int apply_object(json_t *root, const char *fn, const char *filename, Profile *p, ErrorInfo *e) {
        const char *key;
        json_t *v;

        json_object_foreach(root, key, v) {
                const ProfileKey *k = key_find(key);

                if (!k)
                        return errinfo_set(e, -EINVAL, "%s: key \"%s\": unknown key", fn, key);
                if (k->kind == KEY_WTEO) {
                        if (profile_wteo_parse(v, fn, &p->wteo, e) < 0)
                                return -EINVAL;
                        continue;
                }
                if (parse_key(k, v, p) < 0)
                        return errinfo_set(e, -EINVAL, "%s: key \"%s\": %s", fn, key, k->requirement);
        }
        if (p->util_hysteresis > p->util_threshold)
                return errinfo_set(e, -EINVAL, "%s: key \"util_hysteresis\": must not exceed util_threshold", fn);
        if (!json_object_get(root, "name") && name_from_filename(filename, p) < 0)
                return errinfo_set(e, -EINVAL, "%s: key \"name\": missing, and the file name is not a valid NAME.json", fn);
        return 0;
}

int profile_parse(const char *text, const char *filename, Profile *ret, ErrorInfo *e) {
        const char *fn = filename ? filename : "(profile)";
        json_error_t err;
        json_auto_t *root = NULL;
        Profile p;
        int r;

        if (!text)
                return errinfo_set(e, -EINVAL, "%s: no text", fn);
        root = json_loads(text, JSON_REJECT_DUPLICATES, &err);
        if (!root)
                return errinfo_set(e, -EINVAL, "%s:%d:%d: parse error: %s", fn, err.line, err.column, err.text);
        if (!json_is_object(root))
                return errinfo_set(e, -EINVAL, "%s: the top level must be a JSON object", fn);
        profile_init(&p, NULL);
        r = apply_object(root, fn, filename, &p, e);
        if (r < 0)
                return r;
        *ret = p;
        return 0;
}

int profile_set_put(ProfileSet *s, const Profile *p) {
        for (unsigned i = 0; i < s->n; i++)
                if (strcmp(s->profiles[i].name, p->name) == 0) {
                        s->profiles[i] = *p;
                        return 0;
                }
        if (s->n >= PROFILES_MAX)
                return -E2BIG;
        s->profiles[s->n++] = *p;
        return 0;
}

const Profile *profile_set_find(const ProfileSet *s, const char *name) {
        for (unsigned i = 0; i < s->n; i++)
                if (strcmp(s->profiles[i].name, name) == 0)
                        return &s->profiles[i];
        return NULL;
}

/* A Q10 value in the file's units: exact, an integer where it is one. */
static json_t *q10_to_json(unsigned q, unsigned scale) {
        if ((uint64_t) q * scale % 1024 == 0)
                return json_integer((json_int_t) ((uint64_t) q * scale / 1024));
        return json_real((double) q * scale / 1024.0);
}

static json_t *key_to_json(const ProfileKey *k, const Profile *p) {
        const char *field = (const char *) p + k->offset;
        unsigned u = k->is_u32 ? *(const uint32_t *) field : *(const unsigned *) field;

        switch (k->kind) {
        case KEY_NAME:
        case KEY_TEXT:
                return json_string(field);
        case KEY_GOVERNOR:
                return json_string(p->governor == PROFILE_GOVERNOR_KEEP ? "keep" :
                                   p->governor == PROFILE_GOVERNOR_AUTO ? "auto" : p->governor_name);
        case KEY_PERCENT:
                return q10_to_json(u, 100);
        case KEY_RATIO:
                return q10_to_json(u, 1);
        case KEY_WTEO:
                return profile_wteo_to_json(&p->wteo);
        default:
                return json_integer(u);
        }
}

char *profile_to_json(const Profile *p) {
        json_auto_t *root = json_object();

        if (!root)
                return NULL;
        for (size_t i = 0; i < sizeof(profile_keys) / sizeof(profile_keys[0]); i++)
                if (json_object_set_new(root, profile_keys[i].name, key_to_json(&profile_keys[i], p)) < 0)
                        return NULL;
        return json_dumps(root, JSON_INDENT(8) | JSON_PRESERVE_ORDER);
}
