/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Idle-state tables: what a cpuidle driver advertises (exit latency, target
 * residency, polling or not) and, where the hardware behaves otherwise, what
 * it really costs.  Governors see the advertised costs, as in the kernel; the
 * ground truth, the energy and latency models and the oracle use the real
 * ones.
 *
 * Text format (see idlepolicy-sim(1)), shallowest state first:
 *
 *   # comment
 *   set ipi-us 2
 *   NAME EXIT_LATENCY_US TARGET_RESIDENCY_US [REAL_EXIT_US REAL_RESIDENCY_US] [polling] [disabled]
 *
 * NAME may be double-quoted to hold spaces ("haltpoll idle"). */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "errinfo.h"

#define SIM_STATES_MAX 10                 /* the kernel's CPUIDLE_STATE_MAX */
#define SIM_STATE_NAME_MAX 32
#define SIM_TABLE_NAME_MAX 64
#define SIM_NO_LIMIT UINT64_MAX           /* no latency constraint */
#define SIM_COST_MAX_US UINT64_C(10000000) /* 10 s: larger values are typos */

typedef struct SimCost {
        uint64_t exit_latency_ns;
        uint64_t target_residency_ns;
} SimCost;

typedef struct SimState {
        char name[SIM_STATE_NAME_MAX];
        SimCost advertised;      /* what the driver tells the kernel */
        SimCost real;            /* how the hardware behaves (= advertised unless stated) */
        bool polling;            /* CPUIDLE_FLAG_POLLING: woken without an interrupt */
        bool disabled;
} SimState;

#define SIM_COSTS_MAX 160

typedef struct SimTable {
        char name[SIM_TABLE_NAME_MAX];
        char costs[SIM_COSTS_MAX];   /* where the real costs come from ("" = the table file's) */
        unsigned n_states;
        uint64_t ipi_ns;         /* extra cost of waking a non-polling state by IPI */
        SimState states[SIM_STATES_MAX];
} SimTable;

/* Which costs a computation uses. */
typedef enum SimView {
        SIM_VIEW_REAL,
        SIM_VIEW_ADVERTISED,
} SimView;

/* Parses a table from f; name labels it in reports.  Errors give -EBADMSG
 * with e naming the line ("line 4: exit latency: not a number").  Returns 0
 * or a negative errno; *ret untouched on failure. */
int sim_table_parse(FILE *f, const char *name, SimTable *ret, ErrorInfo *e);

/* Disables or enables the state named (or numbered) by spec.
 * Returns 0 or -ENOENT. */
int sim_table_set_disabled(SimTable *t, const char *spec, bool disabled);

/* The cost of state i in the given view. */
const SimCost *sim_table_cost(const SimTable *t, unsigned i, SimView v);

/* Index of the first enabled state at or after i going in direction dir
 * (+1 deeper, -1 shallower).  Returns the index, or -1 if there is none. */
int sim_table_enabled_from(const SimTable *t, int i, int dir);

/* The first enabled state; state 0 when every state is disabled (the kernel
 * then still has to run something). */
unsigned sim_table_first_enabled(const SimTable *t);

/* How long a polling state polls before giving the governor another chance:
 * the smallest advertised target residency among the enabled non-polling
 * states (the kernel's cpuidle_poll_time()), or one tick (4 ms) if none. */
uint64_t sim_table_poll_limit_ns(const SimTable *t);
