/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The profiles pins and holds name: a loaded one, or a derived one,
 * "BASE:latency_limit_us=N" (profile_set_resolve()), which exists only
 * here, one allocation per name so that the profile in force per CPU can
 * point at it, for as long as a claim uses it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-error.h"
#include "pins-internal.h"

int pins_profile_check(Pins *p, const char *name, ErrorInfo *e) {
        ErrorInfo inner = {};
        Profile unused;
        int r;

        r = profile_set_resolve(p->ctx.profiles(p->ctx.userdata), name, &unused, &inner);
        if (r == -ENOPKG)
                return errinfo_set(e, -ERRNO_UNKNOWN_PROFILE, "%s (see the Profiles property)", inner.message);
        if (r < 0)
                return errinfo_set(e, -ERRNO_INVALID_LATENCY, "%s", inner.message);
        return 0;
}

/* Returns the index of the derived profile called name, or -1. */
static ssize_t derived_find(const PinsProfiles *pp, const char *name) {
        for (size_t i = 0; i < pp->n; i++)
                if (strcmp(pp->derived[i]->name, name) == 0)
                        return (ssize_t) i;
        return -1;
}

/* Adds an entry for a derived profile.  Returns its index or -ENOMEM. */
static ssize_t derived_add(PinsProfiles *pp) {
        if (pp->n == pp->n_allocated) {
                size_t n = pp->n_allocated ? pp->n_allocated * 2 : 8;
                Profile **d = reallocarray(pp->derived, n, sizeof(Profile *));
                bool *used;

                if (!d)
                        return -ENOMEM;
                pp->derived = d;
                used = reallocarray(pp->used, n, sizeof(bool));
                if (!used)
                        return -ENOMEM;
                pp->used = used;
                pp->n_allocated = n;
        }
        pp->derived[pp->n] = calloc(1, sizeof(Profile));
        if (!pp->derived[pp->n])
                return -ENOMEM;
        pp->used[pp->n] = false;
        return (ssize_t) pp->n++;
}

const Profile *pins_profile_lookup(Pins *p, const char *name) {
        const ProfileSet *set = p->ctx.profiles(p->ctx.userdata);
        PinsProfiles *pp = &p->profiles;
        Profile resolved;
        ssize_t i;

        if (!profile_name_is_derived(name))
                return profile_set_find(set, name);
        if (profile_set_resolve(set, name, &resolved, NULL) < 0)
                return NULL;                    /* BASE is gone (a reload): the claim is left out */
        i = derived_find(pp, name);
        if (i < 0)
                i = derived_add(pp);
        if (i < 0) {
                pp->out_of_memory = true;
                return NULL;
        }
        /* again each time: a reload may have changed BASE; the address stays */
        *pp->derived[i] = resolved;
        pp->used[i] = true;
        return pp->derived[i];
}

void pins_profiles_sweep(Pins *p) {
        PinsProfiles *pp = &p->profiles;

        for (size_t i = 0; i < pp->n;) {
                if (pp->used[i]) {
                        pp->used[i++] = false;
                        continue;
                }
                free(pp->derived[i]);
                pp->derived[i] = pp->derived[--pp->n];
                pp->used[i] = pp->used[pp->n];
        }
}

int pins_profiles_take_error(Pins *p) {
        bool oom = p->profiles.out_of_memory;

        p->profiles.out_of_memory = false;
        return oom ? -ENOMEM : 0;
}

void pins_profiles_done(Pins *p) {
        PinsProfiles *pp = &p->profiles;

        for (size_t i = 0; i < pp->n; i++)
                free(pp->derived[i]);
        free(pp->derived);
        free(pp->used);
        *pp = (PinsProfiles) {};
}
