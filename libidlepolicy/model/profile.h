/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Idle-policy profiles (JSON).  Built-ins ship in the data dir
 * (performance, balanced, power-saver, latency); admin overrides live in
 * /etc/idlepolicy/profiles.d/ (same name replaces, new name adds).  The
 * library parses text handed to it; the daemon reads the directories. */

#include <stdbool.h>
#include <stdint.h>

#include "errinfo.h"

/* A loaded profile's name: 1-63 bytes (idlepolicy-profile(5)). */
#define PROFILE_BASE_NAME_MAX 64
/* Any profile name a pin, a hold or the policy carries, a derived one
 * (profile_set_resolve(): "BASE:latency_limit_us=N", at most 89 bytes)
 * included. */
#define PROFILE_NAME_MAX 96
#define PROFILES_MAX 32

typedef enum ProfileGovernor {
        PROFILE_GOVERNOR_KEEP,        /* never switch the governor */
        PROFILE_GOVERNOR_AUTO,        /* let the policy choose (e.g. menu vs haltpoll on KVM) */
        PROFILE_GOVERNOR_NAMED,       /* use governor_name */
} ProfileGovernor;

/* What the profile pushes to the wteo kernel governor in companion mode
 * (the key "wteo"; ranges and defaults those of wteo-core.h). */
typedef struct ProfileWteo {
        unsigned learn_shift;         /* 1..15, WTEO_LEARN_SHIFT_DEFAULT */
        unsigned age_shift;           /* 1..15, WTEO_AGE_SHIFT_DEFAULT */
        unsigned explore_shift;       /* 0..15, WTEO_EXPLORE_SHIFT_DEFAULT */
        unsigned tolerance;           /* per CPU, 0..1024 (1/1024), WTEO_TOLERANCE_DEFAULT */
} ProfileWteo;

/* Sets w to wteo-core.h's defaults. */
void profile_wteo_init(ProfileWteo *w);

typedef struct Profile {
        char name[PROFILE_NAME_MAX];
        char description[128];
        uint32_t latency_limit_us;    /* deepest state's (calibrated) exit latency must be <= this; 0 = none */
        unsigned too_deep_tolerance;  /* Q10: cap goes shallower when W[cap][<cap] exceeds it */
        unsigned too_shallow_tolerance; /* Q10: floor goes deeper when W[floor][>floor] exceeds it */
        unsigned burn_price;          /* Q10: price of one burned CPU-µs in µs of wakeup latency (1024 = equal);
                                       * it also prices a shallower state's power against the exit
                                       * latency it saves (policy_decide_cpu()) */
        unsigned poll_search;         /* Q10: on KVM guests, the CPU weight of the poll frontier search
                                       * (poll-search.h; 1024 = progress per CPU second); 0 = off,
                                       * burn_price prices polling instead */
        unsigned util_threshold;      /* Q10 busy fraction above which the util rule caps; 1024 = off */
        unsigned util_hysteresis;     /* Q10: the rule releases below threshold - hysteresis */
        unsigned learn_shift;         /* model k */
        unsigned age_shift;           /* model g */
        unsigned explore_shift;       /* exploration probability scale 2^-e per tick; 0 = never */
        unsigned hold_ticks;          /* a cap/floor holds at least this many ticks before it moves again */
        ProfileGovernor governor;
        char governor_name[32];
        ProfileWteo wteo;
        unsigned consolidation;       /* the consolidation level while this profile is active
                                       * (0..2, consolidate.h); SetConsolidation() overrides it
                                       * until the profile changes */
} Profile;

typedef struct ProfileSet {
        unsigned n;
        Profile profiles[PROFILES_MAX];
} ProfileSet;

/* Fills p with the defaults of a "balanced" profile named name: the values
 * of the shipped balanced.json (a unit test keeps the two equal), which the
 * simulator's idlepolicy governor uses. */
void profile_init(Profile *p, const char *name);

/* Parses one profile file's JSON text.  The profile's name is the "name" key,
 * else the file name without ".json".  Unknown keys, wrong types and values
 * out of range are rejected: -EINVAL with e = "FILE: key \"K\": reason".
 * Percentages in the file are given as numbers 0..100 (e.g. "too_deep_tolerance": 10)
 * and stored as Q10 (rounded); "burn_price" is a plain ratio 0..1000 (e.g. 0.25)
 * stored as Q10; "governor" is "keep", "auto" or one of menu, teo, ladder,
 * haltpoll, wteo; "wteo" is an object of the integers learn_shift,
 * age_shift, explore_shift and tolerance (each optional, e.g.
 * "FILE: key \"wteo.tolerance\": must be ..." when out of range); keys
 * left out keep profile_init()'s defaults (the balanced ones).  Returns 0; *ret untouched on failure. */
int profile_parse(const char *text, const char *filename, Profile *ret, ErrorInfo *e);

/* Adds or replaces p in s by name.  Returns 0, or -E2BIG when full. */
int profile_set_put(ProfileSet *s, const Profile *p);
/* Returns the profile called name, or NULL. */
const Profile *profile_set_find(const ProfileSet *s, const char *name);

/* A derived profile's name: BASE ":" PROFILE_PARAM_LATENCY_LIMIT "=" N.
 * The ':' can be in no loaded profile's name, so no file shadows one. */
#define PROFILE_PARAM_LATENCY_LIMIT "latency_limit_us"
#define PROFILE_LATENCY_LIMIT_MAX 10000000

/* Returns true if name is a derived profile's (it holds a ':'). */
bool profile_name_is_derived(const char *name);

/* Resolves a profile name against s into *ret: a loaded profile's name
 * gives a copy of it; "BASE:latency_limit_us=N" gives a copy of the
 * loaded BASE named name with latency_limit_us N (0 = no limit, as in a
 * file; 1..10000000 µs), everything else BASE's.  N is written in
 * canonical decimal (no sign, space or leading zero), so that one
 * profile has one name.  Returns 0, or with e set (*ret untouched):
 *   -ENOPKG   no loaded profile name (or BASE), or a parameter other than
 *             latency_limit_us ("BASE:foo=1")
 *   -ERANGE   N missing, not canonical decimal, or above 10000000. */
int profile_set_resolve(const ProfileSet *s, const char *name, Profile *ret, ErrorInfo *e);

/* Serialises p as JSON (the same keys profile_parse reads).  Returns a
 * malloc'ed string, or NULL on -ENOMEM. */
char *profile_to_json(const Profile *p);
