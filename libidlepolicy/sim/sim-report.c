/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "governor.h"
#include "sim-report.h"
#include "sim-util.h"

static const SimResult *find_oracle(const SimResult *r, size_t n, const SimResult *of) {
        for (size_t i = 0; i < n; i++)
                if (r[i].error == 0 && streq(r[i].governor, "oracle") &&
                    streq(r[i].workload, of->workload) && streq(r[i].table.name, of->table.name))
                        return &r[i];
        return NULL;
}

void sim_results_summarize(SimResult *r, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const SimResult *o = find_oracle(r, n, &r[i]);
                SimMetrics none = {};

                if (r[i].error < 0)
                        continue;
                sim_metrics_summarize(&r[i].metrics, o ? &o->metrics : &none, &r[i].summary);
        }
}

const char *sim_result_skip_reason(const SimResult *r) {
        const GovernorOps *g = governor_find(r->governor);

        if (r->error == -EOPNOTSUPP)
                return g && g->unsuited ? g->unsuited : "does not suit this table";
        return strerror(-r->error);
}

/* Formats v with the given decimals, or "–" for NaN. */
static const char *num(char *buf, size_t size, double v, int decimals) {
        if (isnan(v))
                return "–";
        snprintf(buf, size, "%.*f", decimals, v);
        return buf;
}

static void markdown_row(FILE *f, const SimResult *r) {
        const SimSummary *s = &r->summary;
        char a[32], b[32], c[32], d[32];

        fprintf(f, "| %s | %s | %s | %" PRIu64 " | %.1f | %.1f | %.1f | %s | %s | %s | %s |\n",
                r->workload, r->table.name, r->governor, r->metrics.intervals,
                s->correct_pct, s->too_deep_pct, s->too_shallow_pct,
                num(a, sizeof(a), s->energy, 3), num(b, sizeof(b), s->latency_us, 1),
                num(c, sizeof(c), s->latency_other_us, 1), num(d, sizeof(d), s->regret_pct, 1));
}

static void markdown_states(FILE *f, const SimResult *r, size_t n, size_t first) {
        fprintf(f, "\n### %s on %s\n\n", r[first].workload, r[first].table.name);
        fprintf(f, "| state | governor | usage %% | correct %% | undershoot (too deep) %% | "
                   "overshoot (too shallow) %% | kernel above %% | kernel below %% |\n");
        fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|\n");
        for (unsigned s = 0; s < r[first].table.n_states; s++)
                for (size_t i = first; i < n; i++) {
                        const SimStateStats *st = &r[i].metrics.states[s];

                        if (!streq(r[i].workload, r[first].workload) ||
                            !streq(r[i].table.name, r[first].table.name) || r[i].error < 0)
                                continue;
                        fprintf(f, "| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n",
                                r[first].table.states[s].name, r[i].governor,
                                pct(st->entries, r[i].metrics.entries), pct(st->correct, st->entries),
                                pct(st->too_deep, st->entries), pct(st->too_shallow, st->entries),
                                pct(st->kernel_above, st->entries), pct(st->kernel_below, st->entries));
                }
}

/* True if r[i] starts a new (workload, table) group. */
static bool group_start(const SimResult *r, size_t i) {
        for (size_t k = 0; k < i; k++)
                if (streq(r[k].workload, r[i].workload) && streq(r[k].table.name, r[i].table.name))
                        return false;
        return true;
}

/* True if an earlier skipped result has r[i]'s governor and table. */
static bool skipped_before(const SimResult *r, size_t i) {
        for (size_t k = 0; k < i; k++)
                if (r[k].error != 0 && streq(r[k].governor, r[i].governor) &&
                    streq(r[k].table.name, r[i].table.name))
                        return true;
        return false;
}

static void markdown_skipped(FILE *f, const SimResult *r, size_t n) {
        bool any = false;

        for (size_t i = 0; i < n; i++) {
                if (r[i].error == 0 || skipped_before(r, i))
                        continue;
                if (!any)
                        fprintf(f, "\nNot applicable:\n\n");
                any = true;
                fprintf(f, "- %s on %s: %s\n", r[i].governor, r[i].table.name, sim_result_skip_reason(&r[i]));
        }
}

/* True if an earlier result was replayed on r[i]'s table. */
static bool table_before(const SimResult *r, size_t i) {
        for (size_t k = 0; k < i; k++)
                if (streq(r[k].table.name, r[i].table.name))
                        return true;
        return false;
}

const char *sim_table_costs(const SimTable *t) {
        return t->costs[0] ? t->costs : "the table's";
}

/* Which costs the ground truth, the oracle and the energy used, per table;
 * a trace's own advertised table is said to be that. */
static void markdown_costs(FILE *f, const SimResult *r, size_t n) {
        fprintf(f, "\nReal costs (the ground truth, the oracle, the energy; the governors see the advertised "
                   "ones):\n\n");
        for (size_t i = 0; i < n; i++)
                if (!table_before(r, i))
                        fprintf(f, "- %s: %s\n", r[i].table.name, sim_table_costs(&r[i].table));
        for (size_t i = 0; i < n; i++)
                if (!table_before(r, i) && strstr(sim_table_costs(&r[i].table), "advertised costs, taken as real")) {
                        fprintf(f, "\nA state that costs more than it advertises (KVM's \"haltpoll idle\" says 1 us) "
                                   "makes every governor look right\non the trace's own costs: --calibration FILE "
                                   "(idlepolicyd's calibration.json) replays with the measured ones.\n");
                        return;
                }
}

int sim_report_markdown(FILE *f, const SimResult *r, size_t n, bool per_state) {
        fprintf(f, "| workload | table | governor | intervals | correct %% | too deep %% | too shallow %% | "
                   "energy (oracle = 1) | latency µs/wakeup | non-timer latency µs | regret %% |\n");
        fprintf(f, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (size_t i = 0; i < n; i++)
                if (r[i].error == 0)
                        markdown_row(f, &r[i]);
        markdown_skipped(f, r, n);
        markdown_costs(f, r, n);
        if (per_state)
                for (size_t i = 0; i < n; i++)
                        if (group_start(r, i))
                                markdown_states(f, r, n, i);
        return ferror(f) ? -EIO : 0;
}
