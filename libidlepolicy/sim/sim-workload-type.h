/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internal: what a workload generator is made of. */

#include <stdbool.h>
#include <stdint.h>

#include "sim-rand.h"
#include "sim-workload.h"

#define WL_PARAMS_MAX 12
#define WL_NAME_MAX 32
#define WL_NONE UINT64_MAX

typedef struct WorkloadParam {
        const char *key;
        double def;
        double min, max;
        const char *def_name;     /* set for a parameter naming another workload */
} WorkloadParam;

typedef struct WorkloadType {
        const char *name;
        const char *summary;
        const char *params_help;
        WorkloadParam params[WL_PARAMS_MAX];   /* ends at key == NULL */
        /* Optional: set up sub-generators and the like.  Returns 0 or a
         * negative errno with e filled. */
        int (*init)(Workload *w, uint64_t seed, ErrorInfo *e);
        void (*next)(Workload *w, SimInterval *ret);
} WorkloadType;

struct Workload {
        const WorkloadType *type;
        double p[WL_PARAMS_MAX];
        char names[WL_PARAMS_MAX][WL_NAME_MAX];
        SimRand rng;
        uint64_t now_ns;
        uint64_t bg_timer_ns;     /* absolute expiry of the next background timer */
        uint64_t counter;         /* the type's own progress */
        Workload *sub[2];
        unsigned phase;
        uint64_t phase_end_ns;
};

extern const WorkloadType *const workload_types[];

/* Index of parameter key in w's type (it must exist). */
unsigned wl_param_index(const Workload *w, const char *key);

/* The value of parameter key. */
double wl_param(const Workload *w, const char *key);

/* Runs for busy_ns: advances the clock and records it in *ret. */
void wl_run(Workload *w, uint64_t busy_ns, SimInterval *ret);

/* Goes idle now until the first of: the workload's own timer (own_timer_ns
 * from now, WL_NONE for none), a background timer, a non-timer event
 * (event_ns from now, WL_NONE for none).  Fills *ret and advances. */
void wl_idle(Workload *w, uint64_t own_timer_ns, uint64_t event_ns, SimInterval *ret);

/* A duration in ns from a value in µs. */
uint64_t wl_us(double us);
