/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Results of (workload, table, governor) replays and their reports: a
 * markdown table and JSON rows for other tools. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim-metrics.h"
#include "sim-table.h"

#define SIM_LABEL_MAX 256
#define SIM_GOVERNOR_NAME_MAX 32

typedef struct SimResult {
        char workload[SIM_LABEL_MAX];        /* the spec, or the trace file */
        char governor[SIM_GOVERNOR_NAME_MAX];
        SimTable table;                      /* as replayed (names, enabled flags) */
        uint64_t seed;
        int error;                           /* 0, or why the governor was skipped */
        SimMetrics metrics;
        SimSummary summary;                  /* filled by sim_results_summarize() */
} SimResult;

/* Fills every result's summary against the "oracle" result of the same
 * workload and table; without one, energy and regret are NaN. */
void sim_results_summarize(SimResult *r, size_t n);

/* Where t's real costs come from, in words ("the table's" for a table
 * file's own). */
const char *sim_table_costs(const SimTable *t);

/* Why r was skipped (r->error < 0), in words. */
const char *sim_result_skip_reason(const SimResult *r);

/* Writes the summary table and, with per_state, one table per (workload,
 * table) of per-state usage, correct, undershoot (too deep) and overshoot
 * (too shallow) shares, as in the weighted-TEO RFC.  Returns 0 or -EIO. */
int sim_report_markdown(FILE *f, const SimResult *r, size_t n, bool per_state);

/* Writes {"generator": ..., "rows": [...], "skipped": [...]}; each row has
 * workload, table, governor, intervals, correct_pct, too_deep_pct,
 * too_shallow_pct, energy, latency_penalty_us, regret_pct and more.
 * Returns 0, -ENOMEM or -EIO. */
int sim_report_json(FILE *f, const SimResult *r, size_t n);
