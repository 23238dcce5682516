/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* From the helper's JSON to calibrated costs: parsing, the check that the
 * CPU really idled in the state being measured, and the baseline (see
 * idlepolicy-calibrate(8)). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calibrate-internal.h"
#include "log.h"

bool calibrate_state_is_polling(const CpuidleStateInfo *s) {
        return strcmp(s->name, "POLL") == 0;
}

/* Reads a non-negative finite number.  Returns 0 or -EBADMSG. */
static int get_us(json_t *o, const char *key, double *ret) {
        json_t *v = json_object_get(o, key);
        double x;

        if (!json_is_number(v))
                return -EBADMSG;
        x = json_number_value(v);
        if (!isfinite(x) || x < 0)
                return -EBADMSG;
        *ret = x;
        return 0;
}

/* Reads an integer 0..UINT32_MAX.  Returns 0 or -EBADMSG. */
static int get_u32(json_t *o, const char *key, unsigned *ret) {
        json_t *v = json_object_get(o, key);

        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX)
                return -EBADMSG;
        *ret = (unsigned) json_integer_value(v);
        return 0;
}

/* Reads the "entries" list of o (absent: *ret_n = 0).  Returns 0 or
 * -EBADMSG. */
static int get_entries(json_t *o, uint64_t ret[static CPUIDLE_STATES_MAX], unsigned *ret_n) {
        json_t *entries = json_object_get(o, "entries"), *v;
        size_t k;

        *ret_n = 0;
        if (!entries)
                return 0;
        if (!json_is_array(entries) || json_array_size(entries) > CPUIDLE_STATES_MAX)
                return -EBADMSG;
        json_array_foreach(entries, k, v) {
                if (!json_is_integer(v) || json_integer_value(v) < 0)
                        return -EBADMSG;
                ret[k] = (uint64_t) json_integer_value(v);
        }
        *ret_n = (unsigned) json_array_size(entries);
        return 0;
}

/* Takes samples and entries of a phase.  Returns 0 or -EBADMSG. */
static int get_counts(json_t *o, CalibrateMeasurement *m) {
        int r = get_u32(o, "samples", &m->samples);

        if (r == 0 && m->samples == 0)
                r = -EBADMSG;
        return r < 0 ? r : get_entries(o, m->entries, &m->n_entries);
}

/* Reads one point of the sweep; idle durations must ascend.  Returns 0 or
 * -EBADMSG. */
static int get_sweep_point(json_t *o, uint32_t prev, CalibrateSweepPoint *ret) {
        CalibrateSweepPoint p = {};
        unsigned idle = 0;
        int r;

        if (!json_is_object(o))
                return -EBADMSG;
        r = get_u32(o, "idle_us", &idle);
        if (r == 0 && idle <= prev)
                r = -EBADMSG;
        if (r == 0)
                r = get_u32(o, "samples", &p.samples);
        if (r == 0)
                r = get_u32(o, "awake", &p.awake);
        if (r == 0 && p.samples > 0)
                r = get_us(o, "median_us", &p.median_us);
        if (r == 0)
                r = get_entries(o, p.entries, &p.n_entries);
        if (r < 0)
                return r;
        p.idle_us = idle;
        *ret = p;
        return 0;
}

/* Reads "sweep" (absent or null: none).  Returns 0 or -EBADMSG. */
static int parse_sweep(json_t *root, CalibrateMeasurement *m) {
        json_t *sweep = json_object_get(root, "sweep"), *points, *v;
        size_t i;

        if (!sweep || json_is_null(sweep))
                return 0;
        points = json_object_get(sweep, "points");
        if (!json_is_object(sweep) || !json_is_array(points) || json_array_size(points) > CALIBRATE_SWEEP_MAX)
                return -EBADMSG;
        json_array_foreach(points, i, v) {
                int r = get_sweep_point(v, i > 0 ? m->sweep[i - 1].idle_us : 0, &m->sweep[i]);

                if (r < 0)
                        return r;
        }
        m->n_sweep = (unsigned) json_array_size(points);
        return 0;
}

/* Returns 0 or -EBADMSG. */
static int parse_phases(json_t *root, CalibrateMeasurement *m) {
        json_t *wakeup = json_object_get(root, "wakeup"), *timer = json_object_get(root, "timer");
        int r;

        if (!json_is_object(timer) || (wakeup && !json_is_object(wakeup) && !json_is_null(wakeup)))
                return -EBADMSG;
        m->has_wakeup = json_is_object(wakeup);
        r = get_us(timer, "median_us", &m->timer_median_us);
        if (r == 0)
                r = get_us(timer, "p99_us", &m->timer_p99_us);
        if (r == 0 && m->has_wakeup)
                r = get_us(wakeup, "median_us", &m->wakeup_median_us);
        if (r == 0 && m->has_wakeup)
                r = get_us(wakeup, "p99_us", &m->wakeup_p99_us);
        if (r == 0)
                r = get_counts(m->has_wakeup ? wakeup : timer, m);
        if (r == 0)
                r = parse_sweep(root, m);
        return r;
}

/* Returns 0 or -EBADMSG (logged). */
int calibrate_measurement_parse(const char *text, unsigned cpu, CalibrateMeasurement *ret) {
        CalibrateMeasurement m = {};
        json_auto_t *root = NULL;
        json_error_t err;

        root = json_loads(text, 0, &err);
        if (!root)
                return log_error_errno(-EBADMSG, "Failed to parse the calibration helper's output for CPU %u: %d:%d: %s",
                                       cpu, err.line, err.column, err.text);
        if (!json_is_object(root) || parse_phases(root, &m) < 0)
                return log_error_errno(-EBADMSG, "The calibration helper's output for CPU %u lacks a number it must have.", cpu);
        *ret = m;
        return 0;
}

/* Returns true if the measurement is usable (logged if not). */
bool calibrate_measurement_check(const CalibrateMeasurement *m, unsigned cpu, const CpuidleStateInfo *states,
                                 unsigned n, unsigned s) {
        uint64_t others = 0;

        if (m->n_entries == 0)
                return true;            /* no counters to check against */
        if (m->n_entries != n) {
                log_warning("The calibration helper saw %u idle states on CPU %u, expected %u: not using the run.",
                            m->n_entries, cpu, n);
                return false;
        }
        for (unsigned k = 0; k < n; k++)
                if (k != s)
                        others += m->entries[k];
        if (m->entries[s] * 2 < m->samples || others * 10 > m->entries[s]) {
                log_warning("CPU %u entered \"%s\" %llu times and other idle states %llu times for %u wakeups "
                            "(busy, a latency limit, or a governor ignoring disable bits): not using the run.",
                            cpu, states[s].name, (unsigned long long) m->entries[s], (unsigned long long) others,
                            m->samples);
                return false;
        }
        return true;
}

/* The figures compared across states: wakeups, or timer lateness without
 * a partner CPU. */
static double median_of(const CalibrateMeasurement *m) {
        return m->has_wakeup ? m->wakeup_median_us : m->timer_median_us;
}

static double p99_of(const CalibrateMeasurement *m) {
        return m->has_wakeup ? m->wakeup_p99_us : m->timer_p99_us;
}

/* Returns the index of the baseline measurement, or -1 if none is valid. */
static int baseline(const CpuidleStateInfo *states, unsigned n, const CalibrateMeasurement *m) {
        int best = -1;

        for (unsigned k = 0; k < n; k++)
                if (m[k].valid && calibrate_state_is_polling(&states[k]))
                        return (int) k;
        for (unsigned k = 0; k < n; k++)
                if (m[k].valid && (best < 0 || median_of(&m[k]) < median_of(&m[best])))
                        best = (int) k;
        return best;
}

bool calibrate_sweep_point_valid(const CalibrateSweepPoint *p, unsigned s) {
        uint64_t wakeups = (uint64_t) p->samples + p->awake;

        if (p->samples == 0 || 2 * (uint64_t) p->samples < wakeups)
                return false;
        if (p->n_entries == 0)
                return true;
        return s < p->n_entries && 10 * p->entries[s] >= 9 * wakeups;
}

/* The sweep point of m at idle_us, or NULL. */
static const CalibrateSweepPoint *sweep_point(const CalibrateMeasurement *m, uint32_t idle_us) {
        for (unsigned i = 0; i < m->n_sweep; i++)
                if (m->sweep[i].idle_us == idle_us)
                        return &m->sweep[i];
        return NULL;
}

/* The curve of state k over baseline b: the idle durations valid in both
 * runs, then what it shows. */
static void fill_curve(CalibrationState *s, const CalibrateMeasurement *m, unsigned k, const CalibrateMeasurement *base,
                       unsigned b) {
        s->n_curve = 0;
        for (unsigned i = 0; i < m->n_sweep && s->n_curve < CALIBRATION_CURVE_MAX; i++) {
                const CalibrateSweepPoint *p = &m->sweep[i], *q = sweep_point(base, p->idle_us);
                double d;

                if (!q || !calibrate_sweep_point_valid(p, k) || !calibrate_sweep_point_valid(q, b))
                        continue;
                d = p->median_us - q->median_us;
                if (d > CALIBRATION_PENALTY_MAX_US)
                        d = CALIBRATION_PENALTY_MAX_US;
                if (d < -CALIBRATION_PENALTY_MAX_US)
                        d = -CALIBRATION_PENALTY_MAX_US;
                s->curve[s->n_curve++] = (CalibrationPoint) {
                        .idle_us = p->idle_us,
                        .penalty_us = d >= 0 ? (int32_t) (d + 0.5) : -(int32_t) (0.5 - d),
                };
        }
        calibration_curve_derive(s->curve, s->n_curve, &s->entry_us, &s->residency_us);
}

static uint32_t us_over(double x, double base) {
        double d = x - base;

        if (!(d > 0))
                return 0;
        return d >= UINT32_MAX ? UINT32_MAX : (uint32_t) (d + 0.5);
}

void calibrate_cpu_fill(CalibrationCpu *ret, const CpuidleStateInfo *states, unsigned n, const CalibrateMeasurement *m) {
        int b = baseline(states, n, m);

        *ret = (CalibrationCpu) { .n_states = n < CALIBRATION_STATES_MAX ? n : CALIBRATION_STATES_MAX };
        for (unsigned k = 0; k < ret->n_states; k++) {
                CalibrationState *s = &ret->states[k];

                snprintf(s->name, sizeof(s->name), "%s", states[k].name);
                s->advertised_latency_us = states[k].latency_us > UINT32_MAX ? UINT32_MAX : (uint32_t) states[k].latency_us;
                s->measured = m[k].valid && b >= 0;
                if (!s->measured)
                        continue;
                s->wakeup_us = us_over(median_of(&m[k]), median_of(&m[b]));
                s->wakeup_p99_us = us_over(p99_of(&m[k]), p99_of(&m[b]));
                s->timer_late_us = us_over(m[k].timer_median_us, 0);
                if (k != (unsigned) b)
                        fill_curve(s, &m[k], k, &m[b], (unsigned) b);
        }
}
