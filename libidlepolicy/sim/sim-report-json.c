/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <jansson.h>
#include <math.h>

#include "sim-report.h"
#include "sim-util.h"

#define JSON_FORMAT_VERSION 1

static void json_decref_p(json_t **j) {
        json_decref(*j);
}
#define _cleanup_json_ _cleanup_(json_decref_p)

/* A number, or null for NaN (JSON has no NaN). */
static json_t *json_num(double v) {
        return isnan(v) ? json_null() : json_real(round(v * 1e4) / 1e4);
}

/* Sets key to value, taking the reference.  Returns 0 or -ENOMEM. */
static int put(json_t *o, const char *key, json_t *value) {
        return json_object_set_new(o, key, value) < 0 ? -ENOMEM : 0;
}

static json_t *state_json(const SimResult *r, unsigned s) {
        const SimStateStats *st = &r->metrics.states[s];
        json_t *o = json_object();
        int e = 0;

        if (!o)
                return NULL;
        e |= put(o, "name", json_string(r->table.states[s].name));
        e |= put(o, "entries", json_integer((json_int_t) st->entries));
        e |= put(o, "usage_pct", json_num(pct(st->entries, r->metrics.entries)));
        e |= put(o, "time_pct", json_num(pct(st->time_ns, r->metrics.idle_ns)));
        e |= put(o, "correct_pct", json_num(pct(st->correct, st->entries)));
        e |= put(o, "undershoot_pct", json_num(pct(st->too_deep, st->entries)));
        e |= put(o, "overshoot_pct", json_num(pct(st->too_shallow, st->entries)));
        e |= put(o, "kernel_above_pct", json_num(pct(st->kernel_above, st->entries)));
        e |= put(o, "kernel_below_pct", json_num(pct(st->kernel_below, st->entries)));
        if (e) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static int row_states(json_t *row, const SimResult *r) {
        json_t *states = json_array();

        if (!states || put(row, "states", states) < 0)
                return -ENOMEM;
        for (unsigned s = 0; s < r->table.n_states; s++)
                if (json_array_append_new(states, state_json(r, s)) < 0)
                        return -ENOMEM;
        return 0;
}

static json_t *row_json(const SimResult *r) {
        const SimSummary *s = &r->summary;
        const SimMetrics *m = &r->metrics;
        _cleanup_json_ json_t *o = json_object();
        int e = 0;

        if (!o)
                return NULL;
        e |= put(o, "workload", json_string(r->workload));
        e |= put(o, "table", json_string(r->table.name));
        e |= put(o, "costs", json_string(sim_table_costs(&r->table)));
        e |= put(o, "governor", json_string(r->governor));
        e |= put(o, "seed", json_integer((json_int_t) r->seed));
        e |= put(o, "intervals", json_integer((json_int_t) m->intervals));
        e |= put(o, "entries", json_integer((json_int_t) m->entries));
        e |= put(o, "correct_pct", json_num(s->correct_pct));
        e |= put(o, "too_deep_pct", json_num(s->too_deep_pct));
        e |= put(o, "too_shallow_pct", json_num(s->too_shallow_pct));
        e |= put(o, "kernel_too_deep_pct", json_num(s->kernel_above_pct));
        e |= put(o, "kernel_too_shallow_pct", json_num(s->kernel_below_pct));
        e |= put(o, "energy", json_num(s->energy));
        e |= put(o, "latency_penalty_us", json_num(s->latency_us));
        e |= put(o, "latency_timer_us", json_num(s->latency_timer_us));
        e |= put(o, "latency_nontimer_us", json_num(s->latency_other_us));
        e |= put(o, "timer_wakeups", json_integer((json_int_t) m->timer_wakeups));
        e |= put(o, "nontimer_wakeups", json_integer((json_int_t) m->other_wakeups));
        e |= put(o, "regret_pct", json_num(s->regret_pct));
        if (e || row_states(o, r) < 0)
                return NULL;
        return TAKE_PTR(o);
}

static json_t *skipped_json(const SimResult *r) {
        return json_pack("{s:s, s:s, s:s, s:s}", "workload", r->workload, "table", r->table.name,
                         "governor", r->governor, "reason", sim_result_skip_reason(r));
}

int sim_report_json(FILE *f, const SimResult *r, size_t n) {
        _cleanup_json_ json_t *root = json_pack("{s:s, s:i, s:[], s:[]}", "generator", "idlepolicy-sim",
                                                "version", JSON_FORMAT_VERSION, "rows", "skipped");
        json_t *rows, *skipped;

        if (!root)
                return -ENOMEM;
        rows = json_object_get(root, "rows");
        skipped = json_object_get(root, "skipped");
        for (size_t i = 0; i < n; i++) {
                json_t *item = r[i].error == 0 ? row_json(&r[i]) : skipped_json(&r[i]);

                if (json_array_append_new(r[i].error == 0 ? rows : skipped, item) < 0)
                        return -ENOMEM;
        }
        if (json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) < 0 || fputc('\n', f) == EOF)
                return -EIO;
        return 0;
}
