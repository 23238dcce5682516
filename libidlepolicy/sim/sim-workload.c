/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "sim-util.h"
#include "sim-workload-type.h"

#define SPEC_MAX 512
#define IDLE_FALLBACK_NS NSEC_PER_SEC

static const WorkloadType *workload_type_find(const char *name) {
        for (size_t i = 0; workload_types[i]; i++)
                if (streq(workload_types[i]->name, name))
                        return workload_types[i];
        return NULL;
}

static int param_find(const WorkloadType *t, const char *key) {
        for (unsigned i = 0; i < WL_PARAMS_MAX && t->params[i].key; i++)
                if (streq(t->params[i].key, key))
                        return (int) i;
        return -1;
}

unsigned wl_param_index(const Workload *w, const char *key) {
        int i = param_find(w->type, key);

        return i < 0 ? 0 : (unsigned) i;
}

double wl_param(const Workload *w, const char *key) {
        return w->p[wl_param_index(w, key)];
}

static void params_default(Workload *w) {
        for (unsigned i = 0; i < WL_PARAMS_MAX && w->type->params[i].key; i++) {
                const WorkloadParam *d = &w->type->params[i];

                w->p[i] = d->def;
                if (d->def_name)
                        snprintf(w->names[i], sizeof(w->names[i]), "%s", d->def_name);
        }
}

static int param_set(Workload *w, const char *key, const char *value, ErrorInfo *e) {
        int i = param_find(w->type, key);
        const WorkloadParam *d;
        char *end;
        double v;

        if (i < 0)
                return errinfo_set(e, -EINVAL, "workload %s: unknown parameter \"%s\" (%s)",
                                   w->type->name, key, w->type->params_help);
        d = &w->type->params[i];
        if (d->def_name) {
                if (!workload_type_find(value) || strlen(value) >= WL_NAME_MAX)
                        return errinfo_set(e, -EINVAL, "workload %s: %s: unknown workload \"%s\"",
                                           w->type->name, key, value);
                strcpy(w->names[i], value);
                return 0;
        }
        errno = 0;
        v = strtod(value, &end);
        if (errno != 0 || end == value || *end != '\0' || !isfinite(v) || v < d->min || v > d->max)
                return errinfo_set(e, -EINVAL, "workload %s: %s: \"%s\" is not a number in [%g, %g]",
                                   w->type->name, key, value, d->min, d->max);
        w->p[i] = v;
        return 0;
}

/* Applies "k=v,k=v" to w.  Returns 0 or -EINVAL with e filled. */
static int params_parse(Workload *w, char *list, ErrorInfo *e) {
        char *save = NULL;

        for (char *kv = strtok_r(list, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
                char *eq = strchr(kv, '=');
                int r;

                if (!eq)
                        return errinfo_set(e, -EINVAL, "workload %s: expected KEY=VALUE, got \"%s\"",
                                           w->type->name, kv);
                *eq = '\0';
                r = param_set(w, kv, eq + 1, e);
                if (r < 0)
                        return r;
        }
        return 0;
}

int workload_new(const char *spec, uint64_t seed, Workload **ret, ErrorInfo *e) {
        _cleanup_workload_ Workload *w = NULL;
        char buf[SPEC_MAX], *colon;
        int r;

        if (strlen(spec) >= sizeof(buf))
                return errinfo_set(e, -EINVAL, "workload spec too long");
        strcpy(buf, spec);
        colon = strchr(buf, ':');
        if (colon)
                *colon = '\0';
        w = calloc(1, sizeof(Workload));
        if (!w)
                return -ENOMEM;
        w->type = workload_type_find(buf);
        if (!w->type)
                return errinfo_set(e, -EINVAL, "unknown workload \"%s\"", buf);
        params_default(w);
        if (colon) {
                r = params_parse(w, colon + 1, e);
                if (r < 0)
                        return r;
        }
        sim_rand_seed(&w->rng, seed);
        if (w->type->init) {
                r = w->type->init(w, seed, e);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(w);
        return 0;
}

void workload_next(Workload *w, SimInterval *ret) {
        *ret = (SimInterval) {};
        w->type->next(w, ret);
}

Workload *workload_free(Workload *w) {
        if (!w)
                return NULL;
        workload_free(w->sub[0]);
        workload_free(w->sub[1]);
        free(w);
        return NULL;
}

void workload_freep(Workload **w) {
        workload_free(*w);
}

int workload_generate(const char *spec, uint64_t seed, size_t n, SimInterval **ret, ErrorInfo *e) {
        _cleanup_workload_ Workload *w = NULL;
        SimInterval *iv;
        int r;

        r = workload_new(spec, seed, &w, e);
        if (r < 0)
                return r;
        iv = calloc(n ? n : 1, sizeof(SimInterval));
        if (!iv)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                workload_next(w, &iv[i]);
        *ret = iv;
        return 0;
}

const char *workload_describe(size_t i, const char **ret_summary, const char **ret_params) {
        for (size_t k = 0; workload_types[k]; k++)
                if (k == i) {
                        *ret_summary = workload_types[k]->summary;
                        *ret_params = workload_types[k]->params_help;
                        return workload_types[k]->name;
                }
        return NULL;
}

uint64_t wl_us(double us) {
        return us <= 0 ? 0 : (uint64_t) llround(us * 1000.0);
}

void wl_run(Workload *w, uint64_t busy_ns, SimInterval *ret) {
        w->now_ns += busy_ns;
        ret->busy_ns = busy_ns;
}

/* Returns the time from now to the next background timer, re-arming it
 * (every bg_ms on average, ±50%) once it has expired; WL_NONE if off. */
static uint64_t wl_background(Workload *w) {
        double bg_ms = wl_param(w, "bg_ms");

        if (bg_ms <= 0)
                return WL_NONE;
        while (w->bg_timer_ns <= w->now_ns)
                w->bg_timer_ns += wl_us(sim_rand_range(&w->rng, 500.0, 1500.0) * bg_ms) + 1;
        return w->bg_timer_ns - w->now_ns;
}

void wl_idle(Workload *w, uint64_t own_timer_ns, uint64_t event_ns, SimInterval *ret) {
        uint64_t sleep = min_u64(own_timer_ns, wl_background(w));

        if (sleep == WL_NONE && event_ns == WL_NONE)
                sleep = IDLE_FALLBACK_NS;
        if (event_ns < sleep) {
                ret->duration_ns = max_u64(event_ns, 1);
                ret->timer_wake = false;
        } else {
                double late = sim_rand_range(&w->rng, wl_param(w, "late_min_us"),
                                             fmax(wl_param(w, "late_max_us"), wl_param(w, "late_min_us")));
                ret->duration_ns = sleep + wl_us(late);
                ret->timer_wake = true;
        }
        ret->sleep_length_ns = sleep == WL_NONE ? SIM_SLEEP_UNKNOWN : sleep;
        w->now_ns += ret->duration_ns;
}
