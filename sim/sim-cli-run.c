/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idlepolicy-sim: running the (source × table × governor) matrix, timing
 * it, and listing what there is. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "fileio.h"
#include "sim-cli.h"
#include "sim-util.h"
#include "sim-workload.h"

/* The tables source s is replayed on: the command line's, or the trace's
 * own when none was given.  Returns how many, pointers in ret. */
static size_t source_tables(const CliInputs *in, const CliSource *s, const SimTable *ret[]) {
        if (in->n_tables == 0 && s->has_table) {
                ret[0] = &s->table;
                return 1;
        }
        for (size_t i = 0; i < in->n_tables; i++)
                ret[i] = &in->tables[i];
        return in->n_tables;
}

static int run_one(const CliOptions *o, const SimRunConfig *run, const CliSource *s, const SimTable *t,
                   const GovernorOps *g, SimResult *r) {
        *r = (SimResult) { .table = *t, .seed = o->seed };
        snprintf(r->workload, sizeof(r->workload), "%s", s->label);
        snprintf(r->governor, sizeof(r->governor), "%s", g->name);
        r->error = sim_run(t, g, run, s->intervals, s->n, &r->metrics);
        if (r->error < 0 && r->error != -EOPNOTSUPP) {
                fprintf(stderr, "idlepolicy-sim: Failed to replay %s on %s with %s: %s\n",
                        s->label, t->name, g->name, strerror(-r->error));
                return r->error;
        }
        return 0;
}

/* The idle periods the whole matrix replays. */
static uint64_t matrix_periods(const CliInputs *in) {
        uint64_t total = 0;

        for (size_t s = 0; s < in->n_sources; s++) {
                const SimTable *tables[CLI_TABLES_MAX];

                total += (uint64_t) in->sources[s].n * source_tables(in, &in->sources[s], tables) * in->n_governors;
        }
        return total;
}

/* Runs every (source, table, governor) into results.  Returns how many,
 * or a negative errno. */
static ssize_t run_all(const CliOptions *o, const SimRunConfig *run, CliInputs *in, SimResult *results) {
        size_t n = 0;

        for (size_t s = 0; s < in->n_sources; s++) {
                const SimTable *tables[CLI_TABLES_MAX];
                size_t n_tables = source_tables(in, &in->sources[s], tables);

                for (size_t t = 0; t < n_tables; t++)
                        for (size_t g = 0; g < in->n_governors; g++) {
                                int r = run_one(o, run, &in->sources[s], tables[t], in->governors[g], &results[n++]);

                                if (r < 0)
                                        return r;
                        }
        }
        return (ssize_t) n;
}

int cli_run_matrix(const CliOptions *o, CliInputs *in) {
        _cleanup_free_ SimResult *results = NULL;
        size_t max = in->n_sources * (in->n_tables ? in->n_tables : 1) * in->n_governors;
        SimRunConfig run = o->run;
        CliProgress progress;
        ssize_t n;
        int r;

        results = calloc(max ? max : 1, sizeof(SimResult));
        if (!results)
                return -ENOMEM;
        cli_progress_start(&progress, matrix_periods(in), &run);
        n = run_all(o, &run, in, results);
        cli_progress_end(&progress);
        if (n < 0)
                return (int) n;
        sim_results_summarize(results, (size_t) n);
        r = o->json ? sim_report_json(stdout, results, (size_t) n) :
                      sim_report_markdown(stdout, results, (size_t) n, o->per_state);
        if (r < 0)
                fprintf(stderr, "idlepolicy-sim: Failed to write the report: %s\n", strerror(-r));
        return r;
}

static double now_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static int bench_one(const CliOptions *o, const CliSource *s, const SimTable *t, const GovernorOps *g) {
        SimMetrics m;
        double start = now_ms(), ms;
        int r = sim_run(t, g, &o->run, s->intervals, s->n, &m);

        ms = now_ms() - start;
        if (r == -EOPNOTSUPP)
                return 0;
        if (r < 0) {
                fprintf(stderr, "idlepolicy-sim: Failed to replay %s on %s with %s: %s\n",
                        s->label, t->name, g->name, strerror(-r));
                return r;
        }
        printf("| %s | %s | %s | %zu | %.1f | %.1f |\n", s->label, t->name, g->name, s->n, ms,
               s->n ? ms * 1e6 / (double) s->n : 0.0);
        return 0;
}

int cli_run_bench(const CliOptions *o, CliInputs *in) {
        printf("| workload | table | governor | intervals | replay ms | ns/interval |\n");
        printf("|---|---|---|---:|---:|---:|\n");
        for (size_t s = 0; s < in->n_sources; s++) {
                const SimTable *tables[CLI_TABLES_MAX];
                size_t n_tables = source_tables(in, &in->sources[s], tables);

                for (size_t t = 0; t < n_tables; t++)
                        for (size_t g = 0; g < in->n_governors; g++) {
                                int r = bench_one(o, &in->sources[s], tables[t], in->governors[g]);
                                if (r < 0)
                                        return r;
                        }
        }
        return 0;
}

static void list_tables(const char *dir) {
        struct dirent **names = NULL;
        int n = scandir(dir, &names, NULL, alphasort);

        printf("Tables in %s:\n", dir);
        if (n < 0) {
                printf("  (cannot read: %s)\n", strerror(errno));
                return;
        }
        for (int i = 0; i < n; i++) {
                size_t len = strlen(names[i]->d_name);

                if (len > 6 && streq(names[i]->d_name + len - 6, ".table"))
                        printf("  %.*s\n", (int) (len - 6), names[i]->d_name);
                free(names[i]);
        }
        free(names);
}

int cli_list_all(const CliOptions *o) {
        const char *name, *summary, *params;
        size_t n;
        const GovernorOps *const *govs = governor_all(&n);

        list_tables(o->tables_dir);
        printf("\nWorkloads (NAME[:KEY=VALUE,...]):\n");
        for (size_t i = 0; (name = workload_describe(i, &summary, &params)); i++)
                printf("  %-12s %s\n  %-12s   %s\n", name, summary, "", params);
        printf("\nGovernors:\n");
        for (size_t i = 0; i < n; i++)
                printf("  %-12s %s%s\n", govs[i]->name, govs[i]->summary, govs[i]->not_in_all ? " [not in all]" : "");
        return 0;
}
