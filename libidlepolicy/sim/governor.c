/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "fileio.h"
#include "gov-idlepolicy.h"
#include "governor.h"
#include "wteo-core.h"
#include "sim-truth.h"
#include "sim-util.h"

static const GovernorOps *const governors[] = {
        &governor_menu,
        &governor_teo,
        &governor_teo_2020,
        &governor_wtteo_rfc,
        &governor_wteo,
        &governor_teo_util,
        &governor_ladder,
        &governor_haltpoll,
        &governor_oracle,
        &governor_idlepolicy,
        &governor_idlepolicy_menu,
        &governor_teo_range,
};

void gov_params_init(GovParams *p) {
        *p = (GovParams) {
                .seed = 1,
                .util_threshold = 1.0 / 64.0,   /* capacity >> 6, as in the util-aware teo */
                .halt_poll_ns = 200000,
                .halt_poll_grow = 2,
                .halt_poll_grow_start_ns = 50000,
                .halt_poll_shrink = 2,
                .halt_poll_allow_shrink = true,
                .ladder_promotion_count = 4,
                .ladder_demotion_count = 1,
                .wtteo_learning_pct = 10,
                .wteo_learn_shift = WTEO_LEARN_SHIFT_DEFAULT,
                .wteo_age_shift = WTEO_AGE_SHIFT_DEFAULT,
                .wteo_explore_shift = WTEO_EXPLORE_SHIFT_DEFAULT,
                .wteo_tolerance = WTEO_TOLERANCE_DEFAULT,
                .range_floor = 0,
                .range_cap = SIM_STATES_MAX - 1,
                .range2_floor = 0,
                .range2_cap = SIM_STATES_MAX - 1,
                .range2_share = 0,
        };
}

typedef enum ParamType {
        PARAM_U64,
        PARAM_UNSIGNED,
        PARAM_BOOL,
        PARAM_FRACTION,
} ParamType;

typedef struct ParamDef {
        const char *key;
        ParamType type;
        size_t offset;
        uint64_t min, max;
} ParamDef;

#define PARAM(k, t, field, lo, hi) { k, t, offsetof(GovParams, field), lo, hi }

static const ParamDef param_defs[] = {
        PARAM("seed", PARAM_U64, seed, 0, UINT64_MAX),
        PARAM("util_threshold", PARAM_FRACTION, util_threshold, 0, 1),
        PARAM("guest_halt_poll_ns", PARAM_U64, halt_poll_ns, 0, UINT32_MAX),
        PARAM("guest_halt_poll_grow", PARAM_UNSIGNED, halt_poll_grow, 0, 1000),
        PARAM("guest_halt_poll_grow_start", PARAM_U64, halt_poll_grow_start_ns, 0, UINT32_MAX),
        PARAM("guest_halt_poll_shrink", PARAM_UNSIGNED, halt_poll_shrink, 0, 1000),
        PARAM("guest_halt_poll_allow_shrink", PARAM_BOOL, halt_poll_allow_shrink, 0, 1),
        PARAM("ladder_promotion_count", PARAM_UNSIGNED, ladder_promotion_count, 1, 1000),
        PARAM("ladder_demotion_count", PARAM_UNSIGNED, ladder_demotion_count, 1, 1000),
        PARAM("wtteo_learning_pct", PARAM_UNSIGNED, wtteo_learning_pct, 1, 49),
        PARAM("wteo_learn_shift", PARAM_UNSIGNED, wteo_learn_shift, 1, WTEO_SHIFT_MAX),
        PARAM("wteo_age_shift", PARAM_UNSIGNED, wteo_age_shift, 1, WTEO_SHIFT_MAX),
        PARAM("wteo_explore_shift", PARAM_UNSIGNED, wteo_explore_shift, 0, WTEO_SHIFT_MAX),
        PARAM("wteo_tolerance", PARAM_UNSIGNED, wteo_tolerance, 0, WTEO_ONE),
        PARAM("floor", PARAM_UNSIGNED, range_floor, 0, SIM_STATES_MAX - 1),
        PARAM("cap", PARAM_UNSIGNED, range_cap, 0, SIM_STATES_MAX - 1),
        PARAM("floor2", PARAM_UNSIGNED, range2_floor, 0, SIM_STATES_MAX - 1),
        PARAM("cap2", PARAM_UNSIGNED, range2_cap, 0, SIM_STATES_MAX - 1),
        PARAM("share2", PARAM_FRACTION, range2_share, 0, 1),
};

static int parse_fraction(const char *value, double *ret) {
        char *end;
        double v;

        errno = 0;
        v = strtod(value, &end);
        if (errno != 0 || end == value || *end != '\0' || !isfinite(v) || v < 0 || v > 1)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int param_store(const ParamDef *d, GovParams *p, const char *value) {
        char *field = (char *) p + d->offset;
        uint64_t v;
        int r;

        if (d->type == PARAM_FRACTION)
                return parse_fraction(value, (double *) field);
        r = parse_u64(value, &v);
        if (r < 0)
                return r;
        if (v < d->min || v > d->max)
                return -ERANGE;
        if (d->type == PARAM_U64)
                *(uint64_t *) field = v;
        else if (d->type == PARAM_UNSIGNED)
                *(unsigned *) field = (unsigned) v;
        else
                *(bool *) field = v != 0;
        return 0;
}

int gov_params_set(GovParams *p, const char *key, const char *value) {
        for (size_t i = 0; i < ELEMENTSOF(param_defs); i++)
                if (streq(param_defs[i].key, key))
                        return param_store(&param_defs[i], p, value);
        return -ENOENT;
}

bool gov_params_ranges_valid(const GovParams *p) {
        return p->range_floor <= p->range_cap && p->range2_floor <= p->range2_cap;
}

const GovernorOps *const *governor_all(size_t *ret_n) {
        *ret_n = ELEMENTSOF(governors);
        return governors;
}

const GovernorOps *governor_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(governors); i++)
                if (streq(governors[i]->name, name))
                        return governors[i];
        return NULL;
}

int governor_new(const GovernorOps *ops, const SimTable *t, const GovParams *p, Governor **ret) {
        _cleanup_governor_ Governor *g = NULL;
        int r;

        g = calloc(1, ops->size);
        if (!g)
                return -ENOMEM;
        g->ops = ops;
        g->table = t;
        if (ops->init) {
                r = ops->init(g, p);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(g);
        return 0;
}

Governor *governor_free(Governor *g) {
        free(g);
        return NULL;
}

void governor_freep(Governor **g) {
        governor_free(*g);
}

unsigned gov_deepest_fitting(const Governor *g, uint64_t duration_ns, uint64_t limit_ns) {
        return sim_truth_ideal_state(g->table, duration_ns, limit_ns, SIM_VIEW_ADVERTISED);
}

unsigned gov_bin_of(const Governor *g, uint64_t duration_ns) {
        unsigned bin = 0;

        for (unsigned i = 1; i < g->table->n_states; i++)
                if (gov_cost(g, i)->target_residency_ns <= duration_ns)
                        bin = i;
        return bin;
}
