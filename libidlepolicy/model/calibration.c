/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Calibrated idle-state costs: the data, the mis-described judgement and
 * the JSON form kept as calibration.json:
 *
 *   { "version": 1, "realtime_usec": 1700000000000000, "driver": "haltpoll",
 *     "cpus": [ { "cpu": 0, "states": [ { "name": "POLL", "measured": true,
 *                 "advertised_latency_us": 0, "wakeup_us": 0, "wakeup_p99_us": 2,
 *                 "timer_late_us": 6, "misdescribed": false, "entry_us": 0,
 *                 "residency_us": 0, "curve": [ { "idle_us": 2, "penalty_us": 0 },
 *                 ... ] }, ... ] }, ... ] }
 *
 * Every key is required but the sweep's ("entry_us", "residency_us",
 * "curve": absent in files written before it, read as 0 and empty),
 * unknown keys are refused, "cpu" must equal the entry's index (an offline
 * CPU has an empty "states" list).  Pure: no clock, no logging, no paths. */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibration.h"

#define CALIBRATION_VERSION 1

int calibration_new(unsigned n_cpus, Calibration **ret) {
        Calibration *c;

        if (n_cpus == 0 || n_cpus > CALIBRATION_CPUS_MAX)
                return -EINVAL;
        c = calloc(1, sizeof(Calibration));
        if (!c)
                return -ENOMEM;
        c->cpus = calloc(n_cpus, sizeof(CalibrationCpu));
        if (!c->cpus) {
                free(c);
                return -ENOMEM;
        }
        c->n_cpus = n_cpus;
        *ret = c;
        return 0;
}

Calibration *calibration_free(Calibration *c) {
        if (c) {
                free(c->cpus);
                free(c);
        }
        return NULL;
}

void calibration_freep(Calibration **c) {
        *c = calibration_free(*c);
}

/* Returns true if s is mis-described: wakeup_us > 4 × advertised + 10 µs. */
static bool state_misdescribed(const CalibrationState *s) {
        return s->measured && (uint64_t) s->wakeup_us > 4 * (uint64_t) s->advertised_latency_us + 10;
}

/* Returns the number of mis-described states. */
unsigned calibration_judge(Calibration *c) {
        unsigned n = 0;

        for (unsigned i = 0; i < c->n_cpus; i++)
                for (unsigned k = 0; k < c->cpus[i].n_states; k++) {
                        CalibrationState *s = &c->cpus[i].states[k];

                        s->misdescribed = state_misdescribed(s);
                        n += s->misdescribed;
                }
        return n;
}

/* Two penalties are the same within the larger of 3 µs (a virtual
 * machine's medians move by that much between runs) and a tenth of the
 * settled penalty. */
static int32_t flat_tolerance_us(int32_t settled) {
        int32_t tenth = (settled < 0 ? -settled : settled) / 10;

        return tenth > 3 ? tenth : 3;
}

static bool flat(int32_t x, int32_t settled) {
        int64_t d = (int64_t) x - settled;

        return (d < 0 ? -d : d) <= flat_tolerance_us(settled);
}

/* The settled penalty is the last point's.  entry_us = the highest
 * penalty minus the settled one, if more than the tolerance (a wakeup
 * that comes while the CPU is still entering costs more).  residency_us =
 * the idle duration of the first point of the flat tail -- the points
 * from there to the last all within the tolerance of the settled one --
 * when the tail holds at least 3 points and does not start at the first:
 * a curve flat from its start has no knee, one still moving at its end
 * has not settled within the sweep. */
void calibration_curve_derive(const CalibrationPoint *curve, unsigned n, uint32_t *ret_entry_us,
                              uint32_t *ret_residency_us) {
        int32_t settled, peak;
        unsigned j;

        *ret_entry_us = *ret_residency_us = 0;
        if (n < 3)
                return;
        settled = peak = curve[n - 1].penalty_us;
        for (unsigned i = 0; i < n; i++)
                if (curve[i].penalty_us > peak)
                        peak = curve[i].penalty_us;
        if (!flat(peak, settled))
                *ret_entry_us = (uint32_t) ((int64_t) peak - settled);
        for (j = n - 1; j > 0 && flat(curve[j - 1].penalty_us, settled); j--)
                ;
        if (j > 0 && n - j >= 3)
                *ret_residency_us = curve[j].idle_us;
}

int calibration_penalty_us(const CalibrationState *s, uint32_t idle_us, int32_t *ret) {
        const CalibrationPoint *c = s->curve;
        unsigned n = s->n_curve < CALIBRATION_CURVE_MAX ? s->n_curve : CALIBRATION_CURVE_MAX, i;

        if (!s->measured || n == 0)
                return -ENODATA;
        for (i = 0; i < n && c[i].idle_us < idle_us; i++)
                ;
        if (i == 0 || i == n) {
                *ret = c[i == 0 ? 0 : n - 1].penalty_us;
                return 0;
        }
        /* between c[i - 1] and c[i], linearly */
        *ret = (int32_t) (c[i - 1].penalty_us + ((int64_t) c[i].penalty_us - c[i - 1].penalty_us) *
                                                        (idle_us - c[i - 1].idle_us) / (c[i].idle_us - c[i - 1].idle_us));
        return 0;
}

uint32_t calibration_breakeven_us(const CalibrationState *s, uint32_t advertised_residency_us) {
        if (!s || !s->measured || s->residency_us == 0)
                return 0;
        return s->residency_us > advertised_residency_us ? s->residency_us : advertised_residency_us;
}

/* ---- the keys of one state ----------------------------------------------- */

typedef enum StateKeyKind {
        STATE_KEY_NAME,
        STATE_KEY_BOOL,
        STATE_KEY_U32,
        STATE_KEY_CURVE,
} StateKeyKind;

typedef struct StateKey {
        const char *name;
        StateKeyKind kind;
        size_t offset;
        bool optional;                /* absent: 0 or empty (files from before the sweep) */
        const char *requirement;
} StateKey;

#define U32_REQUIREMENT "must be an integer between 0 and 4294967295 (µs)"

static const StateKey state_keys[] = {
        { "name", STATE_KEY_NAME, offsetof(CalibrationState, name), false, "must be a string of 1-31 printable bytes" },
        { "measured", STATE_KEY_BOOL, offsetof(CalibrationState, measured), false, "must be true or false" },
        { "advertised_latency_us", STATE_KEY_U32, offsetof(CalibrationState, advertised_latency_us), false,
          U32_REQUIREMENT },
        { "wakeup_us", STATE_KEY_U32, offsetof(CalibrationState, wakeup_us), false, U32_REQUIREMENT },
        { "wakeup_p99_us", STATE_KEY_U32, offsetof(CalibrationState, wakeup_p99_us), false, U32_REQUIREMENT },
        { "timer_late_us", STATE_KEY_U32, offsetof(CalibrationState, timer_late_us), false, U32_REQUIREMENT },
        { "misdescribed", STATE_KEY_BOOL, offsetof(CalibrationState, misdescribed), false, "must be true or false" },
        { "entry_us", STATE_KEY_U32, offsetof(CalibrationState, entry_us), true, U32_REQUIREMENT },
        { "residency_us", STATE_KEY_U32, offsetof(CalibrationState, residency_us), true, U32_REQUIREMENT },
        { "curve", STATE_KEY_CURVE, offsetof(CalibrationState, curve), true,
          "must be a list of at most 16 points" },
};

#define N_STATE_KEYS (sizeof(state_keys) / sizeof(state_keys[0]))

/* Returns true for 1..size-1 bytes without control characters or NUL. */
static bool text_valid(json_t *v, size_t size, bool allow_empty) {
        const char *s = json_string_value(v);
        size_t len = json_string_length(v);

        if (!s || strlen(s) != len || len >= size || (len == 0 && !allow_empty))
                return false;
        for (size_t i = 0; i < len; i++)
                if ((unsigned char) s[i] < 0x20 || s[i] == 0x7f)
                        return false;
        return true;
}

/* Stores v into s's field for k.  Returns 0 or -EINVAL. */
static int state_key_parse(const StateKey *k, json_t *v, CalibrationState *s) {
        char *field = (char *) s + k->offset;

        switch (k->kind) {
        case STATE_KEY_NAME:
                if (!text_valid(v, sizeof(s->name), false))
                        return -EINVAL;
                memcpy(field, json_string_value(v), json_string_length(v) + 1);
                return 0;
        case STATE_KEY_BOOL:
                if (!json_is_boolean(v))
                        return -EINVAL;
                *(bool *) field = json_is_true(v);
                return 0;
        default:
                if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX)
                        return -EINVAL;
                *(uint32_t *) field = (uint32_t) json_integer_value(v);
                return 0;
        }
}

static json_t *curve_to_json(const CalibrationState *s) {
        json_auto_t *curve = json_array();

        if (!curve)
                return NULL;
        for (unsigned i = 0; i < s->n_curve && i < CALIBRATION_CURVE_MAX; i++)
                if (json_array_append_new(curve, json_pack("{s:I, s:I}", "idle_us", (json_int_t) s->curve[i].idle_us,
                                                           "penalty_us", (json_int_t) s->curve[i].penalty_us)) < 0)
                        return NULL;
        return json_incref(curve);
}

static json_t *state_key_to_json(const StateKey *k, const CalibrationState *s) {
        const char *field = (const char *) s + k->offset;

        switch (k->kind) {
        case STATE_KEY_NAME:
                return json_string(field);
        case STATE_KEY_BOOL:
                return json_boolean(*(const bool *) field);
        case STATE_KEY_CURVE:
                return curve_to_json(s);
        default:
                return json_integer(*(const uint32_t *) field);
        }
}

static const StateKey *state_key_find(const char *name) {
        for (size_t i = 0; i < N_STATE_KEYS; i++)
                if (strcmp(state_keys[i].name, name) == 0)
                        return &state_keys[i];
        return NULL;
}

/* ---- parsing ------------------------------------------------------------- */

/* Where in the file a value is: file name and key path, for messages. */
typedef struct Where {
        const char *file;
        char key[96];
} Where;

static int bad(ErrorInfo *e, const Where *w, const char *what) {
        return errinfo_set(e, -EINVAL, "%s: key \"%s\": %s", w->file, w->key, what);
}

/* Parses point j of a curve (w names the curve) into *ret; prev is the
 * previous point's idle_us (0 for the first).  Returns 0 or -EINVAL with
 * e set. */
static int parse_point(json_t *o, const Where *curve, unsigned j, uint32_t prev, CalibrationPoint *ret, ErrorInfo *e) {
        json_t *idle = json_object_get(o, "idle_us"), *penalty = json_object_get(o, "penalty_us"), *v;
        Where w = { .file = curve->file };
        const char *key;

        snprintf(w.key, sizeof(w.key), "%s[%u]", curve->key, j);
        if (!json_is_object(o))
                return bad(e, &w, "must be an object");
        json_object_foreach(o, key, v)
                if (strcmp(key, "idle_us") != 0 && strcmp(key, "penalty_us") != 0) {
                        snprintf(w.key, sizeof(w.key), "%s[%u].%s", curve->key, j, key);
                        return bad(e, &w, "unknown key");
                }
        snprintf(w.key, sizeof(w.key), "%s[%u].idle_us", curve->key, j);
        if (!idle)
                return bad(e, &w, "missing");
        if (!json_is_integer(idle) || json_integer_value(idle) <= (json_int_t) prev || json_integer_value(idle) > UINT32_MAX)
                return bad(e, &w, "must be an integer between 1 and 4294967295 (µs), above the previous point's");
        snprintf(w.key, sizeof(w.key), "%s[%u].penalty_us", curve->key, j);
        if (!penalty)
                return bad(e, &w, "missing");
        if (!json_is_integer(penalty) || json_integer_value(penalty) < -CALIBRATION_PENALTY_MAX_US ||
            json_integer_value(penalty) > CALIBRATION_PENALTY_MAX_US)
                return bad(e, &w, "must be an integer between -1000000 and 1000000 (µs)");
        *ret = (CalibrationPoint) { .idle_us = (uint32_t) json_integer_value(idle),
                                    .penalty_us = (int32_t) json_integer_value(penalty) };
        return 0;
}

/* Parses a state's "curve" (w names it) into s.  Returns 0 or -EINVAL
 * with e set. */
static int parse_curve(json_t *v, const Where *w, CalibrationState *s, ErrorInfo *e) {
        json_t *point;
        size_t j;

        if (!json_is_array(v) || json_array_size(v) > CALIBRATION_CURVE_MAX)
                return bad(e, w, "must be a list of at most 16 points");
        json_array_foreach(v, j, point) {
                int r = parse_point(point, w, (unsigned) j, j > 0 ? s->curve[j - 1].idle_us : 0, &s->curve[j], e);

                if (r < 0)
                        return r;
        }
        s->n_curve = (unsigned) json_array_size(v);
        return 0;
}

/* Parses states[k] of cpu i into s.  Returns 0 or -EINVAL with e set. */
static int parse_state(json_t *o, const char *file, unsigned i, unsigned k, CalibrationState *s, ErrorInfo *e) {
        Where w = { .file = file };
        const char *key;
        json_t *v;

        snprintf(w.key, sizeof(w.key), "cpus[%u].states[%u]", i, k);
        if (!json_is_object(o))
                return bad(e, &w, "must be an object");
        json_object_foreach(o, key, v) {
                const StateKey *sk = state_key_find(key);
                int r;

                snprintf(w.key, sizeof(w.key), "cpus[%u].states[%u].%s", i, k, key);
                if (!sk)
                        return bad(e, &w, "unknown key");
                if (sk->kind == STATE_KEY_CURVE) {
                        r = parse_curve(v, &w, s, e);
                        if (r < 0)
                                return r;
                } else if (state_key_parse(sk, v, s) < 0)
                        return bad(e, &w, sk->requirement);
        }
        for (size_t j = 0; j < N_STATE_KEYS; j++)
                if (!state_keys[j].optional && !json_object_get(o, state_keys[j].name)) {
                        snprintf(w.key, sizeof(w.key), "cpus[%u].states[%u].%s", i, k, state_keys[j].name);
                        return bad(e, &w, "missing");
                }
        return 0;
}

/* Returns 0 or -EINVAL with e set if two states of cpu i share a name. */
static int check_unique_names(const CalibrationCpu *cpu, const char *file, unsigned i, ErrorInfo *e) {
        Where w = { .file = file };

        for (unsigned a = 0; a < cpu->n_states; a++)
                for (unsigned b = 0; b < a; b++)
                        if (strcmp(cpu->states[a].name, cpu->states[b].name) == 0) {
                                snprintf(w.key, sizeof(w.key), "cpus[%u].states[%u].name", i, a);
                                return bad(e, &w, "duplicate state name");
                        }
        return 0;
}

/* Checks the keys of cpu object o (index i) other than "states". */
static int check_cpu_keys(json_t *o, const char *file, unsigned i, ErrorInfo *e) {
        Where w = { .file = file };
        json_t *id = json_object_get(o, "cpu");
        const char *key;
        json_t *v;

        json_object_foreach(o, key, v)
                if (strcmp(key, "cpu") != 0 && strcmp(key, "states") != 0) {
                        snprintf(w.key, sizeof(w.key), "cpus[%u].%s", i, key);
                        return bad(e, &w, "unknown key");
                }
        snprintf(w.key, sizeof(w.key), "cpus[%u].cpu", i);
        if (!id)
                return bad(e, &w, "missing");
        if (!json_is_integer(id) || json_integer_value(id) != (json_int_t) i)
                return bad(e, &w, "must be the entry's index");
        return 0;
}

/* Parses cpus[i] into cpu.  Returns 0 or -EINVAL with e set. */
static int parse_cpu(json_t *o, const char *file, unsigned i, CalibrationCpu *cpu, ErrorInfo *e) {
        Where w = { .file = file };
        json_t *states, *v;
        size_t k;
        int r;

        snprintf(w.key, sizeof(w.key), "cpus[%u]", i);
        if (!json_is_object(o))
                return bad(e, &w, "must be an object");
        r = check_cpu_keys(o, file, i, e);
        if (r < 0)
                return r;
        states = json_object_get(o, "states");
        snprintf(w.key, sizeof(w.key), "cpus[%u].states", i);
        if (!states)
                return bad(e, &w, "missing");
        if (!json_is_array(states) || json_array_size(states) > CALIBRATION_STATES_MAX)
                return bad(e, &w, "must be a list of at most 10 states");
        json_array_foreach(states, k, v) {
                r = parse_state(v, file, i, (unsigned) k, &cpu->states[k], e);
                if (r < 0)
                        return r;
        }
        cpu->n_states = (unsigned) json_array_size(states);
        return check_unique_names(cpu, file, i, e);
}

/* Checks "version" and that only the known top-level keys are present. */
static int check_top_keys(json_t *root, const char *file, ErrorInfo *e) {
        static const char *const known[] = { "version", "realtime_usec", "driver", "cpus" };
        Where w = { .file = file };
        json_t *version = json_object_get(root, "version");
        const char *key;
        json_t *v;

        json_object_foreach(root, key, v) {
                bool ok = false;

                for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
                        ok = ok || strcmp(key, known[i]) == 0;
                snprintf(w.key, sizeof(w.key), "%s", key);
                if (!ok)
                        return bad(e, &w, "unknown key");
        }
        for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
                if (!json_object_get(root, known[i])) {
                        snprintf(w.key, sizeof(w.key), "%s", known[i]);
                        return bad(e, &w, "missing");
                }
        snprintf(w.key, sizeof(w.key), "version");
        if (!json_is_integer(version) || json_integer_value(version) != CALIBRATION_VERSION)
                return bad(e, &w, "must be 1");
        return 0;
}

/* Builds the calibration from the checked top level.  Returns 0, -EINVAL
 * with e set, or -ENOMEM. */
static int parse_root(json_t *root, const char *file, Calibration **ret, ErrorInfo *e) {
        _cleanup_calibration_ Calibration *c = NULL;
        json_t *when = json_object_get(root, "realtime_usec");
        json_t *driver = json_object_get(root, "driver");
        json_t *cpus = json_object_get(root, "cpus"), *v;
        Where w = { .file = file };
        size_t i;
        int r;

        snprintf(w.key, sizeof(w.key), "realtime_usec");
        if (!json_is_integer(when) || json_integer_value(when) < 0)
                return bad(e, &w, "must be a non-negative integer (µs since the epoch)");
        snprintf(w.key, sizeof(w.key), "driver");
        if (!text_valid(driver, sizeof(c->driver), true))
                return bad(e, &w, "must be a string of at most 63 printable bytes");
        snprintf(w.key, sizeof(w.key), "cpus");
        if (!json_is_array(cpus) || json_array_size(cpus) == 0 || json_array_size(cpus) > CALIBRATION_CPUS_MAX)
                return bad(e, &w, "must be a list of 1-8192 CPUs");
        r = calibration_new((unsigned) json_array_size(cpus), &c);
        if (r < 0)
                return r;
        c->realtime_usec = (uint64_t) json_integer_value(when);
        memcpy(c->driver, json_string_value(driver), json_string_length(driver) + 1);
        json_array_foreach(cpus, i, v) {
                r = parse_cpu(v, file, (unsigned) i, &c->cpus[i], e);
                if (r < 0)
                        return r;
        }
        *ret = c;
        c = NULL;
        return 0;
}

int calibration_parse(const char *text, const char *filename, Calibration **ret, ErrorInfo *e) {
        const char *file = filename ? filename : "(calibration)";
        json_auto_t *root = NULL;
        json_error_t err;
        int r;

        if (!text)
                return errinfo_set(e, -EINVAL, "%s: no text", file);
        root = json_loads(text, JSON_REJECT_DUPLICATES, &err);
        if (!root)
                return errinfo_set(e, -EINVAL, "%s:%d:%d: parse error: %s", file, err.line, err.column, err.text);
        if (!json_is_object(root))
                return errinfo_set(e, -EINVAL, "%s: the top level must be a JSON object", file);
        r = check_top_keys(root, file, e);
        if (r < 0)
                return r;
        return parse_root(root, file, ret, e);
}

/* ---- serialising --------------------------------------------------------- */

static json_t *cpu_to_json(const CalibrationCpu *cpu, unsigned i) {
        json_auto_t *o = json_object(), *states = json_array();

        if (!o || !states || json_object_set_new(o, "cpu", json_integer(i)) < 0)
                return NULL;
        for (unsigned k = 0; k < cpu->n_states; k++) {
                json_t *s = json_object();

                if (!s || json_array_append_new(states, s) < 0)
                        return NULL;
                for (size_t j = 0; j < N_STATE_KEYS; j++)
                        if (json_object_set_new(s, state_keys[j].name, state_key_to_json(&state_keys[j], &cpu->states[k])) < 0)
                                return NULL;
        }
        if (json_object_set(o, "states", states) < 0)
                return NULL;
        return json_incref(o);
}

/* Returns 0, -EINVAL (more than CALIBRATION_STATES_MAX states) or -ENOMEM. */
int calibration_to_json(const Calibration *c, char **ret) {
        json_auto_t *root = json_object(), *cpus = json_array();
        char *text;

        if (!root || !cpus)
                return -ENOMEM;
        if (json_object_set_new(root, "version", json_integer(CALIBRATION_VERSION)) < 0 ||
            json_object_set_new(root, "realtime_usec", json_integer((json_int_t) c->realtime_usec)) < 0 ||
            json_object_set_new(root, "driver", json_string(c->driver)) < 0 ||
            json_object_set(root, "cpus", cpus) < 0)
                return -ENOMEM;
        for (unsigned i = 0; i < c->n_cpus; i++) {
                if (c->cpus[i].n_states > CALIBRATION_STATES_MAX)
                        return -EINVAL;
                if (json_array_append_new(cpus, cpu_to_json(&c->cpus[i], i)) < 0)
                        return -ENOMEM;
        }
        text = json_dumps(root, JSON_INDENT(8) | JSON_PRESERVE_ORDER);
        if (!text)
                return -ENOMEM;
        *ret = text;
        return 0;
}
