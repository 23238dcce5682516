/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The profile's "wteo" object: the parameters companion mode pushes to the
 * wteo kernel governor, in its own units and ranges (wteo-core.h). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "profile-wteo.h"
#include "wteo-core.h"

typedef struct WteoKey {
        const char *name;
        size_t offset;
        unsigned min, max;
} WteoKey;

static const WteoKey wteo_keys[] = {
        { "learn_shift", offsetof(ProfileWteo, learn_shift), 1, WTEO_SHIFT_MAX },
        { "age_shift", offsetof(ProfileWteo, age_shift), 1, WTEO_SHIFT_MAX },
        { "explore_shift", offsetof(ProfileWteo, explore_shift), 0, WTEO_SHIFT_MAX },
        { "tolerance", offsetof(ProfileWteo, tolerance), 0, WTEO_ONE },
};

#define N_WTEO_KEYS (sizeof(wteo_keys) / sizeof(wteo_keys[0]))

void profile_wteo_init(ProfileWteo *w) {
        *w = (ProfileWteo) {
                .learn_shift = WTEO_LEARN_SHIFT_DEFAULT,
                .age_shift = WTEO_AGE_SHIFT_DEFAULT,
                .explore_shift = WTEO_EXPLORE_SHIFT_DEFAULT,
                .tolerance = WTEO_TOLERANCE_DEFAULT,
        };
}

static const WteoKey *wteo_key_find(const char *name) {
        for (size_t i = 0; i < N_WTEO_KEYS; i++)
                if (strcmp(wteo_keys[i].name, name) == 0)
                        return &wteo_keys[i];
        return NULL;
}

int profile_wteo_parse(json_t *v, const char *fn, ProfileWteo *w, ErrorInfo *e) {
        ProfileWteo x = *w;
        const char *key;
        json_t *item;

        if (!json_is_object(v))
                return errinfo_set(e, -EINVAL, "%s: key \"wteo\": must be an object of learn_shift, age_shift, "
                                   "explore_shift and tolerance", fn);
        json_object_foreach(v, key, item) {
                const WteoKey *k = wteo_key_find(key);
                json_int_t n;

                if (!k)
                        return errinfo_set(e, -EINVAL, "%s: key \"wteo.%s\": unknown key (known: learn_shift, "
                                           "age_shift, explore_shift, tolerance)", fn, key);
                n = json_is_integer(item) ? json_integer_value(item) : -1;
                if (n < k->min || n > k->max)
                        return errinfo_set(e, -EINVAL, "%s: key \"wteo.%s\": must be an integer between %u and %u",
                                           fn, key, k->min, k->max);
                *(unsigned *) ((char *) &x + k->offset) = (unsigned) n;
        }
        *w = x;
        return 0;
}

json_t *profile_wteo_to_json(const ProfileWteo *w) {
        json_t *o = json_object();

        for (size_t i = 0; o && i < N_WTEO_KEYS; i++) {
                unsigned u = *(const unsigned *) ((const char *) w + wteo_keys[i].offset);

                if (json_object_set_new(o, wteo_keys[i].name, json_integer(u)) < 0)
                        o = (json_decref(o), NULL);
        }
        return o;
}
