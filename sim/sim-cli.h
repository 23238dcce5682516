/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* idlepolicy-sim: shared declarations of the command-line tool's files. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "governor.h"
#include "sim-report.h"
#include "sim-run.h"
#include "sim-table.h"

#define CLI_LIST_MAX 64
#define CLI_TABLES_MAX 64

typedef struct CliList {
        const char *items[CLI_LIST_MAX];
        size_t n;
} CliList;

typedef struct CliOptions {
        CliList workloads;          /* specs, or "all" */
        CliList traces;             /* files */
        CliList tables;             /* names, files, comma lists, "all" */
        CliList governors;          /* names, comma lists, "all" */
        CliList disable;            /* state names or indexes */
        const char *tables_dir;
        const char *calibration;    /* --calibration FILE: the real costs of every table, or NULL */
        uint64_t seed;
        size_t intervals;
        bool json;
        bool per_state;
        bool bench;
        bool list;
        bool dump_intervals;
        SimRunConfig run;
} CliOptions;

/* Where the idle periods come from: a synthetic workload or a trace. */
typedef struct CliSource {
        char label[SIM_LABEL_MAX];
        SimInterval *intervals;
        size_t n;
        bool has_table;             /* a trace brings its own table */
        SimTable table;
} CliSource;

typedef struct CliInputs {
        SimTable tables[CLI_TABLES_MAX];
        size_t n_tables;
        CliSource sources[CLI_LIST_MAX];
        size_t n_sources;
        const GovernorOps *governors[CLI_LIST_MAX];
        size_t n_governors;
} CliInputs;

/* Appends item to l.  Returns 0 or -E2BIG. */
int cli_list_add(CliList *l, const char *item);

/* Loads tables, sources and governors as o asks, printing what fails.
 * Returns 0 or a negative errno (-EINVAL: a usage error). */
int cli_inputs_load(const CliOptions *o, CliInputs *in);
void cli_inputs_done(CliInputs *in);

/* Prints the tables in o->tables_dir, the workloads and the governors. */
int cli_list_all(const CliOptions *o);

/* Runs the matrix and prints the report.  Returns 0 or a negative errno. */
int cli_run_matrix(const CliOptions *o, CliInputs *in);

/* The progress line (sim-cli-progress.c). */
typedef struct CliProgress {
        uint64_t done, total;        /* idle periods replayed, and in the whole matrix */
        uint64_t start_usec, shown_usec;
        bool shown;
} CliProgress;

/* Starts counting towards total periods: when stderr is a terminal (and
 * run has no observer yet), hooks run's observer so that a line on stderr
 * shows the share done and the time left, rewritten at most five times a
 * second from the first 65536 periods on.  p must outlive the runs. */
void cli_progress_start(CliProgress *p, uint64_t total, SimRunConfig *run);
/* Clears the line, if one was shown. */
void cli_progress_end(CliProgress *p);

/* Writes every source's idle periods to f, one per line (tab-separated:
 * source, cpu, sleep length ns as the governors see it, duration ns,
 * whether the timer ended it), after a header line.  Returns 0 or a
 * negative errno. */
int cli_dump_intervals(const CliInputs *in, FILE *f);

/* Times every governor's replay of every source on every table and prints
 * ns per interval.  Returns 0 or a negative errno. */
int cli_run_bench(const CliOptions *o, CliInputs *in);
