/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Derived profiles: "BASE:latency_limit_us=N", a loaded profile with an
 * exact latency limit of its own (profile.h), so that a pin or a hold can
 * ask for any limit without a profile file per value. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"

bool profile_name_is_derived(const char *name) {
        return strchr(name, ':') != NULL;
}

/* Parses text as a latency limit in canonical decimal, 0..PROFILE_LATENCY_LIMIT_MAX.
 * Returns 0 or -ERANGE. */
static int parse_limit(const char *text, uint32_t *ret) {
        uint32_t v = 0;

        if (text[0] == '\0' || (text[0] == '0' && text[1] != '\0'))
                return -ERANGE;
        for (const char *c = text; *c; c++) {
                if (*c < '0' || *c > '9')
                        return -ERANGE;
                v = v * 10 + (uint32_t) (*c - '0');
                if (v > PROFILE_LATENCY_LIMIT_MAX)
                        return -ERANGE;
        }
        *ret = v;
        return 0;
}

/* Returns the loaded profile called the len bytes at name, or NULL. */
static const Profile *find_base(const ProfileSet *s, const char *name, size_t len) {
        char base[PROFILE_BASE_NAME_MAX];

        if (len >= sizeof(base))
                return NULL;
        memcpy(base, name, len);
        base[len] = '\0';
        return profile_set_find(s, base);
}

int profile_set_resolve(const ProfileSet *s, const char *name, Profile *ret, ErrorInfo *e) {
        const char *colon = strchr(name, ':'), *param, *value;
        const Profile *base;
        uint32_t limit;

        if (!colon) {
                base = profile_set_find(s, name);
                if (!base)
                        return errinfo_set(e, -ENOPKG, "Unknown profile \"%.96s\"", name);
                *ret = *base;
                return 0;
        }
        base = find_base(s, name, (size_t) (colon - name));
        if (!base)
                return errinfo_set(e, -ENOPKG, "Unknown profile \"%.*s\" in \"%.96s\"",
                                   (int) (colon - name < 64 ? colon - name : 64), name, name);
        param = colon + 1;
        value = strchr(param, '=');
        if ((value ? (size_t) (value - param) : strlen(param)) != strlen(PROFILE_PARAM_LATENCY_LIMIT) ||
            strncmp(param, PROFILE_PARAM_LATENCY_LIMIT, strlen(PROFILE_PARAM_LATENCY_LIMIT)) != 0)
                return errinfo_set(e, -ENOPKG, "Unknown profile \"%.96s\": after BASE: only "
                                   PROFILE_PARAM_LATENCY_LIMIT "=N may follow", name);
        if (!value || parse_limit(value + 1, &limit) < 0)
                return errinfo_set(e, -ERANGE, "Invalid latency limit in \"%.96s\": N must be 0 (no limit) to "
                                   "%d microseconds, in decimal without sign or leading zeros",
                                   name, PROFILE_LATENCY_LIMIT_MAX);
        /* BASE <= 63 bytes, ":latency_limit_us=" 18, N <= 8 digits: it fits */
        *ret = *base;
        snprintf(ret->name, sizeof(ret->name), "%s", name);
        ret->latency_limit_us = limit;
        return 0;
}
