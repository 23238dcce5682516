/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the policy believes of one state: the advertised costs, or the
 * calibrated ones where the calibration measured them.  Used by the
 * decision (policy.c, policy-model.c) and by the step's inputs. */
#include <string.h>

#include "policy-internal.h"
#include "policy-step.h"

uint32_t policy_latency_us(const PolicyState *st) {
        return st->real_latency_us > 0 ? st->real_latency_us : st->latency_us;
}

uint32_t policy_residency_us(const PolicyState *st) {
        uint64_t derived;

        if (st->real_residency_us > 0)
                return st->real_residency_us;
        if (!st->misdescribed)
                return st->residency_us;
        derived = 2 * (uint64_t) st->real_latency_us;
        return derived > st->residency_us ? (uint32_t) (derived > UINT32_MAX ? UINT32_MAX : derived)
                                          : st->residency_us;
}

const CalibrationState *policy_calibrated_state(const Calibration *c, unsigned cpu, unsigned k, const char *name) {
        const CalibrationState *st;

        if (!c || cpu >= c->n_cpus || k >= c->cpus[cpu].n_states)
                return NULL;
        st = &c->cpus[cpu].states[k];
        return st->measured && strcmp(st->name, name) == 0 ? st : NULL;
}

void policy_state_calibrate(PolicyState *st, const Calibration *c, unsigned cpu, unsigned k, const char *name) {
        const CalibrationState *cal = policy_calibrated_state(c, cpu, k, name);

        if (!cal)
                return;
        st->real_latency_us = cal->wakeup_us;
        st->real_residency_us = calibration_breakeven_us(cal, st->residency_us);
        st->misdescribed = cal->misdescribed;
}
