/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The common interface of the simulated idle governors.  One instance per
 * CPU.  Like the kernel's, a governor sees only: the time to the next timer
 * at idle entry, its own history (what reflect() told it), the state table
 * with its advertised costs and enabled flags, a latency limit and, for
 * teo-util, a utilisation signal.  The oracle alone also reads the future.
 *
 * Per idle entry the simulator calls select(), "enters" the state, and then
 * reflect() with the measured idle time.  A polling state that polled for
 * its whole poll limit without a wakeup ends with poll_timeout set; the
 * simulator then calls select() again for the rest of the idle period. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cleanup.h"

#include "errinfo.h"
#include "sim-table.h"

typedef struct GovInput {
        uint64_t sleep_length_ns;    /* time to the next timer */
        uint64_t latency_limit_ns;   /* SIM_NO_LIMIT for none */
        double util;                 /* CPU utilisation 0..1 (PELT-like) */
        bool iowait;                 /* a task on this CPU waits for I/O */
        uint64_t future_ns;          /* the coming idle duration: the oracle only */
} GovInput;

typedef struct GovParams {
        uint64_t seed;                    /* wtteo-rfc's random pick */
        double util_threshold;            /* teo-util: utilised above this (1/64) */
        uint64_t halt_poll_ns;            /* haltpoll: guest_halt_poll_ns (200000) */
        unsigned halt_poll_grow;          /* guest_halt_poll_grow (2) */
        uint64_t halt_poll_grow_start_ns; /* guest_halt_poll_grow_start (50000) */
        unsigned halt_poll_shrink;        /* guest_halt_poll_shrink (2) */
        bool halt_poll_allow_shrink;      /* guest_halt_poll_allow_shrink (Y) */
        unsigned ladder_promotion_count;  /* 4 */
        unsigned ladder_demotion_count;   /* 1 */
        unsigned wtteo_learning_pct;      /* 10 */
        unsigned wteo_learn_shift;        /* wteo: WTEO_LEARN_SHIFT_DEFAULT (4) */
        unsigned wteo_age_shift;          /* wteo: WTEO_AGE_SHIFT_DEFAULT (6) */
        unsigned wteo_explore_shift;      /* wteo: WTEO_EXPLORE_SHIFT_DEFAULT (0: off) */
        unsigned wteo_tolerance;          /* wteo: accepted risk of too deep, 1/1024 (102) */
        unsigned range_floor;             /* teo-range: shallowest state allowed (0) */
        unsigned range_cap;               /* teo-range: deepest state allowed (SIM_STATES_MAX - 1) */
        unsigned range2_floor, range2_cap; /* teo-range: a second plan (0, SIM_STATES_MAX - 1) */
        double range2_share;              /* teo-range: share of ticks under the second plan (0) */
} GovParams;

typedef struct Governor Governor;

typedef struct GovernorOps {
        const char *name;
        const char *summary;
        bool not_in_all;                  /* a yardstick: only by name, not in "all" */
        const char *unsuited;             /* why init says -EOPNOTSUPP, for reports */
        size_t size;                      /* of the instance, which starts with a Governor */
        /* Optional.  Returns 0, or -EOPNOTSUPP if the table does not suit. */
        int (*init)(Governor *g, const GovParams *p);
        /* Returns the index of an enabled state (if any is enabled). */
        unsigned (*select)(Governor *g, const GovInput *in);
        void (*reflect)(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout);
        /* Optional: how long a polling state selected now may poll;
         * 0 or absent: sim_table_poll_limit_ns(). */
        uint64_t (*poll_limit_ns)(const Governor *g);
} GovernorOps;

struct Governor {
        const GovernorOps *ops;
        const SimTable *table;
};

extern const GovernorOps governor_menu;
extern const GovernorOps governor_teo;
extern const GovernorOps governor_teo_2020;
extern const GovernorOps governor_wtteo_rfc;
extern const GovernorOps governor_wteo;
extern const GovernorOps governor_teo_util;
extern const GovernorOps governor_ladder;
extern const GovernorOps governor_haltpoll;
extern const GovernorOps governor_oracle;
extern const GovernorOps governor_teo_range;

/* Sets every parameter to the kernel's default. */
void gov_params_init(GovParams *p);

/* Sets one parameter by name (seed, util_threshold, guest_halt_poll_ns,
 * guest_halt_poll_grow, guest_halt_poll_grow_start, guest_halt_poll_shrink,
 * guest_halt_poll_allow_shrink, ladder_promotion_count,
 * ladder_demotion_count, wtteo_learning_pct, wteo_learn_shift,
 * wteo_age_shift, wteo_explore_shift, wteo_tolerance, floor, cap, floor2,
 * cap2, share2).  Returns 0, -ENOENT for an
 * unknown name, -EINVAL or -ERANGE for a bad value. */
int gov_params_set(GovParams *p, const char *key, const char *value);

/* Whether teo-range's plans are ranges: floor <= cap, floor2 <= cap2. */
bool gov_params_ranges_valid(const GovParams *p);

/* Returns every governor, in report order; *ret_n gets the count.  Those
 * with not_in_all set are yardsticks that "all" leaves out. */
const GovernorOps *const *governor_all(size_t *ret_n);

/* Returns the governor called name, or NULL. */
const GovernorOps *governor_find(const char *name);

/* Creates an instance for table t (which must outlive it).  Returns 0,
 * -ENOMEM, or the governor's -EOPNOTSUPP. */
int governor_new(const GovernorOps *ops, const SimTable *t, const GovParams *p, Governor **ret);

/* Frees g (NULL allowed).  Returns NULL. */
Governor *governor_free(Governor *g);
void governor_freep(Governor **g);
#define _cleanup_governor_ _cleanup_(governor_freep)

/* Helpers for the governors (advertised costs, as the kernel sees them). */

/* Returns the deepest enabled state whose target residency is at most
 * duration_ns and whose exit latency is within limit_ns; the first enabled
 * state if none is. */
unsigned gov_deepest_fitting(const Governor *g, uint64_t duration_ns, uint64_t limit_ns);

/* Returns the bin an idle duration falls into: the deepest state (enabled
 * or not) whose target residency is at most duration_ns; 0 if none. */
unsigned gov_bin_of(const Governor *g, uint64_t duration_ns);

static inline const SimCost *gov_cost(const Governor *g, unsigned i) {
        return &g->table->states[i].advertised;
}

static inline bool gov_enabled(const Governor *g, unsigned i) {
        return !g->table->states[i].disabled;
}
